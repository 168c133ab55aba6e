//! A page's list items (`*`, `#`, `:`, `;` lines) with their depth, text and links.

use super::{Walker, in_spans, table_spans};
use crate::wikitext::flat::Flat;
use crate::wikitext::plaintext::is_redirect_line;
use crate::wikitext::render::squeeze;
use crate::wikitext::tables::RawTable;
use crate::wikitext::{Context, ListItem};

impl Walker<'_> {
    pub(super) fn lists(&mut self, flat: &Flat<'_>, raw: &[RawTable]) {
        let text = &flat.text;
        let spans = table_spans(raw);
        let mut own: Vec<(u32, u32)> = self
            .out
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                !l.in_template
                    && matches!(l.context, Context::List | Context::Table | Context::Prose)
            })
            .map(|(i, l)| (l.start, i as u32))
            .collect();
        own.sort_unstable();
        let mut pos = 0usize;
        while pos < text.len() {
            let end = text[pos..]
                .find('\n')
                .map(|p| pos + p)
                .unwrap_or(text.len());
            let line = &text[pos..end];
            let marker: String = line
                .chars()
                .take_while(|c| matches!(c, '*' | '#' | ':' | ';'))
                .collect();
            if !marker.is_empty() && !is_redirect_line(line) {
                let body = pos as u32 + marker.len() as u32..end as u32;
                let item_text = squeeze(&self.plain_top(flat, body.clone()));
                let src_start = flat.to_src(pos as u32);
                let src_end = if end > pos {
                    flat.to_src_end(end as u32)
                } else {
                    src_start
                };
                let lo = own.partition_point(|(s, _)| *s < src_start);
                let hi = own.partition_point(|(s, _)| *s < src_end);
                let links: Vec<u32> = own[lo..hi].iter().map(|(_, i)| *i).collect();
                let in_table = in_spans(&spans, pos as u32);
                if !item_text.is_empty() || !links.is_empty() {
                    self.out.lists.push(ListItem {
                        section: self.section_at(flat, pos as u32),
                        depth: marker.len() as u8,
                        marker,
                        text: item_text,
                        links,
                        in_table,
                        start: src_start,
                        end: src_end,
                    });
                }
            }
            pos = end + 1;
        }
    }
}
