//! The pages of other namespaces than the sources', for a build's expansion: an article
//! transcluded with `{{:Page}}`, a portal's `{{Portal:Rivers/Intro}}`, a page a module
//! reads with `getContent()`. MediaWiki expands them like templates; a build knows
//! only the templates, modules and messages before pages are expanded, so these are
//! read from the dump as they are asked for:
//!
//! - an indexed multistream dump: the stream holding the page is decoded on demand
//!   ([`StreamGroups`]);
//! - plain XML, or bz2 decoded stream by stream without an index: the first pass, which
//!   reads the whole dump anyway, notes where each page can be reached
//!   ([`DumpOffsets`], the entries of `dump-offsets.bin`), and its stream or XML slice
//!   is read on demand;
//! - a single bz2 stream, which cannot be entered in the middle: the first pass stores
//!   every other page in a temporary record store beside the build's spill files.
//!
//! Each way a page is found through a [`Directory`]: (title hash, stream group, page
//! number or record) pairs sorted on disk by the build's external sorter and
//! memory-mapped, so that the build's memory does not grow with the dump (in memory
//! they would take 16 bytes a page, 384 MB for enwiki).
//!
//! The answer is the dump's page in every case, so a build's output does not depend on
//! the dump's layout; a small cache serves the repeats (an expander asks for a page's text,
//! then for its redirect).

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use memmap2::Mmap;
use rustc_hash::FxHashMap;

use super::sources::{SOURCE_NAMESPACES, SourcePage};
use super::{DumpOffsets, IndexError, Store, StoreWriter, kinds};
use crate::dump::{Dump, RawPage, StreamGroups, dump_title_hash};
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

/// The hash a spooled page is found under.
pub(crate) fn key_hash(ns: i32, dbkey: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    (ns, dbkey).hash(&mut h);
    h.finish()
}

/// Bytes of one directory entry: hash (u64) and slot (u32), little-endian.
const ENTRY: usize = 12;

/// A sorted table of (hash, slot) pairs in a file, memory-mapped.
pub(crate) struct Directory {
    map: Option<Mmap>,
    len: usize,
}

impl Directory {
    /// Writes `entries` (sorted) to `path` and maps the file.
    pub fn write(
        path: &Path,
        entries: impl Iterator<Item = Result<(u64, u32), IndexError>>,
    ) -> Result<Directory, IndexError> {
        let io = |e| IndexError::io(path, e);
        // Read too: the file is mapped once written.
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(io)?;
        let mut out = BufWriter::new(file);
        let mut len = 0usize;
        for e in entries {
            let (hash, slot) = e?;
            out.write_all(&hash.to_le_bytes()).map_err(io)?;
            out.write_all(&slot.to_le_bytes()).map_err(io)?;
            len += 1;
        }
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the file was written above, lives in the build's private spill
            // directory and is not changed while mapped.
            Some(unsafe { Mmap::map(&file) }.map_err(io)?)
        };
        Ok(Directory { map, len })
    }

    fn entry(&self, i: usize) -> (u64, u32) {
        let b = &self.map.as_deref().unwrap_or_default()[i * ENTRY..(i + 1) * ENTRY];
        let hash = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let slot = u32::from_le_bytes(b[8..].try_into().expect("4 bytes"));
        (hash, slot)
    }

    /// The slots listed under `hash`, in order.
    fn slots(&self, hash: u64) -> impl Iterator<Item = u32> + '_ {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry(mid).0 < hash {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.len)
            .map(|i| self.entry(i))
            .take_while(move |&(h, _)| h == hash)
            .map(|(_, slot)| slot)
    }
}

/// Writes the temporary store of a dump without a multistream index; the caller sorts
/// the (hash, record) pairs [`SpoolWriter::push`] returns into a [`Directory`].
pub(crate) struct SpoolWriter {
    store: StoreWriter<SourcePage>,
    path: PathBuf,
}

impl SpoolWriter {
    pub fn create(tmp: &Path) -> Result<SpoolWriter, IndexError> {
        let path = tmp.join(SPOOL);
        Ok(SpoolWriter {
            store: StoreWriter::create(&path, kinds::TEMP_ARTICLES)?,
            path,
        })
    }

    /// Stores `page`; returns its directory entry.
    pub fn push(&mut self, page: &SourcePage) -> Result<(u64, u32), IndexError> {
        let n = u32::try_from(self.store.len()).map_err(|_| IndexError::Encode {
            what: "temporary store of pages",
            message: "more than 2^32 pages".into(),
        })?;
        self.store.push(page)?;
        Ok((key_hash(page.ns, &page.dbkey), n))
    }

    /// Closes the store and opens it for reading.
    pub fn finish(self) -> Result<Store<SourcePage>, IndexError> {
        self.store.finish()?;
        Store::open(&self.path, kinds::TEMP_ARTICLES)
    }
}

enum Backing<'a> {
    Streams {
        dump: &'a Dump,
        groups: StreamGroups,
    },
    /// Slots are page numbers, read through the dump's entry points.
    Points {
        dump: &'a Dump,
        offsets: DumpOffsets,
    },
    Spool(Box<Store<SourcePage>>),
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
    dir: Directory,
    codec: &'a TitleCodec,
    lang: String,
    cache: PageCache,
}

impl<'a> Articles<'a> {
    /// The pages of an indexed multistream dump, read on demand; `dir` maps the hash of
    /// a title as the dump writes it ([`dump_title_hash`]) to its group.
    pub fn streams(
        dump: &'a Dump,
        groups: StreamGroups,
        dir: Directory,
        codec: &'a TitleCodec,
    ) -> Articles<'a> {
        Articles::with(Backing::Streams { dump, groups }, dir, dump, codec)
    }

    /// The pages of a dump with entry points, read on demand; `dir` maps [`key_hash`]
    /// to page numbers, `offsets` (from the first pass) page numbers to the dump's bytes.
    pub fn points(
        dump: &'a Dump,
        offsets: DumpOffsets,
        dir: Directory,
        codec: &'a TitleCodec,
    ) -> Articles<'a> {
        Articles::with(Backing::Points { dump, offsets }, dir, dump, codec)
    }

    /// The entry points the first pass noted, when pages are read through them: every
    /// page's, numbered as the main pass numbers them (the build writes them as
    /// `dump-offsets.bin` rather than noting them again).
    pub fn entry_points(&self) -> Option<&DumpOffsets> {
        match &self.backing {
            Backing::Points { offsets, .. } => Some(offsets),
            _ => None,
        }
    }

    /// The pages the first pass stored; `dir` maps [`key_hash`] to records.
    pub fn spooled(
        store: Box<Store<SourcePage>>,
        dir: Directory,
        dump: &'a Dump,
        codec: &'a TitleCodec,
    ) -> Articles<'a> {
        Articles::with(Backing::Spool(store), dir, dump, codec)
    }

    fn with(
        backing: Backing<'a>,
        dir: Directory,
        dump: &Dump,
        codec: &'a TitleCodec,
    ) -> Articles<'a> {
        Articles {
            backing,
            dir,
            codec,
            lang: dump.siteinfo().lang.clone(),
            cache: PageCache::default(),
        }
    }

    /// The hash the directory lists the page under.
    fn hash(&self, ns: i32, dbkey: &str) -> u64 {
        match &self.backing {
            Backing::Streams { .. } => dump_title_hash(&self.codec.prefixed_text(ns, dbkey)),
            Backing::Points { .. } | Backing::Spool(_) => key_hash(ns, dbkey),
        }
    }

    fn read(&self, ns: i32, dbkey: &str) -> Option<SourcePage> {
        let mut slots = self.dir.slots(self.hash(ns, dbkey));
        match &self.backing {
            Backing::Streams { dump, groups } => {
                let title = self.codec.prefixed_text(ns, dbkey);
                slots.find_map(|g| {
                    // A group that cannot be decoded holds no page here; the main pass
                    // reports it with its location.
                    let page = groups.read(dump, g, &title, |raw| {
                        source_page(raw, self.codec, &self.lang)
                    });
                    page.ok().flatten().flatten()
                })
            }
            Backing::Points { dump, offsets } => slots.find_map(|n| {
                let wanted = |raw: &RawPage<'_>| {
                    self.codec
                        .parse_page_title(&raw.title)
                        .is_ok_and(|t| t.ns == ns && t.dbkey == dbkey)
                };
                // As for a group above: a span that cannot be read holds no page here.
                let read = offsets.read_page(dump.path(), n, wanted, |raw| {
                    source_page(raw, self.codec, &self.lang)
                });
                read.ok().flatten().flatten()
            }),
            Backing::Spool(store) => slots.find_map(|n| {
                let p = store.get(n as usize).ok()?;
                (p.ns == ns && p.dbkey == dbkey).then_some(p)
            }),
        }
    }
}

impl OtherPages for Articles<'_> {
    /// Whether the dump has the page (a page of a source namespace is not asked here).
    /// Decided from the hash alone: a false positive needs the title asked for to share
    /// 64 bits of hash with one of the dump's.
    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        self.dir.slots(self.hash(ns, dbkey)).next().is_some()
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
