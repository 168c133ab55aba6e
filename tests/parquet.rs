//! `export --format parquet`: every table of the four oracle dumps read back by pyarrow
//! and DuckDB (tests/python/parquet_roundtrip.py) with the same rows and values as the
//! TSV / JSON lines export.

use std::path::Path;
use std::process::Command;

use crate::util::{TABLES, build, data, ok, python, stdout, tempdir, wikiwit};

/// Exports every table both ways into `dir`; returns the text export's line counts.
fn export_both(index: &Path, dir: &Path) -> Vec<usize> {
    TABLES
        .iter()
        .map(|t| {
            let out = dir.join(format!("{t}.parquet"));
            ok(wikiwit()
                .args(["export", t, "--format", "parquet", "--output"])
                .arg(&out)
                .arg("--index")
                .arg(index));
            assert!(out.is_file(), "{t}: no Parquet file");
            let tsv = dir.join(format!("{t}.tsv"));
            ok(wikiwit()
                .args(["export", t, "--output"])
                .arg(&tsv)
                .arg("--index")
                .arg(index));
            std::fs::read_to_string(&tsv).unwrap().lines().count()
        })
        .collect()
}

#[test]
fn parquet_exports_read_back_by_pyarrow_and_duckdb_as_the_tsv() {
    let Some(py) = python("parquet_exports_read_back_by_pyarrow_and_duckdb_as_the_tsv") else {
        return;
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/parquet_roundtrip.py");
    for dump in [
        "enwiki-2016-206pages.xml.bz2",
        "enwiki-2020-27pages-infoboxes.xml.bz2",
        "enwiki-table-markup-5pages.xml.bz2",
        "ltgwiki-2017-complete.xml.bz2",
    ] {
        let t = tempdir();
        build(&data(dump), &t.path().join("ix"), &[]);
        let lines = export_both(&t.path().join("ix"), t.path());
        let o = Command::new(&py)
            .arg(&script)
            .arg(t.path())
            .args(TABLES)
            .output()
            .expect("run python");
        let out = stdout(&o);
        assert!(
            o.status.success(),
            "{dump}: {out}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        // The row counts the readers saw; sections are one JSON line per page, so only
        // the flat tables' counts equal the text export's lines.
        for (table, n) in TABLES.iter().zip(&lines) {
            let line = out
                .lines()
                .find(|l| l.starts_with(&format!("{table} rows=")))
                .unwrap_or_else(|| panic!("{dump}: no count for {table} in {out}"));
            let rows: usize = line.split('=').nth(1).unwrap().parse().unwrap();
            if *table != "sections" {
                assert_eq!(rows, *n, "{dump} {table}");
            }
            if ["pages", "links", "sections", "text"].contains(table) {
                assert!(rows > 0, "{dump}: {table} is empty");
            }
        }
    }
}

/// Parquet needs a file; a missing --output, an unwritable one, and a table the index
/// lacks are errors with exit code 2 that leave no file behind.
#[test]
fn parquet_export_errors_are_clear() {
    let t = tempdir();
    let ix = t.path().join("ix");
    build(&crate::util::rivers(), &ix, &["--pages-only"]);
    let run = |args: &[&str], expect: &str| {
        crate::util::refused(wikiwit().args(args).arg("--index").arg(&ix), &[expect])
    };
    run(&["export", "pages", "--format", "parquet"], "--output");

    let out = t.path().join("links.parquet");
    run(
        &[
            "export",
            "links",
            "--format",
            "parquet",
            "--output",
            out.to_str().unwrap(),
        ],
        "--pages-only",
    );
    assert!(!out.exists(), "a failed export left {}", out.display());
    let leftovers: Vec<_> = std::fs::read_dir(t.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "temporary files left: {leftovers:?}");

    run(
        &[
            "export",
            "pages",
            "--format",
            "parquet",
            "--output",
            "/nonexistent-dir/p.parquet",
        ],
        "/nonexistent-dir/p.parquet",
    );
}
