//! `wikiwit cite parse` and `cite eval-support` on real input, and bad input to every
//! `cite` command.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::*;

fn deep_report() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cite/deep_research_report.md")
}

#[test]
fn parse_json_is_the_parsed_report() {
    let out = ok(wikiwit()
        .args(["cite", "parse", "--json"])
        .arg(deep_report()));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let text = std::fs::read_to_string(deep_report()).unwrap();
    let lib = serde_json::to_value(wikiwit::cite::parse::parse_report(&text)).unwrap();
    assert_eq!(v, lib);
    // The text form has one line per citation, then the unresolved markers.
    let plain = ok(wikiwit().args(["cite", "parse"]).arg(deep_report()));
    let n = v["citations"].as_array().unwrap().len();
    assert!(plain.lines().count() >= n);
    assert!(
        plain
            .lines()
            .any(|l| l.starts_with("unresolved\t") && l.contains("[17]"))
    );
    // A header line names the columns, then the first citation.
    assert_eq!(
        plain.lines().next().unwrap(),
        "id\tline\tmarker\tkind\tsource\tclaim"
    );
    assert!(
        plain
            .lines()
            .nth(1)
            .unwrap()
            .contains("wikipedia\tGreat Barrier Reef")
    );
}

/// WiCE dev: the acceptance targets of the support scorer (F1 ≥ 0.60, ROC-AUC ≥ 0.76,
/// supported against the rest, threshold fixed in advance).
#[test]
fn eval_support_on_wice_meets_the_targets() {
    let out = ok(wikiwit()
        .args(["cite", "eval-support", "--json"])
        .arg(data("wice-dev-claims.jsonl")));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["claims"], 349);
    assert_eq!(v["supported"], 115);
    let (f1, auc) = (v["f1"].as_f64().unwrap(), v["roc_auc"].as_f64().unwrap());
    assert!(f1 >= 0.60, "F1 {f1}");
    assert!(auc >= 0.76, "AUC {auc}");
    let (p, r) = (
        v["precision"].as_f64().unwrap(),
        v["recall"].as_f64().unwrap(),
    );
    assert!((f1 - 2.0 * p * r / (p + r)).abs() < 1e-9);
    let total: u64 = [
        "true_positives",
        "false_positives",
        "false_negatives",
        "true_negatives",
    ]
    .iter()
    .map(|k| v[k].as_u64().unwrap())
    .sum();
    assert_eq!(total, 349);
    // Supported claims score higher on average than partially, partially than not.
    let m: Vec<f64> = v["mean_score"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert!(m[0] > m[1] && m[1] > m[2], "{m:?}");
}

/// A report with no Wikipedia citation of this wiki: every source is classified, none is
/// guessed, and nothing is a finding.
#[test]
fn other_sources_are_not_checkable_offline() {
    let (_tmp, ix, report) = rivers_and_report(
        "Deep learning works (LeCun et al., 2015).[1] See doi:10.1038/nature14539 and \
         arXiv:1706.03762. The German article says so.[2]\n\n## Sources\n\n\
         [1] https://www.nature.com/articles/nature14539\n\
         [2] https://de.wikipedia.org/wiki/Donau\n",
    );
    let out = ok(wikiwit()
        .args(["cite", "check", "--json", "--index"])
        .arg(&ix)
        .arg(&report));
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let kinds: Vec<(&str, &str)> = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap(), c["verdict"].as_str().unwrap()))
        .collect();
    assert!(
        kinds.iter().all(|(_, verdict)| *verdict == "not_checkable"),
        "{kinds:?}"
    );
    for kind in ["author_year", "web", "doi", "arxiv", "wikipedia"] {
        assert!(kinds.iter().any(|(k, _)| *k == kind), "{kind} in {kinds:?}");
    }
    let de = v["citations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "wikipedia")
        .unwrap();
    assert_eq!(de["existence"]["status"], "other_wiki");
    assert!(de["support"].is_null() && de["quality"]["relevance"].is_null());
    assert!(v["summary"]["existence_rate"].is_null());
}

#[test]
fn bad_input_is_an_error_naming_where() {
    let tmp = tempdir();
    let bad = tmp.path().join("latin1.md");
    std::fs::write(&bad, b"Fine line.\nCaf\xe9 [1]\n").unwrap();
    refused(
        wikiwit().args(["cite", "parse"]).arg(&bad),
        &["offset 14, line 2"],
    );

    refused(
        wikiwit().args(["cite", "parse", "/nonexistent/report.md"]),
        &["/nonexistent/report.md"],
    );

    let jsonl = tmp.path().join("claims.jsonl");
    std::fs::write(
        &jsonl,
        "{\"label\": \"supported\", \"claim\": \"A.\", \"evidence\": [\"A.\"]}\n{\"label\": \"maybe\", \"claim\": \"B.\", \"evidence\": []}\n",
    )
    .unwrap();
    refused(
        wikiwit().args(["cite", "eval-support"]).arg(&jsonl),
        &["claims.jsonl:2:"],
    );

    let tiers = tmp.path().join("tiers.json");
    std::fs::write(&tiers, "{\"kinds\": {\"web\": 1.5}}").unwrap();
    let report = tmp.path().join("r.md");
    std::fs::write(&report, "Text.[1]\n\n[1] https://example.com\n").unwrap();
    let check = |expect: &str| {
        refused(
            wikiwit()
                .args(["cite", "check", "--index", "/nonexistent", "--tiers"])
                .arg(&tiers)
                .arg(&report),
            &[expect],
        )
    };
    check("outside 0..1");

    // A hand-edited tiers file with a trailing comma: the message says where.
    std::fs::write(&tiers, "{\"kinds\": {\"web\": 0.5,}\n}").unwrap();
    check("tiers.json: line 1, column");
}
