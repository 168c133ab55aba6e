//! The Rust half of `mw`'s core (`mw.lua`): modules for `require` and `mw.loadData`,
//! compiled once per page, and `mw.incrementExpensiveFunctionCount`.

use mlua::{Lua, MultiValue, Value};

use super::NS_MODULE;
use super::host::{Ctx, Op, arg_str, err, fail, nil, one};

/// The core operations, by the name `mw.lua` calls them with.
pub(super) const OPS: &[(&str, Op)] = &[("loadModule", load_module), ("expensive", expensive)];

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
