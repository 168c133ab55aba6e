//! The Rust half of `mw.text` (`text.lua`): HTML entity decoding, and JSON (`json.rs`),
//! registered as plain Lua functions on `iface.text` (they need nothing of the page);
//! `unstripNoWiki`, which reads the page's strip state, as a host operation.

use mlua::{Lua, MultiValue, Table, Value};

use super::host::{Ctx, Op, nil, one, string};

/// The host operations of `mw.text`.
pub(super) const OPS: &[(&str, Op)] = &[("unstripNoWiki", unstrip_nowiki)];

/// `mw.text.unstripNoWiki(s)`: `s` with the page's `<nowiki>` markers replaced by their
/// text.
fn unstrip_nowiki(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let Some(Value::String(s)) = a.first() else {
        return nil();
    };
    let bytes = s.as_bytes();
    let Ok(text) = std::str::from_utf8(&bytes) else {
        // Markers are ASCII and the texts they stand for UTF-8: a string that is not
        // holds no marker of this page.
        return one(Value::String(s.clone()));
    };
    let put_back = cx.st.borrow_mut().unstrip_nowiki(text).into_owned();
    string(lua, &put_back)
}

/// Registers `decode`, `jsonEncode` and `jsonDecode` on a new table `iface.text`.
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
    super::json::register(lua, &text)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities() {
        assert_eq!(decode_basic("a&lt;b&#65;&#x42;&bogus;"), "a<bAB&bogus;");
    }
}
