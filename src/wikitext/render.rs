//! Plain text of flattened wikitext: what a reader sees, without markup.
//!
//! Links show their text (plus trail), categories and interlanguage links vanish, bold
//! and italic quotes and HTML tags are dropped, entities are decoded, `[url label]` shows
//! its label. Templates and extension tags are rendered by a caller-supplied closure,
//! because what they show depends on the use: nothing in a table cell, `Template:Name` in
//! a heading whose template the wiki lacks (as MediaWiki renders a missing template).

use std::ops::Range;

use super::flat::{Flat, MARKER, Marker};
use super::links::{self, LinkMatch};
use crate::title::decode_entity_at;

/// What a link target is, as far as rendering cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkRender {
    /// Shows its text (or target).
    Text,
    /// Shows nothing (category, interlanguage link, image).
    Hidden,
    /// Not a link: the brackets are text.
    NotALink,
}

/// Context for rendering: how to classify link targets and render markers.
pub(crate) struct Renderer<'a, 't> {
    pub flat: &'a Flat<'t>,
    pub lang: &'a str,
    pub classify: &'a dyn Fn(&str) -> (links::TargetKind, LinkRender),
    pub marker: &'a dyn Fn(Marker<'t>) -> String,
}

/// Rendered text with, optionally, where each piece came from in the wikitext.
pub(crate) struct Rendered {
    pub text: String,
    /// `(output offset, source offset, verbatim)` at the start of each piece. A verbatim
    /// piece was copied byte for byte, so offsets inside it map exactly; other pieces
    /// (link texts, decoded entities, template values) map to where they start.
    pub map: Vec<(u32, u32, bool)>,
}

impl Rendered {
    /// The wikitext offset of output offset `o`.
    pub(crate) fn src_offset(&self, o: usize) -> u32 {
        let k = self.map.partition_point(|&(out, _, _)| out as usize <= o);
        if k == 0 {
            return self.map.first().map(|m| m.1).unwrap_or(0);
        }
        let (out, src, verbatim) = self.map[k - 1];
        if verbatim {
            src + (o as u32 - out)
        } else {
            src
        }
    }
}

/// Output sink: text plus (when asked for) the source map.
struct Sink<'m> {
    text: String,
    map: Option<&'m mut Vec<(u32, u32, bool)>>,
}

impl Sink<'_> {
    fn push(&mut self, s: &str, src: u32, verbatim: bool) {
        if s.is_empty() {
            return;
        }
        if let Some(m) = self.map.as_deref_mut() {
            m.push((self.text.len() as u32, src, verbatim));
        }
        self.text.push_str(s);
    }
}

impl Renderer<'_, '_> {
    /// Renders a flat range to plain text (entities decoded, whitespace kept).
    pub fn render(&self, range: Range<u32>) -> String {
        let text = &self.flat.text[range.start as usize..range.end as usize];
        if is_plain(text) {
            return text.to_string();
        }
        let classify = |t: &str| (self.classify)(t).0;
        let found = links::scan(text, range.start, self.lang, &classify);
        self.render_with(range, &found)
    }

    /// Like [`Renderer::render`], with the links of the range already known (a subset of
    /// a scan of the whole flat text), so that nothing is scanned twice.
    pub(crate) fn render_with(&self, range: Range<u32>, found: &[LinkMatch]) -> String {
        let text = &self.flat.text[range.start as usize..range.end as usize];
        if is_plain(text) {
            return text.to_string();
        }
        let mut out = Sink {
            text: String::with_capacity(text.len()),
            map: None,
        };
        self.render_into(range, found, &mut out);
        out.text
    }

    /// Renders with a map from output offsets back to wikitext offsets.
    pub(crate) fn render_mapped(&self, range: Range<u32>, found: &[LinkMatch]) -> Rendered {
        let mut map = Vec::new();
        let text = {
            let mut out = Sink {
                text: String::new(),
                map: Some(&mut map),
            };
            self.render_into(range, found, &mut out);
            out.text
        };
        Rendered { text, map }
    }

    fn render_into(&self, range: Range<u32>, found: &[LinkMatch], out: &mut Sink<'_>) {
        let t: &str = &self.flat.text;
        let src_of = |p: usize| self.flat.to_src(p as u32);
        let mut pos = range.start as usize;
        let end = range.end as usize;
        let mut li = 0;
        while pos < end {
            // Links (top-level ones only; inner caption links are inside their image).
            while li < found.len() && ((found[li].start as usize) < pos || found[li].in_caption) {
                li += 1;
            }
            if li < found.len() && found[li].start as usize == pos {
                let l = &found[li];
                li += 1;
                let target = &t[l.target.start as usize..l.target.end as usize];
                match (self.classify)(target).1 {
                    LinkRender::Hidden => {
                        // MediaWiki strips the whitespace before a category link.
                        let trimmed = out.text.trim_end_matches([' ', '\t', '\n']).len();
                        out.text.truncate(trimmed);
                        if let Some(m) = out.map.as_deref_mut() {
                            while m.last().is_some_and(|e| e.0 as usize > trimmed) {
                                m.pop();
                            }
                        }
                    }
                    LinkRender::Text | LinkRender::NotALink => match &l.text {
                        Some(tr) => {
                            let mut inner = Sink {
                                text: String::new(),
                                map: None,
                            };
                            self.render_into(tr.clone(), &[], &mut inner);
                            out.push(&inner.text, src_of(pos), false);
                        }
                        None => out.push(target.trim_start_matches(':').trim(), src_of(pos), false),
                    },
                }
                out.push(
                    &t[l.trail.start as usize..l.trail.end as usize],
                    src_of(l.trail.start as usize),
                    true,
                );
                pos = (l.end as usize).max(pos + 1);
                continue;
            }
            let rest = &t[pos..end];
            let c = rest.as_bytes()[0];
            match c {
                b'\'' if rest.starts_with("''") => {
                    let n = rest.bytes().take_while(|&b| b == b'\'').count();
                    match n {
                        4 => out.push("'", src_of(pos), true),
                        n if n > 5 => out.push(&"'".repeat(n - 5), src_of(pos), false),
                        _ => {}
                    }
                    pos += n;
                }
                b'<' => {
                    if let Some(len) = html_tag_len(rest) {
                        let tag = &rest[..len];
                        if tag.len() > 2 && tag[1..3].eq_ignore_ascii_case("br") {
                            out.push("\n", src_of(pos), false);
                        }
                        pos += len;
                    } else {
                        out.push("<", src_of(pos), true);
                        pos += 1;
                    }
                }
                b'&' => match decode_entity_at(rest) {
                    Some((decoded, len)) => {
                        out.push(&decoded, src_of(pos), false);
                        pos += len;
                    }
                    None => {
                        out.push("&", src_of(pos), true);
                        pos += 1;
                    }
                },
                b'[' if !rest.starts_with("[[") => match external_link(rest) {
                    Some((len, label)) => {
                        if let Some(lr) = label {
                            let s = pos as u32 + lr.start as u32;
                            let e = pos as u32 + lr.end as u32;
                            let mut inner = Sink {
                                text: String::new(),
                                map: None,
                            };
                            self.render_into(s..e, &[], &mut inner);
                            out.push(&inner.text, src_of(s as usize), false);
                        }
                        pos += len;
                    }
                    None => {
                        out.push("[", src_of(pos), true);
                        pos += 1;
                    }
                },
                b'_' if rest.starts_with("__") => match magic_switch_len(rest) {
                    Some(len) => pos += len,
                    None => {
                        out.push("_", src_of(pos), true);
                        pos += 1;
                    }
                },
                b'*' | b'#' | b':' | b';' if pos == 0 || t.as_bytes()[pos - 1] == b'\n' => {
                    // List markers at the start of a line of the wikitext: the item's text
                    // only. The start of a link label or of a cell is not a line start
                    // (`[[X|# 19 Southern Miss]]` shows its `#`), as in MediaWiki, whose
                    // block-level pass sees only whole lines.
                    let n = rest
                        .bytes()
                        .take_while(|b| matches!(b, b'*' | b'#' | b':' | b';'))
                        .count();
                    pos += n;
                }
                0x7f => {
                    if let Some(m) = self.flat.marker_at(pos as u32) {
                        out.push(&(self.marker)(m), src_of(pos), false);
                    }
                    pos += MARKER.len_utf8();
                }
                _ => {
                    // A run of ordinary text, copied in one piece.
                    let run = rest
                        .bytes()
                        .skip(1)
                        .position(|b| matches!(b, b'\'' | b'<' | b'&' | b'[' | b'_' | b'\n' | 0x7f))
                        .map(|p| p + 1)
                        .unwrap_or(rest.len());
                    let mut run_end = run;
                    // Stop before a link start, so that links are rendered as links.
                    if li < found.len() && (found[li].start as usize) < pos + run_end {
                        run_end = found[li].start as usize - pos;
                    }
                    let run_end = run_end.max(1);
                    let run_end = (0..=run_end)
                        .rev()
                        .find(|&k| rest.is_char_boundary(k))
                        .unwrap_or(run_end);
                    let run_end = if run_end == 0 {
                        rest.chars().next().map(|c| c.len_utf8()).unwrap_or(1)
                    } else {
                        run_end
                    };
                    // A newline is its own piece, so that list markers after it are seen.
                    if rest.as_bytes()[0] == b'\n' {
                        out.push("\n", src_of(pos), true);
                        pos += 1;
                        continue;
                    }
                    out.push(&rest[..run_end], src_of(pos), true);
                    pos += run_end;
                }
            }
        }
    }
}

/// Text without anything to render: no links, tags, quotes, entities, switches, markers.
fn is_plain(text: &str) -> bool {
    !text
        .bytes()
        .any(|b| matches!(b, b'[' | b'<' | b'\'' | b'&' | b'_' | 0x7f))
}

/// Length of an HTML-like tag at the start of `s` (`<b>`, `</span>`, `<br />`).
pub(crate) fn html_tag_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 1;
    if b.get(i) == Some(&b'/') {
        i += 1;
    }
    if !b.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let close = memchr::memchr2(b'>', b'\n', &b[i..])?;
    if b[i + close] != b'>' {
        return None;
    }
    Some(i + close + 1)
}

/// `[scheme://… label]`: total length and the label's range.
fn external_link(s: &str) -> Option<(usize, Option<Range<usize>>)> {
    let inner = &s[1..];
    let has_scheme = [
        "http://", "https://", "ftp://", "//", "mailto:", "irc://", "news:",
    ]
    .iter()
    .any(|p| {
        inner.len() >= p.len() && inner.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
    });
    if !has_scheme {
        return None;
    }
    let close = inner.find([']', '\n'])?;
    if inner.as_bytes()[close] != b']' {
        return None;
    }
    let body = &inner[..close];
    let label = body.find([' ', '\t']).map(|sp| 1 + sp + 1..1 + close);
    Some((close + 2, label))
}

/// `__NOTOC__`-style behaviour switches.
fn magic_switch_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let n = b[2..].iter().take_while(|c| c.is_ascii_uppercase()).count();
    (n > 0 && b.get(2 + n..4 + n) == Some(b"__")).then_some(n + 4)
}

/// Like [`squeeze`], but keeps line structure: each non-empty line squeezed, lines
/// joined by `; ` (multi-value cells and fields: `<br>`-separated or list items).
pub(crate) fn squeeze_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.split('\n') {
        let l = squeeze(line);
        if l.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&l);
    }
    out
}

/// Collapses runs of whitespace (Unicode's White_Space, as [`str::split_whitespace`])
/// to single spaces and trims.
///
/// Every rendered paragraph, cell and sentence goes through here (a text build squeezes
/// the whole wiki's text once). Bytes are classified with a table; a character is
/// decoded only when its lead byte can start a multibyte space. Runs of words already
/// separated by single ASCII spaces, the common case, are copied as one slice.
pub fn squeeze(s: &str) -> String {
    let b = s.as_bytes();
    if is_squeezed(b) {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut i = skip_space(s, 0);
    let mut run = i;
    while i < b.len() {
        i = word_end(s, i);
        let next = skip_space(s, i);
        if next == b.len() {
            break;
        }
        if next != i + 1 || b[i] != b' ' {
            // A separator other than one ASCII space: the run ends here.
            out.push_str(&s[run..i]);
            out.push(' ');
            run = next;
        }
        i = next;
    }
    out.push_str(&s[run..i]);
    out
}

/// Whether [`squeeze`] would return `b` as it is: no whitespace at either end, no
/// whitespace byte but single ASCII spaces, no lead byte of a multibyte space. Checked
/// with memchr's vectorised searches, which on ASCII prose (most sentences) are several
/// times faster than the byte loop; any other text takes the loop.
fn is_squeezed(b: &[u8]) -> bool {
    let edge = |c: Option<&u8>| c.is_some_and(|&c| SPACE_CLASS[c as usize] != 0);
    !edge(b.first())
        && !edge(b.last())
        && memchr::memchr3(b'\t', b'\n', b'\r', b).is_none()
        && memchr::memchr2(0x0b, 0x0c, b).is_none()
        && memchr::memchr3(0xC2, 0xE1, 0xE2, b).is_none()
        && memchr::memchr(0xE3, b).is_none()
        && memchr::memmem::find(b, b"  ").is_none()
}

/// [`squeeze`]'s byte classes: 0 inside a word, 1 ASCII whitespace, 2 the lead byte of a
/// multibyte character that may be whitespace (U+0085 and U+00A0 start with C2, U+1680
/// with E1, U+2000–U+205F with E2, U+3000 with E3).
const SPACE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 6 {
        t[[b' ', b'\t', b'\n', b'\r', 0x0b, 0x0c][c] as usize] = 1;
        c += 1;
    }
    t[0xC2] = 2;
    t[0xE1] = 2;
    t[0xE2] = 2;
    t[0xE3] = 2;
    t
};

/// The byte length of the whitespace character at `i`, or 0.
fn space_len(s: &str, i: usize) -> usize {
    match SPACE_CLASS[s.as_bytes()[i] as usize] {
        0 => 0,
        1 => 1,
        _ => {
            let c = s[i..].chars().next().expect("i is on a char boundary");
            if c.is_whitespace() { c.len_utf8() } else { 0 }
        }
    }
}

/// The first non-whitespace position at or after `i`.
fn skip_space(s: &str, mut i: usize) -> usize {
    while i < s.len() {
        match space_len(s, i) {
            0 => break,
            n => i += n,
        }
    }
    i
}

/// The end of the word starting at `i` (the next whitespace position, or the end).
fn word_end(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    while i < b.len() {
        if SPACE_CLASS[b[i] as usize] == 0 {
            i += 1;
            continue;
        }
        match space_len(s, i) {
            0 => i += 1, // a lead byte of a non-space character; its tail bytes are class 0
            _ => break,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `squeeze` must equal: the words of `split_whitespace`, joined by spaces.
    fn reference(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn squeeze_agrees_with_split_whitespace() {
        let cases = [
            "",
            "   ",
            "Danube",
            "  The  Danube\tflows\n\ninto the  Black Sea. ",
            // No-break, ideographic, em and narrow no-break spaces; NEL; line separator.
            "2,850\u{a0}km\u{3000}long\u{2003}river\u{202f}basin\u{85}end\u{2028}x",
            // Non-space characters that are not ASCII: accents, CJK, emoji, combining.
            "Daugava\u{a0}(Rīga) — 多瑙河 🌊 e\u{301}",
            "\u{a0}lead and trail\u{3000}",
            "zero\u{200b}width is not space",
        ];
        for c in cases {
            assert_eq!(squeeze(c), reference(c), "{c:?}");
        }
        // Every string of up to five characters over an alphabet that mixes ASCII and
        // Unicode spaces with characters sharing their lead bytes (é: C3, ¢: C2, €: E2,
        // ア: E3) — each run, separator and edge case the byte classes distinguish.
        let alphabet = [
            ' ', 'a', '\t', '\n', '\u{a0}', '¢', 'é', '\u{2003}', '€', '\u{3000}', 'ア',
        ];
        let mut word = Vec::new();
        let mut stack = vec![String::new()];
        while let Some(c) = stack.pop() {
            assert_eq!(squeeze(&c), reference(&c), "{c:?}");
            if c.chars().count() < 5 {
                for a in alphabet {
                    word.clear();
                    word.extend(c.chars());
                    word.push(a);
                    stack.push(word.iter().collect());
                }
            }
        }
        // Every line of the handwritten rivers wiki, markup and all.
        let wiki = include_str!("../../tests/data/rivers/rivers-wiki.xml");
        for line in wiki.lines().chain([wiki]) {
            assert_eq!(squeeze(line), reference(line));
        }
    }
}
