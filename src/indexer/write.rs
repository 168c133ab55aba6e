//! Everything after the last page, for a build and a merge alike: the titles sorted,
//! the title map and the page records with their redirects resolved, beside them the
//! link graph, the stores closed and the full-text index's commit waited for.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;

use super::extsort::{self, Sorter};
use super::redirects::{RedirectSpool, Redirects};
use super::sinks::{RecordStores, Sinks};
use super::{Budget, BuildError, Clock, graph};
use crate::dump::DumpError;
use crate::index::manifest::Counts;
use crate::index::{
    self, IndexError, KeySpool, PageRecord, Resolution, Store, StoreWriter, TitleMap,
    WarningsWriter,
};
use crate::title::TitleCodec;

/// Writes `pages.rec` from the records spooled while reading, with each redirect's
/// resolution filled in, and counts the redirects. Records are re-encoded in parallel a
/// chunk at a time and written in page order; each redirect that ends on a page is
/// handed to `redirects_to` as (target, redirect).
fn write_pages(
    dir: &Path,
    spooled: &Store<PageRecord>,
    redirects: &Redirects,
    counts: &mut Counts,
    mut redirects_to: Option<&mut Sorter<u64>>,
) -> Result<u64, IndexError> {
    const CHUNK: usize = 1 << 14;
    let mut w =
        StoreWriter::<PageRecord>::create(&dir.join(index::files::PAGES), index::kinds::PAGES)?;
    for start in (0..spooled.len()).step_by(CHUNK) {
        let end = (start + CHUNK).min(spooled.len());
        let chunk = (start..end)
            .into_par_iter()
            .map(|i| -> Result<_, IndexError> {
                let mut rec = spooled.get(i)?;
                rec.redirect = match redirects.ordinal(i as u32) {
                    Some(k) => Some(redirects.redirect(k)?),
                    None => None,
                };
                Ok((index::encode(&rec)?, rec.redirect.map(|r| r.resolution)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        for (i, (bytes, resolution)) in (start..end).zip(chunk) {
            w.push_encoded(&bytes)?;
            let Some(res) = resolution else { continue };
            counts.redirects += 1;
            match res {
                Resolution::Missing { .. } => counts.broken_redirects += 1,
                Resolution::Loop { .. } => counts.redirect_loops += 1,
                Resolution::Interwiki { .. } => counts.interwiki_redirects += 1,
                Resolution::Page { page, .. } => {
                    if let Some(pairs) = redirects_to.as_deref_mut() {
                        pairs.push(extsort::pair(page, i as u32))?;
                    }
                }
            }
            if res.hops() > 1 {
                counts.double_redirects += 1;
            }
        }
    }
    w.finish()
}

/// The full-text index's final commit, on a thread of its own so that it runs alongside
/// the write phase.
fn spawn_text_commit(
    ti: crate::text::search::TextIndexWriter,
) -> std::thread::JoinHandle<Result<TextCrcs, crate::text::search::SearchError>> {
    std::thread::spawn(move || {
        index::fault::point("text-commit");
        let done = ti.finish();
        index::fault::point("text-commit");
        done
    })
}

/// What the title-map side of the write phase produced: the sizes of `titles.fst` and
/// `pages.rec`, the redirect-target adjacency, and the redirect counts.
type PagesSide = (u64, u64, Option<graph::PairsWritten>, Counts);

/// The title map, then the redirects resolved against it and the final page records
/// (with `redirects-to` beside them when the pages are parsed).
fn pages_side(
    dir: &Path,
    tmp: &Path,
    title_keys: &KeySpool,
    redirect_spool: RedirectSpool,
    pages_tmp: &Store<PageRecord>,
    budget: &Budget,
    parse: bool,
) -> Result<PagesSide, IndexError> {
    let titles_path = dir.join(index::files::TITLES);
    let titles_size = title_keys.write_map(&titles_path, index::kinds::TITLES, tmp)?;
    let title_map = TitleMap::open(&titles_path)?;
    let redirects = redirect_spool.resolve_with(&title_map)?;
    let mut redirects_to = parse.then(|| Sorter::new("redirects-to", tmp, budget.share(0.1)));
    let mut c = Counts::default();
    let pages_size = write_pages(dir, pages_tmp, &redirects, &mut c, redirects_to.as_mut())?;
    let redirects_to = match redirects_to {
        Some(pairs) => Some(graph::write_pairs(
            pairs,
            &dir.join(index::files::REDIRECTS_TO),
            index::kinds::REDIRECTS_TO,
            pages_tmp.len() as u64,
            tmp,
        )?),
        None => None,
    };
    Ok((titles_size, pages_size, redirects_to, c))
}

/// The full-text index's commit, run on a thread of its own.
type TextCommit = std::thread::Result<Result<TextCrcs, crate::text::search::SearchError>>;

/// The CRC-32 of each file of the full-text index, by path relative to the index,
/// computed as the commit wrote its chunk table.
pub(super) type TextCrcs = BTreeMap<String, u32>;

/// The stores still open at the end of the write phase, and the full-text index's commit.
type OpenStores = (RecordStores, Option<TextCommit>);

/// Closes the write phase: its two sides' files, sort runs and counts recorded, the
/// structure, text and warnings stores closed, the full-text index's commit waited for.
fn close_outputs(
    (pages, graph): (PagesSide, Option<graph::GraphOut>),
    (stores, text_done): OpenStores,
    (warnings, offsets): (WarningsWriter, Option<index::DumpOffsetsWriter>),
    dir: &Path,
    files: &mut BTreeMap<String, u64>,
    spills: &mut BTreeMap<String, u64>,
    counts: &mut Counts,
) -> Result<TextCrcs, BuildError> {
    let (titles_size, pages_size, redirects_to, c) = pages;
    files.insert(index::files::TITLES.to_string(), titles_size);
    files.insert(index::files::PAGES.to_string(), pages_size);
    if let Some(w) = redirects_to {
        files.insert(index::files::REDIRECTS_TO.to_string(), w.size);
        spills.insert("redirects-to".to_string(), w.spilled);
    }
    counts.redirects = c.redirects;
    counts.broken_redirects = c.broken_redirects;
    counts.redirect_loops = c.redirect_loops;
    counts.interwiki_redirects = c.interwiki_redirects;
    counts.double_redirects = c.double_redirects;
    if let Some(g) = graph {
        files.extend(g.files);
        spills.extend(g.spills);
        counts.links = g.links;
        counts.red_titles = g.red_titles;
        counts.categories = g.categories;
    }
    stores.finish(files)?;
    let mut text_crcs = TextCrcs::new();
    if let Some(joined) = text_done {
        text_crcs = joined.map_err(|_| DumpError::Internal {
            message: "the full-text index thread panicked".into(),
        })??;
        record_text_dir(dir, files);
    }
    if let Some(size) = offsets.map(|o| o.finish(dir)).transpose()?.flatten() {
        files.insert(index::files::DUMP_OFFSETS.to_string(), size);
    }
    let (warning_count, warnings_size) = warnings.finish()?;
    counts.warnings = warning_count;
    files.insert(index::files::WARNINGS.to_string(), warnings_size);
    Ok(text_crcs)
}

/// Where the write phase writes, and the options it reads.
pub(super) struct WriteEnv<'a> {
    pub(super) dir: &'a Path,
    pub(super) tmp: &'a Path,
    pub(super) budget: &'a Budget,
    pub(super) codec: &'a TitleCodec,
    /// `--strict`, and the dump its error names.
    pub(super) strict: (bool, &'a Path),
    pub(super) parse: bool,
}

/// Everything after the last page, for a build and a merge alike: the titles sorted;
/// the title map, then the redirects resolved over it and the page records, beside them
/// the link graph; the stores closed and the full-text index committed. Returns the
/// counts, the sort runs and the full-text index's checksums.
pub(super) fn write_phase(
    env: &WriteEnv<'_>,
    sinks: Sinks,
    text_index: Option<crate::text::search::TextIndexWriter>,
    xml_bytes: u64,
    clock: &mut Clock,
    files: &mut BTreeMap<String, u64>,
) -> Result<(Counts, BTreeMap<String, u64>, TextCrcs), BuildError> {
    let rest = sinks.sort_titles(env.tmp, env.strict, env.codec, xml_bytes)?;
    // The full-text index's final commit runs on its own thread, alongside the rest
    // (started only now: an error above must not leave it writing into the staging
    // directory being removed).
    let text_commit = text_index.map(spawn_text_commit);
    clock.lap("sort titles");
    // The title map, then redirects and pages; beside them, the link graph.
    let (pages_side, graph_side) = rayon::join(
        || {
            pages_side(
                env.dir,
                env.tmp,
                &rest.title_keys,
                rest.redirect_spool,
                &rest.pages_tmp,
                env.budget,
                env.parse,
            )
        },
        || {
            rest.graph
                .map(|g| {
                    g.write(
                        env.dir,
                        env.tmp,
                        &rest.title_keys,
                        rest.counts.pages,
                        env.budget,
                    )
                })
                .transpose()
        },
    );
    // Joined before any error is returned: the thread writes into the staging directory.
    let text_done = text_commit.map(|handle| handle.join());
    let (mut counts, mut spills) = (rest.counts, rest.spills);
    let stores = (rest.stores, text_done);
    let sides = (pages_side?, graph_side?);
    let text_crcs = close_outputs(
        sides,
        stores,
        (rest.warnings, rest.offsets),
        env.dir,
        files,
        &mut spills,
        &mut counts,
    )?;
    drop(rest.title_keys);
    drop(rest.pages_tmp);
    Ok((counts, spills, text_crcs))
}

/// Records the full-text index among `files` (of the index or shard in `dir`) by its
/// files' total size, once it is complete.
pub(super) fn record_text_dir(dir: &Path, files: &mut BTreeMap<String, u64>) {
    let text = crate::text::search::DIR;
    files.insert(text.to_string(), dir_size(&dir.join(text)));
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
