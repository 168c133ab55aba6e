//! Section anchors and TOC numbering as `Parser::finalizeHeadings` computes them.
//!
//! Anchor (html5 mode, MediaWiki ≥ 1.37): rendered heading text with tags stripped →
//! `[ _]+` collapsed to one space and trimmed → character references decoded → the
//! fragment rules of titles (bidi marks removed, Unicode spaces collapsed) → spaces, tabs
//! and line breaks become `_` → at most 1024 characters. A heading whose anchor was
//! already used (ASCII case-insensitively) gets `_2`, `_3`, … in document order.

use std::collections::{HashMap, HashSet};

use crate::title::decode_char_references;

/// The html5 anchor of a heading's rendered plain text (tags already removed).
pub fn anchor(rendered: &str) -> String {
    // normalizeSectionNameWhitespace
    let mut s = String::with_capacity(rendered.len());
    let mut space = false;
    for c in rendered.chars() {
        if c == ' ' || c == '_' {
            space = true;
            continue;
        }
        if space && !s.is_empty() {
            s.push(' ');
        }
        space = false;
        s.push(c);
    }
    let decoded = decode_char_references(&s);
    // normalizeSectionName: the fragment part of splitTitleString("#…").
    let mut frag = String::with_capacity(decoded.len());
    let mut pending = false;
    for c in decoded.chars() {
        if matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}') {
            continue;
        }
        if matches!(
            c,
            ' ' | '_' | '\u{A0}' | '\u{1680}' | '\u{180E}' | '\u{2000}'
                ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
        ) {
            pending = true;
            continue;
        }
        if pending && !frag.is_empty() {
            frag.push(' ');
        }
        pending = false;
        frag.push(c);
    }
    // escapeIdForAttribute, html5 mode.
    frag.chars()
        .take(1024)
        .map(|c| match c {
            '\t' | '\n' | '\x0c' | '\r' | ' ' => '_',
            other => other,
        })
        .collect()
}

/// The legacy (`.XX`) form of an anchor, as older links and `Sanitizer::ID_FALLBACK` use.
pub(crate) fn legacy_anchor(anchor: &str) -> String {
    let mut out = String::new();
    for b in anchor.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b':' => {
                out.push(*b as char)
            }
            _ => out.push_str(&format!(".{b:02X}")),
        }
    }
    out
}

/// Assigns unique anchors in document order.
#[derive(Default)]
pub(crate) struct AnchorSet {
    seen: HashSet<String>,
    /// Per key, the suffix to try next: every smaller one is taken, so the search stays
    /// amortized constant even for thousands of identical headings.
    next: HashMap<String, u32>,
}

impl AnchorSet {
    pub(crate) fn unique(&mut self, anchor: String) -> String {
        let key = anchor.to_ascii_lowercase();
        if self.seen.insert(key.clone()) {
            return anchor;
        }
        let start = self.next.get(&key).copied().unwrap_or(2);
        let mut i = start;
        while self.seen.contains(&format!("{key}_{i}")) {
            i += 1;
        }
        self.seen.insert(format!("{key}_{i}"));
        self.next.insert(key, i + 1);
        format!("{anchor}_{i}")
    }
}

/// TOC levels and numbers (`1`, `2.1`, …) for headings of the given levels.
pub(crate) fn toc_numbers(levels: &[u8]) -> Vec<(u32, String)> {
    let mut out = Vec::with_capacity(levels.len());
    let mut toclevel = 0usize;
    let mut prevlevel = 0u8;
    let mut level = 0u8;
    let mut level_count: Vec<u8> = vec![0; 8];
    let mut sublevel: Vec<u32> = vec![0; 8];
    for &l in levels {
        if toclevel > 0 {
            prevlevel = level;
        }
        level = l;
        if level > prevlevel {
            toclevel += 1;
            if toclevel >= sublevel.len() {
                sublevel.resize(toclevel + 1, 0);
                level_count.resize(toclevel + 1, 0);
            }
            sublevel[toclevel] = 0;
        } else if level < prevlevel && toclevel > 1 {
            let mut i = toclevel;
            while i > 0 {
                if level_count[i] == level {
                    toclevel = i;
                    break;
                } else if level_count[i] < level {
                    toclevel = i + 1;
                    break;
                }
                i -= 1;
            }
            if i == 0 {
                toclevel = 1;
            }
        }
        level_count[toclevel] = level;
        sublevel[toclevel] += 1;
        let number = (1..=toclevel)
            .filter(|&i| sublevel[i] != 0)
            .map(|i| sublevel[i].to_string())
            .collect::<Vec<_>>()
            .join(".");
        out.push((toclevel as u32, number));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_like_mediawiki() {
        assert_eq!(
            anchor(" Best Art Direction &ndash; Set Decoration "),
            "Best_Art_Direction_–_Set_Decoration"
        );
        assert_eq!(anchor("1972 (failed vote)"), "1972_(failed_vote)");
        assert_eq!(anchor("a\u{A0}b__c"), "a_b_c");
        assert_eq!(anchor("手紙"), "手紙");
        assert_eq!(legacy_anchor("手紙"), ".E6.89.8B.E7.B4.99");
    }

    #[test]
    fn duplicates_get_suffixes() {
        let mut s = AnchorSet::default();
        assert_eq!(s.unique("1940s".into()), "1940s");
        assert_eq!(s.unique("1940S".into()), "1940S_2");
        assert_eq!(s.unique("1940s".into()), "1940s_3");
        assert_eq!(s.unique("1940s_2".into()), "1940s_2_2");
    }

    #[test]
    fn toc_numbering() {
        let n = toc_numbers(&[2, 3, 3, 2, 4, 2]);
        let nums: Vec<&str> = n.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(nums, ["1", "1.1", "1.2", "2", "2.1", "3"]);
        assert_eq!(n[4].0, 2);
    }
}
