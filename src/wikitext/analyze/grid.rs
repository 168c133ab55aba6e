//! A page's tables placed on a grid as a browser lays them out: each cell's column after
//! the rowspans and colspans above and before it, its text without nested tables, and the
//! links inside it.

use std::ops::Range;

use super::Walker;
use crate::wikitext::flat::Flat;
use crate::wikitext::render::{squeeze, squeeze_lines};
use crate::wikitext::tables::{RawTable, span_attr};
use crate::wikitext::{Cell, Context, Row, Table};

impl Walker<'_> {
    pub(super) fn tables(&mut self, flat: &Flat<'_>, raw: &[RawTable], first_link: usize) {
        // Top-level links in flat order, to attach them to cells.
        let mut top_links: Vec<(u32, u32)> = self.out.links[first_link..]
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.in_template && l.context == Context::Table)
            .map(|(i, l)| (l.start, (first_link + i) as u32))
            .collect();
        top_links.sort_unstable();
        let links_in = |a: u32, b: u32| -> &[(u32, u32)] {
            let lo = top_links.partition_point(|(s, _)| *s < a);
            let hi = top_links.partition_point(|(s, _)| *s < b);
            &top_links[lo..hi]
        };
        for t in raw {
            let mut rows = Vec::with_capacity(t.rows.len());
            // Grid placement: columns still covered by rowspans from rows above.
            let mut covered: Vec<u16> = Vec::new();
            let mut columns = 0u16;
            for r in &t.rows {
                let mut cells = Vec::with_capacity(r.cells.len());
                let mut col = 0usize;
                for c in &r.cells {
                    while col < covered.len() && covered[col] > 0 {
                        col += 1;
                    }
                    let attrs = c
                        .attrs
                        .as_ref()
                        .map(|a| &flat.text[a.start as usize..a.end as usize])
                        .unwrap_or("");
                    let rowspan = span_attr(attrs, "rowspan");
                    let colspan = span_attr(attrs, "colspan");
                    // Text without nested tables.
                    let mut text = String::new();
                    let mut at = c.content.start;
                    let mut holes: Vec<Range<u32>> =
                        c.nested.iter().map(|&n| raw[n].start..raw[n].end).collect();
                    holes.sort_by_key(|h| h.start);
                    let cell = |r: Range<u32>| self.as_value(|| self.plain_top(flat, r));
                    for h in &holes {
                        if h.start > at {
                            text.push_str(&cell(at..h.start.min(c.content.end)));
                            text.push(' ');
                        }
                        at = at.max(h.end);
                    }
                    if at < c.content.end {
                        text.push_str(&cell(at..c.content.end));
                    }
                    let src_start = flat.to_src(c.content.start);
                    let src_end = if c.content.end > c.content.start {
                        flat.to_src_end(c.content.end)
                    } else {
                        src_start
                    };
                    let src_holes: Vec<(u32, u32)> = holes
                        .iter()
                        .map(|h| {
                            (
                                flat.to_src(h.start),
                                flat.to_src(h.end.saturating_sub(1)) + 1,
                            )
                        })
                        .collect();
                    let links: Vec<u32> = links_in(src_start, src_end.max(src_start + 1))
                        .iter()
                        .filter(|(s, _)| !src_holes.iter().any(|(a, b)| s >= a && s < b))
                        .map(|(_, i)| *i)
                        .collect();
                    let need = col + colspan as usize;
                    if covered.len() < need {
                        covered.resize(need, 0);
                    }
                    for k in &mut covered[col..need] {
                        *k = (*k).max(rowspan);
                    }
                    cells.push(Cell {
                        header: c.header,
                        text: squeeze_lines(&text),
                        links,
                        rowspan,
                        colspan,
                        col: col as u16,
                        start: src_start,
                        end: src_end,
                    });
                    col = need;
                }
                columns = columns.max(covered.len() as u16);
                for k in covered.iter_mut() {
                    *k = k.saturating_sub(1);
                }
                rows.push(Row { cells });
            }
            // Rows made only of continuation markers (`|-` with no cells) are kept: row
            // numbers then match the `|-` lines a reader counts.
            let caption = t
                .caption
                .as_ref()
                .map(|c| squeeze(&self.plain_top(flat, c.clone())))
                .unwrap_or_default();
            let section = self.section_at(flat, t.start);
            self.out.tables.push(Table {
                section,
                caption,
                attrs: flat.text[t.attrs.start as usize..t.attrs.end as usize]
                    .trim()
                    .to_string(),
                rows: rows
                    .into_iter()
                    .filter(|r: &Row| !r.cells.is_empty())
                    .collect(),
                columns,
                parent: t.parent.map(|p| p as u16 + 1),
                start: flat.to_src(t.start),
                end: flat.to_src(t.end.saturating_sub(1)) + 1,
            });
        }
    }
}
