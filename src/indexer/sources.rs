//! The build's first pass: the pages expansion reads (templates, modules, messages)
//! written to `sources.rec` / `sources.fst` before any page is expanded.
//!
//! With a multistream index only the streams whose index lines name such a page are
//! decoded (how much of the dump that is depends on how those pages are spread among
//! the streams: docs/scale.md), and other pages are read from their streams when a page
//! transcludes them. Otherwise the dump is read once more, and of
//! every other page the pass notes where it can be reached (plain XML, bz2 of many
//! streams) or, in a single bz2 stream, stores it in a temporary store, for the same
//! purpose ([`crate::index::articles`]).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::extsort::Sorter;
use super::{BuildError, Progress};
use crate::dump::{Dump, DumpError, OffsetKind};
use crate::index::articles::{Directory, SpoolWriter, key_hash, source_page};
use crate::index::manifest::SourcesInfo;
use crate::index::sources::{SOURCE_NAMESPACES, SourcePage, SourcesWriter};
use crate::index::{DumpOffsets, DumpOffsetsWriter, IndexError, Store};
use crate::title::TitleCodec;

/// What the first pass wrote.
pub(super) struct FirstPass {
    pub info: SourcesInfo,
    /// Sizes of `sources.rec` and `sources.fst`.
    pub sizes: (u64, u64),
    /// The other pages, as the pass was asked to collect them, and their directory
    /// with the number of runs its sorter spilled.
    pub others: Option<(Others, (Directory, u64))>,
}

/// How the first pass collects the pages outside the source namespaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Collect {
    /// Where each can be reached: the dump has entry points.
    Points,
    /// Their text, in a temporary store.
    Spool,
}

/// The other pages, as collected.
pub(super) enum Others {
    Points(DumpOffsets),
    Spooled(Box<Store<SourcePage>>),
}

/// The file of the other pages' directory, in the spill directory.
pub(super) const DIRECTORY: &str = "articles.dir";

/// Sorts `(title hash, slot)` pairs into a [`Directory`] at `tmp/DIRECTORY`.
pub(super) struct DirectorySorter(Sorter<(u64, u32)>);

impl DirectorySorter {
    pub fn new(tmp: &Path, budget: usize) -> DirectorySorter {
        DirectorySorter(Sorter::new("articles", tmp, budget))
    }

    pub fn push(&mut self, entry: (u64, u32)) -> Result<(), IndexError> {
        self.0.push(entry)
    }

    /// The directory, and how many sorted runs it spilled.
    pub fn finish(self, tmp: &Path) -> Result<(Directory, u64), IndexError> {
        let sorted = self.0.finish()?;
        let runs = sorted.spilled;
        Ok((Directory::write(&tmp.join(DIRECTORY), sorted)?, runs))
    }
}

/// What the pass keeps of the other pages while it reads.
struct Collecting {
    spool: Option<SpoolWriter>,
    /// Entry points of every page, numbered in dump order as the main pass numbers them.
    points: DumpOffsetsWriter,
    sorter: DirectorySorter,
    /// The next page's number.
    n: u32,
}

/// A page the first pass keeps.
enum Kept {
    /// A template, module or message, with its revision time.
    Source(SourcePage, i64),
    /// Any other page, when they are spooled.
    Article(SourcePage),
    /// An article's [`key_hash`]: it is reached through its item's entry point.
    Point(u64),
}

/// A page as the pass's workers hand it over.
struct Item {
    kept: Option<Kept>,
    entry: Option<(OffsetKind, u64)>,
}

impl Collecting {
    fn new((collect, tmp, budget): (Collect, &Path, usize)) -> Result<Collecting, IndexError> {
        Ok(Collecting {
            spool: match collect {
                Collect::Spool => Some(SpoolWriter::create(tmp)?),
                Collect::Points => None,
            },
            points: DumpOffsetsWriter::new(),
            sorter: DirectorySorter::new(tmp, budget),
            n: 0,
        })
    }

    fn take(&mut self, item: &mut Item) -> Result<(), IndexError> {
        let n = self.n;
        self.n = self.n.saturating_add(1);
        self.points.page(n, item.entry);
        match item.kept.take() {
            Some(Kept::Point(hash)) => self.sorter.push((hash, n)),
            Some(Kept::Article(page)) => match self.spool.as_mut() {
                Some(spool) => self.sorter.push(spool.push(&page)?),
                None => Ok(()),
            },
            other => {
                item.kept = other;
                Ok(())
            }
        }
    }

    fn finish(self, tmp: &Path) -> Result<(Others, (Directory, u64)), IndexError> {
        let others =
            match self.spool {
                Some(spool) => Others::Spooled(Box::new(spool.finish()?)),
                None => Others::Points(self.points.into_offsets().ok_or_else(|| {
                    IndexError::Encode {
                        what: "entry points of the dump",
                        message: "a page was read without one".into(),
                    }
                })?),
            };
        Ok((others, self.sorter.finish(tmp)?))
    }
}

/// What the first pass keeps of a page: a source page whole, another as `collect` says.
fn keep(
    raw: crate::dump::RawPage<'_>,
    loc: crate::dump::Location,
    codec: &TitleCodec,
    lang: &str,
    collect: Option<Collect>,
) -> Result<Item, DumpError> {
    let entry = loc.entry_point();
    // Titles that do not parse are reported by the main pass.
    let Ok(title) = codec.parse_page_title(&raw.title) else {
        return Ok(Item { kept: None, entry });
    };
    // A source page by its title and its `<ns>`: the passes that skip pages by `<ns>`
    // alone (with a multistream index, or reading heads) agree.
    if !(SOURCE_NAMESPACES.contains(&title.ns) && SOURCE_NAMESPACES.contains(&raw.ns)) {
        let kept = match collect {
            Some(Collect::Points) => Some(Kept::Point(key_hash(title.ns, &title.dbkey))),
            Some(Collect::Spool) => source_page(raw, codec, lang).map(Kept::Article),
            None => None,
        };
        return Ok(Item { kept, entry });
    }
    // Only a source page's time is read: this runs on the whole dump.
    let stamp = raw.timestamp.clone();
    let kept = source_page(raw, codec, lang).map(|page| {
        let time = time::OffsetDateTime::parse(
            stamp.trim(),
            &time::format_description::well_known::Rfc3339,
        )
        .map(|t| t.unix_timestamp())
        .unwrap_or(0);
        Kept::Source(page, time)
    });
    Ok(Item { kept, entry })
}

/// Reads the source pages of `dump` into `dir` and returns what was read. With `others`
/// (for a dump without a multistream index: how to collect them, a directory and a
/// memory budget), every other page is found or stored there, for article transclusion.
#[allow(clippy::too_many_arguments)]
pub(super) fn first_pass(
    dump: &Dump,
    codec: &TitleCodec,
    lang: &str,
    dir: &Path,
    others: Option<(Collect, &Path, usize)>,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<FirstPass, BuildError> {
    let prefix_ns = |p: &str| codec.namespaces().id_of(p);
    let collect = others.map(|(c, _, _)| c);
    let map = |raw: crate::dump::RawPage<'_>, loc| keep(raw, loc, codec, lang, collect);
    progress.phase("reading templates and modules", dump.bytes().len() as u64);
    let mut every_stream = false;
    let result = loop {
        let mut writer = SourcesWriter::create(dir)?;
        let mut collecting = others.map(Collecting::new).transpose()?;
        let mut newest = 0i64;
        let consume = |mut item: Item| {
            crate::index::fault::point("sources");
            let taken = match collecting.as_mut() {
                Some(c) => c.take(&mut item),
                None => Ok(()),
            };
            let pushed = taken.and_then(|()| match item.kept {
                Some(Kept::Source(page, time)) => {
                    newest = newest.max(time);
                    writer.push(&page)
                }
                _ => Ok(()),
            });
            pushed.map_err(|e| DumpError::Consumer(Box::new(e)))
        };
        // Every page is read when the others are collected, as their head only when
        // the pass notes where they are.
        let (every, heads) = match others {
            Some((Collect::Points, _, _)) => (true, true),
            Some((Collect::Spool, _, _)) => (true, false),
            None => (every_stream, false),
        };
        let pass = match others {
            Some((Collect::Spool, _, _)) => dump
                .pages(map, consume, |done| progress.advance(done), cancel)
                .map(|_| None),
            _ => dump
                .pages_in_namespaces(
                    &SOURCE_NAMESPACES,
                    (every, heads),
                    &prefix_ns,
                    |raw, loc| Ok(Some(map(raw, loc)?)),
                    consume,
                    |done| progress.advance(done),
                    cancel,
                )
                .map(|pass| pass.streams_read),
        };
        match pass {
            Ok(streams_read) => {
                let pages = writer.len() as u64;
                let sizes = writer.finish(dir)?;
                let others = match (collecting, others) {
                    (Some(c), Some((_, tmp, _))) => Some(c.finish(tmp)?),
                    _ => None,
                };
                break Ok(FirstPass {
                    info: SourcesInfo {
                        pages,
                        streams_read,
                        newest_revision: newest,
                    },
                    sizes,
                    others,
                });
            }
            // A page cut across streams: read them all.
            Err(DumpError::StreamFragment { .. }) if !every_stream => every_stream = true,
            Err(DumpError::Consumer(e)) => {
                break Err(match e.downcast::<crate::index::IndexError>() {
                    Ok(ie) => BuildError::Index(*ie),
                    Err(other) => BuildError::Dump(DumpError::Internal {
                        message: other.to_string(),
                    }),
                });
            }
            Err(e) => break Err(e.into()),
        }
    };
    progress.finish();
    result
}
