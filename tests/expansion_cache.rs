//! What the expander keeps from page to page — each worker's Lua state with the library
//! loaded and the modules compiled, template expansions that read nothing of the page —
//! changes nothing in the index: every shared dump whose pages call templates and
//! modules builds to the same bytes with those caches on (on two threads, so pages
//! share states in another grouping) and off (`WIKIWIT_NO_EXPANSION_CACHE`, one thread).
//! Without the full-text index (`--no-text`), whose segments tantivy names at random.
//! `costs.json` is among the files compared: calls replayed from the cache count as
//! calls expanded.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{build_command, data, export, ok};

/// The manifest's fields that say when and how fast the build ran, left out.
pub(super) fn manifest_without_times(bytes: &[u8]) -> serde_json::Value {
    let mut m: serde_json::Value = serde_json::from_slice(bytes).expect("manifest JSON");
    for k in ["checksum", "built_at"] {
        m.as_object_mut().expect("manifest object").remove(k);
    }
    let build = m["build"].as_object_mut().expect("manifest build");
    for k in ["seconds", "phases", "threads"] {
        build.remove(k);
    }
    m
}

/// Every file under `dir` by its path relative to `dir`, with its bytes.
pub(super) fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read index dir") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under dir");
                out.insert(
                    rel.to_string_lossy().into_owned(),
                    std::fs::read(&p).expect("read index file"),
                );
            }
        }
    }
    out
}

/// `modules`: whether the dump's pages run Lua modules (else they call templates only).
fn same_index_with_and_without_caches(dump: &str, modules: bool) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (on, off) = (tmp.path().join("on"), tmp.path().join("off"));
    let dump = data(dump);
    ok(build_command(&dump, &on, &["-j", "2", "--no-text"])
        .env_remove(wikiwit::expand::NO_CACHE_ENV));
    ok(build_command(&dump, &off, &["-j", "1", "--no-text"])
        .env(wikiwit::expand::NO_CACHE_ENV, "1"));
    let (a, b) = (files(&on), files(&off));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{}: the indexes hold different files",
        dump.display()
    );
    assert!(a.len() > 5, "{}: too few index files", dump.display());
    // The cost table counts calls as expanded, cache hits as misses.
    assert!(
        a.contains_key("costs.json"),
        "{}: no costs.json",
        dump.display()
    );
    for (name, bytes) in &a {
        if name == "manifest.json" {
            assert_eq!(
                manifest_without_times(bytes),
                manifest_without_times(&b[name]),
                "{}: the manifests differ",
                dump.display()
            );
            continue;
        }
        assert!(
            bytes == &b[name],
            "{}: {name} differs with the expansion caches on and off",
            dump.display()
        );
    }
    for table in ["links", "categories", "templates"] {
        assert_eq!(export(&on, table), export(&off, table), "export {table}");
    }
    // The pages did call templates and modules: only then do the builds test the caches.
    let templates = export(&on, "templates");
    let ns = |n: &str| templates.lines().any(|l| l.split('\t').nth(2) == Some(n));
    assert!(ns("10"), "{}: no page used a template", dump.display());
    assert_eq!(ns("828"), modules, "{}: modules used", dump.display());
}

#[test]
fn ltgwiki_index_is_the_same_with_and_without_expansion_caches() {
    same_index_with_and_without_caches("ltgwiki-2017-complete.xml.bz2", true);
}

#[test]
fn enwiki_cs1_index_is_the_same_with_and_without_expansion_caches() {
    same_index_with_and_without_caches("enwiki-2016-206pages-cs1.xml.bz2", true);
}

#[test]
fn enwiki_infoboxes_index_is_the_same_with_and_without_expansion_caches() {
    same_index_with_and_without_caches("enwiki-2020-27pages-infoboxes.xml.bz2", false);
}
