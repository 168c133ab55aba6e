//! `mw.text.jsonEncode` / `jsonDecode` as Scribunto computes them on MediaWiki 1.39: the
//! Lua value crosses into PHP (a PHP array, whose keys PHP casts), is re-indexed
//! between Lua's 1-based sequences and PHP's 0-based lists, and goes through PHP's
//! `json_encode` / `json_decode` with MediaWiki's flags. Each of those steps decides
//! bytes of the result (which tables become JSON arrays, how a float is written, which
//! error is reported), so each is modelled here on its own; docs/expansion.md
//! describes the mapping and `tests/data/scribunto/json-php.jsonl` pins it against the
//! installed PHP.

use mlua::{Function, Lua, Table, Value};
use rustc_hash::FxHashMap;

/// `mw.text.JSON_PRESERVE_KEYS`: no re-indexing between 1-based and 0-based.
const PRESERVE_KEYS: i64 = 1;
/// `mw.text.JSON_TRY_FIXING`: drop trailing commas, as MediaWiki's `FormatJson` does.
const TRY_FIXING: i64 = 2;
/// `mw.text.JSON_PRETTY`: PHP's `JSON_PRETTY_PRINT` (four spaces).
const PRETTY: i64 = 4;
/// PHP's default nesting limit of `json_encode` and `json_decode`.
const MAX_DEPTH: usize = 512;

/// A key of a PHP array: PHP turns a decimal integer string into an integer key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Str(Vec<u8>),
}

impl Key {
    /// The key a PHP array stores for string `s`.
    fn from_bytes(s: &[u8]) -> Key {
        match canonical_int(s) {
            Some(i) => Key::Int(i),
            None => Key::Str(s.to_vec()),
        }
    }
}

/// `s` read as PHP reads an array key: a decimal integer without leading zeros or `+`,
/// within 64 bits (`"-0"` stays a string).
fn canonical_int(s: &[u8]) -> Option<i64> {
    let digits = s.strip_prefix(b"-").unwrap_or(s);
    let ok = !digits.is_empty()
        && digits.iter().all(u8::is_ascii_digit)
        && (digits == b"0" || digits[0] != b'0')
        && s != b"-0";
    if !ok {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

/// A PHP value as far as JSON sees it.
#[derive(Clone, Debug, PartialEq)]
enum Php {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Vec<u8>),
    Array(PhpArray),
}

/// An ordered PHP array: assigning an existing key keeps its place.
#[derive(Clone, Debug, Default, PartialEq)]
struct PhpArray {
    entries: Vec<(Key, Php)>,
    index: FxHashMap<Key, usize>,
}

impl PhpArray {
    fn insert(&mut self, k: Key, v: Php) {
        match self.index.get(&k) {
            Some(&i) => self.entries[i].1 = v,
            None => {
                self.index.insert(k.clone(), self.entries.len());
                self.entries.push((k, v));
            }
        }
    }

    fn from_entries(entries: Vec<(Key, Php)>) -> PhpArray {
        let mut a = PhpArray::default();
        for (k, v) in entries {
            a.insert(k, v);
        }
        a
    }

    /// `json_encode` writes a list when the keys are 0, 1, … in order.
    fn is_list(&self) -> bool {
        self.entries
            .iter()
            .enumerate()
            .all(|(i, (k, _))| *k == Key::Int(i as i64))
    }
}

/// Why `json_encode` or `json_decode` gave up; the text is MediaWiki's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonError {
    Depth,
    CtrlChar,
    Syntax,
    Utf8,
    Utf16,
}

impl JsonError {
    /// The English text of MediaWiki's `json-error-*` message.
    fn message(self) -> &'static str {
        match self {
            JsonError::Depth => "The maximum stack depth has been exceeded",
            JsonError::CtrlChar => "Control character error, possibly incorrectly encoded",
            JsonError::Syntax => "Syntax error",
            JsonError::Utf8 => "Malformed UTF-8 characters, possibly incorrectly encoded",
            JsonError::Utf16 => "Malformed UTF-16 characters, possibly incorrectly encoded",
        }
    }
}

/// Registers `jsonEncode(value, flags, pairs)` and `jsonDecode(s, flags)` on `text`.
/// Both return the result, or `nil, message` for the Lua side to raise.
pub(super) fn register(lua: &Lua, text: &Table) -> mlua::Result<()> {
    text.set(
        "jsonEncode",
        lua.create_function(|lua, (v, flags, pairs): (Value, i64, Function)| {
            let php = match to_php(lua, &v, &pairs, 0) {
                Ok(p) => p,
                Err(e) => return Ok((Value::Nil, Some(e))),
            };
            let php = match php {
                Php::Array(a) if flags & PRESERVE_KEYS == 0 => Php::Array(reindex_for_encode(a)),
                p => p,
            };
            match encode(&php, flags & PRETTY != 0) {
                Some(s) => Ok((Value::String(lua.create_string(&s)?), None)),
                None => Ok((Value::Nil, Some("Unable to encode value".to_string()))),
            }
        })?,
    )?;
    text.set(
        "jsonDecode",
        lua.create_function(|lua, (s, flags): (mlua::LuaString, i64)| {
            match decode(&s.as_bytes(), flags & TRY_FIXING != 0) {
                Ok(Php::Array(a)) if flags & PRESERVE_KEYS == 0 => {
                    Ok((to_lua(lua, &Php::Array(reindex_for_decode(a)))?, None))
                }
                Ok(p) => Ok((to_lua(lua, &p)?, None)),
                Err(e) => Ok((Value::Nil, Some(e.message().to_string()))),
            }
        })?,
    )
}

/// A Lua value as Scribunto hands it to PHP: integral numbers within 64 bits become
/// integers, other numbers floats; a table is walked with `pairs` (so `__pairs` is
/// honoured and may yield `nil` values, which become `null`).
fn to_php(lua: &Lua, v: &Value, pairs: &Function, depth: usize) -> Result<Php, String> {
    let lua_error = |e| super::lua_message(&super::sandbox::charge_traceback(lua, e));
    Ok(match v {
        Value::Nil => Php::Null,
        Value::Boolean(b) => Php::Bool(*b),
        Value::Integer(i) => Php::Int(*i),
        Value::Number(n) => number(*n),
        Value::String(s) => Php::Str(s.as_bytes().to_vec()),
        Value::Table(t) => {
            if depth >= MAX_DEPTH {
                return Err("Unable to encode value".into());
            }
            let (next, state, mut control): (Function, Value, Value) =
                pairs.call(t.clone()).map_err(lua_error)?;
            let mut a = PhpArray::default();
            loop {
                let (k, v): (Value, Value) = next
                    .call((state.clone(), control.clone()))
                    .map_err(lua_error)?;
                if k.is_nil() {
                    break;
                }
                a.insert(php_key(&k)?, to_php(lua, &v, pairs, depth + 1)?);
                control = k;
            }
            Php::Array(a)
        }
        other => return Err(format!("Cannot encode type '{}'", other.type_name())),
    })
}

fn number(n: f64) -> Php {
    if n.is_finite()
        && n == n.trunc()
        && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&n)
    {
        Php::Int(n as i64)
    } else {
        Php::Float(n)
    }
}

/// A Lua table key as a PHP array key: a non-integral number is written as Lua writes it.
fn php_key(k: &Value) -> Result<Key, String> {
    match k {
        Value::Integer(i) => Ok(Key::Int(*i)),
        Value::Number(n) => match number(*n) {
            Php::Int(i) => Ok(Key::Int(i)),
            _ if n.is_infinite() => Err("Cannot use 'inf' as a table key".into()),
            _ => Ok(Key::from_bytes(super::ustring::lua_number(*n).as_bytes())),
        },
        Value::String(s) => Ok(Key::from_bytes(&s.as_bytes())),
        other => Err(format!(
            "Cannot use type '{}' as a table key",
            other.type_name()
        )),
    }
}

/// The number PHP's `SORT_NUMERIC` compares a key by: a string's leading decimal number
/// (after blanks), or 0.
fn sort_number(k: &Key) -> f64 {
    let s = match k {
        Key::Int(i) => return *i as f64,
        Key::Str(s) => s,
    };
    let start = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .unwrap_or(s.len());
    let digits_from = |mut i: usize| {
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let mut i = start;
    if matches!(s.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_end = digits_from(i);
    let mut end = int_end;
    if s.get(end) == Some(&b'.') {
        end = digits_from(end + 1);
    }
    if end == i || (int_end == i && end == i + 1) {
        return 0.0;
    }
    if matches!(s.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if s.get(j).is_some_and(u8::is_ascii_digit) {
            end = digits_from(j);
        }
    }
    std::str::from_utf8(&s[start..end])
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0)
}

/// Scribunto's re-indexing before encoding: keys sorted numerically (stable), and an
/// array whose keys are then 1, 2, … becomes a PHP list, at every level.
fn reindex_for_encode(a: PhpArray) -> PhpArray {
    let mut entries: Vec<(Key, Php)> = a
        .entries
        .into_iter()
        .map(|(k, v)| (k, reindex_value(v, reindex_for_encode)))
        .collect();
    entries.sort_by(|x, y| sort_number(&x.0).total_cmp(&sort_number(&y.0)));
    let sequence = entries.iter().enumerate().all(|(i, (k, _))| {
        let want = i as i64 + 1;
        match k {
            Key::Int(k) => *k == want,
            Key::Str(s) => {
                !s.is_empty()
                    && s.iter().all(u8::is_ascii_digit)
                    && std::str::from_utf8(s)
                        .ok()
                        .and_then(|s| s.parse::<i64>().ok())
                        == Some(want)
            }
        }
    });
    if sequence {
        for (i, e) in entries.iter_mut().enumerate() {
            e.0 = Key::Int(i as i64);
        }
    }
    PhpArray::from_entries(entries)
}

/// Scribunto's re-indexing after decoding: an array whose keys are 0, 1, … in order
/// (a JSON list, or an object with those keys) becomes 1-based, at every level.
fn reindex_for_decode(a: PhpArray) -> PhpArray {
    let sequence = a
        .entries
        .iter()
        .enumerate()
        .all(|(i, (k, _))| *k == Key::Int(i as i64));
    let entries = a
        .entries
        .into_iter()
        .enumerate()
        .map(|(i, (k, v))| {
            let k = if sequence { Key::Int(i as i64 + 1) } else { k };
            (k, reindex_value(v, reindex_for_decode))
        })
        .collect();
    PhpArray::from_entries(entries)
}

fn reindex_value(v: Php, f: fn(PhpArray) -> PhpArray) -> Php {
    match v {
        Php::Array(a) => Php::Array(f(a)),
        v => v,
    }
}

/// A decoded PHP value back in Lua: `null` is nil (so a `null` in an array is a hole).
fn to_lua(lua: &Lua, v: &Php) -> mlua::Result<Value> {
    Ok(match v {
        Php::Null => Value::Nil,
        Php::Bool(b) => Value::Boolean(*b),
        Php::Int(i) => Value::Number(*i as f64),
        Php::Float(f) => Value::Number(*f),
        Php::Str(s) => Value::String(lua.create_string(s)?),
        Php::Array(a) => {
            let t = lua.create_table()?;
            for (k, v) in &a.entries {
                let v = to_lua(lua, v)?;
                match k {
                    Key::Int(i) => t.raw_set(*i as f64, v)?,
                    Key::Str(s) => t.raw_set(lua.create_string(s)?, v)?,
                }
            }
            Value::Table(t)
        }
    })
}

/// PHP's `json_encode` with MediaWiki's flags (`JSON_UNESCAPED_SLASHES`,
/// `JSON_UNESCAPED_UNICODE`, and `JSON_PRETTY_PRINT` on request); `None` where PHP
/// returns false (a string that is not UTF-8, nesting deeper than 512).
fn encode(v: &Php, pretty: bool) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(&mut out, v, pretty, 0)?;
    Some(out)
}

fn encode_into(out: &mut Vec<u8>, v: &Php, pretty: bool, depth: usize) -> Option<()> {
    match v {
        Php::Null => out.extend_from_slice(b"null"),
        Php::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Php::Int(i) => out.extend_from_slice(i.to_string().as_bytes()),
        Php::Float(f) => out.extend_from_slice(php_float(*f)?.as_bytes()),
        Php::Str(s) => encode_string(out, s)?,
        Php::Array(a) => {
            if depth >= MAX_DEPTH {
                return None;
            }
            let list = a.is_list();
            let (open, close) = if list { (b'[', b']') } else { (b'{', b'}') };
            out.push(open);
            for (i, (k, v)) in a.entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                if pretty {
                    newline(out, depth + 1);
                }
                if !list {
                    match k {
                        Key::Int(n) => encode_string(out, n.to_string().as_bytes())?,
                        Key::Str(s) => encode_string(out, s)?,
                    }
                    out.extend_from_slice(if pretty { b": " } else { b":" });
                }
                encode_into(out, v, pretty, depth + 1)?;
            }
            if pretty && !a.entries.is_empty() {
                newline(out, depth);
            }
            out.push(close);
        }
    }
    Some(())
}

fn newline(out: &mut Vec<u8>, depth: usize) {
    out.push(b'\n');
    out.resize(out.len() + 4 * depth, b' ');
}

/// A JSON string as PHP writes it with `JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES`:
/// only quotes, backslashes, control characters and U+2028/U+2029 are escaped.
fn encode_string(out: &mut Vec<u8>, s: &[u8]) -> Option<()> {
    let s = std::str::from_utf8(s).ok()?;
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{0}'..='\u{1f}' | '\u{2028}' | '\u{2029}' => {
                out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
            }
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
    Some(())
}

/// A float as PHP writes it with `serialize_precision = -1`: the shortest digits that
/// read back to the same double, in fixed notation for decimal exponents from -4 to
/// 17 and otherwise as `1.0e+25`.
fn php_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    if f == 0.0 {
        return Some(if f.is_sign_negative() { "-0" } else { "0" }.to_string());
    }
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e')?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exp.parse::<i32>().ok()? + 1;
    let sign = if f < 0.0 { "-" } else { "" };
    let n = digits.len() as i32;
    let body = if !(-3..=17).contains(&point) {
        let rest = if n > 1 { &digits[1..] } else { "0" };
        let e = point - 1;
        let esign = if e < 0 { '-' } else { '+' };
        format!("{}.{rest}e{esign}{}", &digits[..1], e.abs())
    } else if point <= 0 {
        format!("0.{}{digits}", "0".repeat(-point as usize))
    } else if point >= n {
        format!("{digits}{}", "0".repeat((point - n) as usize))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    Some(format!("{sign}{body}"))
}

/// PHP's `json_decode($s, true)` through MediaWiki's `FormatJson::parse`: on a syntax
/// error and `try_fixing`, trailing commas at line ends are dropped and the text read
/// again; if that fails too the first error stands.
fn decode(s: &[u8], try_fixing: bool) -> Result<Php, JsonError> {
    let first = Parser::new(s).document();
    match first {
        Err(JsonError::Syntax) if try_fixing => match drop_trailing_commas(s) {
            Some(fixed) => Parser::new(&fixed)
                .document()
                .map_err(|_| JsonError::Syntax),
            None => first,
        },
        r => r,
    }
}

/// `FormatJson`'s repair: a comma followed by a closing bracket and then only
/// non-quote characters to the end of the line, or a comma ending a line whose next
/// non-blank character closes a bracket, is removed. `None` when nothing was removed.
fn drop_trailing_commas(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut removed = false;
    let mut i = 0;
    while i < s.len() {
        let after = &s[i + 1..];
        let kept = (s[i] == b',')
            .then(|| closes_rest_of_line(after).or_else(|| closes_next_line(after)))
            .flatten();
        match kept {
            Some(n) => {
                removed = true;
                out.extend_from_slice(&after[..n]);
                i += 1 + n;
            }
            None => {
                out.push(s[i]);
                i += 1;
            }
        }
    }
    removed.then_some(out)
}

/// `[ \t]*[}\]][^"\r\n]*([\r\n]|$)` at the start of `s`: the length it matches.
fn closes_rest_of_line(s: &[u8]) -> Option<usize> {
    let t = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t'))
        .unwrap_or(s.len());
    if !matches!(s.get(t), Some(b'}' | b']')) {
        return None;
    }
    let rest = &s[t + 1..];
    match rest.iter().position(|c| matches!(c, b'"' | b'\r' | b'\n')) {
        None => Some(s.len()),
        Some(p) if rest[p] != b'"' => Some(t + 1 + p + 1),
        Some(_) => None,
    }
}

/// `[ \t]*[\r\n][ \t\r\n]*[}\]]` at the start of `s`: the length it matches.
fn closes_next_line(s: &[u8]) -> Option<usize> {
    let t = s
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t'))
        .unwrap_or(s.len());
    if !matches!(s.get(t), Some(b'\r' | b'\n')) {
        return None;
    }
    let u = s[t..]
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .map(|u| t + u)?;
    matches!(s[u], b'}' | b']').then_some(u + 1)
}

/// A reader of JSON text that reports the first error PHP's scanner and parser would.
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(s: &'a [u8]) -> Self {
        Parser {
            s,
            pos: 0,
            depth: 0,
        }
    }

    fn document(mut self) -> Result<Php, JsonError> {
        let v = self.value()?;
        self.skip_ws();
        self.end_of_token()?;
        if self.pos < self.s.len() {
            return Err(self.unexpected());
        }
        Ok(v)
    }

    fn skip_ws(&mut self) {
        while matches!(self.s.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The error PHP's scanner reports for a byte that starts no token here: a NUL
    /// byte and bytes that are not UTF-8 have errors of their own.
    fn unexpected(&self) -> JsonError {
        match self.s.get(self.pos) {
            Some(0) => JsonError::CtrlChar,
            Some(0x80..) if utf8_len(&self.s[self.pos..]).is_none() => JsonError::Utf8,
            _ => JsonError::Syntax,
        }
    }

    /// Checks the byte after a token before the parser looks at it.
    fn end_of_token(&self) -> Result<(), JsonError> {
        match self.unexpected() {
            JsonError::Syntax => Ok(()),
            e => Err(e),
        }
    }

    fn value(&mut self) -> Result<Php, JsonError> {
        self.skip_ws();
        let Some(&c) = self.s.get(self.pos) else {
            return Err(JsonError::Syntax);
        };
        match c {
            b'{' | b'[' => {
                // `json_decode` counts the value inside the innermost array as a
                // level too: 512 nested arrays are already too deep.
                self.depth += 1;
                if self.depth >= MAX_DEPTH {
                    return Err(JsonError::Depth);
                }
                self.pos += 1;
                let v = if c == b'{' {
                    self.object()
                } else {
                    self.list()
                }?;
                self.depth -= 1;
                Ok(Php::Array(v))
            }
            b'"' => Ok(Php::Str(self.string()?)),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal(b"true", Php::Bool(true)),
            b'f' => self.literal(b"false", Php::Bool(false)),
            b'n' => self.literal(b"null", Php::Null),
            _ => Err(self.unexpected()),
        }
    }

    fn literal(&mut self, word: &[u8], v: Php) -> Result<Php, JsonError> {
        if self.s[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(JsonError::Syntax)
        }
    }

    /// After a value inside a list or object: `,` (true), the closing bracket (false).
    fn separator(&mut self, close: u8) -> Result<bool, JsonError> {
        self.skip_ws();
        self.end_of_token()?;
        match self.s.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(&c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(JsonError::Syntax),
        }
    }

    fn list(&mut self) -> Result<PhpArray, JsonError> {
        let mut a = PhpArray::default();
        self.skip_ws();
        if self.s.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(a);
        }
        loop {
            let v = self.value()?;
            a.insert(Key::Int(a.entries.len() as i64), v);
            if !self.separator(b']')? {
                return Ok(a);
            }
        }
    }

    fn object(&mut self) -> Result<PhpArray, JsonError> {
        let mut a = PhpArray::default();
        self.skip_ws();
        if self.s.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(a);
        }
        loop {
            self.skip_ws();
            self.end_of_token()?;
            if self.s.get(self.pos) != Some(&b'"') {
                return Err(JsonError::Syntax);
            }
            let k = self.string()?;
            self.skip_ws();
            self.end_of_token()?;
            if self.s.get(self.pos) != Some(&b':') {
                return Err(JsonError::Syntax);
            }
            self.pos += 1;
            let v = self.value()?;
            a.insert(Key::from_bytes(&k), v);
            if !self.separator(b'}')? {
                return Ok(a);
            }
        }
    }

    fn number(&mut self) -> Result<Php, JsonError> {
        let s = self.s;
        let start = self.pos;
        let mut i = start;
        if s.get(i) == Some(&b'-') {
            i += 1;
        }
        let digits = |mut i: usize| {
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        match s.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i = digits(i),
            _ => return Err(JsonError::Syntax),
        }
        let mut float = false;
        if s.get(i) == Some(&b'.') && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i = digits(i + 1);
            float = true;
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(s.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if s.get(j).is_some_and(u8::is_ascii_digit) {
                i = digits(j);
                float = true;
            }
        }
        self.pos = i;
        let text = std::str::from_utf8(&s[start..i]).map_err(|_| JsonError::Syntax)?;
        if !float && let Ok(n) = text.parse::<i64>() {
            return Ok(Php::Int(n));
        }
        text.parse::<f64>()
            .map(Php::Float)
            .map_err(|_| JsonError::Syntax)
    }

    fn string(&mut self) -> Result<Vec<u8>, JsonError> {
        let s = self.s;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = s.get(self.pos) else {
                return Err(JsonError::CtrlChar);
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => self.escape(&mut out)?,
                0..=0x1f => return Err(JsonError::CtrlChar),
                0x20..=0x7f => {
                    out.push(c);
                    self.pos += 1;
                }
                _ => {
                    let len = utf8_len(&s[self.pos..]).ok_or(JsonError::Utf8)?;
                    out.extend_from_slice(&s[self.pos..self.pos + len]);
                    self.pos += len;
                }
            }
        }
    }

    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), JsonError> {
        let s = self.s;
        let c = match s.get(self.pos + 1) {
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'/') => b'/',
            Some(b'b') => 8,
            Some(b'f') => 12,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'u') => {
                let hi = self.hex4(self.pos + 2).ok_or(JsonError::Syntax)?;
                let code = if (0xd800..0xdc00).contains(&hi) {
                    let lo = (s.get(self.pos + 6) == Some(&b'\\')
                        && s.get(self.pos + 7) == Some(&b'u'))
                    .then(|| self.hex4(self.pos + 8))
                    .flatten()
                    .filter(|lo| (0xdc00..0xe000).contains(lo))
                    .ok_or(JsonError::Utf16)?;
                    self.pos += 6;
                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                } else if (0xdc00..0xe000).contains(&hi) {
                    return Err(JsonError::Utf16);
                } else {
                    hi
                };
                self.pos += 6;
                let ch = char::from_u32(code).ok_or(JsonError::Utf16)?;
                let mut buf = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                return Ok(());
            }
            _ => return Err(JsonError::Syntax),
        };
        out.push(c);
        self.pos += 2;
        Ok(())
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let h = self.s.get(at..at + 4)?;
        if !h.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    }
}

/// The length of the UTF-8 sequence at the start of `s`, if it is a valid one.
fn utf8_len(s: &[u8]) -> Option<usize> {
    let len = match s.first()? {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    std::str::from_utf8(s.get(..len)?).ok().map(|_| len)
}

#[cfg(test)]
mod tests;
