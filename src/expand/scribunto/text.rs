//! The Rust half of `mw.text` (`text.lua`): HTML entity decoding and JSON parsing,
//! registered as plain Lua functions on `iface.text` (they need nothing of the page).

use mlua::{Lua, Table, Value};

/// Registers `decode` and `jsonDecode` on a new table `iface.text`.
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let text = lua.create_table()?;
    text.set(
        "decode",
        lua.create_function(|lua, (s, named): (mlua::LuaString, bool)| {
            let t = s.to_string_lossy().to_string();
            let decoded = if named {
                html_escape::decode_html_entities(&t).into_owned()
            } else {
                decode_basic(&t)
            };
            lua.create_string(&decoded)
        })?,
    )?;
    text.set(
        "jsonDecode",
        lua.create_function(|lua, s: mlua::LuaString| {
            match serde_json::from_slice::<serde_json::Value>(&s.as_bytes()) {
                Ok(v) => Ok((json_to_lua(lua, &v)?, None)),
                Err(e) => Ok((Value::Nil, Some(e.to_string()))),
            }
        })?,
    )?;
    iface.set("text", text)
}

/// `mw.text.decode` without named entities: numeric references and the five XML ones.
fn decode_basic(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest[..rest.len().min(12)].find(';');
        let decoded = end.and_then(|e| {
            let body = &rest[1..e];
            let c = match body {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "nbsp" => Some('\u{a0}'),
                _ => {
                    let num = body.strip_prefix('#')?;
                    let v = match num.strip_prefix(['x', 'X']) {
                        Some(h) => u32::from_str_radix(h, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(v)
                }
            }?;
            Some((c, e + 1))
        });
        match decoded {
            Some((c, n)) => {
                out.push(c);
                rest = &rest[n..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A decoded JSON value as `mw.text.jsonDecode` returns it: arrays become sequences
/// from 1, objects tables, `null` nil.
fn json_to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => Value::Nil,
        J::Bool(b) => Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) if i.unsigned_abs() < 1 << 53 => Value::Number(i as f64),
            _ => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => Value::String(lua.create_string(s)?),
        J::Array(a) => {
            let t = lua.create_table()?;
            for (i, x) in a.iter().enumerate() {
                t.raw_set(i + 1, json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        J::Object(o) => {
            let t = lua.create_table()?;
            for (k, x) in o {
                t.raw_set(k.as_str(), json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities() {
        assert_eq!(decode_basic("a&lt;b&#65;&#x42;&bogus;"), "a<bAB&bogus;");
    }
}
