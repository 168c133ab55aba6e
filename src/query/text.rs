//! `wikiwit text` and `wikiwit search`: the words of a page or section, and BM25 search
//! with the best-matching sentence of each hit.

use serde::Serialize;

use super::{QueryError, find_page};
use crate::index::{Index, Resolution};
use crate::text::SentenceKind;
use crate::text::evidence::{ScoredSentence, best_sentences};
use crate::wikitext::PageStructure;

/// Finds the section an anchor names: the exact anchor, then with spaces as underscores,
/// then the legacy `.XX` encoding, then ASCII case-insensitively. 0 is the lead.
pub fn section_number(s: &PageStructure, anchor: &str) -> Option<u32> {
    let a = anchor.trim().trim_start_matches('#');
    if a.is_empty() {
        return Some(0);
    }
    let spaced = a.replace(' ', "_");
    let pos = |f: &dyn Fn(&str) -> bool| {
        s.sections
            .iter()
            .position(|x| f(&x.anchor))
            .map(|i| i as u32 + 1)
    };
    pos(&|x| x == a)
        .or_else(|| pos(&|x| x == spaced))
        .or_else(|| pos(&|x| crate::wikitext::anchors::legacy_anchor(x) == spaced))
        .or_else(|| pos(&|x| x.eq_ignore_ascii_case(&spaced)))
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SentenceView {
    pub sentence: usize,
    pub text: String,
    pub kind: SentenceKind,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SectionView {
    pub section: u32,
    pub anchor: Option<String>,
    pub heading: Option<String>,
    pub sentences: Vec<SentenceView>,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct TextView {
    pub page: String,
    pub page_id: u64,
    pub sections: Vec<SectionView>,
}

/// The text of a page, or of the section `anchor` names.
pub fn text(index: &Index, title: &str, anchor: Option<&str>) -> Result<TextView, QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    let t = index.page_text(page.number)?.ok_or_else(|| {
        QueryError::Index(crate::index::IndexError::NoText {
            path: index.dir().to_path_buf(),
        })
    })?;
    let wanted = match anchor.or(page.fragment.as_deref()) {
        Some(a) => Some(section_number(&s, a).ok_or_else(|| {
            QueryError::NotFound(format!("{:?} has no section {a:?}", page.title))
        })?),
        None => None,
    };
    let sections = t
        .sections
        .iter()
        .enumerate()
        .filter(|(i, _)| wanted.is_none_or(|w| w as usize == *i))
        .map(|(i, sec)| SectionView {
            section: i as u32,
            anchor: super::section_anchor(&s, i as u32),
            heading: (i > 0).then(|| {
                s.sections
                    .get(i - 1)
                    .map(|x| x.heading.clone())
                    .unwrap_or_default()
            }),
            sentences: sec
                .sentences
                .iter()
                .enumerate()
                .map(|(k, x)| SentenceView {
                    sentence: k,
                    text: x.text.clone(),
                    kind: x.kind,
                    start: x.start,
                    end: x.end,
                })
                .collect(),
        })
        .collect();
    Ok(TextView {
        page: page.title,
        page_id: page.page_id,
        sections,
    })
}

/// One search result: a section of a page, with its best sentence for the query.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct SearchResult {
    pub page: String,
    pub page_id: u64,
    /// The redirect whose title matched, when a redirect led here.
    pub via: Option<String>,
    pub section: u32,
    pub anchor: Option<String>,
    pub heading: Option<String>,
    pub score: f32,
    pub best: Option<ScoredSentence>,
}

/// Where a search looks: the whole wiki, one page, or one section of a page.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope<'a> {
    /// A title (redirects followed).
    pub page: Option<&'a str>,
    /// A section anchor of that page (`None`: every section; `""`: the lead).
    pub section: Option<&'a str>,
}

/// BM25 search over the whole wiki, one page or one section.
pub fn search(
    index: &Index,
    query: &str,
    scope: Scope<'_>,
    limit: usize,
) -> Result<Vec<SearchResult>, QueryError> {
    let searcher = index.searcher()?;
    let (restrict, section) = match scope.page {
        Some(t) => {
            let found = find_page(index, t)?;
            let section = match scope.section {
                Some(a) => {
                    let s = index.structure(found.number)?;
                    Some(section_number(&s, a).ok_or_else(|| {
                        QueryError::NotFound(format!("{}: no section {a:?}", found.title))
                    })?)
                }
                None => None,
            };
            (Some(found.number), section)
        }
        None if scope.section.is_some() => {
            return Err(QueryError::NotFound(
                "a section restriction needs a page".into(),
            ));
        }
        None => (None, None),
    };
    let hits = searcher.search(query, restrict, section, limit)?;
    let mut out = Vec::with_capacity(hits.len());
    for h in hits {
        let rec = index.page(h.page)?;
        // A page that lost its title to a duplicate is not in the wiki.
        if index.is_shadowed(h.page, &rec) {
            continue;
        }
        // A redirect's document stands for its target's lead.
        let (number, via, section) = match &rec.redirect {
            Some(rd) => match rd.resolution {
                Resolution::Page { page, .. } => (page, Some(index.display_title(&rec)), 0),
                _ => continue,
            },
            None => (h.page, None, h.section),
        };
        let target = index.page(number)?;
        // A page reached both directly and through a redirect is listed once; checked
        // before its structure and text are decoded.
        if out
            .iter()
            .any(|r: &SearchResult| r.page_id == target.id && r.section == section)
        {
            continue;
        }
        let s = index.structure(number)?;
        let best = match index.page_text(number)? {
            Some(t) => best_sentences(searcher, &t, Some(section), query, 1)?
                .into_iter()
                .next(),
            None => None,
        };
        out.push(SearchResult {
            page: index.display_title(&target),
            page_id: target.id,
            via,
            section,
            anchor: super::section_anchor(&s, section),
            heading: (section > 0).then(|| {
                s.sections
                    .get(section as usize - 1)
                    .map(|x| x.heading.clone())
                    .unwrap_or_default()
            }),
            score: h.score,
            best,
        });
    }
    Ok(out)
}
