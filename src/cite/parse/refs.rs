//! Reference lists and definitions: the targets that in-text markers resolve to.
//!
//! Agent reports put their sources in many shapes — markdown footnotes, link reference
//! definitions, "Sources" sections with `[3] url - Title`, `3. Title. url` or `- [3] Title (url)`
//! lines — and often break CommonMark's rules while doing so (a definition glued to the
//! paragraph above it is paragraph text to a markdown parser). So this module reads the
//! report line by line instead of trusting the markdown tree, and only borrows the tree's
//! knowledge of where code blocks are.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{ReferenceKind, Source, ids, urls};

/// A definition or list entry found in the report.
#[derive(Debug, Clone)]
pub(crate) struct RefEntry {
    pub kind: ReferenceKind,
    /// Footnote label, link label (lowercased) or reference number; `None` for unnumbered
    /// entries of a sources list.
    pub key: Option<String>,
    /// Every line of the entry, continuation lines included.
    pub span: Range<usize>,
    /// The entry's text after its marker.
    pub body: Range<usize>,
}

/// What the line scan found.
#[derive(Debug, Default)]
pub(crate) struct RefScan {
    pub entries: Vec<RefEntry>,
    /// "Sources"/"References" sections; their text is bibliography, not claims.
    pub sections: Vec<Range<usize>>,
}

static ATX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$").expect("regex"));
static SETEXT_UNDERLINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}(?:=+|-+)[ \t]*$").expect("regex"));
static LABEL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[ \t]*(?:\*\*|__)?([\p{L} &/]{3,40}?)(?:\*\*|__)?[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*$",
    )
    .expect("regex")
});
static FOOTNOTE_DEF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}\[\^([^\]\s]{1,100})\]:[ \t]*(.*)$").expect("regex"));
static LABEL_DEF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ {0,3}\[([^\]\^\n][^\]\n]{0,99})\]:[ \t]*(.*)$").expect("regex")
});
static BRACKET_NUM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ {0,3}(?:[-*+][ \t]+)?(?:\*\*|__)?\[(\d{1,4})\](?:\*\*|__)?[.:)]?[ \t]+(.+)$")
        .expect("regex")
});
static ORDERED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ {0,3}(?:[-*+][ \t]+)?(\d{1,4})[.)][ \t]+(.+)$").expect("regex")
});
static BULLET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}[-*+][ \t]+(.+)$").expect("regex"));
static MD_LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+["'(]([^"')]*)["')])?\s*\)"#).expect("regex")
});
static ANGLE_URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<((?:https?://|www\.)[^>\s]+)>").expect("regex"));
static QUOTED_TITLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^\s*(?:"([^"]*)"|'([^']*)'|\(([^)]*)\))\s*$"#).expect("regex"));
static LEADING_AUTHOR_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*([^()\n]{2,150}?),?\s*\(((?:1[5-9]|20)\d\d)[a-z]?\)").expect("regex")
});

/// Normalises a link label the way CommonMark matches them: case-insensitively with
/// collapsed whitespace.
pub(crate) fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// How surely a heading names a bibliography.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TitleKind {
    /// The whole title is a bibliography name (`References`, `参考文献`, `Literatur`).
    Exact,
    /// A short title holding such a word (`Sources of Funding`, `Key sources`): a
    /// bibliography only if its entries look like references.
    Keyword,
}

/// Bibliography headings, lowercased, in the languages agents write reports in.
const EXACT_TITLES: &[&str] = &[
    "works cited",
    "further reading",
    "reference list",
    "literature",
    "sources",
    "source",
    "references",
    "reference",
    "bibliography",
    "citations",
    "sources cited",
    "references and sources",
    "sources and references",
    // Chinese, Japanese, Korean.
    "参考文献",
    "参考资料",
    "參考資料",
    "参考来源",
    "资料来源",
    "資料來源",
    "来源",
    "來源",
    "引用文献",
    "出典",
    "出處",
    "출처",
    "참고 문헌",
    "참고문헌",
    "참고 자료",
    // European languages.
    "références",
    "bibliographie",
    "sources et références",
    "literatur",
    "literaturverzeichnis",
    "quellen",
    "quellenverzeichnis",
    "einzelnachweise",
    "источники",
    "литература",
    "список литературы",
    "ссылки",
    "fuentes",
    "referencias",
    "bibliografía",
    "bibliografia",
    "fonti",
    "riferimenti",
    "riferimenti bibliografici",
    "referências",
    "fontes",
    "bronnen",
    "literatuur",
    "kaynaklar",
    "kaynakça",
    "źródła",
    "przypisy",
    "bibliografie",
    "zdroje",
    "källor",
    "kilder",
    "lähteet",
];

/// Whether a heading names a bibliography, and how surely. "Notes" is deliberately absent:
/// agent reports use it for prose that itself carries citations.
pub(crate) fn references_title(title: &str) -> Option<TitleKind> {
    let cleaned: String = title
        .chars()
        .flat_map(|c| {
            let keep = c.is_alphabetic();
            c.to_lowercase().map(move |l| if keep { l } else { ' ' })
        })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let joined = words.join(" ");
    const KEYWORDS: &[&str] = &[
        "sources",
        "source",
        "references",
        "bibliography",
        "citations",
    ];
    if EXACT_TITLES.contains(&joined.as_str()) {
        Some(TitleKind::Exact)
    } else if words.len() <= 3 && words.iter().any(|w| KEYWORDS.contains(w)) {
        Some(TitleKind::Keyword)
    } else {
        None
    }
}

/// A line that is only a bibliography name, bare or styled (`References`, `参考文献：`,
/// `**Fuentes**`): a heading for the lines below it.
fn bare_title(text: &str) -> Option<&str> {
    let t = text
        .trim()
        .trim_matches(|c| c == '*' || c == '_')
        .trim_end_matches([':', '：'])
        .trim_matches(|c| c == '*' || c == '_')
        .trim();
    (!t.is_empty() && t.len() <= 60 && references_title(t) == Some(TitleKind::Exact)).then_some(t)
}

/// Whether an entry body reads as a bibliographic reference: an identifier, or an
/// author–title–year shape (a year and a period-separated title or publisher).
pub(crate) fn looks_like_reference(body: &str) -> bool {
    static YEAR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^\d])(1[5-9]\d\d|20\d\d)(?:[^\d]|$)").expect("regex"));
    has_identifier(body)
        || (YEAR.is_match(body)
            && (body.matches(['.', '。', ',', '，']).count() >= 2
                || body.contains(['《', '“', '"'])))
}

struct Line {
    start: usize,
    end: usize,
}

fn lines(src: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', src.as_bytes()).chain(std::iter::once(src.len())) {
        if nl < start {
            continue;
        }
        let end = if nl > start && src.as_bytes()[nl - 1] == b'\r' {
            nl - 1
        } else {
            nl
        };
        out.push(Line { start, end });
        start = nl + 1;
    }
    out
}

/// Whether `pos` lies in one of the sorted, disjoint `ranges`.
pub(crate) fn in_ranges(ranges: &[Range<usize>], pos: usize) -> bool {
    let i = ranges.partition_point(|r| r.end <= pos);
    ranges.get(i).is_some_and(|r| r.start <= pos)
}

/// Level of a heading line (7 for a bold "Sources:" label line), with its text.
fn heading(src: &str, lines: &[Line], i: usize) -> Option<(u8, String)> {
    let text = &src[lines[i].start..lines[i].end];
    if let Some(c) = ATX.captures(text) {
        let level = c.get(1).map_or(1, |m| m.len()) as u8;
        return Some((level, c.get(2).map_or("", |m| m.as_str()).to_string()));
    }
    if let Some(next) = lines.get(i + 1) {
        let under = &src[next.start..next.end];
        if !text.trim().is_empty() && SETEXT_UNDERLINE.is_match(under) && !BULLET.is_match(text) {
            let level = if under.trim_start().starts_with('=') {
                1
            } else {
                2
            };
            return Some((level, text.trim().to_string()));
        }
    }
    None
}

fn label_line(text: &str) -> Option<&str> {
    let c = LABEL_LINE.captures(text)?;
    let t = c.get(1)?.as_str();
    // A bare word line counts only if it is styled as a label (bold or with a colon).
    let styled = text.contains("**") || text.contains("__") || text.trim_end().ends_with(':');
    styled.then_some(t)
}

/// Whether an entry body names a source the auditor can follow.
pub(crate) fn has_identifier(body: &str) -> bool {
    !urls::find_urls(body).is_empty()
        || !ids::find_dois(body).is_empty()
        || !ids::find_arxiv(body).is_empty()
        || ids::find_isbns(body).iter().any(|(_, r)| r.is_ok())
}

/// Scans the report for reference entries; `code` holds the byte ranges of code blocks and
/// spans, sorted, whose lines are never entries.
pub fn scan(src: &str, code: &[Range<usize>]) -> RefScan {
    let lines = lines(src);
    let mut scan = RefScan::default();
    // Current references section: (start, level, how surely, its first entry).
    let mut section: Option<(usize, u8, TitleKind, usize)> = None;
    let mut ordered_run: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let text = &src[line.start..line.end];
        if in_ranges(code, line.start) {
            i += 1;
            continue;
        }
        let head = heading(src, &lines, i)
            .or_else(|| label_line(text).map(|t| (7, t.to_string())))
            .or_else(|| bare_title(text).map(|t| (7, t.to_string())));
        if let Some((level, title)) = head {
            // A bibliography title ends a section only named like one (`Sources of
            // Funding` … `Références`), whatever the two headings' levels.
            let closes = section.is_some_and(|(_, l, kind, _)| {
                level <= l
                    || (l == 7 && level == 7)
                    || (kind == TitleKind::Keyword
                        && references_title(&title) == Some(TitleKind::Exact))
            });
            if closes && let Some((start, _, kind, first)) = section.take() {
                renumber_lazy(&mut scan.entries, &mut ordered_run);
                close_section(&mut scan, src, start..line.start, kind, first);
            }
            if section.is_none()
                && let Some(kind) = references_title(&title)
            {
                section = Some((line.start, level, kind, scan.entries.len()));
            }
            i += 1;
            continue;
        }
        let in_section = section.is_some();
        let entry = match_entry(text, in_section);
        let Some((kind, key, body_start)) = entry else {
            if in_section && !text.trim().is_empty() && has_identifier(text) {
                let body_start = text.len() - text.trim_start().len();
                push_entry(
                    &mut scan,
                    src,
                    &lines,
                    &mut i,
                    ReferenceKind::Listed,
                    None,
                    body_start,
                );
                continue;
            }
            i += 1;
            continue;
        };
        if kind == ReferenceKind::Numbered && ORDERED.is_match(text) && !BRACKET_NUM.is_match(text)
        {
            ordered_run.push(scan.entries.len());
        }
        push_entry(&mut scan, src, &lines, &mut i, kind, key, body_start);
    }
    renumber_lazy(&mut scan.entries, &mut ordered_run);
    if let Some((start, _, kind, first)) = section {
        close_section(&mut scan, src, start..src.len(), kind, first);
    }
    scan
}

/// Ends a references section. One named only by a keyword (`## Sources of Funding`) is a
/// bibliography only if some entry reads as a reference; otherwise its numbered lines are
/// prose, not sources, and are dropped again.
fn close_section(
    scan: &mut RefScan,
    src: &str,
    range: Range<usize>,
    kind: TitleKind,
    first: usize,
) {
    let entries = &scan.entries[first.min(scan.entries.len())..];
    let bibliographic = kind == TitleKind::Exact
        || entries
            .iter()
            .any(|e| looks_like_reference(src.get(e.body.clone()).unwrap_or("")));
    if bibliographic {
        scan.sections.push(range);
    } else {
        scan.entries.retain(|e| {
            !(e.span.start >= range.start && e.span.end <= range.end)
                || e.kind == ReferenceKind::Footnote
                || e.kind == ReferenceKind::LinkDefinition
        });
    }
}

/// Classifies one line; returns the entry kind, its key and where its body starts.
fn match_entry(text: &str, in_section: bool) -> Option<(ReferenceKind, Option<String>, usize)> {
    let grab = |re: &Regex| re.captures(text).and_then(|c| Some((c.get(1)?, c.get(2)?)));
    if let Some((label, body)) = grab(&FOOTNOTE_DEF) {
        return Some((
            ReferenceKind::Footnote,
            Some(label.as_str().to_string()),
            body.start(),
        ));
    }
    if let Some((label, body)) = grab(&LABEL_DEF) {
        let key = normalize_label(label.as_str());
        let kind = if key.bytes().all(|b| b.is_ascii_digit()) {
            ReferenceKind::Numbered
        } else {
            ReferenceKind::LinkDefinition
        };
        let key = trim_number(&key);
        return Some((kind, Some(key), body.start()));
    }
    if let Some((num, body)) = grab(&BRACKET_NUM)
        && (in_section || has_identifier(body.as_str()))
    {
        return Some((
            ReferenceKind::Numbered,
            Some(trim_number(num.as_str())),
            body.start(),
        ));
    }
    if !in_section {
        return None;
    }
    if let Some((num, body)) = grab(&ORDERED) {
        return Some((
            ReferenceKind::Numbered,
            Some(trim_number(num.as_str())),
            body.start(),
        ));
    }
    if let Some(c) = BULLET.captures(text)
        && let Some(body) = c.get(1)
    {
        return Some((ReferenceKind::Listed, None, body.start()));
    }
    None
}

/// "007" and "7" are the same reference number.
fn trim_number(s: &str) -> String {
    match s.parse::<u32>() {
        Ok(n) => n.to_string(),
        Err(_) => s.to_string(),
    }
}

/// Adds the entry starting at line `*i`, swallowing its indented continuation lines, and
/// advances `*i` past them.
fn push_entry(
    scan: &mut RefScan,
    src: &str,
    lines: &[Line],
    i: &mut usize,
    kind: ReferenceKind,
    key: Option<String>,
    body_start: usize,
) {
    let first = &lines[*i];
    let mut end = first.end;
    let mut j = *i + 1;
    while j < lines.len() {
        let t = &src[lines[j].start..lines[j].end];
        let indented = t.starts_with("  ") || t.starts_with('\t');
        if !t.trim().is_empty()
            && indented
            && match_entry(t, true).is_none_or(|_| t.starts_with("    "))
        {
            end = lines[j].end;
            j += 1;
            continue;
        }
        // Footnotes may hold further paragraphs, indented four spaces after a blank line.
        let blank = t.trim().is_empty();
        let next_indented = lines.get(j + 1).is_some_and(|n| {
            src[n.start..n.end].starts_with("    ") && !src[n.start..n.end].trim().is_empty()
        });
        if kind == ReferenceKind::Footnote && blank && next_indented {
            j += 1;
            continue;
        }
        break;
    }
    scan.entries.push(RefEntry {
        kind,
        key,
        span: first.start..end,
        body: first.start + body_start..end,
    });
    *i = j;
}

/// Markdown renumbers `1. … 1. … 1.` lists; honour that when every entry of a sources list
/// carries the same number.
fn renumber_lazy(entries: &mut [RefEntry], run: &mut Vec<usize>) {
    let keys: Vec<Option<u32>> = run
        .iter()
        .map(|&i| entries[i].key.as_deref().and_then(|k| k.parse().ok()))
        .collect();
    if run.len() >= 2 && keys.windows(2).all(|w| w[0] == w[1]) {
        let first = keys[0].unwrap_or(1);
        for (n, &i) in run.iter().enumerate() {
            entries[i].key = Some((first + n as u32).to_string());
        }
    }
    run.clear();
}

/// What an entry body says: its cleaned text, title and source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Described {
    pub text: String,
    pub title: Option<String>,
    pub source: Source,
    /// The URL the source was read from, when the source is not the URL itself.
    pub url: Option<String>,
}

/// Reads the source out of an entry body, preferring the identifier an auditor can resolve
/// most reliably: a Wikipedia page, then DOI, arXiv, ISBN, then the URL itself.
pub fn describe(body: &str) -> Described {
    let text = collapse(body);
    let mut url: Option<(Range<usize>, String)> = None;
    let mut link_text: Option<String> = None;
    let mut def_title: Option<String> = None;
    if let Some(c) = MD_LINK.captures(body)
        && let (Some(whole), Some(dest)) = (c.get(0), c.get(2))
    {
        url = Some((whole.range(), dest.as_str().to_string()));
        link_text = c.get(1).map(|m| m.as_str().trim().to_string());
        def_title = c.get(3).map(|m| m.as_str().to_string());
    } else if let Some(c) = ANGLE_URL.captures(body)
        && let (Some(whole), Some(u)) = (c.get(0), c.get(1))
    {
        url = Some((whole.range(), u.as_str().to_string()));
    } else if let Some(r) = urls::find_urls(body).into_iter().next() {
        url = Some((r.clone(), body[r].to_string()));
    }
    let url_source = url.as_ref().map(|(_, u)| urls::classify_url(u));
    let dois = ids::find_dois(body);
    let arxiv = ids::find_arxiv(body);
    let isbn = ids::find_isbns(body)
        .into_iter()
        .find_map(|(r, v)| v.ok().map(|v| (r, v)));
    let source = match url_source {
        Some(
            s @ (Source::Wikipedia { .. } | Source::Doi(_) | Source::Arxiv(_) | Source::Isbn(_)),
        ) => s,
        other => {
            if let Some((_, d)) = dois.first() {
                Source::Doi(d.clone())
            } else if let Some((_, a)) = arxiv.first() {
                Source::Arxiv(a.clone())
            } else if let Some((_, i)) = &isbn {
                Source::Isbn(i.clone())
            } else if let Some(s) = other {
                s
            } else if let Some(c) = LEADING_AUTHOR_YEAR.captures(body)
                && let (Some(a), Some(y)) = (c.get(1), c.get(2))
                && let Ok(year) = y.as_str().parse()
            {
                Source::AuthorYear {
                    authors: a.as_str().trim().trim_end_matches(',').to_string(),
                    year,
                }
            } else if text.is_empty() {
                Source::Unresolved
            } else {
                Source::Bibliographic { text: text.clone() }
            }
        }
    };
    // Title: the link text, a definition's quoted title, or what is left of the body once
    // the URL is taken out.
    let mut title = link_text
        .filter(|t| !t.is_empty() && urls::find_urls(t).is_empty() && t.parse::<u64>().is_err());
    if title.is_none() {
        title = def_title;
    }
    if title.is_none() {
        let rest = match &url {
            Some((r, _)) => format!("{} {}", &body[..r.start], &body[r.end..]),
            None => body.to_string(),
        };
        if let Some(c) = QUOTED_TITLE.captures(&rest) {
            title = c
                .iter()
                .skip(1)
                .flatten()
                .next()
                .map(|m| m.as_str().to_string());
        } else if url.is_some() {
            title = Some(clean_title(&rest));
        }
    }
    let url = url
        .map(|(_, u)| urls::strip_tracking(&u))
        .filter(|_| matches!(source, Source::Doi(_) | Source::Arxiv(_) | Source::Isbn(_)));
    Described {
        text,
        title: title.map(|t| clean_title(&t)).filter(|t| !t.is_empty()),
        source,
        url,
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn clean_title(s: &str) -> String {
    let mut s: String = collapse(s)
        .chars()
        .filter(|c| !matches!(c, '*' | '`'))
        .collect();
    for empty in ["( )", "()", "< >", "<>", "[ ]", "[]"] {
        s = s.replace(empty, "");
    }
    let s = collapse(&s);
    let is_sep = |c: char| {
        c.is_whitespace() || matches!(c, '-' | '–' | '—' | ':' | '|' | ',' | ';' | '.' | '_')
    };
    // Brackets go only when they no longer pair up ("Title (AIMS)" keeps its own); counts
    // are kept incrementally so trimming stays linear.
    let (mut open, mut close) = (s.matches('(').count(), s.matches(')').count());
    let mut t = s.as_str();
    loop {
        let before = t.len();
        t = t.trim_matches(is_sep);
        if t.ends_with(')') && close > open {
            t = &t[..t.len() - 1];
            close -= 1;
        }
        if t.starts_with('(') && open > close {
            t = &t[1..];
            open -= 1;
        }
        if t.len() == before {
            return t.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(src: &str) -> Vec<(ReferenceKind, Option<String>, String)> {
        scan(src, &[])
            .entries
            .into_iter()
            .map(|e| (e.kind, e.key, src[e.body].to_string()))
            .collect()
    }

    #[test]
    fn numbered_list_variants_in_a_sources_section() {
        let src = "Body [1].\n\n## Sources\n\n[1] https://a.example/x - Alpha\n2. Beta. https://b.example\n[3]: https://c.example \"Gamma\"\n- [4] Delta (https://d.example)\n- https://e.example\n";
        let got = keys(src);
        let k: Vec<Option<&str>> = got.iter().map(|g| g.1.as_deref()).collect();
        assert_eq!(k, [Some("1"), Some("2"), Some("3"), Some("4"), None]);
        let titles: Vec<Option<String>> = got.iter().map(|g| describe(&g.2).title).collect();
        assert_eq!(
            titles,
            [
                Some("Alpha".into()),
                Some("Beta".into()),
                Some("Gamma".into()),
                Some("Delta".into()),
                None
            ]
        );
        assert_eq!(scan(src, &[]).sections.len(), 1);
    }

    #[test]
    fn ordered_lines_outside_a_sources_section_are_prose() {
        assert!(keys("Steps:\n\n1. Do this https://x.example\n2. Then that\n").is_empty());
    }

    #[test]
    fn bracket_entries_anywhere_need_an_identifier() {
        let got =
            keys("Intro.\n\n[2] https://x.example/p Title\n\n[3] Some sentence starting oddly.\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].1.as_deref(), Some("2"));
    }

    #[test]
    fn footnote_definitions_glued_and_continued() {
        let src = "Claim.[^a]\n[^a]: First line\n  continued https://x.example\n\nNext para.\n";
        let got = keys(src);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].0, ReferenceKind::Footnote);
        assert_eq!(got[0].2, "First line\n  continued https://x.example");
    }

    #[test]
    fn lazy_numbering_is_renumbered() {
        let got = keys(
            "# References\n1. A https://a.example\n1. B https://b.example\n1. C https://c.example\n",
        );
        let k: Vec<Option<&str>> = got.iter().map(|g| g.1.as_deref()).collect();
        assert_eq!(k, [Some("1"), Some("2"), Some("3")]);
    }

    #[test]
    fn section_ends_at_next_heading_of_same_level() {
        let src =
            "## References\n- https://a.example\n## Appendix\n1. Not a ref https://b.example\n";
        let s = scan(src, &[]);
        assert_eq!(s.entries.len(), 1);
        assert_eq!(
            &src[s.sections[0].clone()],
            "## References\n- https://a.example\n"
        );
    }

    #[test]
    fn bold_label_line_opens_a_section() {
        let got = keys("Text.\n\n**Sources:**\n1. A https://a.example\n");
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn describe_prefers_identifiers() {
        let d = describe(
            "Smith J. (2020). Deep things. Nature. https://www.nature.com/articles/x doi:10.1038/x1",
        );
        assert_eq!(d.source, Source::Doi("10.1038/x1".into()));
        let d = describe("Smith, J. (2020). Deep things. Nature 5, 1–9.");
        assert_eq!(
            d.source,
            Source::AuthorYear {
                authors: "Smith, J.".into(),
                year: 2020
            }
        );
        let d = describe("[Moon – Wikipedia](https://en.wikipedia.org/wiki/Moon)");
        assert!(matches!(d.source, Source::Wikipedia { .. }));
        assert_eq!(d.title.as_deref(), Some("Moon – Wikipedia"));
        let d = describe("Some report without identifiers");
        assert!(matches!(d.source, Source::Bibliographic { .. }));
        assert_eq!(describe("   ").source, Source::Unresolved);
    }

    #[test]
    fn references_titles() {
        for t in [
            "Sources",
            "**References**",
            "📚 Sources cited",
            "Works Cited",
            "参考文献",
            "Références",
            "Literatur",
            "Источники",
            "Fuentes",
            "Bibliografia",
            "출처",
        ] {
            assert_eq!(references_title(t), Some(TitleKind::Exact), "{t}");
        }
        for t in ["Key sources:", "Sources of Funding"] {
            assert_eq!(references_title(t), Some(TitleKind::Keyword), "{t}");
        }
        for t in [
            "Notes",
            "Methodology",
            "Where the sources of growth are found",
        ] {
            assert_eq!(references_title(t), None, "{t}");
        }
        assert_eq!(bare_title("参考文献："), Some("参考文献"));
        assert_eq!(bare_title("References"), Some("References"));
        assert_eq!(bare_title("The references were checked"), None);
    }

    #[test]
    fn entries_that_read_as_references() {
        assert!(looks_like_reference(
            "Santamouris, M. Cooling the cities. Solar Energy 103 (2014)."
        ));
        assert!(looks_like_reference(
            "国家统计局. 2023年人口变动情况抽样调查主要数据公报. 2024."
        ));
        assert!(looks_like_reference("see https://example.org"));
        assert!(!looks_like_reference(
            "The study was funded by the city council [3]."
        ));
        assert!(!looks_like_reference(
            "Additional support came from a university grant."
        ));
    }
}
