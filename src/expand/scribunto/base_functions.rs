//! The sandbox's `pairs`, `ipairs`, `getmetatable` and `tostring` (`sandbox.lua`), as C
//! functions.
//!
//! Written in Lua, they ran on every loop a module wrote and every `tostring`: on enwiki's
//! CS1 articles `ipairs` and the `getmetatable` it asked were 6 % of the expansion's time
//! (a profile by Lua function, docs/expansion.md), most of it the VM's frames, not work.
//! These decide the same way without the interpreter and then run Lua's own function in
//! their own frame, so that an argument error names the function the module called
//! ("bad argument #1 to 'ipairs' (table expected, got nil)", as `lua5.1` says) rather
//! than a wrapper's local.

use std::ffi::c_int;

use mlua::{Function, Lua, Table, ffi};

use super::sandbox::c_closure;

/// Registers `iface.pairs`, `iface.ipairs`, `iface.getmetatable` and `iface.tostring`,
/// made from the base library's functions as they are when this runs (before
/// `sandbox.lua`, which installs them as the globals).
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    // SAFETY: runs on the stack `exec_raw` gives, with `iface` at index 1; each step
    // pushes what the next takes and leaves the stack as it found it. A memory error is
    // raised into `exec_raw`'s protected call, and no Rust value lives across the calls.
    // (`pairs` and `ipairs` need their originals' upvalue, which mlua does not reach.)
    unsafe {
        lua.exec_raw::<()>(iface.clone(), |state| {
            for (name, event) in [(c"pairs", c"__pairs"), (c"ipairs", c"__ipairs")] {
                ffi::lua_getfield(state, ffi::LUA_GLOBALSINDEX, name.as_ptr());
                // Lua's `pairs` and `ipairs` are closures over their iterator, which
                // they read as upvalue 1: the new closure carries it at the same place.
                if ffi::lua_getupvalue(state, -1, 1).is_null() {
                    ffi::lua_pushnil(state);
                }
                ffi::lua_pushvalue(state, -2);
                ffi::lua_pushstring(state, event.as_ptr());
                ffi::lua_pushcclosure(state, iterate, 3);
                ffi::lua_setfield(state, 1, name.as_ptr());
                ffi::lua_pop(state, 1);
            }
        })?;
    }
    let wrapped: [(&str, ffi::lua_CFunction); 2] =
        [("getmetatable", getmetatable), ("tostring", tostring)];
    for (name, f) in wrapped {
        let original: Function = lua.globals().raw_get(name)?;
        iface.set(name, c_closure(lua, f, original)?)?;
    }
    Ok(())
}

/// Runs the base library's function of upvalue `up` in this frame, as if the module had
/// called it.
///
/// # Safety
/// Inside a C function whose upvalue `up` is a C function.
unsafe fn original(state: *mut ffi::lua_State, up: c_int) -> c_int {
    // SAFETY: the caller's.
    unsafe {
        match ffi::lua_tocfunction(state, ffi::lua_upvalueindex(up)) {
            Some(f) => f(state),
            None => 0,
        }
    }
}

/// Pushes what Lua's `getmetatable` answers for the value at `idx` (an absolute index) —
/// its metatable, or the metatable's `__metatable` field where it has one — and whether
/// the value has a metatable (nothing pushed if not).
///
/// # Safety
/// `state` is a live Lua state with room for two more values; `idx` is valid.
pub(super) unsafe fn push_visible_metatable(state: *mut ffi::lua_State, idx: c_int) -> bool {
    // SAFETY: the caller's; raw reads of a metatable cannot raise.
    unsafe {
        if ffi::lua_getmetatable(state, idx) == 0 {
            return false;
        }
        if ffi::luaL_getmetafield_(state, idx, c"__metatable".as_ptr()) != 0 {
            ffi::lua_remove(state, -2);
        }
        true
    }
}

/// `pairs(t)` / `ipairs(t)` with `__pairs` / `__ipairs` as Lua 5.2 has them: for a
/// table whose visible metatable is a table with the metamethod (upvalue 3) truthy, the
/// first three values it returns; otherwise Lua's own function (upvalue 2), with its
/// iterator as upvalue 1.
unsafe extern "C-unwind" fn iterate(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `register` gave it. The
    // metamethod's call may raise, unwinding this frame, which holds nothing to drop.
    unsafe {
        let top = ffi::lua_gettop(state);
        if ffi::lua_type(state, 1) == ffi::LUA_TTABLE && push_visible_metatable(state, 1) {
            if ffi::lua_type(state, -1) == ffi::LUA_TTABLE {
                ffi::lua_pushvalue(state, ffi::lua_upvalueindex(3));
                ffi::lua_rawget(state, -2);
                if ffi::lua_toboolean(state, -1) != 0 {
                    ffi::lua_pushvalue(state, 1);
                    ffi::lua_call(state, 1, 3);
                    return 3;
                }
            }
            ffi::lua_settop(state, top);
        }
        original(state, 2)
    }
}

/// `getmetatable(v)`: Lua's answer for a table, `nil` for anything else (the metatable of
/// strings, whose `__index` is the real `string` table, would let a module change what
/// every other module sees).
unsafe extern "C-unwind" fn getmetatable(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with Lua's `getmetatable` as upvalue 1.
    unsafe {
        if ffi::lua_type(state, 1) == ffi::LUA_TTABLE {
            return original(state, 1);
        }
        ffi::lua_pushnil(state);
        1
    }
}

/// `tostring(v)` without addresses, which differ from run to run: a table, function,
/// userdata or thread is written as its type's name, but a table whose visible metatable
/// has a truthy `__tostring` goes to Lua's `tostring` (upvalue 1), as does any other value.
unsafe extern "C-unwind" fn tostring(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with Lua's `tostring` as upvalue 1; Lua's
    // may call `__tostring`, which may raise through this frame: it holds nothing to drop.
    unsafe {
        if ffi::lua_gettop(state) == 0 {
            ffi::lua_pushnil(state);
        }
        let t = ffi::lua_type(state, 1);
        match t {
            ffi::LUA_TTABLE => {
                let top = ffi::lua_gettop(state);
                let own = push_visible_metatable(state, 1)
                    && ffi::lua_type(state, -1) == ffi::LUA_TTABLE
                    && {
                        ffi::lua_pushstring(state, c"__tostring".as_ptr());
                        ffi::lua_rawget(state, -2);
                        ffi::lua_toboolean(state, -1) != 0
                    };
                ffi::lua_settop(state, top);
                if own {
                    return original(state, 1);
                }
            }
            ffi::LUA_TFUNCTION
            | ffi::LUA_TUSERDATA
            | ffi::LUA_TLIGHTUSERDATA
            | ffi::LUA_TTHREAD => {}
            _ => return original(state, 1),
        }
        ffi::lua_pushstring(state, ffi::lua_typename(state, t));
        1
    }
}
