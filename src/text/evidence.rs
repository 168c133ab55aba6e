//! "Best sentences of this page (or section) for this claim": the evidence lookup the
//! auditor and the citation verifier call.
//!
//! Sentences are ranked with BM25: term frequencies within the sentence, inverse
//! document frequencies from the whole wiki's sections (the text index), lengths
//! normalized by the page's average sentence length. Deterministic: ties go to the
//! earlier sentence.

use serde::Serialize;

use super::search::{SearchError, TextSearcher};
use super::{PageText, SentenceKind};

/// A sentence with its place and score.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
pub(crate) fn best_sentences(
    searcher: &TextSearcher,
    text: &PageText,
    section: Option<u32>,
    claim: &str,
    k: usize,
) -> Result<Vec<ScoredSentence>, SearchError> {
    let idf = claim_idf(searcher, claim)?;
    if idf.is_empty() {
        return Ok(Vec::new());
    }
    let terms = SentenceTerms::new(searcher, text, section);
    Ok(terms
        .rank(&idf, k)
        .into_iter()
        .map(|(score, c)| {
            let (section, sentence) = terms.places[c];
            let s = &text.sections[section as usize].sentences[sentence];
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
        .collect())
}

/// The claim's distinct terms in sorted order, each with its wiki-wide IDF. A vector in
/// sorted term order, not a map: the BM25 sum is then taken in the same order every run,
/// so scores (and ties) are bit-for-bit reproducible.
pub(crate) fn claim_idf(
    searcher: &TextSearcher,
    claim: &str,
) -> Result<Vec<(String, f64)>, SearchError> {
    let mut claim_terms = searcher.terms(claim);
    claim_terms.sort();
    claim_terms.dedup();
    claim_terms
        .into_iter()
        .map(|t| {
            let idf = term_idf(searcher, &t)?;
            Ok((t, idf))
        })
        .collect()
}

/// The wiki-wide IDF of an analysed term.
pub(crate) fn term_idf(searcher: &TextSearcher, term: &str) -> Result<f64, SearchError> {
    let (df, n) = searcher.doc_freq(term)?;
    Ok(((n as f64 - df as f64 + 0.5) / (df as f64 + 0.5) + 1.0).ln())
}

/// A page's sentences (optionally one section's) tokenized once, so that they can be
/// ranked against many claims: the frontier planner scores a page once for each row that
/// links it, each row leaving other words of the question unexplained.
#[derive(Debug, Clone, Default)]
pub(crate) struct SentenceTerms {
    /// (section, sentence) of each candidate sentence, in document order.
    places: Vec<(u32, usize)>,
    /// Each sentence's term frequencies, sorted by term.
    tf: Vec<Vec<(String, u32)>>,
    /// Each sentence's length in terms.
    lens: Vec<usize>,
    /// Average sentence length.
    avg: f64,
}

impl SentenceTerms {
    pub fn new(searcher: &TextSearcher, text: &PageText, section: Option<u32>) -> SentenceTerms {
        let mut out = SentenceTerms::default();
        for (sec, i, s) in text.sentences() {
            if section.is_some_and(|want| sec != want) {
                continue;
            }
            let mut terms = searcher.terms(&s.text);
            out.lens.push(terms.len());
            terms.sort_unstable();
            let mut tf: Vec<(String, u32)> = Vec::new();
            for t in terms {
                match tf.last_mut() {
                    Some((last, n)) if *last == t => *n += 1,
                    _ => tf.push((t, 1)),
                }
            }
            out.tf.push(tf);
            out.places.push((sec, i));
        }
        if !out.lens.is_empty() {
            out.avg = out.lens.iter().sum::<usize>() as f64 / out.lens.len() as f64;
        }
        out
    }

    /// (section, sentence) of candidate `c`.
    pub fn place(&self, c: usize) -> (u32, usize) {
        self.places[c]
    }

    /// The best `k` sentences for a claim given as [`claim_idf`] gives it: (BM25 score,
    /// candidate), best first, only those matching some term; ties go to the earlier
    /// sentence.
    pub(crate) fn rank(&self, idf: &[(String, f64)], k: usize) -> Vec<(f64, usize)> {
        if idf.is_empty() {
            return Vec::new();
        }
        let avg = self.avg.max(1.0);
        let mut ranked: Vec<(f64, usize)> = self
            .tf
            .iter()
            .zip(&self.lens)
            .enumerate()
            .map(|(c, (tf, len))| {
                let len = *len as f64;
                let score = idf
                    .iter()
                    .map(|(t, w)| {
                        let f = tf
                            .binary_search_by(|(x, _)| x.as_str().cmp(t))
                            .map_or(0, |i| tf[i].1) as f64;
                        if f == 0.0 {
                            0.0
                        } else {
                            w * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * len / avg))
                        }
                    })
                    .sum();
                (score, c)
            })
            .filter(|(score, _)| *score > 0.0)
            .collect();
        // Candidates are in document order, so the index breaks ties by (section,
        // sentence).
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.truncate(k);
        ranked
    }
}
