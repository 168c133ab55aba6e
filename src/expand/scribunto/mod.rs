//! Scribunto's `{{#invoke:Module|function|…}}`: the dump's `Module:` pages run in an
//! embedded Lua 5.1 (mlua's vendored PUC Lua — the version Scribunto runs), with a `mw`
//! library written for wikiwit (`prelude.lua`, `ustring.rs`) from Scribunto's manual.
//!
//! Sandbox: no `io`, no `os` but a clock pinned to [`ExpandConfig::now`], no `debug`,
//! no `require` of files, no bytecode; modules come from the [`TemplateSource`].
//! Limits, per page: a count of VM instructions (a hook every
//! [`HOOK_INTERVAL`] instructions; no wall clock, so the same page gives the same text
//! on any machine) and a memory limit on the Lua heap. Each overrun, like any Lua error,
//! renders Scribunto's script-error span and becomes a [`super::Warning`] — never a crash.
//!
//! One Lua state serves one page (created at the page's first `#invoke`), so no module
//! state leaks from page to page and results do not depend on page order.
//!
//! [`ExpandConfig::now`]: super::ExpandConfig::now
//! [`TemplateSource`]: super::TemplateSource

mod host;
mod pattern;
mod ustring;

use std::cell::Cell;
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, Value, VmState};
use rustc_hash::FxHashMap;

use super::ExpandConfig;
use super::expander::{Expander, FnCall, State};
use super::messages::Messages;
use super::php::htmlspecialchars;
use crate::title::TitleCodec;

/// Scribunto's module namespace.
pub(super) const NS_MODULE: i32 = 828;

/// VM instructions between two checks of the budget.
const HOOK_INTERVAL: u32 = 1000;

/// The message Scribunto gives when the CPU limit is reached.
const TIMEOUT_MESSAGE: &str = "The time allocated for running scripts has expired.";

/// Why a Lua state could not be set up.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LuaSetupError {
    #[error("Lua state: {0}")]
    Lua(#[from] mlua::Error),
}

/// Instruction accounting shared with the hook.
#[derive(Debug, Default)]
struct Budget {
    used: Cell<u64>,
    limit: Cell<u64>,
    timed_out: Cell<bool>,
}

/// The Lua state of one page.
pub(super) struct PageLua {
    lua: Lua,
    iface: Table,
    budget: Rc<Budget>,
    /// Compiled modules by title: `None` when the page is missing or does not compile
    /// (then the error message).
    modules: std::cell::RefCell<FxHashMap<(i32, String), Result<Function, String>>>,
}

/// Site data the prelude turns into `mw.site`.
fn site_table(lua: &Lua, config: &ExpandConfig, codec: &TitleCodec) -> mlua::Result<Table> {
    let site = lua.create_table()?;
    site.set("sitename", config.sitename.as_str())?;
    site.set("server", config.server.as_str())?;
    site.set("scriptPath", config.script_path.as_str())?;
    site.set("lang", config.lang.as_str())?;
    site.set("now", config.now as f64)?;
    let stats = lua.create_table()?;
    let s = &config.stats;
    for (k, v) in [
        ("pages", s.pages),
        ("articles", s.articles),
        ("files", s.files),
        ("edits", s.edits),
        ("users", s.users),
        ("activeUsers", s.active_users),
        ("admins", s.admins),
    ] {
        stats.set(k, v as f64)?;
    }
    site.set("stats", stats)?;
    let list = lua.create_table()?;
    let table = codec.namespaces();
    for (i, id) in table.ids().into_iter().enumerate() {
        let ns = lua.create_table()?;
        ns.set("id", id)?;
        let name = table.name_of(id).unwrap_or("").replace('_', " ");
        let canonical = host::canonical_name(id).unwrap_or(&name).to_string();
        ns.set("name", name)?;
        ns.set("canonicalName", canonical)?;
        ns.set("hasSubpages", host::has_subpages(id))?;
        ns.set("isCapitalized", table.is_capitalized(id))?;
        list.set(i + 1, ns)?;
    }
    site.set("namespaces", list)?;
    let m = &config.messages;
    let separators = lua.create_table()?;
    separators.set("comma", m.text("comma-separator", ", "))?;
    let conjunction = format!("{}{}", m.text("and", " and"), m.text("word-separator", " "));
    separators.set("conjunction", conjunction)?;
    site.set("separators", separators)?;
    Ok(site)
}

impl PageLua {
    /// A fresh sandboxed state with the `mw` library loaded.
    pub(super) fn new(config: &ExpandConfig, codec: &TitleCodec) -> Result<PageLua, LuaSetupError> {
        let lua = Lua::new_with(
            StdLib::TABLE | StdLib::STRING | StdLib::MATH,
            LuaOptions::new(),
        )?;
        let budget = Rc::new(Budget::default());
        budget.limit.set(config.limits.lua_instructions);
        let b = budget.clone();
        // Global, so that coroutines created by modules run under the same count.
        lua.set_global_hook(
            HookTriggers::new().every_nth_instruction(HOOK_INTERVAL),
            move |_, _| {
                let used = b.used.get() + HOOK_INTERVAL as u64;
                b.used.set(used);
                if used > b.limit.get() {
                    b.timed_out.set(true);
                    return Err(mlua::Error::RuntimeError(TIMEOUT_MESSAGE.to_string()));
                }
                Ok(VmState::Continue)
            },
        )?;
        let iface = lua.create_table()?;
        let u = lua.create_table()?;
        ustring::register(&lua, &u)?;
        let b = budget.clone();
        u.set(
            "expired",
            lua.create_function(move |_, ()| Ok(b.timed_out.get()))?,
        )?;
        iface.set("u", u)?;
        iface.set(
            "jsonDecode",
            lua.create_function(|lua, s: mlua::LuaString| {
                match serde_json::from_slice::<serde_json::Value>(&s.as_bytes()) {
                    Ok(v) => Ok((json_to_lua(lua, &v)?, None)),
                    Err(e) => Ok((Value::Nil, Some(e.to_string()))),
                }
            })?,
        )?;
        let site = site_table(&lua, config, codec)?;
        lua.load(include_str!("prelude.lua"))
            .set_name("=mw")
            .set_mode(ChunkMode::Text)
            .call::<()>((iface.clone(), site))?;
        // The library itself is outside the page's budget.
        budget.used.set(0);
        lua.set_memory_limit(config.limits.lua_memory as usize)?;
        Ok(PageLua {
            lua,
            iface,
            budget,
            modules: Default::default(),
        })
    }

    /// The compiled chunk of module (`ns`, `dbkey`), compiled once per page.
    fn module(&self, ex: &Expander<'_>, ns: i32, dbkey: &str) -> Option<Result<Function, String>> {
        let key = (ns, dbkey.to_string());
        if let Some(m) = self.modules.borrow().get(&key) {
            return Some(m.clone());
        }
        let text = ex.source().wikitext(ns, dbkey)?;
        let name = ex.codec().prefixed_text(ns, dbkey);
        let compiled = self
            .lua
            .load(text.as_ref())
            .set_name(format!("={name}"))
            .set_mode(ChunkMode::Text)
            .into_function()
            .map_err(|e| lua_message(&e));
        self.modules.borrow_mut().insert(key, compiled.clone());
        Some(compiled)
    }
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

/// The text of a Lua error without mlua's decorations.
fn lua_message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => m.clone(),
        mlua::Error::MemoryError(_) => "not enough memory".to_string(),
        mlua::Error::CallbackError { cause, .. } => lua_message(cause),
        e => e.to_string(),
    }
}

/// Scribunto's error span; its id numbers the page's script errors from 0.
fn script_error(st: &mut State, message: &str) -> String {
    let id = st.script_error_spans;
    st.script_error_spans += 1;
    format!(
        "<strong class=\"error\"><span class=\"scribunto-error\" id=\"mw-scribunto-error-{id}\">{}</span></strong>",
        htmlspecialchars(message)
    )
}

/// `Module:X:12: msg` → `Lua error in Module:X at line 12: msg.` as Scribunto words it
/// (in the content language: `scribunto-lua-error-location`, `scribunto-module-line`).
fn describe(m: &Messages, raw: &str) -> String {
    let first = raw.lines().next().unwrap_or("");
    if let Some((head, msg)) = first.split_once(": ")
        && let Some((chunk, line)) = head.rsplit_once(':')
        && !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
    {
        let at = m.format("scribunto-module-line", "$1 at line $2", &[chunk, line]);
        return m.format(
            "scribunto-lua-error-location",
            "Lua error in $1: $2.",
            &[&at, msg],
        );
    }
    lua_error(m, first)
}

/// `Lua error: msg.`
fn lua_error(m: &Messages, msg: &str) -> String {
    m.format("scribunto-lua-error", "Lua error: $2.", &["", msg])
}

/// Scribunto's own errors by message key, with the module or function as `$2`.
fn common_error(m: &Messages, key: &str, name: &str) -> String {
    let english = match key {
        "scribunto-common-nofunction" => "Script error: You must specify a function to call.",
        "scribunto-common-nosuchmodule" => "Script error: No such module \"$2\".",
        "scribunto-common-nosuchfunction" => "Script error: The function \"$2\" does not exist.",
        "notarrayreturn" => {
            return m.format(
                "scribunto-lua-notarrayreturn",
                "Script error: The module returned a $2 value. It is supposed to return an export table.",
                &["", name],
            );
        }
        other => return m.format("scribunto-error-short", "Script error: $1", &[other]),
    };
    m.format(key, english, &["", name])
}

/// The page's Lua time ran out.
fn timeout(m: &Messages) -> String {
    let text = m.text("scribunto-common-timeout", TIMEOUT_MESSAGE);
    // The message ends with a full stop, which `scribunto-lua-error` adds.
    lua_error(m, text.strip_suffix('.').unwrap_or(text))
}

/// `{{#invoke:Module|function|…}}`.
pub(super) fn invoke(fc: &FnCall<'_, '_>, st: &mut State) -> String {
    // Scribunto checks that a function is named before it looks at the module.
    let m = &*fc.config().messages;
    if fc.len() < 2 {
        return script_error(st, &common_error(m, "scribunto-common-nofunction", ""));
    }
    let module = fc.first.clone();
    let title = match fc.codec().parse(&module, NS_MODULE) {
        Ok(t) if t.ns == NS_MODULE && t.interwiki.is_none() && !t.dbkey.is_empty() => t,
        _ => {
            let text = common_error(m, "scribunto-common-nosuchmodule", &module);
            return script_error(st, &text);
        }
    };
    st.record_template(title.ns, &title.dbkey);
    let name = fc.codec().prefixed_text(title.ns, &title.dbkey);
    st.record_invoke(&name);
    let function = fc.arg(st, 1);
    if function.is_empty() {
        return script_error(st, &common_error(m, "scribunto-common-nofunction", ""));
    }
    let ex = fc.ex;
    let page = match ex.page_lua() {
        Ok(p) => p,
        Err(_) => {
            st.lua_unavailable(&name);
            return script_error(st, &format!("Script error: Lua is not available ({name})."));
        }
    };
    let chunk = match page.module(ex, title.ns, &title.dbkey) {
        None => {
            st.script_error(&name, "no such module");
            let text = common_error(m, "scribunto-common-nosuchmodule", &module);
            return script_error(st, &text);
        }
        Some(Err(msg)) => {
            st.script_error(&name, &msg);
            return script_error(st, &describe(m, &msg));
        }
        Some(Ok(f)) => f,
    };
    // The page's instruction count lives in the State (so cached expansions account for
    // it); the hook works on the copy in `budget` while Lua runs.
    page.budget.used.set(st.lua_used());
    if page.budget.used.get() >= page.budget.limit.get() {
        st.lua_timeout(&name);
        return script_error(st, &timeout(m));
    }
    page.budget.timed_out.set(false);
    let result = host::run(
        fc,
        st,
        &page,
        chunk,
        &function,
        (title.ns, title.dbkey.clone()),
    );
    st.set_lua_used(page.budget.used.get());
    match result {
        Ok(text) => text,
        Err(Failure::Script(kind, detail)) => {
            st.script_error(&name, &format!("{kind}: {detail}"));
            let key = match kind.as_str() {
                "nosuchfunction" => "scribunto-common-nosuchfunction",
                other => other,
            };
            script_error(st, &common_error(m, key, &detail))
        }
        Err(Failure::Lua(msg)) => {
            if page.budget.timed_out.get() || msg.contains(TIMEOUT_MESSAGE) {
                st.lua_timeout(&name);
                return script_error(st, &timeout(m));
            }
            if msg.contains("not enough memory") {
                st.lua_memory(&name);
                return script_error(st, &lua_error(m, "not enough memory"));
            }
            st.script_error(&name, &msg);
            script_error(st, &describe(m, &msg))
        }
    }
}

/// How an invocation failed.
pub(super) enum Failure {
    /// Scribunto's own errors: the kind (`nosuchfunction`, `notarrayreturn`) and the
    /// function's name or the type the module returned.
    Script(String, String),
    /// An error raised while the module ran.
    Lua(String),
}

pub(super) use host::{PageLuaCell, StringParts};

#[cfg(test)]
mod tests;
