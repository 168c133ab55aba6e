//! The plain text of a page, per section, as sentences with wikitext offsets (see
//! [`crate::text`]).
//!
//! Prose paragraphs are rendered (links show their text, templates their known value or
//! nothing, references nothing) and split into sentences; each list item, table row and
//! infobox field is one sentence. Everything is ordered by position and assigned to the
//! section it sits in.

use std::ops::Range;

use super::flat::Flat;
use super::render::Rendered;
use super::tables::RawTable;
use super::{PageStructure, render::squeeze};
use crate::text::{PageText, SectionText, Sentence, SentenceKind, split_sentences, strip_residue};

/// Infobox fields that hold layout, not facts.
fn is_layout_field(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "image"
            | "logo"
            | "alt"
            | "map"
            | "width"
            | "upright"
            | "signature"
            | "coordinates"
            | "coords"
            | "pushpin_map"
            | "embed"
    ) || n.ends_with("_size")
        || n.ends_with("size")
        || n.starts_with("image")
        || n.starts_with("logo")
        || n.starts_with("pushpin")
        || n.starts_with("map_")
}

/// Sentences of a prose or list block rendered from `range`.
fn block_sentences(r: &Rendered, kind: SentenceKind, out: &mut Vec<Sentence>) {
    let ranges = if kind == SentenceKind::Prose {
        split_sentences(&r.text)
    } else {
        // A list item or cell is one unit of evidence, whatever its punctuation.
        let whole = 0..r.text.len();
        if r.text.trim().is_empty() {
            Vec::new()
        } else {
            std::iter::once(whole).collect()
        }
    };
    for s in ranges {
        let text = squeeze(&strip_residue(&r.text[s.clone()]));
        if text.is_empty() {
            continue;
        }
        let start = r.src_offset(s.start);
        let end = r.src_offset(s.end.saturating_sub(1)) + 1;
        out.push(Sentence {
            text,
            kind,
            start,
            end: end.max(start),
        });
    }
}

/// Extracts the page's prose and list sentences, in no particular order; [`assemble_text`]
/// adds its structure's sentences once the structure is final (expansion adds to it).
/// `render` renders a range of the top-level flat text with a source map.
pub(super) fn extract(
    flat: &Flat<'_>,
    tables: &[RawTable],
    render: &dyn Fn(Range<u32>) -> Rendered,
) -> Vec<Sentence> {
    let mut all: Vec<Sentence> = Vec::new();
    // Prose and list lines, outside headings and tables.
    let mut spans: Vec<(u32, u32)> = tables
        .iter()
        .filter(|t| t.parent.is_none())
        .map(|t| (t.start, t.end))
        .collect();
    spans.extend(flat.headings.iter().map(|h| (h.range.start, h.range.end)));
    spans.sort_unstable();
    let covered = |p: u32| {
        let k = spans.partition_point(|(a, _)| *a <= p);
        k > 0 && p < spans[k - 1].1
    };
    let text: &str = &flat.text;
    let mut para: Option<(u32, u32)> = None;
    let flush = |para: &mut Option<(u32, u32)>, all: &mut Vec<Sentence>| {
        if let Some((a, b)) = para.take() {
            block_sentences(&render(a..b), SentenceKind::Prose, all);
        }
    };
    let mut pos = 0usize;
    while pos <= text.len() {
        let end = memchr::memchr(b'\n', &text.as_bytes()[pos..])
            .map(|p| pos + p)
            .unwrap_or(text.len());
        let line = &text[pos..end];
        let (a, b) = (pos as u32, end as u32);
        if covered(a) || line.trim().is_empty() {
            flush(&mut para, &mut all);
        } else if line.starts_with(['*', '#', ':', ';']) && !is_redirect_line(line) {
            flush(&mut para, &mut all);
            block_sentences(&render(a..b), SentenceKind::List, &mut all);
        } else {
            para = Some(match para {
                Some((pa, _)) => (pa, b),
                None => (a, b),
            });
        }
        pos = end + 1;
    }
    flush(&mut para, &mut all);
    all
}

/// The sentences a page's structure alone determines: each data row of each table, read
/// with its header labels, then each infobox field, in that order. The text store keeps
/// only the prose and list sentences of a page whose text is this plus its prose
/// ([`assemble`]), and derives these from `structure.rec` when the page is read, rather
/// than storing every table twice.
pub(crate) fn structure_sentences(s: &PageStructure) -> Vec<Sentence> {
    let mut all = Vec::new();
    for t in &s.tables {
        let labels = t.column_labels();
        for row in &t.rows[t.header_rows()..] {
            let mut parts = Vec::new();
            for c in &row.cells {
                if c.text.is_empty() {
                    continue;
                }
                match labels.get(c.col as usize).cloned().flatten() {
                    Some(l) if !c.header => parts.push(format!("{l}: {}", c.text)),
                    _ => parts.push(c.text.clone()),
                }
            }
            if parts.is_empty() {
                continue;
            }
            let start = row.cells.first().map(|c| c.start).unwrap_or(t.start);
            let end = row.cells.last().map(|c| c.end).unwrap_or(t.end);
            all.push(Sentence {
                text: squeeze(&strip_residue(&parts.join("; "))),
                kind: SentenceKind::Table,
                start,
                end: end.max(start),
            });
        }
    }
    for ib in &s.infoboxes {
        for f in &ib.fields {
            if f.text.is_empty() || is_layout_field(&f.name) {
                continue;
            }
            all.push(Sentence {
                text: squeeze(&strip_residue(&format!(
                    "{}: {}",
                    f.name.replace('_', " "),
                    f.text
                ))),
                kind: SentenceKind::Infobox,
                start: f.start,
                end: f.end,
            });
        }
    }
    all
}

/// A page's text from its prose and list sentences in document order (as
/// [`PageText::sentences`] lists them, tables and infobox fields left out) and its
/// structure: the inverse of leaving [`structure_sentences`] out of a page's text.
pub(crate) fn assemble(prose: Vec<Sentence>, s: &PageStructure) -> PageText {
    assemble_text(prose, s).text
}

/// A page's text as [`assemble_text`] made it from its prose and its structure, and
/// whether the text store may leave the structure's sentences out (a text with none
/// has nothing to leave out). Knowing how the text was made spares the store deriving
/// the structure's sentences a second time to check that they give the text back
/// (`StoredText::encode` does that for a text of unknown making).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assembled {
    text: PageText,
    derived: bool,
}

impl Assembled {
    pub(crate) fn text(&self) -> &PageText {
        &self.text
    }

    pub(crate) fn into_text(self) -> PageText {
        self.text
    }

    /// The text holds sentences of the structure it was assembled with, and no others
    /// of their kinds: a reader derives them from the stored structure.
    pub(crate) fn derived(&self) -> bool {
        self.derived
    }
}

/// [`assemble`], keeping what the text store needs to know of it: the structure's
/// sentences are derived once, here, for the text and the store alike.
pub(crate) fn assemble_text(prose: Vec<Sentence>, s: &PageStructure) -> Assembled {
    let derivable = structure_sentences(s);
    // A table or infobox sentence among the prose would not be derived back.
    let derived = !derivable.is_empty() && prose.iter().all(|x| !x.kind.from_structure());
    let mut all = prose;
    all.extend(derivable);
    Assembled {
        text: assign(all, s),
        derived,
    }
}

/// Whether [`assemble`] of `prose` (by reference) and `derivable` (the structure's
/// sentences) would give `text`: the same order and grouping, compared without
/// assembling a copy (the text store checks every page of a text build this way).
pub(crate) fn assembles_to(
    prose: Vec<&Sentence>,
    derivable: &[Sentence],
    s: &PageStructure,
    text: &PageText,
) -> bool {
    if prose.len() + derivable.len() != text.sentences().count()
        || text.sections.len() != s.sections.len() + 1
    {
        return false;
    }
    let mut merged = prose;
    merged.extend(derivable);
    merged.sort_by_key(|x| order(x));
    merged
        .iter()
        .zip(text.sentences())
        .all(|(x, (k, _, y))| section_of(x, s) == k as usize && *x == y)
}

/// Orders sentences by position and groups them by section.
fn assign(mut all: Vec<Sentence>, s: &PageStructure) -> PageText {
    all.sort_by_key(order);
    let mut sections = vec![SectionText::default(); s.sections.len() + 1];
    for x in all {
        sections[section_of(&x, s)].sentences.push(x);
    }
    PageText { sections }
}

/// The order of a page's sentences: by byte range (sorts using it are stable).
fn order(x: &Sentence) -> (u32, u32) {
    (x.start, x.end)
}

/// The section a sentence belongs to: 0 before the first heading.
fn section_of(x: &Sentence, s: &PageStructure) -> usize {
    s.sections.partition_point(|sec| sec.start <= x.start)
}

/// The sentences of a page without any markup: paragraphs split into sentences, offsets
/// exact, in order.
pub(super) fn plain(text: &str) -> Vec<Sentence> {
    let mut sentences = Vec::new();
    let mut pos = 0usize;
    while pos < text.len() {
        let end = memchr::memmem::find(&text.as_bytes()[pos..], b"\n\n")
            .map(|p| pos + p)
            .unwrap_or(text.len());
        let para = &text[pos..end];
        for r in split_sentences(para) {
            let t = squeeze(&para[r.clone()]);
            if !t.is_empty() {
                sentences.push(Sentence {
                    text: t,
                    kind: SentenceKind::Prose,
                    start: (pos + r.start) as u32,
                    end: (pos + r.end) as u32,
                });
            }
        }
        pos = end + 2;
    }
    sentences
}

/// `#REDIRECT [[…]]` (or a localized `#WORD [[…]]`) starting a line.
pub(super) fn is_redirect_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('#') else {
        return false;
    };
    let word = rest.chars().take_while(|c| c.is_alphabetic()).count();
    word > 0 && {
        let after: String = rest.chars().skip(word).collect();
        after.trim_start_matches([':', ' ', '\t']).starts_with("[[")
    }
}
