//! The markdown pass: where the text of each block is, where code is, and which links and
//! footnote references CommonMark itself recognises.
//!
//! Citation markers are found later by pattern over the raw report; this pass supplies the
//! structure those patterns cannot see — code that must not be searched, link syntax whose
//! brackets are not prose, block boundaries that bound a claim — with byte offsets from
//! pulldown-cmark's offset iterator so every span points into the original input.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, LinkType, Options, Parser, Tag, TagEnd};

/// A leaf block whose text can carry claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Paragraph,
    Heading,
    ListItem,
    TableCell,
    Html,
}

/// A piece of a block's visible text.
#[derive(Debug, Clone)]
pub(crate) struct Chunk<'a> {
    /// Where the piece comes from in the report.
    pub src: Range<usize>,
    /// Its visible text; equal to the source slice when `exact`.
    pub text: Cow<'a, str>,
    /// False when the text differs from the source (entities, escapes), so offsets inside
    /// the chunk cannot be mapped back byte for byte.
    pub exact: bool,
    /// Inline code and link text are visible but never searched for markers.
    pub searchable: bool,
}

/// Where a table cell sits: a citation in a row vouches for the whole row, read with its
/// column headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cell {
    pub table: usize,
    /// 0 for the header row.
    pub row: usize,
    pub col: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Block<'a> {
    pub kind: BlockKind,
    pub cell: Option<Cell>,
    pub chunks: Vec<Chunk<'a>>,
}

/// A link CommonMark resolved.
#[derive(Debug, Clone)]
pub struct Link {
    pub span: Range<usize>,
    pub dest: String,
    pub link_type: LinkType,
    /// The reference label for `[text][label]` links.
    pub label: String,
    pub block: usize,
}

/// A `[^label]` CommonMark resolved.
#[derive(Debug, Clone)]
pub(crate) struct FootnoteRef {
    pub span: Range<usize>,
    pub label: String,
    pub block: usize,
}

/// A definition CommonMark parsed (used to complement the line scan in `refs`).
#[derive(Debug, Clone)]
pub(crate) struct Definition {
    pub label: String,
    pub span: Range<usize>,
}

#[derive(Debug, Default)]
pub(crate) struct Layout<'a> {
    pub blocks: Vec<Block<'a>>,
    /// Code blocks and code spans, sorted and disjoint.
    pub code: Vec<Range<usize>>,
    pub links: Vec<Link>,
    pub footnote_refs: Vec<FootnoteRef>,
    pub footnote_defs: Vec<Definition>,
    pub link_defs: Vec<Definition>,
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES | Options::ENABLE_STRIKETHROUGH
}

/// Runs pulldown-cmark over the report and records the layout.
pub(crate) fn layout(src: &str) -> Layout<'_> {
    let mut out = Layout::default();
    // Indices into `out.blocks` of the blocks currently open, innermost last.
    let mut open: Vec<usize> = Vec::new();
    let mut code_block: Option<usize> = None;
    let mut link_depth = 0usize;
    let mut image_depth = 0usize;
    let mut open_links: Vec<usize> = Vec::new();
    // (table number, row, column) of the next cell.
    let mut tables = 0usize;
    let mut cell = Cell {
        table: 0,
        row: 0,
        col: 0,
    };
    let parser = Parser::new_ext(src, options()).into_offset_iter();
    for (label, def) in parser.reference_definitions().iter() {
        out.link_defs.push(Definition {
            label: label.to_string(),
            span: def.span.clone(),
        });
    }
    for (event, range) in parser {
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph => open_block(&mut out, &mut open, BlockKind::Paragraph),
                Tag::Heading { .. } => open_block(&mut out, &mut open, BlockKind::Heading),
                Tag::Item => open_block(&mut out, &mut open, BlockKind::ListItem),
                Tag::Table(_) => {
                    cell = Cell {
                        table: tables,
                        row: 0,
                        col: 0,
                    };
                    tables += 1;
                }
                Tag::TableRow => {
                    cell.row += 1;
                    cell.col = 0;
                }
                Tag::TableCell => {
                    open_block(&mut out, &mut open, BlockKind::TableCell);
                    if let Some(b) = out.blocks.last_mut() {
                        b.cell = Some(cell);
                    }
                    cell.col += 1;
                }
                Tag::HtmlBlock => open_block(&mut out, &mut open, BlockKind::Html),
                Tag::CodeBlock(_) => code_block = Some(range.start),
                Tag::FootnoteDefinition(label) => out.footnote_defs.push(Definition {
                    label: label.to_string(),
                    span: range,
                }),
                Tag::Link {
                    link_type,
                    dest_url,
                    id,
                    ..
                } => {
                    link_depth += 1;
                    let block = current_block(&mut out, &mut open);
                    open_links.push(out.links.len());
                    out.links.push(Link {
                        span: range,
                        dest: dest_url.to_string(),
                        link_type,
                        label: id.to_string(),
                        block,
                    });
                }
                Tag::Image { .. } => image_depth += 1,
                _ => {}
            },
            Event::End(tag) => match tag {
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::TableCell
                | TagEnd::HtmlBlock => {
                    open.pop();
                }
                TagEnd::CodeBlock => {
                    if let Some(start) = code_block.take() {
                        out.code.push(start..range.end.max(start));
                    }
                }
                TagEnd::Link => {
                    link_depth = link_depth.saturating_sub(1);
                    open_links.pop();
                }
                TagEnd::Image => image_depth = image_depth.saturating_sub(1),
                _ => {}
            },
            Event::Text(text) if code_block.is_none() && image_depth == 0 => {
                let block = current_block(&mut out, &mut open);
                push_text(&mut out.blocks[block], src, range, text, link_depth == 0);
            }
            Event::Code(text) if image_depth == 0 => {
                out.code.push(range.clone());
                let block = current_block(&mut out, &mut open);
                let exact = false;
                out.blocks[block].chunks.push(Chunk {
                    src: range,
                    text: Cow::Owned(text.to_string()),
                    exact,
                    searchable: false,
                });
            }
            Event::Html(html) | Event::InlineHtml(html) if code_block.is_none() => {
                let is_block = open
                    .last()
                    .is_some_and(|&b| out.blocks[b].kind == BlockKind::Html);
                if is_block {
                    let block = current_block(&mut out, &mut open);
                    push_html_text(&mut out.blocks[block], src, range, &html);
                }
            }
            Event::SoftBreak | Event::HardBreak if code_block.is_none() && image_depth == 0 => {
                let block = current_block(&mut out, &mut open);
                out.blocks[block].chunks.push(Chunk {
                    src: range,
                    text: Cow::Borrowed("\n"),
                    exact: false,
                    searchable: false,
                });
            }
            Event::FootnoteReference(label) => {
                let block = current_block(&mut out, &mut open);
                out.footnote_refs.push(FootnoteRef {
                    span: range,
                    label: label.to_string(),
                    block,
                });
            }
            _ => {}
        }
    }
    out.code.sort_by_key(|r| r.start);
    out.code = merge(std::mem::take(&mut out.code));
    out
}

fn open_block(out: &mut Layout<'_>, open: &mut Vec<usize>, kind: BlockKind) {
    open.push(out.blocks.len());
    out.blocks.push(Block {
        kind,
        cell: None,
        chunks: Vec::new(),
    });
}

/// The innermost open block; inline content outside any block (which CommonMark should not
/// produce) gets a paragraph of its own rather than being lost.
fn current_block(out: &mut Layout<'_>, open: &mut Vec<usize>) -> usize {
    if let Some(&b) = open.last() {
        return b;
    }
    open_block(out, open, BlockKind::Paragraph);
    let b = out.blocks.len() - 1;
    open.pop();
    b
}

fn push_text<'a>(
    block: &mut Block<'a>,
    src: &'a str,
    range: Range<usize>,
    text: pulldown_cmark::CowStr<'_>,
    searchable: bool,
) {
    let slice = src.get(range.clone()).unwrap_or("");
    let exact = slice == text.as_ref();
    block.chunks.push(Chunk {
        text: if exact {
            Cow::Borrowed(slice)
        } else {
            Cow::Owned(text.to_string())
        },
        src: range,
        exact,
        searchable: searchable && exact,
    });
}

/// HTML blocks contribute the text between their tags, so `<sup>[3]</sup>` in a raw HTML
/// table still counts.
fn push_html_text<'a>(block: &mut Block<'a>, src: &'a str, range: Range<usize>, html: &str) {
    let Some(slice) = src.get(range.clone()) else {
        return;
    };
    if slice != html {
        return;
    }
    let bytes = slice.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let tag_start = memchr::memchr(b'<', &bytes[i..]).map_or(bytes.len(), |p| i + p);
        if tag_start > i {
            let piece = &slice[i..tag_start];
            if !piece.trim().is_empty() {
                block.chunks.push(Chunk {
                    src: range.start + i..range.start + tag_start,
                    text: Cow::Borrowed(piece),
                    exact: true,
                    searchable: true,
                });
            }
        }
        if tag_start >= bytes.len() {
            break;
        }
        i = memchr::memchr(b'>', &bytes[tag_start..]).map_or(bytes.len(), |p| tag_start + p + 1);
    }
}

/// Merges sorted ranges that overlap or touch.
pub fn merge(ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block_texts(src: &str) -> Vec<(BlockKind, String)> {
        layout(src)
            .blocks
            .iter()
            .map(|b| (b.kind, b.chunks.iter().map(|c| c.text.as_ref()).collect()))
            .collect()
    }

    #[test]
    fn blocks_table_cells_and_items() {
        let got =
            block_texts("# Title\n\nPara *one*.\n\n- item a\n- item b\n\n| h |\n|---|\n| cell |\n");
        let kinds: Vec<BlockKind> = got.iter().map(|g| g.0).collect();
        assert_eq!(
            kinds,
            [
                BlockKind::Heading,
                BlockKind::Paragraph,
                BlockKind::ListItem,
                BlockKind::ListItem,
                BlockKind::TableCell,
                BlockKind::TableCell
            ]
        );
        assert_eq!(got[1].1, "Para one.");
        assert_eq!(got[5].1, "cell");
        let cells: Vec<Option<Cell>> = layout("| a | b |\n|---|---|\n| c | d |\n")
            .blocks
            .iter()
            .map(|b| b.cell)
            .collect();
        let rc: Vec<(usize, usize)> = cells.iter().flatten().map(|c| (c.row, c.col)).collect();
        assert_eq!(rc, [(0, 0), (0, 1), (1, 0), (1, 1)]);
    }

    #[test]
    fn code_is_recorded_and_not_searchable() {
        let src = "Use `x[3]` here.\n\n```\n[4]\n```\n";
        let l = layout(src);
        assert_eq!(l.code.len(), 2);
        assert_eq!(&src[l.code[0].clone()], "`x[3]`");
        assert!(
            l.blocks[0]
                .chunks
                .iter()
                .any(|c| !c.searchable && c.text == "x[3]")
        );
        assert!(
            l.blocks
                .iter()
                .all(|b| b.chunks.iter().all(|c| !c.text.contains("[4]")))
        );
    }

    #[test]
    fn links_and_footnotes_have_source_spans() {
        let src = "See [the page](https://x.example \"T\") and note[^n].\n\n[^n]: def\n";
        let l = layout(src);
        assert_eq!(
            &src[l.links[0].span.clone()],
            "[the page](https://x.example \"T\")"
        );
        assert_eq!(&src[l.footnote_refs[0].span.clone()], "[^n]");
        assert_eq!(l.footnote_defs[0].label, "n");
        // Link text is visible but not searched for markers.
        assert!(
            l.blocks[0]
                .chunks
                .iter()
                .any(|c| c.text == "the page" && !c.searchable)
        );
    }

    #[test]
    fn html_blocks_contribute_text_between_tags() {
        let src = "<table><tr><td>Fact <sup>[3]</sup></td></tr></table>\n";
        let got = block_texts(src);
        assert_eq!(got[0].0, BlockKind::Html);
        assert_eq!(got[0].1, "Fact [3]");
    }
}
