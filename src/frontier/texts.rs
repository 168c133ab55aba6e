//! The texts of the pages a plan scores, decoded and tokenized once.
//!
//! A plan scores a page once for each row that links it, each time against what that
//! row leaves unexplained, so a page is decoded and split into terms on first use and
//! kept for the plan. Many plans (an evaluation's questions) read the pages of the same
//! tables, and a page costs the decoding of its whole store block: a [`TextCache`]
//! filled in page order beforehand decodes each block once for all of them.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::FrontierError;
use super::planner::SENTENCES_PER_PAGE;
use crate::index::Index;
use crate::text::PageText;
use crate::text::evidence::{SentenceTerms, claim_idf};
use crate::text::search::TextSearcher;

/// A page's text and its sentences' terms (`None` for an index without text).
type Prepared = Option<(PageText, SentenceTerms)>;

fn prepare(index: &Index, searcher: &TextSearcher, n: u32) -> Result<Prepared, FrontierError> {
    Ok(index.page_text(n)?.map(|t| {
        let terms = SentenceTerms::new(searcher, &t, None);
        (t, terms)
    }))
}

/// Page texts prepared ahead of many plans, shared by them (read-only, so plans on
/// several threads read it at once).
#[derive(Default)]
pub(crate) struct TextCache {
    pages: HashMap<u32, Prepared>,
}

impl TextCache {
    /// Prepares `pages`, in page order: the stores keep consecutive pages in one block,
    /// so each block is decoded about once. Chunks of consecutive pages run in parallel.
    pub(crate) fn prefetch(index: &Index, mut pages: Vec<u32>) -> Result<TextCache, FrontierError> {
        let searcher = index.searcher()?;
        pages.sort_unstable();
        pages.dedup();
        let chunk = pages
            .len()
            .div_ceil(rayon::current_num_threads().max(1) * 8)
            .max(1);
        let parts: Vec<Vec<(u32, Prepared)>> = pages
            .par_chunks(chunk)
            .map(|c| {
                c.iter()
                    .map(|&n| Ok((n, prepare(index, searcher, n)?)))
                    .collect::<Result<Vec<_>, FrontierError>>()
            })
            .collect::<Result<_, _>>()?;
        Ok(TextCache {
            pages: parts.into_iter().flatten().collect(),
        })
    }
}

/// The texts one plan scores: from the shared cache when it holds the page, else
/// decoded on first use; and the IDF of each query scored (rows share their residual
/// questions).
pub(crate) struct PageTexts<'a> {
    index: &'a Index,
    shared: Option<&'a TextCache>,
    texts: BTreeMap<u32, Prepared>,
    idf: BTreeMap<String, Vec<(String, f64)>>,
}

impl<'a> PageTexts<'a> {
    pub fn new(index: &'a Index, shared: Option<&'a TextCache>) -> Self {
        PageTexts {
            index,
            shared,
            texts: BTreeMap::new(),
            idf: BTreeMap::new(),
        }
    }

    /// The best sentence of page `n` for `query`, and its BM25 score.
    pub fn score(
        &mut self,
        searcher: &TextSearcher,
        n: u32,
        query: &str,
    ) -> Result<(f64, Option<String>), FrontierError> {
        let prepared: &Prepared = match self.shared.and_then(|c| c.pages.get(&n)) {
            Some(p) => p,
            None => match self.texts.entry(n) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(prepare(self.index, searcher, n)?),
            },
        };
        let Some((text, terms)) = prepared else {
            return Ok((0.0, None));
        };
        let idf = match self.idf.entry(query.to_string()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(claim_idf(searcher, query)?),
        };
        Ok(match terms.rank(idf, SENTENCES_PER_PAGE).first() {
            Some(&(score, c)) => {
                let (section, sentence) = terms.place(c);
                let s = &text.sections[section as usize].sentences[sentence];
                (score, Some(s.text.clone()))
            }
            None => (0.0, None),
        })
    }
}
