//! `string.find`, `match`, `gmatch` and `gsub` as C functions that charge the call and
//! then run Lua's own: nothing for a call surely free of backtracking cost; otherwise
//! the bytes of a long subject and the matcher's steps, counted in Rust
//! (`pattern_cost.rs`); and a pattern with more repetitions and captures than Lua's
//! matcher can recurse through is refused.
//!
//! Wrappers in Lua ran on every pattern call, and on enwiki's CS1 articles they were a
//! fifth of the expansion's CPU: the VM's instructions for the test, and two runs of
//! Lua's own matcher over the pattern to find a repetition or a `%b`, `%f` or
//! back-reference in it. The same test made here costs a scan of the pattern's bytes.
//! What a page is charged for bytes and matcher steps is what those wrappers charged; it
//! runs none of their VM instructions. Lua's function runs in the closure's own frame,
//! so an argument error reads as LuaSandbox's does ("Module:X:8: bad argument #3 to
//! 'gsub' …") rather than pointing into `sandbox.lua`.

use std::ffi::c_int;
use std::rc::Rc;

use mlua::{Function, LightUserData, Lua, Table, ffi};

use super::pattern_cost::Mode;
use super::sandbox::{
    self, Budget, FREE_BYTES, FREE_STEPS, MAX_PATTERN_ITEMS, TIMEOUT_MESSAGE, c_closure,
};

/// Which function a closure runs (its upvalue 3).
const FIND: ffi::lua_Integer = 0;
const MATCH: ffi::lua_Integer = 1;
const GMATCH: ffi::lua_Integer = 2;
const GSUB: ffi::lua_Integer = 3;

/// Registers `iface.patternCalls(find, match, gmatch, gsub)`: for each of Lua's own
/// functions, a C closure that runs it after charging the call ([`pattern_call`]).
pub(super) fn register(lua: &Lua, iface: &Table, budget: &Rc<Budget>) -> mlua::Result<()> {
    // The budget lives as long as the state (it is the state's app data, `PageLua`), so
    // the pointer the closures keep stays valid while they can run.
    let budget = LightUserData(Rc::as_ptr(budget).cast_mut().cast());
    let make = lua.create_function(
        move |lua, functions: (Function, Function, Function, Function)| {
            let (find, match_, gmatch, gsub) = functions;
            let make = |f: Function, kind| c_closure(lua, pattern_call, (f, budget, kind));
            Ok((
                make(find, FIND)?,
                make(match_, MATCH)?,
                make(gmatch, GMATCH)?,
                make(gsub, GSUB)?,
            ))
        },
    )?;
    iface.set("patternCalls", make)
}

/// The closure `register` makes: upvalues 1 `original`, 2 the page's [`Budget`], 3 which
/// function it is. Charges the call ([`charge`]), then runs `original` in this frame and
/// returns what it returns.
unsafe extern "C-unwind" fn pattern_call(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `register` gave it. The
    // calls below may raise a Lua error (the callee's, the budget's, or memory), which
    // unwinds through this frame: nothing in it is dropped after any of them.
    unsafe {
        let budget = ffi::lua_touserdata(state, ffi::lua_upvalueindex(2));
        let kind = ffi::lua_tointeger(state, ffi::lua_upvalueindex(3));
        match charge(state, &*budget.cast::<Budget>(), kind) {
            Ok(()) => {}
            Err(Refusal::Spent) => {
                // The budget is marked spent; the error ends the page's scripts as the
                // hook's does (`sandbox.lua`'s `pcall` lets it through).
                ffi::lua_pushlstring(
                    state,
                    TIMEOUT_MESSAGE.as_ptr().cast(),
                    TIMEOUT_MESSAGE.len(),
                );
                ffi::lua_error(state);
            }
            Err(Refusal::TooComplex) => {
                // At the module's line, as `error(…, level)` in a Lua wrapper gave it.
                ffi::luaL_error(state, c"pattern too complex".as_ptr());
            }
        }
        // In this frame, as if the module had called it: its errors name the function and
        // the module's line as LuaSandbox's do.
        match ffi::lua_tocfunction(state, ffi::lua_upvalueindex(1)) {
            Some(original) => original(state),
            None => 0,
        }
    }
}

/// Why a call is not run.
enum Refusal {
    /// The charge ended the page's budget.
    Spent,
    /// The pattern holds more than [`MAX_PATTERN_ITEMS`] repetitions and captures.
    TooComplex,
}

/// Charges a call of the function `kind` with the arguments on `state`'s stack. A call
/// surely free costs nothing beyond the instructions that make it. Otherwise, when the
/// subject is a string: its bytes past [`FREE_BYTES`] (one instruction per 16, as
/// `sandbox.lua` charges `string.rep`) and, when the pattern is one too, the matcher's
/// steps. Arguments of other types are Lua's to refuse or convert.
///
/// # Safety
/// `state` is the running thread of a live state, inside the call of a closure
/// `register` made.
unsafe fn charge(
    state: *mut ffi::lua_State,
    b: &Budget,
    kind: ffi::lua_Integer,
) -> Result<(), Refusal> {
    // SAFETY: the caller's; the slices live while their values stay on the stack, which
    // nothing here pops.
    unsafe {
        let plain = kind == FIND && ffi::lua_toboolean(state, 4) != 0;
        let (s, p) = (string_at(state, 1), string_at(state, 2));
        if !plain && free(s, p) {
            return Ok(());
        }
        if let Some(p) = p.filter(|p| !plain && p.len() > MAX_PATTERN_ITEMS) {
            let items = p
                .iter()
                .filter(|b| matches!(b, b'?' | b'*' | b'+' | b'-' | b'('))
                .count();
            if items > MAX_PATTERN_ITEMS {
                return Err(Refusal::TooComplex);
            }
        }
        let Some(s) = s else { return Ok(()) };
        if s.len() > FREE_BYTES {
            sandbox::charge(b, s.len() as f64 / 16.0).map_err(|_| Refusal::Spent)?;
            sandbox::maybe_collect_raw(state, b);
        }
        let Some(p) = p.filter(|_| !plain) else {
            return Ok(());
        };
        let (init, mode) = match kind {
            GMATCH => (0, Mode::All),
            GSUB => (
                0,
                Mode::Replace(
                    number_at(state, 4).map_or(s.len() + 1, |n| n.trunc().max(0.0) as usize),
                ),
            ),
            _ => (start(number_at(state, 3), s.len()), Mode::First),
        };
        sandbox::charge_pattern(b, s, p, init, mode).map_err(|_| Refusal::Spent)
    }
}

/// Where `find` and `match` start in a subject of `len` bytes: `posrelat(init) - 1`
/// clamped to the subject, as `str_find_aux` reads its `init` argument.
fn start(init: Option<f64>, len: usize) -> usize {
    let len = len as f64;
    let i = init.map_or(0.0, |i| {
        let i = i.trunc();
        if i < 0.0 { len + i } else { i - 1.0 }
    });
    i.clamp(0.0, len) as usize
}

/// `tonumber` of the argument at `idx`: a number, or a string Lua converts to one.
///
/// # Safety
/// `state` is a live Lua state inside a C function's call.
unsafe fn number_at(state: *mut ffi::lua_State, idx: c_int) -> Option<f64> {
    // SAFETY: the caller's; neither call raises.
    unsafe { (ffi::lua_isnumber(state, idx) != 0).then(|| ffi::lua_tonumber(state, idx)) }
}

/// Whether subject and pattern are strings (`s`, `p`) and the call surely free.
fn free(s: Option<&[u8]>, p: Option<&[u8]>) -> bool {
    matches!((s, p), (Some(s), Some(p)) if surely_free(s, p))
}

/// The bytes of the argument at `idx` if it is a string (not a number Lua would
/// convert, which the Lua wrappers' `type(s) == 'string'` did not charge either).
///
/// # Safety
/// `state` is a live Lua state; the slice lives as long as the value stays on the stack.
unsafe fn string_at<'a>(state: *mut ffi::lua_State, idx: c_int) -> Option<&'a [u8]> {
    // SAFETY: the caller's; `lua_tolstring` does not convert a value of string type.
    unsafe {
        if ffi::lua_type(state, idx) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0;
        let ptr = ffi::lua_tolstring(state, idx, &mut len);
        Some(std::slice::from_raw_parts(ptr.cast::<u8>(), len))
    }
}

/// The test of a call surely free: a short subject for its pattern (at most
/// [`FREE_STEPS`] steps of the matcher), and a pattern without repetition (`?`, `*`,
/// `+`, `-`), `%b`, `%f` or back-reference (`%` then a digit; a `%` is looked at with the
/// byte after it wherever it stands, escaped or not). Its premise is tested in
/// `pattern_cost.rs`.
fn surely_free(s: &[u8], p: &[u8]) -> bool {
    (s.len() as u64 + 1).saturating_mul(p.len() as u64 + 1) <= FREE_STEPS
        && !p.iter().any(|b| matches!(b, b'?' | b'*' | b'+' | b'-'))
        && !p
            .windows(2)
            .any(|w| w[0] == b'%' && matches!(w[1], b'b' | b'f' | b'0'..=b'9'))
}

#[cfg(test)]
mod tests {
    use super::surely_free;

    /// The cases the Lua wrappers' `free` decided (before the test moved here), decided the
    /// same way.
    #[test]
    fn free_calls_are_those_the_lua_test_finds_free() {
        let free = |s: &str, p: &str| surely_free(s.as_bytes(), p.as_bytes());
        assert!(free("cite web", "^cite"));
        assert!(free("a.b", "%."));
        assert!(free("x", "[%a_]"));
        assert!(!free("aaa", "a*"));
        assert!(!free("aaa", "a-b"));
        assert!(!free("aaa", "a?"));
        assert!(!free("aaa", "a+"));
        assert!(!free("(x)", "%b()"));
        assert!(!free("the cat", "%f[%w]cat"));
        assert!(!free("aa", "(a)%1"));
        // `%%b` is an escaped `%` then `b` to the matcher, but the Lua test sees `%b`.
        assert!(!free("%b", "%%b"));
        // A subject too long for the pattern: (#s + 1) * (#p + 1) > 1024.
        assert!(!free(&"x".repeat(200), "^abcd"));
        // 256 × 4 = 1024 steps at most: free; one byte more is not.
        assert!(free(&"x".repeat(255), "^ab"));
        assert!(!free(&"x".repeat(256), "^ab"));
    }
}
