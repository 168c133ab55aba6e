//! Numbers and dates, normalised to values so "1,000", "1000" and "1 000" agree, and
//! "3.5 million" is 3 500 000.
//!
//! A claim that states a figure the source does not contain is the most common way a
//! citation fails, and a lexical matcher cannot see it: "260,000" and "250,000" share no
//! token either way. So quantities are compared by value, with the tolerance the less
//! precise of the two figures implies ("about 73%" agrees with "72.6%"). The frontier
//! planner ranks table cells by the same values for superlatives.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::words as tokens;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum QuantityKind {
    Number,
    Percent,
    /// A bare integer 1000–2100, or the year of an ISO date.
    Year,
    /// A month name (value 1–12).
    Month,
    /// A day of a month, `month × 100 + day` ("20 July", "July 20", "2014-07-20" are
    /// 720): the day and month must be stated together, not found apart.
    Date,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Quantity {
    pub value: f64,
    pub kind: QuantityKind,
    /// As written.
    pub text: String,
    pub span: Range<usize>,
    /// Half the smallest unit the written form distinguishes: "3.5 million" is ±50 000.
    pub tolerance: f64,
    /// Stem of the content word after the figure ("260,000 volumes" → "volum"): two
    /// different values for the same unit in one sentence is a contradiction.
    pub unit: Option<String>,
}

static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \b(?P<num>\d{1,3}(?:(?:,|\x{A0}|\x{202F}|\x{2009}|\x20)\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)
        (?P<suffix>st|nd|rd|th|s)?
        (?:\s*(?P<pct>%|percent\b|per\s+cent\b))?
        (?:\s*(?P<scale>thousand|million|billion|trillion|bn|mn)\b)?
        (?:\s*(?P<pct2>%|percent\b|per\s+cent\b))?",
    )
    .expect("valid number regex")
});
static ISO_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(1\d{3}|20\d{2})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b").expect("regex")
});
static MONTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\b\.?")
        .expect("regex")
});
static NUMBER_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](one|two|three|four|five|six|seven|eight|nine))?\b|\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|dozen|hundred)\b")
        .expect("regex")
});

fn word_value(w: &str) -> Option<f64> {
    let v = match w.to_ascii_lowercase().as_str() {
        "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" | "dozen" => 12,
        "thirteen" => 13,
        "fourteen" => 14,
        "fifteen" => 15,
        "sixteen" => 16,
        "seventeen" => 17,
        "eighteen" => 18,
        "nineteen" => 19,
        "twenty" => 20,
        "thirty" => 30,
        "forty" => 40,
        "fifty" => 50,
        "sixty" => 60,
        "seventy" => 70,
        "eighty" => 80,
        "ninety" => 90,
        "hundred" => 100,
        _ => return None,
    };
    Some(v as f64)
}

fn month_value(m: &str) -> Option<f64> {
    const NAMES: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let m = m.to_ascii_lowercase();
    NAMES
        .iter()
        .position(|n| m.starts_with(n))
        .map(|i| (i + 1) as f64)
}

fn scale_value(s: &str) -> f64 {
    match s.to_ascii_lowercase().as_str() {
        "thousand" => 1e3,
        "million" | "mn" => 1e6,
        "billion" | "bn" => 1e9,
        "trillion" => 1e12,
        _ => 1.0,
    }
}

/// Month names that are also common words count only next to a number ("May 5", "in
/// March 2020"), abbreviations likewise.
fn month_needs_number(m: &str) -> bool {
    let m = m.trim_end_matches('.').to_ascii_lowercase();
    m.len() <= 4 || m == "march"
}

/// The first content word after `at`, stemmed.
fn unit_after(text: &str, at: usize) -> Option<String> {
    let mut end = (at + 40).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    tokens::tokenize(text.get(at..end)?)
        .into_iter()
        .find(|t| {
            t.is_content() && scale_value(&t.folded) == 1.0 && word_value(&t.folded).is_none()
        })
        .map(|t| t.stem)
}

/// Every quantity in `text`, in order.
pub(crate) fn extract(text: &str) -> Vec<Quantity> {
    let mut out = Vec::new();
    let mut taken: Vec<Range<usize>> = Vec::new();
    for c in ISO_DATE.captures_iter(text) {
        let (Some(whole), Some(y), Some(m), Some(d)) = (c.get(0), c.get(1), c.get(2), c.get(3))
        else {
            continue;
        };
        if let (Ok(mv), Ok(dv)) = (m.as_str().parse::<f64>(), d.as_str().parse::<f64>()) {
            out.push(Quantity {
                value: mv * 100.0 + dv,
                kind: QuantityKind::Date,
                text: whole.as_str().to_string(),
                span: whole.range(),
                tolerance: 0.0,
                unit: None,
            });
        }
        for (part, kind) in [
            (y, QuantityKind::Year),
            (m, QuantityKind::Month),
            (d, QuantityKind::Number),
        ] {
            if let Ok(v) = part.as_str().parse::<f64>() {
                out.push(Quantity {
                    value: v,
                    kind,
                    text: part.as_str().to_string(),
                    span: part.range(),
                    tolerance: 0.0,
                    unit: None,
                });
            }
        }
        taken.push(whole.range());
    }
    let overlaps = |r: &Range<usize>, taken: &[Range<usize>]| {
        taken.iter().any(|t| r.start < t.end && t.start < r.end)
    };
    for c in NUMBER.captures_iter(text) {
        let (Some(whole), Some(num)) = (c.get(0), c.get(1)) else {
            continue;
        };
        if overlaps(&whole.range(), &taken) {
            continue;
        }
        // "A380", "3D": digits glued to letters are names, not quantities.
        let glued = text[whole.end()..]
            .chars()
            .next()
            .is_some_and(char::is_alphabetic)
            && c.name("scale").is_none()
            && c.name("pct").is_none()
            && c.name("pct2").is_none();
        // "1,2345" or "3.5.2": a digit group glued to an earlier number is not a figure.
        let tail_of_number = text[..num.start()]
            .strip_suffix(['.', ','])
            .is_some_and(|b| b.ends_with(|ch: char| ch.is_ascii_digit()));
        if glued || tail_of_number {
            continue;
        }
        let digits: String = num
            .as_str()
            .chars()
            .filter(|ch| ch.is_ascii_digit() || *ch == '.')
            .collect();
        let Ok(base) = digits.parse::<f64>() else {
            continue;
        };
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        let scale = c.name("scale").map_or(1.0, |s| scale_value(s.as_str()));
        let percent = c.name("pct").is_some() || c.name("pct2").is_some();
        let value = base * scale;
        let tolerance = 0.5 * 10f64.powi(-decimals) * scale;
        let is_year = !percent
            && scale == 1.0
            && decimals == 0
            && num.as_str().len() == 4
            && (1000.0..=2100.0).contains(&value);
        // "2018–19", "1999/00": the second year of a season, written with two digits.
        if !percent
            && scale == 1.0
            && num.as_str().len() == 2
            && let Some(first) = season_start(&text[..num.start()])
        {
            let century = first - first % 100.0;
            let mut second = century + value;
            if second <= first {
                second += 100.0;
            }
            out.push(Quantity {
                value: second,
                kind: QuantityKind::Year,
                text: whole.as_str().trim().to_string(),
                span: whole.range(),
                tolerance: 0.0,
                unit: unit_after(text, whole.end()),
            });
            continue;
        }
        let kind = if percent {
            QuantityKind::Percent
        } else if is_year {
            QuantityKind::Year
        } else {
            QuantityKind::Number
        };
        out.push(Quantity {
            value,
            kind,
            text: whole.as_str().trim().to_string(),
            span: whole.range(),
            tolerance,
            unit: unit_after(text, whole.end()),
        });
    }
    for c in NUMBER_WORD.captures_iter(text) {
        let Some(whole) = c.get(0) else { continue };
        let value = match (c.get(1), c.get(2), c.get(3)) {
            (Some(tens), units, _) => {
                word_value(tens.as_str()).unwrap_or(0.0)
                    + units.and_then(|u| word_value(u.as_str())).unwrap_or(0.0)
            }
            (None, _, Some(w)) => word_value(w.as_str()).unwrap_or(0.0),
            _ => continue,
        };
        out.push(Quantity {
            value,
            kind: QuantityKind::Number,
            text: whole.as_str().to_string(),
            span: whole.range(),
            tolerance: 0.0,
            unit: unit_after(text, whole.end()),
        });
    }
    for m in MONTH.find_iter(text) {
        if overlaps(&m.range(), &taken) {
            continue;
        }
        let near_number = |s: &str| s.trim_start().starts_with(|c: char| c.is_ascii_digit());
        // "5 May", "5th of May", "May 5", "May 2020".
        let before = text[..m.start()].trim_end();
        let before = before.strip_suffix("of").map_or(before, str::trim_end);
        let before = ["st", "nd", "rd", "th"]
            .iter()
            .find_map(|s| before.strip_suffix(s))
            .unwrap_or(before);
        let adjacent =
            near_number(&text[m.end()..]) || before.ends_with(|c: char| c.is_ascii_digit());
        let word = m.as_str();
        let capitalized = word.starts_with(|c: char| c.is_uppercase());
        if !capitalized || (month_needs_number(word) && !adjacent) {
            continue;
        }
        if let Some(v) = month_value(word) {
            out.push(Quantity {
                value: v,
                kind: QuantityKind::Month,
                text: word.trim_end_matches('.').to_string(),
                span: m.range(),
                tolerance: 0.0,
                unit: None,
            });
            if let Some(day) = day_after(&text[m.end()..]).or_else(|| day_before(before)) {
                out.push(Quantity {
                    value: v * 100.0 + day,
                    kind: QuantityKind::Date,
                    text: format!("{} {day}", word.trim_end_matches('.')),
                    span: m.range(),
                    tolerance: 0.0,
                    unit: None,
                });
            }
        }
    }
    out.sort_by_key(|q| q.span.start);
    out
}

/// The day of the month that opens `after` ("July 20", "July 20th"), not a year.
fn day_after(after: &str) -> Option<f64> {
    let t = after.trim_start();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let rest = &t[digits.len()..];
    let rest = ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| rest.strip_prefix(s))
        .unwrap_or(rest);
    let ends = !rest.starts_with(|c: char| c.is_alphanumeric());
    day_value(&digits).filter(|_| ends)
}

/// The day of the month that `before` ends with ("20 July", "20th of July": ordinal
/// suffix and "of" already removed).
fn day_before(before: &str) -> Option<f64> {
    let digits = before
        .rsplit(|c: char| !c.is_ascii_digit())
        .next()
        .filter(|d| !d.is_empty())?;
    let lead = &before[..before.len() - digits.len()];
    if lead.ends_with(['.', ',']) && lead[..lead.len() - 1].ends_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    day_value(digits)
}

/// 1–31 written with one or two digits.
fn day_value(digits: &str) -> Option<f64> {
    let v: f64 = digits.parse().ok().filter(|_| digits.len() <= 2)?;
    (1.0..=31.0).contains(&v).then_some(v)
}

/// The year that `before` ends with, followed by a dash or slash (`2018–`, `1999/`).
fn season_start(before: &str) -> Option<f64> {
    let year = before.strip_suffix(['-', '–', '/'])?;
    let digits = year.get(year.len().checked_sub(4)?..)?;
    let preceded_by_digit = year[..year.len() - 4].ends_with(|c: char| c.is_ascii_digit());
    if preceded_by_digit || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let v: f64 = digits.parse().ok()?;
    (1000.0..=2100.0).contains(&v).then_some(v)
}

/// Whether two quantities can denote the same value: years are numbers too, a percentage
/// may be written without its sign, months only match months.
fn compatible(a: QuantityKind, b: QuantityKind) -> bool {
    use QuantityKind::*;
    match (a, b) {
        (Date, Date) | (Month, Month) => true,
        (Date, _) | (_, Date) => false,
        (Month, _) | (_, Month) => false,
        (Percent, Year) | (Year, Percent) => false,
        _ => true,
    }
}

/// Same value within the tolerance of the less precise figure.
pub(crate) fn same_value(a: &Quantity, b: &Quantity) -> bool {
    compatible(a.kind, b.kind) && (a.value - b.value).abs() <= a.tolerance.max(b.tolerance) + 1e-9
}

/// Whether `q` appears among `pool`.
pub(crate) fn found_in(q: &Quantity, pool: &[Quantity]) -> bool {
    pool.iter().any(|p| same_value(q, p))
}

/// A figure in `pool` that fills the same slot as `q` (same kind and unit) with another
/// value: the source says something else. Only numbers and percentages with a unit word
/// qualify; years and bare figures are too often about different things.
pub(crate) fn conflicting<'p>(q: &Quantity, pool: &'p [Quantity]) -> Option<&'p Quantity> {
    if !matches!(q.kind, QuantityKind::Number | QuantityKind::Percent) {
        return None;
    }
    let unit = q.unit.as_ref()?;
    pool.iter()
        .find(|p| p.kind == q.kind && p.unit.as_ref() == Some(unit) && !same_value(q, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<(f64, QuantityKind)> {
        extract(text)
            .into_iter()
            .map(|q| (q.value, q.kind))
            .collect()
    }

    #[test]
    fn separators_scales_and_percentages() {
        use QuantityKind::*;
        assert_eq!(values("5,000 and 5000 and 5 000"), [(5000.0, Number); 3]);
        assert_eq!(values("3.5 million people"), [(3_500_000.0, Number)]);
        assert_eq!(
            values("5% and 41.3 per cent"),
            [(5.0, Percent), (41.3, Percent)]
        );
        assert_eq!(values("US$2.1bn"), [(2.1e9, Number)]);
    }

    #[test]
    fn years_months_and_words() {
        use QuantityKind::*;
        assert_eq!(
            values("on November 2, 2004 and in the 1990s"),
            [
                (11.0, Month),
                (1102.0, Date),
                (2.0, Number),
                (2004.0, Year),
                (1990.0, Year)
            ]
        );
        assert_eq!(
            values("published 2004-10-19"),
            [
                (1019.0, Date),
                (2004.0, Year),
                (10.0, Month),
                (19.0, Number)
            ]
        );
        assert_eq!(
            values("twenty-five of twelve"),
            [(25.0, Number), (12.0, Number)]
        );
        // Modal "may" and verb "march" are not months.
        assert!(values("It may march on").is_empty());
        assert_eq!(
            values("on 5 May"),
            [(5.0, Number), (5.0, Month), (505.0, Date)]
        );
        assert_eq!(
            values("the 5th of May"),
            [(5.0, Number), (5.0, Month), (505.0, Date)]
        );
        assert!(values("by the end of May").is_empty());
    }

    #[test]
    fn a_day_and_its_month_are_one_date() {
        use QuantityKind::*;
        let dates = |text: &str| -> Vec<f64> {
            extract(text)
                .into_iter()
                .filter(|q| q.kind == Date)
                .map(|q| q.value)
                .collect()
        };
        for text in [
            "starting on 20 July",
            "on July 20th, 2014",
            "Sunday, 20th of July",
            "2014-07-20",
        ] {
            assert_eq!(dates(text), [720.0], "{text}");
        }
        // A year or a figure next to a month is not a day of it.
        assert!(dates("in July 2014").is_empty());
        assert!(dates("1,20 July").is_empty());
        assert!(dates("July 45").is_empty());
        // "20 July" is not stated by a page that gives 20 and July apart.
        let claim = &extract("the conference starting on 20 July")[..];
        let page = extract("July 18, 2014: the 20th conference opens on Sunday");
        let date = claim.iter().find(|q| q.kind == Date).unwrap();
        assert!(!found_in(date, &page));
        assert!(found_in(date, &extract("opens on Sunday, July 20")));
        // Abbreviated months are the same months.
        assert!(found_in(date, &extract("Jul. 20")));
    }

    #[test]
    fn a_season_ends_in_the_next_year() {
        use QuantityKind::*;
        assert_eq!(
            values("the 2018–19 academic year"),
            [(2018.0, Year), (2019.0, Year)]
        );
        assert_eq!(values("1999/00"), [(1999.0, Year), (2000.0, Year)]);
        // A score is not a season.
        assert_eq!(values("a 10–7 lead"), [(10.0, Number), (7.0, Number)]);
    }

    #[test]
    fn names_with_digits_are_not_quantities() {
        assert!(values("The A380 and 3D films").is_empty());
        assert_eq!(values("the 21st century").len(), 1);
    }

    #[test]
    fn precision_decides_agreement() {
        let a = &extract("about 73%")[0];
        let b = &extract("72.6%")[0];
        assert!(same_value(a, b));
        let c = &extract("3.5 million")[0];
        let d = &extract("3,512,000")[0];
        assert!(same_value(c, d));
        let e = &extract("260,000")[0];
        let f = &extract("250,000")[0];
        assert!(!same_value(e, f));
        assert!(!same_value(&extract("5%")[0], &extract("in 2005")[0]));
    }

    #[test]
    fn conflicts_need_the_same_unit() {
        let claim = extract("holds over 260,000 volumes");
        let evidence = extract("the library holds 250,000 volumes and 3 reading rooms");
        assert_eq!(
            conflicting(&claim[0], &evidence).map(|q| q.text.as_str()),
            Some("250,000")
        );
        let other = extract("it has 250,000 visitors");
        assert!(conflicting(&claim[0], &other).is_none());
    }
}
