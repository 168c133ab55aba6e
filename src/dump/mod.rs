//! Reading MediaWiki XML dumps: bytes → `<siteinfo>` + a stream of pages, in parallel.
//!
//! The format is detected from the bytes: plain XML, bz2 (one stream or many), and
//! Wikimedia multistream bz2 with or without its `-index.txt.bz2`. All of them are read
//! the same way: the input is cut into *pieces* that can be decoded and parsed
//! independently (bz2 streams, or slices of plain XML cut at `<page>`), pieces are
//! processed on the rayon pool, and their results are consumed strictly in dump order,
//! so the output does not depend on the number of threads.

mod bz2;
pub mod error;
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

pub use error::{DumpError, Location};
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
    index_path: Option<PathBuf>,
    index: Option<MultistreamIndex>,
    site: SiteInfo,
}

/// Counts gathered while reading pages.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReadStats {
    pub pages: u64,
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
            Container::Bzip2 => match index {
                Some(ix) => {
                    let parsed = MultistreamIndex::read(ix)?;
                    let ranges = index_ranges(path, ix, &data, &parsed)?;
                    (Plan::Streams(ranges), Some(parsed))
                }
                None => {
                    let starts = bz2::stream_starts(&data);
                    if starts.first() != Some(&0) {
                        return Err(DumpError::Bz2Corrupt {
                            path: path.to_path_buf(),
                            stream_offset: 0,
                            detail: "the bz2 header is not followed by a valid block".into(),
                        });
                    }
                    if starts.len() >= MIN_PARALLEL_STREAMS {
                        let mut ranges = Vec::with_capacity(starts.len());
                        for (i, &s) in starts.iter().enumerate() {
                            let e = starts.get(i + 1).copied().unwrap_or(data.len());
                            ranges.push(s..e);
                        }
                        (Plan::Streams(ranges), None)
                    } else {
                        (Plan::Sequential, None)
                    }
                }
            },
        };
        let mut dump = Dump {
            path: path.to_path_buf(),
            data,
            plan,
            index_path: index.map(Path::to_path_buf),
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

    pub fn index_path(&self) -> Option<&Path> {
        self.index_path.as_deref()
    }

    pub fn siteinfo(&self) -> &SiteInfo {
        &self.site
    }

    /// The raw (possibly compressed) bytes of the dump file.
    /// How many pages the multistream index lists: a capacity hint, no promise.
    pub fn indexed_pages(&self) -> Option<u64> {
        self.index.as_ref().map(|i| i.pages)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.data
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
        pieces::run(self, &map, consume, &progress, cancel)
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

/// Turns index offsets into compressed ranges (`[0] + offsets + [len]`), checking that
/// every offset is a stream start in this file.
fn index_ranges(
    path: &Path,
    ix_path: &Path,
    data: &[u8],
    ix: &MultistreamIndex,
) -> Result<Vec<Range<usize>>, DumpError> {
    let mismatch = |message: String| DumpError::IndexMismatch {
        index: ix_path.to_path_buf(),
        dump: path.to_path_buf(),
        message,
    };
    let mut bounds = vec![0usize];
    for r in &ix.ranges {
        let off = usize::try_from(r.offset).unwrap_or(usize::MAX);
        if off == 0 || off >= data.len() {
            return Err(mismatch(format!(
                "index line {} gives offset {} but the dump is {} bytes long",
                r.entries[0].line,
                r.offset,
                data.len()
            )));
        }
        if !bz2::is_stream_start(data, off) {
            return Err(mismatch(format!(
                "index line {} gives offset {}, which is not the start of a bz2 stream in the dump",
                r.entries[0].line, r.offset
            )));
        }
        bounds.push(off);
    }
    bounds.push(data.len());
    Ok(bounds.windows(2).map(|w| w[0]..w[1]).collect())
}
