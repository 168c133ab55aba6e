//! What the table-level checks need from every row, in memory bounded by the budget:
//! each row's key (for uniqueness, check 5) and source page (for provenance, check 11)
//! go to external sorters (`indexer::extsort`), which spill sorted runs to the audit's
//! side directory once they hold their share of `--memory-budget`. After the last row
//! the keys come back ordered by identity, so equal keys meet, first row first: every
//! later row is a duplicate; the duplicates are sorted again, by row, so their findings
//! are written in row order. The sources come back in source order, each with the first
//! row citing it.
//!
//! Both sorters are durable: at a checkpoint they write out what they hold, and the
//! runs named in the checkpoint are all an interrupted audit needs to go on.

use std::collections::HashSet;
use std::io::BufRead;
use std::path::Path;

use crate::index::{IndexError, varint};
use crate::indexer::extsort::{Checkpoint, Item, Sorted, Sorter};

/// A row's key: ordered by identity hash, then row, so that equal keys meet with their
/// first row first.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct KeyItem {
    pub hash: u64,
    pub row: u64,
    pub line: u64,
    /// The row already has a blocking finding of its own.
    pub blocked: bool,
    /// The key as written (` | `-joined), for the finding.
    pub key: Option<Box<str>>,
}

/// A row whose key an earlier row holds: ordered by row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct DupItem {
    pub row: u64,
    pub line: u64,
    pub first_row: u64,
    pub first_line: u64,
    pub blocked: bool,
    pub key: Option<Box<str>>,
}

/// A row's source page: its final page, or the title when it names none. Ordered as
/// the audit always listed sources (pages by number, then titles).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum SourceKey {
    Page(u32),
    Title(Box<str>),
}

/// A row citing a source page: ordered by source, then row.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct SourceItem {
    pub source: SourceKey,
    pub row: u64,
    pub blocked: bool,
}

/// Bytes a boxed string holds on the heap (allocators round up to 16).
fn heap(s: &Option<Box<str>>) -> usize {
    s.as_ref().map_or(0, |k| k.len().div_ceil(16) * 16)
}

fn put_text(out: &mut Vec<u8>, flags: u8, s: &Option<Box<str>>) {
    out.push(flags | if s.is_some() { 2 } else { 0 });
    if let Some(k) = s {
        varint::put(out, k.len() as u64);
        out.extend_from_slice(k.as_bytes());
    }
}

/// Reads what [`put_text`] wrote: the flags (blocked) and the text.
fn get_text(input: &mut impl BufRead) -> std::io::Result<(bool, Option<Box<str>>)> {
    let mut flags = [0u8];
    input.read_exact(&mut flags)?;
    let text = if flags[0] & 2 != 0 {
        let len = varint::get(input)? as usize;
        let mut b = vec![0u8; len];
        input.read_exact(&mut b)?;
        Some(
            String::from_utf8(b)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?
                .into_boxed_str(),
        )
    } else {
        None
    };
    Ok((flags[0] & 1 != 0, text))
}

impl Item for KeyItem {
    fn mem(&self) -> usize {
        heap(&self.key)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hash.to_le_bytes());
        varint::put(out, self.row);
        // A record's line is after its row number (one line at least per record).
        varint::put(out, self.line.saturating_sub(self.row));
        put_text(out, u8::from(self.blocked), &self.key);
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        if input.fill_buf()?.is_empty() {
            return Ok(None);
        }
        let mut h = [0u8; 8];
        input.read_exact(&mut h)?;
        let row = varint::get(input)?;
        let line = row + varint::get(input)?;
        let (blocked, key) = get_text(input)?;
        Ok(Some(KeyItem {
            hash: u64::from_le_bytes(h),
            row,
            line,
            blocked,
            key,
        }))
    }
}

impl Item for DupItem {
    fn mem(&self) -> usize {
        heap(&self.key)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        for v in [self.row, self.line, self.first_row, self.first_line] {
            varint::put(out, v);
        }
        put_text(out, u8::from(self.blocked), &self.key);
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        let Some(row) = varint::get_or_end(input)? else {
            return Ok(None);
        };
        let line = varint::get(input)?;
        let first_row = varint::get(input)?;
        let first_line = varint::get(input)?;
        let (blocked, key) = get_text(input)?;
        Ok(Some(DupItem {
            row,
            line,
            first_row,
            first_line,
            blocked,
            key,
        }))
    }
}

impl Item for SourceItem {
    fn mem(&self) -> usize {
        match &self.source {
            SourceKey::Page(_) => 0,
            SourceKey::Title(t) => t.len().div_ceil(16) * 16,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) {
        varint::put(out, self.row);
        match &self.source {
            SourceKey::Page(p) => {
                out.push(u8::from(self.blocked));
                out.extend_from_slice(&p.to_le_bytes());
            }
            SourceKey::Title(t) => put_text(out, 4 | u8::from(self.blocked), &Some(t.clone())),
        }
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        let Some(row) = varint::get_or_end(input)? else {
            return Ok(None);
        };
        let tag = input.fill_buf()?.first().copied().unwrap_or(0);
        let (blocked, source) = if tag & 4 != 0 {
            let (blocked, t) = get_text(input)?;
            (blocked, SourceKey::Title(t.unwrap_or_default()))
        } else {
            let mut b = [0u8; 5];
            input.read_exact(&mut b)?;
            let page = u32::from_le_bytes(b[1..].try_into().expect("4 bytes"));
            (b[0] & 1 != 0, SourceKey::Page(page))
        };
        Ok(Some(SourceItem {
            source,
            row,
            blocked,
        }))
    }
}

/// Sources already sent to the sorter: rows cite few pages, in runs, so most rows add
/// nothing. Forgotten when full (the sorter keeps each source's earliest row anyway).
const SEEN_MAX: usize = 1 << 16;

/// The rows' summaries, as they are added.
pub(crate) struct Summaries {
    keys: Sorter<KeyItem>,
    sources: Sorter<SourceItem>,
    seen: HashSet<SourceKey>,
}

/// Where the summaries stand at a checkpoint: the runs holding every row's so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct SummariesCheckpoint {
    keys: Checkpoint,
    sources: Checkpoint,
}

impl Summaries {
    /// Summaries spilling to `dir`, in at most about `budget` bytes, holding the rows of
    /// `from` (an empty checkpoint for a new audit).
    pub fn new(dir: &Path, budget: usize, from: &SummariesCheckpoint) -> Summaries {
        Summaries {
            keys: Sorter::resume("keys", dir, budget / 4 * 3, &from.keys),
            sources: Sorter::resume("sources", dir, budget / 4, &from.sources),
            seen: HashSet::new(),
        }
    }

    pub fn add_key(&mut self, k: KeyItem) -> Result<(), IndexError> {
        self.keys.push(k)
    }

    /// A row citing `s.source`; only a source's earliest row matters.
    pub fn add_source(&mut self, s: SourceItem) -> Result<(), IndexError> {
        if self.seen.contains(&s.source) {
            return Ok(());
        }
        if self.seen.len() >= SEEN_MAX {
            self.seen.clear();
        }
        self.seen.insert(s.source.clone());
        self.sources.push(s)
    }

    /// Writes out what the sorters hold; the returned runs hold every row added.
    pub fn checkpoint(&mut self) -> Result<SummariesCheckpoint, IndexError> {
        Ok(SummariesCheckpoint {
            keys: self.keys.checkpoint()?,
            sources: self.sources.checkpoint()?,
        })
    }

    /// Every run file a checkpoint needs (the rest of the directory is not needed).
    pub fn files(c: &SummariesCheckpoint) -> impl Iterator<Item = &str> {
        c.keys
            .runs
            .iter()
            .chain(&c.sources.runs)
            .map(String::as_str)
    }

    /// After the last row: the keys by identity and the sources in order.
    pub fn finish(self) -> Result<(Sorted<KeyItem>, Sorted<SourceItem>), IndexError> {
        Ok((self.keys.finish()?, self.sources.finish()?))
    }
}

/// The duplicates, in row order.
pub(crate) type Duplicates = Sorted<DupItem>;

/// The rows whose key an earlier row holds (`keys` ordered by identity), sorted by row
/// in a sorter of their own (`budget` bytes, spilling to `dir`).
pub(crate) fn duplicates(
    keys: Sorted<KeyItem>,
    dir: &Path,
    budget: usize,
) -> Result<Duplicates, IndexError> {
    let mut dups = Sorter::new("duplicates", dir, budget);
    let mut first: Option<(u64, u64, u64)> = None;
    for k in keys {
        let k = k?;
        match first {
            Some((hash, row, line)) if hash == k.hash => dups.push(DupItem {
                row: k.row,
                line: k.line,
                first_row: row,
                first_line: line,
                blocked: k.blocked,
                key: k.key,
            })?,
            _ => first = Some((k.hash, k.row, k.line)),
        }
    }
    dups.finish()
}

/// Each source once, with its earliest row (`sources` ordered by source, then row).
pub(crate) fn first_citations(
    sources: Sorted<SourceItem>,
) -> impl Iterator<Item = Result<SourceItem, IndexError>> {
    let mut last: Option<SourceKey> = None;
    sources.filter(move |s| match s {
        Ok(s) if last.as_ref() == Some(&s.source) => false,
        Ok(s) => {
            last = Some(s.source.clone());
            true
        }
        Err(_) => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(hash: u64, row: u64, key: Option<&str>) -> KeyItem {
        KeyItem {
            hash,
            row,
            line: row + 1 + hash % 3,
            blocked: row.is_multiple_of(5),
            key: key.map(Into::into),
        }
    }

    /// Duplicates and first citations are the same whether the summaries stayed in
    /// memory or were spilled in many runs, across a checkpoint and a resume.
    #[test]
    fn duplicates_and_first_citations_whatever_the_budget() {
        let rows: Vec<(KeyItem, SourceItem)> = (0..3_000u64)
            .map(|r| {
                let k = key(r * 7 % 1_000, r, (r % 4 != 0).then_some("Nile | 6,650 km"));
                let source = if r.is_multiple_of(9) {
                    SourceKey::Title(format!("Missing {}", r % 13).into())
                } else {
                    SourceKey::Page((r % 17) as u32)
                };
                let s = SourceItem {
                    source,
                    row: r,
                    blocked: r.is_multiple_of(2),
                };
                (k, s)
            })
            .collect();
        let run = |budget: usize| {
            let dir = tempfile::tempdir().unwrap();
            let mut s = Summaries::new(dir.path(), budget, &SummariesCheckpoint::default());
            for (k, src) in &rows[..1_000] {
                s.add_key(k.clone()).unwrap();
                s.add_source(src.clone()).unwrap();
            }
            let cp = s.checkpoint().unwrap();
            drop(s);
            let mut s = Summaries::new(dir.path(), budget, &cp);
            for (k, src) in &rows[1_000..] {
                s.add_key(k.clone()).unwrap();
                s.add_source(src.clone()).unwrap();
            }
            let (keys, sources) = s.finish().unwrap();
            let spilled = keys.spilled;
            let dups: Vec<DupItem> = duplicates(keys, dir.path(), budget)
                .unwrap()
                .map(Result::unwrap)
                .collect();
            let firsts: Vec<SourceItem> = first_citations(sources).map(Result::unwrap).collect();
            (dups, firsts, spilled)
        };
        let (dups, firsts, spilled) = run(1 << 30);
        assert_eq!(spilled, 1, "one run: the checkpoint's");
        // 3,000 rows over 1,000 identities: 2,000 duplicates, in row order, each
        // naming the identity's first row.
        assert_eq!(dups.len(), 2_000);
        assert!(dups.windows(2).all(|w| w[0].row < w[1].row));
        let d = dups.iter().find(|d| d.row == 1_001).unwrap();
        assert_eq!((d.first_row, d.first_line), (1, 3));
        assert_eq!(
            (d.line, d.blocked, d.key.as_deref()),
            (1_003, false, Some("Nile | 6,650 km"))
        );
        assert_eq!(firsts.len(), 17 + 13);
        assert_eq!(firsts[0].source, SourceKey::Page(0));
        assert_eq!(firsts[1].row, 1);
        assert!(matches!(&firsts[29].source, SourceKey::Title(t) if &**t == "Missing 9"));
        let (small_dups, small_firsts, small_spilled) = run(4096);
        assert!(small_spilled > 10, "{small_spilled} runs");
        assert_eq!(small_dups, dups);
        assert_eq!(small_firsts, firsts);
    }
}
