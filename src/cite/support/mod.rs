//! Lexical support scoring: does this evidence state what the claim says?
//!
//! [`SupportScorer::score`] compares a claim with evidence sentences (typically the
//! sentences of the cited page) using only words and figures — no model — so the verdict is
//! deterministic and explainable: which sentences were used, which words and figures were
//! missing, whether the evidence hedges what the claim asserts. It is a triage signal, not a
//! judge of paraphrase: synonyms and inference are out of its reach.

mod idf;
mod score;

use serde::{Deserialize, Serialize};

pub(crate) use crate::text::quantities::extract as extract_quantities;
pub(crate) use crate::text::quantities::found_in;
pub use idf::Idf;
pub(crate) use score::SUPPORTED_AT;

/// Scores claims against evidence with a fixed IDF table.
#[derive(Debug, Clone, Default)]
pub struct SupportScorer {
    idf: Idf,
}

impl SupportScorer {
    /// `idf` weights words by rarity; an empty table (`Idf::default()`) makes every call
    /// build one from the evidence it is given, each sentence a document.
    pub fn new(idf: Idf) -> Self {
        SupportScorer { idf }
    }

    pub fn score(&self, claim: &str, evidence: &[&str]) -> SupportResult {
        score::score(&self.idf, claim, evidence)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SupportLabel {
    /// Score at least `SUPPORTED_AT`, every figure found, no reversed negation.
    Supported,
    PartiallySupported,
    /// Score below `score::UNSUPPORTED_BELOW`, or a figure of the claim is absent.
    Unsupported,
    /// A well-matching evidence sentence gives a different figure for the same thing.
    Contradicted,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SupportResult {
    /// 0..1, higher is better supported.
    pub score: f64,
    pub label: SupportLabel,
    /// Evidence sentences used, as (index, own coverage of the claim), in selection order.
    pub best: Vec<(usize, f64)>,
    /// Figures and dates of the claim that the evidence never states.
    pub missing_numbers: Vec<String>,
    /// (claim figure, evidence figure) pairs for the same quantity.
    pub conflicting_numbers: Vec<(String, String)>,
    /// The evidence hedges (may, suggests, preliminary, …) and the claim does not.
    pub overstatement: bool,
    pub signals: Signals,
    /// One human-readable line saying why.
    pub explanation: String,
}

/// The measurements behind the score, for callers that want to weigh them differently.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Signals {
    /// IDF-weighted share of the claim's content words in the selected sentences.
    pub coverage: f64,
    /// The same share over all the evidence.
    pub doc_coverage: f64,
    /// Share of the claim's adjacent content-word pairs found adjacent in the selected
    /// sentences: word order and phrasing.
    pub bigram_coverage: f64,
    /// Share of the claim's names (capitalised words inside a sentence) found anywhere.
    pub entity_coverage: f64,
    /// Total IDF weight of the claim's content words missing from the selected sentences:
    /// how much unsupported information the claim carries, regardless of its length.
    pub missing_weight: f64,
    pub numbers_in_claim: usize,
    /// The claim is negated and the selected evidence is not, or the reverse.
    pub negation_mismatch: bool,
}
