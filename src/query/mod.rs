//! Questions about one page, answered from the index: its summary, links, sections,
//! infobox, tables, categories and siblings. Each returns a serializable value; the CLI
//! prints it as text or JSON.

mod category;
mod expand;
mod links;
mod page;
mod tables;
pub mod text;

use serde::Serialize;

pub use category::{CategoryView, category};
pub use expand::{
    ExpandView, WarningView, expand_page, expand_text, expand_text_with, index_messages,
    page_wikitext,
};
pub use links::{InLink, LinkView, Origin, inlinks, outlinks};
pub use page::{PageSummary, summary};
pub use tables::{
    FieldAnswer, FieldView, InfoboxView, RowView, TableView, infobox, infobox_field, infobox_views,
    table, table_row,
};

use crate::index::{Index, IndexError, Lookup, PageRecord, Resolution};
use crate::wikitext::PageStructure;

/// Why a query has no answer (exit code 1) or failed (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("{0}")]
    NotFound(String),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Search(#[from] crate::text::search::SearchError),
}

impl QueryError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, QueryError::NotFound(_))
    }
}

/// A page found for a title, after following redirects.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    pub title: String,
    pub page_id: u64,
    /// Page number in the index.
    #[serde(skip)]
    pub number: u32,
    /// The titles of the redirects followed to get here.
    pub via: Vec<String>,
    /// A section the title or the redirect pointed to.
    pub fragment: Option<String>,
    #[serde(skip)]
    pub record: PageRecord,
}

/// Finds the page a title names, following redirects to their target.
pub fn find_page(index: &Index, title: &str) -> Result<Found, QueryError> {
    let (t, n) = match index.lookup(title) {
        Lookup::Page(t, n) => (t, n),
        Lookup::Missing(t) => {
            return Err(QueryError::NotFound(format!(
                "no page {:?}",
                index.codec().prefixed_text(t.ns, &t.dbkey)
            )));
        }
        Lookup::Invalid(e) => {
            return Err(QueryError::NotFound(format!(
                "{title:?} is not a valid title: {e}"
            )));
        }
        Lookup::Interwiki(_) => {
            return Err(QueryError::NotFound(format!(
                "{title:?} is on another wiki"
            )));
        }
    };
    let rec = index.page(n)?;
    let mut via = Vec::new();
    let mut fragment = t.fragment;
    let (number, record) = match &rec.redirect {
        None => (n, rec),
        Some(rd) => match &rd.resolution {
            Resolution::Page {
                page, fragment: f, ..
            } => {
                via.push(index.display_title(&rec));
                if fragment.is_none() {
                    fragment = f.clone();
                }
                (*page, index.page(*page)?)
            }
            _ => {
                return Err(QueryError::NotFound(format!(
                    "{:?} is a redirect that does not lead to a page",
                    index.display_title(&rec)
                )));
            }
        },
    };
    Ok(Found {
        title: index.display_title(&record),
        page_id: record.id,
        number,
        via,
        fragment,
        record,
    })
}

/// The page's structure.
pub fn structure(index: &Index, found: &Found) -> Result<PageStructure, QueryError> {
    Ok(index.structure(found.number)?)
}

/// Anchor of section number `section` (0 = lead).
pub fn section_anchor(s: &PageStructure, section: u32) -> Option<String> {
    if section == 0 {
        None
    } else {
        s.sections
            .get(section as usize - 1)
            .map(|x| x.anchor.clone())
    }
}
