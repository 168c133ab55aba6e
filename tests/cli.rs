//! The command line on the sample wiki: resolve, info, export, demo, exit codes.

use std::path::Path;

use crate::util::*;

fn rivers_index() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempdir();
    let index = tmp.path().join("rivers");
    build(&rivers(), &index, &[]);
    (tmp, index)
}

#[test]
fn resolve_follows_double_redirects_and_keeps_fragments() {
    let (_t, index) = rivers_index();
    let out = ok(wikiwit()
        .args([
            "resolve",
            "--json",
            "River Ural",
            "Iron Gates",
            "ural River",
        ])
        .arg("--index")
        .arg(&index));
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["status"], "redirect");
    assert_eq!(
        rows[0]["chain"],
        serde_json::json!(["River Ural", "Ural River", "Ural (river)"])
    );
    assert_eq!(rows[0]["target"]["title"], "Ural (river)");
    assert_eq!(rows[1]["target"]["title"], "Danube");
    assert_eq!(rows[1]["fragment"], "Iron Gates");
    assert_eq!(rows[2]["title"], "Ural River");
}

#[test]
fn resolve_exit_codes() {
    let (_t, index) = rivers_index();
    let run = |q: &str| {
        wikiwit()
            .args(["resolve", q, "--index"])
            .arg(&index)
            .output()
            .unwrap()
    };
    assert_eq!(run("Danube").status.code(), Some(0));
    let missing = run("Volga");
    assert_eq!(missing.status.code(), Some(1));
    assert!(stdout(&missing).contains("missing"));
    let broken = run("Salween River");
    assert_eq!(broken.status.code(), Some(1));
    assert!(stdout(&broken).contains("broken redirect"));
    let invalid = run("Ural [river]");
    assert_eq!(invalid.status.code(), Some(1));
    assert!(stdout(&invalid).contains("illegal character"));
    refused(
        wikiwit().args(["resolve", "X", "--index", "/nonexistent/ix"]),
        &["not a wikiwit index"],
    );
}

#[test]
fn export_redirects_lists_fragments_and_broken_targets() {
    let (_t, index) = rivers_index();
    let out = export(&index, "redirects");
    assert!(
        out.contains("0\tIron_Gates\t0\tDanube\tIron Gates\n"),
        "{out}"
    );
    assert!(out.contains("0\tSalween_River\t0\tSalween\t\n"), "{out}");
    assert!(out.contains("0\tRiver_Ural\t0\tUral_River\t\n"), "{out}");
}

#[test]
fn info_reports_the_manifest_and_verifies_checksums() {
    let (_t, index) = rivers_index();
    let out = ok(wikiwit()
        .args(["info", "--json", "--verify", "--index"])
        .arg(&index));
    let m: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(m["format"], "wikiwit-index");
    assert_eq!(m["site"]["dbname"], "riverswiki");
    assert_eq!(m["counts"]["redirects"], 8);
    assert_eq!(m["counts"]["broken_redirects"], 1);
    assert_eq!(m["counts"]["double_redirects"], 1);
    assert_eq!(m["source"]["sha256"].as_str().unwrap().len(), 64);
}

#[test]
fn an_index_of_another_format_version_is_refused() {
    let (_t, index) = rivers_index();
    let path = index.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen(
            &format!("\"format_version\": {}", wikiwit::index::FORMAT_VERSION),
            "\"format_version\": 99",
            1,
        ),
    )
    .unwrap();
    refused(
        wikiwit().args(["info", "--index"]).arg(&index),
        &[&format!(
            "format version 99, but this wikiwit reads version {}",
            wikiwit::index::FORMAT_VERSION
        )],
    );
}

/// `--pages-only`: pages and titles only. `resolve`, `info` and `export pages` answer
/// as on a complete index; commands that need structure, links or text refuse with the
/// reason (exit 2) rather than answering from stores that are not there.
#[test]
fn a_pages_only_index_resolves_and_refuses_what_it_cannot_answer() {
    let (_t, full) = rivers_index();
    let tmp = tempdir();
    let index = tmp.path().join("pages");
    let summary = build(&rivers(), &index, &["--pages-only"]);
    assert!(summary.contains("pages and titles only"), "{summary}");
    let files: std::collections::BTreeSet<String> = std::fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        [
            "dump-offsets.bin",
            "manifest.json",
            "pages.rec",
            "titles.fst",
            "warnings.jsonl"
        ]
        .map(String::from)
        .into()
    );
    for table in ["pages", "redirects"] {
        assert_eq!(export(&index, table), export(&full, table), "{table}");
    }
    let resolve = |ix: &Path| {
        ok(wikiwit()
            .args(["resolve", "Ural River", "--json", "--index"])
            .arg(ix))
    };
    assert_eq!(resolve(&index), resolve(&full));
    // The wikitext comes from the dump, through the offsets both indexes recorded.
    let wikitext = |ix: &Path| {
        ok(wikiwit()
            .args(["page", "--wikitext", "Ural River", "--index"])
            .arg(ix))
    };
    assert!(wikitext(&index).contains("[["), "{}", wikitext(&index));
    assert_eq!(wikitext(&index), wikitext(&full));
    let info = ok(wikiwit()
        .args(["info", "--verify", "--json", "--index"])
        .arg(&index));
    let m: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(m["build"]["pages_only"], true);
    assert_eq!(m["build"]["text"], false);
    for args in [
        &["links", "Ural River"][..],
        &["sections", "Ural (river)"],
        &["search", "Caspian"],
        &["export", "links"],
    ] {
        let o = refused(
            wikiwit().args(args).arg("--index").arg(&index),
            &["built with --pages-only"],
        );
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
}

#[test]
fn a_corrupted_store_fails_verification() {
    let (_t, index) = rivers_index();
    let path = index.join("pages.rec");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[40] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    refused(
        wikiwit().args(["info", "--verify", "--index"]).arg(&index),
        &["CRC-32 mismatch"],
    );
}

#[test]
fn demo_runs_on_the_embedded_sample() {
    let out = ok(wikiwit().arg("demo"));
    assert!(out.contains("pages       36"), "{out}");
    assert!(
        out.contains("River Ural → Ural River → Ural (river)"),
        "{out}"
    );
    assert!(out.contains("Danube#Iron Gates"), "{out}");
}

/// The help of `wikiwit PATH… --help`, and the subcommands it lists.
fn help_of(path: &[String]) -> (String, Vec<String>) {
    let help = ok(wikiwit().args(path).arg("--help"));
    let commands = match help.split("Commands:").nth(1) {
        Some(rest) => rest
            .split("\n\n")
            .next()
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|&c| c != "help")
            .map(str::to_string)
            .collect(),
        None => Vec::new(),
    };
    (help, commands)
}

/// Every command that prints results takes the same `--json`, documented alike; enum
/// options list their values in `--help` and refuse others with exit code 2; the
/// numbering rule is stated in the top-level help.
#[test]
fn options_are_spelled_and_documented_alike() {
    let (top, commands) = help_of(&[]);
    assert!(commands.len() >= 20, "{commands:?}");
    assert!(top.contains("Numbering: sections and tables count from 1"));
    let mut todo: Vec<Vec<String>> = commands.into_iter().map(|c| vec![c]).collect();
    let mut with_json = Vec::new();
    while let Some(path) = todo.pop() {
        let (help, subs) = help_of(&path);
        todo.extend(subs.into_iter().map(|s| [path.clone(), vec![s]].concat()));
        let lines: Vec<&str> = help
            .lines()
            .filter(|l| l.trim_start().starts_with("--json"))
            .collect();
        if lines.is_empty() {
            continue;
        }
        assert_eq!(lines.len(), 1, "{path:?}: {lines:?}");
        assert!(
            lines[0].contains("Print JSON instead of text: one object per line for a list"),
            "{path:?}: {}",
            lines[0]
        );
        with_json.push(path.join(" "));
    }
    assert!(with_json.len() >= 20, "{with_json:?}");
    let links = ok(wikiwit().args(["links", "--help"]));
    assert!(links.contains("[possible values: prose, list, table, infobox"));
    assert!(links.contains("[possible values: own, template]"));
    let build = ok(wikiwit().args(["build", "--help"]));
    assert!(build.contains("[possible values: auto, mediawiki, wikimedia]"));
    assert!(build.contains("--multistream-index <IDX>"));
    refused(
        wikiwit().args(["links", "Danube", "--context", "footnote"]),
        &["invalid value 'footnote'", "possible values"],
    );
    refused(
        wikiwit().args(["build", "x.xml", "--interwiki", "wikia"]),
        &["invalid value 'wikia'", "auto, mediawiki, wikimedia"],
    );
}

/// `wikiwit-auditgen --help` and `-h` are flags: usage on stdout, exit code 0; a wrong
/// invocation is a usage error (exit code 2) naming what is wrong, not a panic.
#[test]
fn auditgen_answers_help_and_refuses_bad_arguments_with_usage() {
    let auditgen = || std::process::Command::new(env!("CARGO_BIN_EXE_wikiwit-auditgen"));
    for flag in ["--help", "-h"] {
        let o = auditgen().arg(flag).output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{flag}: {}",
            crate::util::stderr(&o)
        );
        let out = crate::util::stdout(&o);
        assert!(out.contains("Usage: wikiwit-auditgen"), "{flag}: {out}");
        assert!(out.contains("generate") && out.contains("score"), "{out}");
        assert!(o.stderr.is_empty(), "{flag}: {}", crate::util::stderr(&o));
    }
    let o = auditgen().args(["generate", "--help"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(crate::util::stdout(&o).contains("--index <DIR>"));
    for bad in [
        &[][..],
        &["generate"],
        &["score", "labels.tsv"],
        &["frobnicate"],
    ] {
        let o = auditgen()
            .args(bad)
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let err = crate::util::stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {err}");
        assert!(err.contains("Usage:"), "{bad:?}: {err}");
        assert!(
            !err.contains("backtrace") && !err.contains("panicked"),
            "{err}"
        );
    }
}
