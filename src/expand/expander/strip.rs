//! Strip markers: what templates, parser functions and modules see of an extension tag.
//!
//! MediaWiki never hands a `<ref>`, `<nowiki>`, `{{#tag:…}}` or `frame:extensionTag`
//! result to the code that reads it as the tag's text: it keeps the text in the
//! parser's strip state and hands over a marker (`\x7f'"`UNIQ--ref-00000000-QINU`"'\x7f`),
//! which it replaces by the text once the page is expanded
//! (`Parser::extensionSubstitution`, `StripState`). A module measuring, matching or
//! cleaning its argument (`mw.text.killMarkers`, `unstrip`, CS1's check for markers in a
//! title) sees the marker, so wikiwit does the same. A tag written straight into the
//! page's output needs no marker: nothing reads it before it would be put back.

use std::borrow::Cow;

use super::State;
use crate::expand::Segment;

/// How a marker starts and ends (`Parser::MARKER_PREFIX`, `MARKER_SUFFIX`).
pub(crate) const PREFIX: &str = "\x7f'\"`UNIQ-";
pub(crate) const SUFFIX: &str = "-QINU`\"'\x7f";

/// How deep markers inside the texts of markers are put back (`StripState`'s limit).
const MAX_DEPTH: u32 = 20;

/// One stripped tag: its marker's key (`-ref-00000000`), whether it is a `<nowiki>`
/// (which `mw.text.unstripNoWiki` puts back) and the text the marker stands for.
#[derive(Debug)]
pub(in crate::expand) struct Item {
    key: String,
    nowiki: bool,
    text: String,
}

impl State {
    /// Keeps `text`, the expansion of extension tag `name`, and returns the marker that
    /// stands for it. The marker's number is the page's count of markers, so an
    /// expansion that made one is not reused elsewhere.
    pub(in crate::expand) fn strip(&mut self, name: &str, text: String) -> String {
        self.uncacheable();
        let key = format!("-{name}-{:08X}", self.strip.len());
        let marker = format!("{PREFIX}{key}{SUFFIX}");
        self.strip.push(Item {
            key,
            nowiki: name.eq_ignore_ascii_case("nowiki"),
            text,
        });
        marker
    }

    /// `s` with the markers of `<nowiki>` tags replaced by their text
    /// (`mw.text.unstripNoWiki`); other markers stay.
    pub(in crate::expand) fn unstrip_nowiki<'a>(&mut self, s: &'a str) -> Cow<'a, str> {
        if !s.contains(PREFIX) {
            return Cow::Borrowed(s);
        }
        // What it gives depends on this page's markers.
        self.uncacheable();
        Cow::Owned(put_back(&self.strip, s, true, 0, &mut None))
    }

    /// The page's output with every marker replaced by its text, and the page's
    /// segments moved to where their bytes now are.
    pub(super) fn unstrip_page(&mut self, out: String) -> String {
        if self.strip.is_empty() || !out.contains(PREFIX) {
            return out;
        }
        let mut moved = Some(Vec::new());
        let text = put_back(&self.strip, &out, false, 0, &mut moved);
        remap(&mut self.segments, &moved.unwrap_or_default());
        text
    }
}

/// `f` applied to the text between markers, the markers kept as they are
/// (`Parser::markerSkipCallback`: `lc`, `uc`, `formatnum`). An unclosed
/// marker and what follows it are kept too.
pub(in crate::expand) fn skip_markers(s: &str, f: impl Fn(&str) -> String) -> String {
    if !s.contains(PREFIX) {
        return f(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = 0;
    loop {
        let Some(found) = s[rest..].find(PREFIX) else {
            out.push_str(&f(&s[rest..]));
            return out;
        };
        let start = rest + found;
        out.push_str(&f(&s[rest..start]));
        match s[start..].find(SUFFIX) {
            Some(len) => {
                let end = start + len + SUFFIX.len();
                out.push_str(&s[start..end]);
                rest = end;
                if rest == s.len() {
                    return out;
                }
            }
            None => {
                out.push_str(&s[start..]);
                return out;
            }
        }
    }
}

/// `s` without its markers (`StripState::killMarkers`: `anchorencode`, `urlencode`, the
/// padding of `padleft`). Marker-shaped text that is not one by [`markers`]' rule stays.
pub(in crate::expand) fn kill_markers(s: &str) -> Cow<'_, str> {
    if !s.contains(PREFIX) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = 0;
    for m in markers(s) {
        out.push_str(&s[rest..m.start]);
        rest = m.end;
    }
    out.push_str(&s[rest..]);
    Cow::Owned(out)
}

/// A marker found in a text: its byte range and its key (`-ref-00000000`).
struct Found<'a> {
    start: usize,
    end: usize,
    key: &'a str,
}

/// The markers of `s`, leftmost first, as MediaWiki's strip state finds them (when it
/// puts them back and when it kills them): [`PREFIX`], a key of at least one byte none
/// of which is `\x7f`, `<`, `>`, `&`, `'` or `"`, then [`SUFFIX`]. So a forged prefix
/// left open before a real marker is text, not the start of a marker that would run to
/// the real one's end (recorded from MediaWiki 1.39: `strip-forged-markers`).
/// [`skip_markers`] finds them otherwise, as `Parser::markerSkipCallback` does.
fn markers(s: &str) -> impl Iterator<Item = Found<'_>> {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(found) = s[from..].find(PREFIX) {
            let start = from + found;
            let key_start = start + PREFIX.len();
            // The suffix's `"` is the first byte the key may not hold, so the suffix
            // starts where the run of key bytes ends, less its first 6 (`-QINU``).
            let run = s.as_bytes()[key_start..]
                .iter()
                .position(|b| matches!(b, b'\x7f' | b'<' | b'>' | b'&' | b'\'' | b'"'))
                .map_or(s.len(), |p| key_start + p);
            let key_end = run.saturating_sub(6);
            if key_end > key_start && s.as_bytes()[key_end..].starts_with(SUFFIX.as_bytes()) {
                let end = key_end + SUFFIX.len();
                from = end;
                return Some(Found {
                    start,
                    end,
                    key: &s[key_start..key_end],
                });
            }
            from = start + 1;
        }
        None
    })
}

/// `s` with its markers replaced by their items' texts (only `<nowiki>`s' when
/// `nowiki_only`), recursively. `moved`, when given, receives for each marker replaced at
/// this level its byte range in `s` and the length of what replaced it.
fn put_back(
    items: &[Item],
    s: &str,
    nowiki_only: bool,
    depth: u32,
    moved: &mut Option<Vec<(usize, usize, usize)>>,
) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = 0;
    for m in markers(s) {
        // A marker this page did not make (or not a `<nowiki>`'s, when only those are
        // put back) stays as it is.
        let Some(item) = item_of(items, m.key).filter(|i| !nowiki_only || i.nowiki) else {
            continue;
        };
        out.push_str(&s[rest..m.start]);
        let before = out.len();
        if depth < MAX_DEPTH && item.text.contains(PREFIX) {
            out.push_str(&put_back(
                items,
                &item.text,
                nowiki_only,
                depth + 1,
                &mut None,
            ));
        } else {
            out.push_str(&item.text);
        }
        if let Some(moved) = moved.as_mut() {
            moved.push((m.start, m.end, out.len() - before));
        }
        rest = m.end;
    }
    out.push_str(&s[rest..]);
    out
}

/// The item a marker's key (`-name-XXXXXXXX`) names, if this page made it.
fn item_of<'i>(items: &'i [Item], key: &str) -> Option<&'i Item> {
    let number = key.get(key.len().checked_sub(8)?..)?;
    let i = usize::from_str_radix(number, 16).ok()?;
    items.get(i).filter(|item| item.key == key)
}

/// Moves each segment's output range by what the markers before it grew or shrank by.
/// `moved` is in output order; no segment starts or ends inside a marker (a marker is
/// written whole by one node).
fn remap(segments: &mut [Segment], moved: &[(usize, usize, usize)]) {
    // `grown[i]`: what the first `i` markers added to the length, in all.
    let mut grown = Vec::with_capacity(moved.len() + 1);
    grown.push(0i64);
    for &(start, end, len) in moved {
        grown.push(grown[grown.len() - 1] + len as i64 - (end - start) as i64);
    }
    let at = |p: u32| -> u32 {
        let before = moved.partition_point(|&(_, end, _)| end <= p as usize);
        (i64::from(p) + grown[before]) as u32
    };
    for s in segments {
        s.out = at(s.out.start)..at(s.out.end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_found_by_mediawikis_pattern() {
        let real = format!("{PREFIX}-nowiki-00000000{SUFFIX}");
        // A prefix left open before a real marker is text; so is a key holding `<`.
        let s = format!("A{PREFIX}x {real} Y|{PREFIX}-a<b{SUFFIX}|{PREFIX}{SUFFIX}");
        let found: Vec<&str> = markers(&s).map(|m| m.key).collect();
        assert_eq!(found, ["-nowiki-00000000"]);
        assert_eq!(
            kill_markers(&s),
            format!("A{PREFIX}x  Y|{PREFIX}-a<b{SUFFIX}|{PREFIX}{SUFFIX}")
        );
        // Multibyte text right before a byte that ends a key is no marker, and no panic.
        let s = format!("{PREFIX}aéééx\"{PREFIX}é-QINU`\"'");
        assert_eq!(markers(&s).count(), 0);
        assert_eq!(kill_markers(&s), s);
    }
}
