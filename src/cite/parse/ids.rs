//! Scholarly identifiers (DOI, arXiv, ISBN) and author–year citations in running text.
//!
//! These are citations that carry no URL but still name a source precisely enough to be
//! audited; each finder returns byte spans into the text it was given so the caller can map
//! them back to the report.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

static DOI_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:\bdoi:\s*|\bdoi\.org/)?\b(10\.\d{4,9}/[^\s"<>\[\]{}|\\^`]+)"#)
        .expect("valid DOI regex")
});
static DOI_EXACT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^10\.\d{4,9}/\S+$").expect("valid DOI regex"));
static ARXIV_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\barxiv:\s*((?:\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?)\b")
        .expect("valid arXiv regex")
});
static ARXIV_EXACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\d{4}\.\d{4,5}|(?i:[a-z][a-z.\-]*)/\d{7})(?:v\d+)?$").expect("valid regex")
});
static ISBN_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bISBN(?:-?1[03])?(?::\s*|\s+)([0-9][0-9 \-]{8,16}[0-9X])\b")
        .expect("valid ISBN regex")
});

/// Trims punctuation that ends a sentence rather than an identifier; a closing bracket is
/// kept when it balances an opening one inside the identifier (`10.1002/(SICI)…`, URLs of
/// Wikipedia titles such as `C_(programming_language)`).
pub(crate) fn trim_trailing_punct(s: &str) -> &str {
    // Bracket balance is tracked incrementally so a string ending in many brackets is
    // still trimmed in linear time.
    let (mut open_p, mut close_p) = (s.matches('(').count(), s.matches(')').count());
    let (mut open_b, mut close_b) = (s.matches('[').count(), s.matches(']').count());
    let mut end = s.len();
    while let Some(c) = s[..end].chars().next_back() {
        let drop = match c {
            '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"' | '*' | '_' | '>' | '’' | '”' => {
                true
            }
            ')' => open_p < close_p,
            ']' => open_b < close_b,
            _ => false,
        };
        if !drop {
            break;
        }
        match c {
            ')' => close_p -= 1,
            ']' => close_b -= 1,
            '(' => open_p -= 1,
            '[' => open_b -= 1,
            _ => {}
        }
        end -= c.len_utf8();
    }
    &s[..end]
}

/// DOIs are case-insensitive; lowercasing makes two spellings of one DOI compare equal.
/// What a publisher's URL appends to a DOI is removed (see [`doi_in_url`]).
pub(crate) fn normalize_doi(s: &str) -> Option<String> {
    let s = doi_in_url(trim_trailing_punct(s.trim()));
    DOI_EXACT.is_match(s).then(|| s.to_lowercase())
}

/// Path suffixes publishers put after a DOI in their URLs (the page's view, not the work):
/// Frontiers `/full`, Wiley `/abstract` and `/epdf`, IOP `/pdf`, De Gruyter `/html`,
/// bioRxiv `v1.full.pdf`, Springer `/fulltext.html`.
const URL_SUFFIXES: &[&str] = &[
    "/full",
    "/abstract",
    "/abs",
    "/pdf",
    "/epdf",
    "/epub",
    "/html",
    "/fulltext.html",
    "/fulltext",
    "/full-text",
    "/meta",
    "/references",
    "/figures",
    "/tables",
    "/summary",
    "/download",
    "/view",
    "/reader",
    "/pdfft",
    "/supplemental",
    "/citedby",
    "/metrics",
    "/",
    ".full.pdf",
    ".full-text",
    ".full",
    ".abstract",
    ".short",
    ".pdf",
    ".html",
    ".long",
];

/// The DOI in a DOI as taken from a publisher's URL: no query string or fragment
/// (`?url_ver=…&rfr_id=…`, `#sec-1`), no view suffix (`/full`, `/pdf`, `v1.full`).
pub(crate) fn doi_in_url(s: &str) -> &str {
    let mut d = s;
    if let Some(q) = d.find(['?', '#']) {
        d = &d[..q];
    }
    let lower = d.to_ascii_lowercase();
    let mut end = d.len();
    loop {
        let l = &lower[..end];
        match URL_SUFFIXES
            .iter()
            .find(|x| l.ends_with(*x) && l.len() > x.len() + 8)
        {
            Some(x) => end -= x.len(),
            None => break,
        }
    }
    let mut d = &d[..end];
    // bioRxiv and medRxiv (10.1101) add a version to the DOI in their URLs.
    if d.starts_with("10.1101/") {
        let digits = d.bytes().rev().take_while(u8::is_ascii_digit).count();
        if digits > 0 && d[..d.len() - digits].ends_with('v') {
            d = &d[..d.len() - digits - 1];
        }
    }
    d
}

/// Validates an arXiv identifier (new `2101.00001v2` or old `hep-th/9901001` style).
pub(crate) fn arxiv_id(s: &str) -> Option<String> {
    let s = trim_trailing_punct(s.trim());
    ARXIV_EXACT.is_match(s).then(|| s.to_string())
}

/// Returns the ISBN without separators when its check digit is right. A wrong checksum means
/// a typo or an invented number — exactly what an audit must flag rather than look up.
pub(crate) fn validate_isbn(s: &str) -> Option<String> {
    let digits: String = s
        .chars()
        .filter(|c| !matches!(c, '-' | ' ' | '\u{2010}' | '\u{2011}'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let values: Vec<u32> = digits
        .chars()
        .enumerate()
        .map(|(i, c)| match c {
            '0'..='9' => Some(c as u32 - '0' as u32),
            'X' if i == 9 && digits.len() == 10 => Some(10),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let ok = match values.len() {
        10 => {
            values
                .iter()
                .enumerate()
                .map(|(i, v)| (10 - i as u32) * v)
                .sum::<u32>()
                % 11
                == 0
        }
        13 => {
            (digits.starts_with("978") || digits.starts_with("979"))
                && values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if i % 2 == 0 { *v } else { 3 * v })
                    .sum::<u32>()
                    % 10
                    == 0
        }
        _ => false,
    };
    ok.then_some(digits)
}

/// A DOI found in running text.
pub(crate) fn find_dois(text: &str) -> Vec<(Range<usize>, String)> {
    DOI_IN_TEXT
        .captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let id = c.get(1)?;
            let trimmed = trim_trailing_punct(id.as_str());
            let doi = normalize_doi(trimmed)?;
            Some((whole.start()..id.start() + trimmed.len(), doi))
        })
        .collect()
}

/// An `arXiv:` identifier in running text (bare ids without the prefix look like numbers).
pub(crate) fn find_arxiv(text: &str) -> Vec<(Range<usize>, String)> {
    ARXIV_IN_TEXT
        .captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let id = arxiv_id(c.get(1)?.as_str())?;
            Some((whole.range(), id))
        })
        .collect()
}

/// `ISBN …` mentions; `Err` carries the digits of one whose checksum fails.
pub(crate) fn find_isbns(text: &str) -> Vec<(Range<usize>, Result<String, String>)> {
    ISBN_IN_TEXT
        .captures_iter(text)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let raw = c.get(1)?.as_str().trim();
            Some((
                whole.range(),
                validate_isbn(raw).ok_or_else(|| raw.to_string()),
            ))
        })
        .collect()
}

/// An author–year citation: `(Smith et al., 2022)` or narrative `Smith and Jones (2020)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorYear {
    pub span: Range<usize>,
    pub authors: String,
    pub year: u16,
    /// Narrative citations keep their text in the claim: the author is part of the sentence.
    pub narrative: bool,
}

const NAME: &str = r"(?:(?:van|von|de|der|den|del|della|da|di|du|le|la|al|el|bin|ibn|dos|das)\s+)*\p{Lu}[\p{L}\p{M}'’\-]+";

fn authors_pattern() -> String {
    let group = format!(r"{NAME}(?:\s+{NAME}){{0,2}}");
    format!(r"{group}(?:\s+et\s+al\.?|(?:,\s*{group})*,?\s+(?:and|&)\s+{group})?")
}

static PAREN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\(([^()\n]{3,300})\)").expect("valid regex"));
static PAREN_PART: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^\s*(?:(?:see also|see|e\.g\.,?|cf\.|also)\s+)?({}),?\s+((?:1[5-9]|20)\d\d)[a-z]?(?:,\s*(?:pp?\.)\s*\d+(?:[-–]\d+)?)?\s*$",
        authors_pattern()
    ))
    .expect("valid regex")
});
static NARRATIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"({})\s+\(((?:1[5-9]|20)\d\d)[a-z]?\)",
        authors_pattern()
    ))
    .expect("valid regex")
});
/// Verbs that make a bare `Name (Year)` a citation rather than, say, a film and its year:
/// in academic prose the cited author is the subject of a reporting verb.
static REPORTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(?:\w+\s+){0,2}(?:found|find|finds|show|shows|showed|shown|report|reports|reported|argue|argues|argued|note|notes|noted|suggest|suggests|suggested|estimate|estimates|estimated|conclude|concludes|concluded|demonstrate|demonstrates|demonstrated|observe|observes|observed|propose|proposes|proposed|describe|describes|described|claim|claims|claimed|write|writes|wrote|state|states|stated|introduce|introduces|introduced|define|defines|defined|identify|identifies|identified|analy[sz]ed|examined|measured|documented|predicted|recorded)\b")
        .expect("valid regex")
});
static CITING_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:according\s+to|as\s+(?:shown|reported|noted|argued|described)\s+by|\bby|\bsee|\bcf\.|\bper)\s*$")
        .expect("valid regex")
});

/// Capitalised words that open a sentence or name a date, never an author.
fn is_non_author_word(w: &str) -> bool {
    const WORDS: &[&str] = &[
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "in",
        "the",
        "as",
        "according",
        "see",
        "by",
        "from",
        "for",
        "and",
        "but",
        "while",
        "when",
        "per",
        "since",
        "until",
        "before",
        "after",
        "circa",
        "est",
        "founded",
        "released",
        "updated",
        "accessed",
        "retrieved",
        "published",
        "launched",
        "fy",
        "q1",
        "q2",
        "q3",
        "q4",
        "during",
        "between",
        "on",
        "at",
        "of",
        "its",
        "this",
        "that",
        "these",
        "a",
        "an",
    ];
    WORDS.contains(&w.to_lowercase().trim_end_matches('.'))
}

/// Drops sentence-opening words (`In Smith (2021)`) and rejects date-like "authors".
fn clean_authors(raw: &str) -> Option<String> {
    let words: Vec<&str> = raw.split_whitespace().collect();
    let first_name = words.iter().position(|w| !is_non_author_word(w))?;
    let kept = &words[first_name..];
    let month_like = kept
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .any(|w| is_non_author_word(w));
    if month_like || kept.is_empty() {
        return None;
    }
    Some(kept.join(" "))
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

/// Finds author–year citations; see [`AuthorYear`].
pub(crate) fn find_author_years(text: &str) -> Vec<AuthorYear> {
    let mut out = Vec::new();
    for c in PAREN.captures_iter(text) {
        let (Some(whole), Some(inner)) = (c.get(0), c.get(1)) else {
            continue;
        };
        for part in inner.as_str().split(';') {
            let Some(p) = PAREN_PART.captures(part) else {
                continue;
            };
            let (Some(a), Some(y)) = (p.get(1), p.get(2)) else {
                continue;
            };
            if let (Some(authors), Ok(year)) = (clean_authors(a.as_str()), y.as_str().parse()) {
                out.push(AuthorYear {
                    span: whole.range(),
                    authors,
                    year,
                    narrative: false,
                });
            }
        }
    }
    for c in NARRATIVE.captures_iter(text) {
        let (Some(whole), Some(a), Some(y)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        let Some(authors) = clean_authors(a.as_str()) else {
            continue;
        };
        let several =
            authors.contains(" et al") || authors.contains(" and ") || authors.contains('&');
        let single_word = !authors.contains(char::is_whitespace);
        // Only the few words around the citation decide whether it is one.
        let context = || {
            let after = &text[whole.end()..floor_boundary(text, whole.end() + 80)];
            let before =
                &text[ceil_boundary(text, whole.start().saturating_sub(40))..whole.start()];
            REPORTING.is_match(after) || CITING_LEAD.is_match(before)
        };
        if !(several || (single_word && context())) {
            continue;
        }
        let Ok(year) = y.as_str().parse() else {
            continue;
        };
        // Span starts at the cleaned author list, not at a dropped "In".
        let offset = a
            .as_str()
            .find(authors.split(' ').next().unwrap_or(""))
            .unwrap_or(0);
        out.push(AuthorYear {
            span: a.start() + offset..whole.end(),
            authors,
            year,
            narrative: true,
        });
    }
    out.sort_by_key(|a| a.span.start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isbn_checksums() {
        assert_eq!(
            validate_isbn("978-0-306-40615-7").as_deref(),
            Some("9780306406157")
        );
        assert_eq!(
            validate_isbn("0-306-40615-2").as_deref(),
            Some("0306406152")
        );
        assert_eq!(
            validate_isbn("0-8044-2957-X").as_deref(),
            Some("080442957X")
        );
        assert_eq!(validate_isbn("978-0-306-40615-8"), None);
        assert_eq!(validate_isbn("0-306-40615-3"), None);
        assert_eq!(validate_isbn("X-306-40615-2"), None);
        assert_eq!(validate_isbn("123"), None);
    }

    #[test]
    fn isbn_in_text_reports_bad_checksums() {
        let found = find_isbns("See ISBN 978-0-306-40615-7 and ISBN-10: 0-306-40615-3.");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].1, Ok("9780306406157".to_string()));
        assert_eq!(found[1].1, Err("0-306-40615-3".to_string()));
    }

    #[test]
    fn dois_in_text_lose_sentence_punctuation() {
        let text = "as shown (doi:10.1038/nature14539). Also 10.1002/(SICI)1097-0258(19980815)17:15<1661::AID-SIM968>3.0.CO;2-2 here";
        let found = find_dois(text);
        assert_eq!(found[0].1, "10.1038/nature14539");
        assert_eq!(&text[found[0].0.clone()], "doi:10.1038/nature14539");
        assert!(
            found[1]
                .1
                .starts_with("10.1002/(sici)1097-0258(19980815)17:15")
        );
        assert!(find_dois("grew 10.5/yr and 10.12/x").is_empty());
    }

    #[test]
    fn arxiv_ids() {
        let found = find_arxiv("see arXiv:2101.00001v2, and arXiv: hep-th/9901001.");
        let ids: Vec<&str> = found.iter().map(|f| f.1.as_str()).collect();
        assert_eq!(ids, ["2101.00001v2", "hep-th/9901001"]);
        assert_eq!(arxiv_id("21.1"), None);
    }

    #[test]
    fn parenthetical_author_year() {
        let f = find_author_years("Yields rose (Smith et al., 2022; Jones & Lee 2019, p. 4).");
        let got: Vec<(&str, u16)> = f.iter().map(|a| (a.authors.as_str(), a.year)).collect();
        assert_eq!(got, [("Smith et al.", 2022), ("Jones & Lee", 2019)]);
        assert!(f.iter().all(|a| !a.narrative));
        let f = find_author_years("(Smith and Jones 2020)");
        assert_eq!(f[0].authors, "Smith and Jones");
        let f = find_author_years("(World Health Organization, 2021)");
        assert_eq!(f[0].authors, "World Health Organization");
    }

    #[test]
    fn dates_in_parentheses_are_not_citations() {
        assert!(find_author_years("It opened (January 2020) downtown.").is_empty());
        assert!(find_author_years("It opened (in 2020) and (Summer 2019).").is_empty());
    }

    #[test]
    fn narrative_author_year_needs_citing_context() {
        let f = find_author_years("In Smith (2021) showed that it works.");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].authors, "Smith");
        assert!(f[0].narrative);
        assert!(find_author_years("The film Titanic (1997) grossed $2 billion.").is_empty());
        let f = find_author_years("as Smith and Jones (2020) put it");
        assert_eq!(f[0].authors, "Smith and Jones");
        let f = find_author_years("according to Smith (2021), it is");
        assert_eq!(f.len(), 1);
    }
}
