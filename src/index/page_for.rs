//! One way to turn a title into a page: [`Index::page_for`] parses a title text, finds
//! its page and follows a redirect to the page its chain ends on, or says why there is
//! none with a typed [`NotFound`].
//!
//! Every reader that goes from a title (or a page number) to "the page meant" goes
//! through here, so "not found" has one vocabulary and the redirect rules (the build's
//! stored chain end, the title's own fragment before the chain's) live in one place.
//! Callers word the reasons for their own output.

use std::collections::HashMap;

use super::{Index, IndexError, PageRecord, Resolution};
use crate::title::{InvalidTitle, Title};

/// The page a title (or page number) names, before following a redirect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The title as parsed; absent when the walk started from a page number.
    pub title: Option<Title>,
    /// Its page number.
    pub number: u32,
    /// Its record (a redirect's record when the title names a redirect).
    pub record: PageRecord,
}

/// Where a title leads: the page it names and the page its redirect chain ends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Landing {
    pub named: Named,
    /// Page number of the final page (the named page itself unless it is a redirect).
    pub number: u32,
    /// The fragment the redirect chain sets (nearest to the final page).
    pub redirect_fragment: Option<String>,
}

impl Landing {
    /// Whether the title named a redirect.
    pub fn is_redirect(&self) -> bool {
        self.named.record.redirect.is_some()
    }

    /// The section meant: the title's own fragment, else the redirect chain's.
    pub fn fragment(&self) -> Option<String> {
        self.named
            .title
            .as_ref()
            .and_then(|t| t.fragment.clone())
            .or_else(|| self.redirect_fragment.clone())
    }

    /// The redirect's display title, when the title went through one.
    pub fn via(&self, index: &Index) -> Option<String> {
        self.is_redirect()
            .then(|| index.display_title(&self.named.record))
    }

    /// The final page's record; read from the index only when a redirect was followed.
    pub fn record(&self, index: &Index) -> Result<PageRecord, IndexError> {
        if self.is_redirect() {
            index.page(self.number)
        } else {
            Ok(self.named.record.clone())
        }
    }
}

/// Why a title leads to no page of this wiki.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFound {
    /// The text is not a valid title.
    InvalidTitle { text: String, error: InvalidTitle },
    /// A valid title on another wiki.
    OtherWiki(Title),
    /// A valid local title without a page.
    NoPage(Title),
    /// A redirect whose chain does not end on a page of this wiki.
    DeadRedirect(DeadRedirect),
}

/// A redirect whose chain does not end on a page of this wiki, and how it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadRedirect {
    pub named: Box<Named>,
    pub end: DeadEnd,
}

/// How a redirect chain that reaches no page ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadEnd {
    /// On a title with no page (a broken redirect).
    NoPage,
    /// Back on a page already visited.
    Loop,
    /// On another wiki.
    OtherWiki,
}

impl DeadRedirect {
    fn new(named: Named, end: DeadEnd) -> DeadRedirect {
        DeadRedirect {
            named: Box::new(named),
            end,
        }
    }
}

/// A title's page, or why there is none; the outer error is a failure to read the index.
pub(crate) type PageFor = Result<Landing, NotFound>;

/// Page numbers by the dump's page ids and revision ids, for citations and locators that
/// name a page only by `?curid=` or `?oldid=`. The index stores no such map (page ids are
/// data, not addresses); it is built from `pages.rec` on first use.
pub(crate) struct IdMaps {
    by_id: HashMap<u64, u32>,
    by_revision: HashMap<u64, u32>,
}

impl Index {
    /// The page (not yet followed if a redirect) whose page id is `curid`, or else whose
    /// latest revision in the dump is `oldid`; `None` when neither names a page.
    pub(crate) fn page_by_ids(
        &self,
        curid: Option<u64>,
        oldid: Option<u64>,
    ) -> Result<Option<u32>, IndexError> {
        if curid.is_none() && oldid.is_none() {
            return Ok(None);
        }
        let maps = self.id_maps()?;
        let by_id = curid.and_then(|c| maps.by_id.get(&c).copied());
        Ok(by_id.or_else(|| oldid.and_then(|o| maps.by_revision.get(&o).copied())))
    }

    /// How output names a page cited by ids alone (`page id 12`, `revision 345`).
    pub(crate) fn ids_label(curid: Option<u64>, oldid: Option<u64>) -> String {
        match (curid, oldid) {
            (Some(c), _) => format!("page id {c}"),
            (None, Some(o)) => format!("revision {o}"),
            (None, None) => "(no title)".to_string(),
        }
    }

    /// The id maps, built once; a page record that cannot be read is an error, not a page
    /// left out (which would report a cited page as missing).
    fn id_maps(&self) -> Result<&IdMaps, IndexError> {
        if let Some(m) = self.ids.get() {
            return Ok(m);
        }
        let (mut by_id, mut by_revision) = (HashMap::new(), HashMap::new());
        for (n, r) in (0..).zip(self.pages()) {
            let r = r?;
            by_id.insert(r.id, n);
            by_revision.insert(r.rev_id, n);
        }
        Ok(self.ids.get_or_init(|| IdMaps { by_id, by_revision }))
    }

    /// Parses `text` as a link target would be, finds its page and follows a redirect
    /// to the page its chain ends on.
    pub(crate) fn page_for(&self, text: &str) -> Result<PageFor, IndexError> {
        let title = match self.codec.parse_link_target(text, crate::title::NS_MAIN) {
            Err(error) => {
                return Ok(Err(NotFound::InvalidTitle {
                    text: text.to_string(),
                    error,
                }));
            }
            Ok(t) if t.interwiki.is_some() => return Ok(Err(NotFound::OtherWiki(t))),
            Ok(t) => t,
        };
        let Some(number) = self.find(title.ns, &title.dbkey) else {
            return Ok(Err(NotFound::NoPage(title)));
        };
        let record = self.page(number)?;
        Ok(self
            .land(Named {
                title: Some(title),
                number,
                record,
            })
            .map_err(NotFound::DeadRedirect))
    }

    /// Follows page number `n` (whose record is `record`) to its final page: for callers
    /// that start from a page number (a link, a page id) and already hold the record.
    pub(crate) fn follow(&self, number: u32, record: PageRecord) -> Result<Landing, DeadRedirect> {
        self.land(Named {
            title: None,
            number,
            record,
        })
    }

    fn land(&self, named: Named) -> Result<Landing, DeadRedirect> {
        let Some(rd) = &named.record.redirect else {
            return Ok(Landing {
                number: named.number,
                named,
                redirect_fragment: None,
            });
        };
        match &rd.resolution {
            Resolution::Page { page, fragment, .. } => Ok(Landing {
                number: *page,
                redirect_fragment: fragment.clone(),
                named,
            }),
            Resolution::Missing { .. } => Err(DeadRedirect::new(named, DeadEnd::NoPage)),
            Resolution::Loop { .. } => Err(DeadRedirect::new(named, DeadEnd::Loop)),
            Resolution::Interwiki { .. } => Err(DeadRedirect::new(named, DeadEnd::OtherWiki)),
        }
    }
}
