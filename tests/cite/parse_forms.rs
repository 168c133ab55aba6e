//! One handwritten report per citation form `parse_report` must understand.

use wikiwit::cite::parse::{
    Citation, ParsedReport, ReferenceKind, Source, UnresolvedReason, parse_report,
};

use super::check_invariants;

fn parse(src: &str) -> ParsedReport {
    let r = parse_report(src);
    check_invariants(src, &r);
    r
}

fn url(s: &str) -> Source {
    Source::Url(s.to_string())
}

fn summary(r: &ParsedReport) -> Vec<(&str, &Source)> {
    r.citations
        .iter()
        .map(|c| (c.marker.as_str(), &c.source))
        .collect()
}

fn claims(r: &ParsedReport) -> Vec<&str> {
    r.citations.iter().map(|c| c.claim.as_str()).collect()
}

#[test]
fn inline_markdown_links() {
    let r = parse("Prices rose 4% in 2023 ([BBC](https://www.bbc.co.uk/news/123)). Unrelated.\n");
    assert_eq!(
        summary(&r),
        [(
            "[BBC](https://www.bbc.co.uk/news/123)",
            &url("https://www.bbc.co.uk/news/123")
        )]
    );
    assert_eq!(claims(&r), ["Prices rose 4% in 2023 (BBC)."]);
}

#[test]
fn reference_style_links() {
    let src = "The dam is 185 m tall [per the operator][op]. Next.\n\n[op]: https://dam.example/facts \"Dam facts\"\n";
    let r = parse(src);
    assert_eq!(r.citations.len(), 1);
    let c = &r.citations[0];
    assert_eq!(c.source, url("https://dam.example/facts"));
    assert_eq!(c.claim, "The dam is 185 m tall per the operator.");
    let reference = &r.references[c.reference.expect("resolved through the definition")];
    assert_eq!(reference.kind, ReferenceKind::LinkDefinition);
    assert_eq!(reference.title.as_deref(), Some("Dam facts"));
    assert_eq!(reference.cited_by, [0]);
}

#[test]
fn reference_link_with_a_missing_or_glued_definition() {
    // The first definition is glued to the paragraph, so CommonMark never sees it; the
    // second label is not defined at all.
    let src = "Rates fell [per the bank][boe] in 2023. Prices rose [per the ONS][ons].\n[boe]: https://bank.example/rates\n";
    let r = parse(src);
    assert_eq!(
        claims(&r),
        [
            "Rates fell per the bank in 2023.",
            "Prices rose per the ONS."
        ]
    );
    assert_eq!(r.citations[0].source, url("https://bank.example/rates"));
    assert_eq!(r.citations[1].source, Source::Unresolved);
    assert_eq!(r.unresolved_markers[0].text, "[per the ONS][ons]");
    assert_eq!(
        r.unresolved_markers[0].reason,
        UnresolvedReason::NoSuchReference
    );
}

#[test]
fn footnotes_at_end_glued_and_mid_document() {
    let src = "\
The bridge opened in 1932.[^1] It carries eight lanes.[^lanes]
[^lanes]: https://bridge.example/lanes

A second paragraph cites the first note again.[^1]

[^mid]: Defined mid-document, https://mid.example/x

Uses the mid definition.[^mid]

[^1]: Sydney Harbour Bridge history. https://en.wikipedia.org/wiki/Sydney_Harbour_Bridge
";
    let r = parse(src);
    let got: Vec<(&str, &str)> = r
        .citations
        .iter()
        .map(|c| (c.label.as_deref().unwrap_or(""), c.claim.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("1", "The bridge opened in 1932."),
            ("lanes", "It carries eight lanes."),
            ("1", "A second paragraph cites the first note again."),
            ("mid", "Uses the mid definition."),
        ]
    );
    assert!(
        matches!(&r.citations[0].source, Source::Wikipedia { title: Some(t), .. } if t == "Sydney Harbour Bridge")
    );
    assert_eq!(r.citations[1].source, url("https://bridge.example/lanes"));
    assert_eq!(r.citations[3].source, url("https://mid.example/x"));
    assert!(r.unresolved_markers.is_empty());
}

#[test]
fn numeric_marker_shapes_and_reference_list_variants() {
    let src = "\
Alpha holds.[1] Beta holds [2][3]. Gamma holds [1, 4]. Delta holds [2-4]. Epsilon holds [3–5].

## References

[1] https://one.example/a - Title One
2. Title Two. https://two.example/b
[3]: https://three.example/c \"Title Three\"
- [4] Title Four (https://four.example/d)
[5] Hughes T. (2017). Title Five. https://doi.org/10.1038/nature21707
";
    let r = parse(src);
    let got: Vec<(&str, &str)> = r
        .citations
        .iter()
        .map(|c| (c.marker.as_str(), c.label.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        got,
        [
            ("[1]", "1"),
            ("[2]", "2"),
            ("[3]", "3"),
            ("[1, 4]", "1"),
            ("[1, 4]", "4"),
            ("[2-4]", "2"),
            ("[2-4]", "3"),
            ("[2-4]", "4"),
            ("[3–5]", "3"),
            ("[3–5]", "4"),
            ("[3–5]", "5"),
        ]
    );
    let titles: Vec<Option<&str>> = r.references.iter().map(|x| x.title.as_deref()).collect();
    assert_eq!(
        titles,
        [
            Some("Title One"),
            Some("Title Two"),
            Some("Title Three"),
            Some("Title Four"),
            Some("Hughes T. (2017). Title Five")
        ]
    );
    assert_eq!(
        r.citations[10].source,
        Source::Doi("10.1038/nature21707".into())
    );
    assert_eq!(r.citations[3].claim, "Gamma holds.");
    assert_eq!(r.citations[8].claim, "Epsilon holds.");
    // Each sentence is attributed to its own markers, not the neighbour's.
    assert_eq!(r.citations[0].claim, "Alpha holds.");
    assert_eq!(r.citations[1].claim, "Beta holds.");
}

#[test]
fn unresolved_numeric_markers_are_reported_not_dropped() {
    let src = "Known fact.[1] Unknown fact.[7] Backwards range [9-8].\n\n## Sources\n1. https://one.example\n8. https://eight.example\n";
    let r = parse(src);
    let unresolved: Vec<(&str, UnresolvedReason, Option<usize>)> = r
        .unresolved_markers
        .iter()
        .map(|m| (m.text.as_str(), m.reason, m.citation))
        .collect();
    assert_eq!(
        unresolved,
        [
            ("[7]", UnresolvedReason::NoSuchReference, Some(1)),
            ("[9-8]", UnresolvedReason::NoSuchReference, Some(2)),
            ("[9-8]", UnresolvedReason::BadRange, None),
        ]
    );
    assert_eq!(r.citations[1].source, Source::Unresolved);
    assert_eq!(r.citations[1].claim, "Unknown fact.");
    // The endpoint that exists is still cited.
    assert_eq!(r.citations[3].source, url("https://eight.example"));
}

#[test]
fn marker_before_or_after_the_period_closes_the_same_sentence() {
    let src = "First claim here[1]. Second claim here.[2] Third [3] has it inside. Fourth.\n\n[1]: https://a.example\n[2]: https://b.example\n[3]: https://c.example\n";
    let r = parse(src);
    assert_eq!(
        claims(&r),
        [
            "First claim here.",
            "Second claim here.",
            "Third has it inside."
        ]
    );
    for c in &r.citations {
        assert!(src[c.claim_span.clone()].starts_with(&c.claim[..5]));
    }
}

#[test]
fn sentence_splitting_survives_abbreviations() {
    let src = "Researchers at the U.S. Geological Survey, e.g. Dr. J. Smith et al., found a 3.5 m rise.[1] Next sentence.\n\n[1]: https://usgs.example\n";
    let r = parse(src);
    assert_eq!(
        claims(&r),
        [
            "Researchers at the U.S. Geological Survey, e.g. Dr. J. Smith et al., found a 3.5 m rise."
        ]
    );
}

#[test]
fn bare_urls_and_wikilinks() {
    let src = "Population was 2.1 million in 2020 (https://stats.example/pop?utm_source=chatgpt.com). See [[Paris#History|Paris history]] too.\n";
    let r = parse(src);
    assert_eq!(r.citations[0].source, url("https://stats.example/pop"));
    assert_eq!(r.citations[0].claim, "Population was 2.1 million in 2020.");
    assert_eq!(
        r.citations[1].source,
        Source::WikiLink {
            target: "Paris".into(),
            anchor: Some("History".into())
        }
    );
    assert_eq!(r.citations[1].claim, "See Paris history too.");
}

#[test]
fn wikipedia_url_spellings_collapse() {
    let src = "\
A.[1] B.[2] C.[3] D.[4] E.[5]

[1]: https://en.wikipedia.org/wiki/Albert_Einstein
[2]: https://en.m.wikipedia.org/wiki/Albert%20Einstein?wprov=sfla1
[3]: https://en.wikipedia.org/w/index.php?title=Albert_Einstein&oldid=1234567
[4]: https://en.wikipedia.org/?curid=736
[5]: https://de.wikipedia.org/wiki/Albert_Einstein#Leben_.E2.80.93_Kindheit:~:text=geboren%20in%20Ulm
";
    let r = parse(src);
    /// (lang, title, oldid, curid, anchor)
    type Page<'a> = (
        Option<&'a str>,
        Option<&'a str>,
        Option<u64>,
        Option<u64>,
        Option<&'a str>,
    );
    let got: Vec<Page> = r
        .citations
        .iter()
        .map(|c| match &c.source {
            Source::Wikipedia {
                lang,
                title,
                oldid,
                curid,
                anchor,
                ..
            } => (
                lang.as_deref(),
                title.as_deref(),
                *oldid,
                *curid,
                anchor.as_deref(),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    let einstein = Some("Albert Einstein");
    assert_eq!(
        got,
        [
            (Some("en"), einstein, None, None, None),
            (Some("en"), einstein, None, None, None),
            (Some("en"), einstein, Some(1234567), None, None),
            (Some("en"), None, None, Some(736), None),
            (Some("de"), einstein, None, None, Some("Leben – Kindheit")),
        ]
    );
    match &r.citations[4].source {
        Source::Wikipedia { quote: Some(q), .. } => assert_eq!(q.start, "geboren in Ulm"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn scholarly_identifiers_in_prose() {
    let src = "Transformers were introduced in 2017 (arXiv:1706.03762). Deep learning was reviewed in doi:10.1038/nature14539. The textbook is ISBN 978-0-262-03561-3. A fake one is ISBN 978-0-262-03561-4.\n";
    let r = parse(src);
    assert_eq!(
        summary(&r),
        [
            ("arXiv:1706.03762", &Source::Arxiv("1706.03762".into())),
            (
                "doi:10.1038/nature14539",
                &Source::Doi("10.1038/nature14539".into())
            ),
            (
                "ISBN 978-0-262-03561-3",
                &Source::Isbn("9780262035613".into())
            ),
            ("ISBN 978-0-262-03561-4", &Source::Unresolved),
        ]
    );
    assert_eq!(r.unresolved_markers.len(), 1);
    assert_eq!(
        r.unresolved_markers[0].reason,
        UnresolvedReason::InvalidIsbn
    );
    assert_eq!(
        r.citations[0].claim,
        "Transformers were introduced in 2017."
    );
}

#[test]
fn author_year_citations_and_bibliography_match() {
    let src = "\
Sea levels rose 20 cm since 1900 (Church and White, 2011). Smith (2021) found faster rates. Models agree (Jones et al. 2019).

## References
Church, J. A., & White, N. J. (2011). Sea-level rise from the late 19th to the early 21st century. https://doi.org/10.1007/s10712-011-9119-1
";
    let r = parse(src);
    let got: Vec<(&str, &Source, Option<usize>)> = r
        .citations
        .iter()
        .map(|c| (c.marker.as_str(), &c.source, c.reference))
        .collect();
    assert_eq!(
        got,
        [
            (
                "(Church and White, 2011)",
                &Source::Doi("10.1007/s10712-011-9119-1".into()),
                Some(0)
            ),
            (
                "Smith (2021)",
                &Source::AuthorYear {
                    authors: "Smith".into(),
                    year: 2021
                },
                None
            ),
            (
                "(Jones et al. 2019)",
                &Source::AuthorYear {
                    authors: "Jones et al.".into(),
                    year: 2019
                },
                None
            ),
        ]
    );
    assert_eq!(
        claims(&r),
        [
            "Sea levels rose 20 cm since 1900.",
            "Smith (2021) found faster rates.",
            "Models agree."
        ]
    );
}

#[test]
fn markers_in_tables_claim_the_row_with_headers() {
    let src = "\
| Country | Capital | Source |
|---|---|---|
| France | Paris | [1] |
| Japan | Tokyo [2] | |

[1]: https://fr.example
[2]: https://jp.example
";
    let r = parse(src);
    assert_eq!(
        claims(&r),
        [
            "Country: France; Capital: Paris",
            "Country: Japan; Capital: Tokyo"
        ]
    );
    assert_ne!(r.citations[0].paragraph, r.citations[1].paragraph);
}

#[test]
fn markers_in_tables_commonmark_does_not_recognise() {
    // No delimiter row: CommonMark sees a paragraph, the markers are still found.
    let src = "| Country | Capital |\n| France | Paris [1] |\n| Japan | Tokyo [9] |\n\n[1]: https://fr.example\n";
    let r = parse(src);
    assert_eq!(claims(&r), ["France | Paris", "Japan | Tokyo"]);
    assert_eq!(r.unresolved_markers.len(), 1);
}

#[test]
fn code_is_never_cited() {
    let src = "Call `get([3])` or see https://real.example.\n\n```\nx = [4]  # https://not.example\n```\n\n    indented [5] https://nope.example\n";
    let r = parse(src);
    assert_eq!(
        summary(&r),
        [("https://real.example", &url("https://real.example"))]
    );
    assert!(r.unresolved_markers.is_empty());
}

#[test]
fn chatgpt_lenticular_and_superscript_markers() {
    let src = "The tower is 330 m tall.【1†source】 It opened in 1889.<sup>2</sup>\n\n[1]: https://tower.example\n[2]: https://open.example\n";
    let r = parse(src);
    assert_eq!(
        summary(&r),
        [
            ("【1†source】", &url("https://tower.example")),
            ("<sup>2</sup>", &url("https://open.example")),
        ]
    );
    assert_eq!(
        claims(&r),
        ["The tower is 330 m tall.", "It opened in 1889."]
    );
}

#[test]
fn marker_alone_in_its_paragraph_closes_the_previous_one() {
    let src =
        "The river is 6,650 km long.\n\n[1][2]\n\n[1]: https://a.example\n[2]: https://b.example\n";
    let r = parse(src);
    assert_eq!(
        claims(&r),
        ["The river is 6,650 km long.", "The river is 6,650 km long."]
    );
}

#[test]
fn sources_section_urls_are_not_citations() {
    let src =
        "Claim.[1]\n\n## Sources\n1. https://one.example\n- https://listed-but-uncited.example\n";
    let r = parse(src);
    assert_eq!(r.citations.len(), 1);
    assert_eq!(r.references.len(), 2);
    assert!(r.references[1].cited_by.is_empty());
}

#[test]
fn report_serializes_and_round_trips() {
    let src = "Claim.[1] Other [^x].\n\n[1]: https://en.wikipedia.org/wiki/Moon#:~:text=Earth%27s%20only\n";
    let r = parse(src);
    let json = serde_json::to_string(&r).expect("serialize");
    let back: ParsedReport = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, r);
    let c: &Citation = &r.citations[0];
    assert!(json.contains("\"wikipedia\""), "{json}");
    assert_eq!(c.id, 0);
}
