//! `manifest.json`: what an index was built from, how, and what it holds.
//!
//! The manifest is written last and read first. Its `format_version` is checked before
//! anything else is deserialized, so an index from another version is refused with a
//! message instead of failing somewhere inside a store.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{FORMAT_VERSION, IndexError};
use crate::chunk_crc::{CopyError, read_through};
use crate::dump::DumpFormat;
use crate::siteinfo::SiteInfo;

pub const FILE: &str = "manifest.json";
pub(crate) const FORMAT_NAME: &str = "wikiwit-index";
/// The `format` of a shard's manifest (`build --shard`): a directory readers refuse.
pub(crate) const SHARD_FORMAT_NAME: &str = "wikiwit-shard";
/// The `format` of a sources directory's manifest (`build --sources-only`): a directory
/// readers refuse.
pub(crate) const SOURCES_FORMAT_NAME: &str = "wikiwit-sources";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// CRC-32 (hex) of the manifest's own bytes with this value written as `00000000`;
    /// first, so a reader finds it at a fixed place. Filled in by [`Manifest::write`].
    #[serde(default)]
    pub checksum: String,
    pub format: String,
    pub format_version: u32,
    pub wikiwit_version: String,
    /// RFC 3339 time the build finished.
    pub built_at: String,
    pub source: SourceInfo,
    pub site: SiteInfo,
    pub build: BuildParams,
    pub counts: Counts,
    /// Every data file of the index with its size in bytes.
    pub files: BTreeMap<String, u64>,
    /// CRC-32 (hex) of every file without a checksum of its own (`warnings.jsonl`, the
    /// full-text index's files under `text/`), by path relative to the index, for
    /// `info --verify`.
    #[serde(default)]
    pub checksums: BTreeMap<String, String>,
}

/// How the manifest starts: the checksum is its first field.
const CHECKSUM_PREFIX: &str = "{\n  \"checksum\": \"";
const NO_CHECKSUM: &str = "00000000";

/// Whether the manifest's bytes match the checksum they carry; `None` when they carry
/// none where it belongs.
fn checksum_matches(text: &str) -> Option<bool> {
    let rest = text.strip_prefix(CHECKSUM_PREFIX)?;
    let stored = rest.get(..NO_CHECKSUM.len())?;
    let mut blank = String::with_capacity(text.len());
    blank.push_str(CHECKSUM_PREFIX);
    blank.push_str(NO_CHECKSUM);
    blank.push_str(&rest[NO_CHECKSUM.len()..]);
    Some(format!("{:08x}", crc32fast::hash(blank.as_bytes())) == stored)
}

/// CRC-32 of a file, hex, for [`Manifest::checksums`].
pub(crate) fn file_crc32(path: &Path) -> Result<String, IndexError> {
    Ok(crc32_copied(path, path, |_| Ok(()))?.1)
}

/// Copies `from` to `to` and returns the bytes copied and their CRC-32 (hex), reading
/// `from` once: a build taking a first pass of a few GB checks and records what it
/// copied without reading the copy back.
pub(crate) fn copy_with_crc32(from: &Path, to: &Path) -> Result<(u64, String), IndexError> {
    let mut out = std::fs::File::create(to).map_err(|e| IndexError::io(to, e))?;
    // `read_through` hands over blocks of 1 MiB: written as they come, no buffer.
    let copied = crc32_copied(from, to, |bytes| out.write_all(bytes))?;
    out.sync_all().map_err(|e| IndexError::io(to, e))?;
    Ok(copied)
}

/// Reads `path` to its end, handing what it reads to `write` (a copy into `to`, which
/// its errors name); the bytes read and their CRC-32 (hex).
fn crc32_copied(
    path: &Path,
    to: &Path,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<(u64, String), IndexError> {
    let mut hasher = crc32fast::Hasher::new();
    let total = read_through(path, |bytes| {
        hasher.update(bytes);
        write(bytes)
    })
    .map_err(|e| match e {
        CopyError::Read(e) => IndexError::io(path, e),
        CopyError::Write(e) => IndexError::io(to, e),
    })?;
    Ok((total, format!("{:08x}", hasher.finalize())))
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SourceInfo {
    /// The dump path as given to `wikiwit build`.
    pub path: String,
    pub file_name: String,
    pub size: u64,
    pub sha256: String,
    pub format: DumpFormat,
    pub multistream_index: Option<FileDigest>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileDigest {
    pub path: String,
    pub size: u64,
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BuildParams {
    pub threads: usize,
    /// The resolved interwiki profile (`mediawiki` or `wikimedia`).
    pub interwiki: String,
    /// Whether the plain-text store and full-text index were built.
    #[serde(default)]
    pub text: bool,
    /// Whether only pages and titles were built (`--pages-only`): no structure, link
    /// graph or text.
    #[serde(default)]
    pub pages_only: bool,
    pub seconds: f64,
    /// Wall-clock seconds of each build phase.
    #[serde(default)]
    pub phases: Vec<(String, f64)>,
    /// `--memory-budget` in bytes: what the build's sorters held at most.
    #[serde(default)]
    pub memory_budget: u64,
    /// Sorted runs each sorter wrote to disk (0: it sorted in memory).
    #[serde(default)]
    pub sort_runs: BTreeMap<String, u64>,
    /// Whether pages were expanded (templates, parser functions) before analysis;
    /// false for `--no-expand` and `--pages-only`.
    #[serde(default)]
    pub expand: bool,
    /// The "now" of date magic words (RFC 3339): `--build-date`, or the newest revision
    /// among the source pages. Absent without expansion.
    #[serde(default)]
    pub build_date: Option<String>,
    /// What the first pass stored in `sources.rec`.
    #[serde(default)]
    pub sources: Option<SourcesInfo>,
}

/// What the build's first pass read (templates, modules, messages), as the manifest
/// records it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcesInfo {
    /// Source pages stored.
    pub pages: u64,
    /// Streams decoded, when the multistream index chose them; `None`: every piece.
    pub streams_read: Option<usize>,
    /// Newest revision time of the source pages (Unix seconds), the default build date.
    pub newest_revision: i64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Counts {
    pub pages: u64,
    pub by_namespace: BTreeMap<i32, u64>,
    pub redirects: u64,
    /// Redirects whose chain ends on a missing page.
    pub broken_redirects: u64,
    pub redirect_loops: u64,
    pub interwiki_redirects: u64,
    /// Redirects that point to another redirect.
    pub double_redirects: u64,
    /// Bytes of wikitext in all pages.
    pub text_bytes: u64,
    /// Bytes of XML after decompression.
    pub xml_bytes: u64,
    pub warnings: u64,
    /// Distinct (source, target) links between existing pages.
    pub links: u64,
    /// Distinct titles linked to that have no page.
    pub red_titles: u64,
    /// Distinct categories pages are in.
    pub categories: u64,
    /// Pages left out of the title map because another page had the same title and a
    /// newer revision (each one is in `warnings.jsonl`, kind `duplicate-title`).
    #[serde(default)]
    pub duplicate_titles: u64,
}

impl Manifest {
    pub fn read(dir: &Path) -> Result<Manifest, IndexError> {
        let path = dir.join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(IndexError::NotAnIndex {
                    path: dir.to_path_buf(),
                });
            }
            Err(e) => return Err(IndexError::io(&path, e)),
        };
        let corrupt = |comment: String| IndexError::DataCorruption {
            path: path.clone(),
            comment,
        };
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| corrupt(format!("not JSON: {e}")))?;
        let format = value.get("format").and_then(|v| v.as_str());
        if format == Some(SHARD_FORMAT_NAME) {
            return Err(IndexError::Shard {
                path: dir.to_path_buf(),
                shard: value
                    .get("shard")
                    .map(|s| format!("{}/{}", s["k"], s["n"]))
                    .unwrap_or_default(),
            });
        }
        if format == Some(SOURCES_FORMAT_NAME) {
            return Err(IndexError::SourcesDir {
                path: dir.to_path_buf(),
            });
        }
        if format != Some(FORMAT_NAME) {
            return Err(IndexError::NotAnIndex {
                path: dir.to_path_buf(),
            });
        }
        let found = value
            .get("format_version")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| corrupt("no format_version".into()))?;
        if found != u64::from(FORMAT_VERSION) {
            return Err(IndexError::Version {
                path: dir.to_path_buf(),
                expected: FORMAT_VERSION,
                found: found.try_into().unwrap_or(u32::MAX),
            });
        }
        match checksum_matches(&text) {
            Some(true) => {}
            Some(false) => return Err(corrupt("CRC-32 mismatch: the manifest was altered".into())),
            None => return Err(corrupt("no checksum at its start".into())),
        }
        serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))
    }

    /// Recomputes the checksum of every file listed in [`Manifest::checksums`].
    pub(crate) fn verify_files(&self, dir: &Path) -> Result<(), IndexError> {
        for (name, stored) in &self.checksums {
            let path = dir.join(name);
            let actual = file_crc32(&path)?;
            if &actual != stored {
                return Err(IndexError::DataCorruption {
                    path,
                    comment: format!("CRC-32 mismatch: stored {stored}, computed {actual}"),
                });
            }
        }
        Ok(())
    }

    pub fn write(&self, dir: &Path) -> Result<(), IndexError> {
        let path = dir.join(FILE);
        let mut blank = self.clone();
        blank.checksum = NO_CHECKSUM.to_string();
        let mut text = serde_json::to_string_pretty(&blank).map_err(|e| IndexError::Encode {
            what: "manifest",
            message: e.to_string(),
        })?;
        text.push('\n');
        let crc = format!("{:08x}", crc32fast::hash(text.as_bytes()));
        let at = CHECKSUM_PREFIX.len();
        if !text.starts_with(CHECKSUM_PREFIX) {
            return Err(IndexError::Encode {
                what: "manifest",
                message: "the checksum is not the first field".into(),
            });
        }
        text.replace_range(at..at + NO_CHECKSUM.len(), &crc);
        std::fs::write(&path, text).map_err(|e| IndexError::io(&path, e))?;
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(|e| IndexError::io(&path, e))
    }
}
