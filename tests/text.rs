//! Evidence text: sentences of real sections, search, residue-free plain text.

use std::path::Path;

use crate::util::*;

fn sentences(index: &Path, title: &str, section: &str) -> Vec<serde_json::Value> {
    let out = ok(wikiwit()
        .args(["text", title, "--section", section, "--json", "--index"])
        .arg(index));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v["sections"][0]["sentences"].as_array().unwrap().clone()
}

fn search(index: &Path, q: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let out = ok(wikiwit()
        .args(["search", q, "--json", "--index"])
        .arg(index)
        .args(extra));
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Read off the wikitext of `Anarchism` (`==Etymology and terminology==`: "…The first
/// known use of this word was in 1539.<ref>…") and `Abacus`.
#[test]
fn real_sentences_search_and_redirects_on_enwiki_2016() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    let dump = data("enwiki-2016-206pages.xml.bz2");
    build(&dump, &index, &[]);
    let s = sentences(&index, "Anarchism", "Etymology and terminology");
    assert_eq!(
        s[1]["text"],
        "The first known use of this word was in 1539."
    );
    assert_eq!(s[1]["kind"], "prose");
    // The byte range points at that sentence in the wikitext (its reference follows).
    let f = std::fs::File::open(&dump).unwrap();
    let mut xml = String::new();
    std::io::Read::read_to_string(&mut bzip2::read::MultiBzDecoder::new(f), &mut xml).unwrap();
    let start = xml.find("<title>Anarchism</title>").unwrap();
    let body = &xml[start..];
    let text_start = body.find("<text").unwrap();
    let text_start = text_start + body[text_start..].find('>').unwrap() + 1;
    let text_end = body.find("</text>").unwrap();
    let wikitext = quick_unescape(&body[text_start..text_end]);
    let (a, b) = (
        s[1]["start"].as_u64().unwrap() as usize,
        s[1]["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(
        &wikitext[a..b],
        "The first known use of this word was in 1539."
    );

    // A distinctive phrase finds its page and section first.
    let hits = search(&index, "first known use of this word was in 1539", &[]);
    assert_eq!(hits[0]["page"], "Anarchism");
    assert_eq!(hits[0]["anchor"], "Etymology_and_terminology");
    assert_eq!(
        hits[0]["best"]["text"],
        "The first known use of this word was in 1539."
    );
    // Within one page.
    let hits = search(
        &index,
        "binary abacus computers manipulate numbers",
        &["--page", "Abacus"],
    );
    assert!(hits.iter().all(|h| h["page"] == "Abacus"));
    assert_eq!(hits[0]["anchor"], "Binary_abacus");
    // Within one section: only that section can answer, even for words that fit
    // another one better.
    let hits = search(
        &index,
        "binary abacus computers manipulate numbers",
        &["--page", "Abacus", "--section", "History"],
    );
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["anchor"] == "History"), "{hits:?}");
    // A redirect's title finds its target.
    let hits = search(&index, "AfroAsiaticLanguages", &[]);
    assert_eq!(hits[0]["page"], "Afroasiatic languages");
    assert_eq!(hits[0]["via"], "AfroAsiaticLanguages");
}

/// XML character references only (the wikitext is XML-escaped in the dump).
fn quick_unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#039;", "'")
        .replace("&amp;", "&")
}

/// Infobox fields and table rows become sentences read with their labels.
#[test]
fn infobox_fields_and_table_rows_are_sentences() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&data("enwiki-2020-27pages-infoboxes.xml.bz2"), &index, &[]);
    let out = ok(wikiwit()
        .args(["text", "Atlantic Ocean", "--json", "--index"])
        .arg(&index));
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let lead = v["sections"][0]["sentences"].as_array().unwrap();
    assert!(
        lead.iter()
            .any(|s| s["kind"] == "infobox" && s["text"] == "depth: 3646 m"),
        "{lead:?}"
    );
    let tmp2 = tempdir();
    let index2 = tmp2.path().join("ix");
    build(&data("enwiki-table-markup-5pages.xml.bz2"), &index2, &[]);
    let out = ok(wikiwit()
        .args([
            "text",
            "List of Prison Break characters",
            "--json",
            "--index",
        ])
        .arg(&index2));
    assert!(
        out.contains("Actor: Marshall Allman; Character: Lincoln \\\"L.J.\\\" Burrows, Jr."),
        "{}",
        &out[..out.len().min(2000)]
    );
}

/// The tokens of `text` from `analyzer`: text, byte offsets, position.
fn tokens(
    analyzer: &mut tantivy::tokenizer::TextAnalyzer,
    text: &str,
) -> Vec<(String, usize, usize, usize)> {
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while tantivy::tokenizer::TokenStream::advance(&mut stream) {
        let t = tantivy::tokenizer::TokenStream::token(&stream);
        out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
    }
    out
}

/// No wikitext markup is left in the plain text of any page of the four oracle dumps,
/// except text that a page shows literally inside `<nowiki>`. And every sentence
/// tokenizes with wikiwit's one-pass analyzer exactly as with tantivy's own `default`
/// chain, which the index claims to be equivalent to (Latgalian diacritics included).
#[test]
fn plain_text_has_no_markup_residue_and_tokenizes_as_tantivy_does() {
    let mut stock = tantivy::tokenizer::TokenizerManager::default()
        .get("default")
        .unwrap();
    let mut ours =
        tantivy::tokenizer::TextAnalyzer::from(wikiwit::text::tokenizer::WordTokenizer::default());
    let mut tokens_seen = 0;
    for dump in [
        "enwiki-2016-206pages.xml.bz2",
        "enwiki-2020-27pages-infoboxes.xml.bz2",
        "enwiki-table-markup-5pages.xml.bz2",
        "ltgwiki-2017-complete.xml.bz2",
    ] {
        let tmp = tempdir();
        let index = tmp.path().join("ix");
        build(&data(dump), &index, &[]);
        let out = export(&index, "text");
        let mut residue = Vec::new();
        let mut total = 0;
        for l in out.lines() {
            total += 1;
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let t = v["text"].as_str().unwrap();
            let expected = tokens(&mut stock, t);
            assert_eq!(tokens(&mut ours, t), expected, "{dump}: {t:?}");
            tokens_seen += expected.len();
            for tok in ["[[", "{{", "|}", "<ref", "'''"] {
                if t.contains(tok) {
                    residue.push((v["title"].as_str().unwrap().to_string(), tok, t.to_string()));
                }
            }
        }
        assert!(total > 1000, "{dump}: only {total} sentences");
        // Justified: `<nowiki><references /></nowiki>` on a community page shows the tag.
        residue.retain(|(title, tok, text)| {
            !(title == "Vikipedeja:Dūmu meits" && *tok == "<ref" && text.contains("<ref"))
        });
        assert!(residue.is_empty(), "{dump}: markup residue in {residue:?}");
    }
    assert!(tokens_seen > 100_000, "only {tokens_seen} tokens compared");
}

#[test]
fn an_index_built_without_text_says_so() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &["--no-text"]);
    refused(
        wikiwit().args(["search", "Danube", "--index"]).arg(&index),
        &["--no-text"],
    );
    // Everything else works.
    ok(wikiwit()
        .args(["table", "List of transboundary rivers", "1", "--index"])
        .arg(&index));
}
