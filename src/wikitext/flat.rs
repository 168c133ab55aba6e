//! Flattening: a preprocessor node list → one string in which templates, template
//! arguments and extension tags are single marker bytes (`\x7f`, which no title may
//! contain, like MediaWiki's strip markers), comments are gone, and `{{!}}` is `|`.
//!
//! Link, list, table and heading syntax is then scanned on this string, as MediaWiki
//! scans its expanded text; offsets map back to the page's wikitext.

use std::borrow::Cow;
use std::ops::Range;

use super::magic::{CallKind, classify};
use super::preprocess::{Call, Ext, Node};

/// The marker byte standing for a template call, argument or extension tag.
pub(crate) const MARKER: char = '\x7f';

/// What a marker stands for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Marker<'t> {
    Template(&'t Call),
    Argument(&'t Call),
    Ext(&'t Ext),
}

/// A heading found while flattening (top level of this flat text only).
#[derive(Debug, Clone)]
pub(crate) struct FlatHeading {
    pub level: u8,
    pub index: u32,
    /// The heading line in flat text, including its `=` signs.
    pub range: Range<u32>,
    /// The heading in the page's wikitext.
    pub src: Range<u32>,
}

/// A flattened node list.
#[derive(Debug)]
pub(crate) struct Flat<'t> {
    /// Borrowed from the page when the nodes are one plain text (the common case).
    pub text: Cow<'t, str>,
    /// (flat offset, source offset) at the start of each copied segment.
    segs: Vec<(u32, u32)>,
    pub markers: Vec<(u32, Marker<'t>)>,
    pub headings: Vec<FlatHeading>,
}

impl<'t> Flat<'t> {
    /// Flattens `nodes` whose spans index into `src`.
    pub fn new(src: &'t str, nodes: &'t [Node]) -> Flat<'t> {
        match nodes {
            [] => {
                return Flat {
                    text: Cow::Borrowed(""),
                    segs: Vec::new(),
                    markers: Vec::new(),
                    headings: Vec::new(),
                };
            }
            [Node::Text(span)] => {
                return Flat {
                    text: Cow::Borrowed(&src[span.start as usize..span.end as usize]),
                    segs: vec![(0, span.start)],
                    markers: Vec::new(),
                    headings: Vec::new(),
                };
            }
            _ => {}
        }
        let mut f = Flat {
            text: Cow::Owned(String::new()),
            segs: Vec::new(),
            markers: Vec::new(),
            headings: Vec::new(),
        };
        f.push_nodes(src, nodes, true);
        f
    }

    fn copy(&mut self, src: &str, span: Range<u32>) {
        if span.start < span.end {
            self.segs.push((self.text.len() as u32, span.start));
            self.text
                .to_mut()
                .push_str(&src[span.start as usize..span.end as usize]);
        }
    }

    fn push_char(&mut self, at: u32, c: char) {
        self.segs.push((self.text.len() as u32, at));
        self.text.to_mut().push(c);
    }

    fn marker(&mut self, at: u32, m: Marker<'t>) {
        self.markers.push((self.text.len() as u32, m));
        self.push_char(at, MARKER);
    }

    fn push_nodes(&mut self, src: &'t str, nodes: &'t [Node], top: bool) {
        for n in nodes {
            match n {
                Node::Text(s) => self.copy(src, s.clone()),
                Node::Equals(p) => self.copy(src, *p..*p + 1),
                Node::Comment(_) | Node::Ignore(_) => {}
                Node::Ext(e) => self.marker(e.span.start, Marker::Ext(e)),
                Node::Heading {
                    level,
                    index,
                    span,
                    children,
                } => {
                    let start = self.text.len() as u32;
                    self.push_nodes(src, children, false);
                    if top {
                        self.headings.push(FlatHeading {
                            level: *level,
                            index: *index,
                            range: start..self.text.len() as u32,
                            src: span.clone(),
                        });
                    }
                }
                Node::Template(call) => match call_kind(src, call) {
                    Some(CallKind::Function(f)) if f == "!" && call.parts.is_empty() => {
                        self.push_char(call.span.start, '|');
                    }
                    Some(CallKind::Function(f)) if f == "=" && call.parts.is_empty() => {
                        self.push_char(call.span.start, '=');
                    }
                    _ => self.marker(call.span.start, Marker::Template(call)),
                },
                Node::Argument(call) => match call.parts.first() {
                    // On the page itself an argument shows its default, if any.
                    Some(def) => self.push_nodes(src, &def.value, false),
                    None => self.marker(call.span.start, Marker::Argument(call)),
                },
            }
        }
    }

    /// Maps a flat offset to an offset in the page's wikitext.
    pub(crate) fn to_src(&self, flat: u32) -> u32 {
        match self.segs.binary_search_by(|(f, _)| f.cmp(&flat)) {
            Ok(i) => self.segs[i].1,
            Err(0) => self.segs.first().map(|s| s.1).unwrap_or(0),
            Err(i) => self.segs[i - 1].1 + (flat - self.segs[i - 1].0),
        }
    }

    /// The source offset just past the flat text before `end`: past the whole call or tag
    /// when its last character stands for one (a marker maps to where its call starts).
    pub(crate) fn to_src_end(&self, end: u32) -> u32 {
        let Some(last) = end.checked_sub(1) else {
            return self.to_src(0);
        };
        match self.marker_at(last) {
            Some(Marker::Template(c) | Marker::Argument(c)) => c.span.end,
            Some(Marker::Ext(e)) => e.span.end,
            None => self.to_src(last) + 1,
        }
    }

    /// The marker at flat offset `at`, if any.
    pub(crate) fn marker_at(&self, at: u32) -> Option<Marker<'t>> {
        self.markers
            .binary_search_by(|(p, _)| p.cmp(&at))
            .ok()
            .map(|i| self.markers[i].1)
    }

    /// Markers inside a flat range.
    pub(crate) fn markers_in(&self, r: Range<u32>) -> &[(u32, Marker<'t>)] {
        let lo = self.markers.partition_point(|(p, _)| *p < r.start);
        let hi = self.markers.partition_point(|(p, _)| *p < r.end);
        &self.markers[lo..hi]
    }
}

/// The literal text of a node list, or `None` if it contains calls (a dynamic name).
pub(crate) fn static_text(src: &str, nodes: &[Node]) -> Option<String> {
    let mut s = String::new();
    for n in nodes {
        match n {
            Node::Text(span) => s.push_str(&src[span.start as usize..span.end as usize]),
            Node::Equals(_) => s.push('='),
            Node::Comment(_) | Node::Ignore(_) => {}
            _ => return None,
        }
    }
    Some(s)
}

/// What a template node calls; `None` when its name is computed by another call.
///
/// A parser function is recognized from the literal text before its first nested call
/// (`{{formatnum:{{Data X|pop}}}}` is `formatnum`, whatever the nested call returns).
pub(crate) fn call_kind(src: &str, call: &Call) -> Option<CallKind> {
    if let Some(t) = static_text(src, &call.title) {
        return Some(classify(&t));
    }
    let mut prefix = String::new();
    for n in &call.title {
        match n {
            Node::Text(span) => prefix.push_str(&src[span.start as usize..span.end as usize]),
            Node::Equals(_) => prefix.push('='),
            Node::Comment(_) | Node::Ignore(_) => {}
            _ => break,
        }
    }
    let trimmed = prefix.trim_start();
    if trimmed.starts_with('#') || trimmed.contains(':') {
        return match classify(trimmed) {
            k @ CallKind::Function(_) => Some(k),
            _ => None,
        };
    }
    None
}
