//! Citation extraction from agent-written research reports (markdown).
//!
//! [`parse_report`] finds every place a report points at a source — markdown links,
//! footnotes, numbered markers resolved against a trailing sources list, bare URLs,
//! wikilinks, DOIs, arXiv ids, ISBNs, author–year citations — and pairs each with the
//! claim (sentence) it closes. It is pure and never fails: a marker that resolves to nothing
//! is reported in [`ParsedReport::unresolved_markers`], because an audit must see it.
//!
//! Pipeline (one private module each): `markdown` (structure and code, via pulldown-cmark)
//! → `refs` (definitions and sources lists, read line by line) → `markers` (patterns over
//! prose) → `resolve` (marker → source) → `plain` + [`crate::text::sentences`] → `claims`
//! (the sentence each citation closes). Wikipedia URLs are read by [`crate::url`], which the
//! locator shares; `urls` adds what only citations need (DOI, arXiv, ISBN, tracking
//! parameters).

mod claims;
mod fence;
mod ids;
mod markdown;
mod marker_sources;
mod markers;
mod plain;
mod refs;
mod urls;

use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::url::TextQuote;

/// Everything found in one report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ParsedReport {
    /// One entry per (marker, source) pair, in report order: `[3, 4]` yields two.
    pub citations: Vec<Citation>,
    /// Markers that do not lead to a usable source. Each `Source::Unresolved` citation has
    /// one here, pointing back at it.
    pub unresolved_markers: Vec<Marker>,
    /// Definitions and sources-list entries, in report order.
    pub references: Vec<Reference>,
    /// What the parser repaired or doubted in the report's markdown (a code fence
    /// followed by text, read as closing its block), one line each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    /// Index in [`ParsedReport::citations`].
    pub id: usize,
    /// Byte span of the marker or link in the input.
    pub span: Range<usize>,
    /// The marker as written (`[3-5]`, `[^2]`, `[text](url)`, …).
    pub marker: String,
    /// The reference number or label this citation used (`"4"` for the second source of
    /// `[3][4]`, `"2"` for `[^2]`), if any.
    pub label: Option<String>,
    /// The sentence (or list item / table cell) the citation closes, markup stripped.
    pub claim: String,
    /// Byte span of the claim in the input.
    pub claim_span: Range<usize>,
    /// Index of the block (paragraph, list item, heading, table cell) holding the marker,
    /// counting only blocks with visible text outside the reference sections.
    pub paragraph: usize,
    /// Index in [`ParsedReport::references`] of the entry the marker resolved through.
    pub reference: Option<usize>,
    pub source: Source,
}

/// What a citation points at, as precisely as the report allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Wikipedia {
        lang: Option<String>,
        /// Percent-decoded, underscores as spaces; `None` for `?curid=`/`?oldid=`-only URLs.
        title: Option<String>,
        oldid: Option<u64>,
        curid: Option<u64>,
        anchor: Option<String>,
        /// The `#:~:text=` fragment: the passage the author meant.
        quote: Option<TextQuote>,
        /// The URL with tracking parameters removed.
        url: Option<String>,
    },
    /// `[[Title#Section|text]]`.
    WikiLink {
        target: String,
        anchor: Option<String>,
    },
    /// Lowercased DOI (`10.1038/nature14539`).
    Doi(String),
    /// arXiv identifier as written, version kept (`2101.00001v2`).
    Arxiv(String),
    /// ISBN digits with a valid checksum, separators removed.
    Isbn(String),
    /// Any other URL, tracking parameters removed.
    Url(String),
    AuthorYear {
        authors: String,
        year: u16,
    },
    /// A reference entry with text but no identifier ("Smith, J. Title. Publisher.").
    Bibliographic {
        text: String,
    },
    Unresolved,
}

/// A marker that does not lead to a usable source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    pub span: Range<usize>,
    /// The marker as written.
    pub text: String,
    pub label: Option<String>,
    pub reason: UnresolvedReason,
    /// The `Source::Unresolved` citation recorded for it, if any.
    pub citation: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnresolvedReason {
    /// `[7]` or `[^x]` with no matching definition or list entry.
    NoSuchReference,
    /// The definition exists but names nothing (`[^3]:` with an empty body).
    EmptyReference,
    /// `[9-3]`, or a range too long to be meant; its endpoints are still cited.
    BadRange,
    /// An ISBN whose check digit is wrong.
    InvalidIsbn,
    /// An author–year mention (`Klophaus (2008)`) that no sources-list entry matches.
    NoEntry,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceKind {
    /// `[^label]: …`
    Footnote,
    /// A numbered entry: `[3] …`, `3. …`, `[3]: …`.
    Numbered,
    /// `[label]: url "title"` with a non-numeric label.
    LinkDefinition,
    /// An unnumbered entry of a sources section.
    Listed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// Index in [`ParsedReport::references`].
    pub index: usize,
    pub kind: ReferenceKind,
    /// Number, footnote label or (lowercased) link label.
    pub key: Option<String>,
    /// The entry's lines in the input.
    pub span: Range<usize>,
    /// The entry text after its marker, whitespace collapsed.
    pub text: String,
    pub title: Option<String>,
    pub source: Source,
    /// The entry's URL as written (tracking parameters removed) when its source is an
    /// identifier read from it: a publisher page a DOI was taken from stays followable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Citations that resolved through this entry; empty means the report lists a source
    /// it never cites.
    pub cited_by: Vec<usize>,
}

/// Extracts every citation from a markdown report. Never panics; runs in time roughly
/// linear in the input length.
pub fn parse_report(markdown: &str) -> ParsedReport {
    parse_report_with(markdown, ClaimScope::Sentence)
}

/// What a citation marker vouches for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimScope {
    /// The sentence the marker closes (or sits in).
    #[default]
    Sentence,
    /// Every sentence of the marker's paragraph since the previous marker (adjacent
    /// markers, `[3][4]`, share one claim): agents often cite once, at the paragraph's end.
    Paragraph,
}

/// [`parse_report`] with the claim each marker vouches for chosen by `scope`.
pub fn parse_report_with(markdown: &str, scope: ClaimScope) -> ParsedReport {
    let (repaired, warnings) = fence::repair(markdown);
    let mut report = claims::parse(&repaired, scope);
    report.warnings = warnings;
    report
}
