//! Plain text of a block with citation markup taken out, mapped back to report offsets.
//!
//! Claims are split into sentences on the *visible* text — `growth.[3] Next` must split
//! after "growth." as if the marker were not there — yet the claim span must point into the
//! original report. So the plain text keeps, piece by piece, where it came from.

use std::ops::Range;

use super::markdown::Block;

/// A stretch of plain text and the report bytes it came from.
#[derive(Debug, Clone)]
struct Piece {
    plain: Range<usize>,
    src: Range<usize>,
    /// Byte-for-byte copy of the source, so inner offsets map exactly.
    exact: bool,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct PlainText {
    pub text: String,
    pieces: Vec<Piece>,
}

/// A change to a block's visible text: the source span disappears, or is shown as the
/// replacement (a wikilink shows its display text).
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub span: Range<usize>,
    pub replacement: Option<String>,
}

impl PlainText {
    /// Builds the plain text of `block`; `edits` must be sorted and disjoint.
    pub fn build(src: &str, block: &Block<'_>, edits: &[Edit]) -> PlainText {
        let mut out = PlainText::default();
        let mut e = 0;
        let mut emitted = vec![false; edits.len()];
        for chunk in &block.chunks {
            while e < edits.len() && edits[e].span.end <= chunk.src.start {
                e += 1;
            }
            let mut pos = chunk.src.start;
            let mut k = e;
            let mut dropped = false;
            while k < edits.len() && edits[k].span.start < chunk.src.end {
                let edit = &edits[k];
                if !chunk.exact {
                    dropped = true;
                } else if edit.span.start > pos {
                    out.push_src(src, pos..edit.span.start);
                }
                if !emitted[k] {
                    emitted[k] = true;
                    if let Some(r) = &edit.replacement {
                        out.push(r, edit.span.clone(), false);
                    }
                }
                pos = pos.max(edit.span.end);
                k += 1;
            }
            if dropped {
                continue;
            }
            if pos == chunk.src.start {
                out.push(chunk.text.as_ref(), chunk.src.clone(), chunk.exact);
            } else if pos < chunk.src.end {
                out.push_src(src, pos..chunk.src.end);
            }
        }
        out
    }

    fn push_src(&mut self, src: &str, range: Range<usize>) {
        if let Some(s) = src.get(range.clone()) {
            self.push(s, range, true);
        }
    }

    fn push(&mut self, text: &str, src: Range<usize>, exact: bool) {
        if text.is_empty() {
            return;
        }
        let start = self.text.len();
        self.text.push_str(text);
        self.pieces.push(Piece {
            plain: start..self.text.len(),
            src,
            exact,
        });
    }

    /// Plain offset of report offset `pos`: where a removed marker would have been, or the
    /// position of a kept character.
    pub(crate) fn to_plain(&self, pos: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.src.end <= pos);
        match self.pieces.get(i) {
            None => self.text.len(),
            Some(p) if p.exact && p.src.start <= pos => p.plain.start + (pos - p.src.start),
            Some(p) => p.plain.start,
        }
    }

    /// Report offset where plain offset `pos` starts.
    pub(crate) fn src_start(&self, pos: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.plain.end <= pos);
        match self.pieces.get(i) {
            None => self.pieces.last().map_or(0, |p| p.src.end),
            Some(p) if p.exact => p.src.start + (pos.max(p.plain.start) - p.plain.start),
            Some(p) => p.src.start,
        }
    }

    /// Report offset where plain offset `pos` ends (exclusive).
    pub(crate) fn src_end(&self, pos: usize) -> usize {
        if pos == 0 {
            return self.pieces.first().map_or(0, |p| p.src.start);
        }
        let i = self.pieces.partition_point(|p| p.plain.end < pos);
        match self.pieces.get(i) {
            None => self.pieces.last().map_or(0, |p| p.src.end),
            Some(p) if p.exact => p.src.start + (pos - p.plain.start).min(p.src.len()),
            Some(p) => p.src.end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::markdown::layout;
    use super::*;

    #[test]
    fn removed_markers_leave_no_text_but_keep_positions() {
        let src = "Growth was *5%*.[3] Next [[Moon|the moon]] rises.";
        let l = layout(src);
        let m = src.find("[3]").unwrap_or(0);
        let w = src.find("[[").unwrap_or(0);
        let edits = [
            Edit {
                span: m..m + 3,
                replacement: None,
            },
            Edit {
                span: w..w + "[[Moon|the moon]]".len(),
                replacement: Some("the moon".into()),
            },
        ];
        let p = PlainText::build(src, &l.blocks[0], &edits);
        assert_eq!(p.text, "Growth was 5%. Next the moon rises.");
        assert_eq!(p.to_plain(m), "Growth was 5%.".len());
        let plain_next = p.text.find("Next").unwrap_or(0);
        assert_eq!(p.src_start(plain_next), src.find("Next").unwrap_or(0));
        assert_eq!(&src[p.src_start(0)..p.src_end(14)], "Growth was *5%*.");
    }
}
