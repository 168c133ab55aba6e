use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use super::super::{FORMAT_VERSION, IndexError, kinds};
use super::{Store, StoreWriter};

const KIND: u32 = kinds::TEXT;

/// Records of pseudo-random length (0 to ~3 KiB) and content, from a fixed seed.
fn records(n: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut x = seed;
    let mut next = move || {
        // xorshift64*
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    (0..n)
        .map(|i| {
            let len = (next() % 3000) as usize;
            // Compressible but not constant: a few words repeated with a varying tail.
            (0..len)
                .map(|j| b"the river flows "[(j + i) % 16] ^ ((next() % 7 == 0) as u8))
                .collect()
        })
        .collect()
}

fn write(path: &Path, block: usize, recs: &[Vec<u8>]) -> u64 {
    write_kind(path, KIND, block, recs)
}

fn write_kind(path: &Path, kind: u32, block: usize, recs: &[Vec<u8>]) -> u64 {
    let mut w = StoreWriter::<Vec<u8>>::with_block_size(path, kind, block).unwrap();
    for r in recs {
        w.push(r).unwrap();
    }
    assert_eq!(w.len(), recs.len());
    w.finish().unwrap()
}

fn spill(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp-table");
    PathBuf::from(name)
}

#[test]
fn round_trip_across_many_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    let recs = records(2000, 15);
    let size = write(&path, 8 << 10, &recs);
    assert_eq!(size, std::fs::metadata(&path).unwrap().len());
    assert!(!spill(&path).exists(), "the table spill is removed");
    let raw: usize = recs.iter().map(Vec::len).sum();
    assert!((size as usize) < raw / 2, "{size} bytes for {raw} raw");
    let store = Store::<Vec<u8>>::open(&path, KIND).unwrap();
    assert_eq!(store.len(), recs.len());
    assert!(store.blocks > 100, "{} blocks", store.blocks);
    // Out of order, so that blocks are decoded, evicted and decoded again.
    for i in (0..recs.len()).rev().step_by(7).chain(0..recs.len()) {
        assert_eq!(store.get(i).unwrap(), recs[i], "record {i}");
    }
    store.verify().unwrap();
}

/// `pages.rec` keeps the block layout but is not compressed: records are read in place.
#[test]
fn the_page_store_is_stored_uncompressed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages.rec");
    let recs = records(1000, 9);
    let size = write_kind(&path, kinds::PAGES, 16 << 10, &recs);
    let raw: usize = recs.iter().map(|r| r.len() + 2).sum();
    assert!(size as usize > raw, "{size} bytes for {raw} raw");
    let store = Store::<Vec<u8>>::open(&path, kinds::PAGES).unwrap();
    for i in (0..recs.len()).rev() {
        assert_eq!(store.get(i).unwrap(), recs[i], "record {i}");
    }
    let all: Vec<Vec<u8>> = store.iter().collect::<Result<_, _>>().unwrap();
    assert_eq!(all, recs);
}

#[test]
fn sequential_reading_equals_random_access() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    let recs = records(500, 7);
    write(&path, 4 << 10, &recs);
    let store = Store::<Vec<u8>>::open(&path, KIND).unwrap();
    let all: Vec<Vec<u8>> = store.iter().collect::<Result<_, _>>().unwrap();
    assert_eq!(all, recs);
    assert_eq!(store.iter().len(), recs.len());
    for (i, r) in store.iter().enumerate() {
        assert_eq!(r.unwrap(), store.get(i).unwrap());
    }
}

#[test]
fn a_record_larger_than_a_block_gets_a_block_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    let mut recs = records(30, 3);
    recs.insert(10, vec![b'x'; 50_000]);
    recs.insert(11, Vec::new());
    recs.push(vec![b'y'; 20_000]);
    write(&path, 4 << 10, &recs);
    let store = Store::<Vec<u8>>::open(&path, KIND).unwrap();
    let big = store.block_of(10).unwrap();
    assert_eq!((big.first, big.count), (10, 1));
    for (i, r) in store.iter().enumerate() {
        assert_eq!(r.unwrap(), recs[i], "record {i}");
    }
    assert_eq!(store.get(31).unwrap(), recs[31]);
}

#[test]
fn an_empty_store_has_no_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    write(&path, 64 << 10, &[]);
    let store = Store::<Vec<u8>>::open(&path, KIND).unwrap();
    assert!(store.is_empty());
    assert_eq!(store.iter().count(), 0);
    store.verify().unwrap();
}

/// The bytes do not depend on how the compressing thread is scheduled.
#[test]
fn the_bytes_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(800, 11);
    let (a, b) = (dir.path().join("a.rec"), dir.path().join("b.rec"));
    write(&a, 16 << 10, &recs);
    write(&b, 16 << 10, &recs);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

fn corrupted(
    edit: impl Fn(&mut Vec<u8>, &Store<Vec<u8>>),
) -> (tempfile::TempDir, PathBuf, Store<Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    write(&path, 4 << 10, &records(200, 5));
    let mut bytes = std::fs::read(&path).unwrap();
    edit(&mut bytes, &Store::open(&path, KIND).unwrap());
    std::fs::write(&path, bytes).unwrap();
    let store = Store::open(&path, KIND).unwrap();
    (dir, path, store)
}

/// Recomputes the checksums of every block and of the block table in a store's `bytes`,
/// as a writer would have: damage crafted past them reaches the reader's other checks.
fn reseal(bytes: &mut [u8]) {
    use super::super::file::{FOOTER_LEN, HEADER_LEN};
    use super::{ENTRY_LEN, TRAILER_LEN};
    let trailer = bytes.len() - FOOTER_LEN - TRAILER_LEN;
    let blocks = u64::from_le_bytes(bytes[trailer + 8..trailer + 16].try_into().unwrap()) as usize;
    let table = trailer - blocks * ENTRY_LEN;
    let mut start = 0;
    for j in 0..blocks {
        let at = table + j * ENTRY_LEN;
        let end = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
        if let Some(block) =
            bytes.get(HEADER_LEN.saturating_add(start)..HEADER_LEN.saturating_add(end))
        {
            let crc = crc32fast::hash(block);
            bytes[at + 24..at + 28].copy_from_slice(&crc.to_le_bytes());
        }
        start = end;
    }
    let crc = crc32fast::hash(&bytes[table..trailer]);
    bytes[trailer + 20..trailer + 24].copy_from_slice(&crc.to_le_bytes());
}

fn assert_corrupt(r: Result<Vec<u8>, IndexError>, path: &Path, what: &str) {
    match r {
        Err(IndexError::DataCorruption { path: p, comment }) => {
            assert_eq!(p, path);
            assert!(comment.contains(what), "{comment}");
        }
        other => panic!("expected corruption, got {other:?}"),
    }
}

#[test]
fn a_corrupted_block_is_reported_with_its_file_and_block() {
    // Garbage in the middle of block 3's compressed bytes.
    let (_dir, path, store) = corrupted(|bytes, s| {
        let b = s.block(3).unwrap();
        let at = super::super::file::HEADER_LEN + (b.start + b.end) / 2;
        for x in &mut bytes[at..at + 16] {
            *x ^= 0x5a;
        }
    });
    let first = store.block(3).unwrap().first;
    assert_corrupt(store.get(first), &path, "block 3");
    let walked: Vec<_> = store.iter().collect();
    assert!(
        walked.last().unwrap().is_err(),
        "the walk ends on the error"
    );
    assert_corrupt(walked.into_iter().last().unwrap(), &path, "block 3");
    assert!(store.verify().is_err(), "the CRC no longer matches");
}

#[test]
fn offsets_out_of_range_are_corruption_not_a_panic() {
    // Block 2's end offset pointing past the blocks.
    let (_dir, path, store) = corrupted(|bytes, s| {
        let at = super::super::file::HEADER_LEN + s.table + 2 * super::ENTRY_LEN;
        bytes[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        reseal(bytes);
    });
    assert_corrupt(store.get(store.first(2) as usize), &path, "block 2");
    // A raw length too short for the block's record ends.
    let (_dir, path, store) = corrupted(|bytes, s| {
        let at = super::super::file::HEADER_LEN + s.table + 16;
        bytes[at..at + 8].copy_from_slice(&1u64.to_le_bytes());
        reseal(bytes);
    });
    assert_corrupt(store.get(0), &path, "block 0");
}

#[test]
fn a_store_of_another_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    write(&path, 4 << 10, &records(10, 1));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&5u32.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    match Store::<Vec<u8>>::open(&path, KIND) {
        Err(IndexError::Version {
            expected, found, ..
        }) => assert_eq!((expected, found), (FORMAT_VERSION, 5)),
        other => panic!("expected a version error, got {:?}", other.err()),
    }
}

/// A record that does not decode is an error of its own; the walk goes on past it.
#[test]
fn a_walk_goes_on_past_a_record_that_does_not_decode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pages.rec");
    let mut recs = records(50, 2);
    recs[5] = Vec::new();
    // One block, so that the record bytes start after 50 ends.
    write_kind(&path, kinds::PAGES, 1 << 20, &recs);
    let mut bytes = std::fs::read(&path).unwrap();
    // Record 5 (an empty list: one length byte, 0) now claims five bytes it lacks.
    let header = super::super::file::HEADER_LEN;
    let at = header
        + 50 * 4
        + u32::from_le_bytes(bytes[header + 16..header + 20].try_into().unwrap()) as usize;
    assert_eq!(bytes[at], 0);
    bytes[at] = 5;
    reseal(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
    let store = Store::<Vec<u8>>::open(&path, kinds::PAGES).unwrap();
    let walked: Vec<_> = store.iter().collect();
    assert_eq!(walked.len(), recs.len());
    for (i, r) in walked.into_iter().enumerate() {
        if i == 5 {
            assert_corrupt(r, &path, "record 5");
        } else {
            assert_eq!(r.unwrap(), recs[i], "record {i}");
        }
    }
}

/// A flipped bit inside a block is caught by the block's checksum the first time the
/// block is read, by number or in a walk, stored (`pages.rec`) or compressed; the other
/// blocks still read.
#[test]
fn a_flipped_bit_in_a_block_is_caught_by_its_checksum() {
    for kind in [kinds::PAGES, KIND] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.rec");
        let recs = records(200, 9);
        write_kind(&path, kind, 4 << 10, &recs);
        let store = Store::<Vec<u8>>::open(&path, kind).unwrap();
        let b = store.block(2).unwrap();
        // A byte inside a record's data, past the block's record ends.
        let at = super::super::file::HEADER_LEN + b.end - 3;
        drop(store);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[at] ^= 0x01;
        std::fs::write(&path, bytes).unwrap();
        let store = Store::<Vec<u8>>::open(&path, kind).unwrap();
        let r = store.get(b.first + b.count - 1);
        assert_corrupt(r, &path, "block 2");
        let Err(IndexError::DataCorruption { comment, .. }) = store.get(b.first) else {
            panic!("the damaged block read a second time")
        };
        assert!(comment.contains("CRC-32"), "{comment}");
        assert!(
            comment.contains(&format!(
                "bytes {}..",
                super::super::file::HEADER_LEN + b.start
            )),
            "{comment}"
        );
        assert_eq!(store.get(0).unwrap(), recs[0], "block 0 is intact");
        let walked: Vec<_> = store.iter().collect();
        assert_eq!(
            walked.len(),
            b.first + 1,
            "the walk stops at the damaged block"
        );
        assert_corrupt(walked.into_iter().last().unwrap(), &path, "block 2");
    }
}

/// A flipped bit in the block table is refused when the store is opened.
#[test]
fn a_flipped_bit_in_the_block_table_is_refused_on_opening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.rec");
    write(&path, 4 << 10, &records(200, 3));
    let table = Store::<Vec<u8>>::open(&path, KIND).unwrap().table;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[super::super::file::HEADER_LEN + table + 9] ^= 0x04;
    std::fs::write(&path, bytes).unwrap();
    match Store::<Vec<u8>>::open(&path, KIND) {
        Err(IndexError::DataCorruption { path: p, comment }) => {
            assert_eq!(p, path);
            assert!(comment.contains("block table"), "{comment}");
        }
        other => panic!("expected corruption, got {:?}", other.err()),
    }
}

/// Stores written in parts and joined are the store one writer makes of all the
/// records, byte for byte, and most of their blocks are copied rather than compressed
/// again: the merge of a build's shards depends on both.
#[test]
fn stores_joined_equal_one_store_of_all_records() {
    // `structure.rec`'s blocks, about 40 of these records each: a writer cutting by
    // size alone would rarely fall into step with another that started elsewhere.
    const BLOCK: usize = super::BLOCK_SIZE;
    const KIND: u32 = kinds::STRUCTURE;
    let dir = tempfile::tempdir().unwrap();
    let recs = records(4000, 21);
    let whole = dir.path().join("whole.rec");
    write_kind(&whole, KIND, BLOCK, &recs);
    for cuts in [
        vec![0, 4000],
        vec![0, 700, 701, 701, 1900, 4000],
        vec![0, 1333, 2666, 4000],
    ] {
        let mut parts = Vec::new();
        for (n, w) in cuts.windows(2).enumerate() {
            let part = dir.path().join(format!("part{n}.rec"));
            write_kind(&part, KIND, BLOCK, &recs[w[0]..w[1]]);
            parts.push((part, (w[1] - w[0]) as u64));
        }
        let joined = dir.path().join("joined.rec");
        let list: Vec<(&Path, u64)> = parts.iter().map(|(p, n)| (p.as_path(), *n)).collect();
        let j = super::join(&joined, KIND, &list, &AtomicBool::new(false))
            .unwrap()
            .unwrap();
        assert_eq!(
            std::fs::read(&joined).unwrap(),
            std::fs::read(&whole).unwrap(),
            "parts cut at {cuts:?}"
        );
        assert_eq!(j.size, std::fs::metadata(&joined).unwrap().len());
        // All but the blocks before each part's writer falls into step, and its last.
        let boundaries = parts.len() as u64;
        assert!(
            j.copied + 4 * boundaries >= j.blocks && j.copied > 0,
            "{} of {} blocks copied, {boundaries} parts",
            j.copied,
            j.blocks
        );
    }
}

#[test]
fn a_part_holding_other_records_than_said_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(300, 5);
    let part = dir.path().join("part.rec");
    write(&part, super::TEXT_BLOCK_SIZE, &recs);
    let joined = dir.path().join("joined.rec");
    match super::join(
        &joined,
        KIND,
        &[(part.as_path(), 301)],
        &AtomicBool::new(false),
    ) {
        Err(IndexError::DataCorruption { path, comment }) => {
            assert_eq!(path, part);
            assert!(comment.contains("300 records where 301"), "{comment}");
        }
        other => panic!("{other:?}"),
    }
}

/// `push_block` copies a block only where the joining writer would have cut the same
/// one: at its own block start, and a block of records. Either mistake is refused with
/// the store's path and what was wrong, not written into the file.
#[test]
fn a_block_is_copied_only_at_a_block_start_and_with_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.rec");
    let mut w = StoreWriter::<Vec<u8>>::with_block_size(&path, KIND, 1 << 16).unwrap();
    let refused = |r: Result<(), IndexError>, what: &str| match r {
        Err(IndexError::Encode { message, .. }) => {
            assert!(message.contains(what), "{message}");
            assert!(message.contains("copy.rec"), "{message}");
        }
        other => panic!("expected {what:?} refused, got {other:?}"),
    };
    refused(w.push_block(b"x", 0, 1, 0), "a block of no record copied");
    w.push(&b"a record".to_vec()).unwrap();
    refused(
        w.push_block(b"x", 1, 1, 0),
        "a block copied in the middle of a block",
    );
}
