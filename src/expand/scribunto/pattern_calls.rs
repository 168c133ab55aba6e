//! `string.find`, `string.match` and `string.gsub` as C functions that run Lua's own
//! after deciding whether the call is surely free of backtracking cost, and have every
//! other call charged first by the Lua code that charges it (`sandbox.lua`).
//!
//! The wrappers in Lua ran on every pattern call, and on enwiki's CS1 articles that was
//! a fifth of the expansion's CPU: the VM's instructions for the test, and two runs of
//! Lua's own matcher over the pattern to find a repetition or a `%b`, `%f` or
//! back-reference in it. The same test made here costs a scan of the pattern's bytes.
//! What a page is charged for bytes and matcher steps is unchanged: the calls that were
//! charged go through the same Lua code; the free ones never were. Lua's function runs in
//! the closure's own frame, so an argument error reads as LuaSandbox's does ("Module:X:8:
//! bad argument #3 to 'gsub' …") rather than pointing into `sandbox.lua`.

use std::ffi::c_int;

use mlua::{Function, Lua, Table, ffi};

use super::sandbox::FREE_STEPS;

/// Registers `iface.patternCall(original, charge, freeBytes, plainFind)`: a C closure
/// that runs `original` (Lua's own `find`, `match` or `gsub`), after calling `charge`
/// (Lua) with the same arguments unless the call is surely free (`plainFind`: argument 4
/// is `find`'s `plain`, and a plain find is free for a subject of at most `freeBytes`);
/// and `iface.patternFree(s, p)`, the same test for `gmatch`'s wrapper in Lua.
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let make = lua.create_function(
        |lua, (original, charge, free_bytes, plain_find): (Function, Function, f64, bool)| {
            // SAFETY: the three values are at indices 1–3 of the stack `exec_raw` gives;
            // whether argument 4 is `plain` is pushed above them and `lua_pushcclosure`
            // takes the four as upvalues, leaving the closure alone on the stack. A memory
            // error is raised into `exec_raw`'s protected call.
            unsafe {
                lua.exec_raw::<Function>((original, charge, free_bytes), |state| {
                    ffi::lua_pushboolean(state, c_int::from(plain_find));
                    ffi::lua_pushcclosure(state, pattern_call, 4);
                })
            }
        },
    )?;
    iface.set("patternCall", make)?;
    // SAFETY: pushes a C function without upvalues on the stack `exec_raw` gives; a
    // memory error is raised into its protected call.
    let free = unsafe {
        lua.exec_raw::<Function>((), |state| ffi::lua_pushcfunction(state, pattern_free))?
    };
    iface.set("patternFree", free)
}

/// The closure `register` makes: upvalues 1 `original`, 2 `charge`, 3 the plain-find
/// subject bound, 4 whether argument 4 is `find`'s `plain`. Unless the call is surely
/// free, calls `charge` with its arguments; then runs `original` in this frame and
/// returns what it returns.
unsafe extern "C-unwind" fn pattern_call(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `register` gave it. The
    // call below may raise a Lua error (the callee's, or memory), which unwinds through
    // this frame: it holds nothing to drop.
    unsafe {
        let free = if ffi::lua_toboolean(state, ffi::lua_upvalueindex(4)) != 0
            && ffi::lua_toboolean(state, 4) != 0
        {
            let free_bytes = ffi::lua_tonumber(state, ffi::lua_upvalueindex(3));
            string_at(state, 1).is_some_and(|s| s.len() as f64 <= free_bytes)
        } else {
            free_at(state)
        };
        if !free {
            // The charge first, with the call's arguments: it may end the page's budget.
            let args = ffi::lua_gettop(state);
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(2));
            for i in 1..=args {
                ffi::lua_pushvalue(state, i);
            }
            ffi::lua_call(state, args, 0);
        }
        // In this frame, as if the module had called it: its errors name the function and
        // the module's line as LuaSandbox's do.
        match ffi::lua_tocfunction(state, ffi::lua_upvalueindex(1)) {
            Some(original) => original(state),
            None => 0,
        }
    }
}

/// `iface.patternFree(s, p)`: whether a call of subject `s` and pattern `p` is surely
/// free ([`surely_free`]), for `gmatch`, which stays a Lua wrapper.
unsafe extern "C-unwind" fn pattern_free(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function; pushing a boolean cannot raise.
    unsafe {
        ffi::lua_pushboolean(state, c_int::from(free_at(state)));
        1
    }
}

/// Whether arguments 1 and 2 are strings and the call surely free.
///
/// # Safety
/// `state` is a live Lua state inside a C function's call.
unsafe fn free_at(state: *mut ffi::lua_State) -> bool {
    // SAFETY: the caller's.
    unsafe {
        match (string_at(state, 1), string_at(state, 2)) {
            (Some(s), Some(p)) => surely_free(s, p),
            _ => false,
        }
    }
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
