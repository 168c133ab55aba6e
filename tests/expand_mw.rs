//! `wikiwit`'s expander against MediaWiki 1.39's `action=expandtemplates`: every case in
//! `tests/data/expand-mw/expansions.jsonl` (recorded by `tools/mediawiki/record-expansions`
//! from a MediaWiki set up like ltgwiki with the complete ltgwiki-2017 dump imported, plus
//! the pages of `pages.txt`) is expanded here with the same pages and must give
//! MediaWiki's text byte for byte, unless `differences.tsv` lists it with a reason.

use std::collections::BTreeMap;

use wikiwit::dump::Dump;
use wikiwit::expand::{ExpandConfig, Expander, Messages, PageRevision};
use wikiwit::redirect::{self, RedirectSyntax};
use wikiwit::title::{InterwikiProfile, TitleCodec};

use crate::expand::{Wiki, load};
use crate::util::*;

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/expand-mw")
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

/// The fixture's own pages (loops, parameters, a Lua module exercising the frame and the
/// `mw` library), saved into MediaWiki before recording and added to the dump's here.
fn add_pages(wiki: &mut Wiki, codec: &TitleCodec, lang: &str) {
    let text = std::fs::read_to_string(fixtures().join("pages.txt")).expect("pages.txt");
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

fn cases() -> Vec<Case> {
    std::fs::read_to_string(fixtures().join("expansions.jsonl"))
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

/// `id<TAB>reason` lines: the cases whose difference from MediaWiki is deliberate or
/// cannot be had offline.
fn differences() -> BTreeMap<String, String> {
    std::fs::read_to_string(fixtures().join("differences.tsv"))
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

/// 2017-08-13T03:12:18Z: the build date of this dump (its newest template, module or
/// message revision), which MediaWiki's clock was pinned to while recording.
const BUILD_DATE: i64 = 1_502_593_938;

#[test]
fn expansions_equal_mediawiki_1_39() {
    let dump = Dump::open(&data("ltgwiki-2017-complete.xml.bz2"), None).expect("open dump");
    let site = dump.siteinfo().clone();
    let codec = TitleCodec::new(&site, InterwikiProfile::Mediawiki);
    let mut wiki = load(&dump, &codec, &site.lang);
    add_pages(&mut wiki, &codec, &site.lang);
    let mut config = ExpandConfig::from_site(&site, BUILD_DATE);
    // ltg's messages and date formats, recorded from the same MediaWiki
    // (`tools/mediawiki/record-messages --fixture`).
    let messages = Messages::load(&fixtures().join("messages-ltg.json")).expect("messages");
    config.messages = std::sync::Arc::new(messages);
    let expander = Expander::new(&wiki, &codec, config);
    let allowed = differences();
    let cases = cases();
    assert!(cases.len() >= 200, "{} cases", cases.len());
    let mut differ = Vec::new();
    for case in &cases {
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
                timestamp: BUILD_DATE,
                size: None,
                ..*r
            });
        expander.set_revision(preview);
        let got = expander.expand_page(t.ns, &t.dbkey, &case.input).text;
        if got != case.output {
            differ.push((case, got));
        }
    }
    let equal = cases.len() - differ.len();
    eprintln!(
        "expand vs MediaWiki 1.39: {equal} of {} cases equal ({} listed as deliberate)",
        cases.len(),
        allowed.len()
    );
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
        "listed in differences.tsv but now equal (or gone): {stale:?}"
    );
}
