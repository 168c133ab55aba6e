//! The same pages, whatever the container and thread count: plain XML, single-stream bz2,
//! multistream with and without its index, and pbzip2-style streams that cut pages in
//! half must all give byte-identical index stores and exports.

use std::io::Write;
use std::path::Path;

use crate::util::*;

const STORES: &[&str] = &[
    "pages.rec",
    "titles.fst",
    "warnings.jsonl",
    "structure.rec",
    "links-out.csr",
    "links-in.csr",
    "red-titles.fst",
    "red-in.csr",
    "categories.fst",
    "category-members.csr",
    "redirects-to.csr",
    "text.rec",
    "sources.rec",
    "sources.fst",
];

fn assert_same_index(a: &Path, b: &Path, what: &str) {
    for f in STORES {
        let x = std::fs::read(a.join(f)).expect("store");
        let y = std::fs::read(b.join(f)).expect("store");
        assert!(x == y, "{what}: {f} differs");
    }
    for t in ["pages", "redirects"] {
        assert_eq!(export(a, t), export(b, t), "{what}: export {t} differs");
    }
}

#[test]
fn multistream_single_stream_and_threads_agree() {
    let tmp = tempdir();
    let t = tmp.path();
    let single = data("enwiki-2016-206pages.xml.bz2");
    let multi = data("enwiki-2016-206pages-multistream.xml.bz2");
    let idx = data("enwiki-2016-206pages-multistream-index.txt.bz2");
    build(&single, &t.join("single"), &["-j", "1"]);
    for threads in ["1", "2", "3"] {
        let with = t.join(format!("multi-index-{threads}"));
        build(
            &multi,
            &with,
            &["--multistream-index", idx.to_str().unwrap(), "-j", threads],
        );
        assert_same_index(
            &t.join("single"),
            &with,
            &format!("multistream+index, {threads} threads"),
        );
        let without = t.join(format!("multi-{threads}"));
        build(&multi, &without, &["-j", threads]);
        assert_same_index(
            &t.join("single"),
            &without,
            &format!("multistream, {threads} threads"),
        );
        // Where pages start: the same streams, found with or without the index.
        let offsets = |d: &Path| std::fs::read(d.join("dump-offsets.bin")).expect("offsets");
        assert!(
            offsets(&with) == offsets(&without) && offsets(&with) == offsets(&t.join("multi-1")),
            "dump-offsets.bin differs ({threads} threads)"
        );
    }
}

#[test]
fn ltgwiki_multistream_matches_single_stream() {
    let tmp = tempdir();
    let t = tmp.path();
    build(
        &data("ltgwiki-2017-complete.xml.bz2"),
        &t.join("a"),
        &["-j", "2"],
    );
    let idx = data("ltgwiki-2017-multistream-index.txt.bz2");
    // With its index only the template streams are read first; with 1 or 3 workers the
    // expanders' caches see pages in another order: the stores must not change.
    for threads in ["1", "2", "3"] {
        let b = t.join(format!("b{threads}"));
        build(
            &data("ltgwiki-2017-multistream.xml.bz2"),
            &b,
            &["--multistream-index", idx.to_str().unwrap(), "-j", threads],
        );
        assert_same_index(&t.join("a"), &b, &format!("ltgwiki, {threads} threads"));
    }
    for t2 in ["links", "categories", "templates"] {
        assert_eq!(export(&t.join("a"), t2), export(&t.join("b1"), t2));
    }
}

#[test]
fn plain_xml_and_pbzip2_style_streams_agree() {
    let tmp = tempdir();
    let t = tmp.path();
    let xml = decompress(&data("ltgwiki-2017-complete.xml.bz2"));
    // Plain XML, detected from the bytes even under a misleading name.
    let plain = t.join("dump.bin");
    std::fs::write(&plain, &xml).unwrap();
    build(&data("ltgwiki-2017-complete.xml.bz2"), &t.join("ref"), &[]);
    build(&plain, &t.join("plain"), &["-j", "2"]);
    assert_same_index(&t.join("ref"), &t.join("plain"), "plain XML");
    // Streams cut every 100 kB regardless of page boundaries, as pbzip2 does.
    let mut cat = Vec::new();
    for chunk in xml.chunks(100_003) {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(chunk).unwrap();
        cat.extend(e.finish().unwrap());
    }
    let pb = t.join("pbzip2.xml.bz2");
    std::fs::write(&pb, &cat).unwrap();
    for threads in ["1", "2"] {
        let d = t.join(format!("pb{threads}"));
        build(&pb, &d, &["-j", threads]);
        assert_same_index(
            &t.join("ref"),
            &d,
            &format!("pbzip2-style, {threads} threads"),
        );
    }
}

/// Runs each sorter wrote, from the manifest.
fn sort_runs(index: &Path) -> std::collections::BTreeMap<String, u64> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(index.join("manifest.json")).unwrap()).unwrap();
    serde_json::from_value(m["build"]["sort_runs"].clone()).unwrap()
}

/// The external sorts may cut their runs anywhere: a budget so small that every sorter
/// spills dozens of runs (and merges them in several passes) must give the same bytes as
/// a build that sorts everything in memory, at any thread count.
#[test]
fn a_tiny_memory_budget_gives_the_same_index() {
    let tmp = tempdir();
    let t = tmp.path();
    let dump = data("ltgwiki-2017-complete.xml.bz2");
    build(&dump, &t.join("memory"), &["-j", "2"]);
    for (threads, budget) in [("1", "2K"), ("2", "1K")] {
        let spill = t.join(format!("spill-{threads}"));
        let small = t.join(format!("small-{threads}"));
        build(
            &dump,
            &small,
            &[
                "-j",
                threads,
                "--memory-budget",
                budget,
                "--tmp-dir",
                spill.to_str().unwrap(),
            ],
        );
        assert_same_index(
            &t.join("memory"),
            &small,
            &format!("--memory-budget {budget}, {threads} threads"),
        );
        let runs = sort_runs(&small);
        for sorter in [
            "titles",
            "links",
            "categories",
            "links-out",
            "links-in",
            "redirects-to",
            "articles",
        ] {
            assert!(runs[sorter] >= 10, "{sorter}: {runs:?}");
        }
        // Nothing is left in the temporary directory.
        let left: Vec<_> = std::fs::read_dir(&spill).unwrap().collect();
        assert!(left.is_empty(), "left behind in --tmp-dir: {left:?}");
    }
    let runs = sort_runs(&t.join("memory"));
    assert!(runs.values().all(|&r| r == 0), "{runs:?}");
}
