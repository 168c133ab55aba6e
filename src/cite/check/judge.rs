//! Does the cited page (or section) say what the claim says? Retrieves the page's best
//! sentences for the claim with the text index's BM25 ([`crate::text::evidence`]) and
//! scores them with the lexical support scorer ([`crate::cite::support`]).
//!
//! Candidates are: the sentences a quote points at, the BM25 best sentences of the cited
//! scope, and every sentence of the scope stating one of the claim's figures — so that "a
//! figure absent from the evidence" really means absent from the cited text, not merely
//! from the top of a ranking.

use serde::Serialize;

use super::target::{LocatorCheck, section_scope};
use crate::cite::support::{self, SupportLabel, SupportScorer};
use crate::query::section_anchor;
use crate::text::PageText;
use crate::text::evidence::{ScoredSentence, best_sentences};
use crate::text::search::{SearchError, TextSearcher};
use crate::wikitext::PageStructure;

/// BM25 candidates handed to the scorer. The scorer combines at most
/// [`support::MAX_SENTENCES`]; a few more give it room to skip near-duplicates.
const CANDIDATES: usize = 10;

/// Extra sentences taken because they state one of the claim's figures.
const FIGURE_CANDIDATES: usize = 5;

/// One evidence sentence with its locator: page section, anchor, sentence number, and
/// byte range in the page's wikitext.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct EvidenceSentence {
    pub section: u32,
    pub anchor: Option<String>,
    pub sentence: usize,
    pub text: String,
    pub start: u32,
    pub end: u32,
    /// The share of the claim's weighted content this sentence covers on its own.
    pub coverage: f64,
}

/// The text the claim was checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "scope", content = "section")]
pub enum Scope {
    Page,
    /// A section with its subsections.
    Section(u32),
}

/// The support verdict for one citation, with its evidence chain.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SupportCheck {
    pub label: SupportLabel,
    /// 0..1, the scorer's support score.
    pub score: f64,
    pub scope: Scope,
    /// The claim is supported only outside the cited section: the page is right, the
    /// anchor is not.
    pub outside_cited_section: bool,
    /// The evidence hedges (may, suggests, preliminary, …) and the claim does not.
    pub overstatement: bool,
    pub missing_numbers: Vec<String>,
    pub conflicting_numbers: Vec<(String, String)>,
    pub explanation: String,
    /// The sentences the verdict rests on, best first.
    pub evidence: Vec<EvidenceSentence>,
}

/// A page's text, structure and scorer (IDF over the page's own sentences), loaded once
/// per check however many citations point at it.
pub(crate) struct PageData {
    pub structure: PageStructure,
    pub text: PageText,
    scorer: SupportScorer,
}

impl PageData {
    pub fn new(structure: PageStructure, text: PageText) -> PageData {
        // Each sentence is a document: words the page repeats everywhere (its subject)
        // weigh little, the words that single out one fact weigh most.
        let idf = support::Idf::from_documents(text.sentences().map(|(_, _, s)| s.text.as_str()));
        PageData {
            structure,
            text,
            scorer: SupportScorer::new(idf),
        }
    }
}

/// Judges `claim` against the part of `page` the locator names.
pub(crate) fn judge(
    searcher: &TextSearcher,
    page: &PageData,
    locator: &LocatorCheck,
    claim: &str,
) -> Result<SupportCheck, SearchError> {
    let cited = match locator.section {
        Some(n) if locator.precision >= super::target::Precision::Section => Scope::Section(n),
        _ => Scope::Page,
    };
    // The page's ranking serves both scopes: each keeps the ranked sentences it covers.
    let ranked = best_sentences(searcher, &page.text, None, claim, usize::MAX)?;
    let first = judge_in(page, locator, claim, &ranked, cited);
    if first.label == SupportLabel::Supported || cited == Scope::Page {
        return Ok(first);
    }
    let whole = judge_in(page, locator, claim, &ranked, Scope::Page);
    if whole.label == SupportLabel::Supported {
        return Ok(SupportCheck {
            outside_cited_section: true,
            ..whole
        });
    }
    Ok(first)
}

fn judge_in(
    page: &PageData,
    locator: &LocatorCheck,
    claim: &str,
    ranked: &[ScoredSentence],
    scope: Scope,
) -> SupportCheck {
    let range = match scope {
        Scope::Page => 0..u32::MAX,
        Scope::Section(n) => section_scope(&page.structure, n),
    };
    let mut picked: Vec<(u32, usize)> = locator
        .quote_sentences
        .iter()
        .filter(|(s, _)| range.contains(s))
        .copied()
        .collect();
    for s in ranked
        .iter()
        .filter(|s| range.contains(&s.section))
        .take(CANDIDATES)
    {
        push_unique(&mut picked, (s.section, s.sentence));
    }
    let figures = support::extract_quantities(claim);
    if !figures.is_empty() {
        let mut extra = 0;
        for (sec, i, s) in page.text.sentences() {
            if extra == FIGURE_CANDIDATES {
                break;
            }
            if range.contains(&sec) && !picked.contains(&(sec, i)) {
                let here = support::extract_quantities(&s.text);
                if figures.iter().any(|q| support::found_in(q, &here)) {
                    picked.push((sec, i));
                    extra += 1;
                }
            }
        }
    }
    let sentence = |(sec, i): (u32, usize)| &page.text.sections[sec as usize].sentences[i];
    let texts: Vec<&str> = picked.iter().map(|&p| sentence(p).text.as_str()).collect();
    let result = page.scorer.score(claim, &texts);
    let evidence = result
        .best
        .iter()
        .map(|&(k, coverage)| {
            let (sec, i) = picked[k];
            let s = sentence((sec, i));
            EvidenceSentence {
                section: sec,
                anchor: section_anchor(&page.structure, sec),
                sentence: i,
                text: s.text.clone(),
                start: s.start,
                end: s.end,
                coverage,
            }
        })
        .collect();
    SupportCheck {
        label: result.label,
        score: result.score,
        scope,
        outside_cited_section: false,
        overstatement: result.overstatement,
        missing_numbers: result.missing_numbers,
        conflicting_numbers: result.conflicting_numbers,
        explanation: result.explanation,
        evidence,
    }
}

fn push_unique(v: &mut Vec<(u32, usize)>, x: (u32, usize)) {
    if !v.contains(&x) {
        v.push(x);
    }
}
