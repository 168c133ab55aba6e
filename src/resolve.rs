//! `wikiwit resolve`: what a title text means in the index — its normalized form, its
//! page, and where its redirect chain ends.

use serde::Serialize;

use crate::index::{DeadEnd, Index, IndexError, NotFound, PageRecord};

/// A page as reported to users.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PageRef {
    pub title: String,
    pub ns: i32,
    pub page_id: u64,
}

/// The outcome category, also the basis of the CLI's exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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
    let landed = match index.page_for(query)? {
        Err(NotFound::InvalidTitle { error, .. }) => {
            out.status = Status::Invalid;
            out.reason = Some(error.to_string());
            return Ok(out);
        }
        Err(NotFound::OtherWiki(t)) => {
            out.status = Status::Interwiki;
            out.title = Some(format!(
                "{}:{}",
                t.interwiki.as_deref().unwrap_or_default(),
                codec.prefixed_text(t.ns, &t.dbkey)
            ));
            out.fragment = t.fragment;
            return Ok(out);
        }
        Err(NotFound::NoPage(t)) => {
            out.title = Some(codec.prefixed_text(t.ns, &t.dbkey));
            out.ns = Some(t.ns);
            out.fragment = t.fragment;
            out.status = Status::Missing;
            return Ok(out);
        }
        Err(NotFound::DeadRedirect(dead)) => Err(dead),
        Ok(landing) => Ok(landing),
    };
    let named = match &landed {
        Ok(l) => &l.named,
        Err(dead) => &dead.named,
    };
    let rec = &named.record;
    out.title = Some(index.display_title(rec));
    out.ns = Some(rec.ns);
    out.page = Some(page_ref(index, rec));
    out.fragment = named.title.as_ref().and_then(|t| t.fragment.clone());
    let Some(rd) = rec.redirect.clone() else {
        out.status = Status::Page;
        out.target = out.page.clone();
        return Ok(out);
    };
    out.chain = redirect_chain(index, rec)?;
    match landed {
        Ok(landing) => {
            out.status = Status::Redirect;
            out.target = Some(page_ref(index, &landing.record(index)?));
            out.fragment = landing.fragment();
        }
        Err(dead) => match dead.end {
            DeadEnd::NoPage => out.status = Status::BrokenRedirect,
            DeadEnd::Loop => out.status = Status::RedirectLoop,
            DeadEnd::OtherWiki => {
                out.status = Status::Interwiki;
                out.fragment = rd.fragment;
            }
        },
    }
    Ok(out)
}

/// The titles a redirect's chain visits, the redirect first: walked for display (the
/// stored resolution says how the chain ends and how many hops it has).
fn redirect_chain(index: &Index, rec: &PageRecord) -> Result<Vec<String>, IndexError> {
    let codec = index.codec();
    let total = rec.redirect.as_ref().map_or(0, |rd| rd.resolution.hops()) as usize;
    let mut chain = vec![index.display_title(rec)];
    let mut cur = rec.clone();
    while let Some(r) = &cur.redirect {
        if r.interwiki.is_some() || chain.len() > total {
            break;
        }
        chain.push(codec.prefixed_text(r.ns, &r.dbkey));
        match index.find(r.ns, &r.dbkey) {
            Some(m) => cur = index.page(m)?,
            None => break,
        }
    }
    Ok(chain)
}
