//! MediaWiki core's parser functions (`CoreParserFunctions`): case conversion, URL and
//! anchor encoding, namespace names, page URLs, number formatting, padding, plurals,
//! `{{#tag:…}}`, `{{#language:…}}`, `{{int:…}}`, the page-name functions and
//! `{{DEFAULTSORT:…}}`.

use std::borrow::Cow;

use super::expander::{FnCall, State, kill_markers, skip_markers};
use super::php::{
    escape_wikitext, htmlspecialchars, php_trim, rawurlencode, urlencode, wf_urlencode,
};
use super::plural;
use super::variables::{page_value_of, page_var};
use crate::title::{InterwikiProfile, NS_MAIN, decode_char_references, ucfirst, ucfirst_keep_long};
use crate::wikitext::anchors;
use crate::wikitext::sortkey;

/// The result of core function `name`, `None` when no such function exists (the call is
/// then a template).
pub(super) fn call(fc: &FnCall<'_, '_>, st: &mut State, name: &str) -> Option<String> {
    if let Some((var, encoded)) = page_var(name) {
        return Some(page_value_of(fc.codec(), var, encoded, &fc.first));
    }
    match name {
        "DEFAULTSORT" | "DEFAULTSORTKEY" | "DEFAULTCATEGORYSORT" => {
            return Some(default_sort(fc, st));
        }
        "DISPLAYTITLE" | "PROTECTIONLEVEL" | "PROTECTIONEXPIRY" | "CASCADINGSOURCES" => {
            return Some(String::new());
        }
        "PAGESINCATEGORY" | "PAGESINCAT" => {
            // Category sizes are not known offline.
            let _ = fc.expensive(st, 14, &fc.first.replace(' ', "_"));
            return Some("0".to_string());
        }
        "PAGESIZE" => return Some(page_size(fc, st)),
        _ => {}
    }
    let lower = name.to_lowercase();
    let first = fc.first.as_str();
    Some(match lower.as_str() {
        "lc" => skip_markers(first, |t| t.chars().flat_map(char::to_lowercase).collect()),
        "uc" => skip_markers(first, str::to_uppercase),
        "lcfirst" => {
            let mut c = first.chars();
            match c.next() {
                Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
                None => String::new(),
            }
        }
        "ucfirst" => match fc.codec().profile() {
            InterwikiProfile::Wikimedia => ucfirst_keep_long(first).into_owned(),
            _ => ucfirst(first).into_owned(),
        },
        "urlencode" => {
            let kind = fc.arg(st, 1).to_ascii_uppercase();
            // MediaWiki 1.39 drops markers here (recorded: tests/data/expand-mw).
            let first = kill_markers(first);
            match kind.as_str() {
                "WIKI" => wf_urlencode(&first.replace(' ', "_")),
                "PATH" => rawurlencode(&first),
                _ => urlencode(&first),
            }
        }
        "anchorencode" => anchor_encode(&kill_markers(first)),
        "ns" | "nse" => {
            let text = namespace_name(fc, first)?;
            if lower == "nse" {
                wf_urlencode(&text.replace(' ', "_"))
            } else {
                text
            }
        }
        "localurl" | "localurle" | "fullurl" | "fullurle" | "canonicalurl" | "canonicalurle" => {
            let query = fc.arg(st, 1);
            let url = page_url(fc, &lower, first, &query)?;
            if lower.ends_with('e') {
                htmlspecialchars(&url)
            } else {
                url
            }
        }
        "formatnum" => {
            let opts: Vec<String> = (1..fc.len()).map(|i| fc.arg(st, i)).collect();
            skip_markers(first, |t| format_num(t, &fc.config().lang, &opts))
        }
        "grammar" => fc.arg(st, 1),
        "gender" => {
            // No user genders offline: the neutral form (forms padded with the last).
            let forms: Vec<String> = (1..fc.len()).map(|i| fc.arg(st, i)).collect();
            forms.get(2).or(forms.last()).cloned().unwrap_or_default()
        }
        "plural" => {
            let forms: Vec<String> = (1..fc.len()).map(|i| fc.arg(st, i)).collect();
            let n = parse_formatted_number(first, &fc.config().lang);
            plural::choose(&fc.config().lang, n, &forms).to_string()
        }
        "bidi" => bidi(first),
        "padleft" | "padright" => {
            let len = php_intval(&fc.arg(st, 1));
            let pad = fc.arg_opt(st, 2).unwrap_or_else(|| "0".to_string());
            pad_string(first, len, &kill_markers(&pad), lower == "padleft")
        }
        "int" => int_message(fc, st),
        "#special" | "#speciale" => {
            let ns = fc
                .codec()
                .namespaces()
                .name_of(-1)
                .unwrap_or("Special")
                .to_string();
            let text = format!("{}:{}", ns, ucfirst(first.trim()));
            if lower == "#speciale" {
                wf_urlencode(&text.replace(' ', "_"))
            } else {
                text.replace('_', " ")
            }
        }
        "#tag" => tag(fc, st),
        "#language" => {
            let code = first.to_ascii_lowercase();
            let in_lang = fc.arg(st, 1).to_ascii_lowercase();
            language_name(&code, &in_lang)
                .map(str::to_string)
                .unwrap_or(code)
        }
        "#formatdate" | "#dateformat" => {
            let pref = fc.arg(st, 1);
            format_date(first, &pref)
        }
        "filepath" | "pageid" => String::new(),
        _ => return None,
    })
}

/// `{{DEFAULTSORT:key|noerror|noreplace}}`, by MediaWiki's rule
/// ([`sortkey::set_default_sort`]).
fn default_sort(fc: &FnCall<'_, '_>, st: &mut State) -> String {
    let flag = fc.arg(st, 1);
    // The result depends on keys set earlier on the page.
    st.uncacheable();
    let mut key = st.default_sort_key().map(str::to_string);
    let before = key.clone();
    let overridden = sortkey::set_default_sort(&mut key, &fc.first, &flag);
    if let Some(k) = key.filter(|k| before.as_ref() != Some(k)) {
        st.set_default_sort(&k);
    }
    let Some(old) = overridden else {
        return String::new();
    };
    let message = fc.config().messages.format(
        "duplicate-defaultsort",
        "Warning: Default sort key \"$2\" overrides earlier default sort key \"$1\".",
        &[&escape_wikitext(&old), &escape_wikitext(&fc.first)],
    );
    format!("<span class=\"error\">{message}</span>")
}

fn page_size(fc: &FnCall<'_, '_>, st: &mut State) -> String {
    let Ok(t) = fc.codec().parse(&fc.first, NS_MAIN) else {
        return "0".to_string();
    };
    if !fc.expensive(st, t.ns, &t.dbkey) {
        return "0".to_string();
    }
    let size = fc
        .source()
        .wikitext(t.ns, &t.dbkey)
        .map(|w| w.len())
        .unwrap_or(0);
    if fc.arg(st, 1).eq_ignore_ascii_case("R") {
        size.to_string()
    } else {
        format_num(&size.to_string(), &fc.config().lang, &[])
    }
}

/// `{{ns:…}}`: a namespace number or name → the wiki's name for it.
fn namespace_name(fc: &FnCall<'_, '_>, arg: &str) -> Option<String> {
    let table = fc.codec().namespaces();
    let id = match arg.trim().parse::<i32>() {
        Ok(n) => n,
        Err(_) => match table.id_of(&arg.trim().replace(' ', "_")) {
            Some(id) => id,
            None => return Some(String::new()),
        },
    };
    Some(table.name_of(id).unwrap_or("").replace('_', " "))
}

/// `{{localurl:…}}` and siblings; `None` for an invalid title (MediaWiki then reads the
/// call as a template).
fn page_url(fc: &FnCall<'_, '_>, func: &str, title: &str, query: &str) -> Option<String> {
    let t = fc.codec().parse(title, NS_MAIN).ok()?;
    if t.interwiki.is_some() {
        return Some(String::new());
    }
    let cfg = fc.config();
    let key = wf_urlencode(&fc.codec().prefixed_dbkey(t.ns, &t.dbkey));
    let mut url = if query.is_empty() {
        cfg.article_path.replace("$1", &key)
    } else {
        format!("{}/index.php?title={key}&{query}", cfg.script_path)
    };
    if let Some(f) = &t.fragment {
        url.push('#');
        url.push_str(&anchors::anchor(f));
    }
    Some(match func.trim_end_matches('e') {
        "fullurl" => format!("{}{url}", cfg.server),
        "canonicalurl" if cfg.server.starts_with("//") => format!("https:{}{url}", cfg.server),
        "canonicalurl" => format!("{}{url}", cfg.server),
        _ => url,
    })
}

/// `{{anchorencode:…}}`: the section-link form of a heading text.
fn anchor_encode(text: &str) -> String {
    // Links show their text; tags show nothing.
    let mut plain = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("[[") {
        plain.push_str(&rest[..p]);
        let after = &rest[p + 2..];
        match after.find("]]") {
            Some(e) => {
                let inner = &after[..e];
                plain.push_str(inner.rsplit('|').next().unwrap_or(inner));
                rest = &after[e + 2..];
            }
            None => {
                plain.push_str("[[");
                rest = after;
            }
        }
    }
    plain.push_str(rest);
    let plain = strip_quotes(&plain);
    let mut stripped = String::with_capacity(plain.len());
    let mut in_tag = false;
    for c in plain.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => stripped.push(c),
            _ => {}
        }
    }
    // Sanitizer::safeEncodeAttribute: HTML-escaped, and wiki syntax characters too.
    let mut out = htmlspecialchars(&anchors::anchor(&stripped));
    for (c, entity) in [
        ('{', "&#123;"),
        ('}', "&#125;"),
        ('[', "&#91;"),
        (']', "&#93;"),
        ('|', "&#124;"),
    ] {
        if out.contains(c) {
            out = out.replace(c, entity);
        }
    }
    // Sanitizer::escapeIdForLink: a `%XX` left in the id is escaped, not decoded.
    let out = percent_escape(&out);
    out.replace("__", "&#95;_")
}

/// Bold and italic quote runs removed, as the parser's quote pass followed by tag
/// stripping leaves them: runs of two, three and five apostrophes vanish, a run of four
/// keeps one, longer runs keep the ones beyond five.
fn strip_quotes(text: &str) -> Cow<'_, str> {
    if !text.contains("''") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut run = 0;
    let flush = |out: &mut String, run: usize| {
        let keep = match run {
            1 | 4 => 1,
            n if n > 5 => n - 5,
            _ => 0,
        };
        out.extend(std::iter::repeat_n('\'', keep));
    };
    for c in text.chars() {
        if c == '\'' {
            run += 1;
            continue;
        }
        flush(&mut out, run);
        run = 0;
        out.push(c);
    }
    flush(&mut out, run);
    Cow::Owned(out)
}

/// `%XX` → `%25XX`.
fn percent_escape(id: &str) -> String {
    let b = id.as_bytes();
    let mut out = String::with_capacity(id.len());
    for (i, c) in id.char_indices() {
        out.push(c);
        if c == '%'
            && b.len() > i + 2
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            out.push_str("25");
        }
    }
    out
}

/// Thousands and decimal separators of a language (`separatorTransformTable`).
fn separators(lang: &str) -> (&'static str, &'static str) {
    match lang.split(['-', '_']).next().unwrap_or(lang) {
        "lv" | "ltg" | "fr" | "ru" | "uk" | "be" | "pl" | "lt" | "et" | "fi" | "sv" | "nb"
        | "cs" | "sk" | "bg" => ("\u{a0}", ","),
        "de" | "it" | "es" | "nl" | "pt" | "da" | "id" | "tr" | "ro" | "sl" | "hr" | "sr" => {
            (".", ",")
        }
        _ => (",", "."),
    }
}

/// `{{formatnum:…}}`: digit grouping in the content language; `R` reads a formatted
/// number back, `NOSEP` leaves out the grouping (and, as in MediaWiki, the decimal
/// separator's translation). Each number inside the text is formatted on its own; a
/// minus sign becomes U+2212 as MediaWiki writes it.
fn format_num(text: &str, lang: &str, opts: &[String]) -> String {
    let (group, point) = separators(lang);
    if opts.iter().any(|o| o.eq_ignore_ascii_case("R")) {
        return text.replace(group, "").replace(point, ".");
    }
    let nosep = opts.iter().any(|o| o.eq_ignore_ascii_case("NOSEP"));
    let mut out = String::with_capacity(text.len() + 4);
    let mut i = 0;
    while i < text.len() {
        if let Some(len) = number_at(&text[i..]) {
            let n = &text[i..i + len];
            if nosep {
                out.push_str(n);
            } else {
                format_one(n, group, point, &mut out);
            }
            i += len;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out.replace('-', "\u{2212}")
}

/// Length of the number MediaWiki's formatnum recognises at the start of `s`
/// (`-?(\d+|(?=\.\d))(\.\d*)?([Ee][-+]?\d+)?`).
fn number_at(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let int = digits(i);
    if int == 0 && !(b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
        return None;
    }
    i += int;
    if b.get(i) == Some(&b'.') {
        i += 1 + digits(i + 1);
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
        let exp = digits(i + 1 + sign);
        if exp > 0 {
            i += 1 + sign + exp;
        }
    }
    Some(i)
}

/// One number grouped: digits as written, or, with an exponent, the value as ICU's
/// decimal format writes it (at most three fraction digits).
fn format_one(n: &str, group: &str, point: &str, out: &mut String) {
    out.push_str(&super::locale::group_by_three(n, group, point));
}

fn parse_formatted_number(text: &str, lang: &str) -> f64 {
    let (group, point) = separators(lang);
    let t = text.trim().replace(group, "").replace(point, ".");
    super::php::numeric(&t).unwrap_or_else(|| php_intval(&t) as f64)
}

/// PHP's `(int)` of a string: the leading integer, 0 if none.
pub(super) fn php_intval(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n: String = digits.chars().take_while(char::is_ascii_digit).collect();
    let v: i64 = n.parse().unwrap_or(if n.is_empty() { 0 } else { i64::MAX });
    if neg { -v } else { v }
}

fn pad_string(s: &str, len: i64, pad: &str, left: bool) -> String {
    let pad_chars: Vec<char> = pad.chars().collect();
    if pad_chars.is_empty() {
        return s.to_string();
    }
    let len = len.min(500);
    let have = s.chars().count() as i64;
    if len <= have {
        return s.to_string();
    }
    let padding: String = pad_chars
        .iter()
        .cycle()
        .take((len - have) as usize)
        .collect();
    if left {
        padding + s
    } else {
        s.to_string() + &padding
    }
}

fn bidi(text: &str) -> String {
    let rtl = text.chars().any(|c| {
        matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFF}')
    });
    if rtl {
        format!("\u{202B}{text}\u{202C}")
    } else if text.chars().any(char::is_alphabetic) {
        format!("\u{202A}{text}\u{202C}")
    } else {
        text.to_string()
    }
}

/// `{{int:key|$1|…}}`: the wiki's own `MediaWiki:Key` page when the dump has it, else
/// the recorded message, else MediaWiki's rendering of an unknown message (`⧼key⧽`).
/// The message text is expanded.
fn int_message(fc: &FnCall<'_, '_>, st: &mut State) -> String {
    let key = fc.first.trim();
    if key.is_empty() {
        return String::new();
    }
    let dbkey = ucfirst(&key.replace(' ', "_")).into_owned();
    // The wiki's own page first, then MediaWiki's message as recorded (`--messages`).
    let recorded = || {
        let mut k = key.replace(' ', "_");
        if let Some(c) = k.chars().next() {
            k.replace_range(..c.len_utf8(), &c.to_lowercase().to_string());
        }
        fc.config().messages.messages.get(&k).cloned()
    };
    let Some(mut msg) = fc
        .source()
        .wikitext(8, &dbkey)
        .map(Cow::into_owned)
        .or_else(recorded)
    else {
        return format!("⧼{}⧽", htmlspecialchars(&key.to_lowercase()));
    };
    for i in (1..fc.len()).rev() {
        let v = fc.arg(st, i);
        msg = msg.replace(&format!("${i}"), &v);
    }
    if !fc.spend(st, msg.len() as u64 / 16) {
        return String::new();
    }
    let nodes = crate::wikitext::preprocess::preprocess(&msg);
    fc.ex.expand_string(st, fc.frame, &msg, &nodes)
}

/// `{{#tag:name|content|attr=value}}`: the extension tag written out, its content
/// expanded (the tag's own handling happens when the page is parsed).
fn tag(fc: &FnCall<'_, '_>, st: &mut State) -> String {
    // A name that is no extension tag is written out all the same, as an ordinary tag
    // (MediaWiki 1.39's Parser::tagFunction).
    let name = fc.first.to_lowercase();
    let content = fc.part(1).map(|p| {
        let mut s = String::new();
        if let Some(n) = &p.name {
            s.push_str(&fc.expand(st, n));
            s.push('=');
        }
        s.push_str(&fc.expand(st, &p.value));
        s
    });
    let mut attrs = String::new();
    for i in 2..fc.len() {
        let Some(p) = fc.part(i) else { continue };
        let Some(n) = &p.name else { continue };
        let key = php_trim(&fc.expand(st, n)).to_string();
        let raw = fc.expand(st, &p.value);
        let mut value = decode_char_references(php_trim(&raw)).into_owned();
        if value.len() >= 2
            && ((value.starts_with('"') && value.ends_with('"'))
                || (value.starts_with('\'') && value.ends_with('\'')))
        {
            value = value[1..value.len() - 1].to_string();
        }
        attrs.push_str(&format!(" {}=\"{}\"", key, htmlspecialchars(&value)));
    }
    let text = match content {
        Some(c) => format!("<{name}{attrs}>{c}</{name}>"),
        None => format!("<{name}{attrs}/>"),
    };
    // An extension tag's text is kept in the strip state; its marker is the result.
    if crate::wikitext::preprocess::EXTENSION_TAGS.contains(&name.as_str()) {
        st.strip(&name, text)
    } else {
        text
    }
}

/// Names of languages: (code, autonym, English name).
const LANGUAGES: &[(&str, &str, &str)] = &[
    ("be", "беларуская", "Belarusian"),
    ("cs", "čeština", "Czech"),
    ("de", "Deutsch", "German"),
    ("en", "English", "English"),
    ("eo", "Esperanto", "Esperanto"),
    ("es", "español", "Spanish"),
    ("et", "eesti", "Estonian"),
    ("fi", "suomi", "Finnish"),
    ("fr", "français", "French"),
    ("it", "italiano", "Italian"),
    ("ja", "日本語", "Japanese"),
    ("la", "Latina", "Latin"),
    ("lt", "lietuvių", "Lithuanian"),
    ("ltg", "latgaļu", "Latgalian"),
    ("lv", "latviešu", "Latvian"),
    ("nl", "Nederlands", "Dutch"),
    ("pl", "polski", "Polish"),
    ("pt", "português", "Portuguese"),
    ("ru", "русский", "Russian"),
    ("sv", "svenska", "Swedish"),
    ("uk", "українська", "Ukrainian"),
    ("zh", "中文", "Chinese"),
];

/// `{{#language:code|in}}`: the autonym, or the English name when asked in English.
fn language_name(code: &str, in_lang: &str) -> Option<&'static str> {
    let (_, autonym, english) = LANGUAGES.iter().find(|(c, _, _)| *c == code)?;
    Some(if in_lang == "en" { english } else { autonym })
}

/// `{{#formatdate:2009-12-25|dmy}}`: an ISO date in the preferred order; other input
/// and no preference leave the text as it is.
fn format_date(text: &str, pref: &str) -> String {
    let parts: Vec<&str> = text.trim().split('-').collect();
    let (Some(y), Some(m), Some(d)) = (parts.first(), parts.get(1), parts.get(2)) else {
        return text.to_string();
    };
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i32>(), m.parse::<usize>(), d.parse::<u32>()) else {
        return text.to_string();
    };
    if parts.len() != 3 || !(1..=12).contains(&m) {
        return text.to_string();
    }
    let month = super::time::MONTHS[m - 1];
    match pref.to_ascii_lowercase().as_str() {
        "dmy" => format!("{d} {month} {y}"),
        "mdy" => format!("{month} {d}, {y}"),
        "ymd" => format!("{y} {month} {d}"),
        "iso 8601" | "iso8601" => format!("{y:04}-{m:02}-{d:02}"),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_per_language() {
        assert_eq!(format_num("1234567.891", "en", &[]), "1,234,567.891");
        assert_eq!(
            format_num("1234567.891", "ltg", &[]),
            "1\u{a0}234\u{a0}567,891"
        );
        // MediaWiki writes a minus sign (U+2212) in every language.
        assert_eq!(format_num("-1234", "en", &[]), "\u{2212}1,234");
        assert_eq!(format_num("1e10", "en", &[]), "10,000,000,000");
        assert_eq!(format_num("1,234.5", "en", &["R".into()]), "1234.5");
        assert_eq!(format_num("1234", "en", &["NOSEP".into()]), "1234");
        assert_eq!(parse_formatted_number("1\u{a0}234,5", "ltg"), 1234.5);
    }

    #[test]
    fn padding_and_anchors() {
        assert_eq!(pad_string("7", 3, "0", true), "007");
        assert_eq!(pad_string("7", 5, "ab", false), "7abab");
        assert_eq!(pad_string("abc", 2, "0", true), "abc");
        assert_eq!(pad_string("x", 3, "", true), "x");
        assert_eq!(anchor_encode("[[A|B c]] <b>d</b>"), "B_c_d");
        assert_eq!(anchor_encode("a \"q\""), "a_&quot;q&quot;");
        assert_eq!(php_intval(" 12abc"), 12);
        assert_eq!(php_intval("-3"), -3);
        assert_eq!(php_intval("x"), 0);
    }

    #[test]
    fn dates_and_languages() {
        assert_eq!(format_date("2009-12-25", "mdy"), "December 25, 2009");
        assert_eq!(format_date("2009-12-25", "dmy"), "25 December 2009");
        assert_eq!(format_date("2009-12-25", ""), "2009-12-25");
        assert_eq!(language_name("de", ""), Some("Deutsch"));
        assert_eq!(language_name("de", "en"), Some("German"));
    }
}
