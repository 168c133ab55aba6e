//! Inputs kept from fuzzing runs (`tests/data/fuzz/TARGET/`), each replayed through the
//! check of the target that found it (`fuzz/cases.rs`): a change that makes one of them
//! panic, trip an invariant or loop fails here, without a nightly toolchain.

use std::path::{Path, PathBuf};

#[allow(dead_code)] // title, wikitext and expand have no kept inputs yet
#[path = "../fuzz/cases.rs"]
mod cases;

fn kept(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "{}: {} kept inputs, expected at least 5",
        dir.display(),
        files.len()
    );
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect()
}

/// Runs `check` on every kept input of `target`, naming the input that fails.
fn replay(target: &str, check: impl Fn(&[u8], &Path)) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let scratch = dir.path().join("input");
    for (path, bytes) in kept(target) {
        let run =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&bytes, &scratch)));
        assert!(run.is_ok(), "{target}: {} fails its check", path.display());
    }
}

#[test]
fn cite_parse_inputs() {
    replay("cite_parse", |d, _| cases::cite_parse(d));
}

#[test]
fn contract_inputs() {
    replay("contract", |d, _| cases::contract(d));
}

#[test]
fn dump_inputs() {
    replay("dump", cases::dump);
}

#[test]
fn locator_inputs() {
    replay("locator", |d, _| cases::locator(d));
}

#[test]
fn multistream_index_inputs() {
    replay("multistream_index", cases::multistream_index);
}

#[test]
fn rows_inputs() {
    replay("rows", |d, _| cases::rows(d));
}

#[test]
fn siteinfo_inputs() {
    replay("siteinfo", cases::siteinfo);
}
