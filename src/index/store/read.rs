//! Reading a block store: by number through a small cache of decoded blocks, or in order
//! decoding each block once.
//!
//! Nothing read from the file is trusted: offsets, counts and compressed bytes are
//! checked before use, and anything out of place is a [`IndexError::DataCorruption`]
//! naming the file and the record or block, never a panic.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::de::DeserializeOwned;

use super::super::IndexError;
use super::super::file::{FramedFile, HEADER_LEN};
use super::{Codec, ENTRY_LEN, TRAILER_LEN};

/// Decoded blocks kept per store, direct-mapped by block number. Queries read a page's
/// neighbours (redirects next to their target, pages of one list) and several threads
/// share one index, so slots behind their own locks catch repeats without making readers
/// wait on one another. Batch work over many pages spends most of its time decoding
/// blocks otherwise: the frontier evaluation of 1,000 OTT-QA questions took 7.5 s of CPU
/// with 16 slots, 4.0 s with 64 and 3.7 s with 256 (128 KiB text blocks). 256 slots hold
/// at most 32 MiB of text and 16 MiB of structure (more only while a record larger than a
/// block is cached), allocated only as blocks are read.
const CACHE_SLOTS: usize = 256;

type Slot = Mutex<Option<(usize, Arc<Vec<u8>>)>>;

thread_local! {
    /// One zstd decompression context per thread, reused rather than allocated for each
    /// block read.
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Reads records by number.
pub struct Store<T> {
    file: FramedFile,
    records: usize,
    pub(super) blocks: usize,
    /// Offset (within the body) of the block table: the end of the blocks.
    pub(super) table: usize,
    codec: Codec,
    cache: [Slot; CACHE_SLOTS],
    /// One bit per block whose checksum was found right (see [`Store::check`]).
    checked: Box<[AtomicU64]>,
    _t: PhantomData<fn() -> T>,
}

/// Where one block is and which records it holds, read from the block table and checked.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlockInfo {
    pub(super) number: usize,
    /// Byte range of the (compressed) block within the body.
    pub(super) start: usize,
    pub(super) end: usize,
    /// Its first record and how many it holds.
    pub(super) first: usize,
    pub(super) count: usize,
    /// Length once decompressed: `count` `u32` ends, then the records.
    pub(super) raw_len: usize,
    /// CRC-32 of the block as stored.
    pub(super) crc: u32,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

impl<T: DeserializeOwned> Store<T> {
    pub fn open(path: &Path, kind: u32) -> Result<Store<T>, IndexError> {
        let file = FramedFile::open(path, kind)?;
        let body = file.body();
        let corrupt = |comment: String| IndexError::DataCorruption {
            path: path.to_path_buf(),
            comment,
        };
        if body.len() < TRAILER_LEN {
            return Err(corrupt("record store without counts".into()));
        }
        let trailer = body.len() - TRAILER_LEN;
        let records = u64_at(body, trailer);
        let blocks = u64_at(body, trailer + 8);
        let codec_id = u32_at(body, trailer + 16);
        let codec = Codec::from_u32(codec_id)
            .ok_or_else(|| corrupt(format!("unknown block codec {codec_id}")))?;
        let table_len = blocks
            .checked_mul(ENTRY_LEN as u64)
            .filter(|&n| n <= trailer as u64)
            .ok_or_else(|| corrupt(format!("{blocks} blocks: more than the file holds")))?;
        if blocks > records || (records > 0 && blocks == 0) {
            return Err(corrupt(format!("{records} records in {blocks} blocks")));
        }
        let table = trailer - table_len as usize;
        let (stored, actual) = (
            u32_at(body, trailer + 20),
            crc32fast::hash(&body[table..trailer]),
        );
        if stored != actual {
            return Err(corrupt(format!(
                "the block table (bytes {}..{}) has CRC-32 {actual:08x}, not the {stored:08x} it was written with",
                HEADER_LEN + table,
                HEADER_LEN + trailer
            )));
        }
        let store = Store {
            records: records as usize,
            blocks: blocks as usize,
            table,
            codec,
            cache: std::array::from_fn(|_| Mutex::new(None)),
            checked: (0..(blocks as usize).div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            file,
            _t: PhantomData,
        };
        if store.blocks > 0 {
            let last = store.block(store.blocks - 1)?;
            if last.end != store.table || store.first(0) != 0 {
                return Err(corrupt(format!(
                    "the blocks end at {} and start with record {}, the table is at {}",
                    last.end,
                    store.first(0),
                    store.table
                )));
            }
        }
        Ok(store)
    }

    pub fn len(&self) -> usize {
        self.records
    }

    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Decodes record `i`. Panics if `i >= len()` (callers hold valid numbers).
    pub fn get(&self, i: usize) -> Result<T, IndexError> {
        assert!(i < self.records, "record {i} of {}", self.records);
        let b = self.block_of(i)?;
        match self.codec {
            Codec::Stored => self.decode(self.record(self.stored(&b)?, &b, i)?, i),
            Codec::Zstd => {
                let raw = self.cached(&b)?;
                self.decode(self.record(&raw, &b, i)?, i)
            }
        }
    }

    /// Every record in order, each block decoded once (and without evicting the blocks
    /// other readers have cached). A record that does not decode is an error and the walk
    /// goes on; a damaged block or block table is an error that ends it.
    pub fn iter(&self) -> Records<'_, T> {
        Records {
            store: self,
            next: 0,
            block: None,
        }
    }

    pub fn verify(&self) -> Result<(), IndexError> {
        self.file.verify()
    }

    pub(super) fn corrupt(&self, comment: String) -> IndexError {
        IndexError::DataCorruption {
            path: self.file.path().to_path_buf(),
            comment,
        }
    }

    /// Block `j`'s first record, unchecked (for the binary search; [`Store::block`]
    /// checks it).
    pub(super) fn first(&self, j: usize) -> u64 {
        u64_at(self.file.body(), self.table + j * ENTRY_LEN + 8)
    }

    /// Block `j` (`< blocks`) from the table, checked against its neighbours.
    pub(super) fn block(&self, j: usize) -> Result<BlockInfo, IndexError> {
        let body = self.file.body();
        let at = self.table + j * ENTRY_LEN;
        let end = u64_at(body, at);
        let start = if j == 0 {
            0
        } else {
            u64_at(body, at - ENTRY_LEN)
        };
        let first = self.first(j);
        let next = if j + 1 < self.blocks {
            self.first(j + 1)
        } else {
            self.records as u64
        };
        let raw_len = u64_at(body, at + 16);
        let ok = start <= end
            && end <= self.table as u64
            && first < next
            && next <= self.records as u64
            && (next - first).checked_mul(4).is_some_and(|n| n <= raw_len)
            && (self.codec != Codec::Stored || raw_len == end - start);
        if !ok {
            return Err(self.corrupt(format!(
                "block {j}: bytes {start}..{end}, records {first}..{next}, {raw_len} bytes raw"
            )));
        }
        Ok(BlockInfo {
            number: j,
            start: start as usize,
            end: end as usize,
            first: first as usize,
            count: (next - first) as usize,
            raw_len: raw_len as usize,
            crc: u32_at(body, at + 24),
        })
    }

    /// Checks block `b` against its CRC-32 the first time any reader touches it: once per
    /// block and store, so a damaged block is an error naming where it is rather than
    /// records decoded from wrong bytes.
    fn check(&self, b: &BlockInfo) -> Result<(), IndexError> {
        let (word, bit) = (&self.checked[b.number / 64], 1u64 << (b.number % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let actual = crc32fast::hash(&self.file.body()[b.start..b.end]);
        if actual != b.crc {
            return Err(self.corrupt(format!(
                "block {} (records {}..{}, bytes {}..{} of the file) has CRC-32 {actual:08x}, not the {:08x} it was written with",
                b.number,
                b.first,
                b.first + b.count,
                HEADER_LEN + b.start,
                HEADER_LEN + b.end,
                b.crc
            )));
        }
        word.fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// The block holding record `i` (`< records`): the last whose first record is not
    /// after `i`.
    pub(super) fn block_of(&self, i: usize) -> Result<BlockInfo, IndexError> {
        let (mut lo, mut hi) = (0, self.blocks);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.first(mid) <= i as u64 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let b = self.block(lo)?;
        if i < b.first || i >= b.first + b.count {
            return Err(self.corrupt(format!(
                "record {i} is not in block {lo} (records {}..{})",
                b.first,
                b.first + b.count
            )));
        }
        Ok(b)
    }

    /// Block `b`'s bytes as stored (compressed or not), in place, checked.
    pub(super) fn stored(&self, b: &BlockInfo) -> Result<&[u8], IndexError> {
        self.check(b)?;
        Ok(&self.file.body()[b.start..b.end])
    }

    /// Block `b` decompressed, from the cache when a reader decoded it recently.
    fn cached(&self, b: &BlockInfo) -> Result<Arc<Vec<u8>>, IndexError> {
        let slot = &self.cache[b.number % CACHE_SLOTS];
        if let Some((n, raw)) = &*slot.lock().unwrap_or_else(PoisonError::into_inner)
            && *n == b.number
        {
            return Ok(raw.clone());
        }
        let raw = Arc::new(self.decompress(b)?);
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some((b.number, raw.clone()));
        Ok(raw)
    }

    /// Block `b` checked and decompressed, checked to have the length the table gives.
    fn decompress(&self, b: &BlockInfo) -> Result<Vec<u8>, IndexError> {
        self.check(b)?;
        let packed = &self.file.body()[b.start..b.end];
        let raw = DCTX.with(|cell| {
            let mut cell = cell.borrow_mut();
            let dctx = match &mut *cell {
                Some(d) => d,
                None => cell.insert(zstd::bulk::Decompressor::new()?),
            };
            dctx.decompress(packed, b.raw_len)
        });
        match raw {
            Ok(raw) if raw.len() == b.raw_len => Ok(raw),
            Ok(raw) => Err(format!(
                "{} bytes where {} were expected",
                raw.len(),
                b.raw_len
            )),
            Err(e) => Err(e.to_string()),
        }
        .map_err(|e| {
            self.corrupt(format!(
                "block {} (records {}..{}) does not decompress: {e}",
                b.number,
                b.first,
                b.first + b.count
            ))
        })
    }

    /// Block `b`'s raw bytes (its record ends, then its records), checked: in place
    /// when the store is not compressed.
    pub(super) fn raw(&self, b: &BlockInfo) -> Result<std::borrow::Cow<'_, [u8]>, IndexError> {
        match self.codec {
            Codec::Stored => self.stored(b).map(std::borrow::Cow::Borrowed),
            Codec::Zstd => self.decompress(b).map(std::borrow::Cow::Owned),
        }
    }

    /// Record `i`'s bytes within its decoded block `raw`.
    pub(super) fn record<'r>(
        &self,
        raw: &'r [u8],
        b: &BlockInfo,
        i: usize,
    ) -> Result<&'r [u8], IndexError> {
        let k = i - b.first;
        let end_of = |r: usize| {
            u32::from_le_bytes(raw[r * 4..r * 4 + 4].try_into().expect("4 bytes")) as usize
        };
        let data = b.count * 4;
        let start = if k == 0 { 0 } else { end_of(k - 1) };
        let end = end_of(k);
        if start > end || end > raw.len() - data {
            return Err(self.corrupt(format!(
                "record {i} has offsets {start}..{end} in block {} of {} bytes",
                b.number,
                raw.len()
            )));
        }
        Ok(&raw[data + start..data + end])
    }

    fn decode(&self, bytes: &[u8], i: usize) -> Result<T, IndexError> {
        postcard::from_bytes(bytes).map_err(|e| self.corrupt(format!("record {i}: {e}")))
    }
}

/// Records in order: see [`Store::iter`].
pub struct Records<'a, T> {
    store: &'a Store<T>,
    next: usize,
    /// The block holding the records being read, decompressed (empty when the store
    /// is not compressed: those blocks are read in place).
    block: Option<(BlockInfo, Vec<u8>)>,
}

impl<T: DeserializeOwned> Records<'_, T> {
    fn read(&mut self, i: usize) -> Result<T, IndexError> {
        let store = self.store;
        let (b, raw) = match self.block.take() {
            Some((b, raw)) if i < b.first + b.count => (b, raw),
            previous => {
                let j = previous.map_or(0, |(b, _)| b.number + 1);
                let b = store.block(j)?;
                if b.first != i {
                    return Err(
                        store.corrupt(format!("block {j} starts at record {}, not {i}", b.first))
                    );
                }
                let raw = match store.codec {
                    Codec::Stored => {
                        store.check(&b)?;
                        Vec::new()
                    }
                    Codec::Zstd => store.decompress(&b)?,
                };
                (b, raw)
            }
        };
        let record = match store.codec {
            Codec::Stored => store
                .stored(&b)
                .and_then(|block| store.record(block, &b, i)),
            Codec::Zstd => store.record(&raw, &b, i),
        }
        .and_then(|bytes| store.decode(bytes, i));
        self.block = Some((b, raw));
        record
    }
}

impl<T: DeserializeOwned> Iterator for Records<'_, T> {
    type Item = Result<T, IndexError>;

    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        if i >= self.store.records {
            return None;
        }
        let record = self.read(i);
        // `read` keeps the block unless the block itself was at fault.
        self.next = if self.block.is_some() {
            i + 1
        } else {
            self.store.records
        };
        Some(record)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.store.records - self.next;
        (left, Some(left))
    }
}

impl<T: DeserializeOwned> ExactSizeIterator for Records<'_, T> {}
