//! Wikitext structure against MediaWiki 1.39 (`../shared/oracle`): links, categories,
//! templates and section anchors, and real values of tables and infoboxes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::util::*;

/// Categories MediaWiki adds on its own when this installation meets an error (missing
/// files, missing reference lists, script errors). They are not written in any page, so
/// they are left out of the comparison (documented in the README).
const TRACKING: &[&str] = &[
    "Pages_with_broken_file_links",
    "Pages_with_reference_errors",
    "Pages_with_script_errors",
    "Pages_with_non-numeric_formatnum_arguments",
    "Lapas,_kurās_ir_bojātas_failu_saites",
    "Lapas_ar_skriptu_kļūdām",
    "Lapas_ar_atsauču_kļūdām",
];

fn tsv(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

fn oracle_rows(dir: &Path, file: &str) -> Vec<Vec<String>> {
    tsv(&std::fs::read_to_string(dir.join(file)).expect("oracle file"))
}

fn dropped(dir: &Path) -> BTreeSet<(String, String)> {
    std::fs::read_to_string(dir.join("dropped.tsv"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            l.split_once('\t').map(|(a, b)| {
                (
                    a.to_string(),
                    b.split('\t').next().unwrap_or("").to_string(),
                )
            })
        })
        .collect()
}

/// (precision, recall) of `ours` against `theirs`.
fn pr<T: Ord>(ours: &BTreeSet<T>, theirs: &BTreeSet<T>) -> (f64, f64) {
    let shared = ours.intersection(theirs).count() as f64;
    (
        shared / ours.len().max(1) as f64,
        shared / theirs.len().max(1) as f64,
    )
}

/// (source title, target namespace, target title).
type LinkSet = BTreeSet<(String, String, String)>;

struct Built {
    _tmp: tempfile::TempDir,
    index: std::path::PathBuf,
    oracle: std::path::PathBuf,
    dropped: BTreeSet<(String, String)>,
}

fn built(dump: &str, oracle_name: &str) -> Built {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&data(dump), &index, &["--interwiki", "mediawiki"]);
    let oracle = oracle(oracle_name);
    let dropped = dropped(&oracle);
    Built {
        _tmp: tmp,
        index,
        oracle,
        dropped,
    }
}

/// Links written in pages' own text (`in_template = 0`), namespace-0 sources, without
/// `Template:` targets, against `pagelinks.tsv`.
fn link_sets(b: &Built, own_only: bool) -> (LinkSet, LinkSet) {
    let keep =
        |ns: &str, t: &str| ns == "0" && !b.dropped.contains(&("0".to_string(), t.to_string()));
    let ours = tsv(&export(&b.index, "links"))
        .into_iter()
        .filter(|r| keep(&r[0], &r[1]) && r[2] != "10" && (!own_only || r[5] == "0"))
        .map(|r| (r[1].clone(), r[2].clone(), r[3].clone()))
        .collect();
    let theirs = oracle_rows(&b.oracle, "pagelinks.tsv")
        .into_iter()
        .filter(|r| keep(&r[0], &r[1]) && r[2] != "10")
        .map(|r| (r[1].clone(), r[2].clone(), r[3].clone()))
        .collect();
    (ours, theirs)
}

fn check_links_categories_templates(dump: &str, oracle_name: &str) {
    let b = built(dump, oracle_name);
    let (ours, theirs) = link_sets(&b, true);
    let (p, r) = pr(&ours, &theirs);
    eprintln!(
        "{dump}: links precision {p:.4} recall {r:.4} ({} ours, {} MediaWiki)",
        ours.len(),
        theirs.len()
    );
    assert!(
        p >= 0.99 && r >= 0.99,
        "{dump}: links precision {p:.4}, recall {r:.4}"
    );

    let keep =
        |ns: &str, t: &str| ns == "0" && !b.dropped.contains(&("0".to_string(), t.to_string()));
    let ours: BTreeSet<(String, String)> = tsv(&export(&b.index, "categories"))
        .into_iter()
        .filter(|r| keep(&r[0], &r[1]) && r[3] == "0")
        .map(|r| (r[1].clone(), r[2].clone()))
        .collect();
    let theirs: BTreeSet<(String, String)> = oracle_rows(&b.oracle, "categorylinks.tsv")
        .into_iter()
        .filter(|r| keep(&r[0], &r[1]) && !TRACKING.contains(&r[2].as_str()))
        .map(|r| (r[1].clone(), r[2].clone()))
        .collect();
    let (p, r) = pr(&ours, &theirs);
    eprintln!("{dump}: categories precision {p:.4} recall {r:.4}");
    assert!(
        p >= 0.99 && r >= 0.99,
        "{dump}: categories precision {p:.4}, recall {r:.4}"
    );

    let ours: BTreeSet<(String, String, String)> = tsv(&export(&b.index, "templates"))
        .into_iter()
        .filter(|r| keep(&r[0], &r[1]) && r[4] == "1")
        .map(|r| (r[1].clone(), r[2].clone(), r[3].clone()))
        .collect();
    let theirs: BTreeSet<(String, String, String)> = oracle_rows(&b.oracle, "templatelinks.tsv")
        .into_iter()
        .filter(|r| keep(&r[0], &r[1]))
        .map(|r| (r[1].clone(), r[2].clone(), r[3].clone()))
        .collect();
    let (p, r) = pr(&ours, &theirs);
    eprintln!("{dump}: templates precision {p:.4} recall {r:.4}");
    assert!(
        p >= 0.99 && r >= 0.99,
        "{dump}: templates precision {p:.4}, recall {r:.4}"
    );
}

#[test]
fn enwiki_2016_links_categories_templates_agree_with_mediawiki() {
    check_links_categories_templates("enwiki-2016-206pages.xml.bz2", "enwiki-2016-206pages");
}

#[test]
fn enwiki_2020_links_categories_templates_agree_with_mediawiki() {
    check_links_categories_templates(
        "enwiki-2020-27pages-infoboxes.xml.bz2",
        "enwiki-2020-27pages-infoboxes",
    );
}

/// On ltgwiki templates exist, and MediaWiki records the links they make; wikiwit does
/// not expand templates. What it records must still be right (precision), and recall is
/// reported as a figure.
#[test]
fn ltgwiki_links_are_precise_and_template_made_links_are_measured() {
    let b = built("ltgwiki-2017-complete.xml.bz2", "ltgwiki-2017");
    let (ours, theirs) = link_sets(&b, true);
    let (p, r) = pr(&ours, &theirs);
    eprintln!(
        "ltgwiki: links precision {p:.4} recall {r:.4} (MediaWiki's include template-made links)"
    );
    assert!(p >= 0.99, "ltgwiki links precision {p:.4}");
    assert!(r > 0.2, "ltgwiki links recall collapsed to {r:.4}");
}

/// Known section differences with their cause: (dump, page title, cause). Empty: every
/// page's (level, anchor) list equals MediaWiki's on all four dumps.
const KNOWN_SECTION_DIFFERENCES: &[(&str, &str, &str)] = &[];

fn check_sections(dump: &str, oracle_name: &str) {
    let b = built(dump, oracle_name);
    let ours: BTreeMap<String, Vec<(String, String)>> = export(&b.index, "sections")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let secs = v["sections"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["level"].as_str().unwrap().to_string(),
                        s["anchor"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            (v["title"].as_str().unwrap().to_string(), secs)
        })
        .collect();
    let text = std::fs::read_to_string(b.oracle.join("sections.jsonl")).unwrap();
    let (mut same, mut total) = (0, 0);
    let mut differ = Vec::new();
    for l in text.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        let title = v["title"].as_str().unwrap().to_string();
        if b.dropped
            .contains(&("0".to_string(), title.replace(' ', "_")))
        {
            continue;
        }
        let want: Vec<(String, String)> = v["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["level"].as_str().unwrap().to_string(),
                    s["anchor"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        total += 1;
        if ours.get(&title) == Some(&want) {
            same += 1;
        } else if !KNOWN_SECTION_DIFFERENCES
            .iter()
            .any(|(d, t, _)| *d == dump && *t == title)
        {
            differ.push(title);
        }
    }
    let share = same as f64 / total as f64;
    eprintln!("{dump}: sections identical on {same}/{total} pages ({share:.4})");
    assert!(
        share >= 0.99,
        "{dump}: only {share:.4} of pages have MediaWiki's sections"
    );
    assert!(
        differ.is_empty(),
        "{dump}: unexplained section differences: {differ:?}"
    );
}

#[test]
fn section_anchors_match_mediawiki_enwiki_2016() {
    check_sections("enwiki-2016-206pages.xml.bz2", "enwiki-2016-206pages");
}

#[test]
fn section_anchors_match_mediawiki_enwiki_2020() {
    check_sections(
        "enwiki-2020-27pages-infoboxes.xml.bz2",
        "enwiki-2020-27pages-infoboxes",
    );
}

#[test]
fn section_anchors_match_mediawiki_table_pages() {
    check_sections(
        "enwiki-table-markup-5pages.xml.bz2",
        "enwiki-table-markup-5pages",
    );
}

#[test]
fn section_anchors_match_mediawiki_ltgwiki() {
    check_sections("ltgwiki-2017-complete.xml.bz2", "ltgwiki-2017");
}

fn json(args: &[&str], index: &Path) -> serde_json::Value {
    let out = ok(wikiwit().args(args).arg("--json").arg("--index").arg(index));
    serde_json::from_str(out.lines().next().unwrap()).unwrap()
}

/// Values read off the wikitext of `Atlantic Ocean`, `Angela Merkel` and `IBM`:
/// `| depth = {{cvt|3646|m}}`, `| predecessor = [[Gerhard Schröder]]`,
/// `| trade_name = IBM`, `| president = {{plainlist| *[[Horst Köhler]] …}}`.
#[test]
fn infobox_fields_of_real_pages() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&data("enwiki-2020-27pages-infoboxes.xml.bz2"), &index, &[]);
    let v = json(&["infobox", "Atlantic Ocean", "depth"], &index);
    assert_eq!(v["text"], "3646 m");
    assert_eq!(v["raw"], "{{cvt|3646|m}}<ref name=\"ETOPO1\" />");
    let v = json(&["infobox", "Angela Merkel", "predecessor"], &index);
    assert_eq!(v["text"], "Gerhard Schröder");
    assert_eq!(v["links"], serde_json::json!(["Gerhard Schröder"]));
    let v = json(&["infobox", "Angela Merkel", "president"], &index);
    assert_eq!(
        v["text"],
        "Horst Köhler; Christian Wulff; Joachim Gauck; Frank-Walter Steinmeier"
    );
    let v = json(&["infobox", "IBM", "trade_name"], &index);
    assert_eq!(v["text"], "IBM");
    let missing = wikiwit()
        .args(["infobox", "IBM", "no_such_field", "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

/// Rows read off `List of Prison Break characters` (two header rows; a header cell
/// with repeated `colspan`, where the last one counts; `| colspan="5" {{CMain}}` cells).
#[test]
fn table_cells_of_a_real_list() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&data("enwiki-table-markup-5pages.xml.bz2"), &index, &[]);
    let t = json(&["table", "List of Prison Break characters", "1"], &index);
    assert_eq!(
        t["labels"],
        serde_json::json!(["Actor", "Character", "S1", "S2", "S3", "S4", "S5"])
    );
    assert_eq!(t["rows"][0][0], "Dominic Purcell");
    assert_eq!(t["rows"][0][1], "Lincoln Burrows");
    let r = json(
        &[
            "table",
            "List of Prison Break characters",
            "1",
            "--row",
            "5",
        ],
        &index,
    );
    assert_eq!(r["cells"][0]["text"], "Marshall Allman");
    assert_eq!(r["cells"][1]["text"], "Lincoln \"L.J.\" Burrows, Jr.");
    assert_eq!(
        r["cells"][1]["links"],
        serde_json::json!(["Lincoln \"L. J.\" Burrows Jr."])
    );
    assert_eq!(r["cells"][6]["text"], "N/A");
    let none = wikiwit()
        .args(["table", "List of Prison Break characters", "9", "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
}

/// The embedded sample: links with contexts, inlinks through redirects, siblings from a
/// list and a table, category members.
#[test]
fn sample_wiki_structure_queries() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &[]);
    let inl = ok(wikiwit()
        .args(["links", "Ural (river)", "--in", "--json", "--index"])
        .arg(&index));
    let rows: Vec<serde_json::Value> = inl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let table_source = rows
        .iter()
        .find(|r| r["source"] == "List of transboundary rivers")
        .unwrap();
    assert!(
        table_source["contexts"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("table"))
    );
    assert!(
        rows.iter()
            .any(|r| r["source"] == "Transboundary river" && r["via"] == "Ural River")
    );
    let sib = json(&["siblings", "Ural (river)"], &index);
    assert!(
        sib["list_pages"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("List of transboundary rivers"))
    );
    let danube = sib["siblings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["title"] == "Danube")
        .unwrap();
    let kinds: Vec<&str> = danube["together"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"table") && kinds.contains(&"list"),
        "{kinds:?}"
    );
    let cat = json(&["category", "Rivers of Europe"], &index);
    assert!(
        cat["pages"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("Danube"))
    );
    let sections = ok(wikiwit()
        .args(["sections", "Danube", "--index"])
        .arg(&index));
    assert!(sections.contains("#Navigation_2"), "{sections}");
}

/// `Agriculture` transcludes the article `{{:Agricultural science}}`: MediaWiki expands
/// it like a template and records its links for Agriculture. The build reads the
/// article from the dump — from its stream with a multistream index, from the stream or
/// XML slice the first pass noted without one, from the first pass's store in a single
/// bz2 stream — and records the same article links, marked as coming from the
/// transcluded page.
#[test]
fn links_of_a_transcluded_article_match_mediawiki() {
    let oracle_dir = oracle("enwiki-2016-206pages");
    let mut mediawiki: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in oracle_rows(&oracle_dir, "pagelinks.tsv") {
        if r[2] == "0" {
            mediawiki
                .entry(r[1].clone())
                .or_default()
                .insert(r[3].clone());
        }
    }
    // What the transclusion must add: Agriculture's links (as MediaWiki records them)
    // that the transcluded article has too and Agriculture's own text does not write.
    let expected = |own: &BTreeSet<String>| -> BTreeSet<String> {
        mediawiki["Agriculture"]
            .intersection(&mediawiki["Agricultural_science"])
            .filter(|t| !own.contains(*t))
            .cloned()
            .collect()
    };
    let tmp = tempdir();
    let idx = data("enwiki-2016-206pages-multistream-index.txt.bz2");
    let plain = tmp.path().join("enwiki.xml");
    std::fs::write(&plain, decompress(&data("enwiki-2016-206pages.xml.bz2"))).unwrap();
    let layouts: [(&str, PathBuf, Vec<&str>); 4] = [
        (
            "single stream",
            data("enwiki-2016-206pages.xml.bz2"),
            vec![],
        ),
        (
            "multistream with index",
            data("enwiki-2016-206pages-multistream.xml.bz2"),
            vec!["--multistream-index", idx.to_str().unwrap()],
        ),
        (
            "multistream without index",
            data("enwiki-2016-206pages-multistream.xml.bz2"),
            vec![],
        ),
        ("plain XML", plain.clone(), vec![]),
    ];
    for (what, dump, extra) in layouts {
        let index = tmp.path().join(what.replace(' ', "-"));
        build(&dump, &index, &extra);
        let (mut own, mut transcluded) = (BTreeSet::new(), BTreeSet::new());
        for r in tsv(&export(&index, "links")) {
            if r[1] != "Agriculture" || r[2] != "0" {
                continue;
            }
            if r[5] == "0" {
                own.insert(r[3].clone());
            }
            if r[6] == "Agricultural_science" {
                transcluded.insert(r[3].clone());
            }
        }
        let want = expected(&own);
        assert!(
            !want.is_empty(),
            "the oracle records links from the article"
        );
        assert_eq!(transcluded, want, "{what}");
        // `wikiwit expand` reads the article from the index's dump too.
        let out = ok(wikiwit()
            .args([
                "expand",
                "--title",
                "Agriculture",
                "{{:Agricultural science}}",
            ])
            .arg("--index")
            .arg(&index));
        let lead = "'''Agricultural science''' is a broad";
        assert!(
            out.contains(lead) && out.contains("[[animal science]]"),
            "{what}: {out}"
        );
    }
}
