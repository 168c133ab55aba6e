//! One first pass for every shard of a build. `build --sources-only` runs the first pass
//! (`sources.rs`) once and keeps its files with a manifest naming the dump they came
//! from; `build --shard K/N --sources DIR` copies them instead of running its own.
//!
//! Why: a shard's own first pass decodes every stream that holds a template, module or
//! message page, and on a dump whose such pages are spread among most streams, each of N
//! shards would decode most of the dump before reading a page of its own
//! (docs/scale.md, "Shards").
//!
//! A directory of another dump must never be taken: its size, multistream index,
//! siteinfo and interwiki profile are checked before anything is read, its files against
//! their checksums when copied, and the dump's SHA-256 (hashed while the pages are read)
//! before the shard is published.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{BuildError, BuildOptions, Progress};
use crate::dump::{Dump, DumpFormat};
use crate::index::manifest::{FileDigest, SourceInfo, SourcesInfo, copy_with_crc32, file_crc32};
use crate::index::{self, Staging};
use crate::siteinfo::SiteInfo;
use crate::title::TitleCodec;

use crate::index::manifest::SOURCES_FORMAT_NAME as FORMAT_NAME;
/// The sources directory's layout version.
pub const FORMAT_VERSION: u32 = 1;
/// The first pass's files, which a shard copies.
const FILES: [&str; 2] = [index::files::SOURCES, index::files::SOURCES_MAP];

/// A sources directory's `manifest.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourcesManifest {
    pub format: String,
    pub format_version: u32,
    /// The index format whose encodings `sources.rec` carries.
    pub index_format_version: u32,
    pub wikiwit_version: String,
    pub built_at: String,
    /// The dump, with the SHA-256 hashed while the pass ran, and its multistream index.
    pub source: SourceInfo,
    pub site: SiteInfo,
    /// The resolved interwiki profile the pages' titles were parsed with.
    pub interwiki: String,
    /// What the pass read.
    pub sources: SourcesInfo,
    pub threads: usize,
    pub seconds: f64,
    /// Every file with its size, and the CRC-32 (hex) of each.
    pub files: BTreeMap<String, u64>,
    pub checksums: BTreeMap<String, String>,
}

/// What `build --sources-only` wrote.
#[derive(Debug, Clone)]
pub struct SourcesReport {
    pub dir: PathBuf,
    pub manifest: SourcesManifest,
}

/// Runs the first pass of a multistream dump with its index into a sources directory
/// (`opts.index_dir`, default `index/<dbname>-sources`), replaced atomically when
/// complete. `cancel` aborts cleanly.
pub fn build_sources(
    opts: &BuildOptions,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<SourcesReport, BuildError> {
    let threads = super::thread_count(opts.threads);
    super::pool(threads)?.install(|| write(opts, threads, progress, cancel))
}

fn write(
    opts: &BuildOptions,
    threads: usize,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<SourcesReport, BuildError> {
    let started = Instant::now();
    let dump = Dump::open(&opts.dump, opts.multistream_index.as_deref())?;
    indexed(&dump, "--sources-only")?;
    let site = dump.siteinfo().clone();
    let codec = TitleCodec::new(&site, opts.interwiki);
    let target = opts.index_dir.clone().unwrap_or_else(|| {
        let name = format!("{}-sources", super::sanitize_dirname(&site.dbname));
        Path::new("index").join(name)
    });
    let staging = Staging::begin(&target)?;
    let dir = staging.dir().to_path_buf();
    // The dump is hashed beside the pass, which decodes only part of it.
    let (sha, pass) = super::hashed_while(&dump, || {
        super::sources::first_pass(&dump, &codec, &site.lang, &dir, None, progress, cancel)
    });
    let pass = pass?;
    let mut files = BTreeMap::new();
    let mut checksums = BTreeMap::new();
    for (name, size) in FILES.iter().zip([pass.sizes.0, pass.sizes.1]) {
        files.insert(name.to_string(), size);
        checksums.insert(name.to_string(), file_crc32(&dir.join(name))?);
    }
    let manifest = SourcesManifest {
        format: FORMAT_NAME.to_string(),
        format_version: FORMAT_VERSION,
        index_format_version: index::FORMAT_VERSION,
        wikiwit_version: env!("CARGO_PKG_VERSION").to_string(),
        built_at: super::now_rfc3339(),
        source: super::source_info(opts, &dump, sha, None)?,
        site,
        interwiki: codec.profile().as_str().to_string(),
        sources: pass.info,
        threads,
        seconds: started.elapsed().as_secs_f64(),
        files,
        checksums,
    };
    index::fault::point("publish");
    super::dir_manifest::write_json(&dir.join("manifest.json"), &manifest, "sources manifest")?;
    let dir = staging.commit()?;
    Ok(SourcesReport { dir, manifest })
}

/// Refuses a dump that the multistream index does not cut into streams: without it, the
/// first pass also notes where every other page is, which is each build's own.
fn indexed(dump: &Dump, flag: &str) -> Result<(), BuildError> {
    match dump.format() {
        DumpFormat::Bz2Multistream {
            with_index: true, ..
        } => Ok(()),
        format => Err(BuildError::Shards {
            message: format!(
                "{}: {flag} needs a multistream bz2 dump with its --multistream-index; this one is {format:?}",
                dump.path().display()
            ),
        }),
    }
}

/// A first pass taken from a sources directory: what it read, the sizes of its files as
/// copied and their CRC-32s, the directory and dump SHA-256 that [`check_dump`]
/// compares once the pages are read, and the multistream index's digest.
pub(super) struct Taken {
    pub info: SourcesInfo,
    pub sizes: (u64, u64),
    /// The CRC-32 (hex) of each file copied, by name, taken while copying: a shard's
    /// manifest records them without reading the copies again.
    pub checksums: BTreeMap<String, String>,
    pub from: PathBuf,
    pub sha256: String,
    /// The multistream index's digest, computed for the check.
    pub index: Option<FileDigest>,
}

/// Copies the first pass in `from` into `into` (a build's staging directory), once it is
/// known to be this dump's, read with this siteinfo and interwiki profile, and its files
/// are whole.
pub(super) fn take(
    from: &Path,
    opts: &BuildOptions,
    dump: &Dump,
    codec: &TitleCodec,
    into: &Path,
) -> Result<Taken, BuildError> {
    indexed(dump, "--sources")?;
    let m = read(from)?;
    let refuse = |why: String| BuildError::Shards {
        message: format!("{}: {why}", from.display()),
    };
    let size = dump.bytes().len() as u64;
    if m.source.size != size {
        return Err(refuse(format!(
            "holds the first pass of another dump ({}, {} bytes) than {} ({size} bytes)",
            m.source.file_name,
            m.source.size,
            dump.path().display()
        )));
    }
    // Read once: the build's manifest takes this digest too (`Taken::index`).
    let index = match &opts.multistream_index {
        Some(p) => Some(super::file_digest(p)?),
        None => None,
    };
    if m.source.multistream_index.as_ref().map(|d| &d.sha256) != index.as_ref().map(|d| &d.sha256) {
        return Err(refuse(
            "was read through another multistream index than the one given".into(),
        ));
    }
    if m.site != *dump.siteinfo() {
        return Err(refuse(format!(
            "was read from a dump of another siteinfo than {}",
            dump.path().display()
        )));
    }
    let profile = codec.profile().as_str();
    if m.interwiki != profile {
        return Err(refuse(format!(
            "was read with interwiki profile {}, this build uses {profile}",
            m.interwiki
        )));
    }
    let mut sizes = [0u64; 2];
    let mut checksums = BTreeMap::new();
    for (name, size) in FILES.iter().zip(sizes.iter_mut()) {
        let (copied, crc) = copy_with_crc32(&from.join(name), &into.join(name))?;
        let recorded = m.checksums.get(*name).map(String::as_str);
        if recorded != Some(crc.as_str()) {
            return Err(refuse(format!(
                "{name} is damaged: its CRC-32 is {crc}, its manifest records {}",
                recorded.unwrap_or("none")
            )));
        }
        *size = copied;
        checksums.insert(name.to_string(), crc);
    }
    Ok(Taken {
        info: m.sources,
        sizes: (sizes[0], sizes[1]),
        checksums,
        from: from.to_path_buf(),
        sha256: m.source.sha256,
        index,
    })
}

/// Refuses to publish a build whose dump (`sha`, hashed while its pages were read) is
/// not the one the taken first pass was read from: same size and index, other bytes.
pub(super) fn check_dump(taken: &Taken, sha: &str, dump: &Path) -> Result<(), BuildError> {
    if taken.sha256 == sha {
        return Ok(());
    }
    Err(BuildError::Shards {
        message: format!(
            "{}: holds the first pass of another dump (sha256 {}) than {} (sha256 {sha}); run `build --sources-only` on this dump",
            taken.from.display(),
            taken.sha256,
            dump.display()
        ),
    })
}

/// Reads `dir/manifest.json`, refusing anything but a sources directory of this version.
fn read(dir: &Path) -> Result<SourcesManifest, BuildError> {
    super::dir_manifest::read_dir_manifest(dir, &KIND)
}

/// How a sources directory's manifest is read back.
const KIND: super::dir_manifest::DirKind = super::dir_manifest::DirKind {
    what: "a sources directory",
    layout: "sources",
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    make: "write one with `wikiwit build DUMP --multistream-index IDX --sources-only --index DIR`",
    redo: "run `build --sources-only` again",
    others: &[(
        crate::index::manifest::SHARD_FORMAT_NAME,
        "is a shard (`build --shard K/N`), not a sources directory: write one with `wikiwit build DUMP --multistream-index IDX --sources-only --index DIR`",
    )],
};
