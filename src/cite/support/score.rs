//! The scorer: how much of a claim the evidence states, and whether it states it
//! differently.
//!
//! The score is a coverage estimate — the IDF-weighted share of the claim's content that
//! the best few evidence sentences contain — discounted by independent checks that pure
//! overlap misses: figures the evidence never gives, named entities it never names,
//! negation that flips the meaning.

use std::collections::HashSet;

use super::idf::Idf;
use super::{Signals, SupportLabel, SupportResult};
use crate::text::quantities::{self as numbers, Quantity};
use crate::text::words::{self as tokens, Token};

/// How many evidence sentences may jointly support one claim. WiCE's annotated supporting
/// sets have one to three sentences; more makes unrelated sentences add up.
pub(crate) const MAX_SENTENCES: usize = 3;

/// Score at or above which a claim counts as supported (see `SupportLabel`).
pub(crate) const SUPPORTED_AT: f64 = 0.5;

/// Score below which a claim counts as unsupported.
pub(crate) const UNSUPPORTED_BELOW: f64 = 0.25;

/// Share of a claim an evidence sentence must cover before its figures, negations and
/// hedges are read as being about the claim rather than about something else on the page.
const RELEVANT_COVERAGE: f64 = 0.5;

/// Stems of the words a negation governs — the first content word after "not", "never",
/// "no", … — i.e. what the text denies. Idioms that negate nothing ("not only", "not
/// until") are skipped. Comparing what is denied, instead of whether a negation occurs at
/// all, keeps a page full of unrelated "no"s from flipping a claim.
fn negated_stems(tokens: &[Token]) -> HashSet<String> {
    let mut out = HashSet::new();
    for (i, t) in tokens.iter().enumerate() {
        if !tokens::is_negation(&t.folded) {
            continue;
        }
        let next = tokens.get(i + 1).map(|n| n.folded.as_str());
        if matches!(
            next,
            Some("only" | "until" | "just" | "least" | "doubt" | "merely")
        ) {
            continue;
        }
        if let Some(governed) = tokens[i + 1..].iter().find(|t| t.is_content()) {
            out.insert(governed.stem.clone());
        }
    }
    out
}

/// An evidence sentence, analysed once.
struct Sentence {
    stems: HashSet<String>,
    bigrams: HashSet<(String, String)>,
    negated: HashSet<String>,
    quantities: Vec<Quantity>,
}

impl Sentence {
    fn new(text: &str) -> Sentence {
        let tokens = tokens::tokenize(text);
        let content: Vec<&Token> = tokens.iter().filter(|t| t.is_content()).collect();
        Sentence {
            stems: content.iter().map(|t| t.stem.clone()).collect(),
            bigrams: content
                .windows(2)
                .map(|w| (w[0].stem.clone(), w[1].stem.clone()))
                .collect(),
            negated: negated_stems(&tokens),
            quantities: numbers::extract(text),
        }
    }
}

/// The parts of the claim that must be found.
struct Claim {
    /// Distinct content stems with their IDF weights.
    terms: Vec<(String, f64)>,
    bigrams: Vec<(String, String)>,
    /// Stems of capitalised words that do not open a sentence: names.
    entities: Vec<String>,
    negated: HashSet<String>,
    hedged: bool,
    quantities: Vec<Quantity>,
}

impl Claim {
    fn new(text: &str, idf: &Idf) -> Claim {
        let tokens = tokens::tokenize(text);
        let content: Vec<&Token> = tokens.iter().filter(|t| t.is_content()).collect();
        let mut seen = HashSet::new();
        let terms = content
            .iter()
            .filter(|t| seen.insert(t.stem.clone()))
            .map(|t| (t.stem.clone(), idf.weight(&t.stem)))
            .collect();
        let mut seen = HashSet::new();
        let entities = content
            .iter()
            .filter(|t| t.capitalized && !t.sentence_initial)
            .filter(|t| seen.insert(t.stem.clone()))
            .map(|t| t.stem.clone())
            .collect();
        Claim {
            terms,
            bigrams: content
                .windows(2)
                .map(|w| (w[0].stem.clone(), w[1].stem.clone()))
                .collect(),
            entities,
            negated: negated_stems(&tokens),
            hedged: !tokens::hedges(text).is_empty(),
            quantities: numbers::extract(text),
        }
    }

    fn total_weight(&self) -> f64 {
        self.terms.iter().map(|(_, w)| w).sum()
    }

    /// Weighted share of the claim's terms present in the union of `sentences`.
    fn coverage(&self, sentences: &[&Sentence]) -> f64 {
        let total = self.total_weight();
        if total == 0.0 {
            return 0.0;
        }
        let covered: f64 = self
            .terms
            .iter()
            .filter(|(s, _)| sentences.iter().any(|e| e.stems.contains(s)))
            .map(|(_, w)| w)
            .sum();
        // `+ 0.0` turns the empty sum's −0 into 0 (it shows as "-0%" otherwise).
        covered / total + 0.0
    }
}

/// Picks up to [`MAX_SENTENCES`] sentences greedily, each adding the most uncovered claim
/// weight; returns them best first with their own coverage.
fn select(claim: &Claim, sentences: &[Sentence]) -> Vec<(usize, f64)> {
    let own: Vec<f64> = sentences.iter().map(|s| claim.coverage(&[s])).collect();
    let mut chosen: Vec<usize> = Vec::new();
    let mut covered = 0.0;
    while chosen.len() < MAX_SENTENCES {
        let mut best: Option<(usize, f64)> = None;
        for (i, s) in sentences.iter().enumerate() {
            if chosen.contains(&i) || own[i] == 0.0 {
                continue;
            }
            let mut with: Vec<&Sentence> = chosen.iter().map(|&c| &sentences[c]).collect();
            with.push(s);
            let gain = claim.coverage(&with) - covered;
            let better =
                best.is_none_or(|(b, g)| gain > g + 1e-12 || (gain > g - 1e-12 && own[i] > own[b]));
            if gain > 1e-9 && better {
                best = Some((i, gain));
            }
        }
        let Some((i, gain)) = best else {
            break;
        };
        chosen.push(i);
        covered += gain;
    }
    chosen.into_iter().map(|i| (i, own[i])).collect()
}

pub fn score(idf: &Idf, claim_text: &str, evidence: &[&str]) -> SupportResult {
    let own_idf;
    let idf = if idf.documents() == 0 {
        own_idf = Idf::from_documents(evidence.iter().copied());
        &own_idf
    } else {
        idf
    };
    let claim = Claim::new(claim_text, idf);
    let sentences: Vec<Sentence> = evidence.iter().map(|e| Sentence::new(e)).collect();
    if claim.terms.is_empty() && claim.quantities.is_empty() {
        return nothing_to_look_for();
    }
    let best = select(&claim, &sentences);
    let chosen: Vec<&Sentence> = best.iter().map(|&(i, _)| &sentences[i]).collect();
    let everything: Vec<&Sentence> = sentences.iter().collect();
    let coverage = claim.coverage(&chosen);
    let doc_coverage = claim.coverage(&everything);
    let bigram_coverage = bigram_coverage(&claim, &chosen).unwrap_or(coverage);
    let entity_coverage = entity_coverage(&claim, &everything);
    let (missing_numbers, conflicting_numbers) = figures(&claim, &sentences, &best);
    // Negation and hedging are read only in sentences that are about the claim.
    let relevant: Vec<usize> = best
        .iter()
        .filter(|(_, cov)| *cov >= RELEVANT_COVERAGE)
        .map(|&(i, _)| i)
        .collect();
    let negation_mismatch = negation_mismatch(&claim, &sentences, &relevant);
    let evidence_hedges: Vec<&'static str> = relevant
        .iter()
        .flat_map(|&i| tokens::hedges(evidence[i]))
        .collect();
    let overstatement = !claim.hedged && !evidence_hedges.is_empty();

    let lexical = 0.5 * coverage + 0.25 * doc_coverage + 0.25 * bigram_coverage;
    let number_factor = 0.5f64.powi(missing_numbers.len() as i32);
    let negation_factor = if negation_mismatch { 0.6 } else { 1.0 };
    let entity_factor = 0.5 + 0.5 * entity_coverage;
    let score = (lexical * number_factor * negation_factor * entity_factor).clamp(0.0, 1.0);
    let label = support_label(
        score,
        &missing_numbers,
        &conflicting_numbers,
        negation_mismatch,
    );
    let signals = Signals {
        missing_weight: claim.total_weight() * (1.0 - coverage),
        coverage,
        doc_coverage,
        bigram_coverage,
        entity_coverage,
        numbers_in_claim: claim.quantities.len(),
        negation_mismatch,
    };
    let missing_terms: Vec<&str> = claim
        .terms
        .iter()
        .filter(|(s, _)| !chosen.iter().any(|e| e.stems.contains(s)))
        .map(|(s, _)| s.as_str())
        .collect();
    let explanation = explain(
        &signals,
        &best,
        &missing_terms,
        &missing_numbers,
        &conflicting_numbers,
        overstatement.then_some(evidence_hedges.as_slice()),
    );
    SupportResult {
        score,
        label,
        best,
        missing_numbers,
        conflicting_numbers,
        overstatement,
        signals,
        explanation,
    }
}

/// The result for a claim with neither content words nor figures: nothing can support it.
fn nothing_to_look_for() -> SupportResult {
    SupportResult {
        score: 0.0,
        label: SupportLabel::Unsupported,
        best: Vec::new(),
        missing_numbers: Vec::new(),
        conflicting_numbers: Vec::new(),
        overstatement: false,
        signals: Signals::default(),
        explanation: "the claim has no content words to look for".to_string(),
    }
}

/// Share of the claim's word pairs the chosen sentences contain, so that shared words in
/// a different order count less; `None` when the claim has no pair.
fn bigram_coverage(claim: &Claim, chosen: &[&Sentence]) -> Option<f64> {
    if claim.bigrams.is_empty() {
        return None;
    }
    let found = claim
        .bigrams
        .iter()
        .filter(|b| chosen.iter().any(|s| s.bigrams.contains(*b)))
        .count();
    Some(found as f64 / claim.bigrams.len() as f64)
}

/// Share of the claim's names found anywhere in the evidence (1 when it names none).
fn entity_coverage(claim: &Claim, everything: &[&Sentence]) -> f64 {
    if claim.entities.is_empty() {
        return 1.0;
    }
    let found = claim
        .entities
        .iter()
        .filter(|e| everything.iter().any(|s| s.stems.contains(*e)))
        .count();
    found as f64 / claim.entities.len() as f64
}

/// The claim's figures the evidence never gives, and of those, the ones a sentence about
/// the claim gives differently (claim's text, evidence's text).
fn figures(
    claim: &Claim,
    sentences: &[Sentence],
    best: &[(usize, f64)],
) -> (Vec<String>, Vec<(String, String)>) {
    let all_quantities: Vec<Quantity> = sentences
        .iter()
        .flat_map(|s| s.quantities.iter().cloned())
        .collect();
    let mut missing_numbers = Vec::new();
    let mut conflicting_numbers = Vec::new();
    for q in &claim.quantities {
        if numbers::found_in(q, &all_quantities) {
            continue;
        }
        missing_numbers.push(q.text.clone());
        let conflict = best
            .iter()
            .filter(|(_, cov)| *cov >= RELEVANT_COVERAGE)
            .find_map(|&(i, _)| numbers::conflicting(q, &sentences[i].quantities));
        if let Some(other) = conflict {
            conflicting_numbers.push((q.text.clone(), other.text.clone()));
        }
    }
    (missing_numbers, conflicting_numbers)
}

/// Whether the evidence denies a word the claim asserts — and no other relevant sentence
/// asserts it (one sentence stating the fact supports it, whatever a neighbour denies) —
/// or the claim denies a word the evidence asserts. Only `relevant` sentences are read.
fn negation_mismatch(claim: &Claim, sentences: &[Sentence], relevant: &[usize]) -> bool {
    let asserted = |n: &String| {
        relevant
            .iter()
            .any(|&i| sentences[i].stems.contains(n) && !sentences[i].negated.contains(n))
    };
    let evidence_denies = relevant.iter().any(|&i| {
        sentences[i].negated.iter().any(|n| {
            claim.terms.iter().any(|(t, _)| t == n) && !claim.negated.contains(n) && !asserted(n)
        })
    });
    evidence_denies || claim.negated.iter().any(asserted)
}

/// The label: a conflicting figure contradicts; a missing figure or a low score leaves the
/// claim unsupported; a high score supports it unless negation differs.
fn support_label(
    score: f64,
    missing_numbers: &[String],
    conflicting_numbers: &[(String, String)],
    negation_mismatch: bool,
) -> SupportLabel {
    if !conflicting_numbers.is_empty() {
        SupportLabel::Contradicted
    } else if !missing_numbers.is_empty() || score < UNSUPPORTED_BELOW {
        SupportLabel::Unsupported
    } else if score >= SUPPORTED_AT && !negation_mismatch {
        // A reversed negation is never "supported", however much wording is shared; it is
        // not called a contradiction either, since negation scope is only approximated.
        SupportLabel::Supported
    } else {
        SupportLabel::PartiallySupported
    }
}

fn explain(
    s: &Signals,
    best: &[(usize, f64)],
    missing_terms: &[&str],
    missing_numbers: &[String],
    conflicting: &[(String, String)],
    hedges: Option<&[&str]>,
) -> String {
    let mut parts = Vec::new();
    let sentences: Vec<String> = best.iter().map(|(i, _)| i.to_string()).collect();
    parts.push(format!(
        "{:.0}% of the claim's weighted content found in evidence sentence(s) [{}] ({:.0}% anywhere in the evidence)",
        s.coverage * 100.0,
        sentences.join(", "),
        s.doc_coverage * 100.0
    ));
    if !missing_terms.is_empty() {
        let shown: Vec<&str> = missing_terms.iter().take(8).copied().collect();
        parts.push(format!("not found there: {}", shown.join(", ")));
    }
    for (claim, evidence) in conflicting {
        parts.push(format!(
            "the claim says {claim} where the evidence says {evidence}"
        ));
    }
    if !missing_numbers.is_empty() {
        parts.push(format!(
            "figures absent from the evidence: {}",
            missing_numbers.join(", ")
        ));
    }
    if s.entity_coverage < 1.0 {
        parts.push(format!(
            "{:.0}% of the names in the claim appear in the evidence",
            s.entity_coverage * 100.0
        ));
    }
    if s.negation_mismatch {
        parts.push("negation differs between claim and evidence".to_string());
    }
    if let Some(h) = hedges {
        parts.push(format!(
            "the evidence hedges ({}) but the claim does not",
            h.join(", ")
        ));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negated(text: &str) -> Vec<String> {
        let mut v: Vec<String> = negated_stems(&tokens::tokenize(text)).into_iter().collect();
        v.sort();
        v
    }

    #[test]
    fn negation_governs_the_next_content_word() {
        assert_eq!(negated("He did not want to leave"), ["want"]);
        assert_eq!(negated("no candidate was a favourite"), ["candid"]);
        assert!(negated("not only large but also old").is_empty());
        assert!(negated("It was not until 1990 that it opened").is_empty());
    }

    #[test]
    fn greedy_selection_adds_sentences_that_cover_new_words() {
        let idf = Idf::default();
        let claim = Claim::new("Curie was born in Warsaw and studied in Paris", &idf);
        let sentences: Vec<Sentence> = [
            "Curie was born in Warsaw.",
            "Curie was born in Warsaw in 1867.",
            "She studied in Paris.",
            "Unrelated text.",
        ]
        .iter()
        .map(|s| Sentence::new(s))
        .collect();
        let chosen: Vec<usize> = select(&claim, &sentences)
            .into_iter()
            .map(|b| b.0)
            .collect();
        // The duplicate adds nothing once the first is chosen; the unrelated one shares
        // no word.
        assert_eq!(chosen, [0, 2]);
    }
}
