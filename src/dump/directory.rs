//! Reading one page of an indexed multistream dump without a pass over it: what a build
//! needs when a page transcludes an article (`{{:Page}}`, `{{Portal:…/Intro}}`) or a
//! module reads one (`mw.title.new(…):getContent()`), since only templates, modules and
//! messages are read before pages are expanded.
//!
//! The multistream index places every title in a stream group; the directory keeps
//! (title hash, group) pairs sorted by hash — 16 bytes a page, 384 MB for enwiki's
//! 24 M pages — and a page is read by decoding its group (one bz2 stream of 100 pages
//! on Wikimedia's dumps) and finding the title in it. The hash only chooses the group:
//! the page returned is the one whose `<title>` is the title asked for.

use std::ops::Range;

use super::error::DumpError;
use super::multistream::{MultistreamIndex, title_hash};
use super::{Dump, Plan, RawPage, bz2, xml};

/// Where each page of an indexed multistream dump is, by title.
#[derive(Debug, Clone)]
pub(crate) struct StreamDirectory {
    /// (hash of the title as the dump writes it, group), sorted.
    by_hash: Vec<(u64, u32)>,
    /// Each group's compressed byte range.
    groups: Vec<Range<usize>>,
}

impl StreamDirectory {
    pub(super) fn new(ix: &MultistreamIndex, dump_len: usize) -> StreamDirectory {
        let mut by_hash = Vec::with_capacity(ix.pages as usize);
        let mut groups = Vec::with_capacity(ix.ranges.len());
        for (g, r) in ix.ranges.iter().enumerate() {
            let end = ix.ranges.get(g + 1).map_or(dump_len, |n| n.offset as usize);
            groups.push((r.offset as usize).min(dump_len)..end.min(dump_len));
            by_hash.extend(r.entries.iter().map(|e| (e.title_hash, g as u32)));
        }
        by_hash.sort_unstable();
        by_hash.dedup();
        StreamDirectory { by_hash, groups }
    }

    /// The groups listing a title with this hash (one, barring a hash collision).
    fn groups_of(&self, title: &str) -> impl Iterator<Item = u32> + '_ {
        let h = title_hash(title);
        let start = self.by_hash.partition_point(|&(x, _)| x < h);
        self.by_hash[start..]
            .iter()
            .take_while(move |&&(x, _)| x == h)
            .map(|&(_, g)| g)
    }

    /// Whether the index lists `title` (as the dump writes titles: prefixed, spaces).
    /// Decided from the hash alone: a false positive needs two of the dump's titles
    /// to share 64 bits of hash.
    pub fn contains(&self, title: &str) -> bool {
        self.groups_of(title).next().is_some()
    }

    /// Reads the page titled `title` from `dump` and hands it to `f`; `Ok(None)` when
    /// the index does not list it or its group does not hold it whole (a page cut
    /// across streams of a re-compressed dump).
    pub fn read<R>(
        &self,
        dump: &Dump,
        title: &str,
        f: impl FnOnce(RawPage<'_>) -> R,
    ) -> Result<Option<R>, DumpError> {
        for g in self.groups_of(title) {
            let range = self.groups[g as usize].clone();
            let bytes = bz2::decode_range(&dump.path, &dump.data, range.start, range.end)?;
            let mut found = None;
            let parsed = xml::parse_pages(complete_pages(&bytes), |p| {
                if found.is_none() && p.title == title {
                    found = Some(p);
                }
                Ok(())
            });
            if parsed.is_err() {
                // The main pass reports the stream with its location; here it holds
                // no page.
                continue;
            }
            if let Some(p) = found {
                return Ok(Some(f(p)));
            }
        }
        Ok(None)
    }
}

/// The part of decoded stream bytes from the first `<page>` to the last `</page>`.
fn complete_pages(bytes: &[u8]) -> &[u8] {
    const OPEN: &[u8] = b"<page>";
    const CLOSE: &[u8] = b"</page>";
    let first = memchr::memmem::find(bytes, OPEN);
    let last = memchr::memmem::rfind(bytes, CLOSE).map(|e| e + CLOSE.len());
    match (first, last) {
        (Some(a), Some(b)) if b > a => &bytes[a..b],
        _ => &[],
    }
}

impl Dump {
    /// The directory of an indexed multistream dump's pages; `None` for any other
    /// dump. Waits for the index, and must be called before the main pass, which frees
    /// the index's entries as it checks them.
    pub(crate) fn stream_directory(&self) -> Result<Option<StreamDirectory>, DumpError> {
        match (&self.index, &self.plan) {
            (Some(load), Plan::Streams(_)) => {
                let len = self.data.len();
                Ok(load.with_index(|ix| StreamDirectory::new(ix, len))?)
            }
            _ => Ok(None),
        }
    }
}
