//! `wikiwit merge`: shards (`build --shard K/N`) joined into one index.
//!
//! The shards are checked to belong together (one dump, one N, each K once, one set of
//! options and first-pass files), then their pages are replayed in shard order — which
//! is dump order, each shard holding one byte range of the dump's streams — into the
//! same sinks and write phase as a one-machine build: page numbers, titles, redirects,
//! the link graph, category members and the full-text index come out as that build
//! makes them, in memory bounded by the same `--memory-budget`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::shard::{PAGES_FILE, SHARED_FILES, ShardManifest, ShardPage};
use super::sinks::{Sinks, Stores};
use super::{
    Budget, BuildError, BuildReport, Built, Clock, DEFAULT_MEMORY_BUDGET, Progress, WriteEnv,
};
use crate::dump::DumpError;
use crate::index::{self, Staging, Store};
use crate::title::{InterwikiProfile, TitleCodec};

/// What to merge and where.
#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// The shard directories, in any order.
    pub shards: Vec<PathBuf>,
    /// Where the index goes (replaced atomically when complete).
    pub index_dir: PathBuf,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// As `build --memory-budget`.
    pub memory_budget: Option<u64>,
    /// As `build --tmp-dir`.
    pub tmp_dir: Option<PathBuf>,
}

/// Merges shards into an index. Nothing is written unless the shards belong together;
/// `cancel` aborts cleanly (the previous index stays).
pub fn merge(
    opts: &MergeOptions,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<BuildReport, BuildError> {
    let shards = checked(&opts.shards)?;
    let threads = super::thread_count(opts.threads);
    super::pool(threads)?.install(|| merge_in_pool(opts, &shards, threads, progress, cancel))
}

fn refuse(message: String) -> BuildError {
    BuildError::Shards { message }
}

/// The shards' manifests, in shard order, once they are known to be the N shards of one
/// build.
fn checked(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, ShardManifest)>, BuildError> {
    let mut all = Vec::with_capacity(dirs.len());
    for d in dirs {
        all.push((d.clone(), ShardManifest::read(d)?));
    }
    all.sort_by_key(|(_, m)| m.shard.k);
    let Some((first_dir, first)) = all.first() else {
        return Err(refuse("no shards to merge".into()));
    };
    let n = first.shard.n;
    for (d, m) in &all {
        let (d, f) = (d.display(), first_dir.display());
        if m.shard.n != n {
            return Err(refuse(format!(
                "{d} is shard {} but {f} is shard {}: shards of different builds",
                m.shard, first.shard
            )));
        }
        if (&m.source.sha256, m.source.size) != (&first.source.sha256, first.source.size) {
            return Err(refuse(format!(
                "{d} is a shard of another dump ({}, sha256 {}) than {f} ({}, sha256 {})",
                m.source.file_name, m.source.sha256, first.source.file_name, first.source.sha256
            )));
        }
        if m.options != first.options || m.site != first.site {
            return Err(refuse(format!(
                "{d} was built with other options than {f} ({:?} vs {:?}): build every shard with the same options",
                m.options, first.options
            )));
        }
        for name in SHARED_FILES {
            if m.checksums.get(name) != first.checksums.get(name) {
                return Err(refuse(format!(
                    "{d} holds another {name} than {f}: its first pass read other templates, modules or messages"
                )));
            }
        }
    }
    for pair in all.windows(2) {
        if pair[0].1.shard.k == pair[1].1.shard.k {
            return Err(refuse(format!(
                "shard {} is given twice: {} and {}",
                pair[0].1.shard,
                pair[0].0.display(),
                pair[1].0.display()
            )));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !all.iter().any(|(_, m)| m.shard.k == *k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(refuse(format!(
            "shard(s) {} missing: a merge needs all {n} shards of the build",
            missing.join(", ")
        )));
    }
    Ok(all)
}

fn merge_in_pool(
    opts: &MergeOptions,
    shards: &[(PathBuf, ShardManifest)],
    threads: usize,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<BuildReport, BuildError> {
    let mut clock = Clock::new();
    let (first_dir, first) = &shards[0];
    let profile: InterwikiProfile = first.options.interwiki.parse().map_err(refuse)?;
    let codec = TitleCodec::new(&first.site, profile);
    let staging = Staging::begin(&opts.index_dir)?;
    let dir = staging.dir().to_path_buf();
    let spill = staging.spill_dir(opts.tmp_dir.as_deref())?;
    let tmp = spill.path().to_path_buf();
    let budget = Budget(opts.memory_budget.unwrap_or(DEFAULT_MEMORY_BUDGET));
    // The first pass's files, alike in every shard (checked), as the build keeps them;
    // checked against the first shard's manifest as they are copied.
    let mut files = BTreeMap::new();
    for name in SHARED_FILES {
        if let Some(size) = first.files.get(name) {
            let (from, to) = (first_dir.join(name), dir.join(name));
            let (_, crc) = index::manifest::copy_with_crc32(&from, &to)?;
            let recorded = first.checksums.get(name).map(String::as_str);
            if recorded != Some(crc.as_str()) {
                return Err(refuse(format!(
                    "{}: CRC-32 {crc}, but its shard's manifest says {}",
                    from.display(),
                    recorded.unwrap_or("none")
                )));
            }
            files.insert(name.to_string(), *size);
        }
    }
    let (parse, with_text) = (!first.options.pages_only, first.options.text);
    let text_crcs = if with_text {
        let text = joined_text(&dir, shards)?;
        clock.lap("join the full-text indexes");
        text
    } else {
        BTreeMap::new()
    };
    let expand = first.options.expand;
    // The structure and text stores are joined from the shards' (`join_stores`) on a
    // thread beside the replay, which feeds everything else.
    let stores = Stores {
        structure: false,
        text: false,
    };
    let mut sinks = Sinks::create(&dir, &tmp, &budget, parse, stores, true, expand)?;
    let pages: u64 = shards.iter().map(|(_, m)| m.pages).sum();
    progress.phase("merging shards", pages);
    // A failure on either side stops the other.
    let stop = AtomicBool::new(false);
    let joined = std::thread::scope(|scope| {
        let joining = scope.spawn(|| {
            let joined = join_stores(&dir, shards, (parse, with_text), &stop);
            if joined.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            joined
        });
        let mut replay = Replay {
            sinks: &mut sinks,
            done: 0,
        };
        let replayed = shards
            .iter()
            .try_for_each(|(d, m)| replay.shard(d, m, progress, [cancel, &stop]));
        if replayed.is_err() || cancel.load(Ordering::Relaxed) {
            stop.store(true, Ordering::Relaxed);
        }
        let joined = joining
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        first_failure(replayed, joined)
    })?;
    files.extend(joined);
    progress.finish();
    clock.lap("read shards");
    super::write_costs(&dir, &mut sinks, &mut files)?;
    let dump = PathBuf::from(&first.source.path);
    let env = WriteEnv {
        dir: &dir,
        tmp: &tmp,
        budget: &budget,
        codec: &codec,
        strict: (first.options.strict, &dump),
        parse,
    };
    let xml_bytes = shards.iter().map(|(_, m)| m.xml_bytes).sum();
    let (counts, spills, _) =
        super::write_phase(&env, sinks, None, xml_bytes, &mut clock, &mut files)?;
    if with_text {
        super::record_text_dir(&dir, &mut files);
    }
    drop(spill);
    clock.lap("title map, redirects, link graph, stores");
    let built = Built {
        threads,
        source: first.source.clone(),
        pages_only: first.options.pages_only,
        codec: &codec,
        with_text,
        clock,
        budget: &budget,
        spills,
        expansion: first.sources.clone().map(|s| {
            let date = first.options.build_date.unwrap_or_default();
            (s, date, first.articles_sort_runs)
        }),
    };
    let manifest = super::manifest(built, &dir, first.site.clone(), counts, files, text_crcs)?;
    super::publish(manifest, staging)
}

/// The shards' full-text indexes joined into `dir`'s (`text/join.rs`), each shard's page
/// numbers moved by the pages of the shards before it; the CRC-32 of each file.
fn joined_text(
    dir: &Path,
    shards: &[(PathBuf, ShardManifest)],
) -> Result<BTreeMap<String, u32>, BuildError> {
    let mut base = 0;
    let mut parts = Vec::with_capacity(shards.len());
    for (d, m) in shards {
        parts.push(crate::text::join::Part {
            dir: d,
            base,
            checksums: &m.checksums,
        });
        base += m.pages;
    }
    Ok(crate::text::join::join(dir, &parts)?)
}

/// The replay's or the join's error: a failure rather than the interruption it caused
/// on the other side.
fn first_failure<T>(
    replayed: Result<(), BuildError>,
    joined: Result<T, BuildError>,
) -> Result<T, BuildError> {
    match (replayed, joined) {
        (Ok(()), joined) => joined,
        (Err(e), Ok(_)) => Err(e),
        (Err(BuildError::Dump(DumpError::Interrupted)), Err(j)) => Err(j),
        (Err(e), Err(_)) => Err(e),
    }
}

/// The shards' `structure.rec` and `text.rec` joined into `dir`'s, block by block where
/// the blocks are cut alike (`index/store/join.rs`); each store's size by file name.
fn join_stores(
    dir: &Path,
    shards: &[(PathBuf, ShardManifest)],
    (parse, with_text): (bool, bool),
    stop: &AtomicBool,
) -> Result<Vec<(String, u64)>, BuildError> {
    let mut sizes = Vec::new();
    let stores = [
        (parse, index::files::STRUCTURE, index::kinds::STRUCTURE),
        (with_text, index::files::TEXT, index::kinds::TEXT),
    ];
    for (kept, name, kind) in stores {
        if !kept {
            continue;
        }
        let paths: Vec<PathBuf> = shards.iter().map(|(d, _)| d.join(name)).collect();
        let parts: Vec<(&Path, u64)> = paths
            .iter()
            .zip(shards)
            .map(|(p, (_, m))| (p.as_path(), m.pages))
            .collect();
        match index::join_stores(&dir.join(name), kind, &parts, stop)? {
            Some(joined) => sizes.push((name.to_string(), joined.size)),
            None => return Err(DumpError::Interrupted.into()),
        }
    }
    Ok(sizes)
}

/// Feeds the shards' pages to the build's sinks, in order.
struct Replay<'a> {
    sinks: &'a mut Sinks,
    /// Pages replayed so far.
    done: u64,
}

impl Replay<'_> {
    /// Replays one shard: its records decoded in parallel a chunk at a time, consumed in
    /// order, until either flag of `halted` (the build cancelled, the join failed) is
    /// set.
    fn shard(
        &mut self,
        dir: &Path,
        m: &ShardManifest,
        progress: &dyn Progress,
        halted: [&AtomicBool; 2],
    ) -> Result<(), BuildError> {
        const CHUNK: usize = 256;
        let store: Store<ShardPage> =
            Store::open(&dir.join(PAGES_FILE), index::kinds::SHARD_PAGES)?;
        if store.len() as u64 != m.pages {
            return Err(refuse(format!(
                "{}: {PAGES_FILE} holds {} pages, its manifest says {}",
                dir.display(),
                store.len(),
                m.pages
            )));
        }
        let mut records = store.iter();
        loop {
            if halted.iter().any(|h| h.load(Ordering::Relaxed)) {
                return Err(DumpError::Interrupted.into());
            }
            let chunk = records
                .by_ref()
                .take(CHUNK)
                .collect::<Result<Vec<ShardPage>, _>>()?;
            if chunk.is_empty() {
                return Ok(());
            }
            let outs = chunk
                .into_par_iter()
                .map(ShardPage::into_out)
                .collect::<Result<Vec<_>, _>>()?;
            for p in outs {
                self.sinks.consume(p, None).map_err(super::read_error)?;
                self.done += 1;
            }
            progress.advance(self.done);
        }
    }
}
