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
//!
//! The auditor sorts its per-row summaries with the same sorter, and resumes an audit a
//! kill interrupted: a *durable* sorter leaves its runs to its owner (they outlive the
//! process), and [`Sorter::checkpoint`] writes out what it holds and says which runs make
//! up everything pushed so far, so that [`Sorter::resume`] can take over from there.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use rayon::slice::ParallelSliceMut;

use crate::index::{IndexError, varint};

/// Runs merged at once. Each open run costs one read buffer ([`READ_BUF`]).
pub(crate) const FAN_IN: usize = 64;
const READ_BUF: usize = 64 << 10;
const WRITE_BUF: usize = 1 << 20;
/// A sorter never spills runs smaller than this, whatever the budget (a tiny budget is
/// for tests; runs of a few items would only multiply files).
const MIN_RUN_BYTES: usize = 256;

/// An item a sorter can hold: ordered, with a size estimate and a run-file encoding.
pub(crate) trait Item: Ord + Send + Sized {
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
        varint::put(out, self.key.len() as u64);
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&self.val.to_le_bytes());
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        let Some(len) = varint::get_or_end(input)? else {
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

/// A title hash and where its page is (`index::articles::Directory`).
impl Item for (u64, u32) {
    fn mem(&self) -> usize {
        16
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }

    fn decode(input: &mut impl BufRead) -> std::io::Result<Option<Self>> {
        let mut b = [0u8; 12];
        match read_or_end(input, &mut b)? {
            true => Ok(Some((
                u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
                u32::from_le_bytes(b[8..].try_into().expect("4 bytes")),
            ))),
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

/// Buffers items up to a byte budget, spilling sorted runs to `dir`.
///
/// A full buffer is sorted and written on a thread of its own while the next one fills,
/// so the page consumer does not stall (which idles the parse workers once their window
/// is full); each of the two buffers gets half the budget.
pub(crate) struct Sorter<T: Item + 'static> {
    name: &'static str,
    dir: PathBuf,
    /// Bytes one buffer may hold.
    limit: usize,
    buf: Vec<T>,
    used: usize,
    runs: Vec<PathBuf>,
    /// The run being written in the background.
    writing: Option<JoinHandle<Result<(), IndexError>>>,
    /// Runs written in total (merge passes included), for the build report.
    spilled: u64,
    next_file: u64,
    /// Durable: the runs belong to the owner, which removes them (never the sorter, not
    /// even after merging them), so a checkpoint's runs survive everything that follows.
    durable: bool,
}

/// What a durable sorter holds after [`Sorter::checkpoint`]: its runs (file names in its
/// directory, in the order they were written) and the number its next run file takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Checkpoint {
    pub runs: Vec<String>,
    pub next_file: u64,
}

impl<T: Item + 'static> Sorter<T> {
    /// A sorter named `name` (its run files are `<name>-N.run` in `dir`) whose items
    /// hold at most about `budget` bytes.
    pub fn new(name: &'static str, dir: &Path, budget: usize) -> Sorter<T> {
        Sorter {
            name,
            dir: dir.to_path_buf(),
            limit: (budget / 2).max(MIN_RUN_BYTES),
            buf: Vec::new(),
            used: 0,
            runs: Vec::new(),
            writing: None,
            spilled: 0,
            next_file: 0,
            durable: false,
        }
    }

    /// A durable sorter (see [`Checkpoint`]) starting from `from`'s runs, which must be
    /// files of `dir`.
    pub fn resume(name: &'static str, dir: &Path, budget: usize, from: &Checkpoint) -> Sorter<T> {
        let mut s = Sorter::new(name, dir, budget);
        s.durable = true;
        s.runs = from.runs.iter().map(|r| dir.join(r)).collect();
        s.spilled = s.runs.len() as u64;
        s.next_file = from.next_file;
        s
    }

    /// Writes out every item pushed so far (a run of its own, however few they are) and
    /// waits until it is on disk: from here the returned runs hold all of them. Only a
    /// durable sorter's runs outlive it.
    pub fn checkpoint(&mut self) -> Result<Checkpoint, IndexError> {
        if !self.buf.is_empty() {
            self.spill()?;
        }
        self.wait()?;
        let runs = self
            .runs
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
            .collect();
        Ok(Checkpoint {
            runs,
            next_file: self.next_file,
        })
    }

    pub fn push(&mut self, item: T) -> Result<(), IndexError> {
        // The vector's own slot counts too: growth by doubling can hold twice the items.
        self.used += item.mem() + std::mem::size_of::<T>();
        self.buf.push(item);
        if self.used >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    fn run_path(&mut self) -> PathBuf {
        self.next_file += 1;
        self.dir
            .join(format!("{}-{}.run", self.name, self.next_file))
    }

    /// Waits for the run being written, if any.
    fn wait(&mut self) -> Result<(), IndexError> {
        match self.writing.take() {
            None => Ok(()),
            Some(h) => h.join().unwrap_or_else(|_| {
                Err(IndexError::Encode {
                    what: "sort run",
                    message: format!("the thread writing a {} run panicked", self.name),
                })
            }),
        }
    }

    /// Hands the buffer to a thread that sorts it and writes it as a run.
    fn spill(&mut self) -> Result<(), IndexError> {
        self.wait()?;
        // The next buffer fills as far as this one did: sized at once, not by doubling.
        let capacity = self.buf.len();
        let mut items = std::mem::replace(&mut self.buf, Vec::with_capacity(capacity));
        self.used = 0;
        let path = self.run_path();
        let file = path.clone();
        let handle = std::thread::Builder::new()
            .name(format!("wikiwit-sort-{}", self.name))
            .spawn(move || {
                items.sort_unstable();
                write_run(&file, items.into_iter().map(Ok))
            })
            .map_err(|e| IndexError::io(&path, e))?;
        self.runs.push(path);
        self.writing = Some(handle);
        self.spilled += 1;
        Ok(())
    }

    /// Ends the input: the items in order. Without any run spilled the buffer is sorted
    /// in memory and nothing touches the disk; otherwise runs are merged [`FAN_IN`] at a
    /// time, the rest of the buffer (sorted in memory) taking part in the last merge.
    pub fn finish(mut self) -> Result<Sorted<T>, IndexError> {
        self.wait()?;
        let mut rest = std::mem::take(&mut self.buf);
        rest.par_sort_unstable();
        while self.runs.len() >= FAN_IN {
            let group: Vec<PathBuf> = self.runs.drain(..FAN_IN).collect();
            let merged = Merge::<T>::open(&group, Vec::new())?;
            let path = self.run_path();
            self.runs.push(path.clone());
            write_run(&path, merged)?;
            if !self.durable {
                for p in &group {
                    let _ = std::fs::remove_file(p);
                }
            }
            self.spilled += 1;
        }
        let runs = std::mem::take(&mut self.runs);
        let inner = if runs.is_empty() {
            Inner::Memory(rest.into_iter())
        } else {
            Inner::Merge(Merge::open(&runs, rest)?)
        };
        Ok(Sorted {
            inner,
            spilled: self.spilled,
            _runs: RunFiles(if self.durable { Vec::new() } else { runs }),
        })
    }
}

impl<T: Item + 'static> Drop for Sorter<T> {
    fn drop(&mut self) {
        // The writing thread must be done before its file is removed, or the file
        // would be created after the removal and outlive the build.
        let _ = self.wait();
        if !self.durable {
            for p in &self.runs {
                let _ = std::fs::remove_file(p);
            }
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
pub(crate) struct Sorted<T: Item> {
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

/// A k-way merge of sorted run files and, optionally, sorted items still in memory.
struct Merge<T: Item> {
    readers: Vec<(PathBuf, BufReader<File>)>,
    memory: std::vec::IntoIter<T>,
    heap: BinaryHeap<Reverse<(T, usize)>>,
    failed: bool,
}

impl<T: Item> Merge<T> {
    fn open(paths: &[PathBuf], memory: Vec<T>) -> Result<Merge<T>, IndexError> {
        let mut m = Merge {
            readers: Vec::with_capacity(paths.len()),
            memory: memory.into_iter(),
            heap: BinaryHeap::with_capacity(paths.len() + 1),
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
        let n = m.readers.len();
        if let Some(item) = m.read(n)? {
            m.heap.push(Reverse((item, n)));
        }
        Ok(m)
    }

    /// The next item of source `i` (`readers.len()` is the memory source).
    fn read(&mut self, i: usize) -> Result<Option<T>, IndexError> {
        let Some((path, r)) = self.readers.get_mut(i) else {
            return Ok(self.memory.next());
        };
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

    fn sort_with<T: Item + Clone + 'static>(items: &[T], budget: usize) -> (Vec<T>, u64) {
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

    /// A durable sorter stopped after a checkpoint (its later pushes lost, as when the
    /// process is killed) and resumed from it sorts what was pushed before the checkpoint
    /// and after the resume, at any budget; its runs stay until the owner removes them.
    #[test]
    fn a_durable_sorter_resumes_from_its_checkpoint() {
        let items = keyvals(6_000);
        let mut want: Vec<KeyVal> = items[..2_000]
            .iter()
            .chain(&items[4_000..])
            .cloned()
            .collect();
        want.sort();
        for budget in [1024, usize::MAX] {
            let dir = tempfile::tempdir().unwrap();
            let mut s = Sorter::resume("d", dir.path(), budget, &Checkpoint::default());
            for it in &items[..2_000] {
                s.push(it.clone()).unwrap();
            }
            let cp = s.checkpoint().unwrap();
            assert!(!cp.runs.is_empty());
            // Pushed after the checkpoint, then lost with the process.
            for it in &items[2_000..4_000] {
                s.push(it.clone()).unwrap();
            }
            drop(s);
            let on_disk = std::fs::read_dir(dir.path()).unwrap().count();
            assert!(on_disk >= cp.runs.len());
            for e in std::fs::read_dir(dir.path()).unwrap() {
                let e = e.unwrap();
                if !cp
                    .runs
                    .iter()
                    .any(|r| *r == e.file_name().to_string_lossy())
                {
                    std::fs::remove_file(e.path()).unwrap();
                }
            }
            let mut s = Sorter::resume("d", dir.path(), budget, &cp);
            for it in &items[4_000..] {
                s.push(it.clone()).unwrap();
            }
            let out: Vec<KeyVal> = s.finish().unwrap().map(|r| r.unwrap()).collect();
            assert_eq!(out, want, "budget {budget}");
            // The checkpoint's runs are still there for the owner to remove.
            for r in &cp.runs {
                assert!(dir.path().join(r).exists(), "{r}");
            }
        }
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
