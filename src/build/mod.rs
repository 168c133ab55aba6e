//! `wikiwit build`: dump → index.
//!
//! Pages are read in parallel ([`crate::dump`]), normalized and checked on the workers,
//! then gathered in dump order; redirects are resolved once all titles are known; the
//! stores are written into a staging directory that replaces the previous index only
//! when complete ([`crate::index::Staging`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

mod graph;

use sha2::{Digest, Sha256};

use graph::GraphBuilder;

use crate::dump::{Dump, DumpError, Location, RawPage};
use crate::index::manifest::{BuildParams, Counts, FileDigest, Manifest, SourceInfo};
use crate::index::{self, IndexError, PageRecord, Redirect, Resolution, Staging, StoreWriter};
use crate::redirect::{self, RedirectSyntax};
use crate::title::{InterwikiProfile, Title, TitleCodec};
use crate::wikitext::{self, PageStructure};

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

/// A non-fatal finding about one page, kept in the index (`warnings.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warning {
    pub page_id: u64,
    pub title: String,
    pub kind: String,
    pub message: String,
}

/// The result of a successful build.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

/// One page as the workers hand it over.
struct PageOut {
    rec: PageRecord,
    target: Option<Title>,
    warnings: Vec<Warning>,
    /// The page's [`PageStructure`], encoded by the worker.
    structure: Vec<u8>,
    /// Title-map keys of the link targets and the category names, for the graph.
    link_keys: Vec<Vec<u8>>,
    categories: Vec<String>,
    /// The page's [`PageText`], encoded, and its full-text documents.
    text: Vec<u8>,
    docs: Vec<tantivy::TantivyDocument>,
}

/// What the workers need besides the page.
struct Ctx<'a> {
    path: &'a Path,
    codec: &'a TitleCodec,
    lang: &'a str,
    /// The full-text index's document maker, when text is built.
    docs: Option<&'a crate::text::search::DocMaker>,
    /// Parse wikitext (false for `--pages-only`).
    parse: bool,
}

fn to_page(raw: RawPage<'_>, loc: Location, ctx: &Ctx<'_>) -> Result<PageOut, DumpError> {
    let (path, codec, lang) = (ctx.path, ctx.codec, ctx.lang);
    let title = codec
        .parse_page_title(&raw.title)
        .map_err(|reason| DumpError::InvalidTitle {
            path: path.to_path_buf(),
            location: loc,
            title: raw.title.clone(),
            id: raw.id,
            reason,
        })?;
    let bad = |message: String| DumpError::BadPage {
        path: path.to_path_buf(),
        location: loc,
        title: raw.title.clone(),
        id: raw.id,
        message,
    };
    if title.fragment.is_some() || title.dbkey.is_empty() {
        return Err(bad("a page title cannot contain `#` or be empty".into()));
    }
    if title.ns != raw.ns {
        return Err(DumpError::NamespaceMismatch {
            path: path.to_path_buf(),
            location: loc,
            title: raw.title.clone(),
            id: raw.id,
            declared: raw.ns,
            parsed: title.ns,
        });
    }
    let timestamp = time::OffsetDateTime::parse(
        raw.timestamp.trim(),
        &time::format_description::well_known::Rfc3339,
    )
    .map_err(|e| {
        bad(format!(
            "revision timestamp {:?} is not RFC 3339: {e}",
            raw.timestamp
        ))
    })?
    .unix_timestamp();
    let mut warnings = Vec::new();
    let mut target = None;
    if raw.model == "wikitext" {
        match redirect::parse(&raw.text, lang, raw.redirect_attr.is_some(), codec) {
            RedirectSyntax::Target(t) => target = Some(t),
            RedirectSyntax::Invalid(text, reason) => warnings.push(Warning {
                page_id: raw.id,
                title: raw.title.clone(),
                kind: "invalid-redirect-target".into(),
                message: format!("redirect to {text:?} is not a valid title ({reason}); treated as an ordinary page"),
            }),
            RedirectSyntax::None if raw.redirect_attr.is_some() => warnings.push(Warning {
                page_id: raw.id,
                title: raw.title.clone(),
                kind: "redirect-mismatch".into(),
                message: "the dump marks the page as a redirect but its text is not redirect syntax".into(),
            }),
            RedirectSyntax::None => {}
        }
    }
    let (structure, text) = match (raw.model == "wikitext" && ctx.parse, ctx.docs.is_some()) {
        (true, true) => {
            let (s, t) =
                wikitext::analyze_with_text(&raw.text, title.ns, &title.dbkey, codec, lang);
            (s, Some(t))
        }
        // Without text (`--no-text`) the plain text is not rendered at all.
        (true, false) => (
            wikitext::analyze(&raw.text, title.ns, &title.dbkey, codec, lang),
            None,
        ),
        (false, _) => (PageStructure::default(), None),
    };
    let (text_bytes, docs) = match ctx.docs {
        None => (Vec::new(), Vec::new()),
        Some(maker) => {
            let display = codec.prefixed_text(title.ns, &title.dbkey);
            let headings: Vec<String> = structure
                .sections
                .iter()
                .map(|x| x.heading.clone())
                .collect();
            let t = if target.is_some() {
                None
            } else {
                text.as_ref()
            };
            let docs = maker.docs(&display, &headings, t);
            let bytes = match &text {
                Some(t) => index::encode(t),
                None => index::encode(&crate::text::PageText::default()),
            }
            .map_err(|e| bad(e.to_string()))?;
            (bytes, docs)
        }
    };
    for w in &structure.warnings {
        warnings.push(Warning {
            page_id: raw.id,
            title: raw.title.clone(),
            kind: "parse".into(),
            message: w.clone(),
        });
    }
    // List pages are recognized from their structure; not at all without it.
    let list_page = ctx.parse && crate::lists::is_list_page(&title, &structure, lang);
    let link_keys = structure
        .links
        .iter()
        .map(|l| index::titles_key(l.ns, &l.dbkey))
        .collect();
    let categories = structure
        .categories
        .iter()
        .map(|c| c.dbkey.clone())
        .collect();
    let encoded = if ctx.parse {
        index::encode(&structure).map_err(|e| bad(e.to_string()))?
    } else {
        Vec::new()
    };
    Ok(PageOut {
        rec: PageRecord {
            id: raw.id,
            ns: title.ns,
            dbkey: title.dbkey,
            rev_id: raw.rev_id,
            timestamp,
            len: raw.text.len() as u64,
            model: raw.model.clone().into_owned(),
            redirect: None,
            list_page,
        },
        target,
        warnings,
        structure: encoded,
        link_keys,
        categories,
        text: text_bytes,
        docs,
    })
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

/// Follows the redirect chain starting at page `start`.
fn resolve(start: usize, pages: &[PageOut], find: &dyn Fn(i32, &str) -> Option<u32>) -> Resolution {
    let mut visited = vec![start];
    let mut cur = start;
    let mut hops = 0u32;
    let mut fragment = None;
    loop {
        let t = pages[cur]
            .target
            .as_ref()
            .expect("only redirects are followed");
        hops += 1;
        if t.fragment.is_some() {
            fragment = t.fragment.clone();
        }
        if t.interwiki.is_some() {
            return Resolution::Interwiki { hops };
        }
        match find(t.ns, &t.dbkey) {
            None => {
                return Resolution::Missing {
                    hops,
                    ns: t.ns,
                    dbkey: t.dbkey.clone(),
                };
            }
            Some(next) => {
                let next = next as usize;
                if visited.contains(&next) {
                    return Resolution::Loop { hops };
                }
                if pages[next].target.is_none() {
                    return Resolution::Page {
                        page: next as u32,
                        hops,
                        fragment,
                    };
                }
                visited.push(next);
                cur = next;
            }
        }
    }
}

/// Resolves every redirect's chain and fills the redirect and namespace counts.
fn resolve_redirects(
    pages: &mut [PageOut],
    find: &dyn Fn(i32, &str) -> Option<u32>,
    counts: &mut Counts,
) {
    let resolutions: Vec<Option<Resolution>> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| p.target.as_ref().map(|_| resolve(i, pages, find)))
        .collect();
    for (p, res) in pages.iter_mut().zip(resolutions) {
        *counts.by_namespace.entry(p.rec.ns).or_default() += 1;
        counts.text_bytes += p.rec.len;
        let (Some(t), Some(res)) = (&p.target, res) else {
            continue;
        };
        counts.redirects += 1;
        match &res {
            Resolution::Missing { .. } => counts.broken_redirects += 1,
            Resolution::Loop { .. } => counts.redirect_loops += 1,
            Resolution::Interwiki { .. } => counts.interwiki_redirects += 1,
            Resolution::Page { .. } => {}
        }
        if res.hops() > 1 {
            counts.double_redirects += 1;
        }
        p.rec.redirect = Some(Redirect {
            ns: t.ns,
            dbkey: t.dbkey.clone(),
            fragment: t.fragment.clone(),
            interwiki: t.interwiki.clone(),
            resolution: res,
        });
    }
    counts.pages = pages.len() as u64;
}

/// Builds an index from a dump. `cancel` aborts cleanly (the previous index stays).
pub fn build(
    opts: &BuildOptions,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<BuildReport, BuildError> {
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        opts.threads
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BuildError::Threads {
            threads,
            message: e.to_string(),
        })?;
    pool.install(|| build_in_pool(opts, threads, progress, cancel))
}

fn build_in_pool(
    opts: &BuildOptions,
    threads: usize,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<BuildReport, BuildError> {
    let started = Instant::now();
    let mut timings: Vec<(String, f64)> = Vec::new();
    let mut mark = Instant::now();
    let dump = Dump::open(&opts.dump, opts.multistream_index.as_deref())?;
    let site = dump.siteinfo().clone();
    let codec = TitleCodec::new(&site, opts.interwiki);
    let target_dir = opts
        .index_dir
        .clone()
        .unwrap_or_else(|| Path::new("index").join(sanitize_dirname(&site.dbname)));
    let staging = Staging::begin(&target_dir)?;

    let dir = staging.dir().to_path_buf();
    let parse = !opts.pages_only;
    let with_text = opts.text && parse;
    let mut structures: Option<StoreWriter<PageStructure>> = if parse {
        Some(StoreWriter::create(
            &dir.join(index::files::STRUCTURE),
            index::kinds::STRUCTURE,
        )?)
    } else {
        None
    };
    let mut graph = GraphBuilder::default();
    let mut text_store: Option<StoreWriter<crate::text::PageText>> = if with_text {
        Some(StoreWriter::create(
            &dir.join(index::files::TEXT),
            index::kinds::TEXT,
        )?)
    } else {
        None
    };
    let text_index = if with_text {
        Some(crate::text::search::TextIndexWriter::create(&dir, 256)?)
    } else {
        None
    };
    let maker = text_index.as_ref().map(|w| w.doc_maker());
    let ctx = Ctx {
        path: dump.path(),
        codec: &codec,
        lang: &site.lang,
        docs: maker.as_ref(),
        parse,
    };
    let (sha, read) = std::thread::scope(|s| {
        let hasher = s.spawn(|| sha256_hex(dump.bytes()));
        progress.phase("reading pages", dump.bytes().len() as u64);
        // Reserved exactly once the multistream index (read on its own thread) says how
        // many: grown by doubling, the vector ends up to twice the size it needs
        // (measured: 25 MB less peak RSS on the 183k-page dump).
        let mut pages: Vec<PageOut> = Vec::new();
        let read = dump.pages(
            |raw, loc| to_page(raw, loc, &ctx),
            |mut p| {
                if pages.len() == pages.capacity() {
                    match dump.indexed_pages().map(|n| n as usize) {
                        Some(n) if n > pages.len() => pages.reserve_exact(n - pages.len()),
                        _ => pages.reserve(1),
                    }
                }
                let consumer = |e: IndexError| DumpError::Consumer(Box::new(e));
                if let Some(ts) = text_store.as_mut() {
                    ts.push_encoded(&p.text).map_err(consumer)?;
                }
                if let Some(ti) = text_index.as_ref() {
                    ti.add_docs(pages.len() as u32, std::mem::take(&mut p.docs))
                        .map_err(|e| DumpError::Consumer(Box::new(e)))?;
                }
                p.text = Vec::new();
                if let Some(st) = structures.as_mut() {
                    graph.add_page(
                        std::mem::take(&mut p.link_keys),
                        std::mem::take(&mut p.categories),
                    );
                    st.push_encoded(&p.structure).map_err(consumer)?;
                    p.structure = Vec::new();
                }
                pages.push(p);
                Ok(())
            },
            |done| progress.advance(done),
            cancel,
        );
        progress.finish();
        (
            hasher.join().expect("hashing thread"),
            read.map(|stats| (stats, pages)),
        )
    });
    let (stats, mut pages) = match read {
        Ok(v) => v,
        Err(DumpError::Consumer(e)) => match e.downcast::<IndexError>() {
            Ok(ie) => return Err(BuildError::Index(*ie)),
            Err(other) => match other.downcast::<crate::text::search::SearchError>() {
                Ok(se) => return Err(BuildError::Text(*se)),
                Err(other) => {
                    return Err(BuildError::Dump(DumpError::Internal {
                        message: other.to_string(),
                    }));
                }
            },
        },
        Err(e) => return Err(e.into()),
    };
    timings.push(("read and parse pages".into(), mark.elapsed().as_secs_f64()));
    mark = Instant::now();
    let index_digest = match &opts.multistream_index {
        Some(p) => Some(file_digest(p)?),
        None => None,
    };

    // Title map, with duplicate detection.
    let mut keys: Vec<(Vec<u8>, u64)> = pages
        .iter()
        .enumerate()
        .map(|(i, p)| (index::titles_key(p.rec.ns, &p.rec.dbkey), i as u64))
        .collect();
    rayon::slice::ParallelSliceMut::par_sort_unstable(keys.as_mut_slice());
    for w in keys.windows(2) {
        if w[0].0 == w[1].0 {
            let (a, b) = (&pages[w[0].1 as usize].rec, &pages[w[1].1 as usize].rec);
            return Err(DumpError::DuplicateTitle {
                path: opts.dump.clone(),
                title: codec.prefixed_text(a.ns, &a.dbkey),
                first_id: a.id,
                second_id: b.id,
            }
            .into());
        }
    }
    let find = |ns: i32, dbkey: &str| -> Option<u32> {
        let k = index::titles_key(ns, dbkey);
        keys.binary_search_by(|(key, _)| key.as_slice().cmp(&k))
            .ok()
            .map(|i| keys[i].1 as u32)
    };

    // The title map is built while redirects are resolved and the other stores written.
    let titles_path = dir.join(index::files::TITLES);
    let mut titles_result = None;
    let mut counts = Counts::default();
    let mut files = BTreeMap::new();
    let mut stores_result: Result<Vec<Warning>, IndexError> = Ok(Vec::new());
    // The full-text index's final commit runs on its own thread, alongside the rest.
    let text_commit = text_index.map(|ti| std::thread::spawn(move || ti.finish()));
    rayon::scope(|scope| {
        scope.spawn(|_| titles_result = Some(index::write_titles(&titles_path, &keys)));
        stores_result = (|| {
            resolve_redirects(&mut pages, &find, &mut counts);
            counts.xml_bytes = stats.decompressed_bytes;
            if let Some(st) = structures {
                files.insert(index::files::STRUCTURE.to_string(), st.finish()?);
            }
            let warnings: Vec<Warning> = pages
                .iter_mut()
                .flat_map(|p| std::mem::take(&mut p.warnings))
                .collect();
            let (graph_files, page_files) = rayon::join(
                || -> Result<_, IndexError> {
                    let mut f = BTreeMap::new();
                    let mut c = Counts::default();
                    if parse {
                        graph.write(&dir, &pages, &keys, &mut f, &mut c)?;
                    }
                    Ok((f, c))
                },
                || -> Result<_, IndexError> {
                    let mut w =
                        StoreWriter::create(&dir.join(index::files::PAGES), index::kinds::PAGES)?;
                    for p in &pages {
                        w.push(&p.rec)?;
                    }
                    w.finish()
                },
            );
            let (graph_files, graph_counts) = graph_files?;
            files.extend(graph_files);
            files.insert(index::files::PAGES.to_string(), page_files?);
            counts.links = graph_counts.links;
            counts.red_titles = graph_counts.red_titles;
            counts.categories = graph_counts.categories;
            Ok(warnings)
        })();
    });
    let warnings = stores_result?;
    if let Some(ts) = text_store {
        files.insert(index::files::TEXT.to_string(), ts.finish()?);
    }
    if let Some(handle) = text_commit {
        handle.join().map_err(|_| DumpError::Internal {
            message: "the full-text index thread panicked".into(),
        })??;
        files.insert(
            crate::text::search::DIR.to_string(),
            dir_size(&dir.join(crate::text::search::DIR)),
        );
    }
    let titles_size = titles_result.expect("the title map task ran")?;
    files.insert(index::files::TITLES.to_string(), titles_size);
    counts.warnings = warnings.len() as u64;
    files.insert(
        index::files::WARNINGS.to_string(),
        index::write_warnings(&dir.join(index::files::WARNINGS), &warnings)?,
    );

    let dump_name = opts
        .dump
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    timings.push((
        "resolve redirects, write stores".into(),
        mark.elapsed().as_secs_f64(),
    ));
    let manifest = Manifest {
        format: index::manifest::FORMAT_NAME.to_string(),
        format_version: index::FORMAT_VERSION,
        wikiwit_version: env!("CARGO_PKG_VERSION").to_string(),
        built_at: now_rfc3339(),
        source: SourceInfo {
            path: opts.dump.display().to_string(),
            file_name: dump_name,
            size: dump.bytes().len() as u64,
            sha256: sha,
            format: dump.format(),
            multistream_index: index_digest,
        },
        site,
        build: BuildParams {
            threads,
            interwiki: codec.profile().as_str().to_string(),
            text: with_text,
            pages_only: opts.pages_only,
            seconds: started.elapsed().as_secs_f64(),
            phases: timings,
        },
        counts,
        files,
    };
    manifest.write(&dir)?;
    let dir = staging.commit()?;
    Ok(BuildReport { dir, manifest })
}

/// Total size of the files in `dir` (the text index's tantivy directory).
fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
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
