//! What a language formats numbers, dates and durations with, as MediaWiki 1.39 does
//! for a `Language` object of any code (`mw.language:formatNum`, `formatDate`,
//! `formatDuration`, `{{#time:…|lang}}`): month and weekday names, the separators and
//! digits `formatNum` writes, the duration messages and list separators.
//!
//! The table (`data/locale.tsv`) is recorded from a running MediaWiki by
//! `tools/language-names/record-locale.php`, so its fallback chains and ICU's number
//! formats come out as MediaWiki applies them (see `data/README.md` for the sources and
//! licences). A code the table lacks formats as English, as MediaWiki's localisation
//! cache does for a language without messages.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::messages::Messages;
use super::php::htmlspecialchars;
use super::plural;

/// How `Language::formatNum` writes a number in one language.
#[derive(Debug, Default)]
pub(crate) struct NumberFormat {
    /// The decimal separator (`separatorTransformTable`'s, else ICU's).
    decimal: String,
    /// The grouping separator (same sources).
    group: String,
    /// ICU's primary grouping size (3; the first group from the right).
    primary: usize,
    /// ICU's secondary grouping size, 0 when the primary one repeats (2 in Hindi).
    secondary: usize,
    /// `minimumGroupingDigits`: shorter integer parts than this plus `primary` stay
    /// ungrouped (Polish writes 1234 but 12 345).
    minimum: usize,
    /// The digits `digitTransformTable` writes for 0–9, when not ASCII.
    digits: Option<Vec<char>>,
    /// The digits a grouped number comes out with (ICU's own for a few languages).
    grouped_digits: Option<Vec<char>>,
}

/// One language's formats.
#[derive(Debug, Default)]
pub(crate) struct Locale {
    /// Month and weekday names, duration messages and list separators, English where
    /// the language (through its fallbacks) has none.
    pub(crate) messages: Messages,
    pub(crate) number: NumberFormat,
}

/// Every language of the table by code, English's texts under each.
fn table() -> &'static FxHashMap<String, Locale> {
    static TABLE: OnceLock<FxHashMap<String, Locale>> = OnceLock::new();
    TABLE.get_or_init(|| parse(include_str!("data/locale.tsv")))
}

/// Reads `data/locale.tsv` (format: the header of `record-locale.php`).
fn parse(text: &str) -> FxHashMap<String, Locale> {
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix('=') {
            Some(code) => sections.push((code, Vec::new())),
            None => {
                if let Some((_, lines)) = sections.last_mut() {
                    lines.push(line);
                }
            }
        }
    }
    let mut english: BTreeMap<String, String> = BTreeMap::new();
    let mut out = FxHashMap::default();
    for (code, lines) in sections {
        let mut locale = Locale::default();
        let mut messages = english.clone();
        for line in lines {
            let fields: Vec<String> = line.split('\t').map(unescape).collect();
            if fields[0] == "num" {
                locale.number = number_format(&fields);
            } else if let [key, text] = &fields[..] {
                messages.insert(key.clone(), text.clone());
            }
        }
        if code == "en" {
            english.clone_from(&messages);
        }
        locale.messages = Messages {
            lang: code.to_string(),
            messages,
            ..Messages::default()
        };
        out.insert(code.to_string(), locale);
    }
    out
}

/// The `num` line's fields.
fn number_format(f: &[String]) -> NumberFormat {
    let field = |i: usize| f.get(i).map_or("", String::as_str);
    let digits = |i: usize| {
        let d: Vec<char> = field(i).chars().collect();
        (d.len() == 10).then_some(d)
    };
    NumberFormat {
        decimal: field(1).to_string(),
        group: field(2).to_string(),
        primary: field(3).parse().unwrap_or(3),
        secondary: field(4).parse().unwrap_or(0),
        minimum: field(5).parse().unwrap_or(0),
        digits: digits(6),
        grouped_digits: digits(7),
    }
}

/// A field with `\\`, `\t`, `\n` read back.
pub(crate) fn unescape(field: &str) -> String {
    if !field.contains('\\') {
        return field.to_string();
    }
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The formats of `code`; English's for a code MediaWiki has no messages for.
pub(crate) fn locale(code: &str) -> &'static Locale {
    let t = table();
    t.get(code).or_else(|| t.get("en")).unwrap_or_else(|| {
        static EMPTY: OnceLock<Locale> = OnceLock::new();
        EMPTY.get_or_init(Locale::default)
    })
}

/// Whether the table has `code` (MediaWiki has messages for it).
pub(crate) fn has(code: &str) -> bool {
    table().contains_key(code)
}

/// `Language::isValidBuiltInCode`: lowercase ASCII letters, digits and hyphens, at
/// least two.
pub(crate) fn is_valid_builtin_code(code: &str) -> bool {
    code.len() >= 2
        && code
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The names and digits a date is written with in `lang`, as `{{#time:…|lang}}` picks
/// them: the content language (its recorded messages, when the build has them) for an
/// empty code, the content language's own or one that is not a valid built-in code;
/// else that language's.
pub(crate) fn date_names<'a>(
    lang: &str,
    config: &'a super::ExpandConfig,
) -> (&'a Messages, &'static NumberFormat) {
    if lang.is_empty() || lang == config.lang || !is_valid_builtin_code(lang) {
        let own = locale(&config.lang);
        let recorded = !config.messages.messages.is_empty() || !has(&config.lang);
        let names = if recorded {
            &*config.messages
        } else {
            &own.messages
        };
        (names, &own.number)
    } else {
        let l = locale(lang);
        (&l.messages, &l.number)
    }
}

/// ASCII digits of `s` written with `digits`.
fn transform(s: &str, digits: Option<&Vec<char>>) -> String {
    match digits {
        None => s.to_string(),
        Some(d) => s
            .chars()
            .map(|c| match c.to_digit(10) {
                Some(i) if c.is_ascii_digit() => d[i as usize],
                _ => c,
            })
            .collect(),
    }
}

impl NumberFormat {
    /// `Language::formatNum` (`separators`) or `formatNumNoSeparators` of a number as
    /// PHP writes it (`123456.78901`, `-5`, `1.0E+15`): grouped unless too short for the
    /// language's minimum, separators and digits translated, `-` as U+2212.
    pub(crate) fn format(&self, number: &str, separators: bool) -> String {
        if number.is_empty() {
            return String::new();
        }
        let body = number.strip_prefix('-').unwrap_or(number);
        let int_len = body.bytes().take_while(u8::is_ascii_digit).count();
        let s = if !separators {
            transform(number, self.digits.as_ref())
        } else if (self.minimum > 0 && int_len < self.minimum + self.primary) || number == "-0" {
            transform(&number.replace('.', &self.decimal), self.digits.as_ref())
        } else {
            transform(&self.grouped(number), self.grouped_digits.as_ref())
        };
        s.replace('-', "\u{2212}")
    }

    /// ICU's decimal format as MediaWiki sets it up: the digits as written (its integer
    /// and fraction lengths kept) when the number is plain, else the value with at most
    /// three fraction digits; integer digits grouped.
    fn grouped(&self, number: &str) -> String {
        let plain_form = {
            let body = number.strip_prefix('-').unwrap_or(number);
            body.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && body.bytes().filter(|&b| b == b'.').count() <= 1
        };
        let owned;
        let plain = if plain_form {
            number
        } else {
            owned = icu_decimal(number.parse().unwrap_or(0.0));
            owned.as_str()
        };
        let (sign, body) = match plain.strip_prefix('-') {
            Some(b) => ("-", b),
            None => ("", plain),
        };
        let (int, frac) = match body.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (body, None),
        };
        let mut out = String::from(sign);
        let primary = self.primary.max(1);
        let secondary = if self.secondary > 0 {
            self.secondary
        } else {
            primary
        };
        let n = int.len();
        for (k, c) in int.chars().enumerate() {
            let left = n - k;
            let boundary = left > primary && (left - primary).is_multiple_of(secondary);
            if k > 0 && (left == primary || boundary) {
                out.push_str(&self.group);
            }
            out.push(c);
        }
        if let Some(f) = frac {
            out.push_str(&self.decimal);
            out.push_str(f);
        }
        out
    }

    /// `Language::parseFormattedNumber`: the language's digits and separators read back
    /// (U+2212 as `-`), grouping commas dropped; the caller reads the number.
    pub(crate) fn parse(&self, text: &str) -> String {
        let text = text.replace('\u{2212}', "-");
        let native = |c: char| {
            [&self.digits, &self.grouped_digits]
                .into_iter()
                .flatten()
                .find_map(|d| d.iter().position(|&x| x == c))
                .and_then(|i| char::from_digit(i as u32, 10))
        };
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(c) = rest.chars().next() {
            if !self.group.is_empty() && rest.starts_with(&self.group) {
                rest = &rest[self.group.len()..];
                continue;
            }
            if !self.decimal.is_empty() && rest.starts_with(&self.decimal) {
                out.push('.');
                rest = &rest[self.decimal.len()..];
                continue;
            }
            if c != ',' {
                out.push(native(c).unwrap_or(c));
            }
            rest = &rest[c.len_utf8()..];
        }
        out
    }

    /// Digits of a date's number as `sprintfDate` writes them (`formatNumNoSeparators`).
    pub(crate) fn date_digits(&self, n: &str) -> String {
        transform(n, self.digits.as_ref())
    }
}

/// `n` grouped by threes with `group`, its decimal point written `point` (the
/// content language's `{{formatnum:}}`).
pub(crate) fn group_by_three(n: &str, group: &str, point: &str) -> String {
    let f = NumberFormat {
        decimal: point.to_string(),
        group: group.to_string(),
        primary: 3,
        ..NumberFormat::default()
    };
    f.grouped(n)
}

/// A number as ICU's default decimal format writes it before grouping: whole numbers in
/// full, others with at most three fraction digits (`formatNum` of `1.0E+15`).
fn icu_decimal(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e21 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// MediaWiki's duration intervals, largest first, in seconds (a year of 365.2425 days).
const INTERVALS: [(&str, f64); 9] = [
    ("millennia", 31_556_952_000.0),
    ("centuries", 3_155_695_200.0),
    ("decades", 315_569_520.0),
    ("years", 31_556_952.0),
    ("weeks", 604_800.0),
    ("days", 86_400.0),
    ("hours", 3_600.0),
    ("minutes", 60.0),
    ("seconds", 1.0),
];

/// The intervals `getDurationIntervals` uses when the caller names none (no weeks).
pub(crate) const DEFAULT_INTERVALS: [&str; 8] = [
    "millennia",
    "centuries",
    "decades",
    "years",
    "days",
    "hours",
    "minutes",
    "seconds",
];

/// `Language::getDurationIntervals`: `seconds` split over the `chosen` intervals
/// (largest first), each with its count; the smallest one even at zero when nothing
/// larger fits.
pub(crate) fn duration_intervals(mut seconds: f64, chosen: &[&str]) -> Vec<(&'static str, f64)> {
    let chosen = if chosen.is_empty() {
        &DEFAULT_INTERVALS[..]
    } else {
        chosen
    };
    let picked: Vec<(&'static str, f64)> = INTERVALS
        .iter()
        .copied()
        .filter(|(name, _)| chosen.contains(name))
        .collect();
    let smallest = picked.last().map(|(name, _)| *name);
    let mut out = Vec::new();
    for (name, length) in picked {
        let value = (seconds / length).floor();
        if value > 0.0 || (Some(name) == smallest && out.is_empty()) {
            seconds -= value * length;
            out.push((name, value));
        }
    }
    out
}

impl Locale {
    /// `Language::formatDuration`: each interval's `duration-…` message with its count
    /// (a formatted number; `{{PLURAL:}}` by the language's rules), escaped, joined as
    /// `listToText` joins them.
    pub(crate) fn format_duration(&self, code: &str, seconds: f64, chosen: &[&str]) -> String {
        let segments: Vec<String> = duration_intervals(seconds, chosen)
            .into_iter()
            .map(|(name, value)| {
                let text = self.messages.text(&format!("duration-{name}"), "$1");
                let count = self.number.format(&php_number(value), true);
                let text = super::messages::substitute(text, &[&count]);
                escape(&plural_forms(&text, code, value))
            })
            .collect();
        self.list_to_text(segments)
    }

    /// `Language::listToText`: `a, b and c` with the language's separators.
    pub(crate) fn list_to_text(&self, mut list: Vec<String>) -> String {
        let Some(last) = list.pop() else {
            return String::new();
        };
        if list.is_empty() {
            return last;
        }
        let comma = if list.len() > 1 {
            escape(self.messages.text("comma-separator", ", "))
        } else {
            String::new()
        };
        let and = escape(self.messages.text("and", " and"));
        let space = escape(self.messages.text("word-separator", " "));
        format!("{}{and}{space}{last}", list.join(&comma))
    }
}

/// A count as PHP's `(string)` writes a float that holds an integer.
fn php_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        v.to_string()
    }
}

/// `Message::escaped`: `htmlspecialchars` without encoding an existing entity again.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&htmlspecialchars(&rest[..p]));
        let after = &rest[p + 1..];
        let entity = after.find(';').is_some_and(|e| {
            let name = &after[..e];
            let named = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric());
            let numeric = name.strip_prefix('#').is_some_and(|n| {
                let n = n.strip_prefix(['x', 'X']).unwrap_or(n);
                !n.is_empty() && n.bytes().all(|b| b.is_ascii_hexdigit())
            });
            named || numeric
        });
        out.push_str(if entity { "&" } else { "&amp;" });
        rest = after;
    }
    out.push_str(&htmlspecialchars(rest));
    out
}

/// `{{PLURAL:n|forms…}}` in a message's text, the form chosen for `value` by `code`'s
/// rules (the messages this module formats hold no other markup and no nesting).
fn plural_forms(text: &str, code: &str, value: f64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{PLURAL:") {
        let Some(len) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        let inner = &rest[start + "{{PLURAL:".len()..start + len];
        let forms: Vec<String> = inner.split('|').skip(1).map(str::to_string).collect();
        out.push_str(plural::choose(code, value, &forms));
        rest = &rest[start + len + 2..];
    }
    out.push_str(rest);
    out
}

/// `Language::convertGrammar` by the rules of `data/grammar.tsv` (MediaWiki's
/// `grammarTransformations`): the first rule of `case` whose pattern matches `word`
/// rewrites it; a language or case without rules leaves the word as it is.
pub(crate) fn convert_grammar(code: &str, word: &str, case: &str) -> String {
    type Rules = FxHashMap<(&'static str, &'static str), Vec<(regex::Regex, String)>>;
    static RULES: OnceLock<Rules> = OnceLock::new();
    let rules = RULES.get_or_init(|| {
        let mut rules: Rules = FxHashMap::default();
        for line in include_str!("data/grammar.tsv").lines() {
            let f: Vec<&str> = line.split('\t').collect();
            let [code, case, pattern, replacement] = f[..] else {
                continue;
            };
            // PCRE's `$1` before a letter is Rust's `${1}`; a pattern the regex crate
            // cannot read is left out (`tests::every_grammar_rule_compiles`).
            if let Ok(re) = regex::Regex::new(pattern) {
                let replacement = dollar_groups(replacement);
                rules
                    .entry((code, case))
                    .or_default()
                    .push((re, replacement));
            }
        }
        rules
    });
    rules
        .get(&(code, case))
        .and_then(|list| list.iter().find(|(re, _)| re.is_match(word)))
        .map_or_else(
            || word.to_string(),
            |(re, with)| re.replace_all(word, with.as_str()).into_owned(),
        )
}

/// `$n` → `${n}` (the regex crate reads `$1я` as a group named `1я`).
fn dollar_groups(replacement: &str) -> String {
    let mut out = String::with_capacity(replacement.len() + 4);
    let mut rest = replacement;
    while let Some(p) = rest.find('$') {
        out.push_str(&rest[..p]);
        let digits = rest[p + 1..].bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            out.push_str("$$");
        } else {
            out.push_str(&format!("${{{}}}", &rest[p + 1..p + 1 + digits]));
        }
        rest = &rest[p + 1 + digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Language::formatNum` and `formatNumNoSeparators` as Debian's MediaWiki 1.39
    /// answered (`maintenance/eval.php`; PHP's ICU), per language.
    #[test]
    fn numbers_as_each_language_writes_them() {
        let cases = [
            ("en", "123456.78901", "123,456.78901", "123456.78901"),
            ("kaa", "123456.78901", "123\u{a0}456,78901", "123456.78901"),
            ("fa", "123456.78901", "۱۲۳٬۴۵۶٫۷۸۹۰۱", "۱۲۳۴۵۶.۷۸۹۰۱"),
            ("pl", "1234.5", "1234,5", "1234.5"),
            ("pl", "12345", "12\u{a0}345", "12345"),
            ("hi", "1234567", "१२,३४,५६७", "१२३४५६७"),
            ("en", "-1234", "−1,234", "−1234"),
            ("en", "1.0E+15", "1,000,000,000,000,000", "1.0E+15"),
            ("xx-unknown", "1234", "1,234", "1234"),
            ("de", "-0", "−0", "−0"),
            ("en", ".5", ".5", ".5"),
            ("en", "0.000012345", "0.000012345", "0.000012345"),
            ("fr", "1234567.5", "1\u{a0}234\u{a0}567,5", "1234567.5"),
            ("ar", "1234.5", "١٬٢٣٤٫٥", "١٢٣٤.٥"),
            ("sd", "1234", "١٬٢٣٤", "1234"),
        ];
        for (code, n, grouped, plain) in cases {
            let f = &locale(code).number;
            assert_eq!(f.format(n, true), grouped, "{code} {n}");
            assert_eq!(f.format(n, false), plain, "{code} {n} without separators");
            let back: f64 = f.parse(grouped).parse().unwrap();
            assert_eq!(
                back,
                n.parse::<f64>().unwrap(),
                "{code} {grouped} read back"
            );
        }
    }

    /// `Language::formatDuration` (same MediaWiki); the first two are Scribunto's
    /// LanguageLibraryTests' expectations too.
    #[test]
    fn durations_as_each_language_writes_them() {
        let d = |code: &str, s: f64, chosen: &[&str]| locale(code).format_duration(code, s, chosen);
        let years = 3.0 * 31_556_952.0 + 7200.0;
        let cases = [
            (
                "en",
                "1 day, 1 minute and 1 second",
                "3 years and 2 hours",
                "0 seconds",
            ),
            (
                "kaa",
                "1 kún, 1 minut hám 1 sekund",
                "3 жыл hám 2 saat",
                "0 sekund",
            ),
            (
                "fa",
                "۱ روز، ۱ دقیقه و ۱ ثانیه",
                "۳ سال و ۲ ساعت",
                "۰ ثانیه",
            ),
            (
                "de",
                "1 Tag, 1 Minute und 1 Sekunde",
                "3 Jahre und 2 Stunden",
                "0 Sekunden",
            ),
            (
                "ru",
                "1 день, 1 минута и 1 секунда",
                "3 года и 2 часа",
                "0 секунд",
            ),
        ];
        for (code, day, long, zero) in cases {
            assert_eq!(d(code, 86461.0, &[]), day);
            assert_eq!(d(code, years, &[]), long);
            assert_eq!(d(code, 0.0, &[]), zero);
        }
        assert_eq!(
            d("en", 86461.0, &["hours", "minutes"]),
            "24 hours and 1 minute"
        );
        assert_eq!(d("fa", 86461.0, &["hours", "minutes"]), "۲۴ ساعت و ۱ دقیقه");
    }

    /// `{{#time:…|lang}}` as Debian's MediaWiki 1.39 expands it (`Parser::preprocess`).
    #[test]
    fn time_takes_a_language_argument() {
        let cases = [
            ("{{#time:F|2020-05-01|de}}", "Mai"),
            ("{{#time:j xg Y, l|2020-05-01|ru}}", "1 мая 2020, пятница"),
            (
                "{{#time:Y-F-d H:i:s|20140305123456|fa}}",
                "۲۰۱۴-مارس-۰۵ ۱۲:۳۴:۵۶",
            ),
            ("{{#time:Y-F-d|20140305123456|kaa}}", "2014-Mart-05"),
            ("{{#time:D, M j|2020-05-01|fr}}", "ven., mai 1"),
            (
                "{{#time:xnY Y xNd m xN H|2020-05-01|fa}}",
                "2020 ۲۰۲۰ 01 05  ۰۰",
            ),
            ("{{#time:F|2020-05-01|[[bogus]]}}", "May"),
            ("{{#time:F|2020-05-01|DE}}", "May"),
            ("{{#time:F|2020-05-01|xx-unknown}}", "May"),
            ("{{#time:xrY|2020-05-01|fa}}", "MMXX"),
            ("{{#time:F Y|2020-05-01|hi}}", "मई २०२०"),
            ("{{#time:F|2020-01-01|de-at}}", "Jänner"),
        ];
        for (input, want) in cases {
            assert_eq!(crate::expand::tests::run(&[], input).text, want, "{input}");
        }
    }

    #[test]
    fn grammar_by_mediawiki_rules() {
        assert_eq!(convert_grammar("ru", "**ия", "genitive"), "**ии");
        assert_eq!(
            convert_grammar("ru", "Википедия", "prepositional"),
            "Википедии"
        );
        assert_eq!(convert_grammar("ru", "русский", "languageprep"), "русском");
        assert_eq!(convert_grammar("ru", "**ия", "no-such-case"), "**ия");
        assert_eq!(convert_grammar("en", "word", "genitive"), "word");
    }

    #[test]
    fn every_grammar_rule_compiles() {
        for line in include_str!("data/grammar.tsv").lines() {
            let pattern = line.split('\t').nth(2).unwrap_or("");
            assert!(regex::Regex::new(pattern).is_ok(), "{line}");
        }
    }

    #[test]
    fn month_names_follow_the_fallback_chain() {
        assert_eq!(locale("kaa").messages.month_name(3), "Mart");
        assert_eq!(locale("de-at").messages.month_name(1), "Jänner");
        assert_eq!(locale("de").messages.month_name(1), "Januar");
        assert_eq!(locale("xx-unknown").messages.month_name(3), "March");
        assert!(has("de") && !has("xx-unknown"));
    }
}
