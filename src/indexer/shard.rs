//! A shard: the pages of one byte range of a multistream dump's streams, read, expanded
//! and analysed exactly as a one-machine build does, and kept as the reading phase hands
//! them over — before anything that needs every title (the title map, redirect chains,
//! link targets, category members, the full-text index). `merge.rs` replays the shards
//! in order into the same write phase as `build`, so the merged index is the one-machine
//! index (see `docs/scale.md`, "Shards").

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::page::PageOut;
use super::redirects::Target;
use super::sinks::{RecordStores, Stores};
use super::{BuildError, Warning};
use crate::dump::OffsetKind;
use crate::expand::CallCost;
use crate::index::manifest::{SourceInfo, SourcesInfo};
use crate::index::{self, IndexError, PageRecord};
use crate::siteinfo::SiteInfo;
use crate::title::Title;

use crate::index::manifest::SHARD_FORMAT_NAME as FORMAT_NAME;
/// The shard layout's version; its records also carry the index format's encodings, so
/// a merge requires both versions to be its own. (4: the pages' structure and text
/// records in the shard's own `structure.rec` and `text.rec`, whose blocks the merge
/// copies, where version 3 kept them in each page's record; 3: the shard's own
/// full-text index in `text/`, where version 2 kept each page's documents' source for
/// the merge to index.)
pub(crate) const FORMAT_VERSION: u32 = 4;
/// The shard's page records, in dump order.
pub(crate) const PAGES_FILE: &str = "shard-pages.rec";
/// Files of the first pass that every shard writes alike and the merged index keeps.
pub(crate) const SHARED_FILES: [&str; 3] = [
    index::files::SOURCES,
    index::files::SOURCES_MAP,
    index::files::MESSAGES,
];

/// A page as the shard's workers encode it for the consumer: its `ShardPage`, its
/// calls' costs (with times), its full-text documents, its structure and text records.
type Encoded = (
    Vec<u8>,
    Vec<CallCost>,
    Vec<tantivy::TantivyDocument>,
    (Vec<u8>, Vec<u8>),
);

/// How a shard's manifest is read back.
const KIND: super::dir_manifest::DirKind = super::dir_manifest::DirKind {
    what: "a shard",
    layout: "shard",
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    make: "build one with `wikiwit build DUMP --multistream-index IDX --shard K/N`",
    redo: "rebuild the shard",
    others: &[
        (
            index::manifest::FORMAT_NAME,
            "is an index, not a shard: merge takes the directories `build --shard K/N` wrote",
        ),
        (
            index::manifest::SOURCES_FORMAT_NAME,
            "is a sources directory (`build --sources-only`), not a shard: give it to each shard's build with `--sources DIR`",
        ),
    ],
};

/// Which shard a build writes: the `k`-th (1-based) of `n` byte ranges of the dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N` with 1 ≤ K ≤ N.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard: write K/N with 1 ≤ K ≤ N, e.g. 2/7");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// One page as a shard keeps it: what the reading phase hands the one-machine build's
/// consumer ([`PageOut`]) but the full-text documents, which the shard's own text index
/// holds, and its structure and text records, which the shard's own stores hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct ShardPage {
    rec: PageRecord,
    target: Option<Target>,
    warnings: Vec<Warning>,
    link_keys: Vec<Vec<u8>>,
    categories: Vec<String>,
    /// The page's entry point into the dump: its [`OffsetKind`] code and offset.
    entry: Option<(u8, u64)>,
    /// What its expansion's calls cost, without the times (which would make the shard's
    /// bytes differ from build to build, and which the merge has no use for).
    costs: Vec<CallCost>,
}

impl From<PageOut> for ShardPage {
    fn from(p: PageOut) -> ShardPage {
        ShardPage {
            rec: p.rec,
            target: p.target.as_ref().map(Target::from),
            warnings: p.warnings,
            link_keys: p.link_keys,
            categories: p.categories,
            entry: p.entry.map(|(kind, offset)| (kind as u8, offset)),
            costs: p
                .costs
                .into_iter()
                .map(|c| CallCost { nanos: 0, ..c })
                .collect(),
        }
    }
}

impl ShardPage {
    /// The page as the build's consumer takes it (without documents, structure and text
    /// records: the merge joins the shards' text indexes and stores instead).
    pub(super) fn into_out(self) -> Result<PageOut, IndexError> {
        let entry = match self.entry {
            None => None,
            Some((1, o)) => Some((OffsetKind::Xml, o)),
            Some((2, o)) => Some((OffsetKind::Bz2Stream, o)),
            Some((code, _)) => {
                return Err(IndexError::Encode {
                    what: "shard page",
                    message: format!("unknown entry-point kind {code}"),
                });
            }
        };
        Ok(PageOut {
            rec: self.rec,
            target: self.target.map(Title::from),
            warnings: self.warnings,
            structure: Vec::new(),
            link_keys: self.link_keys,
            categories: self.categories,
            text: Vec::new(),
            docs: Vec::new(),
            entry,
            costs: self.costs,
        })
    }
}

/// The options that shape a shard's records: shards merge only when theirs are equal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOptions {
    /// The resolved interwiki profile.
    pub interwiki: String,
    pub text: bool,
    pub pages_only: bool,
    pub expand: bool,
    /// The date expansion saw, Unix seconds (when expanded).
    pub build_date: Option<i64>,
    pub strict: bool,
    /// SHA-256 of the `--messages` file, when one was given.
    pub messages: Option<String>,
}

/// A shard's `manifest.json`: what it holds and how it was built, for the merge's checks
/// and for the merged index's manifest.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShardManifest {
    pub format: String,
    pub format_version: u32,
    /// The index format whose encodings the records carry.
    pub index_format_version: u32,
    pub wikiwit_version: String,
    pub built_at: String,
    pub shard: Shard,
    /// The byte range of the dump file whose streams this shard read, and how many.
    pub bytes: [u64; 2],
    pub streams: usize,
    pub source: SourceInfo,
    pub site: SiteInfo,
    pub options: ShardOptions,
    /// What the first pass read (when expanded; every shard reads the same).
    pub sources: Option<SourcesInfo>,
    /// Runs the sort of the other pages' directory spilled (when expanded).
    pub articles_sort_runs: u64,
    /// Pages in this shard and the XML bytes its streams decoded to.
    pub pages: u64,
    pub xml_bytes: u64,
    pub threads: usize,
    pub seconds: f64,
    /// Every file with its size, and the CRC-32 (hex) of each.
    pub files: BTreeMap<String, u64>,
    pub checksums: BTreeMap<String, String>,
}

impl ShardManifest {
    /// Reads `dir/manifest.json`, refusing anything but a shard of this version.
    pub fn read(dir: &Path) -> Result<ShardManifest, BuildError> {
        super::dir_manifest::read_dir_manifest(dir, &KIND)
    }

    pub(super) fn write(&self, dir: &Path) -> Result<(), IndexError> {
        super::dir_manifest::write_json(&dir.join("manifest.json"), self, "shard manifest")
    }
}

/// What a shard build wrote.
#[derive(Debug, Clone)]
pub struct ShardReport {
    pub dir: std::path::PathBuf,
    pub manifest: ShardManifest,
    /// What each template and module cost the shard's pages, with the time measured
    /// (when they were expanded).
    pub costs: Option<super::CostReport>,
}

/// The streams a shard reads.
pub(super) struct Plan {
    shard: Shard,
    streams: Vec<usize>,
    bytes: std::ops::Range<u64>,
}

/// Chooses shard `shard`'s streams ([`crate::dump::Dump::shard_streams`]); a dump that is
/// not read stream by stream cannot be cut.
pub(super) fn plan(dump: &crate::dump::Dump, shard: Shard) -> Result<Plan, BuildError> {
    match dump.shard_streams(shard.k, shard.n) {
        Some((streams, bytes)) => Ok(Plan {
            shard,
            streams,
            bytes,
        }),
        None => Err(BuildError::Shards {
            message: format!(
                "{}: --shard needs a multistream bz2 dump (many streams, read one by one), best with its --multistream-index; this one is {:?}",
                dump.path().display(),
                dump.format()
            ),
        }),
    }
}

/// A shard build's inputs, once the first pass is done.
pub(super) struct Run<'a> {
    pub(super) opts: &'a super::BuildOptions,
    pub(super) threads: usize,
    pub(super) dump: &'a crate::dump::Dump,
    pub(super) ctx: &'a super::page::Ctx<'a>,
    /// When pages are expanded: what the first pass read, the build date, and the runs
    /// the sort of the other pages' directory spilled.
    pub(super) expansion: Option<(&'a SourcesInfo, i64, u64)>,
    /// The first pass, when taken from a sources directory (checked against the dump).
    pub(super) taken: Option<&'a super::shared_sources::Taken>,
    pub(super) clock: super::Clock,
}

/// Reads the shard's pages into `shard-pages.rec` in the staging directory (beside the
/// first pass's files, `files`), their structure and text records into its
/// `structure.rec` and `text.rec` (as a build writes those stores) and their full-text
/// documents into `text_index` (when text is built: the shard's pages numbered from 0),
/// writes its manifest and publishes it.
pub(super) fn write(
    run: Run<'_>,
    plan: Plan,
    staging: index::Staging,
    (mut files, text_index): (
        BTreeMap<String, u64>,
        Option<crate::text::search::TextIndexWriter>,
    ),
    progress: &dyn super::Progress,
    cancel: &std::sync::atomic::AtomicBool,
) -> Result<ShardReport, BuildError> {
    let dir = staging.dir().to_path_buf();
    let mut w =
        index::StoreWriter::<ShardPage>::create(&dir.join(PAGES_FILE), index::kinds::SHARD_PAGES)?;
    let consumer = |e: IndexError| crate::dump::DumpError::Consumer(Box::new(e));
    let mut costs = run.expansion.map(|_| super::costs::CostTotals::default());
    let (mut page, with_text) = (0u32, text_index.is_some());
    let which = Stores {
        structure: !run.opts.pages_only,
        text: with_text,
    };
    let mut stores = RecordStores::create(&dir, which)?;
    let what = super::PagesToRead {
        dump: run.dump,
        ctx: run.ctx,
        streams: Some(&plan.streams),
        taken: run.taken,
    };
    let (sha, stats) = super::read_pages(
        what,
        |mut p| {
            let timed = p.costs.clone();
            let docs = std::mem::take(&mut p.docs);
            let records = (
                std::mem::take(&mut p.structure),
                std::mem::take(&mut p.text),
            );
            let bytes = index::encode(&ShardPage::from(p)).map_err(consumer)?;
            Ok::<_, crate::dump::DumpError>((bytes, timed, docs, records))
        },
        |(bytes, timed, docs, records): Encoded| {
            if let Some(c) = costs.as_mut() {
                c.add_page(&timed);
            }
            if let Some(ti) = text_index.as_ref() {
                ti.add_docs(page, docs)
                    .map_err(|e| crate::dump::DumpError::Consumer(Box::new(e)))?;
            }
            page += 1;
            stores.push(&records.0, &records.1).map_err(consumer)?;
            w.push_encoded(&bytes).map_err(consumer)
        },
        progress,
        cancel,
    )?;
    files.insert(PAGES_FILE.to_string(), w.finish()?);
    stores.finish(&mut files)?;
    // A taken first pass's files were checksummed as they were copied.
    let mut checksums = run.taken.map(|t| t.checksums.clone()).unwrap_or_default();
    for name in files.keys() {
        if !checksums.contains_key(name) {
            checksums.insert(name.clone(), index::manifest::file_crc32(&dir.join(name))?);
        }
    }
    if let Some(ti) = text_index {
        for (name, crc) in ti.finish()? {
            checksums.insert(name, format!("{crc:08x}"));
        }
        super::record_text_dir(&dir, &mut files);
    }
    let opts = run.opts;
    let messages = match &opts.messages {
        Some(p) => Some(super::file_digest(p)?.sha256),
        None => None,
    };
    let manifest = ShardManifest {
        format: FORMAT_NAME.to_string(),
        format_version: FORMAT_VERSION,
        index_format_version: index::FORMAT_VERSION,
        wikiwit_version: env!("CARGO_PKG_VERSION").to_string(),
        built_at: super::now_rfc3339(),
        shard: plan.shard,
        bytes: [plan.bytes.start, plan.bytes.end],
        streams: plan.streams.len(),
        source: super::source_info(
            opts,
            run.dump,
            sha,
            run.taken.and_then(|t| t.index.as_ref()),
        )?,
        site: run.dump.siteinfo().clone(),
        options: ShardOptions {
            interwiki: run.ctx.codec.profile().as_str().to_string(),
            text: with_text,
            pages_only: opts.pages_only,
            expand: run.expansion.is_some(),
            build_date: run.expansion.map(|e| e.1),
            strict: opts.strict,
            messages,
        },
        sources: run.expansion.map(|e| e.0.clone()),
        articles_sort_runs: run.expansion.map_or(0, |e| e.2),
        pages: stats.pages,
        xml_bytes: stats.decompressed_bytes,
        threads: run.threads,
        seconds: run.clock.started.elapsed().as_secs_f64(),
        files,
        checksums,
    };
    index::fault::point("publish");
    manifest.write(&dir)?;
    let dir = staging.commit()?;
    Ok(ShardReport {
        dir,
        manifest,
        costs: costs.map(|c| c.report()),
    })
}
