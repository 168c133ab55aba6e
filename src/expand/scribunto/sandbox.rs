//! The Rust half of the sandbox (`sandbox.lua`): the standard libraries a module starts
//! with, the page's limits — a count of VM instructions and a memory limit on the Lua
//! heap — and `iface.expired`, by which `sandbox.lua`'s `pcall` lets the end of the
//! budget through.
//!
//! The count is taken by a hook every [`HOOK_INTERVAL`] instructions rather than timed,
//! so the same page gives the same text on any machine. One instruction can copy
//! megabytes (`s .. s`), so the bytes by which the heap grows are charged too
//! ([`charge_allocations`]): Lua's allocations are as deterministic as its instructions.
//! Compiling a module is not charged ([`Budget::uncharged`]): a state kept from page to
//! page compiles each module once, for whichever page needs it first.
//!
//! Garbage is collected whole, at points fixed by the page's own work ([`collect`],
//! [`maybe_collect`]), never by Lua's incremental collector: how far that collector has
//! got when an allocation comes depends on the order in which it marks the objects of a
//! table keyed by tables, which follows their addresses, so the heap at the limit (and
//! what a page filling it keeps) moved with the process's allocation history.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::rc::Rc;

use mlua::{Function, HookTriggers, Lua, LuaOptions, StdLib, Table, VmState, ffi};

use super::super::Limits;
use super::pattern_cost::{self, Mode};

/// VM instructions between two checks of the budget.
const HOOK_INTERVAL: u32 = 1000;

/// The message Scribunto gives when the CPU limit is reached.
pub(super) const TIMEOUT_MESSAGE: &str = "The time allocated for running scripts has expired.";

/// Instruction accounting shared with the hook.
#[derive(Debug, Default)]
pub(super) struct Budget {
    pub(super) used: Cell<u64>,
    pub(super) limit: Cell<u64>,
    pub(super) timed_out: Cell<bool>,
    /// Bytes of heap growth not yet charged (less than [`BYTES_PER_INSTRUCTION`]).
    pending_bytes: Cell<u64>,
    /// Set while a module compiles: what a state has compiled depends on the pages it
    /// served before, so compiling is charged to no page (see [`Budget::uncharged`]).
    uncharged: Cell<bool>,
    /// The least room the heap limit left the page (bytes), over all its allocations:
    /// how near the limit it came ([`Budget::tightest`]).
    tightest: Cell<usize>,
    /// The heap limit refused the page an allocation (even one a `pcall` caught).
    refused: Cell<bool>,
    /// The Lua heap in bytes, as the allocator has seen it grow and shrink.
    heap: Cell<usize>,
    /// Heap bytes compiling has added in this state ([`Budget::compiled`]).
    compiled: Cell<usize>,
    /// The most the heap may hold (0: no limit). Kept here, not by mlua, whose limit
    /// cannot be changed once [`charged_alloc`] stands in front of its allocator.
    heap_limit: Cell<usize>,
    /// The heap after the last collection ([`collect`]): what the next one is paced by.
    live: Cell<usize>,
    /// A collection is running: what it allocates (a smaller string table) is charged to
    /// no page and never refused, and it does not start another.
    collecting: Cell<bool>,
}

impl Budget {
    /// A page starts: its counts start afresh.
    pub(super) fn start_page(&self) {
        self.used.set(0);
        self.timed_out.set(false);
        self.pending_bytes.set(0);
        self.tightest.set(usize::MAX);
        self.refused.set(false);
    }

    /// Runs `f` (a module's compilation) charged to no page: its allocations cost no
    /// instructions and do not count against the page's heap. Lua then counts, for any
    /// page, only what the page's code does, whether the state compiled the module for
    /// it or for a page before.
    ///
    /// Nor is it limited: the heap limit is lifted while `f` runs and raised afterwards
    /// by what `f` left in the heap, so the page keeps the allowance it had.
    pub(super) fn uncharged<R>(&self, f: impl FnOnce() -> R) -> R {
        let was = self.uncharged.replace(true);
        let before = self.heap.get();
        let r = f();
        self.uncharged.set(was);
        let grown = self.heap.get().saturating_sub(before);
        self.compiled.set(self.compiled.get() + grown);
        let limit = self.heap_limit.get();
        if limit > 0 {
            self.heap_limit.set(limit.saturating_add(grown));
        }
        r
    }

    /// Heap bytes compiling has added in this state: what its compiled modules hold.
    pub(super) fn compiled(&self) -> usize {
        self.compiled.get()
    }

    /// The Lua heap in bytes (once [`charge_allocations`] has installed the allocator).
    pub(super) fn heap(&self) -> usize {
        self.heap.get()
    }

    /// Lifts the heap limit (while the library's tables are put back for a new page).
    pub(super) fn lift_heap_limit(&self) {
        self.heap_limit.set(0);
    }

    /// The least room (bytes) the heap limit left the page; `usize::MAX` before it
    /// allocated anything.
    pub(super) fn tightest(&self) -> usize {
        self.tightest.get()
    }

    /// Whether the heap limit refused the page an allocation.
    pub(super) fn refused(&self) -> bool {
        self.refused.get()
    }
}

/// A Lua state with the standard libraries `sandbox.lua` trims: no `io`, `os`, `debug`
/// or `package` at all, and Lua's own collector stopped ([`collect`] runs instead).
///
/// mlua is told that allocations may fail (a memory limit it never reaches): a state
/// without one is taken never to run out of memory, and mlua then makes the allocating
/// calls it does for Rust (strings, tables, functions) unprotected. The heap limit
/// ([`charged_alloc`]) refuses allocations, and a refusal in an unprotected call would
/// raise Lua's error with a `longjmp` across Rust frames: undefined, and their memory
/// lost (docs/expansion.md).
pub(super) fn new_state() -> mlua::Result<Lua> {
    let lua = Lua::new_with(
        StdLib::TABLE | StdLib::STRING | StdLib::MATH,
        LuaOptions::new(),
    )?;
    lua.set_memory_limit(isize::MAX as usize)?;
    lua.gc_stop();
    interned_type(&lua)?;
    Ok(lua)
}

/// Replaces the base library's `type` with [`type_name`], before any library code takes
/// it as a local. Lua 5.1's pushes its answer with `lua_pushstring`, hashing and looking
/// up the name in the string table on every call, and CS1 asks for a type wherever it
/// tests a parameter (docs/expansion.md has the measurement).
fn interned_type(lua: &Lua) -> mlua::Result<()> {
    // SAFETY: pushes nine strings and a C closure over them on the stack `exec_raw`
    // gives, and stores the closure as the global `type`; a memory error is raised
    // into `exec_raw`'s protected call, and no Rust value lives across these calls.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            for t in ffi::LUA_TNIL..=ffi::LUA_TTHREAD {
                ffi::lua_pushstring(state, ffi::lua_typename(state, t));
            }
            ffi::lua_pushcclosure(state, type_name, ffi::LUA_TTHREAD + 1);
            ffi::lua_setfield(state, ffi::LUA_GLOBALSINDEX, c"type".as_ptr());
        })
    }
}

/// `type(v)`: Lua's own answer, the name of `v`'s type, taken from the closure's
/// upvalues (upvalue `t + 1` holds type `t`'s name).
unsafe extern "C-unwind" fn type_name(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `interned_type` gave it.
    // `luaL_checkany` raises Lua's own error for a call without an argument ("bad
    // argument #1 to 'type' (value expected)"); this frame holds nothing to drop.
    unsafe {
        let t = ffi::lua_type(state, 1);
        if t == ffi::LUA_TNONE {
            ffi::luaL_checkany(state, 1);
        }
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(t + 1));
        1
    }
}

/// A C closure of `f` over `upvalues`, in order: how the sandbox's C functions get what
/// they need from Lua (Lua's own function they run, the page's budget, a view's data)
/// without a lookup per call.
pub(super) fn c_closure(
    lua: &Lua,
    f: ffi::lua_CFunction,
    upvalues: impl mlua::IntoLuaMulti,
) -> mlua::Result<Function> {
    // SAFETY: the upvalues are the whole stack `exec_raw` gives; `lua_pushcclosure` pops
    // them and leaves the closure alone on it. A memory error is raised into `exec_raw`'s
    // protected call.
    unsafe {
        lua.exec_raw::<Function>(upvalues, |state| {
            let n = ffi::lua_gettop(state);
            ffi::lua_pushcclosure(state, f, n);
        })
    }
}

/// Heap growth between two collections is at least this (bytes): near the heap limit the
/// room left is halved at each collection, and below this a collection would free too
/// little to be worth marking the whole heap again.
const MIN_GC_GAP: usize = 256 << 10;

/// Collects all garbage (a whole cycle) and leaves Lua's incremental collector stopped,
/// which the end of a cycle restarts. Runs on the thread Lua is running (inside a hook or a
/// callback, the one that called it), as `collectgarbage()` would.
///
/// A whole cycle frees every unreachable object whatever order it marks them in, so the
/// heap it leaves depends only on what the page's code did; Lua's incremental collector
/// advances by steps of marking work, and where a step ends depends on the order in which
/// the values of tables keyed by tables or functions are reached — their addresses.
pub(super) fn collect(lua: &Lua, b: &Budget) -> mlua::Result<()> {
    // SAFETY: `lua_gc` on the running thread of a live state, protected by `exec_raw`.
    collecting(b, || unsafe {
        lua.exec_raw::<()>((), |state| whole_cycle(state))
    })
    .unwrap_or(Ok(()))
}

/// Runs `cycle` unless a collection is running already, and paces the next one by the
/// heap it leaves.
fn collecting<R>(b: &Budget, cycle: impl FnOnce() -> R) -> Option<R> {
    if b.collecting.replace(true) {
        return None;
    }
    let r = cycle();
    b.collecting.set(false);
    b.live.set(b.heap.get());
    Some(r)
}

/// One cycle, step by step from the pause where the last one left the collector (no Lua
/// runs in between, so it frees what a full collection would): `LUA_GCCOLLECT` first
/// sweeps the whole heap once more to reset its marks, a second sweep per collection
/// (docs/expansion.md).
///
/// # Safety
/// `state` is a thread of a live state, inside a protected call.
unsafe fn whole_cycle(state: *mut ffi::lua_State) {
    // SAFETY: the caller's.
    unsafe {
        while ffi::lua_gc(state, ffi::LUA_GCSTEP, 0) == 0 {}
        ffi::lua_gc(state, ffi::LUA_GCSTOP, 0);
    }
}

/// Whether the heap has grown past what the last collection left by as much again (Lua's
/// default pause, 200 %), or by half the room the heap limit leaves, at least
/// [`MIN_GC_GAP`]. Asked at points the page's instructions fix (the count hook,
/// `iface.charge`, the pattern functions' charge), so that the garbage present at each
/// allocation, and thus where the heap limit refuses one, is the same in every run.
fn collection_due(b: &Budget) -> bool {
    let live = b.live.get();
    let mut gap = live;
    let cap = b.heap_limit.get();
    if cap > 0 {
        gap = gap.min(cap.saturating_sub(live) / 2);
    }
    b.heap.get() >= live.saturating_add(gap.max(MIN_GC_GAP))
}

/// [`collect`] when [`collection_due`].
fn maybe_collect(lua: &Lua, b: &Budget) -> mlua::Result<()> {
    if collection_due(b) {
        collect(lua, b)?;
    }
    Ok(())
}

/// [`maybe_collect`] from a C function, which has the raw state and not mlua's handle.
///
/// # Safety
/// `state` is the running thread of a live state, inside a C function Lua called.
pub(super) unsafe fn maybe_collect_raw(state: *mut ffi::lua_State, b: &Budget) {
    if collection_due(b) {
        // SAFETY: the caller's.
        collecting(b, || unsafe { whole_cycle(state) });
    }
}

/// Instructions charged for a traceback, which mlua writes (`luaL_traceback`) for every
/// Lua error a call from Rust gets back and for every error a Rust function raises: a
/// walk of the Lua stack that runs no VM instruction. Uncharged, a loop catching such
/// errors (a `mw.ustring.gsub` callback raising, under `pcall`) kept one page busy for
/// minutes and a module fanning out `#invoke`s of itself until the C stack overflowed
/// for 22 s (fuzzer finds). Charged, a page gets at most 2,000 of them (budget 50 M).
/// The walk names each C function by searching the globals two tables deep and finds
/// the stack's depth level by level: measured (debug build, Lua compiled optimized),
/// one traceback costs the time of ≈ 8,800 instructions at a shallow stack and ≈ 25,000
/// under 3,000 Lua calls.
pub(super) const TRACEBACK_COST: f64 = 25_000.0;

/// Charges the page whose state is `lua` for a traceback mlua has written or will
/// write for `e`; the budget's error if that ends the page's budget, else `e`.
pub(super) fn charge_traceback(lua: &Lua, e: mlua::Error) -> mlua::Error {
    if has_traceback(&e) {
        charge_raised(lua, e)
    } else {
        e
    }
}

/// Charges for the traceback mlua writes when a Rust function raises `e` into Lua.
pub(super) fn charge_raised(lua: &Lua, e: mlua::Error) -> mlua::Error {
    let Some(b) = lua.app_data_ref::<Rc<Budget>>() else {
        return e;
    };
    match charge(&b, TRACEBACK_COST) {
        Ok(()) => e,
        Err(timeout) => timeout,
    }
}

/// Whether mlua wrote a traceback for `e`: a Lua error it caught (its message ends with
/// the traceback) or a Rust function's error it passed through Lua.
fn has_traceback(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::RuntimeError(m) | mlua::Error::SyntaxError { message: m, .. } => {
            m.contains(TRACEBACK_MARK)
        }
        mlua::Error::CallbackError { .. } => true,
        _ => false,
    }
}

/// What `luaL_traceback` puts between an error's message and the stack it walked.
pub(super) const TRACEBACK_MARK: &str = "\nstack traceback:";

/// `iface.expired`: whether the page's instruction budget ran out; `iface.charge(n)`:
/// adds `n` instructions to the count for work done inside C functions, which runs no VM
/// instruction (`sandbox.lua` charges the bytes that `string.rep` and `table.concat` go
/// through, `table.insert`'s moves and `table.sort`'s comparisons), and collects garbage when it is due
/// ([`maybe_collect`]); `iface.freeBytes`: [`FREE_BYTES`]; `iface.memoryLimit`: the heap
/// limit in bytes, so that a result that could never fit fails before it is built.
pub(super) fn register(
    lua: &Lua,
    iface: &Table,
    budget: &Rc<Budget>,
    limits: &Limits,
) -> mlua::Result<()> {
    let b = budget.clone();
    iface.set(
        "expired",
        lua.create_function(move |_, ()| Ok(b.timed_out.get()))?,
    )?;
    let b = budget.clone();
    iface.set(
        "charge",
        lua.create_function(move |lua, n: f64| {
            charge(&b, n)?;
            maybe_collect(lua, &b)
        })?,
    )?;
    iface.set("freeBytes", FREE_BYTES as f64)?;
    iface.set("memoryLimit", limits.lua_memory as f64)
}

/// Steps of Lua's matcher a call takes free (an ordinary call costs what the
/// instructions that make it cost), and steps per instruction beyond them.
pub(super) const FREE_STEPS: u64 = 1024;
const STEPS_PER_INSTRUCTION: u64 = 4;

/// Bytes a C function may touch before its work is charged (`sandbox.lua`'s
/// `FREE_BYTES`): below this a call costs about what the instructions that make it cost.
pub(super) const FREE_BYTES: usize = 4096;

/// Items (`?`, `*`, `+`, `-`, `(`) a pattern may hold: Lua 5.1's matcher recurses in C
/// once per quantifier or capture, with no bound of its own (`pattern_calls.rs`).
pub(super) const MAX_PATTERN_ITEMS: usize = 10_000;

/// Charges the steps the matcher will take on a call ([`pattern_cost`]) from byte `init`
/// (0-based, within the subject) before C runs it, counting no further than the budget
/// left: past it, the budget's error.
pub(super) fn charge_pattern(
    b: &Budget,
    s: &[u8],
    p: &[u8],
    init: usize,
    mode: Mode,
) -> mlua::Result<()> {
    if b.limit.get() == 0 {
        return Ok(());
    }
    let left = b.limit.get().saturating_sub(b.used.get());
    let limit = FREE_STEPS.saturating_add(left.saturating_mul(STEPS_PER_INSTRUCTION));
    let steps = pattern_cost::steps(s, p, init, mode, limit);
    if steps > FREE_STEPS {
        charge(
            b,
            (steps - FREE_STEPS).div_ceil(STEPS_PER_INSTRUCTION) as f64,
        )?;
    }
    Ok(())
}

/// Adds `n` instructions to the count; past the limit, the error of the hook. Before
/// [`limit`] puts a limit on the state (while the library loads) nothing is counted.
pub(super) fn charge(b: &Budget, n: f64) -> mlua::Result<()> {
    if b.limit.get() == 0 || n.is_nan() || n < 1.0 {
        return Ok(());
    }
    let used = b.used.get().saturating_add(n.min(u64::MAX as f64) as u64);
    if used > b.limit.get() {
        // Counted as spent up to the limit, as the hook would have.
        b.used.set(b.limit.get() + 1);
        b.timed_out.set(true);
        return Err(mlua::Error::RuntimeError(TIMEOUT_MESSAGE.to_string()));
    }
    b.used.set(used);
    Ok(())
}

/// Puts the page's limits on the state, once the library is loaded (and again at each
/// page a reused state serves): the library is outside the page's budget, and the count
/// starts afresh here — setting the hook restarts its interval — so what a page is
/// charged depends neither on the size of the library nor on the pages before it. The
/// hook also collects garbage when it is due ([`maybe_collect`]).
/// `heap_limit` bounds the whole heap, the library's included; [`charged_alloc`] keeps it.
pub(super) fn limit(
    lua: &Lua,
    budget: &Rc<Budget>,
    limits: &Limits,
    heap_limit: usize,
) -> mlua::Result<()> {
    budget.limit.set(limits.lua_instructions);
    let b = budget.clone();
    // Global, so that coroutines created by modules run under the same count.
    lua.set_global_hook(
        HookTriggers::new().every_nth_instruction(HOOK_INTERVAL),
        move |lua, _| {
            // Past the limit the count stays where it ended (a charge may have ended
            // it, `charge`): the page is reported as spending at most one interval more.
            if b.timed_out.get() {
                return Err(mlua::Error::RuntimeError(TIMEOUT_MESSAGE.to_string()));
            }
            let used = b.used.get() + HOOK_INTERVAL as u64;
            b.used.set(used);
            if used > b.limit.get() {
                b.timed_out.set(true);
                return Err(mlua::Error::RuntimeError(TIMEOUT_MESSAGE.to_string()));
            }
            maybe_collect(lua, &b)?;
            Ok(VmState::Continue)
        },
    )?;
    budget.heap_limit.set(heap_limit);
    Ok(())
}

/// Bytes of heap growth charged as one instruction. CS1 citations allocate about
/// one byte per instruction they run, so their count hardly moves; a concatenation
/// bomb, which copies megabytes per instruction, spends the page's budget after a few
/// gigabytes copied (a second or two) instead of running for hours.
const BYTES_PER_INSTRUCTION: u64 = 64;

/// Once the budget is spent, allocations of at least this many bytes fail (a memory
/// error, which `sandbox.lua`'s `pcall` lets through as the end of the budget): the hook
/// only stops the script at its next check, and until then every instruction could
/// copy the whole heap. Smaller ones pass, so that the error itself can be built.
const REFUSED_GROWTH: usize = 4096;

/// What the allocator installed by [`charge_allocations`] needs: mlua's own allocator
/// (which keeps the memory limit) and the page's budget.
struct Charged {
    inner: ffi::lua_Alloc,
    inner_ud: *mut c_void,
    budget: Rc<Budget>,
}

/// The Lua allocator of a page's state: mlua's, with every growth of the heap charged to
/// the instruction budget. Shrinking and freeing are never refused (Lua 5.1 assumes they
/// cannot fail).
unsafe extern "C" fn charged_alloc(
    ud: *mut c_void,
    ptr: *mut c_void,
    osize: usize,
    nsize: usize,
) -> *mut c_void {
    // SAFETY: `ud` is the `Charged` that `charge_allocations` leaked into the state
    // and that `ChargedAllocator::drop` frees only after putting mlua's allocator back.
    let c = unsafe { &*(ud as *const Charged) };
    let old = if ptr.is_null() { 0 } else { osize };
    let b = &c.budget;
    if nsize > old && !b.uncharged.get() && !b.collecting.get() {
        if b.limit.get() > 0 {
            if b.timed_out.get() && nsize - old >= REFUSED_GROWTH {
                return std::ptr::null_mut();
            }
            let pending = b.pending_bytes.get() + (nsize - old) as u64;
            b.pending_bytes.set(pending % BYTES_PER_INSTRUCTION);
            let used = b.used.get() + pending / BYTES_PER_INSTRUCTION;
            if used > b.limit.get() {
                // The hook raises the error at its next check; like it, count no
                // further than the limit.
                b.used.set(b.limit.get());
                b.timed_out.set(true);
            } else {
                b.used.set(used);
            }
        }
        // Charged before refused: a refused request is work the page asked for.
        let cap = b.heap_limit.get();
        if cap > 0 {
            let wanted = b.heap.get().saturating_add(nsize - old);
            if wanted > cap {
                b.refused.set(true);
                return std::ptr::null_mut();
            }
            b.tightest.set(b.tightest.get().min(cap - wanted));
        }
    }
    // SAFETY: mlua's allocator with its own user data, called as Lua calls it.
    let out = unsafe { (c.inner)(c.inner_ud, ptr, osize, nsize) };
    if nsize == 0 || !out.is_null() {
        b.heap.set((b.heap.get() + nsize).saturating_sub(old));
    }
    out
}

/// Puts [`charged_alloc`] in front of mlua's allocator while the page's state lives; dropping it
/// puts mlua's back (mlua finds its memory state through the allocator, and closing the state
/// frees through it), so it must be dropped before the state.
pub(super) struct ChargedAllocator {
    lua: Lua,
    charged: *mut Charged,
}

/// Installs the charging allocator on `lua`.
pub(super) fn charge_allocations(lua: &Lua, budget: &Rc<Budget>) -> mlua::Result<ChargedAllocator> {
    let charged = Box::into_raw(Box::new(Charged {
        inner: charged_alloc,
        inner_ud: std::ptr::null_mut(),
        budget: budget.clone(),
    }));
    budget.start_page();
    budget.heap.set(lua.used_memory());
    budget.live.set(lua.used_memory());
    // SAFETY: the state is alive (we hold it); `charged` stays valid until
    // `ChargedAllocator::drop`, which restores the allocator read here first.
    unsafe {
        lua.exec_raw::<()>((), |state| {
            let mut ud = std::ptr::null_mut();
            let inner = ffi::lua_getallocf(state, &mut ud);
            (*charged).inner = inner;
            (*charged).inner_ud = ud;
            ffi::lua_setallocf(state, charged_alloc, charged as *mut c_void);
        })
    }
    .inspect_err(|_| {
        // SAFETY: not installed (the closure did not run to its end).
        drop(unsafe { Box::from_raw(charged) });
    })?;
    Ok(ChargedAllocator {
        lua: lua.clone(),
        charged,
    })
}

impl Drop for ChargedAllocator {
    fn drop(&mut self) {
        let charged = self.charged;
        // SAFETY: restores what `charge_allocations` read; after it no allocation goes
        // through `charged`, which is then freed.
        let restored = unsafe {
            self.lua.exec_raw::<()>((), |state| {
                ffi::lua_setallocf(state, (*charged).inner, (*charged).inner_ud);
            })
        };
        if restored.is_ok() {
            drop(unsafe { Box::from_raw(charged) });
        }
        // Otherwise the allocator is still in use: leaking it is the safe choice.
    }
}
