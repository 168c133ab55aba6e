//! Real-world dump shapes, on constructed dumps: duplicate titles, namespace aliases of
//! the content language, language-specific title rules.

use std::path::{Path, PathBuf};

use crate::util::*;

/// One page of a constructed dump.
pub struct P<'a> {
    pub id: u64,
    pub ns: i32,
    pub title: &'a str,
    pub timestamp: &'a str,
    pub text: &'a str,
}

pub fn page<'a>(id: u64, ns: i32, title: &'a str, timestamp: &'a str, text: &'a str) -> P<'a> {
    P {
        id,
        ns,
        title,
        timestamp,
        text,
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A dump in MediaWiki's export format: `lang` is `<mediawiki xml:lang>`, `namespaces`
/// (key, case, localized name) its `<siteinfo>` list, `site_case` the `<case>`.
pub fn dump_xml(
    lang: &str,
    dbname: &str,
    site_case: &str,
    namespaces: &[(i32, &str, &str)],
    pages: &[P<'_>],
) -> String {
    let mut x = format!(
        "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\" xml:lang=\"{lang}\">\n  <siteinfo>\n    <sitename>Test</sitename>\n    <dbname>{dbname}</dbname>\n    <base>https://{lang}.example.org/wiki/Main</base>\n    <generator>MediaWiki 1.39.0</generator>\n    <case>{site_case}</case>\n    <namespaces>\n"
    );
    for (key, case, name) in namespaces {
        x.push_str(&format!(
            "      <namespace key=\"{key}\" case=\"{case}\">{}</namespace>\n",
            escape(name)
        ));
    }
    x.push_str("    </namespaces>\n  </siteinfo>\n");
    for p in pages {
        x.push_str(&format!(
            "  <page>\n    <title>{}</title>\n    <ns>{}</ns>\n    <id>{}</id>\n    <revision>\n      <id>{}</id>\n      <timestamp>{}</timestamp>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n      <text bytes=\"{}\" xml:space=\"preserve\">{}</text>\n    </revision>\n  </page>\n",
            escape(p.title),
            p.ns,
            p.id,
            p.id * 100,
            p.timestamp,
            p.text.len(),
            escape(p.text)
        ));
    }
    x.push_str("</mediawiki>\n");
    x
}

/// English namespaces as a first-letter wiki lists them.
pub const EN_NS: &[(i32, &str, &str)] = &[
    (0, "first-letter", ""),
    (2, "first-letter", "User"),
    (6, "first-letter", "File"),
    (10, "first-letter", "Template"),
    (14, "first-letter", "Category"),
];

pub fn write_dump(dir: &Path, name: &str, xml: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, xml).unwrap();
    path
}

/// The page id `text` resolves to, from `resolve --json`.
fn resolved_id(index: &Path, text: &str) -> Option<u64> {
    let out = ok(wikiwit()
        .args(["resolve", "--json", "--index"])
        .arg(index)
        .arg(text));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v["page"]["page_id"].as_u64()
}

fn warnings_of(index: &Path, kind: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(index.join("warnings.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|w| w["kind"] == kind)
        .collect()
}

/// Two pages titled "Oder" (ids 1 and 3) and "Elbe" linking to it; `first_ts` and
/// `second_ts` are the two Oder revisions' timestamps.
fn duplicate_dump(dir: &Path, first_ts: &str, second_ts: &str) -> PathBuf {
    let xml = dump_xml(
        "en",
        "dupwiki",
        "first-letter",
        EN_NS,
        &[
            page(
                1,
                0,
                "Oder",
                first_ts,
                "The first '''Oder'''. [[Category:Rivers]]",
            ),
            page(2, 0, "Elbe", "2024-03-01T00:00:00Z", "Near the [[Oder]]."),
            page(3, 0, "Oder", second_ts, "The second '''Oder'''."),
        ],
    );
    write_dump(dir, "dup.xml", &xml)
}

fn check_duplicate(first_ts: &str, second_ts: &str, kept: u64, dropped: u64) {
    let tmp = tempdir();
    let dump = duplicate_dump(tmp.path(), first_ts, second_ts);
    for threads in ["1", "3"] {
        let index = tmp.path().join(format!("ix{threads}"));
        let summary = build(&dump, &index, &["-j", threads, "--memory-budget", "4K"]);
        assert!(
            summary.contains("duplicates  1 page(s)"),
            "summary: {summary}"
        );
        assert_eq!(resolved_id(&index, "Oder"), Some(kept));
        let w = warnings_of(&index, "duplicate-title");
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0]["page_id"], dropped);
        assert_eq!(w[0]["title"], "Oder");
        assert!(
            w[0]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("same title as page {kept}")),
            "{w:?}"
        );
        let pages = export(&index, "pages");
        assert_eq!(
            pages.lines().filter(|l| l.contains("\tOder\t")).count(),
            1,
            "{pages}"
        );
        assert!(pages.contains(&format!("{kept}\t0\tOder\t0")), "{pages}");
        let links = export(&index, "links");
        assert!(links.contains("Elbe\t0\tOder"), "{links}");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(index.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["counts"]["duplicate_titles"], 1);
    }
}

#[test]
fn duplicate_title_keeps_the_newest_revision_when_it_comes_second() {
    check_duplicate("2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z", 3, 1);
}

#[test]
fn duplicate_title_keeps_the_newest_revision_when_it_comes_first() {
    check_duplicate("2024-06-01T00:00:00Z", "2024-01-01T00:00:00Z", 1, 3);
}

#[test]
fn duplicate_title_with_equal_timestamps_keeps_the_first_in_the_dump() {
    check_duplicate("2024-06-01T00:00:00Z", "2024-06-01T00:00:00Z", 1, 3);
}

#[test]
fn duplicate_titles_are_refused_with_strict() {
    let tmp = tempdir();
    let dump = duplicate_dump(tmp.path(), "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z");
    let index = tmp.path().join("ix");
    let o = wikiwit()
        .arg("build")
        .arg(&dump)
        .arg("--index")
        .arg(&index)
        .args(["-q", "--strict"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("dup.xml") && err.contains("pages 1 and 3 both have the title \"Oder\""),
        "{err}"
    );
    assert!(!index.exists());
}
