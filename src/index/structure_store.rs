//! `structure.rec`'s record: a [`PageStructure`] with its byte positions and link texts
//! rewritten so that zstd finds them repetitive.
//!
//! Absolute byte offsets grow along a page and never repeat, so zstd stores each one
//! nearly whole; a link's text is most often its target's title. The stored form keeps
//! the serde layout of [`PageStructure`] (so `FORMAT.md`'s field list stays true) and
//! changes values only:
//! - every span `start, end` becomes the zigzag-coded difference from the previous
//!   span's start in the same list (a field's or a cell's first from its infobox's or
//!   table's start) and the length `end - start`; a section's `body`, `end` and
//!   `end_with_subsections` become distances from its `start`;
//! - every list of link indices (of a cell, a field, a list item) is zigzag-coded
//!   differences from the previous index of the same table, infobox or page;
//! - a link's text starts with a mode character: `\0` the text as written, `\1` the
//!   target's DB key with spaces followed by the rest, `\2` the same with its first
//!   letter lower-cased.
//!
//! All arithmetic wraps, so the rewrite is a bijection on any input. One walker does both
//! directions, so encoder and decoder cannot drift apart.

use serde::{Deserialize, Serialize};

use crate::wikitext::{CategoryLink, Link, PageStructure, TemplateUse};

/// A record of `structure.rec`: a structure in its stored form. [`StoredStructure::decode`]
/// gives the page's structure back.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct StoredStructure(PageStructure);

impl StoredStructure {
    /// The stored form of `structure` (rewritten in place: no copy of its strings).
    pub(crate) fn encode(mut structure: PageStructure) -> StoredStructure {
        walk(&mut structure, Way::Encode);
        for link in &mut structure.links {
            encode_text(link);
        }
        StoredStructure(structure)
    }

    /// The page's structure; an error says what part of the record is malformed.
    pub(crate) fn decode(self) -> Result<PageStructure, String> {
        let mut s = self.0;
        for (i, link) in s.links.iter_mut().enumerate() {
            decode_text(link).map_err(|e| format!("link {i}: {e}"))?;
        }
        walk(&mut s, Way::Decode);
        Ok(s)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Way {
    Encode,
    Decode,
}

/// Running state of one delta-coded sequence.
struct Delta {
    way: Way,
    prev: u32,
}

impl Delta {
    fn new(way: Way, from: u32) -> Delta {
        Delta { way, prev: from }
    }

    /// A value coded as the zigzag difference from the previous one.
    fn step(&mut self, x: &mut u32) {
        match self.way {
            Way::Encode => {
                let d = x.wrapping_sub(self.prev) as i32;
                self.prev = *x;
                *x = ((d << 1) ^ (d >> 31)) as u32;
            }
            Way::Decode => {
                let d = ((*x >> 1) as i32) ^ -((*x & 1) as i32);
                *x = self.prev.wrapping_add(d as u32);
                self.prev = *x;
            }
        }
    }

    /// A span: `start` as a step, `end` as its distance from `start`.
    fn span(&mut self, start: &mut u32, end: &mut u32) {
        if self.way == Way::Encode {
            *end = end.wrapping_sub(*start);
        }
        self.step(start);
        if self.way == Way::Decode {
            *end = end.wrapping_add(*start);
        }
    }

    /// Each value of `xs` as a step.
    fn steps(&mut self, xs: &mut [u32]) {
        for x in xs {
            self.step(x);
        }
    }

    /// The value the next nested sequence starts from: the last (decoded) value.
    fn last(&self) -> u32 {
        self.prev
    }
}

/// `x` as a distance from `base` (encoding) or back (decoding).
fn relative(way: Way, base: u32, x: &mut u32) {
    *x = match way {
        Way::Encode => x.wrapping_sub(base),
        Way::Decode => x.wrapping_add(base),
    };
}

/// A row with a byte range of the page.
trait Span {
    fn span(&mut self) -> (&mut u32, &mut u32);
}

macro_rules! span {
    ($($t:ty),*) => {$(
        impl Span for $t {
            fn span(&mut self) -> (&mut u32, &mut u32) {
                (&mut self.start, &mut self.end)
            }
        }
    )*};
}

span!(Link, CategoryLink, TemplateUse);

/// A list of rows whose spans are coded one after the other.
fn spans<T: Span>(way: Way, rows: &mut [T]) {
    let mut d = Delta::new(way, 0);
    for row in rows {
        let (start, end) = row.span();
        d.span(start, end);
    }
}

fn walk(s: &mut PageStructure, way: Way) {
    let mut offsets = Delta::new(way, 0);
    let mut starts = Delta::new(way, 0);
    for sec in &mut s.sections {
        offsets.step(&mut sec.byteoffset);
        let written = sec.start;
        starts.step(&mut sec.start);
        // Distances are from the start as the page has it: before coding, after decoding.
        let base = if way == Way::Encode {
            written
        } else {
            sec.start
        };
        for x in [&mut sec.body, &mut sec.end, &mut sec.end_with_subsections] {
            relative(way, base, x);
        }
    }
    spans(way, &mut s.links);
    spans(way, &mut s.categories);
    spans(way, &mut s.templates);
    let mut d = Delta::new(way, 0);
    for b in &mut s.infoboxes {
        d.span(&mut b.start, &mut b.end);
        let mut fields = Delta::new(way, d.last());
        let mut links = Delta::new(way, 0);
        for f in &mut b.fields {
            fields.span(&mut f.start, &mut f.end);
            links.steps(&mut f.links);
        }
    }
    let mut d = Delta::new(way, 0);
    for t in &mut s.tables {
        d.span(&mut t.start, &mut t.end);
        let mut cells = Delta::new(way, d.last());
        let mut links = Delta::new(way, 0);
        for c in t.rows.iter_mut().flat_map(|r| r.cells.iter_mut()) {
            cells.span(&mut c.start, &mut c.end);
            links.steps(&mut c.links);
        }
    }
    let mut d = Delta::new(way, 0);
    let mut links = Delta::new(way, 0);
    for item in &mut s.lists {
        d.span(&mut item.start, &mut item.end);
        links.steps(&mut item.links);
    }
}

const AS_WRITTEN: char = '\0';
const TITLE: char = '\u{1}';
const TITLE_LOWER: char = '\u{2}';

/// The target's DB key as a reader sees it (`_` as spaces), with its first character
/// lower-cased when `lower` (`[[apple]]` links to `Apple`).
fn title_form(dbkey: &str, lower: bool) -> String {
    let shown = dbkey.replace('_', " ");
    let mut chars = shown.chars();
    match (lower, chars.next()) {
        (true, Some(c)) => c.to_lowercase().chain(chars).collect(),
        _ => shown,
    }
}

/// The length of `text`'s prefix that is [`title_form`]`(dbkey, lower)`, found without
/// building it (the build encodes every link of the dump); `None` when `text` does not
/// start with it or the title is empty.
fn title_prefix(text: &str, dbkey: &str, lower: bool) -> Option<usize> {
    let shown = |b: u8| if b == b'_' { b' ' } else { b };
    let (mut rest, mut key) = (text, dbkey);
    if lower {
        let c = key.chars().next()?;
        let first = if c == '_' { ' ' } else { c };
        for l in first.to_lowercase() {
            rest = rest.strip_prefix(l)?;
        }
        key = &key[c.len_utf8()..];
    } else if key.is_empty() {
        return None;
    }
    let (t, k) = (rest.as_bytes(), key.as_bytes());
    let same = t.len() >= k.len() && t.iter().zip(k).all(|(&a, &b)| a == shown(b));
    same.then(|| text.len() - rest.len() + k.len())
}

fn encode_text(link: &mut Link) {
    let (mode, rest) = if let Some(n) = title_prefix(&link.text, &link.dbkey, false) {
        (TITLE, &link.text[n..])
    } else if let Some(n) = title_prefix(&link.text, &link.dbkey, true) {
        (TITLE_LOWER, &link.text[n..])
    } else {
        (AS_WRITTEN, link.text.as_str())
    };
    let mut text = String::with_capacity(rest.len() + 1);
    text.push(mode);
    text.push_str(rest);
    link.text = text;
}

fn decode_text(link: &mut Link) -> Result<(), String> {
    let mut chars = link.text.chars();
    let mode = chars.next();
    let rest = chars.as_str();
    let text = match mode {
        Some(AS_WRITTEN) => rest.to_string(),
        Some(TITLE) => title_form(&link.dbkey, false) + rest,
        Some(TITLE_LOWER) => title_form(&link.dbkey, true) + rest,
        _ => return Err("its text has no mode character".into()),
    };
    link.text = text;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every page of a real dump comes back field for field.
    #[test]
    fn real_pages_come_back_unchanged() {
        let (codec, pages) = crate::index::real_pages("enwiki-2020-27pages-infoboxes.xml.bz2");
        assert!(pages.len() >= 20);
        let mut links = 0;
        let mut cells = 0;
        for (ns, title, text) in pages {
            let s = crate::wikitext::analyze(&text, ns, &title.replace(' ', "_"), &codec, "en");
            links += s.links.len();
            cells += s
                .tables
                .iter()
                .flat_map(|t| &t.rows)
                .map(|r| r.cells.len())
                .sum::<usize>();
            let stored = StoredStructure::encode(s.clone());
            assert_ne!(stored.0, s, "{title}: stored as given");
            let bytes = postcard::to_allocvec(&stored).unwrap();
            let back: StoredStructure = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back.decode().unwrap(), s, "{title}");
        }
        assert!(links > 1000 && cells > 100, "{links} links, {cells} cells");
    }

    /// Out-of-order, overlapping and extreme positions, and texts that look like modes.
    #[test]
    fn any_values_come_back() {
        let mut s = PageStructure::default();
        for (i, (start, end, text)) in [
            (4_000_000_000u32, 5u32, "\u{1}x"),
            (0, u32::MAX, "Foo bar"),
            (17, 3, "foo bar baz"),
            (17, 17, ""),
            (u32::MAX, 0, "\0"),
        ]
        .into_iter()
        .enumerate()
        {
            s.links.push(Link {
                ns: if i == 3 { 14 } else { 0 },
                dbkey: "Foo_bar".into(),
                fragment: None,
                text: text.into(),
                context: crate::wikitext::Context::Prose,
                in_template: false,
                section: 0,
                start,
                end,
                origin: None,
            });
        }
        let back = StoredStructure::encode(s.clone()).decode().unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn a_text_without_mode_is_an_error() {
        let mut s = PageStructure::default();
        s.links.push(Link {
            ns: 0,
            dbkey: "A".into(),
            fragment: None,
            text: "A".into(),
            context: crate::wikitext::Context::Prose,
            in_template: false,
            section: 0,
            start: 0,
            end: 5,
            origin: None,
        });
        let err = StoredStructure(s).decode().unwrap_err();
        assert!(err.contains("link 0"), "{err}");
    }
}
