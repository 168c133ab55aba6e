//! The Rust half of `mw.ustring` (`ustring.lua`): UTF-8 aware string functions and
//! patterns (see [`super::pattern`]), registered as plain Lua functions on
//! `iface.ustring` (they need nothing of the page). Positions are 1-based code-point
//! indices, negative ones count from the end, as in Scribunto.

use mlua::{Lua, MultiValue, Table, Value};
use unicode_normalization::UnicodeNormalization;

use super::pattern::{self, Capture, Found};

/// Longest string these functions build (Rust memory is outside Lua's memory limit).
const MAX_OUTPUT: usize = 16 * 1024 * 1024;

fn chars(s: &mlua::LuaString) -> Vec<char> {
    s.to_string_lossy().chars().collect()
}

/// Lua's `posrelat`: a negative position counts from the end.
fn relative(pos: i64, len: usize) -> i64 {
    if pos >= 0 {
        pos
    } else if pos.unsigned_abs() > len as u64 {
        0
    } else {
        len as i64 + pos + 1
    }
}

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

fn too_long() -> mlua::Error {
    mlua::Error::RuntimeError("string too long".to_string())
}

/// Protocol with the Lua wrappers: `(n, values…)` where `n` is the index of the last
/// value in a table built from the results, or `(nil, message)` for an error.
fn packed(lua: &Lua, values: Vec<Value>) -> mlua::Result<MultiValue> {
    let mut out = MultiValue::new();
    out.push_back(Value::Number((values.len() + 1) as f64));
    for v in values {
        out.push_back(v);
    }
    let _ = lua;
    Ok(out)
}

fn failed(lua: &Lua, e: pattern::PatternError) -> mlua::Result<MultiValue> {
    let mut out = MultiValue::new();
    out.push_back(Value::Nil);
    out.push_back(Value::String(lua.create_string(e.to_string())?));
    Ok(out)
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

/// Start position (0-based) from a 1-based `init`, clamped as Lua 5.1 does.
fn start(init: Option<i64>, len: usize) -> usize {
    let i = relative(init.unwrap_or(1), len) - 1;
    i.clamp(0, len as i64) as usize
}

fn find(
    lua: &Lua,
    (s, p, init, plain): (mlua::LuaString, mlua::LuaString, Option<i64>, Option<Value>),
) -> mlua::Result<MultiValue> {
    let s = chars(&s);
    let p = chars(&p);
    let init = start(init, s.len());
    let plain = plain.is_some_and(|v| !matches!(v, Value::Nil | Value::Boolean(false)));
    if plain || pattern::is_plain(&p) {
        let found = if p.is_empty() {
            Some(init)
        } else {
            (init..s.len().saturating_sub(p.len() - 1)).find(|&i| s[i..i + p.len()] == p[..])
        };
        return match found {
            Some(i) => packed(
                lua,
                vec![
                    Value::Number((i + 1) as f64),
                    Value::Number((i + p.len()) as f64),
                ],
            ),
            None => packed(lua, vec![Value::Nil]),
        };
    }
    match pattern::find(&s, &p, init, false, false) {
        Ok(Some(f)) => {
            let mut v = vec![
                Value::Number((f.start + 1) as f64),
                Value::Number(f.end as f64),
            ];
            v.extend(captures(lua, &s, &f)?);
            packed(lua, v)
        }
        Ok(None) => packed(lua, vec![Value::Nil]),
        Err(e) => failed(lua, e),
    }
}

fn match_(
    lua: &Lua,
    (s, p, init): (mlua::LuaString, mlua::LuaString, Option<i64>),
) -> mlua::Result<MultiValue> {
    let s = chars(&s);
    let p = chars(&p);
    let init = start(init, s.len());
    match pattern::find(&s, &p, init, true, false) {
        Ok(Some(f)) => {
            let v = captures(lua, &s, &f)?;
            packed(lua, v)
        }
        Ok(None) => packed(lua, vec![Value::Nil]),
        Err(e) => failed(lua, e),
    }
}

/// One step of `gmatch`: the match at or after 1-based `pos`, as (next pos, captures…).
fn gmatch(
    lua: &Lua,
    (s, p, pos): (mlua::LuaString, mlua::LuaString, i64),
) -> mlua::Result<MultiValue> {
    let s = chars(&s);
    let p = chars(&p);
    let from = (pos - 1).max(0) as usize;
    if from > s.len() {
        return Ok(MultiValue::new());
    }
    match pattern::find(&s, &p, from, true, true) {
        Ok(Some(f)) => {
            let next = if f.end == f.start { f.end + 1 } else { f.end };
            let mut v = vec![Value::Number((next + 1) as f64)];
            v.extend(captures(lua, &s, &f)?);
            packed(lua, v)
        }
        Ok(None) => Ok(MultiValue::new()),
        Err(e) => failed(lua, e),
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

fn gsub(
    lua: &Lua,
    (s, p, repl, max): (mlua::LuaString, mlua::LuaString, Value, Option<i64>),
) -> mlua::Result<MultiValue> {
    let s = chars(&s);
    let p = chars(&p);
    let (anchor, pat) = pattern::split_anchor(&p, false);
    let max = max.unwrap_or(i64::MAX);
    let repl_text = value_text(&repl).map(|t| t.chars().collect::<Vec<char>>());
    if repl_text.is_none() && !matches!(repl, Value::Table(_) | Value::Function(_)) {
        return Err(mlua::Error::RuntimeError(
            "bad argument #3 to 'gsub' (string/function/table expected)".to_string(),
        ));
    }
    let mut out = String::new();
    let mut si = 0;
    let mut n = 0i64;
    let mut steps = 0u64;
    while n < max {
        let found = match pattern::match_at(&s, pat, si, true, &mut steps) {
            Ok(f) => f,
            Err(e) => return failed(lua, e),
        };
        if let Some(f) = &found {
            n += 1;
            let whole: String = s[f.start..f.end].iter().collect();
            match (&repl_text, &repl) {
                (Some(r), _) => {
                    let mut i = 0;
                    while i < r.len() {
                        if r[i] == '%' && i + 1 < r.len() {
                            let c = r[i + 1];
                            if c == '0' {
                                out.push_str(&whole);
                            } else if let Some(d) = c.to_digit(10) {
                                match f.captures.get(d as usize - 1) {
                                    Some(cap) => {
                                        if let Some(t) = value_text(&capture_value(lua, &s, cap)?) {
                                            out.push_str(&t);
                                        }
                                    }
                                    None if d == 1 => out.push_str(&whole),
                                    None => {
                                        return failed(lua, pattern::PatternError::InvalidCapture);
                                    }
                                }
                            } else {
                                out.push(c);
                            }
                            i += 2;
                        } else {
                            out.push(r[i]);
                            i += 1;
                        }
                    }
                }
                (None, Value::Table(t)) => {
                    let key = capture_value(lua, &s, &f.captures[0])?;
                    let v: Value = t.get(key)?;
                    push_replacement(&mut out, &v, &whole)?;
                }
                (None, Value::Function(func)) => {
                    let args = captures(lua, &s, f)?;
                    let v: Value = func.call(MultiValue::from_iter(args))?;
                    push_replacement(&mut out, &v, &whole)?;
                }
                _ => {}
            }
            if out.len() > MAX_OUTPUT {
                return Err(too_long());
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
    packed(
        lua,
        vec![
            Value::String(lua.create_string(&out)?),
            Value::Number(n as f64),
        ],
    )
}

fn push_replacement(out: &mut String, v: &Value, whole: &str) -> mlua::Result<()> {
    match v {
        Value::Nil | Value::Boolean(false) => out.push_str(whole),
        v => match value_text(v) {
            Some(t) => out.push_str(&t),
            None => {
                return Err(mlua::Error::RuntimeError(format!(
                    "invalid replacement value (a {})",
                    v.type_name()
                )));
            }
        },
    }
    Ok(())
}

fn sub(
    lua: &Lua,
    (s, i, j): (mlua::LuaString, Option<i64>, Option<i64>),
) -> mlua::Result<mlua::LuaString> {
    let s = chars(&s);
    let len = s.len();
    let mut a = relative(i.unwrap_or(1), len);
    let mut b = relative(j.unwrap_or(-1), len);
    if a < 1 {
        a = 1;
    }
    if b > len as i64 {
        b = len as i64;
    }
    if a > b {
        return lua.create_string("");
    }
    lua.create_string(s[(a - 1) as usize..b as usize].iter().collect::<String>())
}

fn codepoint(
    lua: &Lua,
    (s, i, j): (mlua::LuaString, Option<i64>, Option<i64>),
) -> mlua::Result<MultiValue> {
    let s = chars(&s);
    let len = s.len();
    let a = relative(i.unwrap_or(1), len).max(1);
    let b = relative(j.unwrap_or(a), len).min(len as i64);
    let mut out = MultiValue::new();
    let _ = lua;
    let mut k = a;
    while k <= b {
        out.push_back(Value::Number(s[(k - 1) as usize] as u32 as f64));
        k += 1;
    }
    Ok(out)
}

fn char_(lua: &Lua, cps: mlua::Variadic<f64>) -> mlua::Result<mlua::LuaString> {
    let mut out = String::new();
    for (i, cp) in cps.iter().enumerate() {
        let c = (*cp >= 0.0 && *cp == cp.trunc())
            .then(|| char::from_u32(*cp as u32))
            .flatten()
            .ok_or_else(|| {
                mlua::Error::RuntimeError(format!(
                    "bad argument #{} to 'char' (value out of range)",
                    i + 1
                ))
            })?;
        out.push(c);
    }
    lua.create_string(&out)
}

fn byteoffset(
    lua: &Lua,
    (s, l, i): (mlua::LuaString, Option<i64>, Option<i64>),
) -> mlua::Result<Value> {
    let _ = lua;
    let bytes = s.as_bytes().to_vec();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let starts: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let l = l.unwrap_or(1);
    let i = i.unwrap_or(1).max(1) as usize;
    // The character containing byte i, then l characters on.
    let here = starts.iter().rposition(|&b| b < i).unwrap_or(0) as i64;
    let target = if l > 0 { here + l - 1 } else { here + l };
    Ok(
        match usize::try_from(target).ok().and_then(|t| starts.get(t)) {
            Some(b) => Value::Number((*b + 1) as f64),
            None => Value::Nil,
        },
    )
}

/// Registers the functions on a new table `iface.ustring`.
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let u = lua.create_table()?;
    u.set(
        "len",
        lua.create_function(|_, s: mlua::LuaString| {
            Ok(match std::str::from_utf8(&s.as_bytes()) {
                Ok(t) => Value::Number(t.chars().count() as f64),
                Err(_) => Value::Nil,
            })
        })?,
    )?;
    u.set("sub", lua.create_function(sub)?)?;
    for (name, upper) in [("upper", true), ("lower", false)] {
        u.set(
            name,
            lua.create_function(move |lua, s: mlua::LuaString| {
                let t: String = s
                    .to_string_lossy()
                    .chars()
                    .map(|c| map_case(c, upper))
                    .collect();
                lua.create_string(&t)
            })?,
        )?;
    }
    u.set("codepoint", lua.create_function(codepoint)?)?;
    u.set("char", lua.create_function(char_)?)?;
    u.set(
        "isutf8",
        lua.create_function(
            |_, s: mlua::LuaString| Ok(std::str::from_utf8(&s.as_bytes()).is_ok()),
        )?,
    )?;
    u.set("byteoffset", lua.create_function(byteoffset)?)?;
    u.set("find", lua.create_function(find)?)?;
    u.set("match", lua.create_function(match_)?)?;
    u.set("gmatch", lua.create_function(gmatch)?)?;
    u.set("gsub", lua.create_function(gsub)?)?;
    type Norm = fn(&str) -> String;
    let forms: [(&str, Norm); 4] = [
        ("toNFC", |s| s.nfc().collect()),
        ("toNFD", |s| s.nfd().collect()),
        ("toNFKC", |s| s.nfkc().collect()),
        ("toNFKD", |s| s.nfkd().collect()),
    ];
    for (name, f) in forms {
        u.set(
            name,
            lua.create_function(move |lua, s: mlua::LuaString| {
                match std::str::from_utf8(&s.as_bytes()) {
                    Ok(t) => Ok(Value::String(lua.create_string(f(t))?)),
                    Err(_) => Ok(Value::Nil),
                }
            })?,
        )?;
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
