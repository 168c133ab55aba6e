//! The build's cost report on real enwiki articles: `costs.json` counts each template's
//! and module's calls as the pages' expansions made them (checked against the CS1
//! citations found in the articles' wikitext by a scan of the dump independent of the
//! expander), `info` and `info --json` show the most called, and `--cost-report` adds the
//! Lua instructions and time measured (which depend on the worker's history). That the file is the same at any thread count, with the expansion
//! caches off and after a merge of shards is checked where those are
//! (`expansion_cache.rs`, `shards.rs`: every data file byte for byte).

use std::collections::BTreeSet;
use std::io::Read;

use crate::util::*;

/// (namespace, title, wikitext) of every page of a bz2 XML dump, read with the C libbz2
/// and a regular expression: nothing of wikiwit's reader.
fn dump_pages(name: &str) -> Vec<(i32, String, String)> {
    let mut xml = String::new();
    bzip2::read::MultiBzDecoder::new(std::fs::File::open(data(name)).expect("dump"))
        .read_to_string(&mut xml)
        .expect("decode dump");
    let page = regex::Regex::new(
        r"(?s)<page>.*?<title>(.*?)</title>.*?<ns>(-?\d+)</ns>.*?<text[^>]*?(?:/>|>(.*?)</text>)",
    )
    .unwrap();
    page.captures_iter(&xml)
        .map(|c| {
            let unescape = |s: &str| html_escape::decode_html_entities(s).into_owned();
            (
                c[2].parse().unwrap(),
                unescape(&c[1]),
                c.get(3).map_or(String::new(), |t| unescape(t.as_str())),
            )
        })
        .collect()
}

/// A template name as written in a call → its title as the dump has it.
fn template_title(name: &str) -> String {
    let name = name.replace('_', " ");
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let name = name.strip_prefix("Template:").unwrap_or(&name);
    let mut c = name.chars();
    match c.next() {
        Some(f) => format!("Template:{}{}", f.to_uppercase(), c.as_str()),
        None => String::new(),
    }
}

/// The CS1 citations written in the dump: calls of a template whose text invokes
/// Module:Citation/CS1 (or of a redirect to one), outside comments, in the articles and
/// in the template pages (what a template page shows: without its `<includeonly>`
/// parts). Returns (calls in articles, articles holding any, calls in both).
fn cs1_citations(pages: &[(i32, String, String)]) -> (u64, u64, u64) {
    let invokes = regex::Regex::new(r"\{\{\s*#invoke:\s*[Cc]itation/CS1\s*\|").unwrap();
    let redirect = regex::Regex::new(r"(?i)^\s*#REDIRECT\s*\[\[([^\]|#]+)").unwrap();
    let mut cs1: BTreeSet<String> = pages
        .iter()
        .filter(|(ns, _, text)| *ns == 10 && invokes.is_match(text))
        .map(|(_, t, _)| t.clone())
        .collect();
    for (ns, title, text) in pages {
        if let (10, Some(r)) = (*ns, redirect.captures(text))
            && cs1.contains(&template_title(&r[1]))
        {
            cs1.insert(title.clone());
        }
    }
    assert!(cs1.len() >= 12, "CS1 templates found: {cs1:?}");
    let hidden = regex::Regex::new(r"(?s)<!--.*?-->").unwrap();
    let include_only = regex::Regex::new(r"(?s)<includeonly>.*?</includeonly>").unwrap();
    let call = regex::Regex::new(r"\{\{\s*([^|{}]+?)\s*(?:\||\}\})").unwrap();
    let (mut in_articles, mut articles, mut all) = (0, 0, 0);
    for (ns, _, text) in pages {
        if !matches!(*ns, 0 | 10) || redirect.is_match(text) {
            continue;
        }
        let mut text = hidden.replace_all(text, "").into_owned();
        if *ns == 10 {
            text = include_only.replace_all(&text, "").into_owned();
        }
        let n = call
            .captures_iter(&text)
            .filter(|c| cs1.contains(&template_title(&c[1])))
            .count() as u64;
        all += n;
        if *ns == 0 {
            in_articles += n;
            articles += u64::from(n > 0);
        }
    }
    (in_articles, articles, all)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("JSON")
}

/// The row of `title` in a cost table's `kind` list.
fn row<'a>(table: &'a serde_json::Value, kind: &str, title: &str) -> &'a serde_json::Value {
    table[kind]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["title"] == title)
        .unwrap_or_else(|| panic!("no {kind} row for {title}"))
}

#[test]
fn enwiki_cs1_costs_count_every_citation_and_info_shows_the_costliest() {
    let tmp = tempdir();
    let (ix, report) = (tmp.path().join("ix"), tmp.path().join("costs-report.json"));
    let name = "enwiki-2016-206pages-cs1.xml.bz2";
    build(
        &data(name),
        &ix,
        &["--no-text", "--cost-report", report.to_str().unwrap()],
    );
    let costs = json(&std::fs::read_to_string(ix.join("costs.json")).expect("costs.json"));
    let (citations, articles, written) = cs1_citations(&dump_pages(name));
    let cs1 = row(&costs, "modules", "Module:Citation/CS1");
    eprintln!(
        "Module:Citation/CS1: {cs1}; citations written: {citations} in {articles} articles, {written} with the template pages"
    );
    assert!(citations > 4000, "{citations}");
    // Not equal: a citation in an argument of a template the dump lacks (an infobox)
    // is never expanded, and template pages call CS1 from the documentation they
    // transclude. Measured: 4,606 calls on 112 pages, 4,628 citations in 94 articles.
    let calls = cs1["calls"].as_u64().unwrap();
    assert!(
        calls >= citations * 97 / 100 && calls <= written,
        "CS1 calls {calls} vs citations written {citations} (articles), {written} (all)"
    );
    assert!(cs1["pages"].as_u64().unwrap() >= articles, "{cs1}");
    // Inclusive: a citation template's output holds CS1's.
    let web = row(&costs, "templates", "Template:Cite web");
    assert!(web["calls"].as_u64().unwrap() > 1000, "{web}");
    assert!(web["post_expand_size"].as_u64() <= cs1["post_expand_size"].as_u64());
    assert!(web["nodes"].as_u64() > web["calls"].as_u64());
    // Rows are in title order within each kind.
    for kind in ["templates", "modules"] {
        let titles: Vec<&str> = costs[kind]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["title"].as_str().unwrap())
            .collect();
        assert!(titles.windows(2).all(|w| w[0] < w[1]), "{kind}: {titles:?}");
    }
    // `info --json`: the manifest with the ten most called of each kind; CS1 is the
    // most called module, and its row is costs.json's.
    let info = json(&ok(wikiwit().args(["info", "--json", "--index"]).arg(&ix)));
    assert_eq!(info["format"], "wikiwit-index");
    let modules = info["costs"]["modules"].as_array().expect("top modules");
    let used = costs["modules"].as_array().unwrap().len();
    assert!(used >= 5, "{used} modules invoked");
    assert_eq!(modules.len(), used.min(10));
    assert_eq!(&modules[0], cs1);
    let calls: Vec<u64> = modules
        .iter()
        .map(|r| r["calls"].as_u64().unwrap())
        .collect();
    assert!(calls.windows(2).all(|w| w[0] >= w[1]), "{calls:?}");
    let templates = costs["templates"].as_array().unwrap().len();
    assert!(templates > 20, "{templates} templates called");
    assert_eq!(info["costs"]["templates"].as_array().unwrap().len(), 10);
    let text = ok(wikiwit().args(["info", "--top", "3", "--index"]).arg(&ix));
    assert!(text.contains("Module:Citation/CS1"), "{text}");
    assert!(text.contains("post-expand B"), "{text}");
    // The source and format stay the last lines, after the table (`info | tail -n 2`).
    let last: Vec<&str> = text.lines().rev().take(2).collect();
    assert!(
        last[1].starts_with("  source ") && last[0].starts_with("  format "),
        "{text}"
    );
    // The report outside the index: the same counts, with times.
    let measured = json(&std::fs::read_to_string(&report).expect("cost report"));
    let m = row(&measured, "modules", "Module:Citation/CS1");
    for key in ["calls", "pages", "nodes", "post_expand_size", "work"] {
        assert_eq!(m[key], cs1[key], "{key}");
    }
    assert!(m["seconds"].as_f64().unwrap() > 0.0, "{m}");
    // Lua instructions are in the report only: CS1's are Cite web's and more.
    let lua = |r: &serde_json::Value| r["lua_instructions"].as_u64().unwrap();
    let web_measured = row(&measured, "templates", "Template:Cite web");
    assert!(
        lua(web_measured) > 0 && lua(web_measured) <= lua(m),
        "{web_measured}"
    );
    assert!(cs1.get("lua_instructions").is_none(), "{cs1}");
    let count = |v: &serde_json::Value| {
        ["templates", "modules"]
            .iter()
            .map(|k| v[*k].as_array().unwrap().len())
            .sum::<usize>()
    };
    assert_eq!(count(&measured), count(&costs));
    // A damaged costs.json is refused, naming the file.
    let path = ix.join("costs.json");
    let damaged =
        std::fs::read_to_string(&path)
            .unwrap()
            .replacen("\"calls\": ", "\"calls\": 9", 1);
    std::fs::write(&path, damaged).unwrap();
    refused(
        wikiwit().args(["info", "--index"]).arg(&ix),
        &["costs.json", "CRC-32"],
    );
}

#[test]
fn a_build_without_expansion_has_no_costs() {
    let tmp = tempdir();
    let ix = tmp.path().join("ix");
    build(
        &data("enwiki-2016-206pages-cs1.xml.bz2"),
        &ix,
        &["--no-text", "--no-expand"],
    );
    assert!(!ix.join("costs.json").exists());
    let info = json(&ok(wikiwit().args(["info", "--json", "--index"]).arg(&ix)));
    assert!(info["costs"].is_null(), "{}", info["costs"]);
    // `--cost-report` needs expansion: refused before anything is built.
    let mut cmd = build_command(
        &data("enwiki-2016-206pages-cs1.xml.bz2"),
        &tmp.path().join("other"),
        &["--no-expand", "--cost-report", "x.json"],
    );
    refused(&mut cmd, &["--cost-report"]);
}
