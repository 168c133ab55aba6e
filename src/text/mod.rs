//! Evidence text: what each section of a page says, as sentences with byte offsets back
//! into the wikitext, and full-text search over it.
//!
//! The checker and the citation verifier need the *words* a locator points to: a
//! section's sentences, a table row read with its header labels, an infobox field as
//! `field: value`. They are produced at build time by the wikitext walker
//! ([`crate::wikitext`]), stored per page (`text.rec`), and indexed for BM25 search
//! ([`search`], tantivy).

pub(crate) mod checked;
pub mod evidence;
pub(crate) mod join;
pub(crate) mod quantities;
pub(crate) mod quote;
mod residue;
pub mod search;
pub mod sentences;
pub mod tokenizer;
pub mod words;

pub(crate) use residue::strip_residue;

use serde::{Deserialize, Serialize};

/// What a sentence was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SentenceKind {
    Prose,
    List,
    /// A table row, as `label: value; label: value`.
    Table,
    /// An infobox field, as `field: value`.
    Infobox,
}

impl SentenceKind {
    /// Whether a sentence of this kind is one its page's structure determines (a table
    /// row or an infobox field; see `crate::wikitext::structure_sentences`).
    pub fn from_structure(self) -> bool {
        matches!(self, SentenceKind::Table | SentenceKind::Infobox)
    }
}

/// One sentence (or list item, table row, infobox field) of a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sentence {
    pub text: String,
    pub kind: SentenceKind,
    /// Byte range in the page's wikitext.
    pub start: u32,
    pub end: u32,
}

/// The text of one section: section 0 is the lead, section `i` the `i`-th heading.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionText {
    pub sentences: Vec<Sentence>,
}

/// The text of a page, one entry per section (lead first), aligned with the page's
/// [`crate::wikitext::PageStructure::sections`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageText {
    pub sections: Vec<SectionText>,
}

impl PageText {
    /// All sentences with their section number, in document order.
    pub fn sentences(&self) -> impl Iterator<Item = (u32, usize, &Sentence)> {
        self.sections.iter().enumerate().flat_map(|(s, sec)| {
            sec.sentences
                .iter()
                .enumerate()
                .map(move |(i, x)| (s as u32, i, x))
        })
    }

    /// The section's text as one string (sentences joined by spaces, rows by newlines).
    pub(crate) fn section_string(&self, section: usize) -> String {
        let mut out = String::new();
        if let Some(sec) = self.sections.get(section) {
            for (i, s) in sec.sentences.iter().enumerate() {
                if i > 0 {
                    let prev = sec.sentences[i - 1].kind;
                    out.push(
                        if prev == SentenceKind::Prose && s.kind == SentenceKind::Prose {
                            ' '
                        } else {
                            '\n'
                        },
                    );
                }
                out.push_str(&s.text);
            }
        }
        out
    }
}

/// How quoted text is compared with the dump's text, for a locator's `quote:"…"` and a
/// citation's `#:~:text=` alike: lower case, one space between words, typographic quotes,
/// primes and dashes made plain — the ways a browser's rendering of a page (where quotes
/// are copied from) differs from the text rendered from wikitext.
pub(crate) fn fold_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{2032}' | '`' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{2033}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            c => c,
        };
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// Splits prose into sentences with [`sentences::split`]'s rules (abbreviations, initials,
/// decimals): ranges into `text`, whitespace-trimmed, empty ones dropped.
pub(crate) fn split_sentences(text: &str) -> Vec<std::ops::Range<usize>> {
    sentences::split(text)
        .into_iter()
        .filter_map(|r| {
            let s = &text[r.clone()];
            let lead = s.len() - s.trim_start().len();
            let trail = s.len() - s.trim_end().len();
            (lead < s.len()).then(|| r.start + lead..r.end - trail)
        })
        .collect()
}

/// A page of prose sentences, one slice per section, for tests of what reads sentences.
#[cfg(test)]
pub(crate) fn prose_page(sections: &[&[&str]]) -> PageText {
    PageText {
        sections: sections
            .iter()
            .map(|ss| SectionText {
                sentences: ss
                    .iter()
                    .map(|t| Sentence {
                        text: t.to_string(),
                        kind: SentenceKind::Prose,
                        start: 0,
                        end: 0,
                    })
                    .collect(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::fold_quote;

    #[test]
    fn quotes_fold_the_way_a_browser_copy_differs_from_the_dump() {
        // Typographic quotes, a prime, a backtick, an en dash, a minus, a non-breaking
        // space and a line break, as copied from a rendered page.
        let copied = "  The \u{201C}Iron\u{00A0}Gates\u{201D} gorge \u{2013} Europe\u{2019}s `deepest`\n 5\u{2032}  \u{2212}3 ";
        assert_eq!(
            fold_quote(copied),
            "the \"iron gates\" gorge - europe's 'deepest' 5' -3"
        );
        assert_eq!(fold_quote(" \t\n"), "");
        // Case folding beyond ASCII, as MediaWiki text has it.
        assert_eq!(fold_quote("ÉCOLE Ďurďošík"), "école ďurďošík");
    }
}
