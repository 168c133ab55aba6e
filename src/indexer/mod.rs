//! `wikiwit build`: dump → index.
//!
//! Pages are read in parallel ([`crate::dump`]), normalized and checked on the workers,
//! then gathered in dump order; redirects are resolved once all titles are known; the
//! stores are written into a staging directory that replaces the previous index only
//! when complete (`crate::index::Staging`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

mod costs;
mod dir_manifest;
pub(crate) mod extsort;
mod graph;
mod merge;
mod page;
mod redirects;
mod shard;
mod shared_sources;
mod sinks;
mod sources;
mod title_keys;
mod write;

use write::{TextCrcs, WriteEnv, record_text_dir, write_phase};

pub use costs::{CostReport, MeasuredRow};
pub use merge::{MergeOptions, merge};
pub use shard::{Shard, ShardManifest, ShardOptions, ShardReport};
pub use shared_sources::{SourcesManifest, SourcesReport, build_sources};

use sha2::{Digest, Sha256};

use page::{Ctx, to_page};
use sinks::Sinks;

use crate::dump::{Dump, DumpError};
use crate::expand::{ExpandConfig, Expander};
use crate::index::articles::Articles;
use crate::index::manifest::{BuildParams, Counts, FileDigest, Manifest, SourceInfo, SourcesInfo};
use crate::index::sources::{SourceLookup, Sources};
use crate::index::{self, IndexError, Staging};
use crate::title::{InterwikiProfile, TitleCodec};

/// What to build and how.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub dump: PathBuf,
    /// The multistream index file (`…-index.txt.bz2`), if any.
    pub multistream_index: Option<PathBuf>,
    /// Where the index goes; `index/<dbname>` when `None`.
    pub index_dir: Option<PathBuf>,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    pub interwiki: InterwikiProfile,
    /// Build the plain-text store and the full-text index (`text.rec`, `text/`).
    pub text: bool,
    /// Build only pages and titles (what `resolve` and `export pages|redirects` need):
    /// wikitext is not parsed, so no structure, link graph or text (`text` is ignored).
    pub pages_only: bool,
    /// Bytes the build's sorters may hold before spilling runs to disk
    /// (`DEFAULT_MEMORY_BUDGET` when `None`).
    pub memory_budget: Option<u64>,
    /// Where temporary files go (a directory inside the new index's staging directory
    /// when `None`).
    pub tmp_dir: Option<PathBuf>,
    /// Expand templates before analysing pages (a first pass stores the dump's
    /// templates, modules and messages in `sources.rec`); false: pages are analysed as
    /// written (`--no-expand`).
    pub expand: bool,
    /// The "now" of date magic words, Unix seconds (`--build-date`); by default the
    /// newest revision among the source pages.
    pub build_date: Option<i64>,
    /// Refuse a dump in which two pages have the same title (`--strict`); by default
    /// the newest revision is kept and the others are recorded as warnings.
    pub strict: bool,
    /// The content language's messages and date formats, recorded from a MediaWiki
    /// (`--messages`, see `docs/expansion.md`); copied into the index as
    /// `messages.json` so that `expand` uses the same. English when `None`.
    pub messages: Option<PathBuf>,
    /// A first pass written by `build --sources-only` (a sources directory), taken
    /// instead of running this build's own (`--sources`); it must be this dump's.
    pub sources: Option<PathBuf>,
}

/// The default `--memory-budget`: what the sorters hold at most. Chosen so that the
/// build's peak stays near 1 GB on enwiki-sized dumps (see README, "Full English
/// Wikipedia"); more only saves merge passes, which are sequential reads.
pub(crate) const DEFAULT_MEMORY_BUDGET: u64 = 512 << 20;

/// The memory budget, shared out to the sorters that are alive at the same time.
pub(crate) struct Budget(u64);

impl Budget {
    /// A `fraction` of the budget, in bytes.
    pub fn share(&self, fraction: f64) -> usize {
        (self.0 as f64 * fraction) as usize
    }
}

/// Errors of a build: the dump's or the index's.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Dump(#[from] DumpError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Text(#[from] crate::text::search::SearchError),
    #[error("cannot start {threads} worker threads: {message}")]
    Threads { threads: usize, message: String },
    #[error(transparent)]
    Messages(#[from] crate::expand::MessagesError),
    /// Shards that cannot be built or merged: the message says which and why.
    #[error("{message}")]
    Shards { message: String },
}

/// The content language's messages file (`--messages`), read and copied into the index
/// (`messages.json`).
fn stored_messages(
    path: &Path,
    dir: &Path,
    files: &mut BTreeMap<String, u64>,
) -> Result<crate::expand::Messages, BuildError> {
    let m = crate::expand::Messages::load(path)?;
    let stored = dir.join(index::files::MESSAGES);
    std::fs::copy(path, &stored).map_err(|e| IndexError::io(&stored, e))?;
    let size = std::fs::metadata(&stored)
        .map_err(|e| IndexError::io(&stored, e))?
        .len();
    files.insert(index::files::MESSAGES.to_string(), size);
    Ok(m)
}

/// Receives progress; the CLI draws a bar, tests ignore it.
pub trait Progress: Sync {
    /// A phase starts; `total` is in bytes of the dump file (0 if unknown).
    fn phase(&self, name: &str, total: u64);
    /// Bytes of the dump done so far in the current phase.
    fn advance(&self, done: u64);
    fn finish(&self);
}

/// Progress that goes nowhere.
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn finish(&self) {}
}

pub(crate) use crate::index::Warning;

/// The result of a successful build.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// What each template and module cost, with the time measured (when pages were
    /// expanded by this build; a merge has no times to give).
    pub costs: Option<CostReport>,
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn file_digest(path: &Path) -> Result<FileDigest, DumpError> {
    let bytes = std::fs::read(path).map_err(|source| DumpError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(FileDigest {
        path: path.display().to_string(),
        size: bytes.len() as u64,
        sha256: sha256_hex(&bytes),
    })
}

/// Builds an index from a dump. `cancel` aborts cleanly (the previous index stays).
pub fn build(
    opts: &BuildOptions,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<BuildReport, BuildError> {
    let threads = thread_count(opts.threads);
    let pool = pool(threads)?;
    match pool.install(|| build_in_pool(opts, threads, None, progress, cancel))? {
        Output::Index(report) => Ok(report),
        Output::Shard(_) => Err(internal("a build without --shard wrote a shard")),
    }
}

/// Builds shard `part` of an index from a multistream dump (`build --shard K/N`): the
/// first pass over the whole dump as `build` makes it, then the pages of the shard's
/// streams only, kept for `merge` (see `shard.rs`). `cancel` aborts cleanly.
pub fn build_shard(
    opts: &BuildOptions,
    part: Shard,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<ShardReport, BuildError> {
    let threads = thread_count(opts.threads);
    let pool = pool(threads)?;
    match pool.install(|| build_in_pool(opts, threads, Some(part), progress, cancel))? {
        Output::Shard(report) => Ok(report),
        Output::Index(_) => Err(internal("a build with --shard wrote an index")),
    }
}

fn internal(message: &str) -> BuildError {
    BuildError::Dump(DumpError::Internal {
        message: message.into(),
    })
}

/// `--threads`, 0 meaning one per core.
fn thread_count(threads: usize) -> usize {
    if threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        threads
    }
}

/// The build's own rayon pool of `threads` workers.
fn pool(threads: usize) -> Result<rayon::ThreadPool, BuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BuildError::Threads {
            threads,
            message: e.to_string(),
        })
}

/// The phases' wall times, as the manifest records them.
struct Clock {
    started: Instant,
    mark: Instant,
    phases: Vec<(String, f64)>,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            started: Instant::now(),
            mark: Instant::now(),
            phases: Vec::new(),
        }
    }

    /// Records the phase that ends now.
    fn lap(&mut self, name: &str) {
        self.phases
            .push((name.to_string(), self.mark.elapsed().as_secs_f64()));
        self.mark = Instant::now();
    }
}

/// Template expansion's inputs, when pages are expanded.
struct Expansion<'d> {
    info: SourcesInfo,
    sources: Sources,
    /// The dump's other pages, for article transclusion.
    articles: Articles<'d>,
    /// Runs the sort of their directory spilled.
    sort_runs: u64,
    /// The date the expansion's time functions see (`--build-date`, else the newest
    /// revision in the dump).
    build_date: i64,
    config: ExpandConfig,
    /// The first pass, when taken from a sources directory (`--sources`): the dump's
    /// hash is checked against it before the build is published.
    taken: Option<shared_sources::Taken>,
}

impl Expansion<'_> {
    /// The stored sources as the expander reads them, without a title map (the titles
    /// are known only at the build's end): other pages come from the dump.
    fn lookup(&self) -> SourceLookup<'_> {
        SourceLookup {
            sources: &self.sources,
            titles: None,
            articles: Some(&self.articles),
            ids: None,
        }
    }
}

/// The first pass: the templates, modules and messages every page may call, stored in
/// the staging directory, and the expander's configuration.
#[allow(clippy::too_many_arguments)]
fn prepare_expansion<'d>(
    opts: &BuildOptions,
    dump: &'d Dump,
    codec: &'d TitleCodec,
    dir: &Path,
    tmp: &Path,
    budget: &Budget,
    files: &mut BTreeMap<String, u64>,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<Expansion<'d>, BuildError> {
    let site = dump.siteinfo();
    // The messages file before the dump: a bad one is refused before a pass over it.
    let messages = match &opts.messages {
        Some(path) => Some(stored_messages(path, dir, files)?),
        None => None,
    };
    // A first pass taken from elsewhere is checked before anything is read.
    let taken = match &opts.sources {
        Some(from) => Some(shared_sources::take(from, opts, dump, codec, dir)?),
        None => None,
    };
    // An indexed multistream dump's other pages are read from their streams, found
    // through the index's titles, sorted before the first pass (which then runs with
    // the sorter's memory freed); any other dump's are found or stored by the first pass.
    let mut sorter = sources::DirectorySorter::new(tmp, budget.share(1.0));
    let mut failed = None;
    let groups = dump.stream_groups(|hash, group| {
        if failed.is_none()
            && let Err(e) = sorter.push((hash, group))
        {
            failed = Some(e);
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    let streams = match groups {
        Some(g) => Some((g, sorter.finish(tmp)?)),
        None => None,
    };
    let (pass, taken) = match taken {
        // Taken only from an indexed multistream dump, whose other pages need no pass.
        Some(t) => (
            sources::FirstPass {
                info: t.info.clone(),
                sizes: t.sizes,
                others: None,
            },
            Some(t),
        ),
        None => {
            let collect = match (&streams, dump.has_entry_points()) {
                (Some(_), _) => None,
                (None, true) => Some(sources::Collect::Points),
                (None, false) => Some(sources::Collect::Spool),
            };
            let others = collect.map(|c| (c, tmp, budget.share(1.0)));
            let pass = sources::first_pass(dump, codec, &site.lang, dir, others, progress, cancel)?;
            (pass, None)
        }
    };
    let sources::FirstPass {
        info,
        sizes: (rec, map),
        others,
    } = pass;
    let (articles, sort_runs) = match (streams, others) {
        (Some((g, (d, runs))), _) => (Articles::streams(dump, g, d, codec), runs),
        (None, Some((sources::Others::Points(o), (d, runs)))) => {
            (Articles::points(dump, o, d, codec), runs)
        }
        (None, Some((sources::Others::Spooled(store), (d, runs)))) => {
            (Articles::spooled(store, d, dump, codec), runs)
        }
        (None, None) => {
            return Err(BuildError::Dump(DumpError::Internal {
                message: "the first pass collected no pages for a dump without stream groups"
                    .into(),
            }));
        }
    };
    files.insert(index::files::SOURCES.to_string(), rec);
    files.insert(index::files::SOURCES_MAP.to_string(), map);
    let build_date = opts.build_date.unwrap_or(info.newest_revision);
    let mut config = ExpandConfig::from_site(site, build_date);
    if let Some(m) = messages {
        config.messages = std::sync::Arc::new(m);
    }
    Ok(Expansion {
        info,
        sources: Sources::open(dir)?,
        articles,
        sort_runs,
        build_date,
        config,
        taken,
    })
}

/// What the main pass reads: the dump's pages (for a shard, those of `streams`),
/// analysed as `ctx` says; `taken` is the first pass when taken from a sources
/// directory, which the dump read must be the one of.
struct PagesToRead<'a> {
    dump: &'a Dump,
    ctx: &'a Ctx<'a>,
    streams: Option<&'a [usize]>,
    taken: Option<&'a shared_sources::Taken>,
}

impl<'a> PagesToRead<'a> {
    /// Every page of the dump (a one-machine build).
    fn all(dump: &'a Dump, ctx: &'a Ctx<'a>, taken: Option<&'a shared_sources::Taken>) -> Self {
        PagesToRead {
            dump,
            ctx,
            streams: None,
            taken,
        }
    }
}

/// The main pass: the pages of `what` read and analysed on the workers, turned into what
/// `consume` takes by `keep` (still on the workers) and handed to `consume` in dump
/// order, while another thread hashes the dump. Returns the dump's SHA-256 and what the
/// reader saw; refuses a dump other than the one a taken first pass was read from (same
/// size and index, other bytes).
fn read_pages<T: Send>(
    what: PagesToRead<'_>,
    keep: impl Fn(page::PageOut) -> Result<T, DumpError> + Sync,
    consume: impl FnMut(T) -> Result<(), DumpError>,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<(String, crate::dump::ReadStats), BuildError> {
    let PagesToRead {
        dump,
        ctx,
        streams,
        taken,
    } = what;
    // One expander per worker thread: its caches of parsed templates and of
    // page-independent expansions serve every page that thread reads.
    let init = || {
        ctx.expand
            .map(|(lookup, config)| Expander::new(lookup, ctx.codec, config.clone()))
    };
    let map = |expander: &mut Option<Expander<'_>>,
               raw: crate::dump::RawPage<'_>,
               loc: crate::dump::Location| {
        to_page(raw, loc, ctx, expander.as_ref()).and_then(&keep)
    };
    let advance = |done| progress.advance(done);
    let (sha, read) = hashed_while(dump, || {
        progress.phase("reading pages", dump.bytes().len() as u64);
        let read = dump.pages_with(streams, init, map, consume, advance, cancel);
        progress.finish();
        read
    });
    let stats = read.map_err(read_error)?;
    if let Some(t) = taken {
        shared_sources::check_dump(t, &sha, dump.path())?;
    }
    Ok((sha, stats))
}

/// Runs `work` while another thread hashes the dump; returns the dump's SHA-256 (what
/// the manifests name the dump by) and what `work` returned.
fn hashed_while<T>(dump: &Dump, work: impl FnOnce() -> T) -> (String, T) {
    std::thread::scope(|s| {
        let hasher = s.spawn(|| sha256_hex(dump.bytes()));
        let done = work();
        (hasher.join().expect("hashing thread"), done)
    })
}

/// What the manifest records of how the build ran.
struct Built<'a> {
    threads: usize,
    source: SourceInfo,
    pages_only: bool,
    codec: &'a TitleCodec,
    with_text: bool,
    clock: Clock,
    budget: &'a Budget,
    spills: BTreeMap<String, u64>,
    /// When pages were expanded: what the first pass read, the build date, and the runs
    /// the sort of the other pages' directory spilled.
    expansion: Option<(SourcesInfo, i64, u64)>,
}

/// What the manifest records of the dump: its name, size, SHA-256 (`sha`, computed
/// while it was read), layout and multistream index.
/// `index`: the multistream index's digest when it was taken already (by `--sources`'s
/// check), so that the file is not read twice.
fn source_info(
    opts: &BuildOptions,
    dump: &Dump,
    sha: String,
    index: Option<&FileDigest>,
) -> Result<SourceInfo, BuildError> {
    Ok(SourceInfo {
        path: opts.dump.display().to_string(),
        file_name: opts
            .dump
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        size: dump.bytes().len() as u64,
        sha256: sha,
        format: dump.format(),
        multistream_index: match (&opts.multistream_index, index) {
            (Some(_), Some(known)) => Some(known.clone()),
            (Some(p), None) => Some(file_digest(p)?),
            (None, _) => None,
        },
    })
}

/// The manifest of the index in `dir`, with the checksums of the files that have none of
/// their own (`warnings.jsonl`, the full-text index's files).
fn manifest(
    b: Built<'_>,
    dir: &Path,
    site: crate::siteinfo::SiteInfo,
    counts: Counts,
    files: BTreeMap<String, u64>,
    text_crcs: TextCrcs,
) -> Result<Manifest, BuildError> {
    // The text index's files were checksummed as their chunk table was written.
    let mut checksums: BTreeMap<String, String> = text_crcs
        .into_iter()
        .map(|(name, crc)| (name, format!("{crc:08x}")))
        .collect();
    for name in [index::files::WARNINGS, index::files::COSTS] {
        if name == index::files::WARNINGS || files.contains_key(name) {
            let crc = index::manifest::file_crc32(&dir.join(name))?;
            checksums.insert(name.to_string(), crc);
        }
    }
    Ok(Manifest {
        checksum: String::new(),
        format: index::manifest::FORMAT_NAME.to_string(),
        format_version: index::FORMAT_VERSION,
        wikiwit_version: env!("CARGO_PKG_VERSION").to_string(),
        built_at: now_rfc3339(),
        source: b.source,
        site,
        build: BuildParams {
            threads: b.threads,
            interwiki: b.codec.profile().as_str().to_string(),
            text: b.with_text,
            pages_only: b.pages_only,
            seconds: b.clock.started.elapsed().as_secs_f64(),
            phases: b.clock.phases,
            memory_budget: b.budget.0,
            sort_runs: {
                let mut runs = b.spills;
                if let Some(e) = &b.expansion {
                    runs.insert("articles".to_string(), e.2);
                }
                runs
            },
            expand: b.expansion.is_some(),
            build_date: b.expansion.as_ref().map(|e| rfc3339(e.1)),
            sources: b.expansion.map(|e| e.0),
        },
        counts,
        files,
        checksums,
    })
}

/// Where the index goes: `--index`, else `index/<dbname>`.
fn target_dir(opts: &BuildOptions, site: &crate::siteinfo::SiteInfo) -> PathBuf {
    opts.index_dir
        .clone()
        .unwrap_or_else(|| Path::new("index").join(sanitize_dirname(&site.dbname)))
}

/// The build error behind a failed read: the consumer's own errors travel through the
/// reader boxed, and come out here as what they were.
fn read_error(e: DumpError) -> BuildError {
    match e {
        DumpError::Consumer(e) => match e.downcast::<IndexError>() {
            Ok(ie) => BuildError::Index(*ie),
            Err(other) => match other.downcast::<crate::text::search::SearchError>() {
                Ok(se) => BuildError::Text(*se),
                Err(other) => BuildError::Dump(DumpError::Internal {
                    message: other.to_string(),
                }),
            },
        },
        e => e.into(),
    }
}

/// What a build wrote: an index, or a shard of one.
enum Output {
    Index(BuildReport),
    Shard(shard::ShardReport),
}

fn build_in_pool(
    opts: &BuildOptions,
    threads: usize,
    part: Option<Shard>,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<Output, BuildError> {
    let mut clock = Clock::new();
    let dump = Dump::open(&opts.dump, opts.multistream_index.as_deref())?;
    let site = dump.siteinfo().clone();
    let codec = TitleCodec::new(&site, opts.interwiki);
    // A shard's streams are chosen before anything is written.
    let part = part.map(|s| shard::plan(&dump, s)).transpose()?;
    let staging = Staging::begin(&target_dir(opts, &site))?;
    let dir = staging.dir().to_path_buf();
    let spill = staging.spill_dir(opts.tmp_dir.as_deref())?;
    let tmp = spill.path().to_path_buf();
    let budget = Budget(opts.memory_budget.unwrap_or(DEFAULT_MEMORY_BUDGET));
    let parse = !opts.pages_only;
    let mut files = BTreeMap::new();
    // Templates, modules and messages first: every page may call them.
    let expansion = if parse && opts.expand {
        let e = prepare_expansion(
            opts, &dump, &codec, &dir, &tmp, &budget, &mut files, progress, cancel,
        )?;
        clock.lap("read templates and modules");
        Some(e)
    } else {
        unexpanded(opts)?
    };
    let lookup = expansion.as_ref().map(Expansion::lookup);
    let taken = expansion.as_ref().and_then(|e| e.taken.as_ref());
    let with_text = opts.text && parse;
    let mut ctx = Ctx {
        path: dump.path(),
        codec: &codec,
        lang: &site.lang,
        docs: None,
        parse,
        expand: lookup.as_ref().zip(expansion.as_ref().map(|e| &e.config)),
    };
    if let Some(plan) = part {
        // A shard indexes its own pages' text, numbered from 0; the merge joins the
        // shards' segments (`text/join.rs`).
        let text_index = with_text
            .then(|| crate::text::search::TextIndexWriter::create(&dir, TEXT_INDEX_MB))
            .transpose()?;
        let maker = text_index.as_ref().map(|w| w.doc_maker());
        ctx.docs = maker.as_ref();
        let run = shard::Run {
            opts,
            threads,
            dump: &dump,
            ctx: &ctx,
            expansion: expansion
                .as_ref()
                .map(|e| (&e.info, e.build_date, e.sort_runs)),
            taken,
            clock,
        };
        let report = shard::write(run, plan, staging, (files, text_index), progress, cancel)?;
        drop(spill);
        return Ok(Output::Shard(report));
    }
    let (text_index, mut sinks) = open_sinks(
        (&dir, &tmp),
        &budget,
        (parse, with_text),
        expansion.as_ref(),
        &mut files,
    )?;
    let maker = text_index.as_ref().map(|w| w.doc_maker());
    ctx.docs = maker.as_ref();
    let (sha, stats) = read_pages(
        PagesToRead::all(&dump, &ctx, taken),
        Ok,
        |p| sinks.consume(p, text_index.as_ref()),
        progress,
        cancel,
    )?;
    clock.lap("read and parse pages");
    let costs = write_costs(&dir, &mut sinks, &mut files)?;
    let env = WriteEnv {
        dir: &dir,
        tmp: &tmp,
        budget: &budget,
        codec: &codec,
        strict: (opts.strict, &opts.dump),
        parse,
    };
    let (counts, spills, text_crcs) = write_phase(
        &env,
        sinks,
        text_index,
        stats.decompressed_bytes,
        &mut clock,
        &mut files,
    )?;
    drop(spill);
    clock.lap("title map, redirects, link graph, stores");
    let built = Built {
        threads,
        source: source_info(opts, &dump, sha, taken.and_then(|t| t.index.as_ref()))?,
        pages_only: opts.pages_only,
        codec: &codec,
        with_text,
        clock,
        budget: &budget,
        spills,
        expansion: expansion.map(|e| (e.info, e.build_date, e.sort_runs)),
    };
    let manifest = manifest(built, &dir, site, counts, files, text_crcs)?;
    let mut report = publish(manifest, staging)?;
    report.costs = costs.map(|c| c.report());
    Ok(Output::Index(report))
}

/// No expansion for a build that does not expand, which then must not be given a first
/// pass to take (`--sources`).
fn unexpanded(opts: &BuildOptions) -> Result<Option<Expansion<'static>>, BuildError> {
    match opts.sources {
        Some(_) => Err(BuildError::Shards {
            message: "--sources is the first pass of a build that expands templates; this one does not (--no-expand or --pages-only)".into(),
        }),
        None => Ok(None),
    }
}

/// The full-text index writer's memory, in MB (its two indexing threads share it).
const TEXT_INDEX_MB: usize = 256;

/// What a one-machine build's main pass writes to: the full-text index (when text is
/// built) and the sinks, which note the pages' entry points unless the first pass did
/// (those, numbered in dump order as the main pass numbers pages, are written now) and
/// sum the pages' costs when pages are expanded.
fn open_sinks(
    (dir, tmp): (&Path, &Path),
    budget: &Budget,
    (parse, with_text): (bool, bool),
    expansion: Option<&Expansion<'_>>,
    files: &mut BTreeMap<String, u64>,
) -> Result<(Option<crate::text::search::TextIndexWriter>, Sinks), BuildError> {
    let text_index = with_text
        .then(|| crate::text::search::TextIndexWriter::create(dir, TEXT_INDEX_MB))
        .transpose()?;
    let noted = expansion.and_then(|e| e.articles.entry_points());
    if let Some(offsets) = noted {
        let size = offsets.write(dir)?;
        files.insert(index::files::DUMP_OFFSETS.to_string(), size);
    }
    let expand = expansion.is_some();
    let stores = sinks::Stores {
        structure: parse,
        text: with_text,
    };
    let sinks = Sinks::create(dir, tmp, budget, parse, stores, noted.is_none(), expand)?;
    Ok((text_index, sinks))
}

/// Writes `costs.json` from what the sinks summed (when pages were expanded) and
/// returns the totals, with their times, for the cost report.
fn write_costs(
    dir: &Path,
    sinks: &mut Sinks,
    files: &mut BTreeMap<String, u64>,
) -> Result<Option<costs::CostTotals>, BuildError> {
    let Some(costs) = sinks.costs.take() else {
        return Ok(None);
    };
    files.insert(index::files::COSTS.to_string(), costs.table().write(dir)?);
    Ok(Some(costs))
}

/// Writes the manifest last and swaps the staging directory into place.
fn publish(manifest: Manifest, staging: Staging) -> Result<BuildReport, BuildError> {
    index::fault::point("publish");
    manifest.write(staging.dir())?;
    let dir = staging.commit()?;
    Ok(BuildReport {
        dir,
        manifest,
        costs: None,
    })
}

/// Directory names come from `<dbname>`, which a hostile dump could set to `../x`.
fn sanitize_dirname(dbname: &str) -> String {
    let s: String = dbname
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.chars().all(|c| c == '_') {
        "wiki".to_string()
    } else {
        s
    }
}

/// `--build-date`: RFC 3339 (`2017-09-01T00:00:00Z`) or a day (`2017-09-01`, midnight
/// UTC) → Unix seconds.
pub fn parse_build_date(text: &str) -> Result<i64, String> {
    let t = text.trim();
    let rfc = |s: &str| {
        time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
            .map(|d| d.unix_timestamp())
    };
    rfc(t)
        .or_else(|_| rfc(&format!("{t}T00:00:00Z")))
        .map_err(|_| format!("{text:?} is not a date (examples: 2017-09-01, 2017-09-01T12:00:00Z)"))
}

/// Unix seconds as RFC 3339 (UTC); empty if out of range.
fn rfc3339(t: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(t)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}
