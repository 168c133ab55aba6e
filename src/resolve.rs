//! `wikiwit resolve`: what a title text means in the index — its normalized form, its
//! page, and where its redirect chain ends.

use serde::Serialize;

use crate::index::{Index, IndexError, Lookup, PageRecord, Resolution};

/// A page as reported to users.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageRef {
    pub title: String,
    pub ns: i32,
    pub page_id: u64,
}

/// The outcome category, also the basis of the CLI's exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// An existing page that is not a redirect.
    Page,
    /// A redirect whose chain ends on an existing page.
    Redirect,
    /// A valid title without a page.
    Missing,
    /// Not a valid title.
    Invalid,
    /// A title on another wiki.
    Interwiki,
    /// A redirect whose chain ends on a missing page.
    BrokenRedirect,
    /// A redirect chain that loops.
    RedirectLoop,
}

impl Status {
    /// Whether the query found what it asked for.
    pub fn found(self) -> bool {
        matches!(self, Status::Page | Status::Redirect)
    }
}

/// Everything `resolve` reports about one query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolved {
    pub query: String,
    pub status: Status,
    /// Normalized prefixed title (absent when invalid).
    pub title: Option<String>,
    pub ns: Option<i32>,
    /// The page the title names, if it exists.
    pub page: Option<PageRef>,
    /// Titles visited, the query's page first (redirects only).
    pub chain: Vec<String>,
    /// The page where the chain ends.
    pub target: Option<PageRef>,
    /// The section the query or the chain points to.
    pub fragment: Option<String>,
    /// Why the title is invalid, or other explanation.
    pub reason: Option<String>,
}

fn page_ref(index: &Index, rec: &PageRecord) -> PageRef {
    PageRef {
        title: index.display_title(rec),
        ns: rec.ns,
        page_id: rec.id,
    }
}

/// Resolves one title text against the index.
pub fn resolve(index: &Index, query: &str) -> Result<Resolved, IndexError> {
    let mut out = Resolved {
        query: query.to_string(),
        status: Status::Missing,
        title: None,
        ns: None,
        page: None,
        chain: Vec::new(),
        target: None,
        fragment: None,
        reason: None,
    };
    let codec = index.codec();
    match index.lookup(query) {
        Lookup::Invalid(e) => {
            out.status = Status::Invalid;
            out.reason = Some(e.to_string());
        }
        Lookup::Interwiki(t) => {
            out.status = Status::Interwiki;
            out.title = Some(format!(
                "{}:{}",
                t.interwiki.as_deref().unwrap_or_default(),
                codec.prefixed_text(t.ns, &t.dbkey)
            ));
            out.fragment = t.fragment;
        }
        Lookup::Missing(t) => {
            out.title = Some(codec.prefixed_text(t.ns, &t.dbkey));
            out.ns = Some(t.ns);
            out.fragment = t.fragment;
            out.status = Status::Missing;
        }
        Lookup::Page(t, n) => {
            let rec = index.page(n)?;
            out.title = Some(index.display_title(&rec));
            out.ns = Some(rec.ns);
            out.page = Some(page_ref(index, &rec));
            out.fragment = t.fragment;
            match &rec.redirect {
                None => {
                    out.status = Status::Page;
                    out.target = out.page.clone();
                }
                Some(rd) => {
                    out.chain.push(index.display_title(&rec));
                    // Walk the chain for display; the stored resolution says how it ends.
                    let total = rd.resolution.hops() as usize;
                    let mut cur = rec.clone();
                    while let Some(r) = &cur.redirect {
                        if r.interwiki.is_some() || out.chain.len() > total {
                            break;
                        }
                        let next_title = codec.prefixed_text(r.ns, &r.dbkey);
                        out.chain.push(next_title);
                        match index.find(r.ns, &r.dbkey) {
                            Some(m) => cur = index.page(m)?,
                            None => break,
                        }
                    }
                    match &rd.resolution {
                        Resolution::Page { page, fragment, .. } => {
                            let fin = index.page(*page)?;
                            out.status = Status::Redirect;
                            out.target = Some(page_ref(index, &fin));
                            if out.fragment.is_none() {
                                out.fragment = fragment.clone();
                            }
                        }
                        Resolution::Missing { .. } => out.status = Status::BrokenRedirect,
                        Resolution::Loop { .. } => out.status = Status::RedirectLoop,
                        Resolution::Interwiki { .. } => {
                            out.status = Status::Interwiki;
                            out.fragment = rd.fragment.clone();
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}
