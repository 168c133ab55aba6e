//! URL classification: turns a cited URL into the most specific [`Source`] it names.
//!
//! Reports cite the same Wikipedia page in many spellings (desktop, mobile, `index.php`,
//! percent-encoded, with tracking junk appended by the chat UI). The auditor can only look a
//! page up in the index if those spellings collapse to one title, so this module does that
//! collapsing; everything that is not Wikipedia, a DOI resolver or arXiv stays a plain URL.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::ids;
use super::{Source, TextQuote};

static URL_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:https?://|www\.)[^\s<>"`{}|\\^\[\]【】「」]+"#).expect("valid URL regex")
});

/// Bare URLs in running text, without the sentence punctuation that follows them.
pub fn find_urls(text: &str) -> Vec<Range<usize>> {
    URL_IN_TEXT
        .find_iter(text)
        .filter_map(|m| {
            let trimmed = ids::trim_trailing_punct(m.as_str());
            let host_part = trimmed.split_once("://").map_or(trimmed, |(_, r)| r);
            let has_host = host_part.trim_start_matches("www.").contains('.')
                || trimmed.contains("://") && host_part.len() > 1;
            has_host.then(|| m.start()..m.start() + trimmed.len())
        })
        .collect()
}

/// Query parameters that only track the click and never change which document is served.
/// Stripping them lets two citations of the same page compare equal.
fn is_tracking_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("utm_")
        || matches!(
            name.as_str(),
            "fbclid"
                | "gclid"
                | "dclid"
                | "gbraid"
                | "wbraid"
                | "msclkid"
                | "yclid"
                | "mc_cid"
                | "mc_eid"
                | "igshid"
                | "_hsenc"
                | "_hsmi"
                | "mkt_tok"
                | "wprov"
                | "ref_src"
        )
}

/// Decodes `%XX` escapes. Malformed escapes are kept literally and invalid UTF-8 is replaced
/// rather than rejected: a half-broken URL in a report still identifies its page.
pub fn percent_decode(s: &str) -> String {
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
pub fn decode_legacy_anchor(s: &str) -> String {
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

/// The parts of an absolute URL this module needs.
struct UrlParts<'a> {
    scheme: &'a str,
    host: String,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split_url(url: &str) -> Option<UrlParts<'_>> {
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

/// Query pairs with tracking parameters removed, still raw (undecoded).
fn clean_query(query: Option<&str>) -> Vec<(&str, &str)> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .filter(|(k, _)| !is_tracking_param(k))
        .collect()
}

/// Removes tracking parameters so that the same page cited from different chat sessions
/// compares equal; everything else is kept byte for byte.
pub fn strip_tracking(url: &str) -> String {
    let Some(parts) = split_url(url) else {
        return url.to_string();
    };
    let Some(query) = parts.query else {
        return match parts.fragment {
            Some(f) => format!(
                "{}#{}",
                &url[..url.len() - f.len() - 1],
                strip_fragment_tracking(f)
            ),
            None => url.to_string(),
        };
    };
    let kept = clean_query(Some(query));
    let q_start = url.len() - parts.fragment.map_or(0, |f| f.len() + 1) - query.len() - 1;
    let mut out = url[..q_start].to_string();
    if !kept.is_empty() {
        out.push('?');
        let joined: Vec<String> = kept
            .iter()
            .map(|(k, v)| {
                if v.is_empty() {
                    k.to_string()
                } else {
                    format!("{k}={v}")
                }
            })
            .collect();
        out.push_str(&joined.join("&"));
    }
    if let Some(f) = parts.fragment {
        out.push('#');
        out.push_str(&strip_fragment_tracking(f));
    }
    out
}

/// Chat interfaces append `&utm_source=…` after a `#:~:text=` directive too.
fn strip_fragment_tracking(fragment: &str) -> String {
    let Some(i) = fragment.find(":~:") else {
        return fragment.to_string();
    };
    let kept: Vec<&str> = fragment[i + 3..]
        .split('&')
        .filter(|d| !is_tracking_param(d.split('=').next().unwrap_or("")))
        .collect();
    format!("{}:~:{}", &fragment[..i], kept.join("&"))
}

/// Classifies a link destination or bare URL. Also accepts `doi:` and `arXiv:` pseudo-schemes,
/// which reports use as link targets.
pub fn classify_url(raw: &str) -> Source {
    let url = raw.trim();
    let lower = url.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("doi:") {
        let id = url[url.len() - rest.len()..].trim();
        if let Some(doi) = ids::normalize_doi(id) {
            return Source::Doi(doi);
        }
    }
    if lower.starts_with("arxiv:")
        && let Some(id) = ids::arxiv_id(url[6..].trim())
    {
        return Source::Arxiv(id);
    }
    let Some(parts) = split_url(url) else {
        return Source::Url(url.to_string());
    };
    if !parts.scheme.eq_ignore_ascii_case("http") && !parts.scheme.eq_ignore_ascii_case("https") {
        return Source::Url(url.to_string());
    }
    let host = parts.host.strip_prefix("www.").unwrap_or(&parts.host);
    if matches!(host, "doi.org" | "dx.doi.org")
        && let Some(doi) = ids::normalize_doi(&percent_decode(parts.path.trim_start_matches('/')))
    {
        return Source::Doi(doi);
    }
    if matches!(host, "arxiv.org" | "export.arxiv.org")
        && let Some(id) = arxiv_from_path(parts.path)
    {
        return Source::Arxiv(id);
    }
    if let Some(lang) = wikipedia_lang(host)
        && let Some(source) = wikipedia_source(url, lang, &parts)
    {
        return source;
    }
    Source::Url(strip_tracking(url))
}

fn arxiv_from_path(path: &str) -> Option<String> {
    let rest = ["/abs/", "/pdf/", "/html/"]
        .iter()
        .find_map(|p| path.strip_prefix(p))?;
    let rest = rest.trim_end_matches('/');
    let rest = rest.strip_suffix(".pdf").unwrap_or(rest);
    ids::arxiv_id(rest)
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

fn wikipedia_source(url: &str, lang: Option<String>, parts: &UrlParts<'_>) -> Option<Source> {
    let query = clean_query(parts.query);
    let param = |name: &str| {
        query
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| percent_decode(&v.replace('+', " ")))
    };
    let number = |name: &str| param(name).and_then(|v| v.trim().parse::<u64>().ok());
    let mut title = if let Some(raw) = parts.path.strip_prefix("/wiki/") {
        Some(title_from_dbkey(&percent_decode(raw)))
    } else {
        param("title").map(|t| title_from_dbkey(&t))
    };
    if let Some(t) = &title
        && let Some(isbn) = t.strip_prefix("Special:BookSources/")
        && let Some(isbn) = ids::validate_isbn(isbn)
    {
        return Some(Source::Isbn(isbn));
    }
    if title.as_deref() == Some("") {
        title = None;
    }
    let oldid = number("oldid");
    let curid = number("curid");
    if title.is_none() && oldid.is_none() && curid.is_none() {
        return None;
    }
    let (anchor, quote) = split_fragment(parts.fragment);
    Some(Source::Wikipedia {
        lang,
        title,
        oldid,
        curid,
        anchor,
        quote,
        url: Some(strip_tracking(url)),
    })
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
pub fn parse_text_directive(value: &str) -> Option<TextQuote> {
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

    fn wiki(url: &str) -> (Option<String>, Option<String>, Option<u64>, Option<String>) {
        match classify_url(url) {
            Source::Wikipedia {
                lang,
                title,
                oldid,
                anchor,
                ..
            } => (lang, title, oldid, anchor),
            other => panic!("{url} classified as {other:?}"),
        }
    }

    #[test]
    fn desktop_and_mobile_urls_give_the_same_title() {
        let a = wiki("https://en.wikipedia.org/wiki/Albert_Einstein#Early_life");
        let b = wiki("https://en.m.wikipedia.org/wiki/Albert_Einstein#Early_life");
        assert_eq!(a, b);
        assert_eq!(a.0.as_deref(), Some("en"));
        assert_eq!(a.1.as_deref(), Some("Albert Einstein"));
        assert_eq!(a.3.as_deref(), Some("Early life"));
    }

    #[test]
    fn index_php_with_oldid_and_plus_spaces() {
        let (lang, title, oldid, _) =
            wiki("https://de.wikipedia.org/w/index.php?title=Berliner+Mauer&oldid=123456");
        assert_eq!(lang.as_deref(), Some("de"));
        assert_eq!(title.as_deref(), Some("Berliner Mauer"));
        assert_eq!(oldid, Some(123456));
    }

    #[test]
    fn curid_only_url_has_no_title() {
        match classify_url("https://en.wikipedia.org/?curid=18630637") {
            Source::Wikipedia { title, curid, .. } => {
                assert_eq!(title, None);
                assert_eq!(curid, Some(18630637));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn percent_encoding_and_legacy_anchor_are_decoded() {
        let (_, title, _, anchor) = wiki(
            "https://en.wikipedia.org/wiki/Caf%C3%A9_society#Rise_.E2.80.93_and_fall_.28part_1.29",
        );
        assert_eq!(title.as_deref(), Some("Café society"));
        assert_eq!(anchor.as_deref(), Some("Rise – and fall (part 1)"));
    }

    #[test]
    fn legacy_decoding_leaves_version_numbers_alone() {
        assert_eq!(decode_legacy_anchor("MediaWiki_1.28"), "MediaWiki_1.28");
        assert_eq!(decode_legacy_anchor("a.2Cb"), "a,b");
        assert_eq!(decode_legacy_anchor("x.E2.80"), "x.E2.80");
    }

    #[test]
    fn tracking_parameters_are_dropped() {
        let url = "https://example.com/a?id=3&utm_source=chatgpt.com&fbclid=xyz#top";
        assert_eq!(strip_tracking(url), "https://example.com/a?id=3#top");
        assert_eq!(
            strip_tracking("https://example.com/a?utm_source=x"),
            "https://example.com/a"
        );
        assert_eq!(
            strip_tracking("https://example.com/a#:~:text=foo&utm_source=chatgpt.com"),
            "https://example.com/a#:~:text=foo"
        );
        match classify_url("https://en.wikipedia.org/wiki/Paris?utm_source=chatgpt.com&wprov=sfla1")
        {
            Source::Wikipedia { url, title, .. } => {
                assert_eq!(title.as_deref(), Some("Paris"));
                assert_eq!(url.as_deref(), Some("https://en.wikipedia.org/wiki/Paris"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn text_fragment_becomes_quote() {
        match classify_url(
            "https://en.wikipedia.org/wiki/Moon#Orbit:~:text=The%20Moon%20is,Earth%2C%20at",
        ) {
            Source::Wikipedia { anchor, quote, .. } => {
                assert_eq!(anchor.as_deref(), Some("Orbit"));
                let q = quote.expect("quote");
                assert_eq!(q.start, "The Moon is");
                assert_eq!(q.end.as_deref(), Some("Earth, at"));
            }
            other => panic!("{other:?}"),
        }
        let q = parse_text_directive("an-,example%2Dtext,-ends").expect("quote");
        assert_eq!(q.prefix.as_deref(), Some("an"));
        assert_eq!(q.start, "example-text");
        assert_eq!(q.suffix.as_deref(), Some("ends"));
        assert_eq!(q.end, None);
    }

    #[test]
    fn doi_and_arxiv_urls() {
        assert_eq!(
            classify_url("https://doi.org/10.1038/nature14539"),
            Source::Doi("10.1038/nature14539".into())
        );
        assert_eq!(
            classify_url("doi:10.1000/XYZ.1"),
            Source::Doi("10.1000/xyz.1".into())
        );
        assert_eq!(
            classify_url("https://arxiv.org/pdf/2101.00001v2.pdf"),
            Source::Arxiv("2101.00001v2".into())
        );
        assert_eq!(
            classify_url("https://arxiv.org/abs/hep-th/9901001"),
            Source::Arxiv("hep-th/9901001".into())
        );
    }

    #[test]
    fn other_urls_stay_urls() {
        assert_eq!(
            classify_url("https://www.bbc.co.uk/news/1"),
            Source::Url("https://www.bbc.co.uk/news/1".into())
        );
        assert_eq!(
            classify_url("https://en.wikipedia.org/"),
            Source::Url("https://en.wikipedia.org/".into())
        );
        // A host that merely ends in the same letters is not Wikipedia.
        assert!(matches!(
            classify_url("https://notwikipedia.org/wiki/X"),
            Source::Url(_)
        ));
    }

    #[test]
    fn booksources_link_is_an_isbn() {
        assert_eq!(
            classify_url("https://en.wikipedia.org/wiki/Special:BookSources/978-0-306-40615-7"),
            Source::Isbn("9780306406157".into())
        );
    }

    #[test]
    fn bare_urls_lose_trailing_punctuation_but_keep_balanced_parens() {
        let text = "See https://en.wikipedia.org/wiki/C_(programming_language). Or (www.example.com/a), https://x.org/?q=1.";
        let found: Vec<&str> = find_urls(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(
            found,
            [
                "https://en.wikipedia.org/wiki/C_(programming_language)",
                "www.example.com/a",
                "https://x.org/?q=1"
            ]
        );
    }

    #[test]
    fn malformed_percent_escapes_survive() {
        assert_eq!(percent_decode("a%zz%4"), "a%zz%4");
        assert_eq!(percent_decode("%E2%80%93"), "–");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
    }
}
