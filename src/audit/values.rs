//! Typed values: reading numbers with units, dates and lists as written by people, and
//! deciding whether evidence text states a value.
//!
//! The staged value and the source rarely spell a fact the same way ("2850 km" against
//! "2,850"; "1994-07-01" against "1 July 1994"; "Ural River" against a cell linking to
//! `Ural (river)`), so both sides are reduced to values before comparing. Numbers from
//! evidence are read by the citation checker's quantity extractor, with the tolerance the
//! written precision implies.

use std::sync::LazyLock;

use regex::Regex;

use super::contract::ColumnType;
use crate::cite::support::extract_quantities;

/// A calendar date with the precision it was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i32,
    pub month: Option<u8>,
    pub day: Option<u8>,
}

static ISO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?$").expect("regex")
});
static DMY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(\d{1,2})\s+)?(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+(\d{4})\b").expect("regex")
});
static MDY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+(\d{1,2}),?\s+(\d{4})\b").expect("regex")
});
static ISO_IN_TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b").expect("regex")
});
static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\d{4})\b").expect("regex"));
static CANONICAL_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^-?\d+(?:\.\d+)?$").expect("regex"));
static FOOTNOTE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[(?:\d{1,3}|[a-z]|note \d+|citation needed)\]").expect("regex"));

fn month(name: &str) -> Option<u8> {
    let m = name.to_ascii_lowercase();
    let i = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .iter()
    .position(|p| m.starts_with(p))?;
    Some(i as u8 + 1)
}

/// ISO 8601 only: `2004`, `2004-03`, `2004-03-12`.
pub fn parse_date_strict(s: &str) -> Option<Date> {
    let c = ISO.captures(s.trim())?;
    Some(Date {
        year: c[1].parse().ok()?,
        month: c.get(2).and_then(|m| m.as_str().parse().ok()),
        day: c.get(3).and_then(|m| m.as_str().parse().ok()),
    })
}

/// ISO, `12 March 2004`, `March 12, 2004`, `March 2004`.
pub fn parse_date(s: &str) -> Option<Date> {
    let t = s.trim();
    parse_date_strict(t).or_else(|| {
        let d = find_dates(t);
        (d.len() == 1).then(|| d[0])
    })
}

/// Every date written in `text` (years alone included).
pub fn find_dates(text: &str) -> Vec<Date> {
    let mut out = Vec::new();
    let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
    for c in ISO_IN_TEXT.captures_iter(text) {
        covered.push(c.get(0).map_or(0..0, |m| m.range()));
        out.push(Date {
            year: c[1].parse().unwrap_or(0),
            month: c[2].parse().ok(),
            day: c[3].parse().ok(),
        });
    }
    for c in MDY.captures_iter(text) {
        covered.push(c.get(0).map_or(0..0, |m| m.range()));
        out.push(Date {
            year: c[3].parse().unwrap_or(0),
            month: month(&c[1]),
            day: c[2].parse().ok(),
        });
    }
    for c in DMY.captures_iter(text) {
        let r = c.get(0).map_or(0..0, |m| m.range());
        if covered.iter().any(|x| x.start < r.end && r.start < x.end) {
            continue;
        }
        covered.push(r);
        out.push(Date {
            year: c[3].parse().unwrap_or(0),
            month: month(&c[2]),
            day: c.get(1).and_then(|d| d.as_str().parse().ok()),
        });
    }
    for m in YEAR.find_iter(text) {
        if covered
            .iter()
            .any(|x| x.start <= m.start() && m.end() <= x.end)
        {
            continue;
        }
        if let Ok(y) = m.as_str().parse() {
            out.push(Date {
                year: y,
                month: None,
                day: None,
            });
        }
    }
    out
}

/// A number as people write it (`2,850`, `2 850`, `3.5 million`), with the unit word
/// that follows, if any (`km`).
pub fn parse_number_unit(s: &str) -> Option<(f64, Option<String>)> {
    let t = s.trim();
    let qs = extract_quantities(t);
    let q = qs.first()?;
    // The number must open the value (a leading sign aside).
    let before = t[..q.span.start].trim();
    if !(before.is_empty() || before == "-" || before == "−") {
        return None;
    }
    let sign = if before.is_empty() { 1.0 } else { -1.0 };
    let rest = t[q.span.end..].trim();
    let unit = (!rest.is_empty()).then(|| rest.to_string());
    Some((sign * q.value, unit))
}

/// Half the smallest step the written number distinguishes ("2850" ±0.5, "2.4" ±0.05).
fn written_tolerance(s: &str) -> f64 {
    let t = s.trim();
    let digits_after_point = t
        .split_once('.')
        .map(|(_, b)| b.chars().take_while(|c| c.is_ascii_digit()).count())
        .unwrap_or(0);
    0.5 * 10f64.powi(-(digits_after_point as i32))
}

/// `2850` or `2850 km` (with the column's unit): no separators, `.` for decimals.
pub fn is_canonical_number(s: &str, unit: Option<&str>) -> bool {
    let (num, u) = match s.split_once(' ') {
        Some((n, u)) => (n, Some(u)),
        None => (s, None),
    };
    CANONICAL_NUMBER.is_match(num)
        && match (u, unit) {
            (None, _) => true,
            (Some(u), Some(want)) => u == want,
            (Some(_), None) => false,
        }
}

/// Text folded for comparison: compatibility-decomposed without accents, lowercased,
/// footnote markers and list marks (`*`, `†`) dropped, typographic punctuation made
/// plain, whitespace collapsed.
pub fn fold(s: &str) -> String {
    let stripped;
    let s = if s.contains('[') {
        stripped = FOOTNOTE.replace_all(s, "");
        &*stripped
    } else {
        s
    };
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    let mut push = |c: char, out: &mut String| {
        if c.is_whitespace() || c == '_' {
            space = !out.is_empty();
            return;
        }
        if matches!(c, '*' | '†' | '‡' | '§' | '¶' | '\u{200B}' | '\u{AD}') {
            return;
        }
        let c = match c {
            '‘' | '’' | '`' | '´' => '\'',
            '“' | '”' | '„' => '"',
            '–' | '—' | '−' | '‐' => '-',
            c => c,
        };
        if space {
            out.push(' ');
            space = false;
        }
        out.extend(c.to_lowercase());
    };
    if s.is_ascii() {
        for c in s.chars() {
            push(c, &mut out);
        }
    } else {
        use unicode_normalization::UnicodeNormalization;
        use unicode_normalization::char::is_combining_mark;
        for c in s.nfkd().filter(|c| !is_combining_mark(*c)) {
            push(c, &mut out);
        }
    }
    out
}

/// Splits a folded cell into items (`a, b; c / d`, line breaks, ` and `).
fn items(folded: &str) -> impl Iterator<Item = &str> {
    folded
        .split([',', ';', '\n', '/', '•', '·'])
        .flat_map(|p| p.split(" and "))
        .map(str::trim)
        .filter(|x| !x.is_empty())
}

/// Whether `needle` occurs in `hay` at word boundaries (both folded).
fn contains_words(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let hb = hay.as_bytes();
    let mut from = 0;
    while let Some(p) = hay[from..].find(needle) {
        let s = from + p;
        let e = s + needle.len();
        let left = s == 0 || !(hb[s - 1] as char).is_alphanumeric();
        let right = e == hb.len() || !(hb[e] as char).is_alphanumeric();
        if left && right {
            return true;
        }
        from = s + needle.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// One piece of evidence: a table cell (compared as a whole or item by item), or free
/// text (a sentence, a section, a field value: compared by containment).
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    pub text: &'a str,
    /// Final pages the evidence links to (names match through redirects).
    pub links: &'a [u32],
    pub cell: bool,
}

/// Whether the evidence states `value` as a `kind`. `resolve_name` maps a name to its
/// final page (redirects followed), for names that differ from the cell's text but name
/// the page the cell links to.
pub fn supports(
    kind: ColumnType,
    value: &str,
    separator: &str,
    ev: &Evidence<'_>,
    resolve_name: &dyn Fn(&str) -> Option<u32>,
) -> bool {
    match kind {
        ColumnType::Number => number_supported(value, ev.text),
        ColumnType::Date => date_supported(value, ev.text),
        ColumnType::Text => text_supported(value, ev, resolve_name),
        ColumnType::List => {
            let parts: Vec<&str> = value
                .split(separator.trim())
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .collect();
            !parts.is_empty() && parts.iter().all(|p| text_supported(p, ev, resolve_name))
        }
    }
}

fn number_supported(value: &str, text: &str) -> bool {
    let Some((v, _)) = parse_number_unit(value) else {
        return false;
    };
    let tol = written_tolerance(value);
    extract_quantities(text)
        .iter()
        .any(|q| (q.value - v).abs() <= tol.max(q.tolerance) + f64::EPSILON * v.abs())
}

fn date_supported(value: &str, text: &str) -> bool {
    let Some(d) = parse_date(value) else {
        return false;
    };
    find_dates(text).iter().any(|e| {
        e.year == d.year
            && d.month.is_none_or(|m| e.month == Some(m))
            && d.day.is_none_or(|x| e.day == Some(x))
    })
}

fn text_supported(
    value: &str,
    ev: &Evidence<'_>,
    resolve_name: &dyn Fn(&str) -> Option<u32>,
) -> bool {
    let v = fold(value);
    if v.is_empty() {
        // Only marks (`‡`, `*`): compare as written.
        let raw = value.trim();
        return !raw.is_empty() && ev.text.split_whitespace().any(|w| w == raw);
    }
    let t = fold(ev.text);
    let direct = if ev.cell {
        t == v || items(&t).any(|i| i == v) || same_number(&v, &t)
    } else {
        contains_words(&t, &v)
    };
    direct
        || (!ev.links.is_empty()
            && resolve_name(value.trim()).is_some_and(|p| ev.links.contains(&p)))
}

/// Both sides are one plain number each and equal ("1234" and "1,234").
fn same_number(a: &str, b: &str) -> bool {
    let num = |s: &str| {
        let (v, u) = parse_number_unit(s)?;
        u.is_none().then_some(v)
    };
    match (num(a), num(b)) {
        (Some(x), Some(y)) => (x - y).abs() <= written_tolerance(a).max(written_tolerance(b)),
        _ => false,
    }
}

/// The labels of `labels` the evidence text names (for partition ambiguity).
pub fn labels_named<'l>(text: &str, labels: &'l [String]) -> Vec<&'l str> {
    let t = fold(text);
    labels
        .iter()
        .filter(|l| contains_words(&t, &fold(l)))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<u32> {
        None
    }

    fn cell(text: &str) -> Evidence<'_> {
        Evidence {
            text,
            links: &[],
            cell: true,
        }
    }

    #[test]
    fn numbers_compare_by_value_and_precision() {
        let n = ColumnType::Number;
        assert!(supports(n, "2850 km", "; ", &cell("2,850"), &none));
        assert!(supports(n, "2850", "; ", &cell("2 850"), &none));
        assert!(!supports(n, "1320 km", "; ", &cell("1,233"), &none));
        assert!(!supports(n, "2851", "; ", &cell("2,850"), &none));
        assert!(supports(n, "3500000", "; ", &cell("3.5 million"), &none));
        assert!(supports(
            n,
            "2428",
            "; ",
            &cell("2,428 km (1,509 mi)"),
            &none
        ));
        assert_eq!(
            parse_number_unit("2,850 km"),
            Some((2850.0, Some("km".into())))
        );
        assert_eq!(parse_number_unit("about 5"), None);
        assert!(is_canonical_number("2850 km", Some("km")));
        assert!(is_canonical_number("-0.5", None));
        assert!(!is_canonical_number("2,850 km", Some("km")));
        assert!(!is_canonical_number("2850 mi", Some("km")));
    }

    #[test]
    fn dates_in_any_common_spelling() {
        let d = ColumnType::Date;
        assert!(supports(d, "1994-07-01", "; ", &cell("1 July 1994"), &none));
        assert!(supports(
            d,
            "1994-07-01",
            "; ",
            &cell("July 1, 1994"),
            &none
        ));
        assert!(supports(d, "1994", "; ", &cell("1 July 1994"), &none));
        assert!(!supports(
            d,
            "1994-07-02",
            "; ",
            &cell("1 July 1994"),
            &none
        ));
        assert!(!supports(d, "1994-07-01", "; ", &cell("1994"), &none));
        assert_eq!(
            parse_date_strict("2024-12-31"),
            Some(Date {
                year: 2024,
                month: Some(12),
                day: Some(31)
            })
        );
        assert_eq!(parse_date_strict("31 Dec 2024"), None);
    }

    #[test]
    fn text_lists_and_names() {
        let t = ColumnType::Text;
        assert!(supports(t, "Paraná", "; ", &cell("Parana"), &none));
        assert!(supports(t, "Rhine", "; ", &cell("Rhine[1]"), &none));
        assert!(supports(t, "Europe", "; ", &cell("Europe, Asia"), &none));
        assert!(!supports(t, "Elbe", "; ", &cell("Rhine"), &none));
        assert!(supports(t, "1234", "; ", &cell("1,234"), &none));
        let ural = [7u32];
        let linked = Evidence {
            text: "Ural",
            links: &ural,
            cell: true,
        };
        let by_redirect = |s: &str| (s == "Ural River").then_some(7);
        assert!(supports(t, "Ural River", "; ", &linked, &by_redirect));
        assert!(!supports(t, "Volga", "; ", &linked, &by_redirect));
        let l = ColumnType::List;
        assert!(supports(
            l,
            "Russia; Kazakhstan",
            "; ",
            &cell("Russia, Kazakhstan"),
            &none
        ));
        assert!(!supports(
            l,
            "Russia; China",
            "; ",
            &cell("Russia, Kazakhstan"),
            &none
        ));
        let prose = Evidence {
            text: "At 2,428 km it is the third-longest river in Europe.",
            links: &[],
            cell: false,
        };
        assert!(supports(t, "Europe", "; ", &prose, &none));
        assert!(!supports(t, "Euro", "; ", &prose, &none));
        assert!(supports(t, "‡", "; ", &cell("‡"), &none));
        assert!(!supports(t, "‡", "; ", &cell("†"), &none));
        assert_eq!(
            labels_named(
                "Europe, Asia",
                &["Asia".into(), "Europe".into(), "Africa".into()]
            ),
            ["Asia", "Europe"]
        );
    }
}
