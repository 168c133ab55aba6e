//! The pages of other namespaces than the sources', for a build's expansion: an article
//! transcluded with `{{:Page}}`, a portal's `{{Portal:Rivers/Intro}}`, a page a module
//! reads with `getContent()`. MediaWiki expands them like templates; a build knows
//! only the templates, modules and messages before pages are expanded, so these are
//! read from the dump as they are asked for:
//!
//! - an indexed multistream dump: the stream holding the page is decoded on demand
//!   ([`StreamDirectory`]), nothing is written;
//! - any other dump: the first pass, which decodes the whole dump anyway, stores every
//!   other page in a temporary record store beside the build's spill files, found by a
//!   hash of its title.
//!
//! Either way the answer is the dump's page, so a build's output does not depend on the
//! dump's layout; a small cache serves the repeats (an expander asks for a page's text,
//! then for its redirect).

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::sources::{SOURCE_NAMESPACES, SourcePage};
use super::{IndexError, Store, StoreWriter, kinds};
use crate::dump::{Dump, RawPage, StreamDirectory};
use crate::redirect::{self, RedirectSyntax};
use crate::title::TitleCodec;

/// The temporary store's file name, in the build's spill directory.
const SPOOL: &str = "articles.tmp";

/// Bytes of page text the cache keeps.
const CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Pages outside the source namespaces, as expansion reads them: from the dump during
/// a build ([`Articles`]), from the index's dump after it (`wikiwit expand`).
pub(crate) trait OtherPages: Sync {
    /// The page (namespace, DB key), if there is one.
    fn get(&self, ns: i32, dbkey: &str) -> Option<Arc<SourcePage>>;
    /// Whether the page exists.
    fn exists(&self, ns: i32, dbkey: &str) -> bool;
}

/// A dump page as expansion reads it; `None` when its title does not parse (the main
/// pass reports it).
pub(crate) fn source_page(raw: RawPage<'_>, codec: &TitleCodec, lang: &str) -> Option<SourcePage> {
    let t = codec.parse_page_title(&raw.title).ok()?;
    let wikitext = raw.model == "wikitext";
    Some(page_of(
        t.ns,
        t.dbkey,
        raw.text.into_owned(),
        wikitext,
        raw.redirect_attr.is_some(),
        codec,
        lang,
    ))
}

/// A page of wikitext `text` (content model wikitext or not), with its redirect target
/// when it is a local redirect.
pub(crate) fn page_of(
    ns: i32,
    dbkey: String,
    text: String,
    wikitext: bool,
    redirect_attr: bool,
    codec: &TitleCodec,
    lang: &str,
) -> SourcePage {
    let redirect = match redirect::parse(&text, lang, redirect_attr, codec) {
        RedirectSyntax::Target(r) if r.interwiki.is_none() && wikitext => Some((r.ns, r.dbkey)),
        _ => None,
    };
    SourcePage {
        ns,
        dbkey,
        redirect,
        text,
    }
}

fn key_hash(ns: i32, dbkey: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    (ns, dbkey).hash(&mut h);
    h.finish()
}

/// Writes the temporary store of a dump without a multistream index.
pub(crate) struct SpoolWriter {
    store: StoreWriter<SourcePage>,
    by_hash: Vec<(u64, u32)>,
}

impl SpoolWriter {
    pub fn create(tmp: &Path) -> Result<SpoolWriter, IndexError> {
        Ok(SpoolWriter {
            store: StoreWriter::create(&tmp.join(SPOOL), kinds::TEMP_ARTICLES)?,
            by_hash: Vec::new(),
        })
    }

    pub fn push(&mut self, page: &SourcePage) -> Result<(), IndexError> {
        let n = u32::try_from(self.store.len()).map_err(|_| IndexError::Encode {
            what: "temporary store of pages",
            message: "more than 2^32 pages".into(),
        })?;
        self.by_hash.push((key_hash(page.ns, &page.dbkey), n));
        self.store.push(page)
    }

    /// Closes the store; the pages are readable with [`Articles::spooled`].
    pub fn finish(mut self, tmp: &Path) -> Result<Spool, IndexError> {
        self.store.finish()?;
        // Sorted by (hash, record): of two pages with one title the first is found.
        self.by_hash.sort_unstable();
        Ok(Spool {
            store: Store::open(&tmp.join(SPOOL), kinds::TEMP_ARTICLES)?,
            by_hash: self.by_hash,
        })
    }
}

/// The finished temporary store.
pub(crate) struct Spool {
    store: Store<SourcePage>,
    by_hash: Vec<(u64, u32)>,
}

impl Spool {
    fn records(&self, ns: i32, dbkey: &str) -> impl Iterator<Item = u32> + '_ {
        let h = key_hash(ns, dbkey);
        let start = self.by_hash.partition_point(|&(x, _)| x < h);
        self.by_hash[start..]
            .iter()
            .take_while(move |&&(x, _)| x == h)
            .map(|&(_, n)| n)
    }
}

enum Backing<'a> {
    Streams {
        dump: &'a Dump,
        dir: StreamDirectory,
    },
    Spool(Box<Spool>),
}

type Key = (i32, String);

#[derive(Default)]
struct Cache {
    pages: FxHashMap<Key, Option<Arc<SourcePage>>>,
    order: VecDeque<Key>,
    bytes: usize,
}

/// Pages outside the source namespaces, readable from every expanding thread.
pub(crate) struct Articles<'a> {
    backing: Backing<'a>,
    codec: &'a TitleCodec,
    lang: String,
    cache: PageCache,
}

impl<'a> Articles<'a> {
    /// The pages of an indexed multistream dump, read on demand.
    pub fn streams(dump: &'a Dump, dir: StreamDirectory, codec: &'a TitleCodec) -> Articles<'a> {
        Articles::with(Backing::Streams { dump, dir }, dump, codec)
    }

    /// The pages the first pass stored.
    pub fn spooled(spool: Spool, dump: &'a Dump, codec: &'a TitleCodec) -> Articles<'a> {
        Articles::with(Backing::Spool(Box::new(spool)), dump, codec)
    }

    fn with(backing: Backing<'a>, dump: &Dump, codec: &'a TitleCodec) -> Articles<'a> {
        Articles {
            backing,
            codec,
            lang: dump.siteinfo().lang.clone(),
            cache: PageCache::default(),
        }
    }

    fn read(&self, ns: i32, dbkey: &str) -> Option<SourcePage> {
        match &self.backing {
            Backing::Streams { dump, dir } => {
                let title = self.codec.prefixed_text(ns, dbkey);
                // A stream that cannot be decoded holds no page here; the main pass
                // reports it with its location.
                dir.read(dump, &title, |raw| source_page(raw, self.codec, &self.lang))
                    .ok()
                    .flatten()
                    .flatten()
            }
            Backing::Spool(s) => s.records(ns, dbkey).find_map(|n| {
                let p = s.store.get(n as usize).ok()?;
                (p.ns == ns && p.dbkey == dbkey).then_some(p)
            }),
        }
    }
}

impl OtherPages for Articles<'_> {
    /// Whether the dump has the page (a page of a source namespace is not asked here).
    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        match &self.backing {
            Backing::Streams { dir, .. } => dir.contains(&self.codec.prefixed_text(ns, dbkey)),
            Backing::Spool(s) => s.records(ns, dbkey).next().is_some(),
        }
    }

    /// The page (namespace, DB key), if the dump has it.
    fn get(&self, ns: i32, dbkey: &str) -> Option<Arc<SourcePage>> {
        if SOURCE_NAMESPACES.contains(&ns) {
            return None;
        }
        self.cache.get(ns, dbkey, || self.read(ns, dbkey))
    }
}

/// The pages read last, up to [`CACHE_BYTES`] of text (oldest dropped first).
#[derive(Default)]
pub(crate) struct PageCache(Mutex<Cache>);

impl PageCache {
    /// The cached page, else `read`'s, kept.
    pub fn get(
        &self,
        ns: i32,
        dbkey: &str,
        read: impl FnOnce() -> Option<SourcePage>,
    ) -> Option<Arc<SourcePage>> {
        let key = (ns, dbkey.to_string());
        let lock = || self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hit) = lock().pages.get(&key) {
            return hit.clone();
        }
        let page = read().map(Arc::new);
        let mut cache = lock();
        let size = 64 + page.as_ref().map_or(0, |p| p.text.len());
        while cache.bytes + size > CACHE_BYTES {
            let Some(old) = cache.order.pop_front() else {
                break;
            };
            if let Some(Some(p)) = cache.pages.remove(&old) {
                cache.bytes -= 64 + p.text.len();
            } else {
                cache.bytes -= 64;
            }
        }
        if cache.pages.insert(key.clone(), page.clone()).is_none() {
            cache.order.push_back(key);
            cache.bytes += size;
        }
        page
    }
}
