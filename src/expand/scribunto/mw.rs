//! The Rust half of `mw`'s core (`mw.lua`): modules for `require` and `mw.loadData`,
//! compiled once per page, JSON pages for `mw.loadJsonData`, and
//! `mw.incrementExpensiveFunctionCount`.

use mlua::{Lua, MultiValue, Value};

use super::NS_MODULE;
use super::host::{Ctx, Op, arg_str, err, fail, nil, one};
use super::title::default_model;

/// The core operations, by the name `mw.lua` calls them with.
pub(super) const OPS: &[(&str, Op)] = &[
    ("loadModule", load_module),
    ("expensive", expensive),
    ("loadJsonData", load_json_data),
];

/// `loadModule(name)`: the module's compiled chunk and its prefixed title (the key of
/// `package.loaded`), recorded as a transclusion; nothing when the page is missing.
fn load_module(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let name = arg_str(a, 0).unwrap_or_default();
    let t = match cx.ex.codec().parse(&name, 0) {
        Ok(t) if t.ns == NS_MODULE && t.interwiki.is_none() && !t.dbkey.is_empty() => t,
        _ => return nil(),
    };
    cx.st.borrow_mut().record_template(t.ns, &t.dbkey);
    let key = cx.ex.codec().prefixed_text(t.ns, &t.dbkey);
    match cx.page.module(cx.ex, t.ns, &t.dbkey) {
        Some(Ok(f)) => Ok(MultiValue::from_iter([
            Value::Function(f),
            Value::String(lua.create_string(&key)?),
        ])),
        Some(Err(m)) => Err(err(m)),
        None => nil(),
    }
}

fn expensive(cx: &Ctx<'_, '_>, lua: &Lua, _: &[Value]) -> mlua::Result<MultiValue> {
    let mut st = cx.st.borrow_mut();
    if cx.ex.expensive_call(&mut st, i32::MIN, "") {
        one(Value::Boolean(true))
    } else {
        fail(lua, "too many expensive function calls".to_string())
    }
}

/// `loadJsonData(title)`: the page's JSON as a table, as MediaWiki decodes it (counted as
/// expensive, recorded as a transclusion); `nil, message` when the page is missing or
/// not a JSON page; `nil` for text that is not JSON.
fn load_json_data(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let name = arg_str(a, 0).unwrap_or_default();
    let mut st = cx.st.borrow_mut();
    if !cx.ex.expensive_call(&mut st, i32::MIN, "") {
        return fail(lua, "too many expensive function calls".to_string());
    }
    let not_json =
        || format!("bad argument #1 to 'mw.loadJsonData' ('{name}' is not a valid JSON page)");
    let t = match cx.ex.codec().parse(&name, 0) {
        Ok(t) if t.interwiki.is_none() && !t.dbkey.is_empty() && t.ns >= 0 => t,
        _ => return fail(lua, not_json()),
    };
    let source = cx.ex.source();
    if !source.exists(t.ns, &t.dbkey) || default_model(t.ns, &t.dbkey) != "json" {
        return fail(lua, not_json());
    }
    st.record_template(t.ns, &t.dbkey);
    drop(st);
    let Some(text) = source.wikitext(t.ns, &t.dbkey) else {
        return fail(lua, not_json());
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => one(php_json_to_lua(lua, &v)?),
        Err(_) => nil(),
    }
}

/// A JSON value as PHP's `json_decode(…, true)` gives it to Lua: object keys that are
/// integers become numbers, and an array whose keys run 0, 1, 2 … becomes a sequence
/// from 1 (so `[…]` and `{"0": …, "1": …}` alike); `null` is nil.
fn php_json_to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
    use serde_json::Value as J;
    let entries: Vec<(Value, &J)> = match v {
        J::Null => return Ok(Value::Nil),
        J::Bool(b) => return Ok(Value::Boolean(*b)),
        J::Number(n) => {
            return Ok(match n.as_i64() {
                Some(i) => Value::Integer(i),
                None => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
            });
        }
        J::String(s) => return Ok(Value::String(lua.create_string(s)?)),
        J::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (Value::Integer(i as i64), x))
            .collect(),
        J::Object(o) => o
            .iter()
            .map(|(k, x)| Ok((php_key(lua, k)?, x)))
            .collect::<mlua::Result<_>>()?,
    };
    // serde_json sorts an object's keys as strings ("10" before "2"): the keys are
    // compared as a set.
    let len = entries.len() as i64;
    let sequence = entries
        .iter()
        .all(|(k, _)| matches!(k, Value::Integer(n) if (0..len).contains(n)));
    let t = lua.create_table()?;
    for (k, x) in entries {
        let k = match k {
            Value::Integer(n) if sequence => Value::Integer(n + 1),
            k => k,
        };
        t.raw_set(k, php_json_to_lua(lua, x)?)?;
    }
    Ok(Value::Table(t))
}

/// PHP turns an array key written as a canonical integer (`"7"`, `"-2"`, not `"07"`)
/// into an integer.
fn php_key(lua: &Lua, k: &str) -> mlua::Result<Value> {
    match k.parse::<i64>() {
        Ok(n) if n.to_string() == k => Ok(Value::Integer(n)),
        _ => Ok(Value::String(lua.create_string(k)?)),
    }
}

#[cfg(test)]
mod tests {
    use crate::expand::Warning;
    use crate::expand::tests::run;

    /// `{{Use dmy dates}}` calls `{{#invoke:Unsubst||…}}`: Module:Unsubst defines `p['']`.
    const UNSUBST: &str =
        "local p = {}\np[''] = function(frame) return 'ran:' .. frame.args[1] end\nreturn p";

    fn warned(text: &str) -> Vec<(String, String)> {
        let e = run(&[("Module:Unsubst", UNSUBST)], text);
        e.warnings
            .iter()
            .filter_map(|w| match w {
                Warning::ScriptError { module, message } => Some((module.clone(), message.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_empty_function_name_runs_the_empty_key() {
        let e = run(&[("Module:Unsubst", UNSUBST)], "{{#invoke:Unsubst||x}}");
        assert_eq!(e.text, "ran:x");
        assert!(e.warnings.is_empty(), "{:?}", e.warnings);
    }

    #[test]
    fn every_refused_invoke_is_a_warning() {
        let nofunction = "Script error: You must specify a function to call.";
        assert_eq!(
            warned("{{#invoke:Unsubst}}"),
            [("Unsubst".to_string(), nofunction.to_string())]
        );
        assert_eq!(
            warned("{{#invoke:Missing|f}}"),
            [(
                "Module:Missing".to_string(),
                "Script error: No such module \"Missing\".".to_string()
            )]
        );
        assert_eq!(
            warned("{{#invoke:[bad]|f}}"),
            [(
                "[bad]".to_string(),
                "Script error: No such module \"[bad]\".".to_string()
            )]
        );
        let none = warned("{{#invoke:Unsubst|nosuch}}");
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].0, "Module:Unsubst");
    }

    const DATA: &str = r#"
local p = {}
local function try(f, ...)
    local ok, e = pcall(f, ...)
    return ok and 'ok' or (e:gsub('^.-:%d+: ', ''))
end
function p.read()
    local d = mw.loadData('Module:Data')
    local keys = {}
    for k, v in pairs(d.list) do keys[#keys + 1] = k .. '=' .. v end
    local seq = {}
    for i, v in ipairs(d.list) do seq[#seq + 1] = v end
    return table.concat({
        d.name, table.concat(keys, ','), table.concat(seq, ','), #d.list,
        tostring(d.list == mw.loadData('Module:Data').list),
        try(function() d.name = 'x' end),
        try(function() d.list[1] = 'x' end),
        try(setmetatable, d, {}),
    }, '|')
end
function p.bad(frame)
    return try(mw.loadData, frame.args[1]) .. '|' .. try(mw.loadData, frame.args[1])
end
function p.jsonTitle()
    return try(mw.loadJsonData, 0) .. '|' .. try(mw.loadJsonData, {}) .. '|'
        .. try(function() return mw.loadJsonData() end)
end
function p.json(frame)
    local ok, d = pcall(mw.loadJsonData, frame.args[1])
    if not ok then return d end
    return d.a[1] .. d.a[2] .. '|' .. d.o.k .. '|' .. d.o[5] .. '|' .. d.z[1] .. '|'
        .. try(function() d.a[1] = 0 end)
end
return p
"#;

    fn data_pages() -> Vec<(&'static str, &'static str)> {
        vec![
            ("Module:D", DATA),
            ("Module:Data", "return { name = 'n', list = { 'a', 'b' } }"),
            ("Module:Fn", "return { f = function() end }"),
            ("Module:Meta", "return { setmetatable({}, {}) }"),
            ("Module:Key", "return { [{}] = 1 }"),
            ("Module:Num", "return 5"),
            (
                "Module:Data.json",
                r#"{"a": [1, 2], "o": {"k": "v", "5": "five"}, "z": {"0": "zero"}}"#,
            ),
            ("Module:NotJson", "return {}"),
        ]
    }

    #[test]
    fn load_data_is_checked_and_read_only() {
        let pages = data_pages();
        let e = run(&pages, "{{#invoke:D|read}}");
        assert_eq!(
            e.text,
            "n|1=a,2=b|a,b|0|false|table from mw.loadData is read-only|\
             table from mw.loadData is read-only|cannot change a protected metatable"
        );
        let bad = |m: &str| run(&pages, &format!("{{{{#invoke:D|bad|{m}}}}}")).text;
        let twice = |m: &str| format!("{m}|{m}");
        assert_eq!(
            bad("Module:Fn"),
            twice("data for mw.loadData contains unsupported data type 'function'")
        );
        assert_eq!(
            bad("Module:Meta"),
            twice("data for mw.loadData contains a table with a metatable")
        );
        assert_eq!(
            bad("Module:Key"),
            twice("data for mw.loadData contains a table as a key")
        );
        assert_eq!(
            bad("Module:Num"),
            twice("Module:Num returned number, table expected")
        );
    }

    #[test]
    fn load_json_data_reads_json_pages() {
        let pages = data_pages();
        let e = run(&pages, "{{#invoke:D|json|Module:Data.json}}");
        assert_eq!(
            e.text,
            "12|v|five|zero|table from mw.loadJsonData is read-only"
        );
        let e = run(&pages, "{{#invoke:D|json|Module:NotJson}}");
        assert!(
            e.text.ends_with(
                "bad argument #1 to 'mw.loadJsonData' ('Module:NotJson' is not a valid JSON page)"
            ),
            "{}",
            e.text
        );
    }

    /// Scribunto's CommonTests: `mw.loadJsonData(0)` fails with "string expected, got nil"
    /// (its message formats `type(arg)`, a global that is nil), whatever the argument.
    #[test]
    fn load_json_data_refuses_a_title_that_is_no_string() {
        let e = run(&data_pages(), "{{#invoke:D|jsonTitle}}");
        let msg = "bad argument #1 to 'mw.loadJsonData' (string expected, got nil)";
        assert_eq!(e.text, [msg, msg, msg].join("|"));
    }
}
