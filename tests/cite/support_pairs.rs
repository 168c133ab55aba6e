//! Handwritten claim/evidence pairs, one per behaviour the scorer promises.

use wikiwit::cite::support::{Idf, SupportLabel, SupportScorer};

fn score(claim: &str, evidence: &[&str]) -> wikiwit::cite::support::SupportResult {
    SupportScorer::default().score(claim, evidence)
}

const BRIDGE: &[&str] = &[
    "The Sydney Harbour Bridge is a steel arch bridge across Sydney Harbour.",
    "Premier Jack Lang opened the bridge on 19 March 1932.",
    "Before the opening, a mounted officer slashed the ribbon with his sword.",
    "The bridge carries rail, vehicular, bicycle and pedestrian traffic.",
];

#[test]
fn paraphrase_with_the_same_content_is_supported() {
    let r = score(
        "The bridge was opened by Premier Jack Lang in 1932.",
        BRIDGE,
    );
    assert_eq!(r.label, SupportLabel::Supported, "{}", r.explanation);
    assert_eq!(r.best.first().map(|b| b.0), Some(1));
    assert!(r.missing_numbers.is_empty());
    assert!(!r.overstatement);
}

#[test]
fn claim_spread_over_two_sentences_is_supported_by_both() {
    let evidence = [
        "Marie Curie was born in Warsaw.",
        "The weather in Warsaw is continental.",
        "She later moved to Paris, where she studied physics at the Sorbonne.",
    ];
    let r = score(
        "Marie Curie was born in Warsaw and studied physics at the Sorbonne in Paris.",
        &evidence,
    );
    assert_eq!(r.label, SupportLabel::Supported, "{}", r.explanation);
    let used: Vec<usize> = r.best.iter().map(|b| b.0).collect();
    assert!(used.contains(&0) && used.contains(&2), "{used:?}");
}

#[test]
fn a_figure_absent_from_the_evidence_makes_the_claim_unsupported() {
    let r = score(
        "Premier Jack Lang opened the Sydney Harbour Bridge on 19 March 1931.",
        BRIDGE,
    );
    assert_eq!(r.label, SupportLabel::Unsupported, "{}", r.explanation);
    assert_eq!(r.missing_numbers, ["1931"]);
    let correct = score(
        "Premier Jack Lang opened the Sydney Harbour Bridge on 19 March 1932.",
        BRIDGE,
    );
    assert!(correct.score > r.score);
    assert_eq!(correct.label, SupportLabel::Supported);
}

#[test]
fn a_different_value_for_the_same_quantity_contradicts() {
    let evidence = [
        "The Tozzer Library holds about 250,000 volumes on anthropology.",
        "It is part of the Harvard Library system.",
    ];
    let r = score("The Tozzer Library holds over 260,000 volumes.", &evidence);
    assert_eq!(r.label, SupportLabel::Contradicted, "{}", r.explanation);
    assert_eq!(
        r.conflicting_numbers,
        [("260,000".to_string(), "250,000".to_string())]
    );
    // Same figure written differently agrees.
    let r = score(
        "The Tozzer Library holds about 250 thousand volumes.",
        &evidence,
    );
    assert!(r.conflicting_numbers.is_empty() && r.missing_numbers.is_empty());
}

#[test]
fn number_formats_agree_by_value() {
    let evidence = ["The city had 3,512,000 residents in 2020, up 5 percent."];
    let r = score(
        "In 2020 the city had 3.5 million residents, a 5% rise.",
        &evidence,
    );
    assert!(r.missing_numbers.is_empty(), "{:?}", r.missing_numbers);
}

#[test]
fn hedged_evidence_flags_an_overstated_claim() {
    let evidence = [
        "A preliminary study suggests that coffee may reduce the risk of liver cancer.",
        "The study followed 500 adults.",
    ];
    let r = score("Coffee reduces the risk of liver cancer.", &evidence);
    assert!(r.overstatement, "{}", r.explanation);
    assert!(r.explanation.contains("hedges"));
    let hedged = score("Coffee may reduce the risk of liver cancer.", &evidence);
    assert!(!hedged.overstatement);
}

#[test]
fn negation_mismatch_is_detected_and_penalised() {
    let evidence = ["The film received the Oscar for Best Original Score in 1998."];
    let negated = score(
        "The film never received the Oscar for Best Original Score.",
        &evidence,
    );
    let plain = score(
        "The film received the Oscar for Best Original Score.",
        &evidence,
    );
    assert!(negated.signals.negation_mismatch);
    assert!(!plain.signals.negation_mismatch);
    assert!(negated.score < plain.score);
    assert_ne!(negated.label, SupportLabel::Supported);
    // An unrelated "not" elsewhere in a matching sentence does not count.
    let r = score(
        "The film received the Oscar for Best Original Score.",
        &["Not long after release, the film received the Oscar for Best Original Score."],
    );
    // The evidence denying what the claim asserts counts too.
    let r2 = score(
        "The film received the Oscar for Best Original Score.",
        &["The film was nominated but did not receive the Oscar for Best Original Score."],
    );
    assert!(r2.signals.negation_mismatch, "{}", r2.explanation);
    assert!(!r.signals.negation_mismatch, "{}", r.explanation);
}

#[test]
fn unrelated_evidence_is_unsupported() {
    let r = score(
        "The Danube flows through ten countries, more than any other river.",
        BRIDGE,
    );
    assert_eq!(r.label, SupportLabel::Unsupported, "{}", r.explanation);
    assert!(r.score < 0.25);
}

#[test]
fn missing_name_lowers_the_score() {
    let evidence = ["Aoki released the documentary on Netflix in August 2016."];
    let right = score("Aoki released the documentary on Netflix.", &evidence);
    let wrong = score("Aoki released the documentary on Hulu.", &evidence);
    assert!(wrong.score < right.score);
    assert!(wrong.signals.entity_coverage < 1.0);
}

#[test]
fn corpus_idf_weights_rare_words() {
    let idf = Idf::from_documents([
        "The bridge opened in the city.",
        "The city has a new bridge.",
        "A ribbon was cut at the opening in the city.",
    ]);
    let scorer = SupportScorer::new(idf);
    // Missing the rare word "ribbon" costs more than missing the common word "city".
    let evidence = ["The bridge opened in the city."];
    let misses_rare = scorer.score("The bridge ribbon opened.", &evidence);
    let misses_common = scorer.score("The bridge city opened.", &evidence);
    assert!(misses_common.score > misses_rare.score);
}

#[test]
fn degenerate_inputs_do_not_panic() {
    for (claim, evidence) in [
        ("", &[][..]),
        ("The bridge opened.", &[][..]),
        ("", &["Some evidence."][..]),
        ("the of and", &["the of and"][..]),
        ("1932", &["1932"][..]),
        ("🦀 é 日本語 ½ ²", &["🦀 é 日本語"][..]),
    ] {
        let r = score(claim, evidence);
        assert!((0.0..=1.0).contains(&r.score), "{claim:?}: {}", r.score);
    }
    let r = score("", &["Some evidence."]);
    assert_eq!(r.label, SupportLabel::Unsupported);
}
