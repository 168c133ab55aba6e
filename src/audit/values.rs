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
use super::numbers::{self, CellNumbers, DecimalMark};
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
pub(crate) fn parse_date_strict(s: &str) -> Option<Date> {
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
pub(crate) fn find_dates(text: &str) -> Vec<Date> {
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

/// A number as people write it (`2,850`, `2 850`, `3.5 million`, `+12`, `$ 2,540,000`,
/// `12 %`), with what follows it, if anything (`km`). A currency or percent sign is kept
/// in the unit (`$`, `%`), so a column declaring a unit can tell them apart.
pub fn parse_number_unit(s: &str) -> Option<(f64, Option<String>)> {
    parse_number_unit_in(s, DecimalMark::Point)
}

/// [`parse_number_unit`] with the wiki language's decimal mark.
pub(crate) fn parse_number_unit_in(s: &str, mark: DecimalMark) -> Option<(f64, Option<String>)> {
    let a = numbers::parse_amount(s, mark)?;
    let mut unit = Vec::new();
    if let Some(c) = a.currency {
        unit.push(c.to_string());
    }
    if a.percent {
        unit.push("%".to_string());
    }
    if let Some(u) = a.unit {
        unit.push(u);
    }
    Some((a.value, (!unit.is_empty()).then(|| unit.join(" "))))
}

/// `2850` or `2850 km` (with the column's unit): no separators, `.` for decimals.
pub(crate) fn is_canonical_number(s: &str, unit: Option<&str>) -> bool {
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
    if s.is_ascii() {
        return fold_ascii(s);
    }
    use unicode_normalization::UnicodeNormalization;
    use unicode_normalization::char::is_combining_mark;
    fold_chars(s.nfkd().filter(|c| !is_combining_mark(*c)), s.len())
}

/// [`fold`] of ASCII text (most values and cells), byte by byte: what [`fold_chars`]
/// makes of it, without its decomposition and case tables.
fn fold_ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for b in s.bytes() {
        match b {
            b'\t'..=b'\r' | b' ' | b'_' => space = !out.is_empty(),
            b'*' => {}
            _ => {
                if space {
                    out.push(' ');
                    space = false;
                }
                out.push(match b {
                    b'`' => '\'',
                    b => b.to_ascii_lowercase() as char,
                });
            }
        }
    }
    out
}

/// [`fold`] of decomposed characters.
fn fold_chars(chars: impl Iterator<Item = char>, len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut space = false;
    for c in chars {
        if c.is_whitespace() || c == '_' {
            space = !out.is_empty();
            continue;
        }
        if matches!(c, '*' | '†' | '‡' | '§' | '¶' | '\u{200B}' | '\u{AD}') {
            continue;
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

/// How staged values are spelled: the list separator of the column and the decimal mark
/// of the wiki's language.
#[derive(Debug, Clone, Copy)]
pub struct Spelling<'s> {
    pub separator: &'s str,
    pub mark: DecimalMark,
}

impl Default for Spelling<'_> {
    fn default() -> Self {
        Spelling {
            separator: "; ",
            mark: DecimalMark::Point,
        }
    }
}

/// Which rule decided whether the evidence states a value: said in findings, so that a
/// refusal can be understood and a surprising pass traced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Equal once both are folded (case, accents, figures' separators).
    Equal,
    /// Equal to one item of a list-like cell.
    Item,
    /// The cell's one value, as a number.
    Value,
    /// The cell's value in its other unit (`6,024 km (3,743 mi)`).
    Conversion,
    /// Written in free text (a sentence, a section, a field).
    InText,
    /// A name linking to the page the cell links to.
    Link,
    /// The cell states a range or score: neither end is *the* value.
    Range,
    /// The cell states several figures (a list or a score): none is *the* value.
    Several,
    /// The claimed value is not a number / date of the declared type.
    Unreadable,
    /// Nothing in the evidence states it.
    Absent,
}

impl Rule {
    /// Why a value was refused, when it was refused by a rule worth naming.
    pub fn refusal(self) -> Option<&'static str> {
        match self {
            Rule::Range => Some("a range or score does not state either end as the value"),
            Rule::Several => Some(
                "the cell states several figures (a list or score); none is the value of a number column",
            ),
            Rule::Unreadable => Some("the value does not read as its declared type"),
            _ => None,
        }
    }
}

/// Whether the evidence states a value, and by which rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub stated: bool,
    pub rule: Rule,
}

impl Verdict {
    fn yes(rule: Rule) -> Verdict {
        Verdict { stated: true, rule }
    }

    fn no(rule: Rule) -> Verdict {
        Verdict {
            stated: false,
            rule,
        }
    }
}

/// Whether the evidence states `value` as a `kind`. `resolve_name` maps a name to its
/// final page (redirects followed), for names that differ from the cell's text but name
/// the page the cell links to.
pub fn supports(
    kind: ColumnType,
    value: &str,
    spelling: &Spelling<'_>,
    ev: &Evidence<'_>,
    resolve_name: &dyn Fn(&str) -> Option<u32>,
) -> Verdict {
    match kind {
        ColumnType::Number => number_supported(value, ev, spelling.mark),
        ColumnType::Date => {
            if parse_date(value).is_none() {
                Verdict::no(Rule::Unreadable)
            } else if date_supported(value, ev.text) {
                Verdict::yes(if ev.cell { Rule::Value } else { Rule::InText })
            } else {
                Verdict::no(Rule::Absent)
            }
        }
        ColumnType::Text => text_supported(value, ev, spelling.mark, resolve_name),
        ColumnType::List => {
            let parts: Vec<&str> = value
                .split(spelling.separator.trim())
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .collect();
            let mut rule = Rule::Absent;
            for p in &parts {
                let v = text_supported(p, ev, spelling.mark, resolve_name);
                if !v.stated {
                    return v;
                }
                rule = v.rule;
            }
            if parts.is_empty() {
                Verdict::no(Rule::Absent)
            } else {
                Verdict::yes(if parts.len() > 1 { Rule::Item } else { rule })
            }
        }
    }
}

/// A claimed number against a cell: the cell's one value (or its conversion) must equal
/// it; a range, score or list states no single value. Against free text any figure of
/// the text may state it.
fn number_supported(value: &str, ev: &Evidence<'_>, mark: DecimalMark) -> Verdict {
    let Some(claim) = numbers::parse_amount(value, mark) else {
        return Verdict::no(Rule::Unreadable);
    };
    if ev.cell {
        return match numbers::cell_numbers(ev.text, mark) {
            CellNumbers::One(v, conv) => {
                if claim.equals(&v) {
                    Verdict::yes(Rule::Value)
                } else if conv.is_some_and(|c| claim.equals(&c)) {
                    Verdict::yes(Rule::Conversion)
                } else {
                    Verdict::no(Rule::Absent)
                }
            }
            CellNumbers::Range(_) => Verdict::no(Rule::Range),
            CellNumbers::Several(_) => Verdict::no(Rule::Several),
            CellNumbers::None => Verdict::no(Rule::Absent),
        };
    }
    let v = claim.value;
    let tol = claim.tolerance;
    let folded;
    let text = if mark == DecimalMark::Comma {
        folded = numbers::fold_figures(ev.text, mark);
        &folded
    } else {
        ev.text
    };
    let found = extract_quantities(text)
        .iter()
        .any(|q| (q.value - v.abs()).abs() <= tol.max(q.tolerance) + f64::EPSILON * v.abs());
    if found {
        Verdict::yes(Rule::InText)
    } else {
        Verdict::no(Rule::Absent)
    }
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
    mark: DecimalMark,
    resolve_name: &dyn Fn(&str) -> Option<u32>,
) -> Verdict {
    let v = fold(&numbers::fold_figures(value, mark));
    if v.is_empty() {
        // Only marks (`‡`, `*`): compare as written.
        let raw = value.trim();
        return if !raw.is_empty() && ev.text.split_whitespace().any(|w| w == raw) {
            Verdict::yes(Rule::Equal)
        } else {
            Verdict::no(Rule::Absent)
        };
    }
    let t = fold(&numbers::fold_figures(ev.text, mark));
    let direct = if ev.cell {
        if t == v {
            Some(Rule::Equal)
        } else if items(&t).any(|i| i == v) {
            Some(Rule::Item)
        } else if same_number(value, ev.text, mark) {
            Some(Rule::Value)
        } else {
            None
        }
    } else {
        contains_words(&t, &v).then_some(Rule::InText)
    };
    if let Some(r) = direct {
        return Verdict::yes(r);
    }
    if !ev.links.is_empty() && resolve_name(value.trim()).is_some_and(|p| ev.links.contains(&p)) {
        Verdict::yes(Rule::Link)
    } else {
        Verdict::no(Rule::Absent)
    }
}

/// Both sides are one plain number each and equal ("1234" and "1,234").
fn same_number(a: &str, b: &str, mark: DecimalMark) -> bool {
    let num = |s: &str| {
        let x = numbers::parse_amount(s, mark)?;
        (x.unit.is_none() && x.currency.is_none() && !x.percent).then_some(x)
    };
    // The staged value first: most are not a plain number, and the cell is not read.
    let Some(x) = num(a) else { return false };
    num(b).is_some_and(|y| x.equals(&y))
}

/// The labels of `labels` the evidence text names (for partition ambiguity).
pub(crate) fn labels_named<'l>(text: &str, labels: &'l [String]) -> Vec<&'l str> {
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

    /// Whether `value` of `kind` is stated by a cell reading `text`, on an English wiki.
    fn states(kind: ColumnType, value: &str, text: &str) -> bool {
        supports(kind, value, &Spelling::default(), &cell(text), &none).stated
    }

    fn rule(kind: ColumnType, value: &str, text: &str, mark: DecimalMark) -> Rule {
        let sp = Spelling {
            separator: "; ",
            mark,
        };
        supports(kind, value, &sp, &cell(text), &none).rule
    }

    #[test]
    fn numbers_compare_by_value_and_precision() {
        let n = ColumnType::Number;
        assert!(states(n, "2850 km", "2,850"));
        assert!(states(n, "2850", "2 850"));
        assert!(!states(n, "1320 km", "1,233"));
        assert!(!states(n, "2851", "2,850"));
        assert!(states(n, "3500000", "3.5 million"));
        assert!(states(n, "2428", "2,428 km (1,509 mi)"));
        assert_eq!(
            rule(n, "1509", "2,428 km (1,509 mi)", DecimalMark::Point),
            Rule::Conversion
        );
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
    fn signs_currencies_and_scales_are_numbers() {
        let n = ColumnType::Number;
        assert_eq!(parse_number_unit("+12"), Some((12.0, None)));
        assert_eq!(
            parse_number_unit("$ 2,540,000"),
            Some((2_540_000.0, Some("$".into())))
        );
        assert_eq!(
            parse_number_unit("€1.2 million"),
            Some((1_200_000.0, Some("EUR".into())))
        );
        assert_eq!(parse_number_unit("12 %"), Some((12.0, Some("%".into()))));
        assert!(states(n, "+12", "12"));
        assert!(states(n, "$ 2,540,000", "$2,540,000"));
        assert!(states(n, "2540000", "US$2.54 million"));
        assert!(states(n, "€1.2 million", "€1,200,000"));
        assert!(!states(n, "€1.2 million", "£1,200,000"));
        assert!(states(n, "12 %", "12%"));
        assert!(!states(n, "13 %", "12%"));
    }

    #[test]
    fn ranges_lists_and_scores_do_not_state_an_endpoint() {
        let n = ColumnType::Number;
        let p = DecimalMark::Point;
        assert_eq!(rule(n, "2008", "2008–2014", p), Rule::Range);
        assert_eq!(rule(n, "2014", "2008–2014", p), Rule::Range);
        assert_eq!(rule(n, "3", "3–1", p), Rule::Range);
        assert_eq!(rule(n, "9", "9 8", p), Rule::Several);
        assert_eq!(rule(n, "12", "12, 15, 18", p), Rule::Several);
        assert_eq!(rule(n, "12", "12", p), Rule::Value);
        assert_eq!(rule(n, "ten", "10", p), Rule::Unreadable);
        assert!(Rule::Range.refusal().is_some() && Rule::Value.refusal().is_none());
        // A list column states each item.
        assert!(states(ColumnType::List, "12; 15", "12, 15, 18"));
        // Free text: any figure of the sentence may state it.
        let prose = Evidence {
            text: "It ran from 2008 to 2014.",
            links: &[],
            cell: false,
        };
        assert!(supports(n, "2008", &Spelling::default(), &prose, &none).stated);
    }

    #[test]
    fn separators_inside_text_values_fold_in_the_wikis_convention() {
        let t = ColumnType::Text;
        let p = DecimalMark::Point;
        let c = DecimalMark::Comma;
        assert_eq!(rule(t, "$ 2540000", "$ 2,540,000", p), Rule::Equal);
        assert_eq!(
            rule(t, "Capacity : 10778", "Capacity : 10,778", p),
            Rule::Equal
        );
        assert_eq!(
            rule(t, "6024 km (3,743 mi)", "6,024 km (3,743 mi)", p),
            Rule::Equal
        );
        assert_eq!(
            rule(t, "6024 km (3743 mi)", "6,024 km (3,743 mi)", p),
            Rule::Equal
        );
        assert_eq!(
            rule(t, "6025 km (3,743 mi)", "6,024 km (3,743 mi)", p),
            Rule::Absent
        );
        // On a German wiki "20,31 %" is 20.31, and "20.31 %" states it; "2031 %" does not.
        assert_eq!(rule(t, "20.31 %", "20,31 %", c), Rule::Equal);
        assert_eq!(rule(t, "2031 %", "20,31 %", c), Rule::Absent);
        assert_eq!(rule(t, "2.540.000 €", "2 540 000 €", c), Rule::Equal);
        assert_eq!(rule(ColumnType::Number, "20,31", "20,31 %", c), Rule::Value);
        assert_eq!(rule(ColumnType::Number, "2031", "20,31 %", c), Rule::Absent);
        // On an English wiki a comma groups digits, so "2031" is refused, not 20.31.
        assert_eq!(rule(t, "20.31 %", "20,31 %", p), Rule::Absent);
    }

    #[test]
    fn dates_in_any_common_spelling() {
        let d = ColumnType::Date;
        assert!(states(d, "1994-07-01", "1 July 1994"));
        assert!(states(d, "1994-07-01", "July 1, 1994"));
        assert!(states(d, "1994", "1 July 1994"));
        assert!(!states(d, "1994-07-02", "1 July 1994"));
        assert!(!states(d, "1994-07-01", "1994"));
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

    /// The ASCII path folds every ASCII byte as the general one does.
    #[test]
    fn ascii_text_folds_as_decomposed_text_does() {
        let all: String = (0u8..128).map(char::from).collect();
        for s in [
            all.as_str(),
            "  The  Rhine_River * (`x`)\t\n1,233 km ",
            "\u{b}a\u{c}B\r",
            "",
            "_ _",
        ] {
            assert_eq!(fold_ascii(s), fold_chars(s.chars(), s.len()), "{s:?}");
        }
    }

    #[test]
    fn text_lists_and_names() {
        let t = ColumnType::Text;
        assert!(states(t, "Paraná", "Parana"));
        assert!(states(t, "Rhine", "Rhine[1]"));
        assert!(states(t, "Europe", "Europe, Asia"));
        assert!(!states(t, "Elbe", "Rhine"));
        assert!(states(t, "1234", "1,234"));
        let ural = [7u32];
        let linked = Evidence {
            text: "Ural",
            links: &ural,
            cell: true,
        };
        let by_redirect = |s: &str| (s == "Ural River").then_some(7);
        let sp = Spelling::default();
        assert_eq!(
            supports(t, "Ural River", &sp, &linked, &by_redirect),
            Verdict::yes(Rule::Link)
        );
        assert!(!supports(t, "Volga", &sp, &linked, &by_redirect).stated);
        let l = ColumnType::List;
        assert!(states(l, "Russia; Kazakhstan", "Russia, Kazakhstan"));
        assert!(!states(l, "Russia; China", "Russia, Kazakhstan"));
        let prose = Evidence {
            text: "At 2,428 km it is the third-longest river in Europe.",
            links: &[],
            cell: false,
        };
        assert!(supports(t, "Europe", &sp, &prose, &none).stated);
        assert!(!supports(t, "Euro", &sp, &prose, &none).stated);
        assert!(states(t, "‡", "‡"));
        assert!(!states(t, "‡", "†"));
        assert_eq!(
            labels_named(
                "Europe, Asia",
                &["Asia".into(), "Europe".into(), "Africa".into()]
            ),
            ["Asia", "Europe"]
        );
    }
}
