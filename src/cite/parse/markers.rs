//! In-text citation markers: every place in the prose that points at a source.
//!
//! Patterns run over the *searchable regions* of the report — raw source stretches that the
//! markdown pass saw as prose text — so a `[3]` inside code, a link destination or a
//! definition line is never a marker, while markers CommonMark does not know (`[3]`, `[3–5]`,
//! `【4†source】`, `[[Title]]`, bare URLs) are still found with exact byte spans.

use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::LinkType;
use regex::Regex;

use super::ids;
use super::markdown::Layout;
use super::urls;

/// What a marker points at, before resolution against the reference list.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A CommonMark link; index into `Layout::links`.
    Link(usize),
    Footnote(String),
    /// Numbered references; `bad_range` flags `[9-3]` or absurdly long ranges.
    Numeric {
        numbers: Vec<u32>,
        bad_range: bool,
    },
    WikiLink {
        target: String,
        anchor: Option<String>,
        display: String,
    },
    /// `[text][label]` whose label CommonMark could not resolve (the definition is missing,
    /// or is glued to a paragraph where CommonMark does not see it).
    LabelRef {
        text: String,
        label: String,
    },
    Url,
    Doi(String),
    Arxiv(String),
    /// `Err` holds an ISBN whose checksum fails.
    Isbn(Result<String, String>),
    AuthorYear {
        authors: String,
        year: u16,
        narrative: bool,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub span: Range<usize>,
    pub block: usize,
    pub found: Found,
}

/// Longest numeric range expanded (`[1-40]` is plausible, `[1-99999]` is a typo).
const MAX_RANGE: u32 = 200;

static NUMERIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\s*(\d{1,4}(?:\s*(?:[-–—,;]|and)\s*\d{1,4})*)\s*\]").expect("regex")
});
static LENTICULAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"【(\d{1,4})(?:†[^】\n]{0,200})?】").expect("regex"));
static FOOTNOTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\^([^\]\s]{1,100})\]").expect("regex"));
static WIKILINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\[([^\[\]|\n]{1,255})(?:\|([^\[\]\n]{0,255}))?\]\]").expect("regex")
});
static LABEL_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[([^\[\]\n]{1,200})\]\[([^\[\]\^\n][^\[\]\n]{0,99})\]").expect("regex")
});
static NUMERIC_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:\[\s*\d[\d\s,;–—-]*\])+$").expect("regex"));
static SUP_DIGITS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(\d{1,4}(?:\s*[,–-]\s*\d{1,4})*)\s*$").expect("regex"));

/// Expands `3`, `3, 4`, `3-5`, `3–5; 7` into reference numbers.
pub(crate) fn expand_numbers(list: &str) -> (Vec<u32>, bool) {
    let mut numbers = Vec::new();
    let mut bad = false;
    let normalized = list.replace("and", ",").replace(';', ",");
    for part in normalized.split(',') {
        let part = part.trim();
        let bounds: Vec<&str> = part.split(['-', '–', '—']).map(str::trim).collect();
        match bounds.as_slice() {
            [one] => numbers.extend(one.parse::<u32>().ok()),
            [a, b] => match (a.parse::<u32>(), b.parse::<u32>()) {
                (Ok(a), Ok(b)) if a <= b && b - a <= MAX_RANGE => numbers.extend(a..=b),
                (Ok(a), Ok(b)) => {
                    bad = true;
                    numbers.extend([a, b]);
                }
                _ => bad = true,
            },
            _ => bad = true,
        }
    }
    numbers.dedup();
    (numbers, bad)
}

/// A stretch of the report searched for markers, and the block it belongs to.
struct Region {
    span: Range<usize>,
    block: usize,
}

/// Builds the searchable regions: searchable chunks, joined across emphasis delimiters and
/// line breaks, plus numeric-looking reference links (`[3][4]` when `[4]:` is defined).
fn regions(src: &str, layout: &Layout<'_>) -> Vec<Region> {
    let mut spans: Vec<(Range<usize>, usize)> = Vec::new();
    for (b, block) in layout.blocks.iter().enumerate() {
        for c in block.chunks.iter().filter(|c| c.searchable) {
            spans.push((c.src.clone(), b));
        }
    }
    for link in &layout.links {
        if is_numeric_link(src, link.span.clone(), link.link_type) {
            spans.push((link.span.clone(), link.block));
        }
    }
    spans.sort_by_key(|(r, _)| r.start);
    let mut out: Vec<Region> = Vec::with_capacity(spans.len());
    for (span, block) in spans {
        if let Some(last) = out.last_mut()
            && last.block == block
            && span.start >= last.span.end
            && src.get(last.span.end..span.start).is_some_and(|gap| {
                gap.chars()
                    .all(|c| matches!(c, '*' | '_' | '~' | ' ' | '\n' | '\r' | '\t'))
            })
        {
            last.span.end = last.span.end.max(span.end);
            continue;
        }
        if out.last().is_some_and(|l| span.start < l.span.end) {
            continue;
        }
        out.push(Region { span, block });
    }
    out
}

/// `[3]`, `[3][4]`, `[3][]` that CommonMark turned into reference links because a `[3]:`
/// definition exists: they are numeric markers, not links with the text "3".
pub(crate) fn is_numeric_link(src: &str, span: Range<usize>, link_type: LinkType) -> bool {
    matches!(
        link_type,
        LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
    ) && src.get(span).is_some_and(|s| NUMERIC_LINK.is_match(s))
}

/// Whether a link destination points outside the report (internal anchors and relative
/// paths are navigation, not sources).
fn is_external(dest: &str) -> bool {
    let lower = dest.trim().to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("www.")
        || lower.starts_with("doi:")
        || lower.starts_with("arxiv:")
}

/// Finds every marker candidate, overlaps resolved in favour of the earliest, then longest.
pub fn find(src: &str, layout: &Layout<'_>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for (i, link) in layout.links.iter().enumerate() {
        if link.link_type == LinkType::Email
            || is_numeric_link(src, link.span.clone(), link.link_type)
            || !is_external(&link.dest)
        {
            continue;
        }
        out.push(Candidate {
            span: link.span.clone(),
            block: link.block,
            found: Found::Link(i),
        });
    }
    for f in &layout.footnote_refs {
        out.push(Candidate {
            span: f.span.clone(),
            block: f.block,
            found: Found::Footnote(f.label.clone()),
        });
    }
    for region in regions(src, layout) {
        let Some(text) = src.get(region.span.clone()) else {
            continue;
        };
        scan_region(src, text, &region, &mut out);
    }
    out.sort_by(|a, b| {
        a.span
            .start
            .cmp(&b.span.start)
            .then(b.span.end.cmp(&a.span.end))
    });
    let mut kept: Vec<Candidate> = Vec::with_capacity(out.len());
    let mut last_end = 0;
    for c in out {
        // Several author–year citations may share one parenthesis.
        let same_paren = kept.last().is_some_and(|k| {
            k.span == c.span
                && matches!(k.found, Found::AuthorYear { .. })
                && matches!(c.found, Found::AuthorYear { .. })
        });
        if c.span.start >= last_end || same_paren {
            last_end = last_end.max(c.span.end);
            kept.push(c);
        }
    }
    kept
}

fn scan_region(src: &str, text: &str, region: &Region, out: &mut Vec<Candidate>) {
    let base = region.span.start;
    let mut push = |span: Range<usize>, found: Found| {
        out.push(Candidate {
            span: base + span.start..base + span.end,
            block: region.block,
            found,
        });
    };
    for c in NUMERIC.captures_iter(text) {
        if let (Some(whole), Some(list)) = (c.get(0), c.get(1)) {
            let (numbers, bad_range) = expand_numbers(list.as_str());
            push(whole.range(), Found::Numeric { numbers, bad_range });
        }
    }
    for c in LENTICULAR.captures_iter(text) {
        if let (Some(whole), Some(n)) = (c.get(0), c.get(1))
            && let Ok(n) = n.as_str().parse()
        {
            push(
                whole.range(),
                Found::Numeric {
                    numbers: vec![n],
                    bad_range: false,
                },
            );
        }
    }
    for c in FOOTNOTE.captures_iter(text) {
        if let (Some(whole), Some(label)) = (c.get(0), c.get(1)) {
            push(whole.range(), Found::Footnote(label.as_str().to_string()));
        }
    }
    for c in LABEL_REF.captures_iter(text) {
        if let (Some(whole), Some(text), Some(label)) = (c.get(0), c.get(1), c.get(2))
            && !label.as_str().trim().bytes().all(|b| b.is_ascii_digit())
        {
            push(
                whole.range(),
                Found::LabelRef {
                    text: text.as_str().to_string(),
                    label: label.as_str().to_string(),
                },
            );
        }
    }
    for c in WIKILINK.captures_iter(text) {
        let (Some(whole), Some(target)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let raw = target.as_str().trim();
        if raw.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = raw.parse() {
                push(
                    whole.range(),
                    Found::Numeric {
                        numbers: vec![n],
                        bad_range: false,
                    },
                );
            }
            continue;
        }
        let (page, anchor) = match raw.split_once('#') {
            Some((p, a)) => (p, Some(a.replace('_', " ").trim().to_string())),
            None => (raw, None),
        };
        let display = c
            .get(2)
            .map(|d| d.as_str().trim())
            .filter(|d| !d.is_empty())
            .unwrap_or(raw)
            .to_string();
        push(
            whole.range(),
            Found::WikiLink {
                target: page.replace('_', " ").trim().to_string(),
                anchor: anchor.filter(|a| !a.is_empty()),
                display,
            },
        );
    }
    for r in urls::find_urls(text) {
        push(r, Found::Url);
    }
    for (r, doi) in ids::find_dois(text) {
        push(r, Found::Doi(doi));
    }
    for (r, id) in ids::find_arxiv(text) {
        push(r, Found::Arxiv(id));
    }
    for (r, isbn) in ids::find_isbns(text) {
        push(r, Found::Isbn(isbn));
    }
    for a in ids::find_author_years(text) {
        push(
            a.span,
            Found::AuthorYear {
                authors: a.authors,
                year: a.year,
                narrative: a.narrative,
            },
        );
    }
    // `<sup>3</sup>`: the tags are inline HTML, so only the digits are in the region.
    if let Some(c) = SUP_DIGITS.captures(text)
        && let Some(list) = c.get(1)
        && src[..region.span.start].ends_with("<sup>")
        && src[region.span.end..].starts_with("</sup>")
    {
        let (numbers, bad_range) = expand_numbers(list.as_str());
        out.push(Candidate {
            span: region.span.start - 5..region.span.end + 6,
            block: region.block,
            found: Found::Numeric { numbers, bad_range },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::markdown::layout;
    use super::*;

    fn found(src: &str) -> Vec<(String, Found)> {
        let l = layout(src);
        find(src, &l)
            .into_iter()
            .map(|c| (src[c.span].to_string(), c.found))
            .collect()
    }

    #[test]
    fn numeric_forms_expand() {
        assert_eq!(expand_numbers("3"), (vec![3], false));
        assert_eq!(expand_numbers("3, 4"), (vec![3, 4], false));
        assert_eq!(expand_numbers("3-5"), (vec![3, 4, 5], false));
        assert_eq!(expand_numbers("3–5; 8"), (vec![3, 4, 5, 8], false));
        assert_eq!(expand_numbers("9-3"), (vec![9, 3], true));
        assert_eq!(expand_numbers("1-5000"), (vec![1, 5000], true));
    }

    #[test]
    fn markers_in_prose_but_not_in_code() {
        let got = found("A [3] b [3][4] c [5–6] d `[7]` e 【8†source】.\n\n```\n[9]\n```\n");
        let texts: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(texts, ["[3]", "[3]", "[4]", "[5–6]", "【8†source】"]);
    }

    #[test]
    fn reference_link_made_of_numbers_is_numeric() {
        let got = found("Claim [3][4].\n\n[4]: https://four.example\n");
        let texts: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(texts, ["[3]", "[4]"]);
    }

    #[test]
    fn links_urls_ids_and_wikilinks() {
        let got = found(
            "See [x](https://a.example/p), https://b.example/q, [[Moon#Orbit|the Moon]], doi:10.1000/abc, arXiv:2101.00001 and ISBN 978-0-306-40615-7. Also [top](#intro).",
        );
        let kinds: Vec<&Found> = got.iter().map(|g| &g.1).collect();
        assert!(matches!(kinds[0], Found::Link(_)));
        assert_eq!(kinds[1], &Found::Url);
        assert_eq!(
            kinds[2],
            &Found::WikiLink {
                target: "Moon".into(),
                anchor: Some("Orbit".into()),
                display: "the Moon".into()
            }
        );
        assert_eq!(kinds[3], &Found::Doi("10.1000/abc".into()));
        assert_eq!(kinds[4], &Found::Arxiv("2101.00001".into()));
        assert_eq!(kinds[5], &Found::Isbn(Ok("9780306406157".into())));
        assert_eq!(got.len(), 6, "internal anchor is not a citation: {got:?}");
    }

    #[test]
    fn url_in_link_text_is_not_a_second_citation() {
        let got = found("[https://a.example](https://a.example) and [[3]](https://b.example)");
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|g| matches!(g.1, Found::Link(_))));
    }

    #[test]
    fn markers_split_by_emphasis_are_joined() {
        let got = found("**Revenue grew 5%**[2] and *fell*[^x].");
        let texts: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(texts, ["[2]", "[^x]"]);
    }

    #[test]
    fn reference_link_without_definition_is_a_label_ref() {
        let got = found("As reported [by the BBC][bbc]. And [x][3].");
        assert_eq!(got[0].0, "[by the BBC][bbc]");
        assert_eq!(
            got[0].1,
            Found::LabelRef {
                text: "by the BBC".into(),
                label: "bbc".into()
            }
        );
        // A numeric label is a numbered marker.
        assert_eq!(got[1].0, "[3]");
    }

    #[test]
    fn superscript_numbers() {
        let got = found("Claim.<sup>4</sup> Next.");
        assert_eq!(got[0].0, "<sup>4</sup>");
        assert_eq!(
            got[0].1,
            Found::Numeric {
                numbers: vec![4],
                bad_range: false
            }
        );
    }
}
