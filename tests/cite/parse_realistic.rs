//! A long report in the style of chat "deep research" output: mixed marker styles in prose,
//! a blockquote, a table, bullets, code, footnotes and a trailing Sources list that mixes
//! every entry format.

use wikiwit::cite::parse::{ReferenceKind, Source, UnresolvedReason, parse_report};

use super::check_invariants;

const REPORT: &str = include_str!("../data/cite/deep_research_report.md");

fn kind(s: &Source) -> &'static str {
    match s {
        Source::Wikipedia { .. } => "wikipedia",
        Source::WikiLink { .. } => "wiki_link",
        Source::Doi(_) => "doi",
        Source::Arxiv(_) => "arxiv",
        Source::Isbn(_) => "isbn",
        Source::Url(_) => "url",
        Source::AuthorYear { .. } => "author_year",
        Source::Bibliographic { .. } => "bibliographic",
        Source::Unresolved => "unresolved",
    }
}

#[test]
fn every_citation_is_found_in_order_with_its_source() {
    let r = parse_report(REPORT);
    check_invariants(REPORT, &r);
    let got: Vec<(String, Option<&str>, &str)> = r
        .citations
        .iter()
        .map(|c| {
            let marker: String = c.marker.chars().take(30).collect();
            (marker, c.label.as_deref(), kind(&c.source))
        })
        .collect();
    let expected: &[(&str, Option<&str>, &str)] = &[
        ("[1]", Some("1"), "wikipedia"),
        ("[2]", Some("2"), "url"),
        ("[3]", Some("3"), "url"),
        ("[4, 5]", Some("4"), "url"),
        ("[4, 5]", Some("5"), "wikipedia"),
        ("[6–8]", Some("6"), "url"),
        ("[6–8]", Some("7"), "doi"),
        ("[6–8]", Some("8"), "url"),
        ("(Hughes et al., 2017)", None, "doi"),
        ("[^unesco]", Some("unesco"), "url"),
        ("[[Great Barrier Reef#Threats|t", None, "wiki_link"),
        ("[Wikipedia article on coral bl", None, "wikipedia"),
        ("[9]", Some("9"), "url"),
        ("Hughes et al. (2018)", None, "doi"),
        ("doi:10.1038/s41586-018-0041-2", None, "doi"),
        ("[2]", Some("2"), "url"),
        ("[10]", Some("10"), "doi"),
        ("[3]", Some("3"), "url"),
        ("[4]", Some("4"), "url"),
        ("[2]", Some("2"), "url"),
        ("[11]", Some("11"), "wikipedia"),
        ("[12]", Some("12"), "url"),
        ("[3-5]", Some("3"), "url"),
        ("[3-5]", Some("4"), "url"),
        ("[3-5]", Some("5"), "wikipedia"),
        ("(Brodie and Lewis 2012; De'ath", None, "author_year"),
        ("(Brodie and Lewis 2012; De'ath", None, "doi"),
        ("arXiv:2104.01234", None, "arxiv"),
        ("[13]", Some("13"), "url"),
        ("https://www.dcceew.gov.au/parl", None, "url"),
        ("[^unesco]", Some("unesco"), "url"),
        ("[14]", Some("14"), "wikipedia"),
        ("(Smith, 2020)", None, "author_year"),
        ("[15]", Some("15"), "author_year"),
        ("[17]", Some("17"), "unresolved"),
    ];
    let expected: Vec<(String, Option<&str>, &str)> = expected
        .iter()
        .map(|(m, l, k)| (m.to_string(), *l, *k))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn claims_are_the_sentences_the_markers_close() {
    let r = parse_report(REPORT);
    let claim = |i: usize| r.citations[i].claim.as_str();
    assert_eq!(
        claim(0),
        "The Great Barrier Reef (GBR) is the world's largest coral reef system, stretching roughly 2,300 km along the coast of Queensland, Australia."
    );
    assert_eq!(
        claim(1),
        "Since 2016 it has suffered five mass bleaching events, the most recent in early 2024, which aerial surveys found affected about 73% of reefs."
    );
    assert_eq!(claim(1), claim(2));
    // "e.g." inside the blockquote does not end the sentence.
    assert_eq!(
        claim(5),
        "Key takeaway: recovery between disturbances is real but increasingly short-lived, e.g. the 2022 gains were partly erased by the 2024 event."
    );
    assert_eq!(
        claim(8),
        "Coral bleaching occurs when corals expel the symbiotic algae (zooxanthellae) living in their tissues, usually because of prolonged marine heatwaves."
    );
    assert_eq!(
        claim(11),
        "According to the Wikipedia article on coral bleaching, bleached corals are not dead but are under greater stress and subject to mortality."
    );
    assert_eq!(
        claim(16),
        "Year: 2017; Share of reefs bleached: ~70% (central GBR worst hit)"
    );
    assert_eq!(
        claim(22),
        "Crown-of-thorns starfish outbreaks and cyclones compound thermal stress."
    );
    // Claim spans cover the claim (table claims add headers, so compare the last word).
    for c in &r.citations {
        let span_text = &REPORT[c.claim_span.clone()];
        let last_word = c.claim.split_whitespace().last().unwrap_or("");
        let last_word = last_word.trim_matches(|ch: char| !ch.is_alphanumeric());
        assert!(span_text.contains(last_word), "{c:?}");
    }
}

#[test]
fn wikipedia_details_survive() {
    let r = parse_report(REPORT);
    match &r.citations[11].source {
        Source::Wikipedia {
            lang,
            title,
            quote: Some(q),
            url: Some(url),
            ..
        } => {
            assert_eq!(lang.as_deref(), Some("en"));
            assert_eq!(title.as_deref(), Some("Coral bleaching"));
            assert_eq!(q.start, "Coral bleaching is");
            assert_eq!(q.end.as_deref(), Some("the coral to turn white"));
            assert!(!url.contains("utm_source"), "{url}");
        }
        other => panic!("{other:?}"),
    }
    match &r.citations[31].source {
        Source::Wikipedia { anchor, .. } => {
            assert_eq!(
                anchor.as_deref(),
                Some("World Heritage listing–(in danger)")
            );
        }
        other => panic!("{other:?}"),
    }
    match &r.citations[4].source {
        Source::Wikipedia { title, oldid, .. } => {
            assert_eq!(title.as_deref(), Some("Coral cover"));
            assert_eq!(*oldid, Some(1187654321));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn references_list_is_complete_and_knows_what_is_cited() {
    let r = parse_report(REPORT);
    let keys: Vec<(ReferenceKind, Option<&str>)> = r
        .references
        .iter()
        .map(|x| (x.kind, x.key.as_deref()))
        .collect();
    assert_eq!(keys[0], (ReferenceKind::Footnote, Some("unesco")));
    let numbers: Vec<&str> = keys[1..].iter().filter_map(|k| k.1).collect();
    assert_eq!(
        numbers,
        [
            "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
            "18"
        ]
    );
    let uncited: Vec<&str> = r
        .references
        .iter()
        .filter(|x| x.cited_by.is_empty())
        .filter_map(|x| x.key.as_deref())
        .collect();
    assert_eq!(uncited, ["18"]);
    assert_eq!(
        r.references[2].cited_by.len(),
        3,
        "[2] is cited three times"
    );
    // `[17]` names no entry; two author–year mentions match no entry of the list either
    // (a marker is reported with the span of its whole parenthesis).
    let unresolved: Vec<(&str, UnresolvedReason)> = r
        .unresolved_markers
        .iter()
        .map(|m| (m.text.as_str(), m.reason))
        .collect();
    assert_eq!(
        unresolved,
        [
            (
                "(Brodie and Lewis 2012; De'ath et al., 2012)",
                UnresolvedReason::NoEntry
            ),
            ("(Smith, 2020)", UnresolvedReason::NoEntry),
            ("[17]", UnresolvedReason::NoSuchReference),
        ]
    );
}
