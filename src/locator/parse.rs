//! The locator grammar: text → [`Locator`], with an error that says where and why.
//!
//! ```text
//! LOCATOR := PAGE ('|' PART)*          a full locator
//!          | PART ('|' PART)*          relative to a row's `source_page`
//! PAGE    := TITLE ['#' ANCHOR] | WIKIPEDIA-URL
//! PART    := '#' ANCHOR | 'section:' PATH | 'oldid:' N
//!          | 'infobox:' FIELD | 'table:' N | 'row:' R | 'col:' (C | HEADER)
//!          | 'sentence:' K | 'item:' I | 'quote:' TEXT
//! ```
//!
//! `|` can never occur in a MediaWiki title, so it separates parts unambiguously; a value
//! containing `|` (a quote, a header) is written in double quotes with `\"` and `\\`
//! escapes. Numbers: tables from 1 (as `wikiwit table`), rows, columns, sentences and
//! list items from 0 (data rows, after the header rows). A section path is headings separated by
//! `/` or ` > ` (`section:History/Early years`).

use super::{Column, Locator, PageSpec, SectionSpec, Target};
use crate::url::{WikipediaUrl, percent_decode};

/// Why a locator could not be parsed; `offset` is the byte offset of the offending part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad locator at byte {offset}: {message}")]
pub struct LocatorError {
    pub offset: usize,
    pub message: String,
}

fn err<T>(offset: usize, message: impl Into<String>) -> Result<T, LocatorError> {
    Err(LocatorError {
        offset,
        message: message.into(),
    })
}

/// Keys a part may start with. A leading part with one of these keys makes the locator
/// relative (no page of its own).
const KEYS: [&str; 9] = [
    "section", "oldid", "infobox", "table", "row", "col", "sentence", "item", "quote",
];

/// Splits at `|` outside double quotes, returning (offset, raw part).
fn split_parts(s: &str) -> Result<Vec<(usize, &str)>, LocatorError> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '|' if !quoted => {
                parts.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if quoted {
        return err(start, "unclosed double quote");
    }
    parts.push((start, &s[start..]));
    Ok(parts)
}

/// A value, unquoted (`"a \"b\""` → `a "b"`) and trimmed.
fn value(raw: &str, offset: usize) -> Result<String, LocatorError> {
    let t = raw.trim();
    let Some(inner) = t.strip_prefix('"') else {
        return Ok(t.to_string());
    };
    let Some(inner) = inner.strip_suffix('"') else {
        return err(offset, format!("text after the closing quote in {t:?}"));
    };
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => out.push(n),
                None => return err(offset, "a backslash ends the quoted value"),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

fn key_of(part: &str) -> Option<(&'static str, &str)> {
    let t = part.trim_start();
    let (k, rest) = t.split_once(':')?;
    let k = k.trim().to_ascii_lowercase();
    KEYS.iter().find(|x| **x == k).map(|x| (*x, rest))
}

fn number(raw: &str, offset: usize, what: &str) -> Result<usize, LocatorError> {
    let t = raw.trim();
    t.parse::<usize>().or_else(|_| {
        err(
            offset,
            format!("{what} must be a non-negative integer, not {t:?}"),
        )
    })
}

/// Whether `title` reads back as itself when written as a locator's page part: not a
/// URL, not a key or an anchor, no double quote (which would open a quoted value), no
/// outer spaces.
pub(super) fn plain_title(title: &str) -> bool {
    !title.is_empty()
        && title.trim() == title
        && !title.contains('"')
        && !title.starts_with('#')
        && key_of(title).is_none()
        && !looks_like_url(title)
}

/// A page part read as a URL rather than a title.
fn looks_like_url(t: &str) -> bool {
    let starts = |p: &str| t.get(..p.len()).is_some_and(|h| h.eq_ignore_ascii_case(p));
    ["http://", "https://", "www."].into_iter().any(starts)
}

/// Parses the page part: a Wikipedia URL (any of the spellings [`WikipediaUrl::parse`]
/// understands) or a title with an optional anchor.
fn page(raw: &str, offset: usize) -> Result<(PageSpec, Option<SectionSpec>), LocatorError> {
    let t = raw.trim();
    if t.is_empty() {
        return err(offset, "empty page");
    }
    if looks_like_url(t) {
        return match WikipediaUrl::parse(t) {
            // A URL names a title, a page id or a revision id (ids alone are looked up
            // by the dump's ids).
            Some(u) => Ok((
                PageSpec {
                    title: u.title,
                    oldid: u.oldid,
                    curid: u.curid,
                    lang: u.lang,
                },
                u.anchor.map(SectionSpec::Anchor),
            )),
            None => err(offset, format!("{t:?} is not a Wikipedia page URL")),
        };
    }
    let (title, anchor) = match t.split_once('#') {
        Some((a, b)) => (a.trim(), Some(b)),
        None => (t, None),
    };
    if title.is_empty() {
        return err(offset, "empty page title before '#'");
    }
    let section = anchor
        .map(|a| percent_decode(a.trim()))
        .filter(|a| !a.is_empty())
        .map(SectionSpec::Anchor);
    Ok((PageSpec::titled(title), section))
}

/// Parses a locator. Relative locators (starting with a part such as `table:`) have no
/// page; see [`parse_relative`].
pub fn parse(s: &str) -> Result<Locator, LocatorError> {
    if s.trim().is_empty() {
        return err(0, "empty locator");
    }
    let parts = split_parts(s)?;
    let mut loc = Locator {
        page: None,
        section: None,
        target: Target::Page,
    };
    let mut iter = parts.into_iter().peekable();
    if let Some(&(off, first)) = iter.peek()
        && key_of(first).is_none()
        && !first.trim_start().starts_with('#')
    {
        let (p, sec) = page(first, off)?;
        loc.page = Some(p);
        loc.section = sec;
        iter.next();
    }
    let mut table = None;
    let mut row = None;
    let mut col = None;
    let mut sentence = None;
    let mut item = None;
    let mut quote = None;
    let mut infobox = None;
    for (off, raw) in iter {
        if raw.trim().is_empty() {
            return err(off, "empty part between '|' separators");
        }
        if let Some(anchor) = raw.trim_start().strip_prefix('#') {
            let a = percent_decode(anchor.trim());
            if a.is_empty() {
                return err(off, "empty section anchor");
            }
            set_section(&mut loc, SectionSpec::Anchor(a), off)?;
            continue;
        }
        let Some((key, rest)) = key_of(raw) else {
            return err(
                off,
                format!(
                    "unknown part {:?}: expected #anchor or one of {}",
                    raw.trim(),
                    KEYS.map(|k| format!("{k}:")).join(", ")
                ),
            );
        };
        let off_v = off + raw.len() - rest.len();
        let v = value(rest, off_v)?;
        let dup = |set: bool| {
            if set {
                err(off, format!("{key}: given twice"))
            } else {
                Ok(())
            }
        };
        match key {
            "section" => {
                let path: Vec<String> = v
                    .split(['/', '>'])
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect();
                if path.is_empty() {
                    return err(off_v, "empty section path");
                }
                set_section(&mut loc, SectionSpec::Path(path), off)?;
            }
            "oldid" => {
                let n = number(&v, off_v, "oldid")? as u64;
                match &mut loc.page {
                    Some(p) if p.oldid.is_some_and(|o| o != n) => {
                        return err(off, "oldid: differs from the URL's oldid");
                    }
                    Some(p) => p.oldid = Some(n),
                    None => return err(off, "oldid: needs a page"),
                }
            }
            "infobox" => {
                dup(infobox.is_some())?;
                if v.is_empty() {
                    return err(off_v, "empty infobox field name");
                }
                infobox = Some(v);
            }
            "table" => {
                dup(table.is_some())?;
                let n = number(&v, off_v, "table")?;
                if n == 0 {
                    return err(off_v, "tables are numbered from 1");
                }
                table = Some(n);
            }
            "row" => {
                dup(row.is_some())?;
                row = Some(number(&v, off_v, "row")?);
            }
            "col" => {
                dup(col.is_some())?;
                let quoted = rest.trim_start().starts_with('"');
                col = Some(match v.parse::<usize>() {
                    Ok(n) if !quoted => Column::Index(n),
                    _ if v.is_empty() => return err(off_v, "empty column"),
                    _ => Column::Header(v),
                });
            }
            "sentence" => {
                dup(sentence.is_some())?;
                sentence = Some(number(&v, off_v, "sentence")?);
            }
            "item" => {
                dup(item.is_some())?;
                item = Some(number(&v, off_v, "item")?);
            }
            "quote" => {
                dup(quote.is_some())?;
                if v.trim().is_empty() {
                    return err(off_v, "empty quote");
                }
                quote = Some(v);
            }
            _ => unreachable!("KEYS lists every key"),
        }
    }
    let kinds = [
        infobox.is_some(),
        table.is_some(),
        sentence.is_some(),
        item.is_some(),
        quote.is_some(),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    if kinds > 1 {
        return err(
            0,
            "a locator points at one thing: use only one of infobox:, table:, sentence:, item:, quote:",
        );
    }
    if row.is_some() && table.is_none() {
        return err(0, "row: needs table:");
    }
    if col.is_some() && row.is_none() {
        return err(0, "col: needs table: and row:");
    }
    if infobox.is_some() && loc.section.is_some() {
        return err(0, "infobox: is page-level; drop the section");
    }
    loc.target = match (infobox, table, row, col, sentence, quote) {
        _ if let Some(i) = item => Target::Item { item: i },
        (Some(f), ..) => Target::Infobox { field: f },
        (_, Some(t), None, _, _, _) => Target::Table { table: t },
        (_, Some(t), Some(r), None, _, _) => Target::Row { table: t, row: r },
        (_, Some(t), Some(r), Some(c), _, _) => Target::Cell {
            table: t,
            row: r,
            col: c,
        },
        (_, _, _, _, Some(k), _) => Target::Sentence { sentence: k },
        (_, _, _, _, _, Some(q)) => Target::Quote { text: q },
        _ if loc.section.is_some() => Target::Section,
        _ => Target::Page,
    };
    if loc.page.is_none() && loc.target == Target::Page {
        return err(0, "no page and nothing to point at");
    }
    Ok(loc)
}

fn set_section(loc: &mut Locator, s: SectionSpec, off: usize) -> Result<(), LocatorError> {
    if loc.section.is_some() {
        return err(off, "a second section (the page already names one)");
    }
    loc.section = Some(s);
    Ok(())
}

/// Parses a locator that may be relative; a relative one gets `base` as its page. A full
/// locator keeps its own page (the caller may compare it with `base`).
pub fn parse_relative(s: &str, base: &str) -> Result<Locator, LocatorError> {
    let mut loc = parse(s)?;
    if loc.page.is_none() {
        let (p, sec) = page(base, 0).map_err(|e| LocatorError {
            offset: 0,
            message: format!("source page: {}", e.message),
        })?;
        loc.page = Some(p);
        if loc.section.is_none() {
            loc.section = sec;
        }
    }
    Ok(loc)
}
