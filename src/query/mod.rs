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
pub(crate) use expand::page_wikitext;
pub use expand::{
    ExpandView, WarningView, WikitextView, expand_page, expand_text_with, page_source,
};
pub use links::{InLink, LinkView, Origin, inlinks, outlinks};
pub use page::{PageSummary, summary};
pub(crate) use tables::infobox_views_of;
pub use tables::{
    FieldAnswer, FieldView, InfoboxView, RowView, TableView, infobox, infobox_field, infobox_views,
    table, table_row,
};

use crate::index::{Index, IndexError, NotFound, PageRecord};
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
    /// Reading a page's wikitext from the dump the index was built from failed.
    #[error(transparent)]
    Dump(#[from] crate::dump::DumpError),
    /// The dump the index was built from is gone or is another file now.
    #[error(
        "{}: the dump the index was built from is no longer there as it was ({why}); the page's wikitext is not in the index", path.display()
    )]
    DumpChanged {
        path: std::path::PathBuf,
        why: String,
    },
}

impl QueryError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, QueryError::NotFound(_))
    }
}

/// A page found for a title, after following redirects.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
    let landing = match index.page_for(title)? {
        Ok(l) => l,
        Err(NotFound::NoPage(t)) => {
            return Err(QueryError::NotFound(format!(
                "no page {:?}",
                index.codec().prefixed_text(t.ns, &t.dbkey)
            )));
        }
        Err(NotFound::InvalidTitle { error, .. }) => {
            return Err(QueryError::NotFound(format!(
                "{title:?} is not a valid title: {error}"
            )));
        }
        Err(NotFound::OtherWiki(_)) => {
            return Err(QueryError::NotFound(format!(
                "{title:?} is on another wiki"
            )));
        }
        Err(NotFound::DeadRedirect(dead)) => {
            return Err(QueryError::NotFound(format!(
                "{:?} is a redirect that does not lead to a page",
                index.display_title(&dead.named.record)
            )));
        }
    };
    let via = landing.via(index).into_iter().collect();
    let fragment = landing.fragment();
    let (number, record) = (landing.number, landing.record(index)?);
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
