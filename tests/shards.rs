//! Shards and merge: `build --shard K/N` for every K, then `merge`, must give the index a
//! one-machine build gives — every data file byte for byte (the manifest differs in
//! times and thread counts, tantivy's `text/` in its segment names), every export, the
//! manifest's counts and the full-text search's answers — and bad sets of shards must be
//! refused before anything is written.

use std::path::{Path, PathBuf};

use crate::util::*;

/// A multistream dump and its index.
pub(crate) struct Dump {
    pub(crate) xml: PathBuf,
    pub(crate) index: PathBuf,
}

pub(crate) fn ltgwiki() -> Dump {
    Dump {
        xml: data("ltgwiki-2017-multistream.xml.bz2"),
        index: data("ltgwiki-2017-multistream-index.txt.bz2"),
    }
}

/// enwiki-2016-206pages-cs1 re-laid as multistream by `tools/multistream.py`
/// (`tests/data/multistream/README.md`).
pub(crate) fn enwiki_cs1() -> Dump {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/multistream");
    Dump {
        xml: dir.join("enwiki-2016-206pages-cs1-multistream.xml.bz2"),
        index: dir.join("enwiki-2016-206pages-cs1-multistream-index.txt.bz2"),
    }
}

fn build_shard(dump: &Dump, dir: &Path, shard: &str) {
    build(
        &dump.xml,
        dir,
        &[
            "--multistream-index",
            dump.index.to_str().unwrap(),
            "--shard",
            shard,
            "-j",
            "2",
        ],
    );
}

/// Builds the `n` shards of `dump` under `t` and returns their directories.
fn shards(dump: &Dump, t: &Path, n: usize) -> Vec<PathBuf> {
    (1..=n)
        .map(|k| {
            let dir = t.join(format!("shard-{k}-of-{n}"));
            build_shard(dump, &dir, &format!("{k}/{n}"));
            dir
        })
        .collect()
}

pub(crate) fn merge_command(shards: &[PathBuf], index: &Path) -> std::process::Command {
    let mut c = wikiwit();
    c.arg("merge")
        .args(shards)
        .arg("--index")
        .arg(index)
        .arg("-q");
    c
}

/// The top-level files of an index, but its manifest.
fn data_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("index")
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "manifest.json")
        .collect();
    names.sort();
    names
}

pub(crate) fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

pub(crate) fn assert_same_as_one_machine(one: &Path, merged: &Path, what: &str) {
    let files = data_files(one);
    assert!(files.len() >= 15, "{what}: {files:?}");
    assert_eq!(files, data_files(merged), "{what}: the files differ");
    for f in &files {
        let (a, b) = (std::fs::read(one.join(f)), std::fs::read(merged.join(f)));
        assert!(a.unwrap() == b.unwrap(), "{what}: {f} differs");
    }
    for t in TABLES {
        assert!(
            export(one, t) == export(merged, t),
            "{what}: export {t} differs"
        );
    }
    let (a, b) = (manifest(one), manifest(merged));
    for key in ["counts", "source", "site"] {
        assert_eq!(a[key], b[key], "{what}: manifest {key} differs");
    }
    for key in ["expand", "build_date", "sources", "text", "interwiki"] {
        assert_eq!(a["build"][key], b["build"][key], "{what}: build.{key}");
    }
    for q in ["Latvija", "university", "history of the"] {
        let search = |ix: &Path| ok(wikiwit().args(["search", q, "--json", "--index"]).arg(ix));
        assert_eq!(search(one), search(merged), "{what}: search {q:?} differs");
    }
}

/// Merges `dump`'s shards for every N, the shards given in reverse order.
fn merges_like_one_machine(dump: &Dump) {
    let tmp = tempdir();
    let t = tmp.path();
    let one = t.join("one");
    build(
        &dump.xml,
        &one,
        &[
            "--multistream-index",
            dump.index.to_str().unwrap(),
            "-j",
            "2",
        ],
    );
    for n in [1, 2, 3, 7] {
        let mut parts = shards(dump, t, n);
        let pages: u64 = parts
            .iter()
            .map(|p| manifest(p)["pages"].as_u64().unwrap())
            .sum();
        assert_eq!(pages, manifest(&one)["counts"]["pages"], "N = {n}");
        parts.reverse();
        let merged = t.join(format!("merged-{n}"));
        ok(&mut merge_command(&parts, &merged));
        assert_same_as_one_machine(&one, &merged, &format!("N = {n}"));
        for p in parts {
            std::fs::remove_dir_all(p).unwrap();
        }
        std::fs::remove_dir_all(merged).unwrap();
    }
}

#[test]
fn ltgwiki_shards_merge_into_the_one_machine_index() {
    merges_like_one_machine(&ltgwiki());
}

#[test]
fn enwiki_cs1_shards_merge_into_the_one_machine_index() {
    merges_like_one_machine(&enwiki_cs1());
}

#[test]
fn shards_that_do_not_belong_together_are_refused() {
    let tmp = tempdir();
    let t = tmp.path();
    let ltg = shards(&ltgwiki(), t, 3);
    let target = t.join("merged");
    let refused_merge = |shards: &[PathBuf], expect: &[&str]| {
        refused(&mut merge_command(shards, &target), expect);
        assert!(!target.exists(), "an index was written for {shards:?}");
    };
    refused_merge(&ltg[..2], &["shard(s) 3/3 missing"]);
    refused_merge(
        &[
            ltg[0].clone(),
            ltg[1].clone(),
            ltg[1].clone(),
            ltg[2].clone(),
        ],
        &["shard 2/3 is given twice"],
    );
    refused_merge(
        &[ltg[0].clone(), t.join("nowhere"), ltg[2].clone()],
        &["not a shard"],
    );
    // Shard 2/3 of another dump.
    let other = t.join("other-2");
    let enwiki = Dump {
        xml: data("enwiki-2016-206pages-multistream.xml.bz2"),
        index: data("enwiki-2016-206pages-multistream-index.txt.bz2"),
    };
    build_shard(&enwiki, &other, "2/3");
    refused_merge(
        &[ltg[0].clone(), other, ltg[2].clone()],
        &["is a shard of another dump"],
    );
    // Shards of a build into 2 beside shards of a build into 3.
    let half = t.join("half");
    build_shard(&ltgwiki(), &half, "2/2");
    refused_merge(&[ltg[0].clone(), half], &["shards of different builds"]);
    // A shard is not an index.
    refused(
        wikiwit().args(["info", "--index"]).arg(&ltg[0]),
        &["is shard 1/3 of a build", "wikiwit merge"],
    );
    // Only a dump read stream by stream can be cut.
    refused(
        &mut build_command(
            &data("ltgwiki-2017-complete.xml.bz2"),
            &t.join("single"),
            &["--shard", "1/2"],
        ),
        &["--shard needs a multistream bz2 dump"],
    );
    refused(
        &mut build_command(&ltgwiki().xml, &t.join("zero"), &["--shard", "0/2"]),
        &["is not a shard"],
    );
}

/// The files of `shard`'s full-text index ending in `.ext`, largest first.
fn text_files(shard: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(shard.join("text"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).unwrap().len()));
    files
}

#[test]
fn a_damaged_shard_is_refused_and_the_index_kept() {
    let tmp = tempdir();
    let t = tmp.path();
    let parts = shards(&ltgwiki(), t, 2);
    let target = t.join("merged");
    ok(&mut merge_command(&parts, &target));
    let search = || {
        ok(wikiwit()
            .args(["search", "Latvija", "--json", "--index"])
            .arg(&target))
    };
    let before = search();
    // A file the merge copies without reading it: checked against the shard's manifest.
    let postings = &text_files(&parts[1], "idx")[0];
    let good = flip(postings);
    refused(
        &mut merge_command(&parts, &target),
        &[&postings.display().to_string(), "its shard's manifest says"],
    );
    assert_eq!(search(), before, "the merged index was changed");
    std::fs::write(postings, good).unwrap();
    // The fast fields, which the merge reads and rewrites: checked by the chunk table.
    let fast = &text_files(&parts[0], "fast")[0];
    let good = flip(fast);
    refused(
        &mut merge_command(&parts, &target),
        &[&fast.display().to_string(), "corrupt index data"],
    );
    assert_eq!(search(), before, "the merged index was changed");
    std::fs::write(fast, good).unwrap();
    // The first pass's files, copied from the first shard: checked as they are copied.
    for name in ["sources.rec", "sources.fst"] {
        let file = parts[0].join(name);
        let good = flip(&file);
        refused(
            &mut merge_command(&parts, &target),
            &[&file.display().to_string(), "its shard's manifest says"],
        );
        assert_eq!(search(), before, "the merged index was changed");
        std::fs::write(&file, good).unwrap();
    }
    // A store whose blocks the merge copies as they are: checked by the blocks' CRC-32s.
    for name in ["structure.rec", "text.rec"] {
        let store = parts[1].join(name);
        let good = flip(&store);
        refused(
            &mut merge_command(&parts, &target),
            &[&store.display().to_string(), "CRC-32"],
        );
        assert_eq!(search(), before, "the merged index was changed");
        std::fs::write(&store, good).unwrap();
    }
}
