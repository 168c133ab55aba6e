//! `wikiwit table TITLE N [--row R]` and `wikiwit infobox TITLE [FIELD]`.
//!
//! Tables are numbered from 1 in document order (nested tables included), rows of a
//! table from 0 *after its header rows* (a data row, as a reader counts them), columns
//! from 0 on the grid with row and column spans expanded.

use serde::Serialize;

use super::{QueryError, find_page, section_anchor};
use crate::index::Index;
use crate::wikitext::Infobox;

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct CellView {
    pub text: String,
    pub header: bool,
    /// Link targets in the cell.
    pub links: Vec<String>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct RowView {
    pub page: String,
    pub table: usize,
    /// 0-based data row.
    pub row: usize,
    pub labels: Vec<Option<String>>,
    pub cells: Vec<CellView>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TableView {
    pub page: String,
    pub table: usize,
    pub caption: String,
    pub section: Option<String>,
    pub attrs: String,
    pub labels: Vec<Option<String>>,
    /// Data rows, spans expanded: one text per grid column.
    pub rows: Vec<Vec<String>>,
}

fn load(
    index: &Index,
    title: &str,
    n: usize,
) -> Result<(super::Found, crate::wikitext::PageStructure), QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    if n == 0 || n > s.tables.len() {
        return Err(QueryError::NotFound(format!(
            "{:?} has {} table(s); there is no table {n}",
            page.title,
            s.tables.len()
        )));
    }
    Ok((page, s))
}

pub fn table(index: &Index, title: &str, n: usize) -> Result<TableView, QueryError> {
    let (page, s) = load(index, title, n)?;
    let t = &s.tables[n - 1];
    let h = t.header_rows();
    let grid = t.grid();
    Ok(TableView {
        page: page.title.clone(),
        table: n,
        caption: t.caption.clone(),
        section: section_anchor(&s, t.section),
        attrs: t.attrs.clone(),
        labels: t.column_labels(),
        rows: grid[h..]
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| c.map(|c| c.text.clone()).unwrap_or_default())
                    .collect()
            })
            .collect(),
    })
}

pub fn table_row(index: &Index, title: &str, n: usize, row: usize) -> Result<RowView, QueryError> {
    let (page, s) = load(index, title, n)?;
    let t = &s.tables[n - 1];
    let h = t.header_rows();
    if row >= t.data_rows() {
        return Err(QueryError::NotFound(format!(
            "table {n} of {:?} has {} data row(s); there is no row {row}",
            page.title,
            t.data_rows()
        )));
    }
    let cols = t.columns as usize;
    let cells = (0..cols)
        .map(|c| match t.cell_at(h + row, c) {
            Some(cell) => CellView {
                text: cell.text.clone(),
                header: cell.header,
                links: cell
                    .links
                    .iter()
                    .filter_map(|&i| s.links.get(i as usize))
                    .map(|l| index.codec().prefixed_text(l.ns, &l.dbkey))
                    .collect(),
            },
            None => CellView {
                text: String::new(),
                header: false,
                links: Vec::new(),
            },
        })
        .collect();
    Ok(RowView {
        page: page.title.clone(),
        table: n,
        row,
        labels: t.column_labels(),
        cells,
    })
}

/// The page's infoboxes (all of them; most pages have one).
pub fn infobox(
    index: &Index,
    title: &str,
) -> Result<(super::Found, Vec<Infobox>, crate::wikitext::PageStructure), QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    if s.infoboxes.is_empty() {
        return Err(QueryError::NotFound(format!(
            "{:?} has no infobox",
            page.title
        )));
    }
    let boxes = s.infoboxes.clone();
    Ok((page, boxes, s))
}

/// An infobox field with its link targets as titles (what `infobox --json` prints).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FieldView {
    pub name: String,
    pub text: String,
    pub raw: String,
    pub links: Vec<String>,
}

/// One infobox of a page: its template (spaces, not underscores) and fields.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InfoboxView {
    pub page: String,
    pub template: String,
    pub fields: Vec<FieldView>,
}

/// One field of a page's infoboxes, found by name.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FieldAnswer {
    pub page: String,
    pub field: String,
    pub text: String,
    pub raw: String,
    pub links: Vec<String>,
}

/// The page's infoboxes with link targets spelled out, for the CLI and the bindings;
/// `NotFound` when the page has none (the question was about its infobox).
pub fn infobox_views(index: &Index, title: &str) -> Result<Vec<InfoboxView>, QueryError> {
    let (p, _, s) = infobox(index, title)?;
    Ok(views(index, &p.title, &s))
}

/// The infoboxes of the page `page`, none for a page without one (the page view shows
/// every page, infobox or not).
pub(crate) fn infobox_views_of(
    index: &Index,
    page: &super::Found,
) -> Result<Vec<InfoboxView>, QueryError> {
    Ok(views(index, &page.title, &index.structure(page.number)?))
}

fn views(index: &Index, page: &str, s: &crate::wikitext::PageStructure) -> Vec<InfoboxView> {
    let links = |ids: &[u32]| -> Vec<String> {
        ids.iter()
            .filter_map(|&i| s.links.get(i as usize))
            .map(|l| index.codec().prefixed_text(l.ns, &l.dbkey))
            .collect()
    };
    s.infoboxes
        .iter()
        .map(|b| InfoboxView {
            page: page.to_string(),
            template: b.template.replace('_', " "),
            fields: b
                .fields
                .iter()
                .map(|f| FieldView {
                    name: f.name.clone(),
                    text: f.text.clone(),
                    raw: f.raw.clone(),
                    links: links(&f.links),
                })
                .collect(),
        })
        .collect()
}

/// The first field named `field` (case, spaces and underscores folded) of the page's
/// infoboxes; `NotFound` when none has it.
pub fn infobox_field(index: &Index, title: &str, field: &str) -> Result<FieldAnswer, QueryError> {
    let boxes = infobox_views(index, title)?;
    let fold = |s: &str| s.trim().to_lowercase().replace(' ', "_");
    let want = fold(field);
    let page = boxes.first().map(|b| b.page.clone()).unwrap_or_default();
    boxes
        .into_iter()
        .flat_map(|b| b.fields)
        .find(|x| fold(&x.name) == want)
        .map(|f| FieldAnswer {
            page: page.clone(),
            field: f.name,
            text: f.text,
            raw: f.raw,
            links: f.links,
        })
        .ok_or_else(|| {
            QueryError::NotFound(format!("the infobox of {page:?} has no field {field:?}"))
        })
}
