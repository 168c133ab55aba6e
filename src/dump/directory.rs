//! Reading one page of an indexed multistream dump without a pass over it: what a build
//! needs when a page transcludes an article (`{{:Page}}`, `{{Portal:…/Intro}}`) or a
//! module reads one (`mw.title.new(…):getContent()`), since only templates, modules and
//! messages are read before pages are expanded.
//!
//! The multistream index places every title in a stream group. [`Dump::stream_groups`]
//! hands each (title hash, group) pair to the caller, which keeps them sorted on disk (a
//! table in memory would grow with the dump: 16 bytes a page, 384 MB for enwiki), and
//! returns the groups' byte ranges; a page is read by decoding its group (one bz2 stream
//! of 100 pages on Wikimedia's dumps) and finding its `<title>`.

use std::ops::Range;

use super::error::DumpError;
use super::multistream::title_hash;
use super::{Dump, Plan, RawPage, bz2, pieces, xml};

/// The byte ranges of an indexed multistream dump's stream groups.
#[derive(Debug, Clone)]
pub(crate) struct StreamGroups {
    groups: Vec<Range<usize>>,
}

/// The hash under which [`Dump::stream_groups`] reports a title (prefixed, with spaces,
/// as the dump writes it).
pub(crate) fn dump_title_hash(title: &str) -> u64 {
    title_hash(title)
}

impl StreamGroups {
    /// Reads the page titled `title` from group `group` of `dump` and hands it to `f`;
    /// `Ok(None)` when the group does not hold it whole (a hash collision, or a page cut
    /// across streams of a re-compressed dump).
    pub fn read<R>(
        &self,
        dump: &Dump,
        group: u32,
        title: &str,
        f: impl FnOnce(RawPage<'_>) -> R,
    ) -> Result<Option<R>, DumpError> {
        let Some(range) = self.groups.get(group as usize) else {
            return Ok(None);
        };
        let bytes = bz2::decode_range(&dump.path, &dump.data, range.start, range.end)?;
        let mut found = None;
        let pages = pieces::complete_span(&bytes).map_or(&[][..], |(a, b)| &bytes[a..b]);
        let parsed = xml::parse_pages(pages, |p| {
            if found.is_none() && p.title == title {
                found = Some(p);
            }
            Ok(())
        });
        // A group that does not parse holds no page here; the main pass reports it with
        // its location.
        Ok(parsed.ok().and(found).map(f))
    }
}

impl Dump {
    /// For an indexed multistream dump, hands every page's (title hash, group) to `each`
    /// and returns the groups; `None` for any other dump. Waits for the index, and must
    /// be called before the main pass, which frees the index's entries as it checks them.
    pub(crate) fn stream_groups(
        &self,
        mut each: impl FnMut(u64, u32),
    ) -> Result<Option<StreamGroups>, DumpError> {
        let (Some(load), Plan::Streams(_)) = (&self.index, &self.plan) else {
            return Ok(None);
        };
        let len = self.data.len();
        load.with_index(|ix| {
            let mut groups = Vec::with_capacity(ix.ranges.len());
            for (g, r) in ix.ranges.iter().enumerate() {
                let end = ix.ranges.get(g + 1).map_or(len, |n| n.offset as usize);
                groups.push((r.offset as usize).min(len)..end.min(len));
                for e in &r.entries {
                    each(e.title_hash, g as u32);
                }
            }
            StreamGroups { groups }
        })
    }
}
