//! "Best sentences of this page (or section) for this claim": the evidence lookup the
//! auditor and the citation verifier call.
//!
//! Sentences are ranked with BM25: term frequencies within the sentence, inverse
//! document frequencies from the whole wiki's sections (the text index), lengths
//! normalized by the page's average sentence length. Deterministic: ties go to the
//! earlier sentence.

use std::collections::HashMap;

use serde::Serialize;

use super::search::TextSearcher;
use super::{PageText, SentenceKind};

/// A sentence with its place and score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoredSentence {
    /// Section number (0 = lead).
    pub section: u32,
    /// Sentence number within the section (0-based).
    pub sentence: usize,
    pub text: String,
    pub kind: SentenceKind,
    pub score: f64,
    /// Byte range in the page's wikitext.
    pub start: u32,
    pub end: u32,
}

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Ranks the sentences of `text` (optionally of one section) against `claim`.
pub fn best_sentences(
    searcher: &TextSearcher,
    text: &PageText,
    section: Option<u32>,
    claim: &str,
    k: usize,
) -> Vec<ScoredSentence> {
    let mut claim_terms = searcher.terms(claim);
    claim_terms.sort();
    claim_terms.dedup();
    if claim_terms.is_empty() {
        return Vec::new();
    }
    // A vector in sorted term order, not a map: the sum below is then taken in the same
    // order every run, so scores (and ties) are bit-for-bit reproducible.
    let idf: Vec<(&str, f64)> = claim_terms
        .iter()
        .map(|t| {
            let (df, n) = searcher.doc_freq(t);
            let idf = ((n as f64 - df as f64 + 0.5) / (df as f64 + 0.5) + 1.0).ln();
            (t.as_str(), idf)
        })
        .collect();
    let candidates: Vec<(u32, usize, &super::Sentence)> = text
        .sentences()
        .filter(|(s, _, _)| section.is_none_or(|want| *s == want))
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let tokenized: Vec<Vec<String>> = candidates
        .iter()
        .map(|(_, _, s)| searcher.terms(&s.text))
        .collect();
    let avg = tokenized.iter().map(Vec::len).sum::<usize>() as f64 / tokenized.len() as f64;
    // Score every candidate, then copy out only the best `k`.
    let mut ranked: Vec<(f64, usize)> = tokenized
        .iter()
        .enumerate()
        .map(|(c, terms)| {
            let len = terms.len() as f64;
            let mut tf: HashMap<&str, usize> = HashMap::new();
            for t in terms {
                *tf.entry(t.as_str()).or_default() += 1;
            }
            let score = idf
                .iter()
                .map(|(t, w)| {
                    let f = *tf.get(t).unwrap_or(&0) as f64;
                    if f == 0.0 {
                        0.0
                    } else {
                        w * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * len / avg.max(1.0)))
                    }
                })
                .sum();
            (score, c)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    // Candidates are in document order, so the index breaks ties by (section, sentence).
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.truncate(k);
    ranked
        .into_iter()
        .map(|(score, c)| {
            let (section, sentence, s) = candidates[c];
            ScoredSentence {
                section,
                sentence,
                text: s.text.clone(),
                kind: s.kind,
                score,
                start: s.start,
                end: s.end,
            }
        })
        .collect()
}
