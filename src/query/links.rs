//! `wikiwit links TITLE [--in]`: outgoing links with where they sit, and incoming links.

use serde::Serialize;

use super::{QueryError, find_page, section_anchor};
use crate::index::{Index, Resolution};
use crate::wikitext::Context;

/// Which links to keep, by where they come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Written in the page's own text.
    Own,
    /// Produced by expanding a template the page calls.
    Template,
}

impl Origin {
    pub const ALL: [Origin; 2] = [Origin::Own, Origin::Template];

    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Own => "own",
            Origin::Template => "template",
        }
    }

    pub fn parse(s: &str) -> Option<Origin> {
        match s {
            "own" => Some(Origin::Own),
            "template" => Some(Origin::Template),
            _ => None,
        }
    }

    fn keeps(self, origin: &Option<(i32, String)>) -> bool {
        (self == Origin::Own) == origin.is_none()
    }
}

/// Where a link sits, by its name (`prose`, `table`, …): the schema of the value
/// [`Context`] serializes to, stated here because `wikitext` knows nothing of schemas.
impl schemars::JsonSchema for Context {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Context".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Context::ALL.iter().map(|c| c.as_str()).collect();
        schemars::json_schema!({
            "type": "string",
            "enum": names,
            "description": "Where the link sits in the page."
        })
    }
}

/// One outgoing link.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LinkView {
    /// The target as written (normalized).
    pub target: String,
    pub fragment: Option<String>,
    /// Where the target leads: the page itself, or a redirect's final page.
    pub resolved: Option<String>,
    /// `page`, `redirect`, `missing` (a red link) or `broken-redirect`.
    pub status: &'static str,
    pub text: String,
    pub context: Context,
    pub in_template: bool,
    /// Anchor of the section holding the link (none in the lead).
    pub section: Option<String>,
    /// Byte range in the wikitext (for a link a template made: of the call).
    pub start: u32,
    pub end: u32,
    /// The template whose expansion produced the link (`None`: the page's own text).
    pub origin: Option<String>,
}

/// Outgoing links in document order, optionally only those in `context` and of `origin`.
pub fn outlinks(
    index: &Index,
    title: &str,
    context: Option<Context>,
    origin: Option<Origin>,
) -> Result<Vec<LinkView>, QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    let mut out = Vec::new();
    for l in &s.links {
        if context.is_some_and(|c| c != l.context) || origin.is_some_and(|o| !o.keeps(&l.origin)) {
            continue;
        }
        let (resolved, status) = match index.find(l.ns, &l.dbkey) {
            None => (None, "missing"),
            Some(n) => {
                let rec = index.page(n)?;
                match &rec.redirect {
                    None => (Some(index.display_title(&rec)), "page"),
                    Some(rd) => match &rd.resolution {
                        Resolution::Page { page, .. } => {
                            (Some(index.display_title(&index.page(*page)?)), "redirect")
                        }
                        _ => (None, "broken-redirect"),
                    },
                }
            }
        };
        out.push(LinkView {
            target: index.codec().prefixed_text(l.ns, &l.dbkey),
            fragment: l.fragment.clone(),
            resolved,
            status,
            text: l.text.clone(),
            context: l.context,
            in_template: l.in_template,
            section: section_anchor(&s, l.section),
            start: l.start,
            end: l.end,
            origin: l
                .origin
                .as_ref()
                .map(|(ns, k)| index.codec().prefixed_text(*ns, k)),
        });
    }
    Ok(out)
}

/// One page linking in.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InLink {
    pub source: String,
    pub page_id: u64,
    pub list_page: bool,
    /// The redirect the link goes through, when it does.
    pub via: Option<String>,
    /// Contexts of the source's links to this page.
    pub contexts: Vec<Context>,
}

/// Pages linking to the page, directly or (unless `direct_only`) through a redirect;
/// with `origin`, only through links of that origin.
pub fn inlinks(
    index: &Index,
    title: &str,
    context: Option<Context>,
    direct_only: bool,
    origin: Option<Origin>,
) -> Result<Vec<InLink>, QueryError> {
    let page = find_page(index, title)?;
    let mut targets = vec![(page.number, None)];
    if !direct_only {
        for r in index.redirects_to(page.number)? {
            targets.push((r, Some(index.display_title(&index.page(r)?))));
        }
    }
    let mut out = Vec::new();
    for (t, via) in targets {
        let trec = index.page(t)?;
        for src in index.inlinks(t)? {
            let srec = index.page(src)?;
            let s = index.structure(src)?;
            let mut contexts: Vec<Context> = s
                .links
                .iter()
                .filter(|l| l.ns == trec.ns && l.dbkey == trec.dbkey)
                .filter(|l| origin.is_none_or(|o| o.keeps(&l.origin)))
                .map(|l| l.context)
                .collect();
            contexts.sort_unstable();
            contexts.dedup();
            if origin.is_some() && contexts.is_empty() {
                continue;
            }
            if context.is_some_and(|c| !contexts.contains(&c)) {
                continue;
            }
            out.push(InLink {
                source: index.display_title(&srec),
                page_id: srec.id,
                list_page: srec.list_page,
                via: via.clone(),
                contexts,
            });
        }
    }
    out.sort_by(|a, b| a.source.cmp(&b.source).then(a.via.cmp(&b.via)));
    Ok(out)
}
