//! The expander's side of an `#invoke`: one dispatcher function (`iface.host(op, …)`)
//! through which the `mw` library reaches frames, templates, titles and modules. It is
//! created in an mlua scope for each invocation, borrowing that invocation's frames and
//! the page's [`State`], and the previous dispatcher is put back afterwards, so an
//! `#invoke` reached from inside Lua (a template expanded by `frame:expandTemplate`)
//! nests correctly.
//!
//! Each library answers its own operations, listed in its file's `OPS` table
//! (`frame.rs`, `title.rs`, `uri.rs`, `mw.rs`); this file only routes.

use std::cell::RefCell;

use mlua::{Function, Lua, MultiValue, Value};
use rustc_hash::FxHashMap;

use super::super::expander::{Expander, FnCall, State};
use super::super::frame::{ArgDef, Frame};
use super::super::php::php_trim;
use super::frame::LFrame;
use super::{
    Failure, PageLua, frame, language, lua_message, message, mw, shared_data, text, title, uri,
};

/// An operation of the host: the arguments after the operation's name, its results.
pub(super) type Op = fn(&Ctx<'_, '_>, &Lua, &[Value]) -> mlua::Result<MultiValue>;

/// Every library's operations, by the name `iface.host` is called with, and whether
/// they read what belongs to one `#invoke` of one page (its frames, its strip state):
/// a `mw.loadData` load that calls one is not shared with other pages (`shared_data.rs`).
const OPERATIONS: [(&[(&str, Op)], bool); 8] = [
    (frame::OPS, true),
    (text::OPS, true),
    (shared_data::OPS, false),
    (title::OPS, false),
    (uri::OPS, false),
    (mw::OPS, false),
    (message::OPS, false),
    (language::OPS, false),
];

/// What the operations of one invocation work on.
pub(super) struct Ctx<'a, 's> {
    pub(super) ex: &'a Expander<'s>,
    pub(super) st: RefCell<&'a mut State>,
    pub(super) frames: RefCell<Vec<LFrame<'a>>>,
    pub(super) module: (i32, String),
    pub(super) page: &'a PageLua,
    /// The invocation's own frame (Lua frame 0).
    pub(super) invoke: &'a Frame<'a>,
}

pub(super) fn err(msg: impl Into<String>) -> mlua::Error {
    mlua::Error::RuntimeError(msg.into())
}

pub(super) fn arg_str(args: &[Value], i: usize) -> Option<String> {
    match args.get(i)? {
        Value::String(s) => Some(s.to_string_lossy().to_string()),
        Value::Integer(n) => Some(n.to_string()),
        Value::Number(n) => Some(super::ustring::lua_number(*n)),
        _ => None,
    }
}

pub(super) fn arg_int(args: &[Value], i: usize) -> Option<i64> {
    match args.get(i)? {
        Value::Integer(n) => Some(*n),
        Value::Number(n) if n.is_finite() => Some(*n as i64),
        Value::String(s) => s.to_str().ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// No result.
pub(super) fn nil() -> mlua::Result<MultiValue> {
    Ok(MultiValue::new())
}

/// One result.
pub(super) fn one(v: Value) -> mlua::Result<MultiValue> {
    Ok(MultiValue::from_iter([v]))
}

/// One string result.
pub(super) fn string(lua: &Lua, s: &str) -> mlua::Result<MultiValue> {
    one(Value::String(lua.create_string(s)?))
}

/// `nil, message`: a failure the Lua side raises as an error where the caller is.
pub(super) fn fail(lua: &Lua, m: String) -> mlua::Result<MultiValue> {
    Ok(MultiValue::from_iter([
        Value::Nil,
        Value::String(lua.create_string(&m)?),
    ]))
}

/// Runs `function` of `chunk` for the `#invoke` call `fc`.
pub(super) fn run(
    fc: &FnCall<'_, '_>,
    st: &mut State,
    page: &PageLua,
    chunk: Function,
    function: &str,
    module: (i32, String),
) -> Result<String, Failure> {
    let ex = fc.ex;
    let mut args = FxHashMap::default();
    let mut positional = 0u32;
    for p in fc.parts.iter().skip(1) {
        match &p.name {
            None => {
                positional += 1;
                args.insert(
                    positional.to_string(),
                    ArgDef {
                        value: &p.value,
                        named: false,
                    },
                );
            }
            Some(name) => {
                let k = ex.expand_string(st, fc.frame, fc.src, name);
                args.insert(
                    php_trim(&k).to_string(),
                    ArgDef {
                        value: &p.value,
                        named: true,
                    },
                );
            }
        }
    }
    let frame = Frame {
        parent: Some(fc.frame),
        arg_src: fc.src,
        args,
        title: Some(module.clone()),
        depth: fc.frame.depth + 1,
        expanded: RefCell::new(FxHashMap::default()),
    };
    let ctx = Ctx {
        ex,
        st: RefCell::new(st),
        frames: RefCell::new(vec![LFrame::Borrowed(&frame), LFrame::Borrowed(fc.frame)]),
        module,
        page,
        invoke: &frame,
    };
    let lua_err = |e: mlua::Error| Failure::Lua(lua_message(&e));
    let previous: Value = page.iface.get("host").map_err(lua_err)?;
    let result = page.lua.scope(|scope| {
        let host = scope.create_function(|lua, args: MultiValue| ctx.call(lua, args))?;
        page.iface.set("host", host)?;
        let invoke: Function = page.iface.get("invoke")?;
        invoke.call::<(bool, Value, Option<String>)>((chunk, function))
    });
    let _ = page.iface.set("host", previous);
    match result {
        Ok((true, v, _)) => Ok(value_string(&v)),
        Ok((false, v, Some(kind))) => Err(Failure::Script(kind, value_string(&v))),
        Ok((false, v, _)) => Err(Failure::Lua(value_string(&v))),
        Err(e) => Err(lua_err(super::sandbox::charge_traceback(&page.lua, e))),
    }
}

/// A value a module returned or raised, as text. A table raised as an error
/// (`error(frame)`) is what its `__tostring` gives, or else named by its type, as the
/// sandbox's `tostring` does: its address would differ from run to run (a fuzzer find).
pub(super) fn value_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string_lossy().to_string(),
        Value::Number(n) => super::ustring::lua_number(*n),
        Value::Integer(n) => n.to_string(),
        Value::Error(e) => lua_message(e),
        Value::Nil => String::new(),
        Value::Boolean(b) => b.to_string(),
        Value::Table(t)
            if t.metatable()
                .is_some_and(|m| m.raw_get::<Value>("__tostring").is_ok_and(|f| !f.is_nil())) =>
        {
            v.to_string().unwrap_or_default()
        }
        Value::LightUserData(_) | Value::UserData(_) => "userdata".to_string(),
        v => v.type_name().to_string(),
    }
}

impl<'a, 's> Ctx<'a, 's> {
    fn call(&self, lua: &Lua, args: MultiValue) -> mlua::Result<MultiValue> {
        let args: Vec<Value> = args.into_iter().collect();
        let op = arg_str(&args, 0).unwrap_or_default();
        // Give the expander the instructions spent so far (templates expanded from
        // here may contain `#invoke`s or be replayed from the cache), then take back
        // what they spent.
        let budget = &self.page.budget;
        {
            let mut st = self
                .st
                .try_borrow_mut()
                .map_err(|_| err("re-entrant call"))?;
            st.set_lua_used(budget.used.get());
        }
        // An error raised here reaches Lua with the traceback mlua writes for it.
        let r = self
            .dispatch(lua, &op, &args[1..])
            .map_err(|e| super::sandbox::charge_raised(lua, e));
        if let Ok(st) = self.st.try_borrow() {
            budget.used.set(budget.used.get().max(st.lua_used()));
        }
        r
    }

    fn dispatch(&self, lua: &Lua, op: &str, a: &[Value]) -> mlua::Result<MultiValue> {
        let found = OPERATIONS.iter().find_map(|(ops, reads_page)| {
            let (_, f) = ops.iter().find(|(name, _)| *name == op)?;
            Some((*reads_page, f))
        });
        let Some((reads_page, f)) = found else {
            return Err(err(format!("unknown host operation {op}")));
        };
        if reads_page {
            self.page.shared.taint();
        }
        f(self, lua, a)
    }
}
