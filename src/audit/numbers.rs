//! Numbers as people write them in staged values and table cells: a sign, a currency,
//! digit groups in the wiki language's convention, a scale word, a percent sign and a
//! unit (`+12`, `$ 2,540,000`, `€1.2 million`, `12 %`, `20,31 %` on a German wiki).
//!
//! A cell does not always state one value: `2008–2014` is a range, `9 8` or `3, 5` a list
//! or a score. A claimed number is the cell's value only when the cell states one value
//! (a conversion in parentheses, `6,024 km (3,743 mi)`, being the same value in another
//! unit); [`CellNumbers`] says which shape the cell has, so a refusal can say why.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// How the wiki's language writes a decimal fraction: `20.31` or `20,31`. Digit groups
/// use the other mark (or a space).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecimalMark {
    #[default]
    Point,
    Comma,
}

/// Content languages whose Wikipedia writes `1.234,5` or `1 234,5` (formatnum's
/// separator tables in MediaWiki's message files).
const COMMA_LANGS: &[&str] = &[
    "af", "az", "be", "bg", "bs", "ca", "cs", "da", "de", "el", "eo", "es", "et", "eu", "fi", "fo",
    "fr", "gl", "hr", "hu", "hy", "id", "is", "it", "ka", "kk", "ky", "lb", "lt", "ltg", "lv",
    "mk", "nb", "nl", "nn", "no", "pl", "pt", "ro", "ru", "sk", "sl", "sq", "sr", "sv", "tr", "tt",
    "uk", "uz", "vi",
];

impl DecimalMark {
    /// The mark of a wiki's content language (`de`, `pt-br`, `en`).
    pub(crate) fn for_lang(lang: &str) -> DecimalMark {
        let base = lang
            .split(['-', '_'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if COMMA_LANGS.contains(&base.as_str()) {
            DecimalMark::Comma
        } else {
            DecimalMark::Point
        }
    }
}

/// Grouped digits (`2,540,000`, `2 540 000`) or plain ones, with a decimal part: one
/// pattern per decimal mark. Spaces include the no-break and thin spaces formatnum uses.
static NUM_POINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\d{1,3}(?:[,\x20\x{A0}\x{202F}\x{2009}]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
        .expect("regex")
});
static NUM_COMMA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:\d{1,3}(?:[.\x20\x{A0}\x{202F}\x{2009}']\d{3})+(?:,\d+)?|\d+(?:,\d+)?)")
        .expect("regex")
});
static SCALE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(thousand|million|billion|trillion|bn|mn|mio\.?|mrd\.?|milliards?|millions?|milliarden?|miljoen|miljard)\b")
        .expect("regex")
});
static PERCENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*(%|percent\b|per\s+cent\b)").expect("regex"));
static FOOTNOTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[(?:\d{1,3}|[a-z]|note \d+|citation needed|nb \d+)\]").expect("regex")
});

/// Currency marks before or after a figure, longest first, with the currency they name
/// (`$` alone names a dollar of unknown country).
const CURRENCIES: &[(&str, &str)] = &[
    ("US$", "USD"),
    ("USD", "USD"),
    ("AU$", "AUD"),
    ("A$", "AUD"),
    ("AUD", "AUD"),
    ("CA$", "CAD"),
    ("C$", "CAD"),
    ("CAD", "CAD"),
    ("NZ$", "NZD"),
    ("HK$", "HKD"),
    ("S$", "SGD"),
    ("NT$", "TWD"),
    ("R$", "BRL"),
    ("Mex$", "MXN"),
    ("$", "$"),
    ("€", "EUR"),
    ("EUR", "EUR"),
    ("£", "GBP"),
    ("GBP", "GBP"),
    ("¥", "JPY"),
    ("JPY", "JPY"),
    ("CN¥", "CNY"),
    ("CNY", "CNY"),
    ("RMB", "CNY"),
    ("₹", "INR"),
    ("INR", "INR"),
    ("Rs.", "INR"),
    ("₩", "KRW"),
    ("₽", "RUB"),
    ("руб.", "RUB"),
    ("₺", "TRY"),
    ("₪", "ILS"),
    ("₫", "VND"),
    ("฿", "THB"),
    ("₱", "PHP"),
    ("₦", "NGN"),
    ("CHF", "CHF"),
    ("KRW", "KRW"),
    ("RUB", "RUB"),
    ("TRY", "TRY"),
    ("ILS", "ILS"),
    ("VND", "VND"),
    ("THB", "THB"),
    ("PHP", "PHP"),
    ("NGN", "NGN"),
    ("BRL", "BRL"),
    ("MXN", "MXN"),
    ("HKD", "HKD"),
    ("SGD", "SGD"),
    ("TWD", "TWD"),
    ("NZD", "NZD"),
    ("CZK", "CZK"),
    ("PLN", "PLN"),
    ("SEK", "SEK"),
    ("NOK", "NOK"),
    ("DKK", "DKK"),
    ("ZAR", "ZAR"),
    ("zł", "PLN"),
    ("Kč", "CZK"),
];

/// The currency mark `s` opens with (a word mark only when no letter follows it).
/// Called on every value and cell read as a number: marks are ruled out by their first
/// byte before any is compared whole.
fn currency_prefix(s: &str) -> Option<(&'static str, usize)> {
    let first = *s.as_bytes().first()?;
    if first.is_ascii_digit() {
        return None;
    }
    CURRENCIES.iter().find_map(|(mark, code)| {
        if mark.as_bytes()[0] != first || !s.starts_with(mark) {
            return None;
        }
        let is_word = mark.bytes().all(|c| c.is_ascii_alphabetic());
        let rest = &s[mark.len()..];
        (!is_word || !rest.starts_with(|c: char| c.is_alphabetic())).then_some((*code, mark.len()))
    })
}

/// A figure with what surrounds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Amount {
    pub value: f64,
    /// Half the smallest step the written figure distinguishes (`3.5 million`: 50,000).
    pub tolerance: f64,
    /// ISO code (or `$` for a dollar of unknown country).
    pub currency: Option<&'static str>,
    pub percent: bool,
    /// What follows the figure (`km`, `km (3,743 mi)`), trimmed; `None` when nothing does.
    pub unit: Option<String>,
}

impl Amount {
    /// Same value within the coarser of the two precisions, in compatible currencies.
    pub fn equals(&self, other: &Amount) -> bool {
        let currencies_agree = match (self.currency, other.currency) {
            (Some(a), Some(b)) => {
                a == b || a == "$" && b.ends_with('D') || b == "$" && a.ends_with('D')
            }
            _ => true,
        };
        currencies_agree
            && (self.value - other.value).abs()
                <= self.tolerance.max(other.tolerance) + f64::EPSILON * self.value.abs()
    }
}

/// The figure at the start of `s` (after a sign and a currency): its text length and value.
fn figure(s: &str, mark: DecimalMark) -> Option<(usize, f64, f64)> {
    let m = match mark {
        DecimalMark::Point => NUM_POINT.find(s)?,
        DecimalMark::Comma => NUM_COMMA.find(s)?,
    };
    // "1,2345": not digit groups after all, only the leading digits are one figure.
    let m_end = if s[m.end()..].starts_with(|c: char| c.is_ascii_digit()) {
        s.bytes().take_while(u8::is_ascii_digit).count()
    } else {
        m.end()
    };
    let m = &s[..m_end];
    let decimal = match mark {
        DecimalMark::Point => '.',
        DecimalMark::Comma => ',',
    };
    let mut digits = String::with_capacity(m.len());
    let mut decimals = None;
    for c in m.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            if let Some(d) = decimals.as_mut() {
                *d += 1;
            }
        } else if c == decimal {
            digits.push('.');
            decimals = Some(0);
        }
    }
    let value: f64 = digits.parse().ok()?;
    let tolerance = 0.5 * 10f64.powi(-decimals.unwrap_or(0));
    Some((m_end, value, tolerance))
}

/// Reads a whole value as a figure: sign, currency, digits, scale word, percent, a
/// currency after the figure, then the unit (the rest). `None` when anything but a sign
/// and a currency precedes the digits.
pub(crate) fn parse_amount(s: &str, mark: DecimalMark) -> Option<Amount> {
    let mut rest = s.trim();
    let mut negative = false;
    let mut currency = None;
    for _ in 0..2 {
        if let Some(r) = rest.strip_prefix(['-', '−']) {
            negative = true;
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix('+') {
            rest = r.trim_start();
        } else if currency.is_none()
            && let Some((code, len)) = currency_prefix(rest)
        {
            currency = Some(code);
            rest = rest[len..].trim_start();
        }
    }
    let (len, mut value, mut tolerance) = figure(rest, mark)?;
    let mut after = &rest[len..];
    // "A380"-style names and ordinals: digits glued to a word are not a figure.
    if after.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if let Some(c) = SCALE.captures(after) {
        let w = c[1].to_lowercase();
        let scale = if w.starts_with("thousand") {
            1e3
        } else if w.starts_with("mi") && !w.starts_with("milliard") && !w.starts_with("miljard")
            || w == "mn"
        {
            1e6
        } else if w.starts_with("tr") {
            1e12
        } else {
            1e9
        };
        value *= scale;
        tolerance *= scale;
        after = &after[c.get(0).map_or(0, |m| m.end())..];
    }
    let mut percent = false;
    if let Some(m) = PERCENT.find(after) {
        percent = true;
        after = &after[m.end()..];
    }
    let trimmed = after.trim_start();
    if currency.is_none()
        && let Some((code, len)) = currency_prefix(trimmed)
    {
        currency = Some(code);
        after = &trimmed[len..];
    }
    let unit = after.trim();
    Some(Amount {
        value: if negative { -value } else { value },
        tolerance,
        currency,
        percent,
        unit: (!unit.is_empty()).then(|| unit.to_string()),
    })
}

/// The shape of the figures in a cell.
#[derive(Debug, Clone, PartialEq)]
pub enum CellNumbers {
    /// No figure.
    None,
    /// One value, possibly followed by the same value converted in parentheses.
    One(Amount, Option<Amount>),
    /// Two figures joined by a dash or "to": a range or a score.
    Range(String),
    /// Several figures otherwise: a list, a score written with spaces, figures in prose.
    Several(String),
}

/// Where each figure of `text` starts, skipping digits glued to letters (`A380`) or to
/// another figure.
fn figure_starts(text: &str, mark: DecimalMark) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let glued_before = text[..i]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        let (len, _, _) = figure(&text[i..], mark).unwrap_or((1, 0.0, 0.0));
        if !glued_before {
            out.push((i, i + len));
        }
        i += len.max(1);
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    out
}

/// Reads a cell's figures and says whether it states one value.
pub fn cell_numbers(text: &str, mark: DecimalMark) -> CellNumbers {
    let stripped = FOOTNOTE.replace_all(text, "");
    let t = stripped.trim();
    let starts = figure_starts(t, mark);
    let Some(&(first, first_end)) = starts.first() else {
        return CellNumbers::None;
    };
    // The value opens at its sign or currency when only those precede it ("$ 2,540,000",
    // "+12"), at its digits otherwise ("c. 1,200").
    let parse_from =
        |to: usize| parse_amount(&t[..to], mark).or_else(|| parse_amount(&t[first..to], mark));
    if starts.len() == 1 {
        return match parse_from(t.len()) {
            Some(a) => CellNumbers::One(a, None),
            None => CellNumbers::None,
        };
    }
    let (second, second_end) = starts[1];
    let between = &t[first_end..second];
    let joiner = between.trim();
    let joiner_core = joiner
        .trim_start_matches(|c: char| c.is_alphabetic() || c == '%' || c == '.')
        .trim();
    if starts.len() == 2 && between.contains('(') && t[second_end..].contains(')') {
        // "6,024 km (3,743 mi)": the same value in another unit.
        let close = t[second_end..]
            .find(')')
            .map_or(t.len(), |p| second_end + p);
        let inner_start = first_end + between.find('(').map_or(0, |p| p + 1);
        let after_close = t[close..].trim_start_matches(')').trim();
        if after_close.is_empty() || !after_close.contains(|c: char| c.is_ascii_digit()) {
            let main = parse_from(first_end + between.find('(').unwrap_or(0));
            let conv = parse_amount(&t[inner_start..close], mark);
            if let Some(a) = main {
                return CellNumbers::One(a, conv);
            }
        }
    }
    if starts.len() == 2
        && (matches!(
            joiner_core,
            "-" | "–" | "—" | "−" | "to" | "bis" | "à" | "a" | "до"
        ) || joiner.eq_ignore_ascii_case("to"))
    {
        return CellNumbers::Range(t.to_string());
    }
    CellNumbers::Several(t.to_string())
}

/// Every grouped figure in `text` written without its group separators, decimals with
/// `.`, and no space between a currency sign and its figure: so that `$ 2,540,000`,
/// `$2540000` and (on a German wiki) `2.540.000 $` compare equal as text. Text without
/// digits comes back as it is, uncopied.
pub fn fold_figures(text: &str, mark: DecimalMark) -> Cow<'_, str> {
    if figures_plain(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(fold_figures_in(text, mark))
}

/// Whether every figure of `text` is already plain digits and no currency sign stands
/// before one: no currency sign at all, and no digit followed by a separator (or by
/// anything not ASCII) and another digit. [`fold_figures`] leaves such text as it is,
/// and most values and cells are such text.
fn figures_plain(text: &str) -> bool {
    if text.contains(['$', '€', '£', '¥', '₹']) {
        return false;
    }
    let b = text.as_bytes();
    !b.iter().enumerate().any(|(i, d)| {
        d.is_ascii_digit()
            && b.get(i + 1).is_some_and(|&n| {
                n >= 0x80
                    || matches!(n, b',' | b'.' | b' ' | b'\'')
                        && b.get(i + 2).is_some_and(u8::is_ascii_digit)
            })
    })
}

fn fold_figures_in(text: &str, mark: DecimalMark) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (s, e) in figure_starts(text, mark) {
        out.push_str(&text[last..s]);
        // Drop spaces between a currency sign and the figure.
        let tail = out.trim_end_matches([' ', '\u{a0}']);
        if tail.ends_with(['$', '€', '£', '¥', '₹']) {
            out.truncate(tail.len());
        }
        for c in text[s..e].chars() {
            match (c, mark) {
                (d, _) if d.is_ascii_digit() => out.push(d),
                ('.', DecimalMark::Point) | (',', DecimalMark::Comma) => out.push('.'),
                _ => {}
            }
        }
        last = e;
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: DecimalMark = DecimalMark::Point;
    const C: DecimalMark = DecimalMark::Comma;

    fn value(s: &str, m: DecimalMark) -> Option<f64> {
        parse_amount(s, m).map(|a| a.value)
    }

    #[test]
    fn signs_currencies_scales_and_units() {
        assert_eq!(value("+12", P), Some(12.0));
        assert_eq!(value("−4.5", P), Some(-4.5));
        assert_eq!(value("$ 2,540,000", P), Some(2_540_000.0));
        let eur = parse_amount("€1.2 million", P).expect("amount");
        assert_eq!((eur.value, eur.currency), (1_200_000.0, Some("EUR")));
        assert_eq!(eur.tolerance, 50_000.0);
        let pct = parse_amount("12 %", P).expect("amount");
        assert!(pct.percent && pct.unit.is_none());
        let km = parse_amount("2,850 km", P).expect("amount");
        assert_eq!(km.unit.as_deref(), Some("km"));
        assert_eq!(
            parse_amount("US$3.1 billion", P).map(|a| a.currency),
            Some(Some("USD"))
        );
        assert_eq!(value("12 €", C), Some(12.0));
        // Every currency written as a symbol can be written as its code.
        assert!(
            parse_amount("₩894,366,000", P)
                .expect("a")
                .equals(&parse_amount("KRW 894366000", P).expect("b"))
        );
        assert_eq!(value("about 5", P), None);
        assert_eq!(value("A380", P), None);
        // The language's decimal mark.
        assert_eq!(value("20,31 %", C), Some(20.31));
        assert_eq!(value("2.540.000", C), Some(2_540_000.0));
        assert_eq!(value("2 540 000", C), Some(2_540_000.0));
        assert!(
            parse_amount("$5", P)
                .expect("a")
                .equals(&parse_amount("US$ 5", P).expect("b"))
        );
        assert!(
            !parse_amount("€5", P)
                .expect("a")
                .equals(&parse_amount("£5", P).expect("b"))
        );
        assert_eq!(DecimalMark::for_lang("de"), C);
        assert_eq!(DecimalMark::for_lang("pt-br"), C);
        assert_eq!(DecimalMark::for_lang("en"), P);
        assert_eq!(DecimalMark::for_lang("zh"), P);
    }

    #[test]
    fn cells_state_one_value_or_a_range_or_several() {
        let one = |t: &str| match cell_numbers(t, P) {
            CellNumbers::One(a, c) => Some((a.value, c.map(|c| c.value))),
            _ => None,
        };
        assert_eq!(one("2,850[1]"), Some((2850.0, None)));
        assert_eq!(one("6,024 km (3,743 mi)"), Some((6024.0, Some(3743.0))));
        assert_eq!(one("$2,540,000"), Some((2_540_000.0, None)));
        assert_eq!(one("c. 1,200"), Some((1200.0, None)));
        assert!(matches!(
            cell_numbers("2008–2014", P),
            CellNumbers::Range(_)
        ));
        assert!(matches!(
            cell_numbers("10 to 20 km", P),
            CellNumbers::Range(_)
        ));
        assert!(matches!(cell_numbers("3–1", P), CellNumbers::Range(_)));
        assert!(matches!(cell_numbers("9 8", P), CellNumbers::Several(_)));
        assert!(matches!(
            cell_numbers("3, 5, 7", P),
            CellNumbers::Several(_)
        ));
        assert_eq!(cell_numbers("Boeing", P), CellNumbers::None);
        assert!(
            matches!(cell_numbers("20,31 %", C), CellNumbers::One(a, None) if a.value == 20.31)
        );
    }

    /// Text the quick test calls plain is what folding its figures leaves unchanged.
    #[test]
    fn plain_figures_are_left_as_they_are() {
        let samples = [
            "1997",
            "Eek ! The Cat",
            "2011-16",
            "12 km",
            "A380 and 747",
            "1.5",
            "1,234",
            "2 540 000",
            "3'000",
            "$ 12",
            "€12",
            "12\u{a0}000",
            "1,2345",
            "v2.0 beta",
            "20,31 %",
            "no digits",
            "",
            "9 8",
            "1 to 2",
            "(3) 4",
            "1.",
            "1, 2",
            "year 2000, when",
        ];
        for s in samples {
            for m in [P, C] {
                if figures_plain(s) {
                    assert_eq!(fold_figures_in(s, m), s, "{s:?} {m:?}");
                }
                assert_eq!(fold_figures(s, m), fold_figures_in(s, m), "{s:?} {m:?}");
            }
        }
        assert!(figures_plain("1997") && !figures_plain("1,234") && !figures_plain("$1"));
    }

    #[test]
    fn figures_fold_to_plain_digits() {
        assert_eq!(fold_figures("$ 2,540,000", P), "$2540000");
        assert_eq!(fold_figures("$2540000", P), "$2540000");
        assert_eq!(fold_figures("Capacity : 10,778", P), "Capacity : 10778");
        assert_eq!(
            fold_figures("6,024 km (3,743 mi)", P),
            fold_figures("6024 km (3743 mi)", P)
        );
        assert_eq!(fold_figures("20,31 %", C), "20.31 %");
        assert_eq!(fold_figures("20,31 %", P), "20,31 %");
        assert_eq!(fold_figures("2.540.000 €", C), "2540000 €");
        assert_eq!(fold_figures("2008–2014", P), "2008–2014");
        assert_eq!(fold_figures("1, 2, 3", C), "1, 2, 3");
        assert_eq!(fold_figures("1,2345", P), "1,2345");
    }
}
