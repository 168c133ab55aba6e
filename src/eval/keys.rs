//! Primary-key normalization: when gold and prediction name the same row entity, their
//! keys must compare equal however they were typed.
//!
//! A table's primary key is written by hand (`Beyoncé`, `Beyonce`, `Simon & Garfunkel`,
//! `Simon and Garfunkel`, `1995`, `1995.0`): keys are folded to ASCII (`deunicode`,
//! a port of Perl's Text::Unidecode tables), lower-cased, `&` read as `and`,
//! punctuation dropped, whitespace collapsed, and a key that is a year or another whole
//! number written as a decimal compared as that integer.

use std::collections::BTreeSet;

use super::metrics::Prf;

/// The comparable form of a key.
pub(crate) fn normalize_key(key: &str) -> String {
    let folded = deunicode::deunicode(key)
        .to_lowercase()
        .replace('&', " and ");
    if let Some(n) = as_integer(folded.trim()) {
        return n;
    }
    let mut out = String::with_capacity(folded.len());
    for word in folded
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `1995`, `1995.0`, `01995`, `+1995` → `1995`: a whole number written any way. Other
/// text (`1995–96`, `3.5`, `1,234`) is left to the word rules.
fn as_integer(s: &str) -> Option<String> {
    let s = s.strip_prefix('+').unwrap_or(s);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b == b'0')
    {
        return None;
    }
    let trimmed = int.trim_start_matches('0');
    Some(if trimmed.is_empty() { "0" } else { trimmed }.to_string())
}

/// Key precision / recall / F1 of predicted keys against gold keys, both normalized.
pub(crate) fn key_scores<'a>(
    predicted: impl IntoIterator<Item = &'a str>,
    gold: impl IntoIterator<Item = &'a str>,
) -> Prf {
    let norm = |v: &mut dyn Iterator<Item = &'a str>| -> BTreeSet<String> {
        v.map(normalize_key).filter(|k| !k.is_empty()).collect()
    };
    Prf::score(
        &norm(&mut predicted.into_iter()),
        &norm(&mut gold.into_iter()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_ampersands_and_punctuation() {
        assert_eq!(normalize_key("Beyoncé"), "beyonce");
        assert_eq!(normalize_key("  BEYONCE "), "beyonce");
        assert_eq!(normalize_key("Simon & Garfunkel"), "simon and garfunkel");
        assert_eq!(normalize_key("Simon and Garfunkel"), "simon and garfunkel");
        assert_eq!(normalize_key("St. Mary's, Co-op"), "st mary s co op");
        assert_eq!(normalize_key("Łódź"), "lodz");
        assert_eq!(normalize_key("Ural (river)"), "ural river");
    }

    #[test]
    fn years_compare_as_integers() {
        assert_eq!(normalize_key("1995"), "1995");
        assert_eq!(normalize_key("1995.0"), "1995");
        assert_eq!(normalize_key("01995"), "1995");
        assert_eq!(normalize_key("1995–96"), "1995 96");
        assert_eq!(normalize_key("3.5"), "3 5");
    }

    #[test]
    fn key_scores_use_normalized_keys() {
        let p = key_scores(
            ["Beyoncé", "Simon & Garfunkel", "1995.0"],
            ["beyonce", "1995"],
        );
        assert!((p.precision - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(p.recall, 1.0);
    }
}
