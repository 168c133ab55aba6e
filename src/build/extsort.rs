//! External sorting: the build's only way to bring data gathered page by page into key
//! order without holding all of it.
//!
//! Full English Wikipedia has ≈ 24 M titles and 500 M+ links; the build needs them sorted
//! by title (to resolve link targets and build the title map) and by page number (to write
//! adjacency lists). A sorter buffers items up to its share of `--memory-budget`, sorts
//! the buffer and writes it out as a *run*; at the end the runs are merged. Runs are
//! merged at most [`FAN_IN`] at a time (more passes when there are more runs) so open
//! files and read buffers stay bounded too.
//!
//! The output depends only on the multiset of items pushed, never on where the budget
//! cut the runs, so the index is byte-identical whatever the budget.
//!
//! Written here rather than taken from a crate: the `extsort` crate sorts a pull
//! iterator with a fixed item *count* per segment and merges every segment at once; the
//! build pushes items from its page consumer, needs a byte budget shared by several
//! sorters, and needs bounded fan-in for enwiki-sized inputs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::slice::ParallelSliceMut;

use crate::index::IndexError;

/// Runs merged at once. Each open run costs one read buffer ([`READ_BUF`]).
pub(super) const FAN_IN: usize = 64;
const READ_BUF: usize = 64 << 10;
const WRITE_BUF: usize = 1 << 20;
/// A sorter never spills runs smaller than this, whatever the budget (a tiny budget is
/// for tests; runs of a few items would only multiply files).
const MIN_RUN_BYTES: usize = 256;

/// An item a sorter can hold: ordered, with a size estimate and a run-file encoding.
pub(super) trait Item: Ord + Send + Sized {
    /// Bytes this item holds in memory (its heap part included).
    fn mem(&self) -> usize;
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads one item; `Ok(None)` at a clean end of the run.
    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>>;
}

/// A title-map key (or category name) with a number: a link target and its source page,
/// a title and its page. Orders by key, then number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct KeyVal {
    pub key: Box<[u8]>,
    pub val: u32,
}

impl Item for KeyVal {
    fn mem(&self) -> usize {
        // The box and number, plus the key's heap block (allocators round up to 16).
        24 + self.key.len().div_ceil(16) * 16
    }

    fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.key.len() as u64);
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&self.val.to_le_bytes());
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        let Some(len) = get_varint(input)? else {
            return Ok(None);
        };
        let mut key = vec![0u8; len as usize];
        input.read_exact(&mut key)?;
        let mut val = [0u8; 4];
        input.read_exact(&mut val)?;
        Ok(Some(KeyVal {
            key: key.into_boxed_slice(),
            val: u32::from_le_bytes(val),
        }))
    }
}

/// A pair of page numbers packed as `a << 32 | b`, so that sorting orders by `a`, then `b`.
impl Item for u64 {
    fn mem(&self) -> usize {
        8
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        let mut b = [0u8; 8];
        match read_or_end(input, &mut b)? {
            true => Ok(Some(u64::from_le_bytes(b))),
            false => Ok(None),
        }
    }
}

/// Packs two page numbers so that `u64` order is (a, b) order.
pub(super) fn pair(a: u32, b: u32) -> u64 {
    (a as u64) << 32 | b as u64
}

/// Unpacks [`pair`].
pub(super) fn unpair(x: u64) -> (u32, u32) {
    ((x >> 32) as u32, x as u32)
}

/// Fills `buf` exactly; `Ok(false)` when the input ended before its first byte.
fn read_or_end(input: &mut impl BufRead, buf: &mut [u8]) -> std::io::Result<bool> {
    if input.fill_buf()?.is_empty() {
        return Ok(false);
    }
    input.read_exact(buf)?;
    Ok(true)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(input: &mut impl BufRead) -> std::io::Result<Option<u64>> {
    let mut v = 0u64;
    let mut b = [0u8; 1];
    for shift in (0..64).step_by(7) {
        if !read_or_end(input, &mut b)? {
            if shift == 0 {
                return Ok(None);
            }
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        v |= u64::from(b[0] & 0x7f) << shift;
        if b[0] < 0x80 {
            return Ok(Some(v));
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "varint longer than 10 bytes",
    ))
}

/// Buffers items up to a byte budget, spilling sorted runs to `dir`.
pub(super) struct Sorter<T: Item> {
    name: &'static str,
    dir: PathBuf,
    budget: usize,
    buf: Vec<T>,
    used: usize,
    runs: Vec<PathBuf>,
    /// Runs written in total (merge passes included), for the build report.
    spilled: u64,
    next_file: u64,
}

impl<T: Item> Sorter<T> {
    /// A sorter named `name` (its run files are `<name>-N.run` in `dir`) that spills once
    /// its items hold `budget` bytes.
    pub fn new(name: &'static str, dir: &Path, budget: usize) -> Sorter<T> {
        Sorter {
            name,
            dir: dir.to_path_buf(),
            budget: budget.max(MIN_RUN_BYTES),
            buf: Vec::new(),
            used: 0,
            runs: Vec::new(),
            spilled: 0,
            next_file: 0,
        }
    }

    pub fn push(&mut self, item: T) -> Result<(), IndexError> {
        // The vector's own slot counts too: growth by doubling can hold twice the items.
        self.used += item.mem() + std::mem::size_of::<T>();
        self.buf.push(item);
        if self.used >= self.budget {
            self.spill()?;
        }
        Ok(())
    }

    fn run_path(&mut self) -> PathBuf {
        self.next_file += 1;
        self.dir
            .join(format!("{}-{}.run", self.name, self.next_file))
    }

    /// Sorts the buffer and writes it as a run.
    fn spill(&mut self) -> Result<(), IndexError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut items = std::mem::take(&mut self.buf);
        self.used = 0;
        items.par_sort_unstable();
        let path = self.run_path();
        write_run(&path, items.into_iter().map(Ok))?;
        self.runs.push(path);
        self.spilled += 1;
        Ok(())
    }

    /// Ends the input: the items in order. Without any run spilled the buffer is sorted
    /// in memory and nothing touches the disk; otherwise the rest of the buffer is spilled
    /// too (so merging holds no buffer) and runs are merged [`FAN_IN`] at a time.
    pub fn finish(mut self) -> Result<Sorted<T>, IndexError> {
        if self.runs.is_empty() {
            let mut items = std::mem::take(&mut self.buf);
            items.par_sort_unstable();
            return Ok(Sorted {
                inner: Inner::Memory(items.into_iter()),
                spilled: 0,
                _runs: RunFiles(Vec::new()),
            });
        }
        self.spill()?;
        self.buf = Vec::new();
        while self.runs.len() > FAN_IN {
            let group: Vec<PathBuf> = self.runs.drain(..FAN_IN).collect();
            let merged = Merge::<T>::open(&group)?;
            let path = self.run_path();
            write_run(&path, merged)?;
            for p in &group {
                let _ = std::fs::remove_file(p);
            }
            self.runs.push(path);
            self.spilled += 1;
        }
        let runs = std::mem::take(&mut self.runs);
        Ok(Sorted {
            inner: Inner::Merge(Merge::open(&runs)?),
            spilled: self.spilled,
            _runs: RunFiles(runs),
        })
    }
}

impl<T: Item> Drop for Sorter<T> {
    fn drop(&mut self) {
        for p in &self.runs {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn write_run<T: Item>(
    path: &Path,
    items: impl Iterator<Item = Result<T, IndexError>>,
) -> Result<(), IndexError> {
    let file = File::create(path).map_err(|e| IndexError::io(path, e))?;
    let mut out = BufWriter::with_capacity(WRITE_BUF, file);
    let mut bytes = Vec::with_capacity(64);
    for item in items {
        bytes.clear();
        item?.encode(&mut bytes);
        out.write_all(&bytes).map_err(|e| IndexError::io(path, e))?;
    }
    out.flush().map_err(|e| IndexError::io(path, e))
}

/// Run files removed when the merge reading them is dropped.
struct RunFiles(Vec<PathBuf>);

impl Drop for RunFiles {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The sorted items of a finished [`Sorter`].
pub(super) struct Sorted<T: Item> {
    inner: Inner<T>,
    /// Runs written to disk (0: sorted in memory).
    pub spilled: u64,
    _runs: RunFiles,
}

enum Inner<T: Item> {
    Memory(std::vec::IntoIter<T>),
    Merge(Merge<T>),
}

impl<T: Item> Iterator for Sorted<T> {
    type Item = Result<T, IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            Inner::Memory(it) => it.next().map(Ok),
            Inner::Merge(m) => m.next(),
        }
    }
}

/// A k-way merge of sorted run files.
struct Merge<T: Item> {
    readers: Vec<(PathBuf, BufReader<File>)>,
    heap: BinaryHeap<Reverse<(T, usize)>>,
    failed: bool,
}

impl<T: Item> Merge<T> {
    fn open(paths: &[PathBuf]) -> Result<Merge<T>, IndexError> {
        let mut m = Merge {
            readers: Vec::with_capacity(paths.len()),
            heap: BinaryHeap::with_capacity(paths.len()),
            failed: false,
        };
        for (i, p) in paths.iter().enumerate() {
            let f = File::open(p).map_err(|e| IndexError::io(p, e))?;
            m.readers
                .push((p.clone(), BufReader::with_capacity(READ_BUF, f)));
            if let Some(item) = m.read(i)? {
                m.heap.push(Reverse((item, i)));
            }
        }
        Ok(m)
    }

    fn read(&mut self, i: usize) -> Result<Option<T>, IndexError> {
        let (path, r) = &mut self.readers[i];
        T::decode(r).map_err(|e| IndexError::DataCorruption {
            path: path.clone(),
            comment: format!("temporary sort run unreadable: {e}"),
        })
    }
}

impl<T: Item> Iterator for Merge<T> {
    type Item = Result<T, IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let Reverse((item, i)) = self.heap.pop()?;
        match self.read(i) {
            Ok(Some(next)) => self.heap.push(Reverse((next, i))),
            Ok(None) => {}
            Err(e) => {
                self.failed = true;
                return Some(Err(e));
            }
        }
        Some(Ok(item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random sequence (xorshift), so tests need no RNG crate.
    fn numbers(n: usize, seed: u64) -> Vec<u64> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect()
    }

    fn keyvals(n: usize) -> Vec<KeyVal> {
        numbers(n, 7)
            .into_iter()
            .map(|x| KeyVal {
                // Keys of 0–6 bytes sharing prefixes, so that length decides some orders.
                key: format!("{:08x}", x % 1_000_003).as_bytes()[..(x % 7) as usize].into(),
                val: (x >> 40) as u32,
            })
            .collect()
    }

    fn sort_with<T: Item + Clone>(items: &[T], budget: usize) -> (Vec<T>, u64) {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Sorter::new("t", dir.path(), budget);
        for it in items {
            s.push(it.clone()).unwrap();
        }
        let sorted = s.finish().unwrap();
        let spilled = sorted.spilled;
        let out: Vec<T> = sorted.map(|r| r.unwrap()).collect();
        // Every run file is gone once the output is consumed and dropped.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        (out, spilled)
    }

    #[test]
    fn spilled_and_in_memory_sorts_agree() {
        let items = keyvals(20_000);
        let mut want = items.clone();
        want.sort();
        let (mem, spilled) = sort_with(&items, usize::MAX);
        assert_eq!(spilled, 0);
        assert_eq!(mem, want);
        // Small runs: more than FAN_IN of them, so the merge takes two passes.
        let (disk, spilled) = sort_with(&items, 4096);
        assert!(spilled > FAN_IN as u64 + 1, "{spilled} runs");
        assert_eq!(disk, want);
    }

    #[test]
    fn packed_pairs_sort_by_first_then_second() {
        let items: Vec<u64> = numbers(5_000, 3)
            .into_iter()
            .map(|x| pair((x % 97) as u32, (x >> 32) as u32))
            .collect();
        let (out, spilled) = sort_with(&items, 1024);
        assert!(spilled > 10);
        let pairs: Vec<(u32, u32)> = out.into_iter().map(unpair).collect();
        let mut want: Vec<(u32, u32)> = items.into_iter().map(unpair).collect();
        want.sort();
        assert_eq!(pairs, want);
    }

    #[test]
    fn a_damaged_run_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Sorter::new("bad", dir.path(), 256);
        for it in keyvals(200) {
            s.push(it).unwrap();
        }
        // Cut the first run in the middle of an item.
        let run = dir.path().join("bad-1.run");
        let len = std::fs::metadata(&run).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&run)
            .unwrap()
            .set_len(len - 3)
            .unwrap();
        let err = s
            .finish()
            .and_then(|sorted| sorted.collect::<Result<Vec<_>, _>>())
            .unwrap_err();
        assert!(err.to_string().contains("bad-1.run"), "{err}");
    }
}
