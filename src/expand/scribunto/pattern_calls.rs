//! `string.find`, `string.match` and `string.gsub` as C functions that run Lua's own
//! after charging the call: nothing for a call surely free of backtracking cost, the
//! matcher's steps counted in Rust for a short subject, and through the Lua code that
//! charges the rest (`sandbox.lua`) for the others.
//!
//! The wrappers in Lua ran on every pattern call, and on enwiki's CS1 articles that was
//! a fifth of the expansion's CPU: the VM's instructions for the test, and two runs of
//! Lua's own matcher over the pattern to find a repetition or a `%b`, `%f` or
//! back-reference in it. The same test made here costs a scan of the pattern's bytes.
//! The Lua charge of the calls not free (`check`) was still a tenth of the expansion's
//! time (a profile by Lua function, docs/expansion.md), and for a subject of at most
//! [`FREE_BYTES`] and a pattern too short to be refused it only asks for the count of
//! steps, which is made here directly. What a page is charged for bytes and matcher
//! steps is unchanged; it runs fewer VM instructions of the sandbox's own. Lua's
//! function runs in the closure's own frame, so an argument error reads as LuaSandbox's
//! does ("Module:X:8: bad argument #3 to 'gsub' …") rather than pointing into
//! `sandbox.lua`.

use std::ffi::c_int;
use std::rc::Rc;

use mlua::{Function, Lua, Table, ffi};

use super::sandbox::{
    self, Budget, FREE_BYTES, FREE_STEPS, MAX_PATTERN_ITEMS, PatternWalk, TIMEOUT_MESSAGE,
};

/// Which function a closure runs (its upvalue 4).
const FIND: ffi::lua_Integer = 0;
const MATCH: ffi::lua_Integer = 1;
const GSUB: ffi::lua_Integer = 2;

/// Registers `iface.patternCalls(find, match, gsub, chargeFind, chargeMatch, chargeGsub)`:
/// for each of Lua's own `find`, `match` and `gsub`, a C closure that runs it after
/// charging the call ([`pattern_call`]), asking its Lua `charge` function with the same
/// arguments where the call needs more than the count of steps; and
/// `iface.patternFree(s, p)`, the test of a call surely free, for `gmatch`'s wrapper in
/// Lua.
pub(super) fn register(lua: &Lua, iface: &Table, budget: &Rc<Budget>) -> mlua::Result<()> {
    let budget = Rc::as_ptr(budget);
    let make = lua.create_function(
        move |lua, functions: (Function, Function, Function, Function, Function, Function)| {
            // SAFETY: the six functions are at indices 1–6 of the stack `exec_raw` gives;
            // each closure takes a function and its charge, the budget and its kind as
            // upvalues, and the three closures are left alone on the stack. The budget
            // lives as long as the state (it is the state's app data, `PageLua`), so
            // the pointer the closures keep stays valid while they can run. A memory
            // error is raised into `exec_raw`'s protected call.
            unsafe {
                lua.exec_raw::<(Function, Function, Function)>(functions, |state| {
                    for (i, kind) in [(1, FIND), (2, MATCH), (3, GSUB)] {
                        ffi::lua_pushvalue(state, i);
                        ffi::lua_pushvalue(state, i + 3);
                        ffi::lua_pushlightuserdata(state, budget.cast_mut().cast());
                        ffi::lua_pushinteger(state, kind);
                        ffi::lua_pushcclosure(state, pattern_call, 4);
                    }
                    for _ in 0..6 {
                        ffi::lua_remove(state, 1);
                    }
                })
            }
        },
    )?;
    iface.set("patternCalls", make)?;
    // SAFETY: pushes a C function without upvalues on the stack `exec_raw` gives; a
    // memory error is raised into its protected call.
    let free = unsafe {
        lua.exec_raw::<Function>((), |state| ffi::lua_pushcfunction(state, pattern_free))?
    };
    iface.set("patternFree", free)
}

/// The closure `register` makes: upvalues 1 `original`, 2 `charge`, 3 the page's
/// [`Budget`], 4 which function it is. A call surely free is charged nothing; one of
/// string subject and pattern, a subject of at most [`FREE_BYTES`] and a pattern of at
/// most [`MAX_PATTERN_ITEMS`] bytes is charged the matcher's steps here (all `charge`
/// would do); any other is charged by `charge`, called with its arguments. Then runs
/// `original` in this frame and returns what it returns.
unsafe extern "C-unwind" fn pattern_call(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `register` gave it. The
    // calls below may raise a Lua error (the callee's, the budget's, or memory), which
    // unwinds through this frame: nothing in it is dropped after any of them.
    unsafe {
        let kind = ffi::lua_tointeger(state, ffi::lua_upvalueindex(4));
        let plain = kind == FIND && ffi::lua_toboolean(state, 4) != 0;
        let (s, p) = (string_at(state, 1), string_at(state, 2));
        let free = if plain {
            s.is_some_and(|s| s.len() <= FREE_BYTES)
        } else {
            free(s, p)
        };
        if !free {
            match (s, p) {
                (Some(s), Some(p))
                    if !plain && s.len() <= FREE_BYTES && p.len() <= MAX_PATTERN_ITEMS =>
                {
                    let walk = if kind == GSUB {
                        PatternWalk::Gsub {
                            n: number_at(state, 4),
                        }
                    } else {
                        PatternWalk::Find {
                            init: number_at(state, 3),
                        }
                    };
                    let budget = ffi::lua_touserdata(state, ffi::lua_upvalueindex(3));
                    let spent =
                        sandbox::charge_pattern(&*budget.cast::<Budget>(), s, p, walk).is_err();
                    if spent {
                        // The budget is marked spent; the error ends the page's scripts
                        // as the hook's does (`sandbox.lua`'s `pcall` lets it through).
                        ffi::lua_pushlstring(
                            state,
                            TIMEOUT_MESSAGE.as_ptr().cast(),
                            TIMEOUT_MESSAGE.len(),
                        );
                        ffi::lua_error(state);
                    }
                }
                _ => {
                    let args = ffi::lua_gettop(state);
                    ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
                    for i in 1..=args {
                        ffi::lua_pushvalue(state, i);
                    }
                    ffi::lua_call(state, args, 0);
                }
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

/// `tonumber` of the argument at `idx`: a number, or a string Lua converts to one.
///
/// # Safety
/// `state` is a live Lua state inside a C function's call.
unsafe fn number_at(state: *mut ffi::lua_State, idx: c_int) -> Option<f64> {
    // SAFETY: the caller's; neither call raises.
    unsafe { (ffi::lua_isnumber(state, idx) != 0).then(|| ffi::lua_tonumber(state, idx)) }
}

/// `iface.patternFree(s, p)`: whether a call of subject `s` and pattern `p` is surely
/// free ([`surely_free`]), for `gmatch`, which stays a Lua wrapper.
unsafe extern "C-unwind" fn pattern_free(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function; pushing a boolean cannot raise.
    unsafe {
        let free = free(string_at(state, 1), string_at(state, 2));
        ffi::lua_pushboolean(state, c_int::from(free));
        1
    }
}

/// Whether subject and pattern are strings (`s`, `p`) and the call surely free.
fn free(s: Option<&[u8]>, p: Option<&[u8]>) -> bool {
    matches!((s, p), (Some(s), Some(p)) if surely_free(s, p))
}

/// The bytes of the argument at `idx` if it is a string (not a number Lua would
/// convert: `sandbox.lua`'s test is `type(s) == 'string'`).
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

    /// The cases `free` in `sandbox.lua` decided, decided the same way.
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
