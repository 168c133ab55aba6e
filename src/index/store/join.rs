//! A store made of other stores of its kind, one after another: what a merge does with
//! the shards' `structure.rec` and `text.rec`.
//!
//! Pushing every record of the parts through one writer gives the store a one-machine
//! build writes, but decodes and compresses every block again: on 8 OTT-QA shards that
//! was 41 % of the merge's CPU. A writer's cuts depend only on the records since its
//! block began (`write.rs`, `Cut`), so once the joining writer stands at a block start
//! where a part's block starts, it would cut that block exactly as the part's writer
//! did, and the block is copied as stored. Only the blocks before the two writers fall
//! into step (the first two or three of each part) and each part's last block, which
//! its writer closed because its records ended, are decoded and pushed record by record.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::de::IgnoredAny;

use super::super::IndexError;
use super::{Store, StoreWriter};

/// What [`join`] wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Joined {
    /// The file's size.
    pub size: u64,
    /// Blocks copied as stored, and blocks written in all.
    pub copied: u64,
    pub blocks: u64,
}

/// Writes at `path` the store of `kind` that holds the records of `parts` in order, each
/// part a store of that kind written by [`StoreWriter::create`] and holding the number
/// of records given with it (a part holding another number is refused as corrupt). The bytes are those of one writer pushing every record.
/// `None` when `stop` was set before the end (checked at every block).
pub(crate) fn join(
    path: &Path,
    kind: u32,
    parts: &[(&Path, u64)],
    stop: &AtomicBool,
) -> Result<Option<Joined>, IndexError> {
    let mut out = StoreWriter::<()>::create(path, kind)?;
    let mut copied = 0;
    for &(part, records) in parts {
        let store = Store::<IgnoredAny>::open(part, kind)?;
        if store.len() as u64 != records {
            return Err(store.corrupt(format!(
                "{} records where {records} were expected",
                store.len()
            )));
        }
        for j in 0..store.blocks {
            if stop.load(Ordering::Relaxed) {
                return Ok(None);
            }
            let b = store.block(j)?;
            // The last block was closed by the end of the part's records, not by the rule.
            if out.at_block_start() && j + 1 < store.blocks {
                let crc = b.crc;
                out.push_block(store.stored(&b)?, b.count as u64, b.raw_len as u64, crc)?;
                copied += 1;
                continue;
            }
            let raw = store.raw(&b)?;
            for i in b.first..b.first + b.count {
                out.push_encoded(store.record(&raw, &b, i)?)?;
            }
        }
    }
    // `finish` closes the last block.
    let blocks = out.blocks() + u64::from(!out.at_block_start());
    let size = out.finish()?;
    Ok(Some(Joined {
        size,
        copied,
        blocks,
    }))
}
