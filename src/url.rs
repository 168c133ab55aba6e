//! Wikipedia article URLs: which page, revision, section and passage a URL names.
//!
//! A locator may be written as a Wikipedia URL and a report cites pages by URL, in many
//! spellings (desktop, mobile, `index.php?title=`, `?curid=`/`?oldid=`, percent-encoded,
//! MediaWiki's legacy `.XX` anchors, `#:~:text=` fragments). Both read them here, in the
//! lowest layer, so that the locator (`locator`) and the citation parser (`cite::parse`)
//! agree on what a URL names; what only citations need (DOI and arXiv URLs, ISBNs from
//! `Special:BookSources`, tracking parameters) stays in `cite::parse`.

use serde::{Deserialize, Serialize};

/// A text-fragment directive (`#:~:text=prefix-,start,end,-suffix`), percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TextQuote {
    pub prefix: Option<String>,
    pub start: String,
    pub end: Option<String>,
    pub suffix: Option<String>,
}

/// What a Wikipedia URL names. Titles and anchors are percent-decoded with underscores
/// as spaces; at least one of `title`, `oldid`, `curid` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WikipediaUrl {
    /// The language subdomain (`de` for `de.m.wikipedia.org`); `None` for the portal hosts.
    pub lang: Option<String>,
    /// `None` for `?curid=`/`?oldid=`-only URLs.
    pub title: Option<String>,
    pub oldid: Option<u64>,
    pub curid: Option<u64>,
    pub anchor: Option<String>,
    /// The `#:~:text=` fragment: the passage the author meant.
    pub quote: Option<TextQuote>,
}

impl WikipediaUrl {
    /// Reads an http(s) URL on a `wikipedia.org` host (or `www.…` without a scheme);
    /// `None` for any other URL and for a Wikipedia URL that names no page.
    pub fn parse(url: &str) -> Option<WikipediaUrl> {
        let parts = split_url(url)?;
        if !parts.scheme.eq_ignore_ascii_case("http") && !parts.scheme.eq_ignore_ascii_case("https")
        {
            return None;
        }
        let host = parts.host.strip_prefix("www.").unwrap_or(&parts.host);
        let lang = wikipedia_lang(host)?;
        let query: Vec<(&str, &str)> = parts
            .query
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| p.split_once('=').unwrap_or((p, "")))
            .collect();
        let param = |name: &str| {
            query
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| percent_decode(&v.replace('+', " ")))
        };
        let number = |name: &str| param(name).and_then(|v| v.trim().parse::<u64>().ok());
        let title = if let Some(raw) = parts.path.strip_prefix("/wiki/") {
            Some(title_from_dbkey(&percent_decode(raw)))
        } else {
            param("title").map(|t| title_from_dbkey(&t))
        };
        let title = title.filter(|t| !t.is_empty());
        let oldid = number("oldid");
        let curid = number("curid");
        if title.is_none() && oldid.is_none() && curid.is_none() {
            return None;
        }
        let (anchor, quote) = split_fragment(parts.fragment);
        Some(WikipediaUrl {
            lang,
            title,
            oldid,
            curid,
            anchor,
            quote,
        })
    }
}

/// Bytes escaped in a title's URL path: MediaWiki's `wfUrlencode` keeps `:` and `/`.
/// What is left (`?`, `#`, `&`, `=`, `+`, `%`, `"`, `|`, …) cannot be mistaken for a
/// URL's or a locator's delimiters.
const TITLE_PATH: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'_')
    .remove(b'-')
    .remove(b'.')
    .remove(b'~')
    .remove(b':')
    .remove(b'/')
    .remove(b'(')
    .remove(b')')
    .remove(b',')
    .remove(b'!')
    .remove(b'*')
    .remove(b'\'');

/// A title (or anchor) as a URL path segment: underscores for spaces, the rest
/// percent-encoded by [`TITLE_PATH`].
pub(crate) fn encode_title_path(title: &str) -> String {
    percent_encoding::utf8_percent_encode(&title.replace(' ', "_"), TITLE_PATH).to_string()
}

/// The URL of a page, in the form [`WikipediaUrl::parse`] reads back to the same parts:
/// `/wiki/Title` for a title alone, `/w/index.php?title=…&curid=…&oldid=…` otherwise, on
/// the language's host (the portal host without one).
pub(crate) fn page_url(
    lang: Option<&str>,
    title: Option<&str>,
    curid: Option<u64>,
    oldid: Option<u64>,
    anchor: Option<&str>,
) -> String {
    let enc = encode_title_path;
    let mut url = match lang {
        Some(l) => format!("https://{l}.wikipedia.org"),
        None => "https://www.wikipedia.org".to_string(),
    };
    if curid.is_none() && oldid.is_none() {
        url.push_str("/wiki/");
        url.push_str(&enc(title.unwrap_or_default()));
    } else {
        let mut params = Vec::new();
        params.extend(title.map(|t| format!("title={}", enc(t))));
        params.extend(curid.map(|c| format!("curid={c}")));
        params.extend(oldid.map(|o| format!("oldid={o}")));
        url.push_str("/w/index.php?");
        url.push_str(&params.join("&"));
    }
    if let Some(a) = anchor {
        url.push('#');
        url.push_str(&enc(a));
    }
    url
}

/// Decodes `%XX` escapes. Malformed escapes are kept literally and invalid UTF-8 is replaced
/// rather than rejected (as [`crate::title::percent_decode`] rejects it, following
/// MediaWiki's title rules): a half-broken URL in a report still identifies its page.
pub(crate) fn percent_decode(s: &str) -> String {
    decode_escapes(s, b'%')
}

/// Decodes `<escape>XX` hex pairs into bytes, then into UTF-8 (lossily).
fn decode_escapes(s: &str, escape: u8) -> String {
    let bytes = s.as_bytes();
    if !bytes.contains(&escape) {
        return s.to_string();
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == escape
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex_val(bytes[i + 1]), hex_val(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes MediaWiki's legacy section-anchor encoding, where `%` was replaced by `.`
/// (`Rise_.E2.80.93_fall` is `Rise – fall`).
///
/// The encoding is ambiguous with literal dots (`Version_1.28`), so a `.XX` pair is decoded
/// only when that is the likely reading: always when a run forms a multi-byte UTF-8
/// character; for escaped ASCII punctuation, when the anchor shows other evidence of the
/// legacy encoding (a multi-byte run, or an encoded `(`…`)` pair) or the dot does not follow
/// a digit.
pub(crate) fn decode_legacy_anchor(s: &str) -> String {
    let bytes = s.as_bytes();
    let evidence = (s.contains(".28") && s.contains(".29")) || has_multibyte_run(bytes);
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'.' {
            let run = legacy_run(bytes, i);
            let after_digit = i > 0 && bytes[i - 1].is_ascii_digit();
            if let Some(consumed) = accept_legacy_run(&run, evidence || !after_digit) {
                out.extend_from_slice(&run[..consumed]);
                i += consumed * 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The bytes encoded by the run of `.XX` pairs (uppercase hex) starting at `i`, at most one
/// UTF-8 character's worth.
fn legacy_run(bytes: &[u8], i: usize) -> Vec<u8> {
    let mut run = Vec::new();
    let mut j = i;
    while run.len() < 4 && j + 2 < bytes.len() && bytes[j] == b'.' {
        let (hi, lo) = (bytes[j + 1], bytes[j + 2]);
        match (hex_val(hi), hex_val(lo)) {
            (Some(h), Some(l)) if is_upper_hex(hi) && is_upper_hex(lo) => {
                run.push(h * 16 + l);
                j += 3;
            }
            _ => break,
        }
    }
    run
}

fn has_multibyte_run(bytes: &[u8]) -> bool {
    (0..bytes.len()).filter(|&i| bytes[i] == b'.').any(|i| {
        let run = legacy_run(bytes, i);
        run.first().is_some_and(|&b| b >= 0x80) && accept_legacy_run(&run, false).is_some()
    })
}

fn is_upper_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'A'..=b'F').contains(&b)
}

/// How many bytes of a `.XX` run to decode (see [`decode_legacy_anchor`]); `None` keeps the
/// dot. `ascii_ok` allows decoding a single escaped punctuation byte.
fn accept_legacy_run(run: &[u8], ascii_ok: bool) -> Option<usize> {
    let first = *run.first()?;
    if first >= 0x80 {
        let len = match first {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return None,
        };
        let bytes = run.get(..len)?;
        return std::str::from_utf8(bytes).ok().map(|_| len);
    }
    let escaped_punct = matches!(first, 0x21..=0x2F | 0x3B..=0x40 | 0x5B..=0x60 | 0x7B..=0x7E);
    (escaped_punct && ascii_ok).then_some(1)
}

/// The parts of an absolute URL that Wikipedia and citation URLs need; the host is
/// lowercased, everything else is raw (undecoded).
pub(crate) struct UrlParts<'a> {
    pub scheme: &'a str,
    pub host: String,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

/// Splits an absolute URL (or a scheme-less `www.` one, read as https) into its parts;
/// `None` when there is no scheme or no host.
pub(crate) fn split_url(url: &str) -> Option<UrlParts<'_>> {
    let (scheme, rest) = match url.find("://") {
        Some(i) => (&url[..i], &url[i + 3..]),
        None if url.len() >= 4 && url[..4].eq_ignore_ascii_case("www.") => ("https", url),
        None => return None,
    };
    let (before_frag, fragment) = match rest.find('#') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (before_query, query) = match before_frag.find('?') {
        Some(i) => (&before_frag[..i], Some(&before_frag[i + 1..])),
        None => (before_frag, None),
    };
    let (authority, path) = match before_query.find('/') {
        Some(i) => (&before_query[..i], &before_query[i..]),
        None => (before_query, ""),
    };
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = host.split(':').next().unwrap_or(host);
    if host.is_empty() {
        return None;
    }
    Some(UrlParts {
        scheme,
        host: host.to_ascii_lowercase(),
        path,
        query,
        fragment,
    })
}

/// `Some(lang)` for a Wikipedia host (`en.wikipedia.org`, `en.m.wikipedia.org`), `Some(None)`
/// for the language-neutral portal hosts.
fn wikipedia_lang(host: &str) -> Option<Option<String>> {
    let prefix = host.strip_suffix("wikipedia.org")?;
    if prefix.is_empty() {
        return Some(None);
    }
    let prefix = prefix.strip_suffix('.')?;
    let prefix = prefix.strip_suffix(".m").unwrap_or(prefix);
    if prefix.is_empty() || prefix == "m" || prefix == "www" {
        return Some(None);
    }
    let valid = prefix
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    valid.then(|| Some(prefix.to_string()))
}

/// Wikipedia URLs carry DB keys: underscores stand for spaces.
fn title_from_dbkey(s: &str) -> String {
    s.replace('_', " ").trim().to_string()
}

/// Splits `#Anchor:~:text=…` into the section anchor and the first text-fragment directive.
fn split_fragment(fragment: Option<&str>) -> (Option<String>, Option<TextQuote>) {
    let Some(fragment) = fragment else {
        return (None, None);
    };
    let (anchor_raw, directives) = match fragment.find(":~:") {
        Some(i) => (&fragment[..i], Some(&fragment[i + 3..])),
        None => (fragment, None),
    };
    let anchor = (!anchor_raw.is_empty()).then(|| {
        let decoded = decode_legacy_anchor(&percent_decode(anchor_raw));
        title_from_dbkey(&decoded)
    });
    let quote = directives.and_then(|d| {
        d.split('&')
            .find_map(|dir| dir.strip_prefix("text="))
            .and_then(parse_text_directive)
    });
    (anchor.filter(|a| !a.is_empty()), quote)
}

/// Parses a `text=[prefix-,]start[,end][,-suffix]` directive. Splitting happens before
/// decoding because literal `,` and `-` inside the quote are percent-encoded by the spec.
pub(crate) fn parse_text_directive(value: &str) -> Option<TextQuote> {
    let mut items: Vec<&str> = value.split(',').collect();
    let prefix = match items.first() {
        Some(first) if items.len() > 1 && first.ends_with('-') => {
            let p = items.remove(0);
            Some(percent_decode(&p[..p.len() - 1]))
        }
        _ => None,
    };
    let suffix = match items.last() {
        Some(last) if items.len() > 1 && last.starts_with('-') => {
            let s = items.pop().unwrap_or_default();
            Some(percent_decode(&s[1..]))
        }
        _ => None,
    };
    let start = percent_decode(items.first()?);
    if start.trim().is_empty() || items.len() > 2 {
        return None;
    }
    let end = items.get(1).map(|e| percent_decode(e));
    Some(TextQuote {
        prefix,
        start,
        end,
        suffix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_decoding_leaves_version_numbers_alone() {
        assert_eq!(decode_legacy_anchor("MediaWiki_1.28"), "MediaWiki_1.28");
        assert_eq!(decode_legacy_anchor("a.2Cb"), "a,b");
        assert_eq!(decode_legacy_anchor("x.E2.80"), "x.E2.80");
    }

    #[test]
    fn malformed_percent_escapes_survive() {
        assert_eq!(percent_decode("a%zz%4"), "a%zz%4");
        assert_eq!(percent_decode("%E2%80%93"), "–");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
    }
}
