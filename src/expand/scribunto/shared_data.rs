//! `mw.loadData` tables shared across the pages a kept Lua state serves (`mw.lua`).
//!
//! Scribunto loads a data module once per page; CS1 loads its configuration, whitelist
//! and suggestions on every page that cites anything, which was 15 % of the Lua time of
//! the enwiki articles (docs/expansion.md). The tables are read-only by contract, so a
//! state keeps one it loaded when the load read nothing of its page, and a later page
//! gets the same table without running the module again. That page is charged as if it
//! had loaded the table itself: the instructions the load took where it ran, and its
//! records (the modules it transcluded) replayed, so its text, records and limit
//! outcomes are those of a fresh state (`tests/expansion_cache.rs` compares the index
//! with the caches on and off).
//!
//! A load reads its page when it reaches the page's title or text (the expander marks
//! the capture), any frame (its arguments belong to the `#invoke` that loaded it), the
//! random generator (`mw.lua` compares the draws), or loads other data (which a later
//! page could have loaded already, or not). Such loads are kept for their page only.
//!
//! The kept tables stay in the state's heap, where they count against every later
//! page's heap limit like garbage does, so a kept state's page never has more room than
//! a fresh state's; [`MAX_SHARED_BYTES`] bounds what that takes, as far as the heap's
//! growth during each load tells (a collection during a load can make it tell less).

use std::cell::{Cell, RefCell};

use mlua::{Lua, MultiValue, Value};

use super::super::expander::Recording;
use super::host::{Ctx, Op, arg_int, err, nil, one};

/// The operations `mw.lua`'s `mw.loadData` calls.
pub(super) const OPS: &[(&str, Op)] = &[
    ("dataBegin", data_begin),
    ("dataTaint", data_taint),
    ("dataEnd", data_end),
    ("dataReplay", data_replay),
];

/// Heap bytes of shared tables a state keeps (a load that would pass it is kept for its
/// page only). Enwiki's CS1 tables take about a megabyte; the margin by which a page
/// near its heap limit is expanded again from a fresh state is a tenth of 50 MiB.
const MAX_SHARED_BYTES: usize = 4 << 20;

/// The loads of one Lua state.
#[derive(Default)]
pub(super) struct SharedData {
    /// Loads running, the innermost last.
    open: RefCell<Vec<OpenLoad>>,
    /// Loads kept, by the id `mw.lua` holds next to the table.
    kept: RefCell<Vec<KeptLoad>>,
    /// Heap bytes the kept tables took when they were made.
    bytes: Cell<usize>,
}

struct OpenLoad {
    capture_depth: usize,
    /// The page's instruction count when the load began.
    used: u64,
    heap: usize,
    compiled: usize,
    /// Nothing of the page read so far.
    pure: bool,
}

struct KeptLoad {
    /// Instructions the load was charged.
    instructions: u64,
    recording: Recording,
}

impl SharedData {
    /// How many loads are running: what [`close`](Self::close) takes after an `#invoke`.
    pub(super) fn depth(&self) -> usize {
        self.open.borrow().len()
    }

    /// Forgets the loads an `#invoke` left running (a Lua error ended them).
    pub(super) fn close(&self, depth: usize) {
        self.open.borrow_mut().truncate(depth);
    }

    /// Every running load has read something of its page.
    pub(super) fn taint(&self) {
        for l in self.open.borrow_mut().iter_mut() {
            l.pure = false;
        }
    }

    /// Kept loads, for tests.
    #[cfg(test)]
    pub(super) fn kept(&self) -> usize {
        self.kept.borrow().len()
    }
}

/// `dataBegin()`: a load starts (the mark to give `dataEnd`). An enclosing load is
/// tainted: this one's table could be there already on a later page.
fn data_begin(cx: &Ctx<'_, '_>, _: &Lua, _: &[Value]) -> mlua::Result<MultiValue> {
    let shared = &cx.page.shared;
    shared.taint();
    let mut st = cx.st.borrow_mut();
    let capture_depth = cx.ex.begin_recording(&mut st);
    let b = &cx.page.budget;
    let mut open = shared.open.borrow_mut();
    open.push(OpenLoad {
        capture_depth,
        used: b.used.get(),
        heap: b.heap(),
        compiled: b.compiled(),
        pure: true,
    });
    one(Value::Integer(open.len() as i64 - 1))
}

/// `dataTaint()`: the running loads read data loaded before (`mw.loadData` called
/// inside a load).
fn data_taint(cx: &Ctx<'_, '_>, _: &Lua, _: &[Value]) -> mlua::Result<MultiValue> {
    cx.page.shared.taint();
    nil()
}

/// `dataEnd(mark, pure)`: the load begun at `mark` ended with a table (`pure`: and drew
/// no random number); its id when it is kept for later pages.
fn data_end(cx: &Ctx<'_, '_>, _: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let shared = &cx.page.shared;
    let mark = arg_int(a, 0).and_then(|m| usize::try_from(m).ok());
    let pure = matches!(a.get(1), Some(Value::Boolean(true)));
    // The load and any an error left running inside it.
    let Some(load) = mark.and_then(|m| {
        let mut open = shared.open.borrow_mut();
        (m < open.len()).then(|| open.drain(m..).next()).flatten()
    }) else {
        return nil();
    };
    let recording = {
        let mut st = cx.st.borrow_mut();
        cx.ex.end_recording(&mut st, load.capture_depth)
    };
    let b = &cx.page.budget;
    let bytes = b
        .heap()
        .saturating_sub(load.heap)
        .saturating_sub(b.compiled().saturating_sub(load.compiled));
    let Some(recording) = recording.filter(|_| load.pure && pure) else {
        return nil();
    };
    if shared.bytes.get() + bytes > MAX_SHARED_BYTES {
        return nil();
    }
    shared.bytes.set(shared.bytes.get() + bytes);
    let mut kept = shared.kept.borrow_mut();
    kept.push(KeptLoad {
        instructions: b.used.get().saturating_sub(load.used),
        recording,
    });
    one(Value::Integer(kept.len() as i64 - 1))
}

/// `dataReplay(id)`: a page takes a kept table: it is charged the load's instructions
/// (the budget's error if they end it) and its records.
fn data_replay(cx: &Ctx<'_, '_>, _: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let shared = &cx.page.shared;
    shared.taint();
    let kept = shared.kept.borrow();
    let load = arg_int(a, 0)
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| kept.get(i))
        .ok_or_else(|| err("no such shared data"))?;
    {
        let mut st = cx.st.borrow_mut();
        cx.ex.replay_recording(&mut st, &load.recording);
    }
    super::sandbox::charge(&cx.page.budget, load.instructions as f64)?;
    nil()
}
