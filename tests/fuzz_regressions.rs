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

#[test]
fn lua_module_inputs() {
    replay("lua_module", |d, _| cases::lua_module(d));
}

/// The input that picks `pcall(unpack, {}, 0, 2^31-1)` (the case of Scribunto's
/// CommonTests that crashed the process) makes that call, and it is an error like any
/// other: the module goes on and returns what `pcall` gave.
#[test]
fn lua_module_unpack_int_max() {
    let input = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz/lua_module/unpack-int-max"),
    )
    .expect("kept input");
    let module = cases::lua_module_source(&input);
    assert!(module.contains("pcall(unpack, {}, 0, 2^31-1)"), "{module}");
    let text = cases::lua_module_text(&input);
    assert_eq!(text, "too many results to unpack");
}

/// The `lua_module` check on inputs drawn at random (a seeded xorshift, 1 to 96 bytes)
/// for `WIKIWIT_FUZZ_SECS` seconds: the structured generator run without libFuzzer's
/// instrumented build, for a machine where building that is out of reach. Ignored by
/// default (`cargo test --release --test fuzz_regressions -- --ignored`); an input that
/// fails is written to `WIKIWIT_FUZZ_OUT` (default the temporary directory) before the
/// test fails, so it can be kept in `tests/data/fuzz/lua_module/`.
#[test]
#[ignore]
fn lua_module_random() {
    let secs: u64 = std::env::var("WIKIWIT_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let seed: u64 = std::env::var("WIKIWIT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let out = std::env::var_os("WIKIWIT_FUZZ_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let mut state = seed.max(1);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let start = std::time::Instant::now();
    let mut runs = 0u64;
    let mut outcomes = std::collections::BTreeMap::<String, u64>::new();
    while start.elapsed().as_secs() < secs {
        let len = 1 + (next() % 96) as usize;
        let input: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let path = out.join(format!("lua_module-{seed}-{runs}"));
        std::fs::write(&path, &input).expect("input file");
        let text = cases::lua_module_text(&input);
        assert_eq!(text, cases::lua_module_text(&input), "{}", path.display());
        std::fs::remove_file(&path).expect("input file");
        let kind = if text.contains("scribunto-error") {
            "script error"
        } else {
            "text"
        };
        *outcomes.entry(kind.to_string()).or_default() += 1;
        runs += 1;
    }
    eprintln!(
        "lua_module_random: seed {seed}, {runs} runs in {:.0} s: {outcomes:?}",
        start.elapsed().as_secs_f64()
    );
}
