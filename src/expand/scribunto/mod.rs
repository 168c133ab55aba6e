//! Scribunto's `{{#invoke:Module|function|…}}`: the dump's `Module:` pages run in an
//! embedded Lua 5.1 (mlua's vendored PUC Lua — the version Scribunto runs), with a `mw`
//! library written for wikiwit from Scribunto's manual.
//!
//! One file per library, the Lua side and the Rust side next to each other: `x.lua` is
//! the library as modules see it, `x.rs` what it asks of Rust — functions registered on
//! `iface.x`, or the operations it calls through the host (`host.rs` routes each
//! operation to its library's `OPS` table). The Lua files are loaded in the order of
//! [`LIBRARIES`], each as its own chunk named after its library, so that an error in
//! one names it (`mw.text:12: …`).
//!
//! Sandbox (`sandbox.lua`, `sandbox.rs`): no `io`, no `os` but a clock pinned to
//! [`ExpandConfig::now`], no `debug`, no `require` of files, no bytecode; modules come
//! from the [`TemplateSource`]. Limits, per page: a count of VM instructions (no wall
//! clock, so the same page gives the same text on any machine) and a memory limit on
//! the Lua heap. Each overrun, like any Lua error, renders Scribunto's script-error span
//! and becomes a [`super::Warning`] — never a crash.
//!
//! A Lua state is created at the first `#invoke` of a page. With the expander's caches on
//! (the default) it then serves the worker's later pages too, so the library is loaded
//! and each module compiled once per thread rather than once per page; at each new page
//! `page.lua` puts back every table the library can reach and each library's page state,
//! the garbage is collected and the page's limits start afresh, so no module state leaks
//! from page to page and results do not depend on page order. Compiling a module is
//! charged to no page (a kept state compiled it for whichever page needed it first), and
//! a page that comes near a Lua limit is expanded again from a fresh state
//! ([`Expander::history_may_matter`]), so whether a page stays within its limits does
//! not depend on the pages before it either. With the caches off
//! ([`super::NO_CACHE_ENV`]) each page gets a state of its own, as before.
//!
//! [`ExpandConfig::now`]: super::ExpandConfig::now
//! [`TemplateSource`]: super::TemplateSource

mod base_functions;
mod clone;
mod data_view;
mod frame;
mod hash;
mod host;
mod json;
mod language;
mod language_data;
mod message;
mod mw;
mod pattern;
mod pattern_calls;
mod pattern_cost;
mod sandbox;
mod shared_data;
mod site;
mod text;
mod title;
mod uri;
mod ustring;

use std::cell::RefCell;
use std::rc::Rc;

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, Table};
use rustc_hash::FxHashMap;

use super::ExpandConfig;
use super::expander::{Expander, FnCall, State};
use super::messages::Messages;
use super::php::htmlspecialchars;
use crate::title::TitleCodec;
use sandbox::{Budget, TIMEOUT_MESSAGE};

/// Scribunto's module namespace.
pub(super) const NS_MODULE: i32 = 828;

/// The library's Lua files in the order they are loaded, each with the name of its
/// chunk. Each is called with `(iface, site, lib)`: `iface` holds what Rust registers
/// and the host, `site` the wiki's data (`site.rs`), `lib` what a file shares with the
/// files after it. The sandbox comes first; `frame.lua`, which holds the `#invoke`
/// driver and needs the module environments of `mw.lua`, last.
const LIBRARIES: [(&str, &str); 15] = [
    ("=sandbox", include_str!("sandbox.lua")),
    ("=libraryUtil", include_str!("library_util.lua")),
    ("=mw", include_str!("mw.lua")),
    ("=mw.ustring", include_str!("ustring.lua")),
    ("=mw.text", include_str!("text.lua")),
    ("=mw.hash", include_str!("hash.lua")),
    ("=mw.html", include_str!("html.lua")),
    ("=mw.site", include_str!("site.lua")),
    ("=mw.uri", include_str!("uri.lua")),
    ("=mw.ext.ParserFunctions", include_str!("ext.lua")),
    ("=mw.language", include_str!("language.lua")),
    ("=mw.message", include_str!("message.lua")),
    ("=mw.title", include_str!("title.lua")),
    ("=frame", include_str!("frame.lua")),
    ("=page", include_str!("page.lua")),
];

/// Bytes of module source compiled in one state after which the state is not reused
/// for another page: the compiled chunks stay in the heap as long as the state lives,
/// and enwiki has hundreds of thousands of modules.
const MAX_COMPILED_BYTES: usize = 32 << 20;

/// Stack a module may still need when `#invoke` starts it: Lua 5.1 bounds nested C calls
/// (metamethods, `gsub` callbacks, `pcall`, `tostring`) at 200, a few KiB each at most,
/// and `sandbox.lua` bounds the pattern matcher's recursion; nested `#invoke`s (through
/// `frame:preprocess`) each get their own check. Below this, the call runs on a new stack
/// of [`LUA_STACK`] bytes (mapped, so only the pages touched are used).
const LUA_RED_ZONE: usize = 8 << 20;
const LUA_STACK: usize = 32 << 20;

/// Why a Lua state could not be set up.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LuaSetupError {
    #[error("Lua state: {0}")]
    Lua(#[from] mlua::Error),
}

/// The Lua state of one page.
pub(super) struct PageLua {
    /// Dropped before `lua`, whose allocator it wraps.
    _allocations: sandbox::ChargedAllocator,
    lua: Lua,
    iface: Table,
    budget: Rc<Budget>,
    /// Heap bytes of the state once the library is loaded: a page's heap allowance is
    /// the limit less this.
    library_heap: usize,
    /// Bytes of module source compiled in this state.
    compiled_bytes: std::cell::Cell<usize>,
    /// Compiled modules by title: `None` when the page is missing or does not compile
    /// (then the error message).
    modules: RefCell<FxHashMap<(i32, String), Result<Function, String>>>,
    /// `mw.loadData` tables kept for later pages.
    shared: shared_data::SharedData,
}

impl PageLua {
    /// A fresh sandboxed state with the `mw` library loaded.
    pub(super) fn new(config: &ExpandConfig, codec: &TitleCodec) -> Result<PageLua, LuaSetupError> {
        let lua = sandbox::new_state()?;
        let budget = Rc::new(Budget::default());
        // For the library's Rust functions that charge tracebacks
        // (`sandbox::charge_traceback`).
        lua.set_app_data(budget.clone());
        let iface = lua.create_table()?;
        sandbox::register(&lua, &iface, &budget, &config.limits)?;
        pattern_calls::register(&lua, &iface, &budget)?;
        base_functions::register(&lua, &iface)?;
        ustring::register(&lua, &iface)?;
        text::register(&lua, &iface)?;
        hash::register(&lua, &iface)?;
        clone::register(&lua, &iface, &budget)?;
        data_view::register(&lua, &iface)?;
        let site = site::site_table(&lua, config, codec)?;
        let lib = lua.create_table()?;
        for (name, source) in LIBRARIES {
            lua.load(source)
                .set_name(name)
                .set_mode(ChunkMode::Text)
                .call::<()>((iface.clone(), site.clone(), lib.clone()))?;
        }
        // The library's garbage goes before the page's heap is measured (Lua's own
        // collector is stopped, `sandbox::collect`).
        lua.gc_collect()?;
        lua.gc_stop();
        let library_heap = lua.used_memory();
        sandbox::limit(
            &lua,
            &budget,
            &config.limits,
            config.limits.lua_memory as usize,
        )?;
        Ok(PageLua {
            _allocations: sandbox::charge_allocations(&lua, &budget)?,
            lua,
            iface,
            budget,
            library_heap,
            compiled_bytes: Default::default(),
            modules: Default::default(),
            shared: Default::default(),
        })
    }

    /// Prepares a state that served other pages for a new one, as a fresh state would be
    /// (see the module's documentation); `Ok(false)` when it cannot be (too many modules
    /// compiled, or a table a module changed could not be put back).
    fn begin_page(&self, limits: &super::Limits) -> Result<bool, LuaSetupError> {
        if self.compiled_bytes.get() > MAX_COMPILED_BYTES {
            return Ok(false);
        }
        // Nothing counted or limited while the library's tables are put back.
        self.lua.remove_global_hook();
        self.budget.lift_heap_limit();
        self.budget.limit.set(0);
        let new_page: Function = self.iface.get("newPage")?;
        if !new_page.call::<bool>(())? {
            return Ok(false);
        }
        // No full collection here (it marks the whole library and every compiled module
        // again, as much work as the page's own Lua on CS1 pages). The heap may hold
        // what a fresh state's may, plus the modules this state compiled: garbage of
        // earlier pages takes from the page's room until the collector frees it, so a
        // kept state's page never has more room than a fresh state's, and one that
        // comes near the limit is expanded again from a fresh state
        // (`Expander::history_may_matter`).
        let live = self.library_heap + self.budget.compiled();
        if self.budget.heap().saturating_sub(live) > self.allowed(limits) / 2 {
            // Garbage would take more than half the page's room.
            sandbox::collect(&self.lua, &self.budget)?;
        }
        self.budget.start_page();
        sandbox::limit(
            &self.lua,
            &self.budget,
            limits,
            (limits.lua_memory as usize).saturating_add(self.budget.compiled()),
        )?;
        Ok(true)
    }

    /// The heap a page may add to what it starts with: what a fresh state's page has.
    fn allowed(&self, limits: &super::Limits) -> usize {
        (limits.lua_memory as usize).saturating_sub(self.library_heap)
    }

    /// Whether the page has come within `margin` (a fraction of its allowance) of its
    /// heap limit, or reached it.
    fn near_heap_limit(&self, limits: &super::Limits, margin: f64) -> bool {
        self.budget.refused()
            || (self.budget.tightest() as f64) <= margin * self.allowed(limits) as f64
    }

    /// Compiles `text` outside the page's budgets ([`sandbox::Budget::uncharged`]): no
    /// instructions charged, no heap limit while the compiler runs, and the limit raised
    /// by what compiling left in the heap, so that a page's limits mean the same whether
    /// its state compiled the module for it or for an earlier page.
    fn compile(&self, text: &str, name: String) -> Result<Function, String> {
        self.budget
            .uncharged(|| {
                self.lua
                    .load(text)
                    .set_name(name)
                    .set_mode(ChunkMode::Text)
                    .into_function()
            })
            .map_err(|e| lua_message(&e))
    }

    /// The compiled chunk of module (`ns`, `dbkey`), compiled once per page.
    fn module(&self, ex: &Expander<'_>, ns: i32, dbkey: &str) -> Option<Result<Function, String>> {
        let key = (ns, dbkey.to_string());
        if let Some(m) = self.modules.borrow().get(&key) {
            return Some(m.clone());
        }
        let text = ex.source().wikitext(ns, dbkey)?;
        self.compiled_bytes
            .set(self.compiled_bytes.get() + text.len());
        let name = ex.codec().prefixed_text(ns, dbkey);
        let compiled = self.compile(&text, format!("={name}"));
        self.modules.borrow_mut().insert(key, compiled.clone());
        Some(compiled)
    }
}

/// The page's Lua state, created at its first `#invoke`; at the next page dropped, or
/// kept for reuse when `reuse` is on.
#[derive(Default)]
pub(super) struct PageLuaCell {
    state: RefCell<Option<Rc<PageLua>>>,
    failed: std::cell::Cell<bool>,
    /// The state in `state` served an earlier page and must be prepared before use.
    stale: std::cell::Cell<bool>,
}

impl PageLuaCell {
    /// A new page starts: the state is dropped, or with `reuse` kept to be prepared at
    /// the page's first `#invoke`.
    pub(super) fn reset(&self, reuse: bool) {
        if reuse {
            self.stale.set(true);
        } else {
            *self.state.borrow_mut() = None;
        }
        self.failed.set(false);
    }

    /// Takes the state kept for later pages out of the way while a page is expanded
    /// from a fresh state ([`Expander::isolated`]); [`put_back`](Self::put_back) returns it.
    pub(super) fn set_aside(&self) -> Option<Rc<PageLua>> {
        self.stale.set(false);
        self.failed.set(false);
        self.state.borrow_mut().take()
    }

    /// Returns a state [`set_aside`](Self::set_aside) took, to be prepared for the next
    /// page as any kept state.
    pub(super) fn put_back(&self, kept: Option<Rc<PageLua>>) {
        *self.state.borrow_mut() = kept;
        self.stale.set(true);
        self.failed.set(false);
    }

    /// Whether the page being expanded came within `margin` (a fraction) of its Lua heap
    /// limit; `false` when it ran no Lua.
    pub(super) fn near_heap_limit(&self, limits: &super::Limits, margin: f64) -> bool {
        !self.stale.get()
            && self
                .state
                .borrow()
                .as_ref()
                .is_some_and(|p| p.near_heap_limit(limits, margin))
    }

    pub(super) fn get(&self, ex: &Expander<'_>) -> Result<Rc<PageLua>, ()> {
        if self.stale.replace(false) {
            let kept = self.state.borrow_mut().take();
            if let Some(p) = kept
                && let Ok(true) = p.begin_page(&ex.config().limits)
            {
                *self.state.borrow_mut() = Some(p);
            }
        }
        if let Some(p) = self.state.borrow().as_ref() {
            return Ok(p.clone());
        }
        if self.failed.get() {
            return Err(());
        }
        match PageLua::new(ex.config(), ex.codec()) {
            Ok(p) => {
                let p = Rc::new(p);
                *self.state.borrow_mut() = Some(p.clone());
                Ok(p)
            }
            Err(_) => {
                self.failed.set(true);
                Err(())
            }
        }
    }
}

/// The text of a Lua error without mlua's decorations.
fn lua_message(e: &mlua::Error) -> String {
    match e {
        // The traceback mlua adds is no part of the message a module or Scribunto sees.
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => m
            .split_once(sandbox::TRACEBACK_MARK)
            .map_or(m.as_str(), |(message, _)| message)
            .to_string(),
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
    let module = fc.first.clone();
    if fc.len() < 2 {
        let text = common_error(m, "scribunto-common-nofunction", "");
        return refused(st, &module, &text);
    }
    let title = match fc.codec().parse(&module, NS_MODULE) {
        Ok(t) if t.ns == NS_MODULE && t.interwiki.is_none() && !t.dbkey.is_empty() => t,
        _ => {
            let text = common_error(m, "scribunto-common-nosuchmodule", &module);
            return refused(st, &module, &text);
        }
    };
    st.record_template(title.ns, &title.dbkey);
    let name = fc.codec().prefixed_text(title.ns, &title.dbkey);
    st.record_invoke(&name);
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
            let text = common_error(m, "scribunto-common-nosuchmodule", &module);
            return refused(st, &name, &text);
        }
        Some(Err(msg)) => {
            st.script_error(&name, &msg);
            return script_error(st, &describe(m, &msg));
        }
        Some(Ok(f)) => f,
    };
    // Named after the module is found, as Scribunto does. An empty name is a name like
    // any other: `{{#invoke:Unsubst||…}}` runs the module's `p['']`.
    let function = fc.arg(st, 1);
    // The page's instruction count lives in the State (so cached expansions account for
    // it); the hook works on the copy in `budget` while Lua runs.
    page.budget.used.set(st.lua_used());
    if page.budget.used.get() >= page.budget.limit.get() {
        st.lua_timeout(&name);
        return script_error(st, &timeout(m));
    }
    page.budget.timed_out.set(false);
    let module = (title.ns, title.dbkey.clone());
    let (captures, loads) = (st.capture_depth(), page.shared.depth());
    let result = stacker::maybe_grow(LUA_RED_ZONE, LUA_STACK, || {
        host::run(fc, st, &page, chunk, &function, module)
    });
    // What `mw.loadData` loads a Lua error ended left open.
    ex.close_recordings(st, captures);
    page.shared.close(loads);
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

/// An `#invoke` Scribunto refuses before running anything (no function named, no such
/// module): its error span, and the same text as a warning on `module` (as written when
/// it names no module page).
fn refused(st: &mut State, module: &str, text: &str) -> String {
    st.script_error(module, text);
    script_error(st, text)
}

/// How an invocation failed.
pub(super) enum Failure {
    /// Scribunto's own errors: the kind (`nosuchfunction`, `notarrayreturn`) and the
    /// function's name or the type the module returned.
    Script(String, String),
    /// An error raised while the module ran.
    Lua(String),
}

pub(super) use frame::StringParts;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_budget;
#[cfg(test)]
mod tests_libraries;
#[cfg(test)]
mod tests_shared_data;
