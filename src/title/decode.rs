//! Character-level transformations MediaWiki applies to title text: character references,
//! percent-decoding, whitespace, bidi marks and the first-letter upper-casing.

use std::borrow::Cow;

use unicode_normalization::UnicodeNormalization;

/// What PHP's `trim` removes (space, tab, LF, CR, NUL, vertical tab), not Unicode's
/// whitespace: MediaWiki trims titles' neighbours, parser function arguments and
/// `DEFAULTSORT` keys with it, so a no-break space stays.
pub(crate) const PHP_SPACE: [char; 6] = [' ', '\t', '\n', '\r', '\0', '\x0b'];

/// PHP's `trim`.
pub(crate) fn php_trim(s: &str) -> &str {
    s.trim_matches(PHP_SPACE)
}

/// Decodes `&name;`, `&#123;` and `&#x7B;` like `Sanitizer::decodeCharReferences`, and
/// applies NFC when anything was decoded (`decodeCharReferencesAndNormalize`).
///
/// Unknown names are left as written (a title containing one is then illegal); numeric
/// references to code points MediaWiki rejects become U+FFFD (which makes a title illegal).
pub(crate) fn decode_char_references(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'&', &bytes[i..]) {
        let amp = i + off;
        i = amp + 1;
        if let Some((decoded, end)) = decode_one(s, amp) {
            out.push_str(&s[last..amp]);
            out.push_str(&decoded);
            last = end;
            i = end;
            changed = true;
        }
    }
    if !changed {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[last..]);
    Cow::Owned(out.nfc().collect())
}

/// Decodes a character reference at the start of `s` (which starts with `&`): the
/// decoded text and the reference's length. Used by renderers that decode in place.
pub(crate) fn decode_entity_at(s: &str) -> Option<(Cow<'static, str>, usize)> {
    decode_one(s, 0)
}

/// The longest reference MediaWiki could decode (`&CounterClockwiseContourIntegral;` is 33
/// bytes); bounding the search for `;` keeps decoding linear on `&&&&…`.
const MAX_REFERENCE: usize = 40;

/// Decodes the reference starting at `amp` (which holds `&`); returns the text and the
/// byte index just past the `;`.
fn decode_one(s: &str, amp: usize) -> Option<(Cow<'static, str>, usize)> {
    let rest = &s[amp + 1..];
    let window = &rest.as_bytes()[..rest.len().min(MAX_REFERENCE)];
    let semi = memchr::memchr(b';', window)?;
    let body = &rest[..semi];
    let end = amp + 1 + semi + 1;
    if let Some(num) = body.strip_prefix('#') {
        let cp = if let Some(hex) = num.strip_prefix(['x', 'X']) {
            if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(hex, 16).unwrap_or(u32::MAX)
        } else {
            if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            num.parse::<u32>().unwrap_or(u32::MAX)
        };
        return Some((Cow::Owned(decode_codepoint(cp).to_string()), end));
    }
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_alphanumeric() || b >= 0x80) {
        return None;
    }
    let name = match body {
        // Sanitizer::HTML_ENTITY_ALIASES
        "רלמ" | "رلم" => "rlm",
        other => other,
    };
    let table = html_escape::NAMED_ENTITIES;
    let idx = table
        .binary_search_by(|(n, _)| (*n).cmp(name.as_bytes()))
        .ok()?;
    Some((Cow::Borrowed(table[idx].1), end))
}

/// `Sanitizer::decodeChar`: valid XML code points decode, everything else is U+FFFD.
fn decode_codepoint(cp: u32) -> char {
    let valid = cp == 0x09
        || cp == 0x0a
        || cp == 0x0d
        || (0x20..=0xd7ff).contains(&cp)
        || (0xe000..=0xfffd).contains(&cp)
        || (0x10000..=0x10ffff).contains(&cp);
    if valid {
        char::from_u32(cp).unwrap_or('\u{FFFD}')
    } else {
        '\u{FFFD}'
    }
}

/// PHP's `rawurldecode`: `%XX` → byte, everything else unchanged. `None` when the result
/// is not UTF-8 (MediaWiki then rejects the title).
pub(crate) fn percent_decode(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('%') {
        return Some(Cow::Borrowed(s));
    }
    let decoded: Cow<'_, [u8]> = percent_encoding::percent_decode_str(s).into();
    match decoded {
        Cow::Borrowed(_) => Some(Cow::Borrowed(s)),
        Cow::Owned(v) => String::from_utf8(v).ok().map(Cow::Owned),
    }
}

/// Bidi embedding and mark characters MediaWiki strips from titles.
pub(crate) fn is_bidi_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}')
}

/// Characters that MediaWiki collapses, in runs, into one `_` inside titles.
pub(crate) fn is_title_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '_' | '\u{A0}' | '\u{1680}' | '\u{180E}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Strips bidi marks, collapses runs of title whitespace into one `_` and trims `_`.
pub(crate) fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending = false;
    for c in s.chars() {
        if is_bidi_mark(c) {
            continue;
        }
        if is_title_space(c) {
            pending = true;
            continue;
        }
        if pending && !out.is_empty() {
            out.push('_');
        }
        pending = false;
        out.push(c);
    }
    out
}

/// `Language::ucfirst`: PHP's `mb_strtoupper` of the first character (full case
/// mapping: `ß` → `SS`), as a default MediaWiki install does.
pub(crate) fn ucfirst(s: &str) -> Cow<'_, str> {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return Cow::Borrowed(s);
    };
    if first.is_ascii() {
        return ucfirst_keep_long(s);
    }
    let upper: String = first.to_uppercase().collect();
    if upper.len() == first.len_utf8() && upper.starts_with(first) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(upper + chars.as_str())
}

/// `Language::ucfirst` as Wikimedia runs it: the first character is upper-cased unless
/// its upper case is longer than one character (`ß` stays `ß`) or is Georgian Mtavruli
/// (Mkhedruli `ა` stays `ა`: Georgian titles were never capitalized before Unicode 11
/// gave the script capitals), the effect of Wikimedia's `$wgOverrideUcfirstCharacters`.
pub(crate) fn ucfirst_keep_long(s: &str) -> Cow<'_, str> {
    let mut chars = s.chars();
    let Some(first) = chars.next() else {
        return Cow::Borrowed(s);
    };
    if is_mkhedruli(first) {
        return Cow::Borrowed(s);
    }
    if first.is_ascii() {
        if first.is_ascii_lowercase() {
            let mut out = String::with_capacity(s.len());
            out.push(first.to_ascii_uppercase());
            out.push_str(chars.as_str());
            return Cow::Owned(out);
        }
        return Cow::Borrowed(s);
    }
    let mut upper = first.to_uppercase();
    let (Some(u), None) = (upper.next(), upper.next()) else {
        return Cow::Borrowed(s);
    };
    if u == first {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push(u);
    out.push_str(chars.as_str());
    Cow::Owned(out)
}

/// Georgian Mkhedruli letters, whose Unicode upper case is Mtavruli (U+1C90…).
fn is_mkhedruli(c: char) -> bool {
    matches!(c, '\u{10D0}'..='\u{10FA}' | '\u{10FD}'..='\u{10FF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_decode_like_sanitizer() {
        assert_eq!(decode_char_references("A&amp;B"), "A&B");
        assert_eq!(decode_char_references("&#124;x&#x41;"), "|xA");
        assert_eq!(decode_char_references("caf&eacute;"), "café");
        assert_eq!(decode_char_references("&bogus; &amp"), "&bogus; &amp");
        assert_eq!(decode_char_references("&#0;"), "\u{FFFD}");
        // NFC after decoding: e + combining acute → é
        assert_eq!(decode_char_references("e&#x301;"), "é");
    }

    #[test]
    fn ucfirst_like_php_and_like_wikimedia() {
        assert_eq!(ucfirst("ßtraße"), "SStraße");
        assert_eq!(ucfirst_keep_long("ßtraße"), "ßtraße");
        assert_eq!(ucfirst("ábc"), "Ábc");
        assert_eq!(ucfirst_keep_long("ábc"), "Ábc");
        assert_eq!(ucfirst("abc"), "Abc");
        assert_eq!(ucfirst_keep_long("ŉx"), "ŉx");
        assert_eq!(ucfirst("1x"), "1x");
        // Georgian: PHP's mb_strtoupper gives Mtavruli, Wikimedia keeps Mkhedruli.
        assert_eq!(ucfirst("თბილისი"), "Თბილისი");
        assert_eq!(ucfirst_keep_long("თბილისი"), "თბილისი");
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a \u{A0}_ b__"), "a_b");
        assert_eq!(collapse_whitespace("a\u{200E}b"), "ab");
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%20b").unwrap(), "a b");
        assert_eq!(percent_decode("%C3%A9").unwrap(), "é");
        assert!(percent_decode("%FF").is_none());
        assert_eq!(percent_decode("100%").unwrap(), "100%");
    }
}
