//! A record store: a sequence of serde values, addressable by number, memory-mapped and
//! cut into independently compressed blocks.
//!
//! Records are postcard-encoded and packed in dump order into blocks of about 64 KiB; a
//! record never spans blocks, and one larger than a block gets a block of its own. Each
//! block starts with its records' end offsets, so the file needs no per-record table:
//! only one entry per block (where it ends, its first record, its raw length). Blocks
//! of `text.rec` and `structure.rec` are compressed with zstd one by one (2.4x less
//! disk); reading record `i` finds its block by binary search and decodes that block
//! alone, so any page's data is still reachable in tens of microseconds without loading
//! the store. `pages.rec`, on the hot path of title resolution, is stored uncompressed
//! in the same layout and read in place (see [`Codec::for_kind`], `index/FORMAT.md`).
//! Each block carries a CRC-32 in its table entry, checked the first time a reader
//! touches the block, and the table one in the trailer, checked on opening: the file's
//! own CRC covers everything but is only worth reading in full for `info --verify`,
//! while a query must not decode a damaged block into a wrong answer.
//! Records are self-describing serde values, so stores can grow fields under a new
//! format version without a hand-written binary layout for each.

mod join;
mod read;
mod write;

#[cfg(test)]
mod tests;

use serde::Serialize;

use super::IndexError;

pub(crate) use join::join;
pub use read::{Records, Store};
pub(crate) use write::StoreWriter;

/// Raw size of a block of `structure.rec`: zstd's ratio on it grows little past it
/// (x2.49 at 64 KiB, x2.53 at 128 KiB on the OTT-QA dump), while every random read
/// decodes a whole block.
pub(crate) const BLOCK_SIZE: usize = 64 << 10;

/// Raw size of a block of `text.rec`, whose prose gains from a longer window than
/// structure does (on the OTT-QA dump: 47.2 MB at 128 KiB, 45.3 at 256 KiB), while a
/// random read decodes a whole block: with 256 KiB blocks the frontier evaluation of
/// 1,000 questions took 4.2 s of CPU against 3.7 s at 128 KiB (256-slot cache).
pub(crate) const TEXT_BLOCK_SIZE: usize = 128 << 10;

/// The block size of a store of `kind`: [`TEXT_BLOCK_SIZE`] for `text.rec`,
/// [`BLOCK_SIZE`] for the others. One function for every writer of a kind, since a
/// merge copies blocks only between stores cut alike.
fn block_size_for(kind: u32) -> usize {
    if kind == super::kinds::TEXT {
        TEXT_BLOCK_SIZE
    } else {
        BLOCK_SIZE
    }
}

/// zstd level of the stores no level below names (`sources.rec`, a build's temporary
/// redirect targets): small, so their compression time does not matter.
const LEVEL: i32 = 5;

/// zstd level of `text.rec`. Measured on the OTT-QA dump's raw text (129.4 MB, 128 KiB
/// blocks, `zstd -b3 -e5 -B128KiB`, idle machine): level 3 48.9 MB at 91 MB/s, level 4
/// 49.3 MB at 88 MB/s, level 5 48.0 MB at 47 MB/s; in the build, whose blocks end on
/// record boundaries, `text.rec` is 49.3 MB at level 3 and 47.2 MB at level 5. Those
/// 2.1 MB cost 1.3 s of a 23 s build's CPU time (the writer's thread; `perf`: 12 % of
/// the build with both stores at level 5). Decoding speed does not depend on the level.
const TEXT_LEVEL: i32 = 3;

/// zstd level of `structure.rec`. Same measurement on its 34.6 MB (64 KiB blocks):
/// level 3 12.27 MB at 139 MB/s, level 4 12.16 MB at 159 MB/s, level 5 11.83 MB at
/// 78 MB/s.
const STRUCTURE_LEVEL: i32 = 4;

/// The zstd level of a store of `kind`; 1 for the build's temporary store of every page
/// outside the source namespaces (`index::articles`), which is written once, read for
/// the few pages transcluded, and deleted: the whole dump's text goes through it, so
/// compression speed matters more than its size there.
fn level_for(kind: u32) -> i32 {
    match kind {
        super::kinds::TEMP_ARTICLES => 1,
        super::kinds::TEXT => TEXT_LEVEL,
        super::kinds::STRUCTURE => STRUCTURE_LEVEL,
        _ => LEVEL,
    }
}

/// Bytes of one block-table entry: compressed end, first record, raw length (`u64`s),
/// CRC-32 of the block as stored (`u32`).
const ENTRY_LEN: usize = 28;

/// Bytes of the trailer: record count, block count (`u64`s), codec, CRC-32 of the block
/// table (`u32`s).
const TRAILER_LEN: usize = 24;

/// How the blocks of a store are stored (the trailer's codec field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Codec {
    /// Raw bytes: read in place from the map.
    Stored = 0,
    /// One zstd frame per block.
    Zstd = 1,
}

impl Codec {
    /// `pages.rec` is stored: title resolution and audits read it one record at a time,
    /// and on the OTT-QA dump a random `Index::page` took 250 ns stored against 6.8 µs
    /// with zstd on 4 KiB blocks (lookup and page: 1.1 µs against 8.5 µs), to save 5 MB
    /// (2.4 % of the XML). The other stores are read a page at a time by queries that
    /// then spend far longer on the page, and are most of the index.
    fn for_kind(kind: u32) -> Codec {
        if kind == super::kinds::PAGES {
            Codec::Stored
        } else {
            Codec::Zstd
        }
    }

    fn from_u32(v: u32) -> Option<Codec> {
        match v {
            0 => Some(Codec::Stored),
            1 => Some(Codec::Zstd),
            _ => None,
        }
    }
}

/// Encodes one record the way `StoreWriter::push` does.
pub fn encode<T: Serialize>(record: &T) -> Result<Vec<u8>, IndexError> {
    postcard::to_allocvec(record).map_err(|e| IndexError::Encode {
        what: "record",
        message: e.to_string(),
    })
}
