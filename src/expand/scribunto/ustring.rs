//! The Rust half of `mw.ustring` (`ustring.lua`): UTF-8 aware string functions and
//! patterns (see [`super::pattern`]), registered as plain Lua functions on
//! `iface.ustring` (they need nothing of the page). Positions are 1-based code-point
//! indices, negative ones count from the end, as in Scribunto.

use mlua::{Lua, MultiValue, Table, Value};
use unicode_normalization::UnicodeNormalization;

use super::pattern::{self, Capture, Found};

/// Longest string these functions build (Rust memory is outside Lua's memory limit).
const MAX_OUTPUT: usize = 16 * 1024 * 1024;

/// Upper- or lower-cases one character, keeping it when the mapping is longer than one
/// character (Scribunto maps code point to code point).
fn map_case(c: char, upper: bool) -> char {
    let mut it: Box<dyn Iterator<Item = char>> = if upper {
        Box::new(c.to_uppercase())
    } else {
        Box::new(c.to_lowercase())
    };
    match (it.next(), it.next()) {
        (Some(m), None) => m,
        _ => c,
    }
}

/// Longest string and pattern Scribunto accepts (`$wgMaxArticleSize` of 2048 KiB, and
/// its fixed pattern limit), in bytes.
const MAX_STRING: usize = 2048 * 1024;
const MAX_PATTERN: usize = 10_000;

/// Why a function gave no answer. Scribunto runs these functions in PHP, whose errors
/// reach Lua as plain strings without a position: the Lua side raises `Refused` with
/// `error(message, 0)`. A Lua error from a replacement function travels the same way.
enum Fail {
    Refused(String),
    Lua(mlua::Error),
}

impl From<mlua::Error> for Fail {
    fn from(e: mlua::Error) -> Fail {
        Fail::Lua(e)
    }
}

type Answer = Result<Vec<Value>, Fail>;

fn refuse<T>(message: String) -> Result<T, Fail> {
    Err(Fail::Refused(message))
}

fn type_error<T>(name: &str, idx: usize, expected: &str, got: &Value) -> Result<T, Fail> {
    refuse(format!(
        "bad argument #{idx} to '{name}' ({expected} expected, got {})",
        super::language::lua_type(got)
    ))
}

/// Argument 1 as Scribunto's `checkString` takes it: a number becomes its text, other
/// non-strings, strings over the length limit and (when `utf8`) invalid UTF-8 fail.
fn string_arg(name: &str, v: Option<&Value>, utf8: bool) -> Result<Vec<u8>, Fail> {
    match v.unwrap_or(&Value::Nil) {
        Value::String(s) => {
            let b = s.as_bytes().to_vec();
            if utf8 && std::str::from_utf8(&b).is_err() {
                return refuse(format!("bad argument #1 to '{name}' (string is not UTF-8)"));
            }
            if b.len() > MAX_STRING {
                return refuse(format!(
                    "bad argument #1 to '{name}' (string is longer than {MAX_STRING} bytes)"
                ));
            }
            Ok(b)
        }
        Value::Number(n) => Ok(lua_number(*n).into_bytes()),
        Value::Integer(n) => Ok(n.to_string().into_bytes()),
        other => type_error(name, 1, "string", other),
    }
}

/// Argument 1 as characters (it is valid UTF-8 once checked).
fn text_arg(name: &str, v: Option<&Value>) -> Result<Vec<char>, Fail> {
    let b = string_arg(name, v, true)?;
    Ok(String::from_utf8_lossy(&b).chars().collect())
}

/// Argument 2 of the pattern functions, as Scribunto's `checkPattern` takes it.
fn pattern_arg(name: &str, v: Option<&Value>) -> Result<Vec<char>, Fail> {
    let b = match v.unwrap_or(&Value::Nil) {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::Number(n) => lua_number(*n).into_bytes(),
        Value::Integer(n) => n.to_string().into_bytes(),
        other => return type_error(name, 2, "string", other),
    };
    let Ok(p) = std::str::from_utf8(&b) else {
        return refuse(format!("bad argument #2 to '{name}' (string is not UTF-8)"));
    };
    if b.len() > MAX_PATTERN {
        return refuse(format!(
            "bad argument #2 to '{name}' (pattern is longer than {MAX_PATTERN} bytes)"
        ));
    }
    Ok(p.chars().collect())
}

/// An optional number argument (1-based `idx`); PHP does not take numeric strings.
fn number_arg(name: &str, args: &[Value], idx: usize, default: f64) -> Result<f64, Fail> {
    match args.get(idx - 1).unwrap_or(&Value::Nil) {
        Value::Nil => Ok(default),
        Value::Number(n) => Ok(*n),
        Value::Integer(n) => Ok(*n as f64),
        other => type_error(name, idx, "number", other),
    }
}

fn string_value(lua: &Lua, s: &str) -> Answer {
    Ok(vec![Value::String(lua.create_string(s)?)])
}

fn capture_value(lua: &Lua, s: &[char], c: &Capture) -> mlua::Result<Value> {
    Ok(match c {
        Capture::Text(a, b) => {
            Value::String(lua.create_string(s[*a..*b].iter().collect::<String>())?)
        }
        Capture::Position(p) => Value::Number(*p as f64),
    })
}

fn captures(lua: &Lua, s: &[char], f: &Found) -> mlua::Result<Vec<Value>> {
    f.captures
        .iter()
        .map(|c| capture_value(lua, s, c))
        .collect()
}

/// The 0-based start of a search from Scribunto's `init`: negative counts from the
/// end, and it is clamped to the string.
fn search_start(init: f64, len: usize) -> usize {
    let len = len as f64;
    let init = if init < 0.0 {
        len + init + 1.0
    } else {
        init.min(len + 1.0)
    };
    (init.max(1.0) as usize) - 1
}

/// Scribunto's refusal of a malformed pattern, before any matching.
fn syntax(p: &[char]) -> Result<(), Fail> {
    pattern::check(p).map_err(|e| Fail::Refused(e.to_string()))
}

fn matched(lua: &Lua, s: &[char], p: &[char], init: usize, whole: bool, positions: bool) -> Answer {
    match pattern::find(s, p, init, whole, false) {
        Ok(Some(f)) => {
            let mut v = Vec::new();
            if positions {
                v.push(Value::Number((f.start + 1) as f64));
                v.push(Value::Number(f.end as f64));
            }
            v.extend(captures(lua, s, &f)?);
            Ok(v)
        }
        Ok(None) => Ok(vec![Value::Nil]),
        Err(e) => refuse(e.to_string()),
    }
}

fn find(lua: &Lua, args: &[Value]) -> Answer {
    let s = text_arg("find", args.first())?;
    let init = search_start(number_arg("find", args, 3, 1.0)?, s.len());
    let plain = match args.get(3).unwrap_or(&Value::Nil) {
        Value::Nil => false,
        Value::Boolean(b) => *b,
        other => return type_error("find", 4, "boolean", other),
    };
    let p = pattern_arg("find", args.get(1))?;
    if !plain {
        syntax(&p)?;
        if !pattern::is_plain(&p) {
            return matched(lua, &s, &p, init, false, true);
        }
    }
    let found = if p.is_empty() {
        Some(init)
    } else {
        (init..s.len().saturating_sub(p.len() - 1)).find(|&i| s[i..i + p.len()] == p[..])
    };
    Ok(match found {
        Some(i) => vec![
            Value::Number((i + 1) as f64),
            Value::Number((i + p.len()) as f64),
        ],
        None => vec![Value::Nil],
    })
}

fn match_(lua: &Lua, args: &[Value]) -> Answer {
    let s = text_arg("match", args.first())?;
    let init = search_start(number_arg("match", args, 3, 1.0)?, s.len());
    let p = pattern_arg("match", args.get(1))?;
    syntax(&p)?;
    matched(lua, &s, &p, init, true, false)
}

/// `gmatch`'s checks, made once when the iterator is created: the subject and the
/// pattern as the steps will take them.
fn gmatch_init(lua: &Lua, args: &[Value]) -> Answer {
    let s = string_arg("gmatch", args.first(), true)?;
    let p = pattern_arg("gmatch", args.get(1))?;
    syntax(&p)?;
    Ok(vec![
        Value::String(lua.create_string(&s)?),
        Value::String(lua.create_string(p.iter().collect::<String>())?),
    ])
}

/// One step of `gmatch`: the match at or after 1-based `pos`, as (next pos, captures…),
/// or nothing at the end.
fn gmatch(lua: &Lua, args: &[Value]) -> Answer {
    let s = text_arg("gmatch", args.first())?;
    let p = pattern_arg("gmatch", args.get(1))?;
    let from = (number_arg("gmatch", args, 3, 1.0)? - 1.0).max(0.0) as usize;
    if from > s.len() {
        return Ok(Vec::new());
    }
    match pattern::find(&s, &p, from, true, true) {
        Ok(Some(f)) => {
            let next = if f.end == f.start { f.end + 1 } else { f.end };
            let mut v = vec![Value::Number((next + 1) as f64)];
            v.extend(captures(lua, &s, &f)?);
            Ok(v)
        }
        Ok(None) => Ok(Vec::new()),
        Err(e) => refuse(e.to_string()),
    }
}

fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.to_string_lossy().to_string()),
        Value::Integer(i) => Some(i.to_string()),
        Value::Number(n) => Some(lua_number(*n)),
        _ => None,
    }
}

/// A number as Lua 5.1's `tostring` writes it (`%.14g`).
pub(super) fn lua_number(n: f64) -> String {
    if n.is_nan() {
        return if n.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if n.is_infinite() {
        return if n > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    if n == n.trunc() && n.abs() < 1e15 {
        return format!("{}", n as i64);
    }
    // %.14g: 14 significant digits, shortest of fixed/exponent form.
    let exp = n.abs().log10().floor() as i32;
    if (-4..14).contains(&exp) {
        let decimals = (13 - exp).max(0) as usize;
        let s = format!("{n:.decimals$}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        let s = format!("{n:.13e}");
        let (mant, e) = s.split_once('e').unwrap_or((&s, "0"));
        let mant = mant.trim_end_matches('0').trim_end_matches('.');
        let e: i32 = e.parse().unwrap_or(0);
        format!("{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    }
}

/// What `gsub` puts in place of each match.
enum Replacement {
    Text(Vec<char>),
    Table(Table),
    Function(mlua::Function),
}

/// A replacement string: `%0` is the match, `%1`…`%9` a capture (`%1` the match when
/// there is none), `%%` a percent sign; any other `%x` stays as written.
fn expand_replacement(
    lua: &Lua,
    r: &[char],
    s: &[char],
    f: &Found,
    whole: &str,
    out: &mut String,
) -> Result<(), Fail> {
    let mut i = 0;
    while i < r.len() {
        let c = r[i];
        let next = r.get(i + 1).copied();
        match next {
            Some('%') if c == '%' => out.push('%'),
            Some('0') if c == '%' => out.push_str(whole),
            Some(d @ '1'..='9') if c == '%' => {
                let k = d as usize - '1' as usize;
                match f.captures.get(k) {
                    Some(cap) => {
                        if let Some(t) = value_text(&capture_value(lua, s, cap)?) {
                            out.push_str(&t);
                        }
                    }
                    None if d == '1' => out.push_str(whole),
                    None => {
                        return refuse(format!("invalid capture index %{d} in replacement string"));
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    Ok(())
}

/// A replacement from a table or function: nil keeps the match, a string or number
/// replaces it, anything else (`false` too) is an error.
fn push_replacement(out: &mut String, v: &Value, whole: &str) -> Result<(), Fail> {
    match v {
        Value::Nil => out.push_str(whole),
        v => match value_text(v) {
            Some(t) => out.push_str(&t),
            None => {
                return refuse(format!(
                    "invalid replacement value (a {})",
                    super::language::lua_type(v)
                ));
            }
        },
    }
    Ok(())
}

/// The table entry for a key, found as PHP finds it: a numeric string key and the
/// number are the same key (Scribunto hands the table to PHP as an array).
fn table_entry(t: &Table, key: Value) -> mlua::Result<Value> {
    let v: Value = t.get(key.clone())?;
    if !v.is_nil() {
        return Ok(v);
    }
    match &key {
        Value::String(k) => match k.to_str().ok().and_then(|k| k.parse::<i64>().ok()) {
            Some(n) if n.to_string() == *k.to_string_lossy() => t.get(n as f64),
            _ => Ok(v),
        },
        Value::Number(n) if n.fract() == 0.0 => t.get(lua_number(*n)),
        _ => Ok(v),
    }
}

fn replace_one(
    lua: &Lua,
    repl: &Replacement,
    s: &[char],
    f: &Found,
    out: &mut String,
) -> Result<(), Fail> {
    let whole: String = s[f.start..f.end].iter().collect();
    match repl {
        Replacement::Text(r) => expand_replacement(lua, r, s, f, &whole, out),
        Replacement::Table(t) => {
            let key = capture_value(lua, s, &f.captures[0])?;
            push_replacement(out, &table_entry(t, key)?, &whole)
        }
        Replacement::Function(func) => {
            let args = captures(lua, s, f)?;
            let v: Value = func.call(MultiValue::from_iter(args))?;
            push_replacement(out, &v, &whole)
        }
    }
}

fn gsub(lua: &Lua, args: &[Value]) -> Answer {
    let s = text_arg("gsub", args.first())?;
    // PHP's replacement limit is an integer: 1.5 replaces once.
    let max = match args.get(3).unwrap_or(&Value::Nil) {
        Value::Nil => f64::INFINITY,
        _ => number_arg("gsub", args, 4, 0.0)?.floor(),
    };
    if max < 1.0 {
        let text: String = s.iter().collect();
        return Ok(vec![
            Value::String(lua.create_string(&text)?),
            Value::Number(0.0),
        ]);
    }
    let p = pattern_arg("gsub", args.get(1))?;
    syntax(&p)?;
    let repl = match args.get(2).unwrap_or(&Value::Nil) {
        Value::Table(t) => Replacement::Table(t.clone()),
        Value::Function(f) => Replacement::Function(f.clone()),
        v => match value_text(v) {
            Some(t) => Replacement::Text(t.chars().collect()),
            None => return type_error("gsub", 3, "function or table or string", v),
        },
    };
    let (anchor, pat) = pattern::split_anchor(&p, false);
    let mut out = String::new();
    let mut si = 0;
    let mut n = 0.0;
    let mut steps = 0u64;
    while n < max {
        let found = pattern::match_at(&s, pat, si, true, &mut steps)
            .map_err(|e| Fail::Refused(e.to_string()))?;
        if let Some(f) = &found {
            n += 1.0;
            replace_one(lua, &repl, &s, f, &mut out)?;
            if out.len() > MAX_OUTPUT {
                return refuse("string too long".to_string());
            }
        }
        match found {
            Some(f) if f.end > si => si = f.end,
            _ if si < s.len() => {
                out.push(s[si]);
                si += 1;
            }
            _ => break,
        }
        if anchor {
            break;
        }
    }
    if si < s.len() {
        out.extend(&s[si..]);
    }
    Ok(vec![
        Value::String(lua.create_string(&out)?),
        Value::Number(n),
    ])
}

/// Scribunto's `sub`: negative positions count from the end, then both are clamped
/// to 1…len+1.
fn sub(lua: &Lua, args: &[Value]) -> Answer {
    let s = text_arg("sub", args.first())?;
    let i = number_arg("sub", args, 2, 1.0)?;
    let j = number_arg("sub", args, 3, -1.0)?;
    let piece: String = span(i, j, s.len()).map_or_else(String::new, |r| s[r].iter().collect());
    string_value(lua, &piece)
}

/// The characters `sub` and `codepoint` take from `i` to `j` of a text of `len`:
/// negative positions count from the end, then both are clamped to 1…len+1; `None`
/// when the span is empty. A NaN position counts as 1, as PHP's
/// `max(1, min(NAN, len + 1))` gives; the span is never reversed (a NaN once sliced
/// the text from its end back to its start, a panic found by fuzzing).
fn span(mut i: f64, mut j: f64, len: usize) -> Option<std::ops::Range<usize>> {
    let n = len as f64;
    if i < 0.0 {
        i += n + 1.0;
    }
    if j < 0.0 {
        j += n + 1.0;
    }
    if j < i {
        return None;
    }
    let position = |x: f64| {
        if x.is_nan() {
            1
        } else {
            x.trunc().clamp(1.0, n + 1.0) as usize
        }
    };
    let (a, b) = (position(i) - 1, position(j).min(len));
    (a < b).then_some(a..b)
}

/// The code points from `i` to `j` (Scribunto's rules, as for `sub`).
fn code_points(name: &str, args: &[Value]) -> Result<Vec<f64>, Fail> {
    let s = text_arg(name, args.first())?;
    let i = number_arg(name, args, 2, 1.0)?;
    let j = number_arg(name, args, 3, i)?;
    Ok(span(i, j, s.len()).map_or_else(Vec::new, |r| {
        s[r].iter().map(|&c| c as u32 as f64).collect()
    }))
}

fn codepoint(_: &Lua, args: &[Value]) -> Answer {
    Ok(code_points("codepoint", args)?
        .into_iter()
        .map(Value::Number)
        .collect())
}

/// All of `gcodepoint`'s code points in one table: a long string's would not fit on
/// Lua's stack as separate values.
fn gcodepoint_init(lua: &Lua, args: &[Value]) -> Answer {
    let cps = code_points("codepoint", args)?;
    Ok(vec![Value::Table(lua.create_sequence_from(cps)?)])
}

/// PHP's `is_numeric` on a string: surrounding whitespace, an optional sign, digits
/// with an optional fraction and exponent.
fn php_numeric(s: &str) -> Option<f64> {
    let t = s.trim_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let valid = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if valid { t.parse().ok() } else { None }
}

fn char_(lua: &Lua, args: &[Value]) -> Answer {
    if args.len() > MAX_STRING {
        return refuse("too many arguments to 'char'".to_string());
    }
    let mut out = String::new();
    for (k, v) in args.iter().enumerate() {
        let n = match v {
            Value::Number(n) => *n,
            Value::Integer(n) => *n as f64,
            Value::String(s) => match s.to_str().ok().and_then(|s| php_numeric(&s)) {
                Some(n) => n,
                None => return type_error("char", k + 1, "number", v),
            },
            other => return type_error("char", k + 1, "number", other),
        };
        let n = n.floor();
        if !(0.0..=1_114_111.0).contains(&n) {
            return refuse(format!(
                "bad argument #{} to 'char' (value out of range)",
                k + 1
            ));
        }
        // A surrogate is not a character: PHP's conversion writes `?` for it.
        out.push(char::from_u32(n as u32).unwrap_or('?'));
    }
    if out.len() > MAX_STRING {
        return refuse("result to long for 'char'".to_string());
    }
    string_value(lua, &out)
}

/// Scribunto's `byteoffset`: the byte where character `l` counted from the one holding
/// byte `i` starts (`l = 0`: that character itself; a negative `i` counts from the end).
fn byteoffset(_: &Lua, args: &[Value]) -> Answer {
    let b = string_arg("byteoffset", args.first(), true)?;
    let mut l = number_arg("byteoffset", args, 2, 1.0)?.trunc() as i64;
    let mut i = number_arg("byteoffset", args, 3, 1.0)?.trunc() as i64;
    let n = b.len() as i64;
    if i < 0 {
        i += n + 1;
    }
    if i < 1 || i > n {
        return Ok(vec![Value::Nil]);
    }
    let asked = (i - 1) as usize;
    let mut at = asked;
    while at > 0 && b[at] & 0xc0 == 0x80 {
        at -= 1;
    }
    if l > 0 && at == asked {
        l -= 1;
    }
    let starts: Vec<usize> = (0..b.len()).filter(|&k| b[k] & 0xc0 != 0x80).collect();
    let before = starts.iter().take_while(|&&k| k < at).count() as i64;
    let target = before.saturating_add(l);
    Ok(vec![
        match usize::try_from(target).ok().and_then(|t| starts.get(t)) {
            Some(k) => Value::Number((*k + 1) as f64),
            None => Value::Nil,
        },
    ])
}

/// `len`, `isutf8` and the normalizations take any bytes; invalid UTF-8 gives nil
/// (or false).
fn len(_: &Lua, args: &[Value]) -> Answer {
    let b = string_arg("len", args.first(), false)?;
    Ok(vec![match std::str::from_utf8(&b) {
        Ok(t) => Value::Number(t.chars().count() as f64),
        Err(_) => Value::Nil,
    }])
}

fn isutf8(_: &Lua, args: &[Value]) -> Answer {
    let b = string_arg("isutf8", args.first(), false)?;
    Ok(vec![Value::Boolean(std::str::from_utf8(&b).is_ok())])
}

fn case_map(lua: &Lua, name: &str, args: &[Value], upper: bool) -> Answer {
    let s = text_arg(name, args.first())?;
    let t: String = s.into_iter().map(|c| map_case(c, upper)).collect();
    string_value(lua, &t)
}

type Handler = fn(&Lua, &[Value]) -> Answer;

/// Registers `f` as `u[name]`, answering `(true, results…)` or `(false, message)`.
fn add(
    lua: &Lua,
    u: &Table,
    name: &str,
    f: impl Fn(&Lua, &[Value]) -> Answer + 'static,
) -> mlua::Result<()> {
    let g = lua.create_function(move |lua, args: MultiValue| {
        let args: Vec<Value> = args.into_iter().collect();
        let mut out = MultiValue::new();
        match f(lua, &args) {
            Ok(values) => {
                out.push_back(Value::Boolean(true));
                out.extend(values);
            }
            Err(fail) => {
                let message = match fail {
                    Fail::Refused(m) => m,
                    Fail::Lua(e) => super::lua_message(&super::sandbox::charge_traceback(lua, e)),
                };
                out.push_back(Value::Boolean(false));
                out.push_back(Value::String(lua.create_string(&message)?));
            }
        }
        Ok(out)
    })?;
    u.set(name, g)
}

/// Registers the functions on a new table `iface.ustring`.
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let u = lua.create_table()?;
    let handlers: [(&str, Handler); 12] = [
        ("len", len),
        ("sub", sub),
        ("codepoint", codepoint),
        ("gcodepoint_init", gcodepoint_init),
        ("char", char_),
        ("isutf8", isutf8),
        ("byteoffset", byteoffset),
        ("find", find),
        ("match", match_),
        ("gmatch_init", gmatch_init),
        ("gmatch", gmatch),
        ("gsub", gsub),
    ];
    for (name, f) in handlers {
        add(lua, &u, name, f)?;
    }
    // Scribunto hands `upper` and `lower` to the content language's `uc` and `lc`,
    // whose names its errors carry.
    add(lua, &u, "upper", |lua, a| case_map(lua, "uc", a, true))?;
    add(lua, &u, "lower", |lua, a| case_map(lua, "lc", a, false))?;
    type Norm = fn(&str) -> String;
    let forms: [(&str, Norm); 4] = [
        ("toNFC", |s| s.nfc().collect()),
        ("toNFD", |s| s.nfd().collect()),
        ("toNFKC", |s| s.nfkc().collect()),
        ("toNFKD", |s| s.nfkd().collect()),
    ];
    for (name, form) in forms {
        add(lua, &u, name, move |lua, args| {
            let b = string_arg(name, args.first(), false)?;
            Ok(vec![match std::str::from_utf8(&b) {
                Ok(t) => Value::String(lua.create_string(form(t))?),
                Err(_) => Value::Nil,
            }])
        })?;
    }
    iface.set("ustring", u)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_lua_does() {
        assert_eq!(lua_number(3.0), "3");
        assert_eq!(lua_number(0.1), "0.1");
        assert_eq!(lua_number(1.0 / 3.0), "0.33333333333333");
        assert_eq!(lua_number(1e20), "1e+20");
        assert_eq!(lua_number(-2.5), "-2.5");
    }
}
