//! PHP's date reader: what `new DateTime($date, new DateTimeZone('UTC'))` makes of a
//! string, through timelib — the C library inside PHP's date extension, built and
//! linked by the `timelib` crate. MediaWiki reads `{{#time}}` and
//! `mw.language:formatDate` dates this way, so relative formats (`today + 2 days`,
//! `last day of next month`), zone names, abbreviations and PHP's error rules all come
//! out as MediaWiki computes them (docs/expansion.md, "Dates").
//!
//! The crate's safe `strtotime` is not used: its zone cache is a process-wide C hash map
//! without a lock, keyed by a string timelib frees right after the lookup. This module
//! declares the few timelib entry points it needs itself and keeps its own cache of
//! zones behind a mutex, so any number of threads may parse at once.

use std::ffi::{c_char, c_int, c_void};
use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashMap;
// The crate is linked for its build of timelib's C sources, which the declarations below
// call; none of its Rust items are used.
use timelib as _;

/// timelib's `timelib_error_container`: only the counts are read.
#[repr(C)]
struct ErrorContainer {
    error_messages: *mut c_void,
    warning_messages: *mut c_void,
    error_count: c_int,
    warning_count: c_int,
}

/// `timelib_time`, `timelib_tzinfo`, `timelib_tzdb`: opaque here, handled only through
/// timelib's own functions.
type Time = c_void;
type TzInfo = c_void;
type TzDb = c_void;

type TzWrapper = unsafe extern "C" fn(*const c_char, *const TzDb, *mut c_int) -> *mut TzInfo;

/// `TIMELIB_NO_CLONE`: the parsed time borrows the base's zone instead of copying it.
const NO_CLONE: c_int = 0x04;

unsafe extern "C" {
    fn timelib_strtotime(
        s: *const c_char,
        len: usize,
        errors: *mut *mut ErrorContainer,
        tzdb: *const TzDb,
        wrapper: TzWrapper,
    ) -> *mut Time;
    fn timelib_error_container_dtor(errors: *mut ErrorContainer);
    fn timelib_builtin_db() -> *const TzDb;
    fn timelib_parse_tzfile(name: *const c_char, tzdb: *const TzDb, err: *mut c_int)
    -> *mut TzInfo;
    fn timelib_time_ctor() -> *mut Time;
    fn timelib_time_dtor(t: *mut Time);
    fn timelib_set_timezone(t: *mut Time, tz: *mut TzInfo);
    fn timelib_unixtime2local(t: *mut Time, ts: i64);
    fn timelib_fill_holes(parsed: *mut Time, now: *mut Time, options: c_int);
    fn timelib_update_ts(t: *mut Time, tz: *mut TzInfo);
    fn timelib_date_to_int(t: *mut Time, error: *mut c_int) -> i64;
}

/// Zones read from timelib's built-in database, by name, kept for the process's life:
/// the parsed times point into them, and there are only as many as the database has.
static ZONES: OnceLock<Mutex<FxHashMap<Vec<u8>, usize>>> = OnceLock::new();

/// The zone `name` (timelib's callback for zone identifiers met while parsing, and the
/// UTC of the base time): parsed once, then shared.
unsafe extern "C" fn zone(name: *const c_char, tzdb: *const TzDb, err: *mut c_int) -> *mut TzInfo {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: timelib passes a NUL-terminated name it owns for the call's duration.
    let key = unsafe { std::ffi::CStr::from_ptr(name) }
        .to_bytes()
        .to_vec();
    let zones = ZONES.get_or_init(|| Mutex::new(FxHashMap::default()));
    let mut zones = zones.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(&z) = zones.get(&key) {
        return z as *mut TzInfo;
    }
    // SAFETY: `name` and `tzdb` come from timelib, `err` is its out-parameter.
    let z = unsafe { timelib_parse_tzfile(name, tzdb, err) };
    if !z.is_null() {
        zones.insert(key, z as usize);
    }
    z
}

/// Seconds since the epoch of `date` read as PHP's `DateTime` reads it in UTC, with
/// `now` (seconds since the epoch) filling what the string leaves out; `None` where
/// PHP's constructor throws ("Failed to parse time string").
pub(crate) fn strtotime(date: &str, now: i64) -> Option<i64> {
    // PHP refuses strings with NUL bytes before timelib sees them.
    if date.contains('\0') {
        return None;
    }
    let Some((reordered, rest)) = day_of_first(date) else {
        return read(date, now);
    };
    let unix = read(&reordered, now)?;
    // Upstream timelib also sets the time to midnight for the phrase, where PHP's copy
    // leaves it to be filled from now: when nothing else in the string sets a time (the
    // rest's answer moves with now's second), PHP's answer has now's time of day.
    let follows_now = match (read(&rest, now), read(&rest, now + 1)) {
        (Some(a), Some(b)) => b - a == 1,
        _ => false,
    };
    Some(if follows_now {
        unix + now.rem_euclid(86_400)
    } else {
        unix
    })
}

/// One call of timelib: `date` read in UTC with `now` filling the gaps.
fn read(date: &str, now: i64) -> Option<i64> {
    // PHP's copy of timelib reads blank input as now; the upstream one refuses it.
    if date.bytes().all(|b| b" \t\n\x0b\x0c\r".contains(&b)) {
        return Some(now);
    }
    // SAFETY: every pointer passed is either timelib's own result or a live buffer; each
    // timelib object is freed exactly once, and zones are never freed (see `ZONES`).
    unsafe {
        let db = timelib_builtin_db();
        let mut errors: *mut ErrorContainer = std::ptr::null_mut();
        let parsed = timelib_strtotime(date.as_ptr().cast(), date.len(), &mut errors, db, zone);
        let failed = errors.is_null() || (*errors).error_count != 0;
        if !errors.is_null() {
            timelib_error_container_dtor(errors);
        }
        if failed || parsed.is_null() {
            if !parsed.is_null() {
                timelib_time_dtor(parsed);
            }
            return None;
        }
        let mut code = 0;
        let utc = zone(c"UTC".as_ptr(), db, &mut code);
        if utc.is_null() {
            timelib_time_dtor(parsed);
            return None;
        }
        let base = timelib_time_ctor();
        timelib_set_timezone(base, utc);
        timelib_unixtime2local(base, now);
        timelib_fill_holes(parsed, base, NO_CLONE);
        timelib_update_ts(parsed, utc);
        let mut overflow = 0;
        let sse = timelib_date_to_int(parsed, &mut overflow);
        timelib_time_dtor(parsed);
        timelib_time_dtor(base);
        (overflow == 0).then_some(sse)
    }
}

/// `date` with its `first day of`/`last day of` phrases moved to the front, and the
/// string without them; `None` when it has none.
///
/// Upstream timelib (the crate's copy) forgets a time of day read before such a phrase
/// ("noon first day of next month" becomes midnight); PHP's own copy keeps it. The
/// phrase is a token of its own and the other tokens do not depend on their order, so
/// reading the phrases first gives PHP's answer with either copy.
fn day_of_first(date: &str) -> Option<(String, String)> {
    let find = |s: &str| {
        let lower = s.to_ascii_lowercase();
        ["first day of", "last day of"]
            .iter()
            .filter_map(|p| lower.find(p).map(|i| (i, p.len())))
            .min()
    };
    let mut phrases = String::new();
    let mut rest = date.to_string();
    while let Some((i, len)) = find(&rest) {
        phrases.push_str(&rest[i..i + len]);
        phrases.push(' ');
        rest.replace_range(i..i + len, " ");
    }
    if phrases.is_empty() {
        return None;
    }
    Some((format!("{phrases}{rest}"), rest))
}

#[cfg(test)]
mod tests {
    use super::strtotime;

    /// 2024-06-19T00:00:00Z, the cs1 dump's build time.
    const NOW: i64 = 1_718_755_200;

    #[test]
    fn reads_relative_and_zoned_dates() {
        assert_eq!(strtotime("today + 2 days", NOW), Some(NOW + 2 * 86_400));
        assert_eq!(strtotime("2020-05-01 + 1 day", NOW), Some(1_588_377_600));
        assert_eq!(strtotime("1May", NOW), Some(1_714_521_600));
        assert_eq!(
            strtotime("2020-05-01 12:00 Europe/Paris", NOW),
            Some(1_588_327_200)
        );
        assert_eq!(strtotime("@86400", NOW), Some(86_400));
    }

    #[test]
    fn refuses_what_php_refuses() {
        for bad in [
            "2020-13-45 garbage",
            "next blursday",
            "a\0b",
            "Mars/Olympus 12:00",
        ] {
            assert_eq!(strtotime(bad, NOW), None, "{bad}");
        }
    }

    /// Every input of the fixture recorded from php-cli 8.2 (tools/php-dates/record.php)
    /// reads to the same instant, or fails in the same places.
    #[test]
    fn agrees_with_php() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/php-dates/strtotime.jsonl"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        let mut differ = Vec::new();
        let mut n = 0;
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("json line");
            let input = v["in"].as_str().expect("in");
            let want = v["out"].as_i64();
            let now = v["now"].as_i64().expect("now");
            n += 1;
            let got = strtotime(input, now);
            if got != want {
                differ.push(format!("{input:?} at {now}: php {want:?}, wikiwit {got:?}"));
            }
        }
        assert!(n > 3000, "fixture too small: {n}");
        assert!(
            differ.is_empty(),
            "{} of {n} differ:\n{}",
            differ.len(),
            differ.join("\n")
        );
    }

    /// A module can pass any string: random mixtures of PHP's date tokens, digits,
    /// signs and stray bytes, and very long inputs, must come back (a value or `None`)
    /// without crashing or stalling.
    #[test]
    fn survives_hostile_input() {
        use rand_chacha::ChaCha8Rng;
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        const PIECES: [&str; 24] = [
            "first day of",
            "last",
            "next",
            "+",
            "-",
            "1",
            "99999999999",
            " ",
            "day",
            "month",
            "Europe/Paris",
            "EST",
            "@",
            ":",
            "T",
            "W",
            "noon",
            "ago",
            "Mon",
            "(",
            ")",
            "\u{1F600}",
            "ı",
            ".",
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(37);
        for _ in 0..20_000 {
            let n = (rng.next_u32() % 12) as usize;
            let s: String = (0..n)
                .map(|_| match rng.next_u32() % 5 {
                    0 => char::from_u32(rng.next_u32() % 0x250)
                        .unwrap_or('?')
                        .to_string(),
                    _ => PIECES[(rng.next_u32() as usize) % PIECES.len()].to_string(),
                })
                .collect();
            let _ = strtotime(&s, NOW);
        }
        let _ = strtotime(&"9".repeat(100_000), NOW);
        let _ = strtotime(&"+1 day ".repeat(10_000), NOW);
        let _ = strtotime(&"(".repeat(10_000), NOW);
        assert_eq!(
            strtotime(&format!("{} 2020-01-01", " ".repeat(50_000)), NOW),
            Some(1_577_836_800)
        );
    }

    #[test]
    fn parses_from_many_threads() {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                std::thread::spawn(move || {
                    (0..200)
                        .map(|_| strtotime(&format!("2020-01-0{} Asia/Tokyo", i + 1), NOW))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (i, h) in handles.into_iter().enumerate() {
            let want = Some(1_577_804_400 + i as i64 * 86_400);
            assert!(h.join().unwrap().iter().all(|&r| r == want));
        }
    }
}
