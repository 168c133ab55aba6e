//! The content language's interface messages and date formats: what MediaWiki writes in
//! error spans (`Expression error: …`, `Script error: …`, `Template loop detected: …`),
//! month and weekday names, the time format of `{{CURRENTTIME}}` and the separators of
//! `mw.text.listToText`.
//!
//! MediaWiki takes them from its i18n files, which are GPL and not copied here. They come
//! instead from a messages file recorded from a running MediaWiki of the same content
//! language (`tools/mediawiki/record-messages`: the API's `meta=allmessages&amlang=…`
//! plus the language's date formats), which the user passes to the build or to `expand`
//! (`--messages FILE`). Without one every text is MediaWiki's English, written in the
//! expander where it is used; a message the file lacks also falls back to English, as
//! MediaWiki falls back along its language chain to English.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::time::{DAYS, IRANIAN_MONTHS, MONTHS};

/// Why a messages file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MessagesError {
    #[error("cannot read messages file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(
        "messages file {path}: not a recorded messages file (line {line}, column {column}): {message}"
    )]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// `Language::getDateFormatString` for the language's default preference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DateFormats {
    /// `{{CURRENTTIME}}`, `{{LOCALTIME}}` (`H:i` in English, `H.i` in ltg).
    pub time: String,
    pub date: String,
    pub both: String,
}

impl Default for DateFormats {
    fn default() -> Self {
        DateFormats {
            time: "H:i".to_string(),
            date: "H:i, j F Y".to_string(),
            both: "H:i, j F Y".to_string(),
        }
    }
}

/// A recorded messages file: `{"lang": "ltg", "mediawiki": "MediaWiki 1.39.17",
/// "date_formats": {"time": "H.i", …}, "messages": {"january": "…", …}}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Messages {
    /// The language the messages are in (informative: the wiki's content language).
    pub lang: String,
    /// The MediaWiki that answered (informative).
    pub mediawiki: String,
    pub date_formats: DateFormats,
    /// Message key (lower case, as the API lists them) → text, `$1`… for parameters.
    pub messages: BTreeMap<String, String>,
}

/// English month abbreviations are the first three letters of the name; MediaWiki's
/// keys for them.
const MONTH_KEYS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may_long",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const MONTH_ABBREV_KEYS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAY_KEYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];
const DAY_ABBREV_KEYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl Messages {
    /// Reads a file written by `tools/mediawiki/record-messages`.
    pub fn load(path: &Path) -> Result<Messages, MessagesError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| MessagesError::Io {
            path: shown.clone(),
            source,
        })?;
        serde_json::from_slice(&bytes).map_err(|e| MessagesError::Json {
            path: shown,
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
    }

    /// The text of message `key`, `english` when the file does not have it.
    pub fn text<'a>(&'a self, key: &str, english: &'a str) -> &'a str {
        self.messages.get(key).map_or(english, String::as_str)
    }

    /// The text of `key` with `$1`, `$2`, … replaced by `params` (as given: escaping is
    /// the caller's, as MediaWiki's callers choose between `text()` and `escaped()`).
    pub fn format(&self, key: &str, english: &str, params: &[&str]) -> String {
        substitute(self.text(key, english), params)
    }

    /// Month `m` (1–12) as `F` writes it.
    pub(crate) fn month_name(&self, m: u8) -> &str {
        let i = usize::from(m.clamp(1, 12)) - 1;
        self.text(MONTH_KEYS[i], MONTHS[i])
    }

    /// Month `m` in the genitive (`xg`, `{{CURRENTMONTHNAMEGEN}}`): the name in English.
    pub(crate) fn month_genitive(&self, m: u8) -> &str {
        let i = usize::from(m.clamp(1, 12)) - 1;
        self.messages
            .get(&format!("{}-gen", MONTH_KEYS[i].trim_end_matches("_long")))
            .map_or_else(|| self.month_name(m), String::as_str)
    }

    /// Iranian month `m` (1–12) as `xiF` writes it.
    pub(crate) fn iranian_month(&self, m: u8) -> &str {
        let i = usize::from(m.clamp(1, 12)) - 1;
        self.messages
            .get(&format!("iranian-calendar-m{}", i + 1))
            .map_or(IRANIAN_MONTHS[i], String::as_str)
    }

    /// Month `m` abbreviated (`M`).
    pub(crate) fn month_abbrev(&self, m: u8) -> &str {
        let i = usize::from(m.clamp(1, 12)) - 1;
        self.text(MONTH_ABBREV_KEYS[i], &MONTHS[i][..3])
    }

    /// Weekday `d` (0 = Sunday) as `l` writes it.
    pub(crate) fn day_name(&self, d: u8) -> &str {
        let i = usize::from(d.min(6));
        self.text(DAY_KEYS[i], DAYS[i])
    }

    /// Weekday `d` abbreviated (`D`).
    pub(crate) fn day_abbrev(&self, d: u8) -> &str {
        let i = usize::from(d.min(6));
        self.text(DAY_ABBREV_KEYS[i], &DAYS[i][..3])
    }
}

/// `$1`… → `params[0]`…, in one pass (a parameter's own `$2` stays as written).
pub(crate) fn substitute(text: &str, params: &[&str]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('$') {
        out.push_str(&rest[..p]);
        let after = &rest[p + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let n: usize = after[..digits].parse().unwrap_or(0);
        match params.get(n.wrapping_sub(1)) {
            Some(v) if digits > 0 => out.push_str(v),
            _ => out.push_str(&rest[p..p + 1 + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ltg() -> Messages {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/expand-mw/messages-ltg.json");
        Messages::load(&path).expect("recorded messages")
    }

    #[test]
    fn parameters_are_substituted_once() {
        assert_eq!(substitute("a $1 b $2 $3", &["x", "$2"]), "a x b $2 $3");
        assert_eq!(substitute("$ $x $10", &["y"]), "$ $x $10");
    }

    #[test]
    fn names_come_from_the_file_and_fall_back_to_english() {
        let en = Messages::default();
        assert_eq!(en.month_name(5), "May");
        assert_eq!(en.month_abbrev(9), "Sep");
        assert_eq!(en.month_genitive(8), "August");
        assert_eq!(en.day_abbrev(0), "Sun");
        assert_eq!(en.date_formats.time, "H:i");
        let ltg = ltg();
        assert_eq!(ltg.month_name(8), "labeibys mieness");
        assert_eq!(ltg.month_genitive(8), "labeibys mieneša");
        assert_eq!(ltg.day_name(0), "svātdīne");
        assert_eq!(ltg.date_formats.time, "H.i");
        assert_eq!(
            ltg.format(
                "parser-template-loop-warning",
                "Template loop detected: [[$1]]",
                &["T"]
            ),
            "Veidne ir ievietota tādā pašā veidnē: [[T]]"
        );
        assert_eq!(ltg.text("no-such-message-key", "English"), "English");
    }

    #[test]
    fn a_bad_file_is_named_in_the_error() {
        let dir = std::env::temp_dir().join(format!("wikiwit-msgs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.json");
        std::fs::write(&path, "{\"messages\": [1,").unwrap();
        let err = Messages::load(&path).unwrap_err().to_string();
        assert!(err.contains("bad.json") && err.contains("line 1"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
