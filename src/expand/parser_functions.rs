//! The ParserFunctions extension (`#if`, `#ifeq`, `#iferror`, `#ifexpr`, `#ifexist`,
//! `#switch`, `#expr`, `#time`, `#titleparts`, `#rel2abs`) and Scribunto's `#invoke`
//! (run in `scribunto/`).
//!
//! Branches are expanded only when taken, so templates in branches not taken are
//! neither expanded nor recorded, as in MediaWiki.

use std::sync::LazyLock;

use regex::Regex;

use super::core_functions::php_intval;
use super::expander::{FnCall, State};
use super::php::{loose_eq, php_trim};
use super::{expr, locale, time};
use crate::title::{NS_MAIN, NS_MEDIA, NS_SPECIAL, decode_char_references};

/// `<tag class="… error …">` as `#iferror` recognises errors.
static ERROR_CLASS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"<(?:strong|span|p|div)\s(?:[^\s>]*\s+)*?class="(?:[^"\s>]*\s+)*?error(?:\s[^">]*)?""#,
    )
    .ok()
});

/// The result of ParserFunctions' or Scribunto's function `name` (matched
/// case-insensitively), `None` when `name` is none of theirs.
pub(super) fn call(fc: &FnCall<'_, '_>, st: &mut State, name: &str) -> Option<String> {
    if !name.starts_with('#') {
        return None;
    }
    let lower = name.to_lowercase();
    Some(match lower.as_str() {
        "#if" => {
            let branch = if fc.first.is_empty() { 2 } else { 1 };
            fc.arg(st, branch)
        }
        "#ifeq" => {
            let left = decode_trim(&fc.first);
            let right = decode_trim(&fc.arg(st, 1));
            fc.arg(st, if loose_eq(&left, &right) { 2 } else { 3 })
        }
        "#iferror" => {
            let test = fc.first.clone();
            let is_error = ERROR_CLASS.as_ref().is_some_and(|re| re.is_match(&test));
            if is_error {
                fc.arg(st, 1)
            } else if fc.len() > 2 {
                fc.arg(st, 2)
            } else {
                test
            }
        }
        "#ifexpr" => match expr::truthy(&fc.first) {
            Ok(t) => fc.arg(st, if t { 1 } else { 2 }),
            Err(e) => expr_error(fc, &e),
        },
        "#expr" => match expr::evaluate(&fc.first) {
            Ok(v) => v,
            Err(e) => expr_error(fc, &e),
        },
        "#ifexist" => {
            let exists = if_exist(fc, st, &fc.first);
            fc.arg(st, if exists { 1 } else { 2 })
        }
        "#switch" => switch(fc, st),
        "#time" | "#timel" => {
            let date = fc.arg(st, 1);
            match time::parse(&date, fc.config().now) {
                Err(time::DateError::TooSmall) => message_error(
                    fc,
                    "pfunc_time_too_small",
                    "Error: #time only supports years from 0.",
                ),
                Err(time::DateError::TooBig) => message_error(
                    fc,
                    "pfunc_time_too_big",
                    "Error: #time only supports years up to 9999.",
                ),
                Ok(dt) => {
                    let lang = fc.arg(st, 2);
                    let (names, numbers) = locale::date_names(lang.trim(), fc.config());
                    time::format_in(&fc.first, dt, names, Some(numbers))
                }
                Err(time::DateError::Invalid) => {
                    message_error(fc, "pfunc_time_error", "Error: Invalid time.")
                }
            }
        }
        "#titleparts" => {
            let parts = php_intval(&fc.arg(st, 1));
            let offset = php_intval(&fc.arg(st, 2));
            title_parts(fc, &fc.first, parts, offset)
        }
        "#rel2abs" => {
            let from = fc.arg(st, 1);
            let from = if from.is_empty() {
                st.page_dependent();
                fc.codec().prefixed_text(st.page_ns, &st.page_dbkey)
            } else {
                from
            };
            rel2abs(&fc.first, &from)
        }
        "#invoke" => super::scribunto::invoke(fc, st),
        _ => return None,
    })
}

/// An expression error in the content language (English from [`expr::ExprError`]'s
/// `Display` when the messages file lacks it).
fn expr_error(fc: &FnCall<'_, '_>, e: &expr::ExprError) -> String {
    let (key, param) = e.message_key();
    let english = e.to_string();
    let text = match param {
        // The English already has the parameter in it.
        Some(p) if fc.config().messages.messages.contains_key(key) => {
            fc.config().messages.format(key, &english, &[&p])
        }
        _ => fc.config().messages.text(key, &english).to_string(),
    };
    error(&text)
}

fn message_error(fc: &FnCall<'_, '_>, key: &str, english: &str) -> String {
    error(fc.config().messages.text(key, english))
}

fn error(message: &str) -> String {
    format!(
        "<strong class=\"error\">{}</strong>",
        super::php::htmlspecialchars(message)
    )
}

fn decode_trim(s: &str) -> String {
    php_trim(&decode_char_references(s)).to_string()
}

/// `{{#switch:value|case1|case2=result|#default=…}}`: cases without `=` fall through
/// to the next result; a last part without `=` is the default.
fn switch(fc: &FnCall<'_, '_>, st: &mut State) -> String {
    let primary = decode_trim(&fc.first);
    let mut found = false;
    let mut default_found = false;
    let mut default: Option<usize> = None;
    let mut last_without_equals: Option<String> = None;
    for i in 1..fc.len() {
        let Some(part) = fc.part(i) else { continue };
        match &part.name {
            Some(name) => {
                last_without_equals = None;
                if found {
                    return php_trim(&fc.expand(st, &part.value)).to_string();
                }
                let test = decode_trim(&fc.expand(st, name));
                if loose_eq(&test, &primary) {
                    return php_trim(&fc.expand(st, &part.value)).to_string();
                }
                if default_found || test.eq_ignore_ascii_case("#default") {
                    default = Some(i);
                    default_found = false;
                }
            }
            None => {
                let expanded = fc.expand(st, &part.value);
                let test = decode_trim(&expanded);
                if loose_eq(&test, &primary) {
                    found = true;
                } else if test.eq_ignore_ascii_case("#default") {
                    default_found = true;
                }
                last_without_equals = Some(php_trim(&expanded).to_string());
            }
        }
    }
    if let Some(last) = last_without_equals {
        return last;
    }
    match default.and_then(|i| fc.part(i)) {
        Some(p) => php_trim(&fc.expand(st, &p.value)).to_string(),
        None => String::new(),
    }
}

/// Whether the page named `text` exists. MediaWiki 1.39 records the page checked as a
/// link of the page being parsed, and counts the check as expensive.
fn if_exist(fc: &FnCall<'_, '_>, st: &mut State, text: &str) -> bool {
    let Ok(t) = fc.codec().parse(text, NS_MAIN) else {
        return false;
    };
    if t.interwiki.is_some() {
        return false;
    }
    if t.ns == NS_SPECIAL {
        return super::special_pages::exists(&t.dbkey);
    }
    if !fc.expensive(st, t.ns, &t.dbkey) {
        return false;
    }
    if t.ns == NS_MEDIA {
        // Files are not in the dump.
        return false;
    }
    st.record_existence_link(t.ns, &t.dbkey);
    fc.source().exists(t.ns, &t.dbkey)
}

/// `{{#titleparts:title|parts|offset}}`: `/`-separated segments of a title.
fn title_parts(fc: &FnCall<'_, '_>, title: &str, parts: i64, offset: i64) -> String {
    let Ok(t) = fc.codec().parse(title, NS_MAIN) else {
        return title.to_string();
    };
    let full = fc.codec().prefixed_text(t.ns, &t.dbkey);
    let bits: Vec<&str> = full.splitn(25, '/').collect();
    let n = bits.len() as i64;
    let offset = if offset > 0 { offset - 1 } else { offset };
    let start = if offset < 0 {
        (n + offset).max(0)
    } else {
        offset.min(n)
    };
    let end = match parts {
        0 => n,
        p if p < 0 => (n + p).max(start),
        p => (start + p).min(n),
    };
    bits[start as usize..end.max(start) as usize].join("/")
}

/// `{{#rel2abs:path|base}}`: a relative page path made absolute.
fn rel2abs(to: &str, from: &str) -> String {
    let from = php_trim(from);
    let to = to.trim_end_matches([' ', '/']);
    if to.is_empty() || to == "." {
        return from.to_string();
    }
    let relative =
        to.starts_with('/') || to.starts_with("./") || to.starts_with("../") || to == "..";
    let from = if relative { from } else { "" };
    let full = format!("/{from}/{to}/");
    let mut segments: Vec<&str> = Vec::new();
    for seg in full.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    let shown = full
                        .split('/')
                        .filter(|s| !s.is_empty() && *s != ".")
                        .collect::<Vec<_>>()
                        .join("/");
                    return error(&format!(
                        "Error: Invalid depth in path: \"{shown}\" (tried to access a node above the root node)."
                    ));
                }
            }
            s => segments.push(s),
        }
    }
    segments.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            rel2abs("/quok", "Help:Foo/bar/baz"),
            "Help:Foo/bar/baz/quok"
        );
        assert_eq!(
            rel2abs("./quok", "Help:Foo/bar/baz"),
            "Help:Foo/bar/baz/quok"
        );
        assert_eq!(rel2abs("../quok", "Help:Foo/bar/baz"), "Help:Foo/bar/quok");
        assert_eq!(rel2abs("../.", "Help:Foo/bar/baz"), "Help:Foo/bar");
        assert_eq!(rel2abs("abc", "Help:Foo"), "abc");
        assert_eq!(rel2abs("", "Help:Foo"), "Help:Foo");
        assert!(rel2abs("../../../x", "A/B").contains("Invalid depth"));
    }
}
