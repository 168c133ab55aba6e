//! Dates: `{{#time:format|date}}` (`Language::sprintfDate` over what PHP's `DateTime`
//! reads) and the date variables, all relative to the pinned build time so that a dump
//! always expands to the same text.

use time::{Date, OffsetDateTime};

use super::locale::NumberFormat;
use super::messages::Messages;

pub(crate) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// MediaWiki's English names of the Iranian months (messages `iranian-calendar-m1` …).
pub(crate) const IRANIAN_MONTHS: [&str; 12] = [
    "Farvardin",
    "Ordibehesht",
    "Khordad",
    "Tir",
    "Mordad",
    "Shahrivar",
    "Mehr",
    "Aban",
    "Azar",
    "Dey",
    "Bahman",
    "Esfand",
];

pub(crate) const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The pinned "now" (UTC); out-of-range values fall back to the epoch.
pub fn at(unix: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(unix).unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// The Iranian (solar Hijri) date of a Gregorian date as MediaWiki computes it for
/// `#time`'s `xi…` codes: (year, month 1–12, day 1–31). MediaWiki uses the arithmetic
/// rule of 33-year cycles (2,820-year cycles are not involved), which agrees with the
/// astronomical calendar for the years a wiki writes about; so does this. Days are
/// counted from 1 January 1600, which was 11 Dey 978; the Iranian year's first six
/// months have 31 days, the next five 30, the last 29 or 30.
fn iranian(date: Date) -> (i64, u8, u8) {
    const MONTH_DAYS: [i64; 11] = [31, 31, 31, 31, 31, 31, 30, 30, 30, 30, 30];
    let year = date.year() as i64 - 1600;
    // Gregorian days since 1 January 1600.
    let days = 365 * year + (year + 3).div_euclid(4) - (year + 99).div_euclid(100)
        + (year + 399).div_euclid(400)
        + date.ordinal() as i64
        - 1;
    // 1 Farvardin 979 was 79 days later; 33 Iranian years are 12,053 days, four 1,461.
    let days = days - 79;
    let (cycles, mut d) = (days.div_euclid(12_053), days.rem_euclid(12_053));
    let mut year = 979 + 33 * cycles + 4 * (d / 1461);
    d %= 1461;
    if d >= 366 {
        year += (d - 1) / 365;
        d = (d - 1) % 365;
    }
    let mut month = 0;
    while month < MONTH_DAYS.len() && d >= MONTH_DAYS[month] {
        d -= MONTH_DAYS[month];
        month += 1;
    }
    (year, month as u8 + 1, d as u8 + 1)
}

/// Why a date has no formatting: MediaWiki's three errors of `{{#time}}` and
/// `mw.language:formatDate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateError {
    /// PHP's `DateTime` refused the string.
    Invalid,
    /// Before year 0 (`Language::sprintfDate` cannot write BC years).
    TooSmall,
    /// After year 9999 (the timestamp would not fit 14 digits).
    TooBig,
}

/// 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z, the bounds MediaWiki formats.
const YEAR_0: i64 = -62_167_219_200;
const YEAR_10000: i64 = 253_402_300_800;

/// Reads a date as MediaWiki's `{{#time}}` and `formatDate` do: empty means now, a lone
/// four-digit number is a year (not `HH:MM`), anything else goes to PHP's own reader
/// ([`super::strtotime`]) in UTC with `now` (seconds since the epoch) filling the gaps.
pub(crate) fn parse(input: &str, now: i64) -> Result<OffsetDateTime, DateError> {
    let unix = if input.is_empty() {
        now
    } else if input.len() == 4 && input.bytes().all(|b| b.is_ascii_digit()) {
        super::strtotime::strtotime(&format!("00:00 {input}"), now).ok_or(DateError::Invalid)?
    } else {
        super::strtotime::strtotime(input, now).ok_or(DateError::Invalid)?
    };
    if unix < YEAR_0 {
        return Err(DateError::TooSmall);
    }
    if unix >= YEAR_10000 {
        return Err(DateError::TooBig);
    }
    OffsetDateTime::from_unix_timestamp(unix).map_err(|_| DateError::TooBig)
}

fn roman(mut n: i64) -> String {
    if !(1..=10_000).contains(&n) {
        return n.to_string();
    }
    const TABLE: [(i64, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (v, s) in TABLE {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}

/// `Language::sprintfDate` for the format codes of PHP's `date()` plus MediaWiki's
/// `xg` (genitive month), `xr` (Roman numerals), `xn`/`xN` (raw digits), `\` escapes and
/// `"quoted"` literals. Month and weekday names are `names`' (the content language's).
pub fn format(fmt: &str, dt: OffsetDateTime, names: &Messages) -> String {
    format_in(fmt, dt, names, None)
}

/// [`format`] in a language that writes its numbers with its own digits (`numbers`:
/// `formatNumNoSeparators`, as `sprintfDate` applies it to every number except after
/// `xn` or inside an `xN` pair).
pub(crate) fn format_in(
    fmt: &str,
    dt: OffsetDateTime,
    names: &Messages,
    numbers: Option<&NumberFormat>,
) -> String {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut roman_next = false;
    let (mut raw_next, mut raw_toggle) = (false, false);
    let mut i = 0;
    let (iso_year, iso_week, _) = dt.to_iso_week_date();
    while i < chars.len() {
        let c = chars[i];
        let mut code = c.to_string();
        if c == 'x' && i + 1 < chars.len() {
            code.push(chars[i + 1]);
            i += 1;
            // `xi` opens the Iranian calendar's three-character codes.
            if code == "xi" && i + 1 < chars.len() {
                code.push(chars[i + 1]);
                i += 1;
            }
        }
        i += 1;
        // (value, zero-padded width)
        let num: Option<(i64, usize)> = match code.as_str() {
            "xx" => {
                out.push('x');
                None
            }
            "xn" => {
                raw_next = true;
                None
            }
            "xN" => {
                raw_toggle = !raw_toggle;
                None
            }
            "xr" => {
                roman_next = true;
                None
            }
            "F" => {
                out.push_str(names.month_name(dt.month() as u8));
                None
            }
            "xg" => {
                out.push_str(names.month_genitive(dt.month() as u8));
                None
            }
            "M" => {
                out.push_str(names.month_abbrev(dt.month() as u8));
                None
            }
            "D" => {
                out.push_str(names.day_abbrev(dt.weekday().number_days_from_sunday()));
                None
            }
            "l" => {
                out.push_str(names.day_name(dt.weekday().number_days_from_sunday()));
                None
            }
            "a" => {
                out.push_str(if dt.hour() < 12 { "am" } else { "pm" });
                None
            }
            "A" => {
                out.push_str(if dt.hour() < 12 { "AM" } else { "PM" });
                None
            }
            "e" | "T" => {
                out.push_str("UTC");
                None
            }
            "O" => {
                out.push_str("+0000");
                None
            }
            "P" => {
                out.push_str("+00:00");
                None
            }
            "c" => {
                out.push_str(&format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}+00:00",
                    dt.year(),
                    dt.month() as u8,
                    dt.day(),
                    dt.hour(),
                    dt.minute(),
                    dt.second()
                ));
                None
            }
            "r" => {
                out.push_str(&format!(
                    "{}, {:02} {} {:04} {:02}:{:02}:{:02} +0000",
                    &DAYS[dt.weekday().number_days_from_sunday() as usize][..3],
                    dt.day(),
                    &MONTHS[dt.month() as usize - 1][..3],
                    dt.year(),
                    dt.hour(),
                    dt.minute(),
                    dt.second()
                ));
                None
            }
            "xiF" => {
                let (_, m, _) = iranian(dt.date());
                out.push_str(names.iranian_month(m));
                None
            }
            "xij" => Some((iranian(dt.date()).2 as i64, 0)),
            "xin" => Some((iranian(dt.date()).1 as i64, 0)),
            "xiY" => Some((iranian(dt.date()).0, 0)),
            "xiy" => Some((iranian(dt.date()).0.rem_euclid(100), 2)),
            "d" => Some((dt.day() as i64, 2)),
            "m" => Some((dt.month() as u8 as i64, 2)),
            "H" => Some((dt.hour() as i64, 2)),
            "h" => Some((((dt.hour() + 11) % 12 + 1) as i64, 2)),
            "i" => Some((dt.minute() as i64, 2)),
            "s" => Some((dt.second() as i64, 2)),
            "W" => Some((iso_week as i64, 2)),
            "Y" => Some((dt.year() as i64, 4)),
            "y" => Some((dt.year().rem_euclid(100) as i64, 2)),
            "j" => Some((dt.day() as i64, 0)),
            "n" => Some((dt.month() as i64, 0)),
            "N" => Some((dt.weekday().number_from_monday() as i64, 0)),
            "w" => Some((dt.weekday().number_days_from_sunday() as i64, 0)),
            "z" => Some((dt.ordinal() as i64 - 1, 0)),
            "t" => Some((days_in_month(dt.year(), dt.month() as u8) as i64, 0)),
            "L" => Some(((days_in_month(dt.year(), 2) == 29) as i64, 0)),
            "o" => Some((iso_year as i64, 0)),
            "G" => Some((dt.hour() as i64, 0)),
            "g" => Some((((dt.hour() + 11) % 12 + 1) as i64, 0)),
            "U" => Some((dt.unix_timestamp(), 0)),
            "Z" | "I" => Some((0, 0)),
            "\\" => {
                if let Some(&next) = chars.get(i) {
                    out.push(next);
                    i += 1;
                } else {
                    out.push('\\');
                }
                None
            }
            "\"" => {
                match chars[i..].iter().position(|&q| q == '"') {
                    Some(p) => {
                        out.extend(&chars[i..i + p]);
                        i += p + 1;
                    }
                    None => out.push('"'),
                }
                None
            }
            other => {
                out.push_str(other);
                None
            }
        };
        if let Some((n, width)) = num {
            let digits = format!("{n:0width$}");
            if raw_next || raw_toggle {
                out.push_str(&digits);
                raw_next = false;
            } else if roman_next {
                out.push_str(&roman(n));
                roman_next = false;
            } else if let (Some(f), true) = (numbers, n >= 0) {
                out.push_str(&f.date_digits(&digits));
            } else {
                out.push_str(&digits);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> OffsetDateTime {
        // 2017-09-20 13:45:30 UTC, a Wednesday.
        at(1_505_915_130)
    }

    fn f(fmt: &str, date: &str) -> Option<String> {
        parse(date, now().unix_timestamp())
            .ok()
            .map(|d| format(fmt, d, &Messages::default()))
    }

    #[test]
    fn formats_the_pinned_now() {
        assert_eq!(f("YmdHis", "").unwrap(), "20170920134530");
        assert_eq!(f("Y-m-d", "").unwrap(), "2017-09-20");
        assert_eq!(f("j F Y, l", "").unwrap(), "20 September 2017, Wednesday");
        assert_eq!(f("D, M n, y g:i a", "").unwrap(), "Wed, Sep 9, 17 1:45 pm");
        assert_eq!(f("W N w z t L o", "").unwrap(), "38 3 3 262 30 0 2017");
        assert_eq!(f("\\Y \"quoted Y\" xrY", "").unwrap(), "Y quoted Y MMXVII");
        assert_eq!(f("U", "").unwrap(), "1505915130");
    }

    #[test]
    fn reads_common_date_forms() {
        assert_eq!(
            f("Y-m-d H:i:s", "2001-02-03").unwrap(),
            "2001-02-03 00:00:00"
        );
        assert_eq!(
            f("Y-m-d H:i:s", "2001-02-03T04:05:06Z").unwrap(),
            "2001-02-03 04:05:06"
        );
        assert_eq!(f("Y-m-d", "3 February 2001").unwrap(), "2001-02-03");
        assert_eq!(f("Y-m-d", "February 3, 2001").unwrap(), "2001-02-03");
        assert_eq!(f("Y-m-d", "Feb 2001").unwrap(), "2001-02-01");
        assert_eq!(f("Y-m-d", "1990").unwrap(), "1990-09-20");
        assert_eq!(f("Y-m-d", "31.12.1999").unwrap(), "1999-12-31");
        assert_eq!(f("Y-m-d", "@0").unwrap(), "1970-01-01");
        assert_eq!(f("Y-m-d", "+1 day").unwrap(), "2017-09-21");
        assert_eq!(f("Y-m-d", "2 weeks ago").unwrap(), "2017-09-06");
        assert_eq!(f("Y-m-d", "tomorrow").unwrap(), "2017-09-21");
        assert_eq!(f("Y-m-d", "2001-01-31 +1 month").unwrap(), "2001-03-03");
        assert_eq!(f("H:i", "5:30 pm").unwrap(), "17:30");
        assert!(f("Y", "not a date").is_none());
    }

    /// Nowruz (1 Farvardin) falls on 20 or 21 March; the dates are those of the Iranian
    /// calendar's published tables (the 2017 one is also MediaWiki's answer, recorded in
    /// `tests/data/expand-mw`).
    #[test]
    fn iranian_dates() {
        let cases = [
            ("2017-05-05", "15 2 Ordibehesht 1396 96"),
            ("2020-03-19", "29 12 Esfand 1398 98"),
            ("2020-03-20", "1 1 Farvardin 1399 99"),
            ("2021-03-21", "1 1 Farvardin 1400 00"),
            ("2024-03-19", "29 12 Esfand 1402 02"),
            ("2024-03-20", "1 1 Farvardin 1403 03"),
            ("2025-03-20", "30 12 Esfand 1403 03"),
            ("2025-03-21", "1 1 Farvardin 1404 04"),
            ("1979-02-11", "22 11 Bahman 1357 57"),
            ("2017-09-20", "29 6 Shahrivar 1396 96"),
        ];
        for (date, want) in cases {
            assert_eq!(f("xij xin xiF xiY xiy", date).unwrap(), want, "{date}");
        }
        // Other codes still read after an Iranian one.
        assert_eq!(f("xiY-m", "2017-05-05").unwrap(), "1396-05");
    }
}
