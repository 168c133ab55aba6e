//! The auditor's value matching on staged rows with the value shapes real tables hold
//! (`tests/data/values/`): separators inside text values, signs, currencies, scale words
//! and percentages in number columns, ranges and scores that state no single value,
//! column labels that name two columns or only begin another's, a `#` opening a link
//! label, CSV values read as written, and a German wiki's decimal comma.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/values")
        .join(name)
}

/// The index of a fixture wiki, built once per test binary.
fn index(wiki: &'static str) -> PathBuf {
    static DIRS: OnceLock<tempfile::TempDir> = OnceLock::new();
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let tmp = DIRS.get_or_init(tempdir);
    let ix = tmp.path().join(wiki);
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !ix.join("manifest.json").exists() {
        build(&fixture(wiki), &ix, &[]);
    }
    ix
}

/// Check-`check` messages per row number, from an audit of `rows` against `contract`.
fn audit(wiki: &'static str, contract: &str, rows: &str) -> Vec<(u64, u64, String)> {
    let tmp = tempdir();
    let log = tmp.path().join("findings.jsonl");
    let o = wikiwit()
        .arg("audit")
        .arg(fixture(contract))
        .arg(fixture(rows))
        .arg("--index")
        .arg(index(wiki))
        .arg("--findings")
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}{}",
        stdout(&o),
        stderr(&o)
    );
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("check").is_some())
        .filter_map(|v| {
            Some((
                v["check"].as_u64()?,
                v["row"].as_u64()?,
                v["message"].as_str()?.to_string(),
            ))
        })
        .collect()
}

fn of(found: &[(u64, u64, String)], check: u64, row: u64) -> Vec<&str> {
    found
        .iter()
        .filter(|(c, r, _)| *c == check && *r == row)
        .map(|(_, _, m)| m.as_str())
        .collect()
}

#[test]
fn value_shapes_are_matched_by_the_rule_that_fits_them() {
    let f = audit(
        "values-wiki.xml",
        "stadiums-contract.json",
        "stadiums-rows.jsonl",
    );
    // Separators inside text values, a currency figure: stated.
    assert!(of(&f, 2, 0).is_empty(), "{:?}", of(&f, 2, 0));
    // A range does not state its start as the value.
    let m = of(&f, 2, 1);
    assert!(
        m.len() == 1 && m[0].contains("years = \"2008\"") && m[0].contains("range"),
        "{m:?}"
    );
    // A score written with a space states no single capacity; "12 %" is "12%".
    let m = of(&f, 2, 2);
    assert!(
        m.len() == 1 && m[0].contains("capacity_n = \"9\"") && m[0].contains("several"),
        "{m:?}"
    );
    // A sign, a currency with a scale word: numbers, stated.
    assert!(of(&f, 2, 3).is_empty(), "{:?}", of(&f, 2, 3));
    assert!(of(&f, 6, 3).is_empty(), "{:?}", of(&f, 6, 3));
    // A label that only begins another column's names none, and says which it could be.
    let m = of(&f, 2, 4);
    assert!(
        m.len() == 1 && m[0].contains("col:4 \"Length (km)\""),
        "{m:?}"
    );
    assert!(of(&f, 2, 5).is_empty(), "{:?}", of(&f, 2, 5));
    // A label naming two columns is ambiguous; `Score#2` and `col:4` name one; the `#` of
    // a link label is kept.
    let m = of(&f, 2, 6);
    assert!(
        m.len() == 1 && m[0].contains("col:2 \"Score\", col:4 \"Score\""),
        "{m:?}"
    );
    assert!(of(&f, 2, 7).is_empty(), "{:?}", of(&f, 2, 7));
}

#[test]
fn csv_values_are_read_as_written_and_their_spaces_reported() {
    let f = audit(
        "values-wiki.xml",
        "stadiums-contract.json",
        "stadiums-rows.csv",
    );
    let m = of(&f, 7, 0);
    assert!(
        m.iter()
            .any(|x| x.contains("\" Arena Nord \"") && x.contains("whitespace")),
        "{m:?}"
    );
    // The value still matches its cell, and the tidy row has no finding of either kind.
    assert!(of(&f, 2, 0).is_empty() && of(&f, 2, 1).is_empty(), "{f:?}");
    assert!(of(&f, 7, 1).is_empty(), "{f:?}");
}

#[test]
fn a_german_wiki_reads_a_comma_as_its_decimal_mark() {
    let f = audit(
        "values-dewiki.xml",
        "anteile-contract.json",
        "anteile-rows.jsonl",
    );
    assert!(of(&f, 2, 0).is_empty(), "{f:?}");
    let m = of(&f, 2, 1);
    assert!(m.len() == 1 && m[0].contains("anteil = \"2031\""), "{m:?}");
    assert!(of(&f, 2, 2).is_empty(), "{f:?}");
    assert!(of(&f, 6, 0).is_empty(), "{f:?}");
}
