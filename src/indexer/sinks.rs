//! Where the reading phase puts each page as it passes, in dump order, and how that
//! phase closes: the page records reopened for reading and every title sorted.

use std::collections::BTreeMap;
use std::path::Path;

use super::costs::CostTotals;
use super::extsort::{KeyVal, Sorter};
use super::graph::GraphBuilder;
use super::page::PageOut;
use super::redirects::RedirectSpool;
use super::title_keys::title_map_keys;
use super::{Budget, BuildError};
use crate::dump::DumpError;
use crate::index::manifest::Counts;
use crate::index::{self, IndexError, KeySpool, PageRecord, Store, StoreWriter, WarningsWriter};
use crate::title::TitleCodec;

/// The spool of page records, in the build's temporary directory, written before the
/// redirects are resolved.
const PAGES_TMP: &str = "pages.tmp";

/// Where the reading phase puts each page as it passes, in dump order: page records
/// without their redirect resolution (patched in once all titles are known), every title,
/// every redirect target, the structure and text stores and the link graph's spools.
/// Each leaves memory as its page passes.
pub(super) struct Sinks {
    pub(super) stores: RecordStores,
    pub(super) graph: Option<GraphBuilder>,
    pub(super) pages_tmp: StoreWriter<PageRecord>,
    pub(super) titles: Sorter<KeyVal>,
    pub(super) redirect_spool: RedirectSpool,
    pub(super) warnings: WarningsWriter,
    /// The entry points, unless the first pass noted them already.
    pub(super) offsets: Option<index::DumpOffsetsWriter>,
    pub(super) counts: Counts,
    /// What the pages' template and module calls cost (when pages are expanded).
    pub(super) costs: Option<CostTotals>,
    /// The next page's number.
    pub(super) n: u32,
}

/// Which of `structure.rec` and `text.rec` the sinks write as pages pass: a build
/// writes both (as its options say), a merge neither (it joins the shards' stores).
#[derive(Debug, Clone, Copy)]
pub(super) struct Stores {
    pub(super) structure: bool,
    pub(super) text: bool,
}

/// The pages' `structure.rec` and `text.rec` records, written in dump order as the
/// workers encoded them: by a build's sinks and by a shard (whose stores the merge
/// joins, so both must write them alike).
pub(super) struct RecordStores {
    structure: Option<StoreWriter<index::StoredStructure>>,
    text: Option<StoreWriter<index::StoredText>>,
}

impl RecordStores {
    /// Creates in `dir` the stores `which` names.
    pub(super) fn create(dir: &Path, which: Stores) -> Result<RecordStores, IndexError> {
        let (structure, text) = (index::files::STRUCTURE, index::files::TEXT);
        Ok(RecordStores {
            structure: which
                .structure
                .then(|| StoreWriter::create(&dir.join(structure), index::kinds::STRUCTURE))
                .transpose()?,
            text: which
                .text
                .then(|| StoreWriter::create(&dir.join(text), index::kinds::TEXT))
                .transpose()?,
        })
    }

    /// Appends one page's records (each only to a store being written).
    pub(super) fn push(&mut self, structure: &[u8], text: &[u8]) -> Result<(), IndexError> {
        if let Some(w) = self.structure.as_mut() {
            w.push_encoded(structure)?;
        }
        if let Some(w) = self.text.as_mut() {
            w.push_encoded(text)?;
        }
        Ok(())
    }

    /// Closes the stores, their sizes recorded in `files`.
    pub(super) fn finish(self, files: &mut BTreeMap<String, u64>) -> Result<(), IndexError> {
        if let Some(w) = self.structure {
            files.insert(index::files::STRUCTURE.to_string(), w.finish()?);
        }
        if let Some(w) = self.text {
            files.insert(index::files::TEXT.to_string(), w.finish()?);
        }
        Ok(())
    }
}

impl Sinks {
    pub(super) fn create(
        dir: &Path,
        tmp: &Path,
        budget: &Budget,
        parse: bool,
        stores: Stores,
        entry_points: bool,
        expand: bool,
    ) -> Result<Sinks, BuildError> {
        Ok(Sinks {
            stores: RecordStores::create(dir, stores)?,
            graph: parse.then(|| GraphBuilder::new(tmp, budget)),
            pages_tmp: StoreWriter::create(&tmp.join(PAGES_TMP), index::kinds::PAGES)?,
            titles: Sorter::new("titles", tmp, budget.share(0.15)),
            redirect_spool: RedirectSpool::create(tmp)?,
            warnings: WarningsWriter::create(&dir.join(index::files::WARNINGS))?,
            offsets: entry_points.then(index::DumpOffsetsWriter::new),
            counts: Counts::default(),
            costs: expand.then(CostTotals::default),
            n: 0,
        })
    }

    /// Takes the next page in dump order.
    pub(super) fn consume(
        &mut self,
        mut p: PageOut,
        text_index: Option<&crate::text::search::TextIndexWriter>,
    ) -> Result<(), DumpError> {
        index::fault::point("read");
        let consumer = |e: IndexError| DumpError::Consumer(Box::new(e));
        let n = self.n;
        // Page numbers are u32 everywhere; u32::MAX is the "missing" marker.
        if n == u32::MAX - 1 {
            return Err(DumpError::Internal {
                message: format!("more than {} pages", u32::MAX - 1),
            });
        }
        self.stores.push(&p.structure, &p.text).map_err(consumer)?;
        if let Some(ti) = text_index {
            index::fault::point("text");
            ti.add_docs(n, std::mem::take(&mut p.docs))
                .map_err(|e| DumpError::Consumer(Box::new(e)))?;
        }
        if let Some(g) = self.graph.as_mut() {
            g.add_page(
                n,
                std::mem::take(&mut p.link_keys),
                std::mem::take(&mut p.categories),
            )
            .map_err(consumer)?;
        }
        self.titles
            .push(KeyVal {
                key: index::titles_key(p.rec.ns, &p.rec.dbkey).into_boxed_slice(),
                val: n,
            })
            .map_err(consumer)?;
        if let Some(t) = &p.target {
            self.redirect_spool.push(n, t).map_err(consumer)?;
        }
        for w in &p.warnings {
            self.warnings.push(w).map_err(consumer)?;
        }
        if let Some(c) = self.costs.as_mut() {
            c.add_page(&p.costs);
        }
        *self.counts.by_namespace.entry(p.rec.ns).or_default() += 1;
        self.counts.text_bytes += p.rec.len;
        self.pages_tmp.push(&p.rec).map_err(consumer)?;
        if let Some(offsets) = self.offsets.as_mut() {
            offsets.page(n, p.entry);
        }
        self.n += 1;
        Ok(())
    }
}

/// What the write phase starts from once the titles are sorted: the stores still open,
/// the spools, and the page records and title keys to resolve redirects against.
pub(super) struct Sorted {
    pub(super) stores: RecordStores,
    pub(super) graph: Option<GraphBuilder>,
    pub(super) redirect_spool: RedirectSpool,
    pub(super) warnings: WarningsWriter,
    pub(super) offsets: Option<index::DumpOffsetsWriter>,
    pub(super) counts: Counts,
    pub(super) pages_tmp: Store<PageRecord>,
    pub(super) title_keys: KeySpool,
    pub(super) spills: BTreeMap<String, u64>,
}

impl Sinks {
    /// Closes the reading phase: the page records are reopened for reading and every
    /// title sorted, with duplicate detection.
    pub(super) fn sort_titles(
        self,
        tmp: &Path,
        strict: (bool, &Path),
        codec: &TitleCodec,
        xml_bytes: u64,
    ) -> Result<Sorted, BuildError> {
        let Sinks {
            stores,
            graph,
            pages_tmp,
            titles,
            redirect_spool,
            mut warnings,
            offsets,
            mut counts,
            ..
        } = self;
        counts.pages = pages_tmp.len() as u64;
        counts.xml_bytes = xml_bytes;
        pages_tmp.finish()?;
        let pages_tmp: Store<PageRecord> = Store::open(&tmp.join(PAGES_TMP), index::kinds::PAGES)?;
        let mut spills = BTreeMap::new();
        let sorted_titles = titles.finish()?;
        spills.insert("titles".to_string(), sorted_titles.spilled);
        let title_keys = title_map_keys(
            sorted_titles,
            tmp,
            &pages_tmp,
            strict,
            codec,
            &mut warnings,
            &mut counts,
        )?;
        Ok(Sorted {
            stores,
            graph,
            redirect_spool,
            warnings,
            offsets,
            counts,
            pages_tmp,
            title_keys,
            spills,
        })
    }
}
