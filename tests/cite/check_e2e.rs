//! `wikiwit cite check` end to end: a handwritten report (`tests/data/reports/
//! enwiki-2016.md`) citing real pages of enwiki-2016-206pages, each claim written from
//! the page's real text (read with `wikiwit text TITLE --sentences`): correct citations,
//! a wrong figure, a wrong page, a hedged statement made certain, a missing page, a
//! redirect, an `oldid` the dump does not hold, a wrong anchor, a text-fragment quote.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::util::*;

/// One index of enwiki-2016 for every test of this module (built once, kept for the run).
fn index() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempdir();
        let ix = tmp.path().join("ix");
        build(&data("enwiki-2016-206pages.xml.bz2"), &ix, &[]);
        (tmp, ix)
    })
    .1
}

fn report() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/reports/enwiki-2016.md")
}

fn check_json() -> Value {
    let o = wikiwit()
        .args(["cite", "check", "--json", "--index"])
        .arg(index())
        .arg(report())
        .output()
        .unwrap();
    // Findings (contradicted, unsupported, missing) make the exit code 1.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    serde_json::from_str(stdout(&o).trim()).unwrap()
}

/// The citation whose claim contains `needle`.
fn citation<'a>(v: &'a Value, needle: &str) -> &'a Value {
    let all = v["citations"].as_array().unwrap();
    let found: Vec<&Value> = all
        .iter()
        .filter(|c| c["claim"].as_str().unwrap().contains(needle))
        .collect();
    assert_eq!(found.len(), 1, "claims containing {needle:?}");
    found[0]
}

#[test]
fn every_kind_of_citation_gets_its_label() {
    let v = check_json();
    let label = |needle: &str| {
        citation(&v, needle)["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Correct citations, with and without an anchor.
    assert_eq!(label("up to 23 years in captivity"), "supported");
    assert_eq!(label("only living species of the order"), "supported");
    assert_eq!(label("as much as 30 cm long"), "supported");
    assert_eq!(label("means \"earth pig\""), "supported");
    assert_eq!(label("468 km2"), "supported");
    assert_eq!(label("was in 1539"), "supported");
    // Wrong figure of the same quantity: contradicted, with the two values.
    let wrong = citation(&v, "1,230 metres");
    assert_eq!(wrong["verdict"], "contradicted");
    assert_eq!(
        wrong["support"]["conflicting_numbers"][0],
        serde_json::json!(["1,230", "1,023"])
    );
    // A year that is not the page's: unsupported (a year is no measured quantity).
    let year = citation(&v, "was in 1593");
    assert_eq!(year["verdict"], "unsupported");
    assert_eq!(year["support"]["missing_numbers"][0], "1593");
    // A real page that is about something else.
    let wrong_page = citation(&v, "elephant shrews");
    assert_eq!(wrong_page["verdict"], "unsupported");
    assert_eq!(wrong_page["existence"]["status"], "page");
    assert!(wrong_page["support"]["score"].as_f64().unwrap() < 0.25);
    // Hedged in the source ("it may mean …"), certain in the report.
    let hedged = citation(&v, "actually stem-aardvarks");
    assert_eq!(hedged["support"]["overstatement"], true);
    assert_eq!(hedged["verdict"], "partially_supported");
    // A page the index does not have.
    let missing = citation(&v, "conservation programme");
    assert_eq!(missing["verdict"], "source_missing");
    assert_eq!(
        missing["existence"],
        serde_json::json!({"status": "missing", "title": "Aardvark conservation programme"})
    );
    assert!(missing["support"].is_null());
}

#[test]
fn existence_revisions_locators_and_evidence_chain() {
    let v = check_json();
    // A redirect is followed to its target.
    let redirect = citation(&v, "Chinese abacus");
    assert_eq!(redirect["existence"]["status"], "redirect");
    assert_eq!(redirect["existence"]["via"][0], "AbacuS");
    assert_eq!(redirect["page"]["title"], "Abacus");
    assert_eq!(redirect["verdict"], "supported");
    // oldid: the dump's revision, and one it does not hold.
    let same = citation(&v, "468 km2");
    assert_eq!(same["revision"]["same"], true);
    assert_eq!(same["revision"]["dump"], 716989112);
    let other = citation(&v, "102,484 inhabitants");
    assert_eq!(other["revision"]["cited"], 700000000);
    assert_eq!(other["revision"]["same"], false);
    // An anchor the page does not have: the locator fails, the page still supports it.
    let bad_anchor = citation(&v, "highest life expectancy");
    assert_eq!(bad_anchor["locator"]["resolved"], false);
    assert_eq!(bad_anchor["locator"]["precision"], "page");
    assert_eq!(bad_anchor["verdict"], "supported");
    // A section anchor resolves; the evidence sentence is in that section and its byte
    // range is the sentence's range in the wikitext.
    let anchored = citation(&v, "up to 23 years in captivity");
    assert_eq!(anchored["locator"]["precision"], "section");
    assert_eq!(anchored["locator"]["anchor"], "Ecology_and_behavior");
    let e = &anchored["support"]["evidence"][0];
    assert_eq!(e["text"], "Aardvarks live for up to 23 years in captivity.");
    assert_eq!(e["anchor"], "Ecology_and_behavior");
    assert!(e["end"].as_u64().unwrap() > e["start"].as_u64().unwrap());
    // Supported only outside the cited section (the lead, not #Geography).
    let outside = citation(&v, "32 km long");
    assert_eq!(outside["support"]["outside_cited_section"], true);
    assert_eq!(outside["support"]["evidence"][0]["section"], 0);
    // A #:~:text= quote pins the sentence.
    let quoted = citation(&v, "end of the Paleocene");
    assert_eq!(quoted["locator"]["precision"], "quote");
    assert_eq!(quoted["locator"]["anchor"], "Evolutionary_history");
    assert_eq!(quoted["verdict"], "supported");
}

#[test]
fn summary_metrics_and_worst_first_order() {
    let v = check_json();
    let s = &v["summary"];
    assert_eq!(s["citations"], 16);
    assert_eq!(s["wikipedia_citations"], 16);
    assert_eq!(s["existing"], 15);
    assert_eq!(s["other_revision"], 1);
    assert_eq!(s["support_checked"], 15);
    assert_eq!(s["overstatements"], 1);
    assert_eq!(s["by_verdict"]["contradicted"], 1);
    assert_eq!(s["by_verdict"]["source_missing"], 1);
    let rate = s["existence_rate"].as_f64().unwrap();
    assert!((rate - 15.0 / 16.0).abs() < 1e-9);
    // Worst first: the contradiction leads, supported citations come last.
    let worst: Vec<u64> = v["worst_first"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let verdict_of = |id: u64| v["citations"][id as usize]["verdict"].as_str().unwrap();
    assert_eq!(verdict_of(worst[0]), "contradicted");
    assert_eq!(verdict_of(*worst.last().unwrap()), "supported");
    // The markdown rendering lists the metrics, then the citations in the same order.
    let o = wikiwit()
        .args(["cite", "check", "--markdown", "--index"])
        .arg(index())
        .arg(report())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let md = stdout(&o);
    assert!(
        md.contains(
            "| existence rate | 93.8% (15 of 16 Wikipedia citations; 1 cite another revision) |"
        ),
        "{md}"
    );
    let table = &md[md.find("## Citations, worst first").unwrap()..];
    let first_row = table.lines().nth(4).unwrap();
    assert!(
        first_row.starts_with(&format!("| {} |", worst[0])),
        "{first_row}"
    );
    assert!(first_row.contains("| contradicted |"), "{first_row}");
}

#[test]
fn check_output_is_deterministic() {
    let run = || {
        wikiwit()
            .args(["cite", "check", "--json", "--index"])
            .arg(index())
            .arg(report())
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(run(), run());
}
