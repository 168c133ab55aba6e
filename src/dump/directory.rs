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
use std::path::Path;

use memmap2::Mmap;

use super::error::{DumpError, Location};
use super::multistream::title_hash;
use super::{Dump, Plan, RawPage, bz2, pieces, xml};

/// What a page's entry point into a dump is (see [`Location::entry_point`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetKind {
    /// A byte of uncompressed XML where a `<page>` starts.
    Xml = 1,
    /// The first byte of a bz2 stream.
    Bz2Stream = 2,
}

impl Location {
    /// Where a reader can start to reach the page found here: its `<page>` in plain
    /// XML, its bz2 stream in a dump of many streams; `None` inside a single stream.
    pub fn entry_point(&self) -> Option<(OffsetKind, u64)> {
        match *self {
            Location::Plain { offset } => Some((OffsetKind::Xml, offset)),
            Location::Bz2 { stream_offset, .. } => Some((OffsetKind::Bz2Stream, stream_offset)),
            Location::Decompressed { .. } => None,
        }
    }
}

/// Reads the dump at `path` from byte `start` (an entry point of `kind`) up to `end`
/// (or its end), and hands the first whole page that `wanted` accepts to `f`;
/// `Ok(None)` when there is none. The dump is not opened as a whole (opening scans a
/// bz2 file for its streams: gigabytes for a single page), so this costs one stream or
/// a few hundred KiB of XML.
pub(crate) fn read_page_at<R>(
    path: &Path,
    (kind, start): (OffsetKind, u64),
    end: Option<u64>,
    wanted: impl Fn(&RawPage<'_>) -> bool,
    f: impl FnOnce(RawPage<'_>) -> R,
) -> Result<Option<R>, DumpError> {
    let io_err = |source| DumpError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io_err)?;
    // SAFETY: as in `Dump::open`: the dump is opened read-only and expected not to
    // change (callers compare its size with the one the index recorded).
    let data = unsafe { Mmap::map(&file) }.map_err(io_err)?;
    let len = data.len() as u64;
    let end = end.unwrap_or(len);
    if start >= end || end > len {
        return Ok(None);
    }
    let (start, end) = (start as usize, end as usize);
    let bytes = match kind {
        OffsetKind::Xml => std::borrow::Cow::Borrowed(&data[start..end]),
        OffsetKind::Bz2Stream => {
            if !data[start..].starts_with(b"BZh") {
                return Ok(None);
            }
            std::borrow::Cow::Owned(bz2::decode_range(path, &data, start, end)?)
        }
    };
    Ok(first_page(&bytes, wanted).map(f))
}

/// The first whole page of decoded `bytes` that `wanted` accepts; none when the pages
/// do not parse (a read for one page does not report them: the main pass does, with
/// their location).
fn first_page<'b>(bytes: &'b [u8], wanted: impl Fn(&RawPage<'_>) -> bool) -> Option<RawPage<'b>> {
    let mut found = None;
    let pages = pieces::complete_span(bytes).map_or(&[][..], |(a, b)| &bytes[a..b]);
    let parsed = xml::parse_pages(pages, |p| {
        if found.is_none() && wanted(&p) {
            found = Some(p);
        }
        Ok(())
    });
    parsed.ok().and(found)
}

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
        Ok(first_page(&bytes, |p| p.title == title).map(f))
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
