//! The title map: (namespace, DB key) → page number, as fsts.
//!
//! An fst keeps enwiki's 19 M titles in a few hundred MB on disk, mapped rather than
//! loaded, with exact lookups in microseconds and ordered prefix scans for free.
//!
//! The map is cut into key-ordered shards, each its own fst. Building an fst is serial
//! (about 0.75 s for 184 k titles, the last thing a `--pages-only` build waits for);
//! shards build on every core. Their number depends on the key count alone, so the
//! bytes do not depend on the thread count.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use fst::{IntoStreamer, Map, MapBuilder, Streamer};
use rayon::prelude::*;

use super::file::{FramedFile, FramedWriter};
use super::{IndexError, varint};

pub(crate) const KIND: u32 = super::kinds::TITLES;

/// A map with fewer keys than this per shard is not cut further: below it the cost of
/// building is too small to matter and lookups stay in one fst.
const SHARD_KEYS: usize = 16_384;
/// Enough shards to keep 16 cores busy; more would only cost lookups a longer search.
const MAX_SHARDS: usize = 16;
/// The fst key: the namespace as a sign-flipped big-endian `u32` (so keys sort by
/// namespace number), then the DB key bytes.
pub fn key(ns: i32, dbkey: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + dbkey.len());
    k.extend_from_slice(&((ns as u32) ^ 0x8000_0000).to_be_bytes());
    k.extend_from_slice(dbkey.as_bytes());
    k
}

/// Builds the title map from `(key, page number)` pairs sorted by key.
pub fn write(path: &Path, entries: &[(Vec<u8>, u64)]) -> Result<u64, IndexError> {
    write_sorted(path, KIND, entries)
}

/// Builds an fst map of any kind (titles, red titles, categories).
pub(crate) fn write_kind(
    path: &Path,
    kind: u32,
    mut entries: Vec<(Vec<u8>, u64)>,
) -> Result<u64, IndexError> {
    entries.par_sort_unstable();
    write_sorted(path, kind, &entries)
}

/// The number of shards for `n` keys: a function of `n` only (determinism).
fn shard_count(n: usize) -> usize {
    (n / SHARD_KEYS).clamp(1, MAX_SHARDS)
}

/// Builds the sharded map from entries already sorted by key.
fn write_sorted(path: &Path, kind: u32, entries: &[(Vec<u8>, u64)]) -> Result<u64, IndexError> {
    let per = entries.len().div_ceil(shard_count(entries.len())).max(1);
    let shards: Vec<Vec<u8>> = if entries.is_empty() {
        vec![build_shard(&[])?]
    } else {
        entries
            .par_chunks(per)
            .map(build_shard)
            .collect::<Result<_, _>>()?
    };
    let mut w = FramedWriter::create(path, kind)?;
    w.write(&(shards.len() as u32).to_le_bytes())?;
    for shard in &shards {
        w.write(&(shard.len() as u64).to_le_bytes())?;
    }
    for shard in &shards {
        w.write(shard)?;
    }
    w.finish()
}

/// Sorted `(key, value)` pairs spooled to a temporary file, for maps too large to hold:
/// enwiki's 24 M titles, its red titles and categories. The keys can be read back in
/// order ([`KeySpool::iter`]) and built into a sharded map ([`KeySpool::write_map`]) with
/// the same bytes [`write`] gives for the same pairs.
pub(crate) struct KeySpool {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    count: u64,
    last: Option<Vec<u8>>,
    /// Byte offset of every [`CHECKPOINT`]-th pair, so a shard's first pair is found
    /// without reading the pairs before it.
    checkpoints: Vec<u64>,
    bytes: u64,
}

/// Pairs between two checkpoints of a [`KeySpool`].
const CHECKPOINT: u64 = 4096;

impl KeySpool {
    pub fn create(path: &Path) -> Result<KeySpool, IndexError> {
        let file = File::create(path).map_err(|e| IndexError::io(path, e))?;
        Ok(KeySpool {
            path: path.to_path_buf(),
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            count: 0,
            last: None,
            checkpoints: Vec::new(),
            bytes: 0,
        })
    }

    /// Appends a pair; keys must come in strictly increasing order.
    pub fn push(&mut self, key: &[u8], value: u64) -> Result<(), IndexError> {
        if self.last.as_deref().is_some_and(|last| last >= key) {
            return Err(IndexError::Encode {
                what: "sorted key spool",
                message: format!("key {key:?} out of order"),
            });
        }
        let out = self.out.as_mut().ok_or_else(|| IndexError::Encode {
            what: "sorted key spool",
            message: "push after close".into(),
        })?;
        if self.count.is_multiple_of(CHECKPOINT) {
            self.checkpoints.push(self.bytes);
        }
        let mut head = Vec::with_capacity(20);
        varint::put(&mut head, key.len() as u64);
        varint::put(&mut head, value);
        for part in [&head[..], key] {
            out.write_all(part)
                .map_err(|e| IndexError::io(&self.path, e))?;
        }
        self.bytes += (head.len() + key.len()) as u64;
        self.count += 1;
        match &mut self.last {
            Some(last) => {
                last.clear();
                last.extend_from_slice(key);
            }
            None => self.last = Some(key.to_vec()),
        }
        Ok(())
    }

    pub fn len(&self) -> u64 {
        self.count
    }

    /// Flushes the file; after this the spool is read, not written.
    pub fn close(&mut self) -> Result<(), IndexError> {
        if let Some(mut out) = self.out.take() {
            out.flush().map_err(|e| IndexError::io(&self.path, e))?;
        }
        Ok(())
    }

    /// The pairs from number `from` on, in order.
    pub(crate) fn iter_from(&self, from: u64) -> Result<SpoolIter, IndexError> {
        let cp = (from / CHECKPOINT) as usize;
        let mut file = File::open(&self.path).map_err(|e| IndexError::io(&self.path, e))?;
        let start = self.checkpoints.get(cp).copied().unwrap_or(self.bytes);
        file.seek(SeekFrom::Start(start))
            .map_err(|e| IndexError::io(&self.path, e))?;
        let mut it = SpoolIter {
            path: self.path.clone(),
            input: BufReader::with_capacity(1 << 16, file),
            left: self.count.saturating_sub(cp as u64 * CHECKPOINT),
        };
        for _ in cp as u64 * CHECKPOINT..from {
            it.next().transpose()?;
        }
        Ok(it)
    }

    pub fn iter(&self) -> Result<SpoolIter, IndexError> {
        self.iter_from(0)
    }

    /// Builds the sharded map of `kind` at `path`: shards are built in parallel into
    /// files under `tmp` and then copied into place.
    pub(crate) fn write_map(&self, path: &Path, kind: u32, tmp: &Path) -> Result<u64, IndexError> {
        let n = self.count as usize;
        let shards = shard_count(n);
        let per = n.div_ceil(shards).max(1) as u64;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let parts: Vec<(PathBuf, u64)> = (0..shards as u64)
            .into_par_iter()
            .map(|s| -> Result<(PathBuf, u64), IndexError> {
                let part = tmp.join(format!("{name}.shard-{s}"));
                let file = File::create(&part).map_err(|e| IndexError::io(&part, e))?;
                let encode = |e: fst::Error| IndexError::Encode {
                    what: "title map",
                    message: e.to_string(),
                };
                let mut builder =
                    MapBuilder::new(BufWriter::with_capacity(1 << 20, file)).map_err(encode)?;
                let from = s * per;
                let to = (from + per).min(self.count);
                for pair in self
                    .iter_from(from)?
                    .take((to.saturating_sub(from)) as usize)
                {
                    let (k, v) = pair?;
                    builder.insert(&k, v).map_err(encode)?;
                }
                builder
                    .into_inner()
                    .map_err(encode)?
                    .flush()
                    .map_err(|e| IndexError::io(&part, e))?;
                let len = std::fs::metadata(&part)
                    .map_err(|e| IndexError::io(&part, e))?
                    .len();
                Ok((part, len))
            })
            .collect::<Result<_, _>>()?;
        let mut w = FramedWriter::create(path, kind)?;
        w.write(&(parts.len() as u32).to_le_bytes())?;
        for (_, len) in &parts {
            w.write(&len.to_le_bytes())?;
        }
        for (part, _) in &parts {
            w.copy_file(part)?;
            let _ = std::fs::remove_file(part);
        }
        w.finish()
    }
}

impl Drop for KeySpool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Reads a [`KeySpool`] back.
pub(crate) struct SpoolIter {
    path: PathBuf,
    input: BufReader<File>,
    left: u64,
}

impl Iterator for SpoolIter {
    type Item = Result<(Vec<u8>, u64), IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut read = || -> std::io::Result<(Vec<u8>, u64)> {
            let len = varint::get(&mut self.input)?;
            let value = varint::get(&mut self.input)?;
            let mut key = vec![0u8; len as usize];
            self.input.read_exact(&mut key)?;
            Ok((key, value))
        };
        Some(read().map_err(|e| IndexError::DataCorruption {
            path: self.path.clone(),
            comment: format!("temporary key spool unreadable: {e}"),
        }))
    }
}

fn build_shard(entries: &[(Vec<u8>, u64)]) -> Result<Vec<u8>, IndexError> {
    let encode = |e: fst::Error| IndexError::Encode {
        what: "title map",
        message: e.to_string(),
    };
    let mut builder = MapBuilder::memory();
    for (k, v) in entries {
        builder.insert(k, *v).map_err(encode)?;
    }
    builder.into_inner().map_err(encode)
}

/// Reads the map.
pub(crate) struct TitleMap {
    file: FramedFile,
    /// Each shard's byte range in the body and its first key (empty for an empty shard).
    shards: Vec<(std::ops::Range<usize>, Vec<u8>)>,
}

impl TitleMap {
    pub fn open(path: &Path) -> Result<TitleMap, IndexError> {
        Self::open_kind(path, KIND)
    }

    /// Opens a map of `kind`, checking the whole file's CRC-32 first: an fst lookup
    /// can touch any byte of its shard and cannot be checked piecewise, and reading a
    /// damaged fst gives wrong pages or a panic. The check reads the map once per
    /// opening, at the speed of `crc32fast`.
    pub(crate) fn open_kind(path: &Path, kind: u32) -> Result<TitleMap, IndexError> {
        let file = FramedFile::open(path, kind)?;
        file.verify()?;
        let corrupt = |comment: String| IndexError::DataCorruption {
            path: path.to_path_buf(),
            comment,
        };
        let body = file.body();
        let count = body
            .get(..4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
            .ok_or_else(|| corrupt("no shard count".into()))?;
        if count == 0 || count > MAX_SHARDS {
            return Err(corrupt(format!("{count} shards")));
        }
        let table_end = 4 + 8 * count;
        let table = body
            .get(4..table_end)
            .ok_or_else(|| corrupt("shard table cut short".into()))?;
        let mut shards = Vec::with_capacity(count);
        let mut at = table_end;
        for len in table.chunks_exact(8) {
            let len = u64::from_le_bytes(len.try_into().expect("8 bytes")) as usize;
            let range = at..at.saturating_add(len);
            let bytes = body
                .get(range.clone())
                .ok_or_else(|| corrupt(format!("shard at byte {at} runs past the end")))?;
            let map = Map::new(bytes).map_err(|e| corrupt(e.to_string()))?;
            let first = map
                .stream()
                .next()
                .map(|(k, _)| k.to_vec())
                .unwrap_or_default();
            shards.push((range.clone(), first));
            at = range.end;
        }
        if at != body.len() {
            return Err(corrupt(format!(
                "shards end at byte {at}, the body at {}",
                body.len()
            )));
        }
        Ok(TitleMap { file, shards })
    }

    fn shard(&self, i: usize) -> Map<&[u8]> {
        Map::new(&self.file.body()[self.shards[i].0.clone()]).expect("validated when opened")
    }

    /// The shard that would hold `key`: the last whose first key is not after it.
    fn shard_of(&self, key: &[u8]) -> usize {
        self.shards
            .partition_point(|(_, first)| first.as_slice() <= key)
            .saturating_sub(1)
    }

    pub fn get(&self, ns: i32, dbkey: &str) -> Option<u64> {
        self.get_raw(&key(ns, dbkey))
    }

    /// Lookup by raw key bytes.
    pub(crate) fn get_raw(&self, key: &[u8]) -> Option<u64> {
        self.shard(self.shard_of(key)).get(key)
    }

    /// Keys from `start` on (inclusive) that start with `prefix`, in order, with their
    /// values: a page through the map, as `list=allpages` walks it.
    pub(crate) fn range_from(
        &self,
        start: &[u8],
        prefix: &[u8],
        limit: usize,
    ) -> Vec<(Vec<u8>, u64)> {
        let start = start.max(prefix);
        let mut out = Vec::new();
        for i in self.shard_of(start)..self.shards.len() {
            let map = self.shard(i);
            let mut stream = map.range().ge(start).into_stream();
            while let Some((k, v)) = stream.next() {
                if !k.starts_with(prefix) || out.len() >= limit {
                    return out;
                }
                out.push((k.to_vec(), v));
            }
        }
        out
    }

    pub fn verify(&self) -> Result<(), IndexError> {
        self.file.verify()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorted `(key, value)` pairs for `n` titles spread over three namespaces, with
    /// shared prefixes that straddle shard boundaries.
    fn entries(n: usize) -> Vec<(Vec<u8>, u64)> {
        let mut e: Vec<(Vec<u8>, u64)> = (0..n)
            .map(|i| {
                let ns = [0, 10, 14][i % 3];
                (key(ns, &format!("Río_{:06}_Ł", i / 3)), i as u64)
            })
            .collect();
        e.sort_unstable();
        e
    }

    fn roundtrip(n: usize) -> (tempfile::TempDir, TitleMap, Vec<(Vec<u8>, u64)>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.fst");
        let e = entries(n);
        write(&path, &e).unwrap();
        let map = TitleMap::open(&path).unwrap();
        (dir, map, e)
    }

    #[test]
    fn sharded_map_finds_every_key_and_nothing_else() {
        let (_dir, map, e) = roundtrip(5 * SHARD_KEYS + 7);
        assert_eq!(map.shards.len(), 5);
        for (k, v) in &e {
            assert_eq!(map.get_raw(k), Some(*v));
        }
        assert_eq!(map.get(0, "Río_000000"), None);
        assert_eq!(map.get(0, "Zzz"), None);
        assert_eq!(map.get(-2, "Río_000000_Ł"), None);
        assert_eq!(map.get(2, "A"), None);
    }

    #[test]
    fn an_empty_map_is_one_empty_shard() {
        let (_dir, map, _) = roundtrip(0);
        assert_eq!(map.shards.len(), 1);
        assert_eq!(map.get(0, "Anything"), None);
    }

    #[test]
    fn a_spooled_map_is_byte_identical_to_one_built_in_memory() {
        for n in [0, 1, 4097, 3 * SHARD_KEYS + 5] {
            let dir = tempfile::tempdir().unwrap();
            let e = entries(n);
            let mem = dir.path().join("mem.fst");
            write(&mem, &e).unwrap();
            let mut spool = KeySpool::create(&dir.path().join("spool")).unwrap();
            for (k, v) in &e {
                spool.push(k, *v).unwrap();
            }
            spool.close().unwrap();
            let spooled = dir.path().join("spooled.fst");
            spool.write_map(&spooled, KIND, dir.path()).unwrap();
            assert!(
                std::fs::read(&mem).unwrap() == std::fs::read(&spooled).unwrap(),
                "{n} keys"
            );
            let back: Vec<_> = spool
                .iter_from(n as u64 / 2)
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(back, e[n / 2..]);
        }
    }

    #[test]
    fn a_spool_refuses_keys_out_of_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut spool = KeySpool::create(&dir.path().join("s")).unwrap();
        spool.push(b"b", 1).unwrap();
        assert!(spool.push(b"b", 2).is_err());
        assert!(spool.push(b"a", 3).is_err());
    }

    #[test]
    fn shard_count_depends_on_keys_only() {
        assert_eq!(shard_count(0), 1);
        assert_eq!(shard_count(SHARD_KEYS * 2 - 1), 1);
        assert_eq!(shard_count(183_780), 11);
        assert_eq!(shard_count(19_000_000), MAX_SHARDS);
    }
}
