//! A shard checks its byte range of the dump as a one-machine build checks the whole:
//! every page of its streams against the multistream index (the index's groups that
//! begin there, whole, even where a group runs on past the range), a truncated or
//! corrupt stream, and the dump's end in the shard that holds the last stream. Each is
//! refused with exit code 2, naming the file and where, and nothing is published.

use std::path::{Path, PathBuf};

use crate::util::*;

/// enwiki-2016-206pages-cs1 as a Wikimedia-style multistream dump (22 streams of 25
/// pages, `tests/data/multistream/README.md`) and its index.
fn cs1() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/multistream");
    (
        dir.join("enwiki-2016-206pages-cs1-multistream.xml.bz2"),
        dir.join("enwiki-2016-206pages-cs1-multistream-index.txt.bz2"),
    )
}

/// Byte offsets where the bz2 streams of `bytes` start.
fn stream_starts(bytes: &[u8]) -> Vec<usize> {
    let magic = |w: &[u8]| w[..4] == *b"BZh9" && w[4..] == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
    (0..bytes.len() - 10)
        .filter(|&i| magic(&bytes[i..i + 10]))
        .collect()
}

/// The index's lines, decoded.
fn index_lines(index: &Path) -> Vec<String> {
    String::from_utf8(decompress(index))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn offset_of(line: &str) -> usize {
    line.split(':').next().unwrap().parse().unwrap()
}

/// The first stream start of shard 2 of 2 (the second half of the file's bytes), and
/// the stream start before it.
fn cut(bytes: &[u8]) -> (usize, usize) {
    let starts = stream_starts(bytes);
    let k = starts.iter().position(|&s| s >= bytes.len() / 2).unwrap();
    (starts[k - 1], starts[k])
}

/// `build --shard K/2 --pages-only` of `dump` with `index` into `dir`.
fn shard(dump: &Path, index: &Path, dir: &Path, k: usize) -> std::process::Command {
    let index = index.to_str().unwrap();
    let part = format!("{k}/2");
    let args = [
        "--multistream-index",
        index,
        "--shard",
        &part,
        "--pages-only",
    ];
    build_command(dump, dir, &args)
}

/// The one-machine `build --pages-only` of `dump` with `index` into `dir`.
fn whole(dump: &Path, index: &Path, dir: &Path) -> std::process::Command {
    let index = index.to_str().unwrap();
    build_command(dump, dir, &["--multistream-index", index, "--pages-only"])
}

/// Runs `cmd`, which must refuse with `expect`, and checks that nothing was left in
/// `dir`'s parent but the target's lock file (which every build leaves).
fn refused_unpublished(cmd: &mut std::process::Command, dir: &Path, expect: &[&str]) {
    let parent = dir.parent().unwrap();
    let names = || -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(parent)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".lock"))
            .collect();
        n.sort();
        n
    };
    let before = names();
    refused(cmd, expect);
    assert!(!dir.exists(), "{} was published", dir.display());
    assert_eq!(before, names(), "left behind in {}", parent.display());
}

/// `lines` with a line for a page no stream holds, at `offset`, inserted after line
/// `after`.
fn listing_nowhere(lines: &[String], after: usize, offset: usize) -> Vec<String> {
    let mut edited = lines.to_vec();
    edited.insert(after + 1, format!("{offset}:99999999:Nowhere"));
    edited
}

/// Writes `lines` as a plain-text index into `dir`.
fn write_index(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n")).unwrap();
    path
}

#[test]
fn a_shard_checks_the_pages_of_its_streams_against_the_index() {
    let tmp = tempdir();
    let t = tmp.path();
    let (dump, index) = cs1();
    let lines = index_lines(&index);
    let (before, second) = cut(&std::fs::read(&dump).unwrap());
    let group = |off: usize| -> Vec<usize> {
        (0..lines.len())
            .filter(|&i| offset_of(&lines[i]) == off)
            .collect()
    };
    let in_second = group(second);
    assert!(in_second.len() >= 10, "{in_second:?}");
    // The index lists a page the dump lacks, in shard 2's first group.
    let last_of_second = in_second[in_second.len() - 1];
    let listed = listing_nowhere(&lines, last_of_second, second);
    let listed = write_index(t, "listed.txt", &listed);
    refused_unpublished(
        &mut shard(&dump, &listed, &t.join("a"), 2),
        &t.join("a"),
        &[
            "does not match the dump",
            "lists page id 99999999",
            "no such page",
        ],
    );
    // Shard 1 reads none of that group: it is shard 2's to check.
    ok(&mut shard(&dump, &listed, &t.join("a1"), 1));
    // The dump holds a page the index does not list there.
    let mut unlisted = lines.clone();
    let gone = unlisted.remove(in_second[3]);
    let id = gone.split(':').nth(1).unwrap().to_string();
    let unlisted = write_index(t, "unlisted.txt", &unlisted);
    refused_unpublished(
        &mut shard(&dump, &unlisted, &t.join("b"), 2),
        &t.join("b"),
        &["does not match the dump", &format!("holds page id {id}")],
    );
    // One group over the two streams around the cut: the shard it begins in checks it
    // whole, decoding the stream past its range, and the next leaves it alone.
    let merged: Vec<String> = lines
        .iter()
        .map(|l| match l.strip_prefix(&format!("{second}:")) {
            Some(rest) => format!("{before}:{rest}"),
            None => l.clone(),
        })
        .collect();
    let across = write_index(t, "across.txt", &merged);
    ok(&mut shard(&dump, &across, &t.join("c1"), 1));
    ok(&mut shard(&dump, &across, &t.join("c2"), 2));
    let short = listing_nowhere(&merged, last_of_second, before);
    let short = write_index(t, "short.txt", &short);
    refused_unpublished(
        &mut shard(&dump, &short, &t.join("d"), 1),
        &t.join("d"),
        &["lists page id 99999999", &format!("at offset {before}")],
    );
    ok(&mut shard(&dump, &short, &t.join("d2"), 2));
    // A one-machine build agrees on both.
    ok(&mut whole(&dump, &across, &t.join("whole")));
    refused(
        &mut whole(&dump, &short, &t.join("whole-short")),
        &["lists page id 99999999"],
    );
}

#[test]
fn a_shard_refuses_a_truncated_or_corrupt_stream_in_its_range() {
    let tmp = tempdir();
    let t = tmp.path();
    let (dump, index) = cs1();
    let bytes = std::fs::read(&dump).unwrap();
    let starts = stream_starts(&bytes);
    let (_, second) = cut(&bytes);
    // A corrupt block in shard 2's first stream: shard 2 refuses it, shard 1 never
    // reads it.
    let next = starts[starts.iter().position(|&s| s == second).unwrap() + 1];
    let mut corrupt = bytes.clone();
    let mid = second + (next - second) / 2;
    for b in &mut corrupt[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let corrupt_dump = t.join("corrupt.xml.bz2");
    std::fs::write(&corrupt_dump, &corrupt).unwrap();
    refused_unpublished(
        &mut shard(&corrupt_dump, &index, &t.join("a"), 2),
        &t.join("a"),
        &[
            "corrupt.xml.bz2",
            &format!("corrupt bz2 data in the stream starting at byte {second}"),
        ],
    );
    ok(&mut shard(&corrupt_dump, &index, &t.join("a1"), 1));
    // The file cut inside its last stream of pages.
    let footer = starts[starts.len() - 1];
    let last_pages = starts[starts.len() - 2];
    let cut_dump = t.join("cut.xml.bz2");
    std::fs::write(&cut_dump, &bytes[..(last_pages + footer) / 2]).unwrap();
    refused_unpublished(
        &mut shard(&cut_dump, &index, &t.join("b"), 2),
        &t.join("b"),
        &[
            "cut.xml.bz2",
            "truncated bz2 data",
            &format!("starting at byte {last_pages}"),
        ],
    );
    // The file cut where a stream starts: every stream whole, the dump's end missing.
    // The shard that holds the last stream must notice, as a whole build does.
    let ended = t.join("ended.xml.bz2");
    std::fs::write(&ended, &bytes[..footer]).unwrap();
    refused_unpublished(
        &mut shard(&ended, &index, &t.join("c"), 2),
        &t.join("c"),
        &[
            "ended.xml.bz2",
            "the dump ends without </mediawiki>: it is truncated",
        ],
    );
    refused(
        &mut whole(&ended, &index, &t.join("whole")),
        &["ended.xml.bz2", "it is truncated"],
    );
}
