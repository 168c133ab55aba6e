//! The build's first pass: the pages expansion reads (templates, modules, messages)
//! written to `sources.rec` / `sources.fst` before any page is expanded.
//!
//! With a multistream index only the streams whose index lines name such a page are
//! decoded (on enwiki, a few percent of the dump), and other pages are read from their
//! streams when a page transcludes them. Otherwise the dump is decoded once more and
//! every other page is stored in a temporary store for the same purpose
//! ([`crate::index::articles`]).

use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::extsort::Sorter;
use super::{BuildError, Progress};
use crate::dump::{Dump, DumpError};
use crate::index::articles::{Directory, SpoolWriter, source_page};
use crate::index::sources::{SOURCE_NAMESPACES, SourcePage, SourcesWriter};
use crate::index::{IndexError, Store};
use crate::title::TitleCodec;

/// What the first pass read, for the manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcesInfo {
    /// Source pages stored.
    pub pages: u64,
    /// Streams decoded, when the multistream index chose them; `None`: every piece.
    pub streams_read: Option<usize>,
    /// Newest revision time of the source pages (Unix seconds), the default build date.
    pub newest_revision: i64,
}

/// What the first pass wrote.
pub(super) struct FirstPass {
    pub info: SourcesInfo,
    /// Sizes of `sources.rec` and `sources.fst`.
    pub sizes: (u64, u64),
    /// The other pages, their directory and its sort runs, when they were stored.
    pub spool: Option<(Store<SourcePage>, (Directory, u64))>,
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

/// The other pages being stored, and their directory being sorted.
struct Spooling {
    writer: SpoolWriter,
    sorter: DirectorySorter,
}

impl Spooling {
    fn push(&mut self, page: &SourcePage) -> Result<(), IndexError> {
        let entry = self.writer.push(page)?;
        self.sorter.push(entry)
    }
}

/// A page the first pass keeps.
enum Kept {
    /// A template, module or message, with its revision time.
    Source(SourcePage, i64),
    /// Any other page, when they are spooled.
    Article(SourcePage),
}

/// Reads the source pages of `dump` into `dir` and returns what was read. With `spool`
/// (for a dump without a multistream index: a directory and a memory budget), every
/// other page is stored in a temporary store there, for article transclusion.
#[allow(clippy::too_many_arguments)]
pub(super) fn first_pass(
    dump: &Dump,
    codec: &TitleCodec,
    lang: &str,
    dir: &Path,
    spool: Option<(&Path, usize)>,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<FirstPass, BuildError> {
    let prefix_ns = |p: &str| codec.namespaces().id_of(p);
    let map = |raw: crate::dump::RawPage<'_>, _| -> Result<Option<Kept>, DumpError> {
        // Only a source page's time is read: when every page is spooled this runs on
        // the whole dump.
        let stamp = raw.timestamp.clone();
        // Titles that do not parse are reported by the main pass.
        let Some(page) = source_page(raw, codec, lang) else {
            return Ok(None);
        };
        if !SOURCE_NAMESPACES.contains(&page.ns) {
            return Ok(Some(Kept::Article(page)));
        }
        let time = time::OffsetDateTime::parse(
            stamp.trim(),
            &time::format_description::well_known::Rfc3339,
        )
        .map(|t| t.unix_timestamp())
        .unwrap_or(0);
        Ok(Some(Kept::Source(page, time)))
    };
    progress.phase("reading templates and modules", dump.bytes().len() as u64);
    let mut every_stream = false;
    let result = loop {
        let mut writer = SourcesWriter::create(dir)?;
        let mut articles = match spool {
            Some((tmp, budget)) => Some(Spooling {
                writer: SpoolWriter::create(tmp)?,
                sorter: DirectorySorter::new(tmp, budget),
            }),
            None => None,
        };
        let mut newest = 0i64;
        let consume = |kept: Option<Kept>| {
            crate::index::fault::point("sources");
            let pushed = match kept {
                Some(Kept::Source(page, time)) => {
                    newest = newest.max(time);
                    writer.push(&page)
                }
                Some(Kept::Article(page)) => match articles.as_mut() {
                    Some(a) => a.push(&page),
                    None => Ok(()),
                },
                None => Ok(()),
            };
            pushed.map_err(|e| DumpError::Consumer(Box::new(e)))
        };
        let pass = match spool {
            // Every page is parsed: the others are kept too.
            Some(_) => dump
                .pages(map, consume, |done| progress.advance(done), cancel)
                .map(|_| None),
            None => dump
                .pages_in_namespaces(
                    &SOURCE_NAMESPACES,
                    every_stream,
                    &prefix_ns,
                    |raw, loc| Ok(map(raw, loc)?.map(Some)),
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
                let spooled = match (articles, spool) {
                    (Some(a), Some((tmp, _))) => Some((a.writer.finish()?, a.sorter.finish(tmp)?)),
                    _ => None,
                };
                break Ok(FirstPass {
                    info: SourcesInfo {
                        pages,
                        streams_read,
                        newest_revision: newest,
                    },
                    sizes,
                    spool: spooled,
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
