//! A CRC-32 per 64 KiB chunk of a file: computed as the file is written, checked the first
//! time a reader touches a chunk.
//!
//! Readers of memory-mapped files (the index's adjacency files, the full-text index's
//! files) read a few bytes at a time from anywhere; checking the whole file's CRC on every
//! opening would read it all. With a checksum per chunk a read checks at most the chunks
//! it touches, once per opening. The index (`index::file`) and the full-text index
//! (`text::checked`) keep their tables in different places but share this.

use std::fmt;
use std::io::{self, Read};
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes per checksum: a random read checks at most a chunk more than it reads (tens of
/// microseconds), and a table costs 4 bytes per 64 KiB.
pub const CHUNK: usize = 64 << 10;

/// The CRC-32 of each [`CHUNK`] of a stream of bytes, as they go by.
#[derive(Default)]
pub struct ChunkHasher {
    crcs: Vec<u32>,
    current: crc32fast::Hasher,
    filled: usize,
}

impl ChunkHasher {
    pub fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let n = bytes.len().min(CHUNK - self.filled);
            self.current.update(&bytes[..n]);
            self.filled += n;
            bytes = &bytes[n..];
            if self.filled == CHUNK {
                self.close();
            }
        }
    }

    fn close(&mut self) {
        let done = std::mem::take(&mut self.current);
        self.crcs.push(done.finalize());
        self.filled = 0;
    }

    /// The checksums, the last (shorter) chunk's included: ⌈bytes / [`CHUNK`]⌉ of them.
    pub fn finish(mut self) -> Vec<u32> {
        if self.filled > 0 {
            self.close();
        }
        self.crcs
    }
}

/// Where a [`read_through`] failed: reading the file, or writing what it read (a copy).
pub enum CopyError {
    Read(io::Error),
    Write(io::Error),
}

impl CopyError {
    /// The error, for a caller whose sink cannot fail or who names no file.
    pub fn into_inner(self) -> io::Error {
        match self {
            CopyError::Read(e) | CopyError::Write(e) => e,
        }
    }
}

/// Reads the file at `path` to its end once, handing each block to `sink` (a copy's
/// writer beside the hashers that checksum it), and returns the bytes read. A build
/// that copies a few GB and records their checksums reads them once; an error of
/// `sink`'s is [`CopyError::Write`], so the caller names the file written.
pub fn read_through(
    path: &Path,
    mut sink: impl FnMut(&[u8]) -> io::Result<()>,
) -> Result<u64, CopyError> {
    let mut f = std::fs::File::open(path).map_err(CopyError::Read)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = match f.read(&mut buf) {
            Ok(0) => return Ok(len),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        len += n as u64;
        sink(&buf[..n]).map_err(CopyError::Write)?;
    }
}

/// A chunk whose bytes do not give its stored checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub chunk: usize,
    /// The chunk's length (the last one may be short).
    pub len: usize,
    pub stored: u32,
    pub computed: u32,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let start = self.chunk * CHUNK;
        write!(
            f,
            "chunk {} (bytes {start}–{}) fails its CRC-32 (stored {:08x}, computed {:08x})",
            self.chunk,
            start + self.len,
            self.stored,
            self.computed
        )
    }
}

/// Which chunks of one opened file have passed their check, one bit each, so that each
/// is checked once however often it is read (and by however many threads).
pub struct Checked {
    bits: Box<[AtomicU64]>,
}

impl Checked {
    /// For a file of `chunks` chunks, none checked yet.
    pub fn new(chunks: usize) -> Checked {
        Checked {
            bits: (0..chunks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }

    /// Checks the chunks of a `len`-byte file that hold the bytes of `range` and have not
    /// passed yet. `bytes` reads a chunk's byte range, `stored` gives chunk `k`'s
    /// checksum, `mismatch` turns a failed check into the caller's error.
    pub fn check<B, E>(
        &self,
        range: Range<usize>,
        len: usize,
        bytes: impl Fn(Range<usize>) -> Result<B, E>,
        stored: impl Fn(usize) -> u32,
        mismatch: impl Fn(Mismatch) -> E,
    ) -> Result<(), E>
    where
        B: Deref<Target = [u8]>,
    {
        if range.is_empty() {
            return Ok(());
        }
        for k in range.start / CHUNK..range.end.min(len).div_ceil(CHUNK) {
            let (word, bit) = (&self.bits[k / 64], 1u64 << (k % 64));
            if word.load(Ordering::Relaxed) & bit != 0 {
                continue;
            }
            let chunk = bytes(k * CHUNK..((k + 1) * CHUNK).min(len))?;
            let (stored, computed) = (stored(k), crc32fast::hash(&chunk));
            if stored != computed {
                return Err(mismatch(Mismatch {
                    chunk: k,
                    len: chunk.len(),
                    stored,
                    computed,
                }));
            }
            word.fetch_or(bit, Ordering::Relaxed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn chunks_are_hashed_whatever_the_writes() {
        let big = data(CHUNK * 2 + 100);
        let mut one = ChunkHasher::default();
        one.update(&big);
        let mut many = ChunkHasher::default();
        for piece in big.chunks(999) {
            many.update(piece);
        }
        let want: Vec<u32> = big.chunks(CHUNK).map(crc32fast::hash).collect();
        assert_eq!(one.finish(), want);
        assert_eq!(many.finish(), want);
        assert!(ChunkHasher::default().finish().is_empty());
    }

    #[test]
    fn a_damaged_chunk_fails_when_read_and_others_pass() {
        let mut big = data(CHUNK * 3);
        let mut h = ChunkHasher::default();
        h.update(&big);
        let crcs = h.finish();
        big[CHUNK + 10] ^= 0x10;
        let checked = Checked::new(crcs.len());
        let reads = std::cell::Cell::new(0);
        let check = |range: Range<usize>| {
            checked.check(
                range,
                big.len(),
                |r| {
                    reads.set(reads.get() + 1);
                    Ok::<_, String>(&big[r])
                },
                |k| crcs[k],
                |m| m.to_string(),
            )
        };
        assert_eq!(check(0..100), Ok(()));
        assert_eq!(check(5..CHUNK), Ok(()));
        assert_eq!(reads.get(), 1, "a chunk that passed is not read again");
        assert_eq!(check(CHUNK * 2..CHUNK * 2 + 5), Ok(()));
        let e = check(CHUNK - 1..CHUNK + 1).unwrap_err();
        assert!(e.starts_with("chunk 1 (bytes 65536–131072) fails"), "{e}");
        assert_eq!(check(CHUNK * 3..CHUNK * 3), Ok(()));
    }
}
