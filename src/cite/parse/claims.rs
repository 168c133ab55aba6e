//! Assembly: runs the passes in order and pairs every citation with the claim it closes.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::markdown::{self, Cell, Layout, merge};
use super::marker_sources::{MarkerResolver, Mode, Pending, Shown};
use super::plain::{Edit, PlainText};
use super::refs::{self, RefEntry, in_ranges, normalize_label};
use super::{Citation, ClaimScope, Marker, ParsedReport, Reference, ReferenceKind, markers};
use crate::text::sentences;

/// A claim's text and its byte span in the report.
type Claim = (String, Range<usize>);

/// How many blocks back a marker standing alone (a table cell holding only `[3]`, a
/// paragraph that is just `[4][5]`) may look for the claim it closes.
const LOOKBACK_BLOCKS: usize = 2;

/// How many sentences back a marker whose own sentence is empty may look.
const LOOKBACK_SENTENCES: usize = 3;

/// Longest claim kept whole; see [`sentence_claim`].
const MAX_CLAIM_BYTES: usize = 1000;

pub fn parse(src: &str, scope: ClaimScope) -> ParsedReport {
    let mut layout = markdown::layout(src);
    let scan = refs::scan(src, &layout.code);
    let mut entries = scan.entries;
    add_parser_definitions(src, &layout, &mut entries);
    entries.sort_by_key(|e| e.span.start);

    let mut excluded: Vec<Range<usize>> = entries
        .iter()
        .map(|e| e.span.clone())
        .chain(scan.sections.iter().cloned())
        .collect();
    excluded.sort_by_key(|r| r.start);
    let excluded = merge(excluded);
    exclude(&mut layout, &excluded);

    let references: Vec<Reference> = entries
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let d = refs::describe(src.get(e.body.clone()).unwrap_or(""));
            Reference {
                index,
                kind: e.kind,
                key: e.key.clone(),
                span: e.span.clone(),
                text: d.text,
                title: d.title,
                source: d.source,
                url: d.url,
                cited_by: Vec::new(),
            }
        })
        .collect();
    let resolver = MarkerResolver::new(&references);
    let pending: Vec<Pending> = markers::find(src, &layout)
        .iter()
        .flat_map(|c| resolver.resolve(src, &layout, c))
        .collect();
    let mut references = references;
    assemble(src, &layout, pending, &mut references, scope)
}

/// Adds definitions CommonMark parsed that the line scan missed (unusual indentation,
/// titles on a second line).
fn add_parser_definitions(src: &str, layout: &Layout<'_>, entries: &mut Vec<RefEntry>) {
    let mut seen: HashSet<(bool, String)> = entries
        .iter()
        .filter_map(|e| {
            let key = e.key.as_ref()?.to_lowercase();
            Some((e.kind == ReferenceKind::Footnote, key))
        })
        .collect();
    let defs = layout
        .footnote_defs
        .iter()
        .map(|d| (true, d))
        .chain(layout.link_defs.iter().map(|d| (false, d)));
    for (footnote, def) in defs {
        let key = normalize_label(&def.label);
        if !seen.insert((footnote, key.clone())) {
            continue;
        }
        let Some(text) = src.get(def.span.clone()) else {
            continue;
        };
        let body_start = text.find("]:").map_or(0, |i| i + 2);
        let kind = if footnote {
            ReferenceKind::Footnote
        } else if key.bytes().all(|b| b.is_ascii_digit()) {
            ReferenceKind::Numbered
        } else {
            ReferenceKind::LinkDefinition
        };
        entries.push(RefEntry {
            kind,
            key: Some(key),
            span: def.span.clone(),
            body: def.span.start + body_start..def.span.end,
        });
    }
}

/// Drops everything inside definitions and sources sections: their URLs are the targets
/// of citations, not citations.
fn exclude(layout: &mut Layout<'_>, excluded: &[Range<usize>]) {
    for block in &mut layout.blocks {
        block.chunks.retain(|c| !in_ranges(excluded, c.src.start));
    }
    layout.links.retain(|l| !in_ranges(excluded, l.span.start));
    layout
        .footnote_refs
        .retain(|f| !in_ranges(excluded, f.span.start));
}

/// A block's visible text and its sentences.
struct BlockText {
    plain: PlainText,
    sentences: Vec<Range<usize>>,
}

fn assemble(
    src: &str,
    layout: &Layout<'_>,
    pending: Vec<Pending>,
    references: &mut [Reference],
    scope: ClaimScope,
) -> ParsedReport {
    let n_blocks = layout.blocks.len();
    let mut edits: Vec<Vec<Edit>> = vec![Vec::new(); n_blocks];
    for p in &pending {
        let Some(block_edits) = edits.get_mut(p.block) else {
            continue;
        };
        if block_edits.last().is_some_and(|e| e.span == p.span) {
            continue;
        }
        let replacement = match &p.shown {
            Shown::Kept => continue,
            Shown::Removed => None,
            Shown::As(s) => Some(s.clone()),
        };
        block_edits.push(Edit {
            span: p.span.clone(),
            replacement,
        });
    }
    let texts: Vec<BlockText> = layout
        .blocks
        .iter()
        .zip(&mut edits)
        .map(|(block, e)| {
            e.sort_by_key(|e| e.span.start);
            let plain = PlainText::build(src, block, e);
            let sentences = sentences::split(&plain.text);
            BlockText { plain, sentences }
        })
        .collect();
    // Paragraph numbers count blocks with visible text only.
    let mut rank = Vec::with_capacity(n_blocks);
    let mut visible = 0usize;
    for block in &layout.blocks {
        rank.push(visible.saturating_sub(usize::from(block.chunks.is_empty())));
        if !block.chunks.is_empty() {
            visible += 1;
        }
    }

    let mut tables = Tables::new(layout);
    let mut report = ParsedReport::default();
    // The previous marker of the current block: (block, its end, where the group of
    // adjacent markers it belongs to began being preceded by prose).
    let mut previous: Option<(usize, usize, Option<usize>)> = None;
    for p in pending {
        // Where the prose this marker vouches for may begin (paragraph scope): after the
        // previous marker of the same block, unless only markers and spaces lie between.
        let limit = match previous {
            Some((b, end, group)) if b == p.block => {
                let between = src.get(end..p.span.start).unwrap_or("");
                if between
                    .chars()
                    .all(|c| c.is_whitespace() || matches!(c, ',' | ';'))
                {
                    group
                } else {
                    Some(end)
                }
            }
            _ => None,
        };
        previous = Some((p.block, p.span.end, limit));
        let citation_id = p.is_citation.then_some(report.citations.len());
        if let Some(reason) = p.problem {
            report.unresolved_markers.push(Marker {
                span: p.span.clone(),
                text: src.get(p.span.clone()).unwrap_or("").to_string(),
                label: p.label.clone(),
                reason,
                citation: citation_id,
            });
        }
        let Some(id) = citation_id else {
            continue;
        };
        let (claim, claim_span) = tables
            .row_claim(&texts, p.block)
            .or_else(|| {
                let c = claim_for(&texts, p.block, p.span.start, p.mode)?;
                Some(match scope {
                    ClaimScope::Paragraph
                        if tables.cells.get(p.block).is_some_and(Option::is_none) =>
                    {
                        extend_back(&texts, p.block, &c, limit).unwrap_or(c)
                    }
                    _ => c,
                })
            })
            .unwrap_or((String::new(), p.span.start..p.span.start));
        if let Some(r) = p.reference.and_then(|r| references.get_mut(r)) {
            r.cited_by.push(id);
        }
        report.citations.push(Citation {
            id,
            span: p.span.clone(),
            marker: src.get(p.span.clone()).unwrap_or("").to_string(),
            label: p.label,
            claim,
            claim_span,
            paragraph: rank.get(p.block).copied().unwrap_or(0),
            reference: p.reference,
            source: p.source,
        });
    }
    report.references = references.to_vec();
    report
}

/// Table structure for row claims.
struct Tables {
    cells: Vec<Option<Cell>>,
    rows: HashMap<(usize, usize), Vec<usize>>,
    headers: HashMap<(usize, usize), usize>,
    /// Row claims already built; a row may carry many citations.
    memo: HashMap<(usize, usize), Option<Claim>>,
}

impl Tables {
    fn new(layout: &Layout<'_>) -> Self {
        let mut rows: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
        let mut headers = HashMap::new();
        let cells: Vec<Option<Cell>> = layout.blocks.iter().map(|b| b.cell).collect();
        for (b, cell) in cells.iter().enumerate() {
            if let Some(c) = cell {
                rows.entry((c.table, c.row)).or_default().push(b);
                if c.row == 0 {
                    headers.insert((c.table, c.col), b);
                }
            }
        }
        Tables {
            cells,
            rows,
            headers,
            memo: HashMap::new(),
        }
    }

    /// A citation in a body row vouches for the row, so the claim is the row read with its
    /// headers: `Year: 2016; Share of reefs bleached: ~91%`. Cells left empty once markers are
    /// removed (a "Source" column) are skipped.
    fn row_claim(&mut self, texts: &[BlockText], block: usize) -> Option<Claim> {
        let cell = (*self.cells.get(block)?)?;
        if cell.row == 0 {
            return None;
        }
        if let Some(done) = self.memo.get(&(cell.table, cell.row)) {
            return done.clone();
        }
        let built = self.build_row_claim(texts, cell);
        self.memo.insert((cell.table, cell.row), built.clone());
        built
    }

    fn build_row_claim(&self, texts: &[BlockText], cell: Cell) -> Option<Claim> {
        let mut parts = Vec::new();
        let mut length = 0;
        let mut span: Option<Range<usize>> = None;
        for &b in self.rows.get(&(cell.table, cell.row))? {
            let Some(t) = texts.get(b) else { continue };
            let text = clean_claim(&t.plain.text);
            if !text.chars().any(char::is_alphanumeric) {
                continue;
            }
            let col = self.cells[b].map_or(0, |c| c.col);
            let header = self
                .headers
                .get(&(cell.table, col))
                .and_then(|&h| texts.get(h))
                .map(|h| clean_claim(&h.plain.text))
                .filter(|h| !h.is_empty());
            if length > MAX_CLAIM_BYTES {
                break;
            }
            let part = match header {
                Some(h) => format!("{h}: {text}"),
                None => text,
            };
            length += part.len();
            parts.push(part);
            let (start, end) = (t.plain.src_start(0), t.plain.src_end(t.plain.text.len()));
            span = Some(match span {
                Some(s) => s.start..end.max(s.end),
                None => start..end,
            });
        }
        Some((parts.join("; "), span?))
    }
}

/// The claim for a marker at report offset `at` in `block`: the sentence it closes (or sits
/// in, for inline citations); if that holds no words, one of the few sentences before it,
/// looking back up to [`LOOKBACK_BLOCKS`] blocks.
fn claim_for(texts: &[BlockText], block: usize, at: usize, mode: Mode) -> Option<Claim> {
    let t = texts.get(block)?;
    let p = t.plain.to_plain(at);
    let mut i = t.sentences.partition_point(|s| s.end <= p);
    i = i.min(t.sentences.len().saturating_sub(1));
    if mode == Mode::Closes && i > 0 && t.sentences.get(i).is_some_and(|s| s.start == p) {
        i -= 1;
    }
    let window_end = |s: &Range<usize>| match mode {
        Mode::Closes if p > s.start && p < s.end => p,
        Mode::Inline => s.end.min(p.saturating_add(MAX_CLAIM_BYTES / 2)),
        Mode::Closes => s.end,
    };
    for candidate in (0..=i).rev().take(LOOKBACK_SENTENCES) {
        let Some(s) = t.sentences.get(candidate) else {
            break;
        };
        if let Some(found) = sentence_claim(t, candidate, window_end(s)) {
            return Some(found);
        }
    }
    for back in 1..=LOOKBACK_BLOCKS {
        let Some(prev) = block.checked_sub(back).and_then(|b| texts.get(b)) else {
            break;
        };
        for candidate in (0..prev.sentences.len()).rev().take(LOOKBACK_SENTENCES) {
            let end = prev.sentences[candidate].end;
            if let Some(found) = sentence_claim(prev, candidate, end) {
                return Some(found);
            }
        }
    }
    None
}

/// The claim `c` extended back over the sentences of its block that start at or after
/// `limit` (a report offset: the previous marker's end), or from the block's start.
fn extend_back(
    texts: &[BlockText],
    block: usize,
    c: &Claim,
    limit: Option<usize>,
) -> Option<Claim> {
    let t = texts.get(block)?;
    // Only a claim inside this block extends (not one found in a block before it).
    if c.1.start < t.plain.src_start(0) {
        return None;
    }
    let first = t.plain.to_plain(c.1.start);
    let k = t.sentences.partition_point(|s| s.end <= first);
    let floor = limit.map_or(0, |l| t.plain.to_plain(l));
    let mut j = k;
    while j > 0 && t.sentences[j - 1].start >= floor {
        j -= 1;
    }
    if j >= k {
        return None;
    }
    let start = t.sentences[j].start;
    let end = floor_char_boundary(&t.plain.text, t.plain.to_plain(c.1.end).max(start));
    let raw = t.plain.text.get(start..end)?;
    if raw.len() > 3 * MAX_CLAIM_BYTES {
        return None;
    }
    let claim = clean_claim(raw);
    let lead = raw.len() - raw.trim_start().len();
    Some((claim, t.plain.src_start(start + lead)..c.1.end))
}

/// The claim text of sentence `i`. A run-on "sentence" longer than [`MAX_CLAIM_BYTES`]
/// (a paragraph without punctuation, a mangled table) is cut to the words just before
/// `window_end`, the marker: that is what the marker vouches for, and it keeps the output
/// linear in the input.
fn sentence_claim(t: &BlockText, i: usize, window_end: usize) -> Option<Claim> {
    let mut range = t.sentences.get(i)?.clone();
    if range.len() > MAX_CLAIM_BYTES {
        let text = &t.plain.text;
        let end = floor_char_boundary(text, window_end.clamp(range.start, range.end));
        let mut start =
            floor_char_boundary(text, end.saturating_sub(MAX_CLAIM_BYTES).max(range.start));
        if start > range.start
            && let Some(ws) = text[start..end].find(char::is_whitespace)
        {
            start += ws;
        }
        range = start..end;
    }
    let raw = t.plain.text.get(range.clone())?;
    let claim = clean_claim(raw);
    if !claim.chars().any(char::is_alphanumeric) {
        return None;
    }
    let lead = raw.len() - raw.trim_start().len();
    let trail = raw.len() - raw.trim_end().len();
    let start = t.plain.src_start(range.start + lead);
    let end = t.plain.src_end(range.end - trail);
    Some((claim, start..end.max(start)))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Collapses whitespace and removes what marker removal leaves behind: empty brackets,
/// spaces before punctuation, table pipes at the ends.
pub(crate) fn clean_claim(raw: &str) -> String {
    let mut s = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    for empty in ["( )", "()", "[ ]", "[]", "( ; )", "(, )"] {
        s = s.replace(empty, "");
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | ')') && out.ends_with(' ') {
            out.pop();
        }
        if c == ' ' && out.ends_with(' ') {
            continue;
        }
        out.push(c);
    }
    out.trim_matches(|c: char| c.is_whitespace() || c == '|')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_removes_marker_debris() {
        assert_eq!(clean_claim("Growth was 5% () .  "), "Growth was 5%.");
        assert_eq!(clean_claim("| Paris |"), "Paris");
        assert_eq!(clean_claim("See  for details ."), "See for details.");
    }
}
