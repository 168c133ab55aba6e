//! `dump-offsets.bin`: where pages start in the dump the index was built from, so that a
//! page's wikitext (which the index does not keep) is read from the dump in
//! milliseconds instead of by a pass over all of it (26 GB of bz2 on enwiki).
//!
//! One entry per bz2 stream in which a page starts (Wikimedia's multistream dumps: one
//! per 100 pages, about 240,000 on enwiki, 3 MB), or for uncompressed XML one per page
//! starting at least [`XML_STEP`] bytes after the previous entry's. Entry `k` is (number
//! of the first page starting there, byte offset in the dump file); page `n` is among
//! the pages read from entry `k`'s offset up to entry `k + 1`'s, or up to entry
//! `k + 2`'s when it continues into the next entry's stream (pbzip2-style dumps cut
//! pages across streams). A dump decoded as one sequence (a single bz2 stream) cannot
//! be entered in the middle: its index has no such file.

use std::path::Path;

use crate::dump::{DumpError, OffsetKind, RawPage, read_page_at};

use super::file::{FramedFile, FramedWriter};
use super::{IndexError, files, kinds};

/// Minimum distance between entries in uncompressed XML: a read parses at most about
/// twice this much XML, and enwiki's 118 GB need 460,000 entries (5.5 MB).
pub(crate) const XML_STEP: u64 = 256 << 10;

/// Collects the entries while pages arrive in dump order.
pub(crate) struct DumpOffsetsWriter {
    kind: Option<OffsetKind>,
    pages: Vec<u32>,
    offsets: Vec<u64>,
    /// A page came without a usable position: no file is written.
    unusable: bool,
}

impl DumpOffsetsWriter {
    pub fn new() -> DumpOffsetsWriter {
        DumpOffsetsWriter {
            kind: None,
            pages: Vec::new(),
            offsets: Vec::new(),
            unusable: false,
        }
    }

    /// Page number `n` starts at `at` (`None`: the reader cannot say where).
    pub fn page(&mut self, n: u32, at: Option<(OffsetKind, u64)>) {
        let Some((kind, offset)) = at else {
            self.unusable = true;
            return;
        };
        if *self.kind.get_or_insert(kind) != kind {
            self.unusable = true;
            return;
        }
        let new = match self.offsets.last() {
            None => true,
            Some(&last) => match kind {
                OffsetKind::Bz2Stream => offset > last,
                OffsetKind::Xml => offset >= last.saturating_add(XML_STEP),
            },
        };
        if new {
            self.pages.push(n);
            self.offsets.push(offset);
        }
    }

    /// The entries, to read pages by number while the build runs (`None` when some
    /// page had no position).
    pub fn into_offsets(self) -> Option<DumpOffsets> {
        let kind = self.kind.filter(|_| !self.unusable)?;
        Some(DumpOffsets {
            kind,
            pages: self.pages,
            offsets: self.offsets,
        })
    }

    /// Writes the file into `dir` and returns its size, or `None` (nothing written) when
    /// some page had no position.
    pub fn finish(self, dir: &Path) -> Result<Option<u64>, IndexError> {
        self.into_offsets().map(|o| o.write(dir)).transpose()
    }
}

/// The bytes of the dump to read for one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSpan {
    pub kind: OffsetKind,
    pub start: u64,
    /// The next entry's offset (`None`: the end of the dump).
    pub end: Option<u64>,
    /// The entry's after it, where a page that continues into the next entry's stream
    /// ends.
    pub end_wide: Option<u64>,
}

/// `dump-offsets.bin`, read and checked in full on opening (it is small).
pub struct DumpOffsets {
    kind: OffsetKind,
    pages: Vec<u32>,
    offsets: Vec<u64>,
}

impl DumpOffsets {
    /// The index's offsets, or `None` when the build could not record them.
    pub fn open(dir: &Path) -> Result<Option<DumpOffsets>, IndexError> {
        let path = dir.join(files::DUMP_OFFSETS);
        if !path.exists() {
            return Ok(None);
        }
        let file = FramedFile::open(&path, kinds::DUMP_OFFSETS)?;
        file.verify()?;
        let corrupt = |comment: String| IndexError::DataCorruption {
            path: path.clone(),
            comment,
        };
        let body = file.body();
        let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("4"));
        let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().expect("8"));
        if body.len() < 12 {
            return Err(corrupt("shorter than its header".into()));
        }
        let kind = match u32_at(0) {
            1 => OffsetKind::Xml,
            2 => OffsetKind::Bz2Stream,
            k => return Err(corrupt(format!("unknown offset kind {k}"))),
        };
        let n = u64_at(4);
        if n.checked_mul(12).and_then(|b| b.checked_add(12)) != Some(body.len() as u64) {
            return Err(corrupt(format!("{n} entries in {} bytes", body.len())));
        }
        let n = n as usize;
        let pages: Vec<u32> = (0..n).map(|i| u32_at(12 + 4 * i)).collect();
        let offsets: Vec<u64> = (0..n).map(|i| u64_at(12 + 4 * n + 8 * i)).collect();
        if pages.first().is_some_and(|&p| p != 0)
            || pages.windows(2).any(|w| w[0] >= w[1])
            || offsets.windows(2).any(|w| w[0] >= w[1])
        {
            return Err(corrupt("entries out of order".into()));
        }
        Ok(Some(DumpOffsets {
            kind,
            pages,
            offsets,
        }))
    }

    /// Writes `dump-offsets.bin` into `dir` and returns its size.
    pub(crate) fn write(&self, dir: &Path) -> Result<u64, IndexError> {
        let mut w = FramedWriter::create(&dir.join(files::DUMP_OFFSETS), kinds::DUMP_OFFSETS)?;
        w.write(&(self.kind as u32).to_le_bytes())?;
        w.write(&(self.pages.len() as u64).to_le_bytes())?;
        for page in &self.pages {
            w.write(&page.to_le_bytes())?;
        }
        for offset in &self.offsets {
            w.write(&offset.to_le_bytes())?;
        }
        w.finish()
    }

    /// Reads page number `n` from the dump at `path` (the one these offsets were taken
    /// from): hands the first page of its span that `wanted` accepts to `f`. `Ok(None)`
    /// when the span holds no such page (the dump is not the one indexed).
    pub(crate) fn read_page<R>(
        &self,
        path: &Path,
        n: u32,
        wanted: impl Fn(&RawPage<'_>) -> bool,
        f: impl Fn(RawPage<'_>) -> R,
    ) -> Result<Option<R>, DumpError> {
        let Some(span) = self.span(n) else {
            return Ok(None);
        };
        // The page may continue into the next entry's stream (pbzip2-style dumps).
        let wide = span.end.is_some().then_some(span.end_wide);
        for end in [Some(span.end), wide].into_iter().flatten() {
            if let Some(r) = read_page_at(path, (span.kind, span.start), end, &wanted, &f)? {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// Where to read page number `n`.
    pub fn span(&self, n: u32) -> Option<PageSpan> {
        let k = self.pages.partition_point(|&p| p <= n).checked_sub(1)?;
        Some(PageSpan {
            kind: self.kind,
            start: self.offsets[k],
            end: self.offsets.get(k + 1).copied(),
            end_wide: self.offsets.get(k + 2).copied(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_stream_starts_or_spaced_xml_pages() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = DumpOffsetsWriter::new();
        // Pages 0–2 in the stream at 0, 3 in the stream at 900, 4–5 in the one at 2000.
        for (n, s) in [(0, 0), (1, 0), (2, 0), (3, 900), (4, 2000), (5, 2000)] {
            w.page(n, Some((OffsetKind::Bz2Stream, s)));
        }
        w.finish(dir.path()).unwrap().expect("written");
        let o = DumpOffsets::open(dir.path()).unwrap().expect("present");
        let span = |start, end, end_wide| PageSpan {
            kind: OffsetKind::Bz2Stream,
            start,
            end,
            end_wide,
        };
        assert_eq!(o.span(2), Some(span(0, Some(900), Some(2000))));
        assert_eq!(o.span(3), Some(span(900, Some(2000), None)));
        assert_eq!(o.span(5), Some(span(2000, None, None)));

        let mut w = DumpOffsetsWriter::new();
        for n in 0..10u32 {
            w.page(
                n,
                Some((OffsetKind::Xml, 100 + u64::from(n) * (XML_STEP / 2 - 1))),
            );
        }
        w.finish(dir.path()).unwrap().expect("written");
        let o = DumpOffsets::open(dir.path()).unwrap().expect("present");
        // Pages just under half a step apart: every third starts an entry, the first
        // at least XML_STEP after the previous one.
        assert_eq!(o.pages, [0, 3, 6, 9]);
        assert_eq!(o.span(4).unwrap().start, 100 + 3 * (XML_STEP / 2 - 1));
    }

    #[test]
    fn a_page_without_an_entry_point_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = DumpOffsetsWriter::new();
        w.page(0, Some((OffsetKind::Bz2Stream, 0)));
        w.page(1, None);
        assert_eq!(w.finish(dir.path()).unwrap(), None);
        assert!(DumpOffsets::open(dir.path()).unwrap().is_none());
    }
}
