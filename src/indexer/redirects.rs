//! Redirect targets, spooled while the dump is read and resolved once the title map is
//! written.
//!
//! A redirect's chain can only be followed when every title is known, which is after
//! the last page. Holding the pages until then is what made the old build grow with the
//! dump; here each redirect's target goes to a temporary store as its page passes, and
//! memory keeps only two `u32` per redirect (its page number and its first hop), about
//! 90 MB for enwiki's ≈ 11 M redirects.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::index::{self, IndexError, Redirect, Resolution, Store, StoreWriter, TitleMap};
use crate::title::Title;

/// First hop to a title without a page (or out of the wiki).
const MISSING: u32 = u32::MAX;

/// A redirect's target as written on its page (normalized; a [`Title`] without its
/// leading colon, which redirects ignore).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Target {
    ns: i32,
    dbkey: String,
    fragment: Option<String>,
    interwiki: Option<String>,
}

impl From<&Title> for Target {
    fn from(t: &Title) -> Target {
        Target {
            ns: t.ns,
            dbkey: t.dbkey.clone(),
            fragment: t.fragment.clone(),
            interwiki: t.interwiki.clone(),
        }
    }
}

impl From<Target> for Title {
    fn from(t: Target) -> Title {
        Title {
            ns: t.ns,
            dbkey: t.dbkey,
            fragment: t.fragment,
            interwiki: t.interwiki,
            leading_colon: false,
        }
    }
}

/// Collects redirect targets in page order.
pub(super) struct RedirectSpool {
    path: PathBuf,
    pages: Vec<u32>,
    targets: StoreWriter<Target>,
}

impl RedirectSpool {
    pub fn create(tmp: &Path) -> Result<RedirectSpool, IndexError> {
        let path = tmp.join("redirect-targets.tmp");
        Ok(RedirectSpool {
            targets: StoreWriter::create(&path, index::kinds::TEMP_REDIRECT_TARGETS)?,
            path,
            pages: Vec::new(),
        })
    }

    /// Page number `page` redirects to `t`; pages come in increasing order.
    pub fn push(&mut self, page: u32, t: &Title) -> Result<(), IndexError> {
        self.pages.push(page);
        self.targets.push(&Target::from(t))
    }

    /// Ends the input and looks up every target's first hop in `titles`.
    pub(crate) fn resolve_with(self, titles: &TitleMap) -> Result<Redirects, IndexError> {
        self.targets.finish()?;
        let targets: Store<Target> = Store::open(&self.path, index::kinds::TEMP_REDIRECT_TARGETS)?;
        let first = (0..self.pages.len())
            .into_par_iter()
            .map(|k| {
                index::fault::point("redirects");
                let t = targets.get(k)?;
                Ok(match t.interwiki {
                    Some(_) => MISSING,
                    None => titles.get(t.ns, &t.dbkey).map_or(MISSING, |p| p as u32),
                })
            })
            .collect::<Result<Vec<u32>, IndexError>>()?;
        Ok(Redirects {
            path: self.path,
            pages: self.pages,
            targets,
            first,
        })
    }
}

/// Every redirect with its first hop, ready to be followed.
pub(super) struct Redirects {
    path: PathBuf,
    pages: Vec<u32>,
    targets: Store<Target>,
    first: Vec<u32>,
}

impl Drop for Redirects {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Redirects {
    /// The redirect number of page number `page`, if it is a redirect.
    pub(crate) fn ordinal(&self, page: u32) -> Option<usize> {
        self.pages.binary_search(&page).ok()
    }

    /// Redirect number `k`: its target and where its chain ends, as MediaWiki follows it
    /// (the fragment nearest to the end wins; a chain that comes back is a loop).
    pub fn redirect(&self, k: usize) -> Result<Redirect, IndexError> {
        let own = self.targets.get(k)?;
        let mut visited = vec![self.pages[k]];
        let mut cur = k;
        let mut hops = 0u32;
        let mut fragment = None;
        let resolution = loop {
            let t = if cur == k {
                own.clone()
            } else {
                self.targets.get(cur)?
            };
            hops += 1;
            if t.fragment.is_some() {
                fragment = t.fragment;
            }
            if t.interwiki.is_some() {
                break Resolution::Interwiki { hops };
            }
            let next = self.first[cur];
            if next == MISSING {
                break Resolution::Missing {
                    hops,
                    ns: t.ns,
                    dbkey: t.dbkey,
                };
            }
            if visited.contains(&next) {
                break Resolution::Loop { hops };
            }
            match self.ordinal(next) {
                None => {
                    break Resolution::Page {
                        page: next,
                        hops,
                        fragment,
                    };
                }
                Some(j) => {
                    visited.push(next);
                    cur = j;
                }
            }
        };
        Ok(Redirect {
            ns: own.ns,
            dbkey: own.dbkey,
            fragment: own.fragment,
            interwiki: own.interwiki,
            resolution,
        })
    }
}
