//! The staged-table auditor on the sample wiki's rivers table (`tests/data/rivers/`):
//! the faults it must find, determinism, the lifecycle in the log, and bad input.

use std::path::{Path, PathBuf};

use crate::locator::rivers_index;
use crate::util::*;

/// A file of the sample wiki's directory.
fn fixture(name: &str) -> PathBuf {
    rivers().with_file_name(name)
}

fn sha256(p: &Path) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(std::fs::read(p).unwrap());
    d.iter().map(|b| format!("{b:02x}")).collect()
}

struct Run {
    code: Option<i32>,
    out: String,
    err: String,
    log: Vec<serde_json::Value>,
}

fn audit(contract: &Path, rows: &Path, log: &Path, extra: &[&str]) -> Run {
    let o = wikiwit()
        .arg("audit")
        .arg(contract)
        .arg(rows)
        .arg("--index")
        .arg(rivers_index())
        .arg("--findings")
        .arg(log)
        .args(extra)
        .output()
        .unwrap();
    let log = std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Run {
        code: o.status.code(),
        out: stdout(&o),
        err: stderr(&o),
        log,
    }
}

/// The table's lifecycle states in the log (without the run records).
fn lifecycle(log: &[serde_json::Value]) -> Vec<&str> {
    log.iter()
        .filter_map(|v| v["state"].as_str())
        .filter(|s| !["started", "checkpoint"].contains(s))
        .collect()
}

fn findings(log: &[serde_json::Value]) -> Vec<&serde_json::Value> {
    log.iter().filter(|v| v.get("check").is_some()).collect()
}

fn by(log: &[serde_json::Value], check: u64, row: Option<u64>) -> Vec<String> {
    findings(log)
        .into_iter()
        .filter(|f| f["check"] == check && f["row"].as_u64() == row)
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_staged_rivers_table_shows_its_four_faults() {
    let tmp = tempdir();
    let (c, r) = (
        fixture("transboundary-contract.json"),
        fixture("transboundary-rows.jsonl"),
    );
    let (c0, r0) = (sha256(&c), sha256(&r));
    let log = tmp.path().join("findings.jsonl");
    let run = audit(&c, &r, &log, &[]);
    assert_eq!(run.code, Some(1), "{}{}", run.out, run.err);
    // A row without locator (the Euphrates, row 10).
    let m = by(&run.log, 1, Some(10));
    assert!(m[0].contains("no locator"), "{m:?}");
    // A wrong length (the Rhine, row 15: 1,320 is the old figure; the table says 1,233).
    let m = by(&run.log, 2, Some(15));
    assert_eq!(m.len(), 1, "{m:?}");
    assert!(
        m[0].contains("length = \"1320 km\"") && m[0].contains("1,233"),
        "{m:?}"
    );
    // The Ural's continent: the table says "Europe, Asia"; "Europe" is ambiguous.
    let m = by(&run.log, 8, Some(13));
    assert!(m[0].contains("ambiguous") && m[0].contains("Asia"), "{m:?}");
    // A missing row against the list: 18 rivers of at least 1,000 km, 17 staged.
    let m = by(&run.log, 9, None);
    assert!(
        m[0].contains("17 row(s)") && m[0].contains("18 item(s)"),
        "{m:?}"
    );
    assert!(m[0].contains("not staged: Tigris"), "{m:?}");
    // Nothing else is blocking: names through redirects ("Amazon River" for a cell
    // linking [[Amazon River|Amazon]]; "Ural River" → Ural (river)), lists split on
    // <br />, the Ural's length from its infobox through a cell locator.
    let blocking: Vec<_> = findings(&run.log)
        .into_iter()
        .filter(|f| f["severity"] == "blocking")
        .map(|f| (f["check"].as_u64().unwrap(), f["row"].as_u64()))
        .collect();
    assert_eq!(
        blocking,
        [(1, Some(10)), (8, Some(13)), (2, Some(15)), (9, None)],
        "{:#?}",
        run.log
    );
    // Lifecycle and run records (a checkpoint before the first row and after the
    // last), and the summary.
    let states: Vec<&str> = run.log.iter().filter_map(|v| v["state"].as_str()).collect();
    assert_eq!(
        states,
        [
            "started",
            "proposed",
            "staged",
            "checkpoint",
            "checkpoint",
            "audited"
        ]
    );
    let started = &run.log[0];
    assert_eq!(
        (
            started["log_format"].as_u64(),
            started["checkpoint_rows"].as_u64()
        ),
        (Some(2), Some(1 << 20))
    );
    let last = run
        .log
        .iter()
        .rfind(|v| v["state"] == "checkpoint")
        .unwrap();
    assert_eq!(last["rows"], 17);
    assert_eq!(
        last["offset"].as_u64(),
        Some(std::fs::metadata(&r).unwrap().len())
    );
    assert!(!tmp.path().join("findings.jsonl.resume").exists());
    assert!(run.out.contains("4 blocking"), "{}", run.out);
    // The inputs are untouched.
    assert_eq!((sha256(&c), sha256(&r)), (c0, r0.clone()));
    let staged = run.log.iter().find(|v| v["state"] == "staged").unwrap();
    assert_eq!(staged["rows_sha256"], r0);
}

#[test]
fn same_inputs_same_findings_at_any_thread_count_and_a_repair_is_recorded() {
    let tmp = tempdir();
    let (c, r) = (
        fixture("transboundary-contract.json"),
        fixture("transboundary-rows.jsonl"),
    );
    let one = tmp.path().join("one.jsonl");
    let two = tmp.path().join("two.jsonl");
    audit(&c, &r, &one, &["--threads", "1"]);
    audit(&c, &r, &two, &["--threads", "2"]);
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    // Re-auditing appends the same findings, and no new proposed/staged record.
    let first = std::fs::read_to_string(&one).unwrap();
    let again = audit(&c, &r, &one, &[]);
    let all = std::fs::read_to_string(&one).unwrap();
    let second = &all[first.len()..];
    let strip = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| !l.contains("\"state\":"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(strip(&first), strip(second));
    assert_eq!(
        lifecycle(&again.log),
        ["proposed", "staged", "audited", "audited"]
    );
    // The repaired table: the Euphrates cited, the Rhine's length corrected, the Tigris
    // added, the Ural's continent marked as an inferred choice.
    let fixed = tmp.path().join("fixed.jsonl");
    let text = std::fs::read_to_string(&r)
        .unwrap()
        .replace(
            "\"source_page\": \"List of transboundary rivers\"}",
            "\"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:10\"}",
        )
        .replace("1320 km", "1233 km")
        .replace(
            "\"continent\": \"Europe\", \"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:13\"",
            "\"continent\": \"Europe\", \"claims\": {\"continent\": \"inferred\"}, \"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:13\"",
        )
        + "{\"river\": \"Tigris\", \"length\": \"1850 km\", \"countries\": \"Turkey; Syria; Iraq\", \"continent\": \"Asia\", \"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:15\"}\n";
    std::fs::write(&fixed, text).unwrap();
    let run = audit(&c, &fixed, &one, &[]);
    assert_eq!(run.code, Some(0), "{}{}\n{:#?}", run.out, run.err, run.log);
    assert_eq!(
        lifecycle(&run.log),
        [
            "proposed", "staged", "audited", "audited", "staged", "audited", "repaired"
        ]
    );
    // The Ural's ambiguity is still reported, as advisory.
    let ural: Vec<_> = findings(&run.log)
        .into_iter()
        .filter(|f| f["check"] == 8 && f["row"] == 13 && f["key"] == "Ural River")
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert_eq!(ural.last(), Some(&"advisory"));
}

#[test]
fn csv_rows_per_row_errors_and_bad_locators() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let rows = tmp.path().join("rows.csv");
    std::fs::write(
        &rows,
        "river,length,countries,continent,source_page,locator\n\
         Danube,2850 km,Germany; Austria; Slovakia; Hungary; Croatia; Serbia; Romania; Bulgaria; Moldova; Ukraine,Europe,List of transboundary rivers,#Rivers|table:1|row:8\n\
         Nile,\"6,650 km\",Uganda; South Sudan; Sudan; Egypt,Africa,List of transboundary rivers,#Rivers|table:1|row:0\n\
         Indus,3180 km,China; India; Pakistan\n\
         Amur,2824 km,Russia; China,Asia,List of transboundary rivers,table:1|row:nine\n\
         Ganges,2525 km,India; Bangladesh,Asia,List of transboundary rivers,#Mouths|table:1|row:12\n\
         Zambezi,2574 km,Zambia; Angola; Namibia; Botswana; Zimbabwe; Mozambique,Africa,List of transboundary rivers,List of transboundary rivers\n",
    )
    .unwrap();
    let before = sha256(&rows);
    let log = tmp.path().join("f.jsonl");
    let run = audit(&c, &rows, &log, &[]);
    assert_eq!(run.code, Some(1), "{}", run.err);
    assert!(by(&run.log, 1, Some(0)).is_empty() && by(&run.log, 2, Some(0)).is_empty());
    // "6,650 km" is the right length, but not written canonically.
    assert!(by(&run.log, 2, Some(1)).is_empty());
    assert!(by(&run.log, 7, Some(1))[0].contains("not canonical"));
    // A short record: the fields it lacks, with its line.
    let m = by(&run.log, 6, Some(2));
    assert!(
        m[0].contains("line 4 has 3 field(s); the header has 6"),
        "{m:?}"
    );
    assert!(by(&run.log, 1, Some(2))[0].contains("no source_page"));
    // Unparseable, unresolvable and page-level locators.
    let m = by(&run.log, 1, Some(3));
    assert!(
        m[0].contains("unparseable locator") && m[0].contains("row must be a non-negative integer"),
        "{m:?}"
    );
    let m = by(&run.log, 2, Some(4));
    assert!(m[0].contains("no section \"Mouths\""), "{m:?}");
    assert!(by(&run.log, 1, Some(5))[0].contains("names only a page"));
    assert_eq!(sha256(&rows), before);
}

#[test]
fn bad_json_lines_overlong_lines_and_missing_columns_do_not_stop_the_audit() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let rows = tmp.path().join("rows.jsonl");
    let good = "{\"river\": \"Danube\", \"length\": \"2850 km\", \"countries\": \"Germany; Austria; Slovakia; Hungary; Croatia; Serbia; Romania; Bulgaria; Moldova; Ukraine\", \"continent\": \"Europe\", \"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:8\"}";
    let long = format!("{{\"river\": \"{}\"}}", "x".repeat(3 << 20));
    let text = format!(
        "{good}\n{{\"river\": \"Nile\", \n[1, 2]\n{long}\n{{\"river\": \"Indus\", \"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:6\", \"length\": \"3180 km\"}}\n{good}\n"
    );
    std::fs::write(&rows, text).unwrap();
    let before = sha256(&rows);
    let log = tmp.path().join("f.jsonl");
    let run = audit(&c, &rows, &log, &[]);
    assert_eq!(run.code, Some(1), "{}", run.err);
    assert!(by(&run.log, 6, Some(1))[0].contains("line 2, column"));
    assert!(by(&run.log, 6, Some(2))[0].contains("must be a JSON object"));
    assert!(by(&run.log, 6, Some(3))[0].contains("longer than 1048576 bytes"));
    let m = by(&run.log, 6, Some(4));
    assert!(
        m.iter().any(|x| x == "missing column \"countries\""),
        "{m:?}"
    );
    assert!(
        m.iter().any(|x| x == "missing column \"continent\""),
        "{m:?}"
    );
    // The row after the bad ones is audited like the first; the duplicate is found.
    assert!(by(&run.log, 2, Some(5)).is_empty());
    assert!(by(&run.log, 5, Some(5))[0].contains("same as row 0"));
    let audited = run.log.iter().find(|v| v["state"] == "audited").unwrap();
    assert_eq!(audited["rows"], 6);
    assert_eq!(sha256(&rows), before);
}

#[test]
fn unusable_inputs_are_errors_naming_the_file() {
    let tmp = tempdir();
    let r = fixture("transboundary-rows.jsonl");
    let bad = tmp.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"query\": \"x\", \"primary_key\": [\"river\"],\n \"columns\": [}",
    )
    .unwrap();
    let log = tmp.path().join("f.jsonl");
    let run = audit(&bad, &r, &log, &[]);
    assert_eq!(run.code, Some(2));
    assert!(run.err.contains("bad.json: line 2, column"), "{}", run.err);
    std::fs::write(
        &bad,
        r#"{"query": "x", "primary_key": ["name"], "columns": [{"name": "river"}]}"#,
    )
    .unwrap();
    let run = audit(&bad, &r, &log, &[]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.err
            .contains("primary key column \"name\" is not a declared column"),
        "{}",
        run.err
    );
    std::fs::write(
        &bad,
        r#"{"query": "x", "primary_key": ["river"], "columns": [{"name": "river", "type": "integer"}]}"#,
    )
    .unwrap();
    let run = audit(&bad, &r, &log, &[]);
    assert_eq!(run.code, Some(2));
    assert!(run.err.contains("unknown variant `integer`"), "{}", run.err);
    std::fs::write(
        &bad,
        r#"{"query": "x", "primary_key": ["river"], "columns": [{"name": "river"}], "scope": {"filters": ["river ~ x"]}}"#,
    )
    .unwrap();
    let run = audit(&bad, &r, &log, &[]);
    assert!(run.err.contains("has no operator"), "{}", run.err);
    // Missing rows; the log pointed at an input.
    let c = fixture("transboundary-contract.json");
    let run = audit(&c, &tmp.path().join("nope.jsonl"), &log, &[]);
    assert_eq!(run.code, Some(2));
    assert!(run.err.contains("nope.jsonl"), "{}", run.err);
    let copy = tmp.path().join("rows.jsonl");
    std::fs::copy(&r, &copy).unwrap();
    let before = sha256(&copy);
    let run = audit(&c, &copy, &copy, &[]);
    assert_eq!(run.code, Some(2));
    assert!(run.err.contains("is one of the inputs"), "{}", run.err);
    assert_eq!(sha256(&copy), before);
}

/// A 2 GB rows file (a sparse 2 GB first line, then a good row): the overlong line is a
/// per-row finding, the row after it is audited, and the input is not touched. The file
/// is streamed, never loaded: its size would otherwise show as an allocation failure.
#[test]
fn a_two_gigabyte_rows_file_is_streamed_with_a_finding_per_row() {
    use std::io::{Seek, SeekFrom, Write};
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let rows = tmp.path().join("huge.jsonl");
    let good = "{\"river\": \"Danube\", \"length\": \"2850 km\", \"countries\": \"Germany; Austria; Slovakia; Hungary; Croatia; Serbia; Romania; Bulgaria; Moldova; Ukraine\", \"continent\": \"Europe\", \"source_page\": \"List of transboundary rivers\", \"locator\": \"#Rivers|table:1|row:8\"}";
    let mut f = std::fs::File::create(&rows).unwrap();
    f.set_len(2 << 30).unwrap();
    f.seek(SeekFrom::End(0)).unwrap();
    writeln!(f, "\n{good}").unwrap();
    drop(f);
    let before = std::fs::metadata(&rows).unwrap();
    let log = tmp.path().join("f.jsonl");
    let run = audit(&c, &rows, &log, &[]);
    assert_eq!(run.code, Some(1), "{}", run.err);
    assert!(by(&run.log, 6, Some(0))[0].contains("longer than 1048576 bytes"));
    assert!(by(&run.log, 2, Some(1)).is_empty());
    assert!(by(&run.log, 6, Some(1)).is_empty());
    let audited = run.log.iter().find(|v| v["state"] == "audited").unwrap();
    assert_eq!(audited["rows"], 2);
    let after = std::fs::metadata(&rows).unwrap();
    assert_eq!(after.len(), before.len());
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
}

/// Streaming: a rows file far larger than one batch (8,192 records) is read batch by
/// batch; findings keep file order and the counts add up. (The 1M-row benchmark in
/// `tools/bench-audit.sh` measures the memory this keeps flat.)
#[test]
fn a_rows_file_of_many_batches_streams_in_order() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let src = std::fs::read_to_string(fixture("transboundary-rows.jsonl")).unwrap();
    let rows = tmp.path().join("big.jsonl");
    let copies = 1300; // 17 × 1300 = 22,100 rows: three batches
    let mut text = String::with_capacity(src.len() * copies);
    for _ in 0..copies {
        text.push_str(&src);
    }
    std::fs::write(&rows, &text).unwrap();
    let log = tmp.path().join("f.jsonl");
    let run = audit(&c, &rows, &log, &[]);
    assert_eq!(run.code, Some(1));
    let audited = run.log.iter().find(|v| v["state"] == "audited").unwrap();
    assert_eq!(audited["rows"], 17 * copies);
    // Every copy of the Rhine row has its wrong length found, in order.
    let rhine: Vec<u64> = findings(&run.log)
        .into_iter()
        .filter(|f| f["check"] == 2)
        .map(|f| f["row"].as_u64().unwrap())
        .collect();
    assert_eq!(rhine.len(), copies);
    assert!(rhine.windows(2).all(|w| w[1] == w[0] + 17));
    // Every later copy duplicates the first's keys.
    assert_eq!(by_check_count(&run.log, 5), 17 * (copies - 1));
}

fn by_check_count(log: &[serde_json::Value], check: u64) -> usize {
    findings(log).iter().filter(|f| f["check"] == check).count()
}

#[test]
fn the_demo_stages_and_audits_the_rivers_table() {
    let out = ok(wikiwit().arg("demo"));
    assert!(out.contains("== 6. Stage a table, audit it =="), "{out}");
    assert!(out.contains("17 rows, 4 findings (4 blocking)"), "{out}");
    assert!(out.contains("not staged: Tigris"), "{out}");
    assert!(out.contains("row 15 (Rhine)"), "{out}");
}

/// Two `wikiwit audit` processes appending to one findings log at once: every line is a
/// whole JSON record, and each run's records are all there (the log holds both runs'
/// findings, each run's own in order).
#[test]
fn two_audits_appending_to_one_log_never_tear_a_record() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let src = std::fs::read_to_string(fixture("transboundary-rows.jsonl")).unwrap();
    // Several 64 KiB batches of findings per run, so the appends overlap.
    let rows = tmp.path().join("big.jsonl");
    std::fs::write(&rows, src.repeat(400)).unwrap();
    let log = tmp.path().join("shared.jsonl");
    let alone = tmp.path().join("alone.jsonl");
    let single = audit(&c, &rows, &alone, &[]);
    let per_run = findings(&single.log).len();
    assert!(per_run > 1000, "{per_run} findings");
    let spawn = || {
        wikiwit()
            .arg("audit")
            .arg(&c)
            .arg(&rows)
            .arg("--index")
            .arg(rivers_index())
            .arg("--findings")
            .arg(&log)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let (mut a, mut b) = (spawn(), spawn());
    assert_eq!(a.wait().unwrap().code(), Some(1));
    assert_eq!(b.wait().unwrap().code(), Some(1));
    let text = std::fs::read_to_string(&log).unwrap();
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {} is torn ({e}): {line:.200}", i + 1));
        records.push(v);
    }
    assert_eq!(findings(&records).len(), 2 * per_run);
    let audited = records.iter().filter(|v| v["state"] == "audited").count();
    assert_eq!(audited, 2);
}

/// The audit in pieces as Spark runs it: row checks on arbitrary slices, key integrity per
/// key group, the whole-table checks once over the groups' parts. On the rivers rows three
/// times over (every key duplicated across groups, a river not staged, a cited page that
/// is no declared source) the findings equal, as a multiset, those of `wikiwit audit`.
#[test]
fn the_audit_in_key_groups_finds_what_the_single_audit_finds() {
    use wikiwit::audit::{Contract, Prepared, pieces};
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let src = std::fs::read_to_string(fixture("transboundary-rows.jsonl")).unwrap();
    let lines: Vec<&str> = src.lines().filter(|l| !l.trim().is_empty()).collect();
    let tripled: Vec<&str> = lines.iter().chain(&lines).chain(&lines).copied().collect();
    let rows = tmp.path().join("rows.jsonl");
    std::fs::write(&rows, tripled.join("\n") + "\n").unwrap();
    let run = audit(&c, &rows, &tmp.path().join("f.jsonl"), &[]);
    let want: Vec<serde_json::Value> = findings(&run.log).into_iter().cloned().collect();
    assert!(want.iter().any(|f| f["check"] == 5) && want.iter().any(|f| f["check"] == 9));

    let index = wikiwit::index::Index::open(rivers_index()).unwrap();
    let contract = Contract::from_slice(&std::fs::read(&c).unwrap(), "contract").unwrap();
    let prepared = Prepared::new(contract, "contract", "a".into()).unwrap();
    let json: Vec<pieces::JsonRow<'_>> = tripled
        .iter()
        .enumerate()
        .map(|(n, l)| pieces::JsonRow {
            number: n,
            line: n as u64 + 1,
            json: l.as_bytes(),
        })
        .collect();
    let mut got = Vec::new();
    let mut summaries = Vec::new();
    for slice in json.chunks(10) {
        for (f, s) in pieces::check_rows(&prepared, &index, slice).unwrap() {
            got.extend(f);
            summaries.push(s);
        }
    }
    let groups = 3;
    let mut parts = Vec::new();
    for g in 0..groups {
        let group = summaries
            .iter()
            .filter(|s| pieces::group_key(s) % groups == g)
            .cloned();
        let (f, part) = pieces::key_group(&prepared, &index, group);
        got.extend(f);
        parts.push(part);
    }
    assert!(parts.iter().filter(|p| !p.sources.is_empty()).count() >= 2);
    parts.reverse(); // the merge is order-free
    got.extend(pieces::merged_findings(&prepared, &index, parts, tripled.len()).unwrap());

    let key = |f: &serde_json::Value| {
        [
            "check", "severity", "row", "line", "key", "locator", "evidence", "message",
        ]
        .map(|k| f[k].to_string())
    };
    let mut want: Vec<_> = want.iter().map(key).collect();
    let mut got: Vec<_> = got
        .iter()
        .map(|f| key(&serde_json::to_value(f).unwrap()))
        .collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// The rivers rows `copies` times over in `dir` (every later copy repeats the keys).
fn rivers_rows(dir: &Path, copies: usize) -> PathBuf {
    let src = std::fs::read_to_string(fixture("transboundary-rows.jsonl")).unwrap();
    let rows = dir.join(format!("rivers-{copies}.jsonl"));
    std::fs::write(&rows, src.repeat(copies)).unwrap();
    rows
}

/// The findings log is the same bytes at one, two and three threads, and with a memory
/// budget so small that the per-row summaries spill to hundreds of sorted runs.
#[test]
fn the_log_is_the_same_at_any_thread_count_and_budget() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let rows = rivers_rows(tmp.path(), 400); // 6,800 rows
    let every = ["--checkpoint-every", "1000"];
    let mut logs = Vec::new();
    for (name, extra) in [
        ("j1", vec!["-j", "1"]),
        ("j2", vec!["-j", "2"]),
        ("j3", vec!["-j", "3"]),
        ("tiny", vec!["-j", "2", "--memory-budget", "16K"]),
    ] {
        let log = tmp.path().join(format!("{name}.jsonl"));
        let run = audit(&c, &rows, &log, &[&every[..], &extra[..]].concat());
        assert_eq!(run.code, Some(1), "{}", run.err);
        let spilled: u64 = run
            .err
            .split("spilled to ")
            .nth(1)
            .and_then(|x| x.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{}", run.err));
        if name == "tiny" {
            assert!(spilled >= 10, "{spilled} runs: {}", run.err);
        } else {
            // At most one run per sorter and checkpoint under the default budget.
            assert!(spilled <= 2 * 7, "{}", run.err);
        }
        logs.push(std::fs::read(&log).unwrap());
    }
    assert!(logs.iter().all(|l| *l == logs[0]));
    let log: Vec<serde_json::Value> = String::from_utf8(logs[0].clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rows_at: Vec<u64> = log
        .iter()
        .filter(|v| v["state"] == "checkpoint")
        .map(|v| v["rows"].as_u64().unwrap())
        .collect();
    assert_eq!(rows_at, [0, 1000, 2000, 3000, 4000, 5000, 6000, 6800]);
    assert_eq!(by_check_count(&log, 5), 17 * 399);
}

/// Runs `wikiwit audit` (checkpoints every 1,000 rows) with `fault` set as the kill
/// harness's point, or a plain run without.
fn audit_until(c: &Path, rows: &Path, log: &Path, fault: Option<&str>) -> std::process::Output {
    let mut cmd = checkpointed_audit(c, rows, log);
    if let Some(f) = fault {
        cmd.env("WIKIWIT_FAULT_POINT", f);
    }
    cmd.output().unwrap()
}

/// `wikiwit audit` on 2 threads with a checkpoint every 1,000 rows.
fn checkpointed_audit(c: &Path, rows: &Path, log: &Path) -> std::process::Command {
    let mut cmd = wikiwit();
    cmd.args(["audit", "--checkpoint-every", "1000", "-j", "2"])
        .arg(c)
        .arg(rows)
        .arg("--index")
        .arg(rivers_index())
        .arg("--findings")
        .arg(log);
    cmd
}

/// Every whole line of a log a killed audit left is a JSON record (a last line without
/// its newline is an interrupted write, which readers skip).
fn assert_readable(log: &Path) {
    let text = std::fs::read(log).unwrap();
    let whole = match text.iter().rposition(|&b| b == b'\n') {
        Some(p) => &text[..=p],
        None => &text[..0],
    };
    for (i, line) in whole.split(|&b| b == b'\n').enumerate() {
        if !line.is_empty() {
            let v: Result<serde_json::Value, _> = serde_json::from_slice(line);
            assert!(
                v.is_ok(),
                "line {} of {}: {:?}",
                i + 1,
                log.display(),
                String::from_utf8_lossy(line)
            );
        }
    }
}

/// An audit stopped as `kill -9` stops it — between batches, half-way through a write to
/// the log (a torn record), in the table checks after the last row — leaves a log every
/// reader takes; the same command then goes on from the last checkpoint and leaves the
/// log an uninterrupted audit writes, byte for byte.
#[test]
fn an_audit_killed_anywhere_resumes_to_the_uninterrupted_log() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let rows = rivers_rows(tmp.path(), 400); // 6,800 rows
    let whole = tmp.path().join("whole.jsonl");
    let o = audit_until(&c, &rows, &whole, None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let want = std::fs::read(&whole).unwrap();
    let summary = stdout(&o);
    // (point, the row the resumed audit starts at)
    for (fault, from) in [
        ("audit-batch:2", 3000),
        ("audit-write:3", 1000),
        ("audit-table:0", 6800),
        ("audit-table:1", 6800),
    ] {
        let log = tmp
            .path()
            .join(format!("{}.jsonl", fault.replace(':', "-")));
        let killed = audit_until(&c, &rows, &log, Some(fault));
        assert_eq!(killed.status.code(), None, "{fault}: {}", stderr(&killed));
        assert_readable(&log);
        // What it wrote whole is the uninterrupted log's beginning.
        let got = std::fs::read(&log).unwrap();
        let whole_lines = got.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        assert!(
            whole_lines < want.len() && want.starts_with(&got[..whole_lines]),
            "{fault}"
        );
        let resumed = audit_until(&c, &rows, &log, None);
        assert_eq!(
            resumed.status.code(),
            Some(1),
            "{fault}: {}",
            stderr(&resumed)
        );
        assert!(
            stderr(&resumed).contains(&format!("at row {from} (its last checkpoint)")),
            "{fault}: {}",
            stderr(&resumed)
        );
        assert!(
            std::fs::read(&log).unwrap() == want,
            "{fault}: the resumed log differs"
        );
        assert_eq!(
            stdout(&resumed),
            summary.replace(&whole.display().to_string(), &log.display().to_string())
        );
        assert!(
            !tmp.path()
                .join(format!(
                    "{}.resume",
                    log.file_name().unwrap().to_string_lossy()
                ))
                .exists()
        );
    }
}

/// A real `kill -9` from outside, once the log shows two checkpoints: the rerun resumes
/// (from a checkpoint after the first row) and ends with the uninterrupted log.
#[test]
fn kill_9_mid_audit_then_resume() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let rows = rivers_rows(tmp.path(), 2000); // 34,000 rows
    let whole = tmp.path().join("whole.jsonl");
    let o = audit_until(&c, &rows, &whole, None);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let log = tmp.path().join("killed.jsonl");
    let mut child = checkpointed_audit(&c, &rows, &log)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    loop {
        let text = std::fs::read(&log).unwrap_or_default();
        let checkpoints = memchr::memmem::find_iter(&text, b"\"state\":\"checkpoint\"").count();
        if checkpoints >= 3 {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the audit ended before it could be killed"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(status.code(), None, "killed by a signal");
    assert_readable(&log);
    let resumed = audit_until(&c, &rows, &log, None);
    assert_eq!(resumed.status.code(), Some(1), "{}", stderr(&resumed));
    let err = stderr(&resumed);
    let from: usize = err
        .split("at row ")
        .nth(1)
        .and_then(|x| x.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not resumed: {err}"));
    assert!(from >= 2000 && from.is_multiple_of(1000), "{err}");
    assert!(std::fs::read(&log).unwrap() == std::fs::read(&whole).unwrap());
}

/// The row-level findings (checks 1–4 and 6–8) of each staged row of `log`, by the row's
/// JSON line: what a row is found to say, whichever rows come before it.
fn row_findings(
    rows: &[String],
    log: &[serde_json::Value],
) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out: std::collections::BTreeMap<String, Vec<String>> =
        rows.iter().map(|r| (r.clone(), Vec::new())).collect();
    for f in findings(log) {
        let (Some(check), Some(row)) = (f["check"].as_u64(), f["row"].as_u64()) else {
            continue;
        };
        if check == 5 || check > 8 {
            continue;
        }
        let said = format!(
            "{check} {} {} | {}",
            f["severity"], f["message"], f["evidence"]
        );
        out.get_mut(&rows[row as usize]).unwrap().push(said);
    }
    for v in out.values_mut() {
        v.sort();
    }
    out
}

/// Rows citing one locator one after another (a row and its variants: another row's
/// continent, key or countries) are found to say what the same rows say when no two
/// neighbours share a locator, or in reverse order on three threads: the worker's memo
/// of locators, titles, folded keys and verdicts (`audit/memo.rs`) and the cited page's
/// link targets, looked up as cells ask for them (`locator/resolve.rs`), change how
/// often the work is done, never its outcome.
#[test]
fn a_rows_findings_do_not_depend_on_the_rows_checked_before_it() {
    let tmp = tempdir();
    let c = fixture("transboundary-contract.json");
    let base: Vec<serde_json::Map<String, serde_json::Value>> =
        std::fs::read_to_string(fixture("transboundary-rows.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
    let n = base.len();
    // Variant k of row i: 0 and 4 the row itself, 1–3 one value taken from another row.
    let variant = |i: usize, k: usize| -> String {
        let mut r = base[i].clone();
        let from = |d: usize| &base[(i + d) % n];
        match k {
            1 => r.insert("continent".into(), from(1)["continent"].clone()),
            2 => r.insert("river".into(), from(5)["river"].clone()),
            3 => r.insert("countries".into(), from(3)["countries"].clone()),
            _ => None,
        };
        serde_json::to_string(&r).unwrap()
    };
    let runs: Vec<String> = (0..n)
        .flat_map(|i| (0..5).map(move |k| (i, k)))
        .map(|(i, k)| variant(i, k))
        .collect();
    let spread: Vec<String> = (0..5)
        .flat_map(|k| (0..n).map(move |i| (i, k)))
        .map(|(i, k)| variant(i, k))
        .collect();
    let reversed: Vec<String> = runs.iter().rev().cloned().collect();
    let mut found = Vec::new();
    for (name, rows, threads) in [
        ("runs", &runs, "1"),
        ("spread", &spread, "2"),
        ("reversed", &reversed, "3"),
    ] {
        let file = tmp.path().join(format!("{name}.jsonl"));
        std::fs::write(&file, rows.join("\n") + "\n").unwrap();
        let run = audit(
            &c,
            &file,
            &tmp.path().join(format!("{name}-log.jsonl")),
            &["-j", threads],
        );
        assert_eq!(run.code, Some(1), "{}", run.err);
        found.push(row_findings(rows, &run.log));
    }
    assert_eq!(found[0], found[1]);
    assert_eq!(found[0], found[2]);
    // The variants are told apart from the rows they share a locator with.
    let evidence = |r: &String| found[0][r].iter().filter(|f| f.starts_with("2 ")).count();
    let own: usize = (0..n).map(|i| evidence(&variant(i, 0))).sum();
    let varied: usize = (0..n).map(|i| evidence(&variant(i, 3))).sum();
    assert!(varied > own + n / 2, "{own} {varied}");
}
