//! `mw.loadData`'s read-only views (`mw.lua`'s `readOnly`) in C: making a view, and its
//! `__index`, `__pairs` and `__ipairs`.
//!
//! CS1 reads its configuration and whitelist through these views for every parameter of
//! every citation, and walks their lists of aliases with `ipairs`; written in Lua, each
//! read, each step and each nested view made was a call of a Lua function (a frame, a
//! dozen instructions). These do the same work without the interpreter: the data's
//! value, and for a table the call's view of it, made the first time it is reached.

use std::ffi::c_int;

use mlua::{Function, Lua, Table, Value, ffi};

use super::sandbox::c_closure;

/// Registers `iface.viewMaker(viewSeen, viewMts, viewMt)`, which makes a page's
/// `readOnly(data, seen, fname)` ([`read_only`]), and `iface.viewFunctions(data,
/// viewSeen, readOnly, fname)`: the `__index`, `__pairs` and `__ipairs` of the views of
/// `data` ([`view_index`], [`view_pairs`], [`view_ipairs`]).
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let maker =
        lua.create_function(|lua, (view_seen, mts, view_mt): (Table, Table, Function)| {
            c_closure(lua, read_only, (view_seen, mts, view_mt))
        })?;
    iface.set("viewMaker", maker)?;
    let functions = lua.create_function(
        |lua, (data, seen, read_only, fname): (Table, Table, Function, Value)| {
            let index = c_closure(lua, view_index, (data.clone(), seen, read_only, fname))?;
            let next = c_closure(lua, view_next, data.clone())?;
            let inext = c_closure(lua, view_inext, data)?;
            Ok((
                index,
                c_closure(lua, view_pairs, next)?,
                c_closure(lua, view_ipairs, inext)?,
            ))
        },
    )?;
    iface.set("viewFunctions", functions)
}

/// `readOnly(data, seen, fname)` of a page: a new view of `data` for the call of
/// `mw.loadData` whose map of views is `seen` (a new map when `nil`, as `seen or {}`), entered in it and
/// its own map found from it through the page's weak `viewSeen` (upvalue 1), with the
/// page's metatable for views of `data` (from upvalue 2, made by `viewMt`, upvalue 3,
/// the first time).
unsafe extern "C-unwind" fn read_only(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `register` gave it.
    // `viewMt` may raise (memory) through this frame, which holds nothing to drop.
    unsafe {
        ffi::lua_settop(state, 3);
        if ffi::lua_toboolean(state, 2) == 0 {
            ffi::lua_newtable(state);
            ffi::lua_replace(state, 2);
        }
        // 4: the view.
        ffi::lua_newtable(state);
        ffi::lua_pushvalue(state, 1);
        ffi::lua_pushvalue(state, 4);
        ffi::lua_rawset(state, 2);
        ffi::lua_pushvalue(state, 4);
        ffi::lua_pushvalue(state, 2);
        ffi::lua_rawset(state, ffi::lua_upvalueindex(1));
        // 5: the metatable.
        ffi::lua_pushvalue(state, 1);
        ffi::lua_rawget(state, ffi::lua_upvalueindex(2));
        if ffi::lua_type(state, 5) == ffi::LUA_TNIL {
            ffi::lua_pop(state, 1);
            ffi::lua_pushvalue(state, ffi::lua_upvalueindex(3));
            ffi::lua_pushvalue(state, 1);
            ffi::lua_pushvalue(state, 3);
            ffi::lua_call(state, 2, 1);
        }
        ffi::lua_setmetatable(state, 4);
        1
    }
}

/// `__pairs(view)`: the iterator of upvalue 1, `view` and `nil`.
unsafe extern "C-unwind" fn view_pairs(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalue `register` gave it.
    unsafe {
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
        ffi::lua_pushvalue(state, 1);
        ffi::lua_pushnil(state);
        3
    }
}

/// `__ipairs(view)`: the iterator of upvalue 1, `view` and 0.
unsafe extern "C-unwind" fn view_ipairs(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalue `register` gave it.
    unsafe {
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(1));
        ffi::lua_pushvalue(state, 1);
        ffi::lua_pushnumber(state, 0.0);
        3
    }
}

/// The `pairs` iterator `(view, k)` of the data in upvalue 1: the data's key after `k`
/// (`next`'s order, and its error for a key not in the table) and `view`'s value for it.
unsafe extern "C-unwind" fn view_next(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalue `register` gave it. `next`'s
    // error and the view's `__index` may raise through this frame: it holds nothing to
    // drop.
    unsafe {
        ffi::lua_settop(state, 2);
        if ffi::lua_next(state, ffi::lua_upvalueindex(1)) == 0 {
            return 0;
        }
        ffi::lua_pop(state, 1);
        ffi::lua_pushvalue(state, 2);
        ffi::lua_gettable(state, 1);
        2
    }
}

/// The `ipairs` iterator `(view, i)` of the data in upvalue 1: `i + 1` and `view`'s
/// value for it while the data holds one there.
unsafe extern "C-unwind" fn view_inext(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalue `register` gave it. The
    // error below and the view's `__index` may raise through this frame: nothing in it
    // is dropped after either.
    unsafe {
        ffi::lua_settop(state, 2);
        if ffi::lua_isnumber(state, 2) == 0 {
            ffi::luaL_error(
                state,
                c"attempt to perform arithmetic on local 'i' (a %s value)".as_ptr(),
                ffi::luaL_typename(state, 2),
            );
        }
        let i = ffi::lua_tonumber(state, 2) + 1.0;
        ffi::lua_pushnumber(state, i);
        ffi::lua_rawget(state, ffi::lua_upvalueindex(1));
        if ffi::lua_type(state, -1) == ffi::LUA_TNIL {
            return 0;
        }
        ffi::lua_settop(state, 2);
        ffi::lua_pushnumber(state, i);
        ffi::lua_pushnumber(state, i);
        ffi::lua_gettable(state, 1);
        2
    }
}

/// `__index(view, key)` of a view of the data in upvalue 1: the data's value for `key`,
/// or for a table the view of it that `view`'s call of `mw.loadData` made, made now by
/// `readOnly` (upvalue 3, [`read_only`], with the call's `seen` map and the name in
/// upvalue 4) if the call has not reached it yet. Each view's `seen` map is found in the
/// weak table of upvalue 2; a table that is no view fails Scribunto's assertion.
unsafe extern "C-unwind" fn view_index(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: called by Lua as a C function with the upvalues `register` gave it and
    // (as a metamethod) two arguments. Raising an error (the assertion, or one from
    // `readOnly`) unwinds this frame, which holds nothing to drop.
    unsafe {
        ffi::lua_settop(state, 2);
        // 3: the view's `seen` map.
        ffi::lua_pushvalue(state, 1);
        ffi::lua_rawget(state, ffi::lua_upvalueindex(2));
        if ffi::lua_type(state, 3) != ffi::LUA_TTABLE {
            ffi::lua_pushstring(state, c"assertion failed!".as_ptr());
            ffi::lua_error(state);
        }
        // 4: the data's value.
        ffi::lua_pushvalue(state, 2);
        ffi::lua_rawget(state, ffi::lua_upvalueindex(1));
        if ffi::lua_type(state, 4) != ffi::LUA_TTABLE {
            return 1;
        }
        // 5: the call's view of it, or a new one.
        ffi::lua_pushvalue(state, 4);
        ffi::lua_rawget(state, 3);
        if ffi::lua_type(state, 5) != ffi::LUA_TNIL {
            return 1;
        }
        ffi::lua_settop(state, 4);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(3));
        ffi::lua_pushvalue(state, 4);
        ffi::lua_pushvalue(state, 3);
        ffi::lua_pushvalue(state, ffi::lua_upvalueindex(4));
        ffi::lua_call(state, 3, 1);
        1
    }
}
