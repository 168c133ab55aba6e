//! Locators: every form of the grammar resolved on the sample wiki and on a real dump,
//! with the exact content or the reason it does not resolve.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::*;

/// The sample wiki, built once for this module (kept for the life of the test binary).
pub fn rivers_index() -> &'static Path {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DIR.get_or_init(|| {
        let tmp = tempdir();
        let ix = tmp.path().join("rivers");
        build(&rivers(), &ix, &[]);
        (tmp, ix)
    })
    .1
}

fn locate(index: &Path, loc: &str) -> (Option<i32>, serde_json::Value, String) {
    let o = wikiwit()
        .args(["locate", loc, "--json", "--index"])
        .arg(index)
        .output()
        .unwrap();
    let v = serde_json::from_str(stdout(&o).trim()).unwrap_or(serde_json::Value::Null);
    (o.status.code(), v, stderr(&o))
}

fn found(index: &Path, loc: &str) -> serde_json::Value {
    let (code, v, err) = locate(index, loc);
    assert_eq!(code, Some(0), "{loc}: {err} {v}");
    assert_eq!(v["status"], "found", "{loc}: {v}");
    v
}

fn unresolved(index: &Path, loc: &str) -> serde_json::Value {
    let (code, v, err) = locate(index, loc);
    assert_eq!(code, Some(1), "{loc}: {err} {v}");
    assert_eq!(v["status"], "unresolved", "{loc}: {v}");
    v
}

#[test]
fn table_cells_rows_by_index_and_header() {
    let ix = rivers_index();
    // The Rhine row (16) of the Rivers table: the length cell, by header and by index.
    let v = found(
        ix,
        "List of transboundary rivers#Rivers|table:1|row:16|col:Length (km)",
    );
    assert_eq!(v["content"]["kind"], "cell");
    assert_eq!(v["content"]["cell"]["text"], "1,233");
    assert_eq!(v["content"]["cell"]["label"], "Length (km)");
    let v = found(ix, "List of transboundary rivers|table:1|row:16|col:1");
    assert_eq!(v["content"]["cell"]["text"], "1,233");
    // A row: every cell with its label; row spans are followed (Elbe's continent and mouth
    // come from the Rhine's rowspan cells).
    let v = found(ix, "List of transboundary rivers|table:1|row:17");
    let cells = v["content"]["cells"].as_array().unwrap();
    assert_eq!(cells[0]["text"], "Elbe");
    assert_eq!(cells[3]["text"], "Europe");
    assert_eq!(cells[4]["text"], "North Sea");
    assert_eq!(cells[0]["links"][0], "Elbe");
    // Tables are numbered within the named section: the basins table is table 1 there.
    let v = found(
        ix,
        "List of transboundary rivers#Largest basins|table:1|row:0",
    );
    assert_eq!(v["content"]["table"], 2);
    assert_eq!(v["content"]["cells"][1]["text"], "Amazon");
}

#[test]
fn urls_anchors_redirects_and_revisions() {
    let ix = rivers_index();
    // Desktop, mobile, index.php, percent-encoding, legacy anchors, tracking junk.
    for u in [
        "https://en.wikipedia.org/wiki/Ural_(river)#Europe%E2%80%93Asia_boundary",
        "https://en.m.wikipedia.org/wiki/Ural_(river)#Europe.E2.80.93Asia_boundary",
        "https://en.wikipedia.org/w/index.php?title=Ural_%28river%29&utm_source=chatgpt.com#Europe–Asia_boundary",
        "Ural (river)#Europe–Asia boundary",
        "Ural (river)|section:Europe–Asia boundary",
    ] {
        let v = found(ix, u);
        assert_eq!(v["page"], "Ural (river)", "{u}");
        assert_eq!(v["section"]["anchor"], "Europe–Asia_boundary", "{u}");
        let text = v["content"]["text"].as_str().unwrap();
        assert!(
            text.starts_with("The river is often taken as part of the conventional boundary"),
            "{u}: {text}"
        );
    }
    // A redirect is followed and reported.
    let v = found(ix, "River Ural|infobox:length");
    assert_eq!(v["page"], "Ural (river)");
    assert_eq!(v["via"][0], "River Ural");
    assert_eq!(v["content"]["value"], "2,428 km (1,509 mi)");
    // A redirect to a section: the section is where the redirect meant.
    let v = found(ix, "Iron Gates");
    assert_eq!(v["page"], "Danube");
    assert_eq!(v["section"]["anchor"], "Iron_Gates");
    // An oldid that is not the indexed revision resolves, and says so.
    let v = found(
        ix,
        "https://en.wikipedia.org/w/index.php?title=Danube&oldid=1|sentence:0",
    );
    assert_eq!(v["other_revision"], 1);
    assert_eq!(v["rev_id"], 5177);
    // A URL naming the page by id alone is looked up by the dump's page and revision
    // ids; a redirect's id leads on to its target.
    let danube = found(ix, "Danube|sentence:0");
    let ural = found(ix, "River Ural|sentence:0");
    let redirect_id = wikiwit()
        .args(["resolve", "River Ural", "--json", "--index"])
        .arg(ix)
        .output()
        .unwrap();
    let redirect: serde_json::Value = serde_json::from_slice(&redirect_id.stdout).unwrap();
    let redirect_id = redirect["page"]["page_id"]
        .as_u64()
        .expect("the redirect's page id");
    for (u, want) in [
        (
            format!(
                "https://en.wikipedia.org/?curid={}|sentence:0",
                danube["page_id"]
            ),
            &danube,
        ),
        (
            "https://en.wikipedia.org/w/index.php?oldid=5177|sentence:0".to_string(),
            &danube,
        ),
        (
            format!("https://en.wikipedia.org/w/index.php?curid={redirect_id}|sentence:0"),
            &ural,
        ),
    ] {
        let v = found(ix, &u);
        assert_eq!(v["page"], want["page"], "{u}");
        assert_eq!(v["content"], want["content"], "{u}");
    }
    assert_eq!(
        found(
            ix,
            &format!("https://en.wikipedia.org/?curid={redirect_id}")
        )["via"][0],
        "River Ural"
    );
}

#[test]
fn sentences_quotes_and_fields() {
    let ix = rivers_index();
    let v = found(ix, "Ural (river)#History|sentence:0");
    assert_eq!(
        v["content"]["text"],
        "The river was known as the Yaik for centuries, and the Yaik Cossacks settled along its banks from the 16th century."
    );
    let v = found(
        ix,
        "Ural (river)|quote:\"renamed the river the Ural in 1775\"",
    );
    assert_eq!(v["section"]["anchor"], "History");
    assert!(
        v["content"]["text"]
            .as_str()
            .unwrap()
            .contains("Catherine II renamed")
    );
    // Case, whitespace and typographic dashes are folded.
    found(ix, "Ural (river)|quote:\"YEMELYAN PUGACHEV (1773-1775)\"");
    let v = found(ix, "Ural (river)|infobox:Basin Size");
    assert_eq!(v["content"]["name"], "basin_size");
}

#[test]
fn list_items_counted_in_the_page_or_in_a_section_and_its_subsections() {
    let ix = rivers_index();
    // Two items under Definition, five under Governance's subsection, then Examples.
    let page_wide = found(ix, "Transboundary river|item:8");
    let in_section = found(ix, "Transboundary river#Examples|item:1");
    for v in [&page_wide, &in_section] {
        assert_eq!(v["content"]["kind"], "item");
        assert_eq!(v["content"]["text"], "Amur – Russia and China");
        assert_eq!(v["content"]["links"], serde_json::json!(["Amur"]));
    }
    assert_eq!(in_section["section"]["anchor"], "Examples");
    // A section's items include its subsections'.
    let v = found(ix, "Transboundary river#Governance|item:4");
    assert_eq!(
        v["content"]["links"],
        serde_json::json!(["International Boundary and Water Commission"])
    );
    // Through a redirect to a section (`Iron Gates` → `Danube#Iron Gates`, a section
    // without a list) items are still numbered on the whole page, as tables are.
    let v = found(ix, "Iron Gates|item:0");
    assert_eq!(v["page"], "Danube");
    assert_eq!(v["content"]["links"], serde_json::json!(["Iller"]));
}

#[test]
fn every_reason_for_not_resolving() {
    let ix = rivers_index();
    for (loc, reason, needle) in [
        ("Volga|table:1|row:0", "no_such_page", "no page \"Volga\""),
        (
            "Ural (river)#Climate",
            "no_such_section",
            "no section \"Climate\"",
        ),
        (
            "Ural (river)|infobox:population",
            "no_such_field",
            "basin_size",
        ),
        ("Ural (river)|table:1|row:0", "no_such_table", "0 table(s)"),
        (
            "List of transboundary rivers|table:1|row:20",
            "no_such_row",
            "20 data row(s)",
        ),
        (
            "List of transboundary rivers|table:1|row:0|col:Population",
            "no_such_column",
            "Population",
        ),
        (
            "List of transboundary rivers|table:1|row:0|col:9",
            "no_such_column",
            "column 9",
        ),
        (
            "Ural (river)#History|sentence:40",
            "no_such_sentence",
            "sentence 40",
        ),
        (
            "Ural (river)#Course|quote:\"renamed the river\"",
            "quote_not_found",
            "Course",
        ),
        (
            "https://fr.wikipedia.org/wiki/Danube|sentence:0",
            "other_wiki",
            "fr:Danube",
        ),
        ("wikt:river|sentence:0", "other_wiki", "another wiki"),
        (
            "https://en.wikipedia.org/?curid=999999|sentence:0",
            "no_such_page",
            "page id 999999",
        ),
        (
            "Transboundary river#Examples|item:14",
            "no_such_item",
            "14 list item(s) in section \"Examples\"",
        ),
        (
            "Transboundary river|item:25",
            "no_such_item",
            "25 list item(s) in the page",
        ),
    ] {
        let v = unresolved(ix, loc);
        assert_eq!(v["reason"], reason, "{loc}: {v}");
        let o = wikiwit()
            .args(["locate", loc, "--index"])
            .arg(ix)
            .output()
            .unwrap();
        assert!(stderr(&o).contains(needle), "{loc}: {}", stderr(&o));
    }
}

#[test]
fn bad_locators_are_errors_with_the_place() {
    let ix = rivers_index();
    for (loc, needle) in [
        ("Danube|row:3", "row: needs table:"),
        (
            "Danube|table:one",
            "byte 13: table must be a non-negative integer",
        ),
        (
            "https://example.org/wiki/Danube",
            "not a Wikipedia page URL",
        ),
        ("Danube|quote:\"unclosed", "unclosed double quote"),
    ] {
        refused(
            wikiwit().args(["locate", loc, "--index"]).arg(ix),
            &[needle],
        );
    }
}

/// On a real dump: a table row of a real list page, and an html5 anchor with
/// punctuation.
#[test]
fn real_table_rows_on_enwiki_2020() {
    let tmp = tempdir();
    let ix = tmp.path().join("ix");
    build(&data("enwiki-table-markup-5pages.xml.bz2"), &ix, &[]);
    let page = json_page(&ix, "List of Prison Break characters");
    let t = &page["tables"][0];
    let rows = t["rows"].as_u64().unwrap();
    assert!(rows > 5, "{t}");
    // Every row of the first table resolves; one past the end does not.
    for r in 0..rows {
        found(
            &ix,
            &format!("List of Prison Break characters|table:1|row:{r}"),
        );
    }
    unresolved(
        &ix,
        &format!("List of Prison Break characters|table:1|row:{rows}"),
    );
    // The same cell through the table command and through a locator.
    let grid: serde_json::Value = serde_json::from_str(
        ok(wikiwit()
            .args([
                "table",
                "List of Prison Break characters",
                "1",
                "--json",
                "--index",
            ])
            .arg(&ix))
        .trim(),
    )
    .unwrap();
    let v = found(&ix, "List of Prison Break characters|table:1|row:2|col:0");
    assert_eq!(v["content"]["cell"]["text"], grid["rows"][2][0]);
}

fn json_page(ix: &Path, title: &str) -> serde_json::Value {
    serde_json::from_str(ok(wikiwit().args(["page", title, "--json", "--index"]).arg(ix)).trim())
        .unwrap()
}

/// A quote follows the rule the citation checker's text fragments follow: a section
/// covers its subsections (as for tables), and a passage copied across a sentence
/// boundary is found, its content being exactly the sentences it covers.
#[test]
fn quotes_cover_subsections_and_span_sentences() {
    let ix = rivers_index();
    let v = found(ix, "Danube#Course|quote:\"begins at Donaueschingen\"");
    assert_eq!(v["section"]["anchor"], "Upper_Danube");
    assert_eq!(
        v["content"]["text"],
        "The river begins at Donaueschingen, where the Brigach and the Breg meet."
    );
    let v = found(ix, "Danube|quote:\"the Breg meet. It flows northeast\"");
    assert_eq!(v["section"]["anchor"], "Upper_Danube");
    assert_eq!(v["content"]["sentence"], 0);
    let text = v["content"]["text"].as_str().unwrap();
    assert!(
        text.starts_with("The river begins at Donaueschingen"),
        "{text}"
    );
    assert!(
        text.ends_with("where the Inn joins it at the Austrian border."),
        "{text}"
    );
    // Never across sections: the end of one and the start of the next are no passage.
    unresolved(ix, "Danube|quote:\"near Bratislava. Below Bratislava\"");
    found(ix, "Danube|quote:\"Below Bratislava\"");
}
