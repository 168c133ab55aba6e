//! One first pass for every shard: `build --sources-only` reads a multistream dump's
//! templates, modules and messages once, and `build --shard K/N --sources DIR` takes them
//! instead of decoding their streams again. The merged index must be the one-machine
//! index, and a sources directory that is not the dump's, or is damaged, must be refused
//! before anything is published.

use std::path::{Path, PathBuf};

use crate::shards::{
    Dump, assert_same_as_one_machine, enwiki_cs1, ltgwiki, manifest, merge_command,
};
use crate::util::*;

fn index_args(dump: &Dump) -> Vec<&str> {
    vec![
        "--multistream-index",
        dump.index.to_str().unwrap(),
        "-j",
        "2",
    ]
}

/// `build --sources-only` of `dump` into `dir`; returns its summary line.
fn sources_only(dump: &Dump, dir: &Path) -> String {
    let mut args = index_args(dump);
    args.push("--sources-only");
    build(&dump.xml, dir, &args)
}

/// `build --shard K/N --sources SOURCES` of `dump` into `dir`, not yet run.
fn shard_command(dump: &Dump, dir: &Path, shard: &str, sources: &Path) -> std::process::Command {
    let mut args = index_args(dump);
    args.extend(["--shard", shard, "--sources", sources.to_str().unwrap()]);
    build_command(&dump.xml, dir, &args)
}

#[test]
fn shards_taking_one_first_pass_merge_into_the_one_machine_index() {
    let tmp = tempdir();
    let t = tmp.path();
    let dump = enwiki_cs1();
    let one = t.join("one");
    build(&dump.xml, &one, &index_args(&dump));
    let sources = t.join("sources");
    let said = sources_only(&dump, &sources);
    assert!(said.contains("--sources"), "{said}");
    // What the pass read is what the one-machine build's own first pass read.
    let m = manifest(&sources);
    assert_eq!(m["format"], "wikiwit-sources");
    assert_eq!(m["sources"], manifest(&one)["build"]["sources"]);
    assert!(m["sources"]["pages"].as_u64().unwrap() > 100, "{m}");
    assert_eq!(m["source"], manifest(&one)["source"]);
    let n = 3;
    let parts: Vec<PathBuf> = (1..=n)
        .map(|k| {
            let dir = t.join(format!("shard-{k}"));
            ok(&mut shard_command(
                &dump,
                &dir,
                &format!("{k}/{n}"),
                &sources,
            ));
            for f in ["sources.rec", "sources.fst"] {
                assert!(
                    std::fs::read(dir.join(f)).unwrap() == std::fs::read(sources.join(f)).unwrap(),
                    "shard {k}: {f} is not the one taken"
                );
            }
            dir
        })
        .collect();
    let merged = t.join("merged");
    ok(&mut merge_command(&parts, &merged));
    assert_same_as_one_machine(&one, &merged, "shards with one first pass");
    // A one-machine build may take it too.
    let taken = t.join("taken");
    let mut args = index_args(&dump);
    args.extend(["--sources", sources.to_str().unwrap()]);
    build(&dump.xml, &taken, &args);
    assert_same_as_one_machine(&one, &taken, "a build with a taken first pass");
}

/// Rewrites `dir`'s manifest with `change`; returns the manifest as it was.
fn set_manifest(dir: &Path, change: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let path = dir.join("manifest.json");
    let good = std::fs::read(&path).unwrap();
    let mut m: serde_json::Value = serde_json::from_slice(&good).unwrap();
    change(&mut m);
    std::fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    good
}

#[test]
fn a_first_pass_not_of_the_dump_or_damaged_is_refused() {
    let tmp = tempdir();
    let t = tmp.path();
    let (ltg, cs1) = (ltgwiki(), enwiki_cs1());
    let sources = t.join("sources");
    sources_only(&ltg, &sources);
    let target = t.join("shard");
    let refused_shard = |dump: &Dump, sources: &Path, expect: &[&str]| {
        refused(&mut shard_command(dump, &target, "1/2", sources), expect);
        assert!(
            !target.exists(),
            "a shard was published with {}",
            sources.display()
        );
    };
    let at = sources.display().to_string();
    refused_shard(
        &cs1,
        &sources,
        &[&at, "holds the first pass of another dump"],
    );
    // The same size and index but other bytes: found by the dump's hash, after the read.
    let good = set_manifest(&sources, |m| m["source"]["sha256"] = "0".repeat(64).into());
    refused_shard(
        &ltg,
        &sources,
        &[&at, "another dump (sha256 0000", "--sources-only"],
    );
    // One of another version: its files may be encoded otherwise.
    set_manifest(&sources, |m| m["format_version"] = 99.into());
    refused_shard(
        &ltg,
        &sources,
        &[
            &at,
            "sources format Some(99)",
            "run `build --sources-only` again",
        ],
    );
    std::fs::write(sources.join("manifest.json"), good).unwrap();
    let rec = sources.join("sources.rec");
    let good = flip(&rec);
    refused_shard(&ltg, &sources, &[&at, "sources.rec is damaged"]);
    std::fs::write(&rec, good).unwrap();
    refused_shard(
        &ltg,
        &t.join("nowhere"),
        &["not a sources directory", "--sources-only"],
    );
    // Whole again, it is taken.
    ok(&mut shard_command(&ltg, &target, "1/2", &sources));
    // A shard is not a sources directory, nor a sources directory a shard.
    refused(
        &mut shard_command(&ltg, &t.join("other"), "2/2", &target),
        &["is a shard (`build --shard K/N`), not a sources directory"],
    );
    refused(
        &mut merge_command(std::slice::from_ref(&sources), &t.join("merged")),
        &["is a sources directory", "not a shard", "--sources DIR"],
    );
    refused(
        wikiwit().args(["info", "--index"]).arg(&sources),
        &["holds the first pass of a build", "--sources DIR"],
    );
    // Only an indexed multistream dump has a first pass others can take.
    refused(
        &mut build_command(
            &data("ltgwiki-2017-complete.xml.bz2"),
            &t.join("single"),
            &["--sources-only"],
        ),
        &["--sources-only needs a multistream bz2 dump with its --multistream-index"],
    );
    assert!(!t.join("single").exists());
}

/// `--sources-only` publishes as a build does: killed at any point before the swap, it
/// leaves the sources directory in place as it was (still taken by a shard), and after
/// the swap the new one.
#[test]
fn a_killed_sources_only_leaves_the_previous_directory() {
    let tmp = tempdir();
    let t = tmp.path();
    let (ltg, cs1) = (ltgwiki(), enwiki_cs1());
    let sources = t.join("sources");
    sources_only(&ltg, &sources);
    let dump_of = |dir: &Path| manifest(dir)["source"]["file_name"].clone();
    let ltg_name = dump_of(&sources);
    let mut args = index_args(&cs1);
    args.push("--sources-only");
    // cs1's first pass reads 287 pages: the kills fall before, inside and after it.
    for point in ["sources:0", "sources:200", "publish:0", "publish:1"] {
        killed_at(&mut build_command(&cs1.xml, &sources, &args), point);
        assert_eq!(
            dump_of(&sources),
            ltg_name,
            "{point}: the directory changed"
        );
    }
    ok(&mut shard_command(&ltg, &t.join("shard"), "1/2", &sources));
    killed_at(&mut build_command(&cs1.xml, &sources, &args), "publish:2");
    assert_ne!(dump_of(&sources), ltg_name, "publish:2: not swapped");
    ok(&mut shard_command(
        &cs1,
        &t.join("cs1-shard"),
        "1/2",
        &sources,
    ));
}
