//! Reading MediaWiki XML dumps: bytes → `<siteinfo>` + a stream of pages, in parallel.
//!
//! The format is detected from the bytes: plain XML, bz2 (one stream or many), and
//! Wikimedia multistream bz2 with or without its `-index.txt.bz2`. All of them are read
//! the same way: the input is cut into *pieces* that can be decoded and parsed
//! independently (bz2 streams, or slices of plain XML cut at `<page>`), pieces are
//! processed on the rayon pool, and their results are consumed strictly in dump order,
//! so the output does not depend on the number of threads.

mod bz2;
mod bz2_decode;
mod directory;
pub mod error;
mod index_check;
mod multistream;
mod pieces;
mod pipeline;
mod sniff;
mod xml;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use memmap2::Mmap;
use serde::{Deserialize, Serialize};

pub use directory::OffsetKind;
pub(crate) use directory::{StreamGroups, dump_title_hash, read_page_at};
pub(crate) use error::{DumpError, Location};
pub use multistream::MultistreamIndex;
pub use xml::RawPage;

use crate::siteinfo::SiteInfo;
use sniff::{Container, Sniffed};

/// The detected layout of a dump file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum DumpFormat {
    /// Uncompressed XML.
    Xml,
    /// bz2 read as one sequence (a single stream, or too few streams to split).
    Bz2 { streams: usize },
    /// Concatenated bz2 streams decoded in parallel.
    Bz2Multistream { streams: usize, with_index: bool },
}

/// How the pieces of a dump are produced.
#[derive(Debug, Clone)]
enum Plan {
    /// Slices of a memory-mapped XML file.
    Plain,
    /// Independent compressed ranges (each one or more whole bz2 streams).
    Streams(Vec<Range<usize>>),
    /// One decoder over the whole file, feeding pieces from a producer thread.
    Sequential,
}

/// An opened dump: memory-mapped, format detected, `<siteinfo>` read.
pub struct Dump {
    path: PathBuf,
    data: Mmap,
    plan: Plan,
    /// The multistream index, being read on its own thread.
    index: Option<index_check::IndexLoad>,
    site: SiteInfo,
}

/// Counts gathered while reading pages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReadStats {
    pub pages: u64,
    pub decompressed_bytes: u64,
}

/// What [`Dump::pages_in_namespaces`] read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct NamespacePass {
    /// Streams decoded when the multistream index chose them; `None`: the whole dump.
    pub streams_read: Option<usize>,
    pub decompressed_bytes: u64,
}

/// Minimum number of bz2 streams before decoding them in parallel pays off.
const MIN_PARALLEL_STREAMS: usize = 3;

impl Dump {
    /// Opens `path`; `index` is the multistream index (`…-index.txt.bz2`), if any.
    pub fn open(path: &Path, index: Option<&Path>) -> Result<Dump, DumpError> {
        let io_err = |source| DumpError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io_err)?;
        let len = file.metadata().map_err(io_err)?.len();
        if len == 0 {
            return Err(DumpError::Empty {
                path: path.to_path_buf(),
            });
        }
        // SAFETY: the dump is opened read-only and is expected not to change while it is
        // being indexed (the build records its size and SHA-256 to detect that).
        let data = unsafe { Mmap::map(&file) }.map_err(io_err)?;
        let head = &data[..data.len().min(4096)];
        let container = match sniff::sniff_file(head) {
            Sniffed::Container(c) => c,
            other => return Err(sniff_error(path, other)),
        };
        let (plan, ms_index) = match container {
            Container::PlainXml => {
                if let Some(ix) = index {
                    return Err(DumpError::IndexMismatch {
                        index: ix.to_path_buf(),
                        dump: path.to_path_buf(),
                        message: "the dump is uncompressed XML; a multistream index only applies to bz2 dumps".into(),
                    });
                }
                (Plan::Plain, None)
            }
            Container::Bzip2 => {
                // Streams are found by scanning, with an index too: its offsets are
                // checked against them while the pages are read (see `index_check`).
                let ms_index = index.map(index_check::IndexLoad::start).transpose()?;
                let starts = bz2::stream_starts(&data);
                if starts.first() != Some(&0) {
                    return Err(DumpError::Bz2Corrupt {
                        path: path.to_path_buf(),
                        stream_offset: 0,
                        detail: "the bz2 header is not followed by a valid block".into(),
                    });
                }
                if starts.len() >= MIN_PARALLEL_STREAMS || ms_index.is_some() {
                    let mut ranges = Vec::with_capacity(starts.len());
                    for (i, &s) in starts.iter().enumerate() {
                        let e = starts.get(i + 1).copied().unwrap_or(data.len());
                        ranges.push(s..e);
                    }
                    (Plan::Streams(ranges), ms_index)
                } else {
                    (Plan::Sequential, None)
                }
            }
        };
        let mut dump = Dump {
            path: path.to_path_buf(),
            data,
            plan,
            index: ms_index,
            site: SiteInfo {
                sitename: String::new(),
                dbname: String::new(),
                base: String::new(),
                generator: String::new(),
                case: crate::siteinfo::CaseRule::FirstLetter,
                lang: String::new(),
                namespaces: Vec::new(),
                synthesized: false,
            },
        };
        dump.site = pieces::read_header(&dump)?.site;
        Ok(dump)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn index_path(&self) -> Option<&Path> {
        self.index.as_ref().map(|i| i.path())
    }

    pub fn siteinfo(&self) -> &SiteInfo {
        &self.site
    }

    /// The raw (possibly compressed) bytes of the dump file.
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// Whether a page can be reached without decoding what precedes it: plain XML, or
    /// bz2 decoded stream by stream (see `Location::entry_point`).
    pub(crate) fn has_entry_points(&self) -> bool {
        !matches!(self.plan, Plan::Sequential)
    }

    pub fn format(&self) -> DumpFormat {
        match &self.plan {
            Plan::Plain => DumpFormat::Xml,
            Plan::Sequential => DumpFormat::Bz2 {
                streams: bz2::stream_starts(&self.data).len(),
            },
            Plan::Streams(r) => DumpFormat::Bz2Multistream {
                streams: r.len(),
                with_index: self.index.is_some(),
            },
        }
    }

    /// Reads every page. `map` runs in parallel on the current rayon pool; `consume`
    /// receives its results one by one in dump order; `progress` is told how many bytes
    /// of the (compressed) file are done. Setting `cancel` stops the read with
    /// [`DumpError::Interrupted`].
    pub fn pages<T, M, C, P>(
        &self,
        map: M,
        consume: C,
        progress: P,
        cancel: &AtomicBool,
    ) -> Result<ReadStats, DumpError>
    where
        T: Send,
        M: Fn(RawPage<'_>, Location) -> Result<T, DumpError> + Sync,
        C: FnMut(T) -> Result<(), DumpError>,
        P: Fn(u64),
    {
        let map = |_: &mut (), raw: RawPage<'_>, loc: Location| map(raw, loc);
        pieces::run(self, &|| (), &map, consume, &progress, cancel, None)
    }

    /// Like [`Dump::pages`], with a state per worker thread: `init` makes it on the
    /// thread that uses it (it need not be `Send`, e.g. a template expander with its
    /// caches), and `map` gets it with every page that thread reads.
    ///
    /// With `streams` (see [`Dump::shard_streams`]), only the pages of those bz2
    /// streams, each parsed as a full read parses it and checked against the multistream
    /// index as a full read checks it (the index's groups that begin in these streams,
    /// whole); the read that holds the last stream must find the dump's end, and a page
    /// cut across two shards' streams fails the read with [`DumpError::StreamFragment`].
    pub(crate) fn pages_with<T, St, Init, M, C, P>(
        &self,
        streams: Option<&[usize]>,
        init: Init,
        map: M,
        consume: C,
        progress: P,
        cancel: &AtomicBool,
    ) -> Result<ReadStats, DumpError>
    where
        T: Send,
        Init: Fn() -> St + Sync,
        M: Fn(&mut St, RawPage<'_>, Location) -> Result<T, DumpError> + Sync,
        C: FnMut(T) -> Result<(), DumpError>,
        P: Fn(u64),
    {
        let filter = streams.map(|streams| pieces::Filter {
            namespaces: None,
            streams: Some(streams),
            heads: false,
        });
        pieces::run(
            self,
            &init,
            &map,
            consume,
            &progress,
            cancel,
            filter.as_ref(),
        )
    }

    /// The bz2 streams of shard `k` (1-based) of `n`, by number, and the byte range of
    /// the file they start in: the file is cut into `n` equal byte ranges and each stream
    /// belongs to the range its first byte lies in. Bytes rather than pages because the
    /// bytes are known before anything is decoded and are what each shard decodes;
    /// pages vary too much in size (a redirect is a line) to balance the work. `None`
    /// when the dump is not read stream by stream (plain XML, one stream).
    pub(crate) fn shard_streams(&self, k: usize, n: usize) -> Option<(Vec<usize>, Range<u64>)> {
        let Plan::Streams(ranges) = &self.plan else {
            return None;
        };
        let size = self.data.len() as u128;
        let cut = |j: usize| (size * j as u128 / n.max(1) as u128) as u64;
        let bytes = cut(k.saturating_sub(1))..cut(k);
        let streams = ranges
            .iter()
            .enumerate()
            .filter(|(_, r)| bytes.contains(&(r.start as u64)))
            .map(|(i, _)| i)
            .collect();
        Some((streams, bytes))
    }

    /// Reads the pages of `namespaces` only, as cheaply as the container allows: with a
    /// multistream index, only the streams whose index lines name a title with a
    /// prefix `prefix_ns` maps into `namespaces` are decoded; otherwise every piece is
    /// decoded but pages of other namespaces are stepped over without being parsed.
    /// `map` sees pages of `namespaces` only; results come in dump order.
    ///
    /// A page cut across chosen streams (not in Wikimedia's dumps, but possible in a
    /// re-compressed one) fails the pass with [`DumpError::StreamFragment`] after some
    /// pages were consumed: the caller starts over with `every_stream` set.
    ///
    /// With `heads` (and `every_stream`), `map` also sees every other page, as its head
    /// only (title, namespace and id; no text, which is not even parsed): for a pass
    /// that needs to know every page but reads few.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pages_in_namespaces<T, M, C, P>(
        &self,
        namespaces: &[i32],
        (every_stream, heads): (bool, bool),
        prefix_ns: &dyn Fn(&str) -> Option<i32>,
        map: M,
        mut consume: C,
        progress: P,
        cancel: &AtomicBool,
    ) -> Result<NamespacePass, DumpError>
    where
        T: Send,
        M: Fn(RawPage<'_>, Location) -> Result<Option<T>, DumpError> + Sync,
        C: FnMut(T) -> Result<(), DumpError>,
        P: Fn(u64),
    {
        let map = |_: &mut (), raw: RawPage<'_>, loc: Location| -> Result<Option<T>, DumpError> {
            if heads || namespaces.contains(&raw.ns) {
                map(raw, loc)
            } else {
                Ok(None)
            }
        };
        // With a multistream index, only the streams that hold wanted titles.
        let chosen: Option<Vec<usize>> = match (&self.index, &self.plan, every_stream || heads) {
            (Some(load), Plan::Streams(ranges), false) => {
                let wanted = |p: &str| prefix_ns(p).is_some_and(|ns| namespaces.contains(&ns));
                let offsets = load.offsets_with_prefix(&wanted)?;
                Some(
                    offsets
                        .iter()
                        .filter_map(|&o| {
                            ranges.binary_search_by_key(&(o as usize), |r| r.start).ok()
                        })
                        .collect(),
                )
            }
            _ => None,
        };
        let filter = pieces::Filter {
            namespaces: Some(namespaces),
            streams: chosen.as_deref(),
            heads,
        };
        let stats = pieces::run(
            self,
            &|| (),
            &map,
            |item: Option<T>| match item {
                Some(t) => consume(t),
                None => Ok(()),
            },
            &progress,
            cancel,
            Some(&filter),
        )?;
        Ok(NamespacePass {
            streams_read: chosen.as_ref().map(Vec::len),
            decompressed_bytes: stats.decompressed_bytes,
        })
    }
}

fn sniff_error(path: &Path, s: Sniffed) -> DumpError {
    match s {
        Sniffed::Empty => DumpError::Empty {
            path: path.to_path_buf(),
        },
        Sniffed::Utf16(detail) => DumpError::Utf16 {
            path: path.to_path_buf(),
            detail: detail.to_string(),
        },
        Sniffed::Other(found) => DumpError::NotADump {
            path: path.to_path_buf(),
            found,
        },
        Sniffed::Container(_) => unreachable!("a recognized container is not an error"),
    }
}
