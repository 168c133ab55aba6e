//! The title map: (namespace, DB key) → page number, as fsts.
//!
//! An fst keeps enwiki's 19 M titles in a few hundred MB on disk, mapped rather than
//! loaded, with exact lookups in microseconds and ordered prefix scans for free.
//!
//! The map is cut into key-ordered shards, each its own fst. Building an fst is serial
//! (about 0.75 s for 184 k titles, the last thing a `--pages-only` build waits for);
//! shards build on every core. Their number depends on the key count alone, so the
//! bytes do not depend on the thread count.

use std::path::Path;

use fst::{IntoStreamer, Map, MapBuilder, Streamer};
use rayon::prelude::*;

use super::IndexError;
use super::file::{FramedFile, FramedWriter};

pub const KIND: u32 = super::kinds::TITLES;

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
pub fn write_kind(
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
pub struct TitleMap {
    file: FramedFile,
    /// Each shard's byte range in the body and its first key (empty for an empty shard).
    shards: Vec<(std::ops::Range<usize>, Vec<u8>)>,
}

impl TitleMap {
    pub fn open(path: &Path) -> Result<TitleMap, IndexError> {
        Self::open_kind(path, KIND)
    }

    pub fn open_kind(path: &Path, kind: u32) -> Result<TitleMap, IndexError> {
        let file = FramedFile::open(path, kind)?;
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
    pub fn get_raw(&self, key: &[u8]) -> Option<u64> {
        self.shard(self.shard_of(key)).get(key)
    }

    /// Keys starting with `prefix`, in order, with their values.
    pub fn prefixed(&self, prefix: &[u8], limit: usize) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::new();
        for i in self.shard_of(prefix)..self.shards.len() {
            let map = self.shard(i);
            let mut stream = map.range().ge(prefix).into_stream();
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
    fn prefix_scan_crosses_shard_boundaries_in_order() {
        let (_dir, map, e) = roundtrip(3 * SHARD_KEYS);
        for prefix in [
            key(0, "Río_00"),
            key(10, "Río_0054"),
            key(14, ""),
            Vec::new(),
        ] {
            let want: Vec<_> = e
                .iter()
                .filter(|(k, _)| k.starts_with(&prefix))
                .cloned()
                .collect();
            assert_eq!(map.prefixed(&prefix, usize::MAX), want);
            assert_eq!(map.prefixed(&prefix, 100), want[..100.min(want.len())]);
        }
        assert!(map.prefixed(&key(0, "X"), 10).is_empty());
    }

    #[test]
    fn an_empty_map_is_one_empty_shard() {
        let (_dir, map, _) = roundtrip(0);
        assert_eq!(map.shards.len(), 1);
        assert_eq!(map.get(0, "Anything"), None);
        assert!(map.prefixed(&[], 10).is_empty());
    }

    #[test]
    fn shard_count_depends_on_keys_only() {
        assert_eq!(shard_count(0), 1);
        assert_eq!(shard_count(SHARD_KEYS * 2 - 1), 1);
        assert_eq!(shard_count(183_780), 11);
        assert_eq!(shard_count(19_000_000), MAX_SHARDS);
    }
}
