//! `wikiwit page TITLE`: what the index knows about a page, in one view.

use serde::Serialize;

use super::{Found, QueryError, find_page};
use crate::index::Index;
use crate::wikitext::Context;

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SectionLine {
    pub number: String,
    pub level: u8,
    pub heading: String,
    pub anchor: String,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TableLine {
    pub table: usize,
    pub caption: String,
    pub section: Option<String>,
    pub rows: usize,
    pub header_rows: usize,
    pub columns: u16,
    pub labels: Vec<Option<String>>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct PageSummary {
    #[serde(flatten)]
    pub page: Found,
    pub ns: i32,
    pub rev_id: u64,
    /// RFC 3339.
    pub timestamp: String,
    pub bytes: u64,
    pub list_page: bool,
    pub sections: Vec<SectionLine>,
    pub infoboxes: Vec<(String, usize)>,
    pub tables: Vec<TableLine>,
    pub list_items: usize,
    pub categories: Vec<String>,
    pub templates: usize,
    /// Links written in the page's own text / inside template arguments.
    pub links: usize,
    pub template_links: usize,
    /// Links by context (own text only).
    pub links_by_context: Vec<(String, usize)>,
    pub inlinks: usize,
    pub redirects: Vec<String>,
    pub warnings: Vec<String>,
}

pub fn summary(index: &Index, title: &str) -> Result<PageSummary, QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    let rec = page.record.clone();
    let mut by_ctx: std::collections::BTreeMap<Context, usize> = Default::default();
    for l in s.links.iter().filter(|l| !l.in_template) {
        *by_ctx.entry(l.context).or_default() += 1;
    }
    let mut categories: Vec<String> = s
        .categories
        .iter()
        .map(|c| c.dbkey.replace('_', " "))
        .collect();
    categories.dedup();
    let redirects = index
        .redirects_to(page.number)?
        .into_iter()
        .map(|r| index.page(r).map(|p| index.display_title(&p)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PageSummary {
        ns: rec.ns,
        rev_id: rec.rev_id,
        timestamp: time::OffsetDateTime::from_unix_timestamp(rec.timestamp)
            .ok()
            .and_then(|t| {
                t.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .unwrap_or_default(),
        bytes: rec.len,
        list_page: rec.list_page,
        sections: s
            .sections
            .iter()
            .map(|x| SectionLine {
                number: x.number.clone(),
                level: x.level,
                heading: x.heading.clone(),
                anchor: x.anchor.clone(),
            })
            .collect(),
        infoboxes: s
            .infoboxes
            .iter()
            .map(|i| (i.template.replace('_', " "), i.fields.len()))
            .collect(),
        tables: s
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| TableLine {
                table: i + 1,
                caption: t.caption.clone(),
                section: super::section_anchor(&s, t.section),
                rows: t.data_rows(),
                header_rows: t.header_rows(),
                columns: t.columns,
                labels: t.column_labels(),
            })
            .collect(),
        list_items: s.lists.len(),
        categories,
        templates: s.templates.iter().filter(|t| t.direct).count(),
        links: s.links.iter().filter(|l| !l.in_template).count(),
        template_links: s.links.iter().filter(|l| l.in_template).count(),
        links_by_context: by_ctx
            .into_iter()
            .map(|(c, n)| (c.as_str().to_string(), n))
            .collect(),
        inlinks: index.inlinks_with_redirects(page.number)?.len(),
        redirects,
        warnings: s.warnings.clone(),
        page,
    })
}
