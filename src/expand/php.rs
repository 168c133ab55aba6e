//! The PHP behaviours MediaWiki's results depend on: `trim`, loose `==` between numeric
//! strings, float-to-string conversion, URL encodings, `wfEscapeWikiText`.

pub(crate) use crate::title::php_trim;

/// ASCII case-insensitive prefix test.
pub(crate) fn starts_with_ci(s: &str, prefix: &str) -> bool {
    s.len() >= prefix.len() && s.as_bytes()[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
}

/// A PHP numeric string (`is_numeric`): optional surrounding whitespace, sign, digits
/// with an optional fraction, optional exponent. Returns its value.
pub fn numeric(s: &str) -> Option<f64> {
    let t = s.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let b = t.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    i += int_digits;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        i += frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if exp_digits > 0 {
            i = j + exp_digits;
        }
    }
    if i != b.len() {
        return None;
    }
    t.parse::<f64>().ok()
}

/// Integer-looking numeric string (compared as integers by PHP when both sides are).
fn integer(s: &str) -> Option<i64> {
    let t = s.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// PHP 8's `$a == $b` for two strings: numerically when both are numeric strings.
pub(crate) fn loose_eq(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    if let (Some(x), Some(y)) = (integer(a), integer(b)) {
        return x == y;
    }
    match (numeric(a), numeric(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// A float as PHP prints it (`precision` = 14): `0.33333333333333`, `1.0E+25`, `-0`.
pub(crate) fn float_to_string(v: f64) -> String {
    if v.is_nan() {
        return "NAN".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "INF" } else { "-INF" }.to_string();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // 14 significant digits.
    let sci = format!("{:.13e}", v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let sign = if neg { "-" } else { "" };
    if !(-4..14).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}.{rest}E{esign}{}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exp as usize + 1;
    if digits.len() <= point {
        format!("{sign}{digits}{}", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

/// Percent-encodes every byte but ASCII letters, digits and the bytes `keep` allows;
/// a space becomes `+` when `plus`.
fn percent_encode(s: &str, keep: &[u8], plus: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else if b == b' ' && plus {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// PHP's `urlencode`: space → `+`, everything but `A-Za-z0-9-_.` percent-encoded.
pub(crate) fn urlencode(s: &str) -> String {
    percent_encode(s, b"-_.", true)
}

/// PHP's `rawurlencode`: like [`urlencode`] but space → `%20` and `~` kept.
pub(crate) fn rawurlencode(s: &str) -> String {
    percent_encode(s, b"-_.~", false)
}

/// `wfUrlencode`: [`urlencode`] with `;@$!*(),/~:` left readable.
pub(crate) fn wf_urlencode(s: &str) -> String {
    percent_encode(s, b"-_.;@$!*(),/~:", true)
}

/// `htmlspecialchars` with `ENT_QUOTES`.
pub(crate) fn htmlspecialchars(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#039;"),
            c => out.push(c),
        }
    }
    out
}

/// `wfEscapeWikiText`: characters that would be read as markup become character
/// references, so that a page name shows as itself (`{{PAGENAME}}` of `A'b` is `A&#39;b`).
pub(crate) fn escape_wikitext(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at_line_start = i == 0 || matches!(chars[i - 1], '\n' | '\r');
        match c {
            '"' => out.push_str("&#34;"),
            '&' => out.push_str("&#38;"),
            '\'' => out.push_str("&#39;"),
            '<' => out.push_str("&#60;"),
            '=' => out.push_str("&#61;"),
            '>' => out.push_str("&#62;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '{' => out.push_str("&#123;"),
            '|' => out.push_str("&#124;"),
            '}' => out.push_str("&#125;"),
            ';' => out.push_str("&#59;"),
            '#' if at_line_start => out.push_str("&#35;"),
            '*' if at_line_start => out.push_str("&#42;"),
            ':' if at_line_start => out.push_str("&#58;"),
            ' ' if at_line_start => out.push_str("&#32;"),
            '\t' if at_line_start => out.push_str("&#9;"),
            '\n' if i > 0 && chars[i - 1] == '\n' => out.push_str("&#10;"),
            '-' if at_line_start && chars[i..].starts_with(&['-', '-', '-', '-']) => {
                out.push_str("&#45;")
            }
            '_' if chars.get(i + 1) == Some(&'_') => {
                out.push_str("_&#95;");
                i += 1;
            }
            ':' if chars[i..].starts_with(&[':', '/', '/']) => out.push_str("&#58;"),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_php() {
        assert_eq!(float_to_string(1.0 / 3.0), "0.33333333333333");
        assert_eq!(float_to_string(3.0), "3");
        assert_eq!(float_to_string(-2.5), "-2.5");
        assert_eq!(float_to_string(1e25), "1.0E+25");
        assert_eq!(float_to_string(1.5e-7), "1.5E-7");
        assert_eq!(float_to_string(0.0001), "0.0001");
        assert_eq!(float_to_string(123456789012345.0), "1.2345678901234E+14");
        assert_eq!(float_to_string(12345678901234.0), "12345678901234");
        assert_eq!(float_to_string(-0.0), "-0");
        assert_eq!(float_to_string(0.1 + 0.2), "0.3");
    }

    #[test]
    fn loose_equality_is_numeric_for_numbers() {
        assert!(loose_eq("01", "1"));
        assert!(loose_eq("1e3", "1000"));
        assert!(loose_eq("1.0", "1"));
        assert!(!loose_eq("abc", "ABC"));
        assert!(!loose_eq("1a", "1"));
        assert!(loose_eq("", ""));
        assert!(!loose_eq("", "0"));
    }

    #[test]
    fn wikitext_is_escaped() {
        assert_eq!(escape_wikitext("A'b & c"), "A&#39;b &#38; c");
        assert_eq!(escape_wikitext("*x"), "&#42;x");
        assert_eq!(escape_wikitext("a__b"), "a_&#95;b");
        assert_eq!(escape_wikitext("http://x"), "http&#58;//x");
    }

    #[test]
    fn url_encodings() {
        assert_eq!(urlencode("a b/c~"), "a+b%2Fc%7E");
        assert_eq!(rawurlencode("a b/c~"), "a%20b%2Fc~");
        assert_eq!(wf_urlencode("Taiss:A b/ā"), "Taiss:A+b/%C4%81");
    }
}
