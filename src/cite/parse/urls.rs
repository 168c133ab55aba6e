//! URL classification: turns a cited URL into the most specific [`Source`] it names.
//!
//! Reports cite the same Wikipedia page in many spellings (desktop, mobile, `index.php`,
//! percent-encoded, with tracking junk appended by the chat UI). The auditor can only look a
//! page up in the index if those spellings collapse to one title: [`crate::url`] does that
//! collapsing, shared with the locator; this module adds what only citations need (DOI and
//! arXiv URLs, `Special:BookSources` ISBNs, tracking parameters stripped so that equal
//! citations compare equal). Everything else stays a plain URL.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::Source;
use super::ids;
use crate::url::{WikipediaUrl, percent_decode, split_url};

static URL_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:https?://|www\.)[^\s<>"`{}|\\^\[\]【】「」]+"#).expect("valid URL regex")
});

/// Bare URLs in running text, without the sentence punctuation that follows them.
pub(crate) fn find_urls(text: &str) -> Vec<Range<usize>> {
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
pub(crate) fn strip_tracking(url: &str) -> String {
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
pub(crate) fn classify_url(raw: &str) -> Source {
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
    if let Some(w) = WikipediaUrl::parse(url) {
        return wikipedia_source(url, w);
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

/// A citation of a Wikipedia URL: a `Special:BookSources` link is the book it names.
fn wikipedia_source(url: &str, w: WikipediaUrl) -> Source {
    if let Some(t) = &w.title
        && let Some(isbn) = t.strip_prefix("Special:BookSources/")
        && let Some(isbn) = ids::validate_isbn(isbn)
    {
        return Source::Isbn(isbn);
    }
    Source::Wikipedia {
        lang: w.lang,
        title: w.title,
        oldid: w.oldid,
        curid: w.curid,
        anchor: w.anchor,
        quote: w.quote,
        url: Some(strip_tracking(url)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::parse_text_directive;

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
}
