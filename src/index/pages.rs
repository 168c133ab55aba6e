//! The page store: one record per page, in dump order.

use serde::{Deserialize, Serialize};

/// Sentinel for "no page" in page-number fields.
pub(crate) const NO_PAGE: u32 = u32::MAX;

/// What the index knows about one page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageRecord {
    pub id: u64,
    pub ns: i32,
    /// DB key without namespace prefix (underscores).
    pub dbkey: String,
    pub rev_id: u64,
    /// Revision time, seconds since the Unix epoch (UTC).
    pub timestamp: i64,
    /// Length of the wikitext in bytes.
    pub len: u64,
    /// Content model (`wikitext`, `Scribunto`, `css`, …).
    #[serde(with = "model_code")]
    pub model: String,
    pub redirect: Option<Redirect>,
    /// A list page: titled `List of …` (or the wiki's equivalent) or mostly made of
    /// lists and tables of links.
    pub list_page: bool,
}

/// A redirect page's target and where following it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redirect {
    /// The target as written, normalized (MediaWiki's `rd_namespace`, `rd_title`).
    pub ns: i32,
    pub dbkey: String,
    /// `rd_fragment`: the `#section` of the target, spaces for underscores.
    pub fragment: Option<String>,
    /// `rd_interwiki`, when the redirect leaves the wiki.
    pub interwiki: Option<String>,
    pub resolution: Resolution,
}

/// The outcome of following a redirect chain to its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Resolution {
    /// The chain ends on an existing page that is not a redirect.
    Page {
        /// Page number of the final target.
        page: u32,
        /// Redirects followed (1 for a direct redirect).
        hops: u32,
        /// The fragment nearest to the final page along the chain.
        fragment: Option<String>,
    },
    /// The chain ends on a title with no page (a broken redirect).
    Missing { hops: u32, ns: i32, dbkey: String },
    /// The chain comes back to a page already visited.
    Loop { hops: u32 },
    /// The chain leaves the wiki.
    Interwiki { hops: u32 },
}

impl Resolution {
    /// Redirects followed before the chain ended.
    pub(crate) fn hops(&self) -> u32 {
        match self {
            Resolution::Page { hops, .. }
            | Resolution::Missing { hops, .. }
            | Resolution::Loop { hops }
            | Resolution::Interwiki { hops } => *hops,
        }
    }
}

/// Content models as `pages.rec` stores them: MediaWiki's core models and Scribunto's as
/// one byte, any other by name. Nearly every page is `wikitext`, and its name was a sixth
/// of the store.
mod model_code {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    enum Model {
        Wikitext,
        Scribunto,
        Css,
        Javascript,
        Json,
        Text,
        SanitizedCss,
        Other(String),
    }

    const NAMES: [(&str, Model); 7] = [
        ("wikitext", Model::Wikitext),
        ("Scribunto", Model::Scribunto),
        ("css", Model::Css),
        ("javascript", Model::Javascript),
        ("json", Model::Json),
        ("text", Model::Text),
        ("sanitized-css", Model::SanitizedCss),
    ];

    pub fn serialize<S: Serializer>(model: &str, s: S) -> Result<S::Ok, S::Error> {
        match NAMES.iter().find(|(name, _)| *name == model) {
            Some((_, m)) => m.serialize(s),
            None => Model::Other(model.to_string()).serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(match Model::deserialize(d)? {
            Model::Other(name) => name,
            m => {
                let known = NAMES
                    .iter()
                    .find(|(_, k)| std::mem::discriminant(k) == std::mem::discriminant(&m));
                known
                    .map(|(name, _)| (*name).to_string())
                    .unwrap_or_default()
            }
        })
    }
}
