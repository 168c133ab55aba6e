//! Internal link syntax as `Parser::handleInternalLinks2` reads it: the text is split at
//! every `[[`; a piece is a link if it starts with legal title characters followed by
//! `]]` or `|text]]`; an image link may swallow following pieces (links in its caption).
//!
//! Runs on flattened text (see [`super::flat`]) and returns where each link is; deciding
//! what a target *means* (page, category, file, interwiki) is left to the caller, which
//! knows the wiki's namespaces.

use std::ops::Range;

/// One `[[…]]` occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkMatch {
    /// Flat offset of `[[`.
    pub start: u32,
    /// Flat offset after the closing `]]` and the link trail (after the caption of an
    /// unclosed image link).
    pub end: u32,
    /// The target text as written (before title parsing).
    pub target: Range<u32>,
    /// The text after `|`, up to `]]`, when given (for images: options and caption).
    pub text: Option<Range<u32>>,
    /// Letters glued after `]]` that become part of the link text (`[[bank]]s`).
    pub trail: Range<u32>,
    /// Set for links found inside an image's caption.
    pub in_caption: bool,
}

/// How the caller classifies a target (needed to follow image captions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// `[[File:…]]` without a leading colon: an image, whose caption may hold links.
    Image,
    /// Any other valid target.
    Other,
    /// Not a valid target: the piece is text.
    Invalid,
}

/// `$wgLegalTitleChars` plus `#%`, as the link regex allows in the target position.
fn is_target_byte(b: u8) -> bool {
    b >= 0x80
        || matches!(b,
            b' ' | b'%' | b'!' | b'"' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b',' | b'-'
            | b'.' | b'/' | b'0'..=b'9' | b':' | b';' | b'=' | b'?' | b'@' | b'A'..=b'Z'
            | b'\\' | b'^' | b'_' | b'`' | b'a'..=b'z' | b'~' | b'+' | b'#')
}

/// URL schemes (`$wgUrlProtocols`): `[[http://…]]` is not an internal link.
const PROTOCOLS: &[&str] = &[
    "bitcoin:",
    "ftp://",
    "ftps://",
    "geo:",
    "git://",
    "gopher://",
    "http://",
    "https://",
    "irc://",
    "ircs://",
    "magnet:",
    "mailto:",
    "matrix:",
    "mms://",
    "news:",
    "nntp://",
    "redis://",
    "sftp://",
    "sip:",
    "sips:",
    "sms:",
    "ssh://",
    "svn://",
    "tel:",
    "telnet://",
    "urn:",
    "worldwind://",
    "xmpp:",
    "//",
];

fn starts_with_protocol(t: &str) -> bool {
    let t = t.trim_start_matches(' ');
    PROTOCOLS
        .iter()
        .any(|p| t.len() >= p.len() && t.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
}

/// Link-trail letters: `[a-z]+` on English wikis; wikis in other languages add theirs.
pub(crate) fn trail_len(rest: &str, lang: &str) -> usize {
    let extra: &[char] = match lang {
        "lv" | "ltg" => &[
            'ā', 'č', 'ē', 'ģ', 'ī', 'ķ', 'ļ', 'ņ', 'ō', 'ŗ', 'š', 'ū', 'ž',
        ],
        "de" => &['ä', 'ö', 'ü', 'ß'],
        "fr" => &[
            'à', 'â', 'ç', 'é', 'è', 'ê', 'î', 'ô', 'û', 'ë', 'ï', 'ü', 'ÿ', 'œ', 'æ',
        ],
        _ => &[],
    };
    rest.char_indices()
        .find(|(_, c)| !(c.is_ascii_lowercase() || extra.contains(c)))
        .map(|(i, _)| i)
        .unwrap_or(rest.len())
}

/// HTML tags MediaWiki's sanitizer lets through (the others are escaped as text, and
/// what looks like their attributes stays wikitext).
const HTML_TAGS: &[&str] = &[
    "abbr",
    "b",
    "bdi",
    "bdo",
    "big",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "data",
    "dd",
    "del",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "font",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "ins",
    "kbd",
    "li",
    "link",
    "mark",
    "meta",
    "ol",
    "p",
    "pre",
    "q",
    "rb",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "sup",
    "table",
    "td",
    "th",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
];

/// The attribute parts of the opening HTML tags in `text`: from
/// the tag name to its `>`, for a tag the sanitizer knows and that closes before the
/// next `<` (one that does not is text). In order, not overlapping; linear.
fn attribute_spans(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(p) = memchr::memchr(b'<', &b[at..]).map(|p| at + p) {
        at = p + 1;
        let name_len = b[at..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .count();
        let name = &text[at..at + name_len];
        if name_len == 0
            || !HTML_TAGS.iter().any(|t| t.eq_ignore_ascii_case(name))
            || !b
                .get(at + name_len)
                .is_some_and(|c| c.is_ascii_whitespace() || *c == b'/' || *c == b'>')
        {
            continue;
        }
        let attrs = at + name_len;
        let Some(close) = memchr::memchr2(b'>', b'<', &b[attrs..]).map(|q| attrs + q) else {
            break;
        };
        if b[close] == b'>' {
            out.push(attrs..close);
            at = close + 1;
        }
    }
    out
}

/// Scans `text` (a flat string or a slice of one starting at flat offset `base`).
pub fn scan(
    text: &str,
    base: u32,
    lang: &str,
    classify: &dyn Fn(&str) -> TargetKind,
) -> Vec<LinkMatch> {
    let mut out = Vec::new();
    // Piece starts: the byte after each "[[".
    let starts: Vec<usize> = memchr::memmem::find_iter(text.as_bytes(), b"[[")
        .map(|p| p + 2)
        .collect();
    // `explode('[[')` never lets pieces overlap: "[[[[" yields an empty piece, then the
    // next one. Drop starts that fall inside a previous "[[".
    let mut pieces: Vec<usize> = Vec::with_capacity(starts.len());
    for s in starts {
        if pieces.last().is_none_or(|&p| s >= p + 2) {
            pieces.push(s);
        }
    }
    // A "[[" inside an HTML tag's attributes is no link: MediaWiki's sanitizer encodes
    // attribute values (`[` as `&#91;`) before links are read, so a template writing a
    // link into `style="…"` (a missing one's red link) leaves text, not a link.
    if !pieces.is_empty() {
        let spans = attribute_spans(text);
        if !spans.is_empty() {
            let mut j = 0;
            pieces.retain(|&p| {
                while j < spans.len() && spans[j].end <= p - 2 {
                    j += 1;
                }
                spans.get(j).is_none_or(|r| r.start > p - 2)
            });
        }
    }
    let piece_end = |k: usize| -> usize { pieces.get(k + 1).map(|&n| n - 2).unwrap_or(text.len()) };
    let mut k = 0;
    while k < pieces.len() {
        let ps = pieces[k];
        let pe = piece_end(k);
        let line = &text[ps..pe];
        let b = line.as_bytes();
        let tlen = b.iter().take_while(|&&c| is_target_byte(c)).count();
        k += 1;
        if tlen == 0 {
            continue;
        }
        let target = &line[..tlen];
        let after = &line[tlen..];
        // e1: `]]` or `|text]]` (text: shortest non-empty run up to the first `]]`).
        let (text_range, close_at, might_be_img) = if after.starts_with("]]") {
            (None, Some(tlen), false)
        } else if let Some(piped) = after.strip_prefix('|') {
            let find_close = |s: &str| memchr::memmem::find(s.as_bytes(), b"]]");
            match find_close(piped) {
                Some(0) => {
                    // `[[a|]]`: the text must be non-empty; try after the first `]]`.
                    match find_close(&after[3..]) {
                        Some(p) => (Some(tlen + 1..tlen + 3 + p), Some(tlen + 3 + p), false),
                        None => (Some(tlen + 1..line.len()), None, true),
                    }
                }
                Some(p) => (Some(tlen + 1..tlen + 1 + p), Some(tlen + 1 + p), false),
                None => (Some(tlen + 1..line.len()), None, true),
            }
        } else {
            continue;
        };
        if starts_with_protocol(target) {
            continue;
        }
        let kind = classify(target);
        if kind == TargetKind::Invalid {
            continue;
        }
        let abs = |r: Range<usize>| (base + r.start as u32)..(base + r.end as u32);
        if might_be_img {
            if kind != TargetKind::Image {
                continue;
            }
            // Swallow following pieces until one holds two `]]`: the first closes the
            // caption's link, the second the image.
            let mut found = None;
            let mut j = k;
            while j < pieces.len() {
                let nl = &text[pieces[j]..piece_end(j)];
                let mut closes = memchr::memmem::find_iter(nl.as_bytes(), b"]]");
                match (closes.next(), closes.next()) {
                    (Some(_), Some(second)) => {
                        found = Some((j, pieces[j] + second));
                        break;
                    }
                    (Some(_), None) => j += 1,
                    _ => break,
                }
            }
            let caption_start = ps + tlen + 1;
            let (caption_end, end, next_k) = match found {
                Some((j, close)) => (close, close + 2, j + 1),
                None if j < pieces.len() => (piece_end(j), piece_end(j), j + 1),
                None => (text.len(), text.len(), pieces.len()),
            };
            let closed = found.is_some();
            let (trail, end) = if closed {
                let tl = trail_len(&text[end..], lang);
                (end..end + tl, end + tl)
            } else {
                (end..end, end)
            };
            out.push(LinkMatch {
                start: base + ps as u32 - 2,
                end: base + end as u32,
                target: abs(ps..ps + tlen),
                text: Some(abs(caption_start..caption_end)),
                trail: abs(trail),
                in_caption: false,
            });
            // Links inside the caption.
            for mut inner in scan(
                &text[caption_start..caption_end],
                base + caption_start as u32,
                lang,
                classify,
            ) {
                inner.in_caption = true;
                out.push(inner);
            }
            k = next_k;
            continue;
        }
        let close_at = close_at.expect("closed when not an image");
        let end = ps + close_at + 2;
        let tl = trail_len(&text[end..], lang);
        let text_range = text_range.map(|r| abs(ps + r.start..ps + r.end));
        out.push(LinkMatch {
            start: base + ps as u32 - 2,
            end: base + (end + tl) as u32,
            target: abs(ps..ps + tlen),
            text: text_range,
            trail: abs(end..end + tl),
            in_caption: false,
        });
    }
    out.sort_by_key(|l| (l.start, l.in_caption));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<String> {
        let classify = |t: &str| {
            if t.starts_with("File:") {
                TargetKind::Image
            } else if t.contains('\x7f') {
                TargetKind::Invalid
            } else {
                TargetKind::Other
            }
        };
        scan(text, 0, "en", &classify)
            .into_iter()
            .map(|l| text[l.target.start as usize..l.target.end as usize].to_string())
            .collect()
    }

    #[test]
    fn basic_forms() {
        assert_eq!(targets("a [[B]] c [[D|e]]f"), ["B", "D"]);
        assert_eq!(targets("[[a{b]] [[x\ny]] [[http://x]] [[ok]]"), ["ok"]);
        assert_eq!(targets("[[Foo|a [[Bar]] b]]"), ["Bar"]);
        assert_eq!(targets("[[a|b\nc]]"), ["a"]);
    }

    #[test]
    fn image_captions_hold_links() {
        assert_eq!(
            targets("[[File:X.jpg|thumb|A [[B]] and [[C|d]].]] after [[E]]"),
            ["File:X.jpg", "B", "C", "E"]
        );
        assert_eq!(
            targets("[[File:X.jpg|thumb|unclosed [[B]] text"),
            ["File:X.jpg", "B"]
        );
    }

    #[test]
    fn no_link_inside_an_html_attribute() {
        // Reflist on a wiki without Template:Column-width: the red link lands in `style`.
        let reflist = r#"<div class="reflist" style="[[:Template:Column-width]]; list-style-type: decimal;">[[Kept]]</div>"#;
        assert_eq!(targets(reflist), ["Kept"]);
        // Unknown tags and tags left open are text: their "attributes" hold links.
        assert_eq!(
            targets("<foo a=\"[[A]]\"> <span title=\"[[B]]\" [[C]]"),
            ["A", "B", "C"]
        );
        assert_eq!(
            targets("<span title=\"x\">[[D]]</span><br/>[[E]]"),
            ["D", "E"]
        );
    }

    #[test]
    fn trail_is_measured() {
        let text = "[[bank]]s and";
        let l = &scan(text, 0, "en", &|_| TargetKind::Other)[0];
        assert_eq!(&text[l.trail.start as usize..l.trail.end as usize], "s");
    }
}
