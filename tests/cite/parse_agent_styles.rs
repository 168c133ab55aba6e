//! Reports written the way agents write them (`tests/data/reports/agent-styles/`): broken
//! code fences, localized and bare sources headings, URL-less entries, a prose section named
//! like a bibliography, DOIs inside publisher URLs, author–year mentions without an entry,
//! one marker closing a paragraph.

use wikiwit::cite::parse::{
    ClaimScope, ParsedReport, Source, UnresolvedReason, parse_report, parse_report_with,
};

use super::check_invariants;

fn report(name: &str) -> String {
    let p = format!(
        "{}/tests/data/reports/agent-styles/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn parse(src: &str) -> ParsedReport {
    let r = parse_report(src);
    check_invariants(src, &r);
    r
}

fn unresolved(r: &ParsedReport) -> Vec<(&str, UnresolvedReason)> {
    r.unresolved_markers
        .iter()
        .map(|m| (m.text.as_str(), m.reason))
        .collect()
}

#[test]
fn a_closing_fence_followed_by_text_does_not_swallow_the_sources() {
    let src = report("broken-fence.md");
    let r = parse(&src);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("line 11"), "{:?}", r.warnings);
    assert!(unresolved(&r).is_empty(), "{:?}", unresolved(&r));
    let labels: Vec<&str> = r
        .citations
        .iter()
        .filter_map(|c| c.label.as_deref())
        .collect();
    assert_eq!(labels, ["1", "2", "2", "3"]);
    assert_eq!(r.references.len(), 3);
    assert!(r.references.iter().all(|x| !x.cited_by.is_empty()));
    assert_eq!(
        r.citations[3].source,
        Source::Doi("10.5194/os-15-1597-2019".into())
    );
    // Spans still index the report as written.
    assert_eq!(&src[r.citations[1].span.clone()], "[2]");
}

#[test]
fn a_chinese_sources_list_without_urls_resolves() {
    let src = report("chinese-sources.md");
    let r = parse(&src);
    assert!(unresolved(&r).is_empty(), "{:?}", unresolved(&r));
    assert_eq!(r.citations.len(), 2);
    for c in &r.citations {
        let Source::Bibliographic { text } = &c.source else {
            panic!("{:?}", c.source);
        };
        assert!(text.starts_with("国家统计局"), "{text}");
    }
    assert!(
        r.citations[0].claim.contains("66.16%"),
        "{}",
        r.citations[0].claim
    );
}

#[test]
fn bare_and_localized_headings_count_and_sources_of_funding_does_not() {
    let src = report("bare-headings.md");
    let r = parse(&src);
    assert!(unresolved(&r).is_empty(), "{:?}", unresolved(&r));
    let keys: Vec<&str> = r
        .references
        .iter()
        .filter_map(|x| x.key.as_deref())
        .collect();
    // The funding section's numbered prose lines are not sources.
    assert_eq!(keys, ["1", "2", "3"]);
    let funded = r
        .citations
        .iter()
        .find(|c| c.label.as_deref() == Some("3"))
        .expect("[3] is cited in the funding prose");
    assert!(
        funded.claim.contains("funded by the city council"),
        "{}",
        funded.claim
    );
    assert!(matches!(&funded.source, Source::Url(u) if u.contains("paris.fr")));
    assert!(matches!(
        &r.citations[0].source,
        Source::Bibliographic { text } if text.starts_with("Météo-France")
    ));
    assert!(matches!(
        &r.citations[1].source,
        Source::AuthorYear { authors, year: 2014 } if authors.starts_with("Santamouris")
    ));
}

#[test]
fn author_year_mentions_without_an_entry_are_unresolved() {
    let src = report("author-year.md");
    let r = parse(&src);
    let found: Vec<(String, bool)> = r
        .citations
        .iter()
        .filter_map(|c| match &c.source {
            Source::AuthorYear { authors, .. } => Some((authors.clone(), c.reference.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    let u = unresolved(&r);
    assert_eq!(u.len(), 2, "{u:?}");
    assert!(u.iter().all(|(_, why)| *why == UnresolvedReason::NoEntry));
    assert!(u.iter().any(|(t, _)| t.contains("Klophaus")), "{u:?}");
    assert!(u.iter().any(|(t, _)| t.contains("Hoxha")), "{u:?}");
    assert!(
        found
            .iter()
            .any(|(a, has)| a.starts_with("Berisha") && *has)
    );
}

#[test]
fn paragraph_scope_claims_every_sentence_since_the_previous_marker() {
    let src = report("paragraph-claims.md");
    let by_sentence = parse(&src);
    let by_paragraph = parse_report_with(&src, ClaimScope::Paragraph);
    check_invariants(&src, &by_paragraph);
    assert_eq!(
        by_sentence.citations[0].claim,
        "Recovery took several years in the northern sector."
    );
    assert_eq!(
        by_paragraph.citations[0].claim,
        "The Great Barrier Reef suffered mass bleaching in 2016. About 91% of surveyed reefs \
         showed some bleaching. Recovery took several years in the northern sector."
    );
    // Adjacent markers share the claim.
    let both = "Ocean heat waves are becoming more frequent. Their average duration has grown.";
    assert_eq!(by_paragraph.citations[1].claim, both);
    assert_eq!(by_paragraph.citations[2].claim, both);
    assert_eq!(
        by_sentence.citations[2].claim,
        "Their average duration has grown."
    );
    let span = by_paragraph.citations[0].claim_span.clone();
    assert!(src[span].starts_with("The Great Barrier Reef"));
}

#[test]
fn dois_lose_publisher_url_debris_and_keep_the_url() {
    let src = report("publisher-dois.md");
    let r = parse(&src);
    let dois: Vec<String> = r
        .references
        .iter()
        .map(|x| match &x.source {
            Source::Doi(d) => d.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        dois,
        [
            "10.3389/fnagi.2022.1041333",
            "10.1002/anie.201915678",
            "10.1101/2020.03.22.002386",
            "10.1101/2020.04.14.20062463",
            "10.1177/0956797620904990",
            "10.1080/14693062.2020.1740150",
            "10.1088/1748-9326/ab6f6b",
            "10.1515/opar-2020-0114",
            "10.1073/pnas.1906655116",
            "10.1007/s10712-011-9119-1",
        ]
    );
    assert_eq!(
        r.references[0].url.as_deref(),
        Some("https://www.frontiersin.org/articles/10.3389/fnagi.2022.1041333/full")
    );
    assert!(r.references.iter().all(|x| x.url.is_some()));
}
