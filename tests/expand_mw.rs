//! `wikiwit`'s expander against MediaWiki 1.39's `action=expandtemplates`, on two wikis:
//!
//! - ltgwiki: `tests/data/expand-mw/`, recorded by `tools/mediawiki/record-expansions`
//!   from a MediaWiki set up like ltgwiki with the complete ltgwiki-2017 dump imported;
//! - enwiki with English Wikipedia's citation toolkit: `tests/data/expand-cs1/`, recorded
//!   with `--wiki enwiki-cs1` from enwiki-2016-206pages-cs1 (CS1 citations of every kind,
//!   Lang, Footnotes, Infobox, Navbox, `formatDate` and `#time` on PHP's date inputs).
//!
//! Every case in a folder's `expansions.jsonl` is expanded here with the dump's pages plus
//! the folder's `pages.txt` and must give MediaWiki's text byte for byte, unless the
//! folder's `differences.tsv` lists it with a reason (on enwiki: the category of the
//! first construct that differs). A listed case that starts to agree fails the test too,
//! so the list is always the current one. `WIKIWIT_EXPAND_MW_OUT=FILE` writes every
//! differing case (input, MediaWiki's text and wikiwit's) to FILE as JSON lines.

use std::collections::BTreeMap;

use wikiwit::dump::Dump;
use wikiwit::expand::{ExpandConfig, Expander, Messages, PageRevision};
use wikiwit::redirect::{self, RedirectSyntax};
use wikiwit::title::{InterwikiProfile, TitleCodec};

use crate::expand::{Wiki, load};
use crate::util::*;

/// One wiki's recorded expansions.
struct Recorded {
    /// Folder under `tests/data/`.
    folder: &'static str,
    dump: &'static str,
    /// wikiwit's build date of the dump (its newest template, module or message revision),
    /// to which MediaWiki's clock was pinned while recording.
    build_date: i64,
    /// The content language's recorded messages (in the folder), if it is not English.
    messages: Option<&'static str>,
    /// The recording must hold at least this many cases.
    min_cases: usize,
}

impl Recorded {
    fn path(&self, name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(self.folder)
            .join(name)
    }
}

/// `%% header` blocks, as `tools/mediawiki/record-expansions` reads them.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.split('\n') {
        if let Some(h) = line.strip_prefix("%% ") {
            out.push((h.trim().to_string(), Vec::new()));
        } else if let Some((_, lines)) = out.last_mut() {
            lines.push(line);
        }
    }
    out.into_iter()
        .map(|(h, l)| (h, l.join("\n").trim_end_matches('\n').to_string()))
        .collect()
}

/// The fixture's own pages (test templates and modules), saved into MediaWiki before
/// recording and added to the dump's here.
fn add_pages(rec: &Recorded, wiki: &mut Wiki, codec: &TitleCodec, lang: &str) {
    let text = std::fs::read_to_string(rec.path("pages.txt")).expect("pages.txt");
    for (title, body) in blocks(&text) {
        let t = codec.parse_page_title(&title).expect("fixture page title");
        if let RedirectSyntax::Target(r) = redirect::parse(&body, lang, false, codec) {
            wiki.redirects
                .insert((t.ns, t.dbkey.clone()), (r.ns, r.dbkey.clone()));
        }
        wiki.pages.insert((t.ns, t.dbkey), body);
    }
}

struct Case {
    id: String,
    title: String,
    input: String,
    output: String,
}

fn cases(rec: &Recorded) -> Vec<Case> {
    std::fs::read_to_string(rec.path("expansions.jsonl"))
        .expect("expansions.jsonl")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("fixture JSON");
            let s = |k: &str| v[k].as_str().expect("fixture field").to_string();
            assert_eq!(s("mediawiki"), "MediaWiki 1.39.17");
            Case {
                id: s("id"),
                title: s("title"),
                input: s("input"),
                output: s("output"),
            }
        })
        .collect()
}

/// `id<TAB>reason` lines: the cases that differ from MediaWiki, and why.
fn differences(rec: &Recorded) -> BTreeMap<String, String> {
    std::fs::read_to_string(rec.path("differences.tsv"))
        .expect("differences.tsv")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (id, why) = l.split_once('\t').expect("id<TAB>reason");
            assert!(!why.trim().is_empty(), "{id}: a difference needs a reason");
            (id.to_string(), why.to_string())
        })
        .collect()
}

/// Expands every case of `rec` and returns the ones that differ, with wikiwit's text.
fn expand_all<'c>(rec: &Recorded, cases: &'c [Case]) -> Vec<(&'c Case, String)> {
    let dump = Dump::open(&data(rec.dump), None).expect("open dump");
    let site = dump.siteinfo().clone();
    let codec = TitleCodec::new(&site, InterwikiProfile::Mediawiki);
    let mut wiki = load(&dump, &codec, &site.lang);
    add_pages(rec, &mut wiki, &codec, &site.lang);
    let mut config = ExpandConfig::from_site(&site, rec.build_date);
    if let Some(file) = rec.messages {
        // Recorded from the same MediaWiki (`tools/mediawiki/record-messages --fixture`).
        let messages = Messages::load(&rec.path(file)).expect("messages");
        config.messages = std::sync::Arc::new(messages);
    }
    let expander = Expander::new(&wiki, &codec, config);
    let mut differ = Vec::new();
    for case in cases {
        let t = codec
            .parse(&case.title, 0)
            .unwrap_or_else(|e| panic!("{}: title {:?}: {e}", case.id, case.title));
        // expandtemplates previews the titled page: its page id, no revision yet, the
        // pinned clock (as `wikiwit expand --title` does).
        let preview = wiki
            .revisions
            .get(&(t.ns, t.dbkey.clone()))
            .map(|r| PageRevision {
                rev_id: None,
                timestamp: rec.build_date,
                size: None,
                ..*r
            });
        expander.set_revision(preview);
        let got = expander.expand_page(t.ns, &t.dbkey, &case.input).text;
        if got != case.output {
            differ.push((case, got));
        }
    }
    differ
}

/// Writes the differing cases to `$WIKIWIT_EXPAND_MW_OUT`, for whoever works on them.
fn write_out(differ: &[(&Case, String)], allowed: &BTreeMap<String, String>) {
    let Some(path) = std::env::var_os("WIKIWIT_EXPAND_MW_OUT") else {
        return;
    };
    let mut out = String::new();
    for (case, got) in differ {
        let row = serde_json::json!({
            "id": case.id, "title": case.title, "listed": allowed.get(&case.id),
            "input": case.input, "mediawiki": case.output, "wikiwit": got,
        });
        out.push_str(&row.to_string());
        out.push('\n');
    }
    std::fs::write(&path, out).expect("write WIKIWIT_EXPAND_MW_OUT");
}

fn compare(rec: &Recorded) {
    let allowed = differences(rec);
    let cases = cases(rec);
    assert!(cases.len() >= rec.min_cases, "{} cases", cases.len());
    let differ = expand_all(rec, &cases);
    write_out(&differ, &allowed);
    let mut categories: BTreeMap<&str, usize> = BTreeMap::new();
    for why in allowed.values() {
        *categories.entry(why.as_str()).or_default() += 1;
    }
    eprintln!(
        "{}: expand vs MediaWiki 1.39: {} of {} cases equal ({} listed in differences.tsv)",
        rec.folder,
        cases.len() - differ.len(),
        cases.len(),
        allowed.len()
    );
    for (why, n) in &categories {
        eprintln!("  {n:4}  {why}");
    }
    let mut unexpected = String::new();
    for (case, got) in &differ {
        if !allowed.contains_key(&case.id) {
            unexpected.push_str(&format!(
                "--- {} (title {:?})\ninput:     {:?}\nMediaWiki: {:?}\nwikiwit:   {:?}\n",
                case.id, case.title, case.input, case.output, got
            ));
        }
    }
    let stale: Vec<&String> = allowed
        .keys()
        .filter(|id| !differ.iter().any(|(c, _)| &c.id == *id))
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} cases differ from MediaWiki:\n{unexpected}",
        differ.len() - (allowed.len() - stale.len())
    );
    assert!(
        stale.is_empty(),
        "listed in {}/differences.tsv but now equal (or gone): {stale:?}",
        rec.folder
    );
}

#[test]
fn expansions_equal_mediawiki_1_39() {
    compare(&Recorded {
        folder: "expand-mw",
        dump: "ltgwiki-2017-complete.xml.bz2",
        // 2017-08-13T03:12:18Z
        build_date: 1_502_593_938,
        messages: Some("messages-ltg.json"),
        min_cases: 200,
    });
}

#[test]
fn cs1_expansions_equal_mediawiki_1_39() {
    compare(&Recorded {
        folder: "expand-cs1",
        dump: "enwiki-2016-206pages-cs1.xml.bz2",
        // 2024-06-19T00:00:00Z
        build_date: 1_718_755_200,
        messages: None,
        min_cases: 400,
    });
}

/// The sort keys MediaWiki 1.39 gives a page's categories when `{{DEFAULTSORT:…}}` sets a
/// default key (`tests/data/expand-mw/sortkeys.jsonl`, recorded by
/// `tools/mediawiki/record-sortkeys` with `action=parse`): each case is a page of a small
/// dump holding the one template the cases call, built as a default build.
#[test]
fn category_sortkeys_equal_mediawiki_1_39() {
    let recorded = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/expand-mw/sortkeys.jsonl"),
    )
    .expect("sortkeys.jsonl");
    let cases: Vec<serde_json::Value> = recorded
        .lines()
        .map(|l| serde_json::from_str(l).expect("fixture JSON"))
        .collect();
    assert!(cases.len() >= 15, "{} sort key cases", cases.len());
    let titles: Vec<String> = (0..cases.len()).map(|i| format!("Case {i}")).collect();
    let mut pages = vec![page(
        1,
        10,
        "Template:Wikiwit strip echo",
        "2017-01-01T00:00:00Z",
        "{{{1}}}",
    )];
    for (i, c) in cases.iter().enumerate() {
        let input = c["input"].as_str().expect("input");
        pages.push(page(
            i as u64 + 2,
            0,
            &titles[i],
            "2017-01-01T00:00:00Z",
            input,
        ));
    }
    let tmp = tempdir();
    let xml = dump_xml("en", "enwiki", "first-letter", EN_NS, &pages);
    let dump = write_dump(tmp.path(), "sortkeys.xml", &xml);
    let dir = tmp.path().join("index");
    build(&dump, &dir, &["--no-text"]);
    let index = wikiwit::index::Index::open(&dir).expect("open index");
    let mut differ = Vec::new();
    for (c, title) in cases.iter().zip(&titles) {
        let n = index.find(0, &title.replace(' ', "_")).expect("case page");
        let mut ours: Vec<(String, String)> = index
            .structure(n)
            .expect("structure")
            .categories
            .into_iter()
            .map(|c| (c.dbkey, c.sortkey))
            .collect();
        ours.sort();
        let mut theirs: Vec<(String, String)> = c["categories"]
            .as_array()
            .expect("categories")
            .iter()
            .map(|p| (p[0].as_str().unwrap().into(), p[1].as_str().unwrap().into()))
            .collect();
        theirs.sort();
        if ours != theirs {
            differ.push(format!(
                "{}: MediaWiki {theirs:?}, wikiwit {ours:?}",
                c["id"]
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "sort keys differ:\n{}",
        differ.join("\n")
    );
}
