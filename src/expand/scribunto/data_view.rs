//! The `__index` of `mw.loadData`'s read-only views (`mw.lua`'s `readOnly`), in C.
//!
//! CS1 reads its configuration and whitelist through these views for every parameter of
//! every citation; written in Lua, each read was a call of a Lua function (a frame, a
//! dozen instructions). This one does the same lookups without the interpreter: the
//! data's value, and for a table the call's view of it (made by `readOnly` in Lua the
//! first time it is reached).

use std::ffi::c_int;

use mlua::{Function, Lua, Table, Value, ffi};

/// Registers `iface.viewIndex(data, viewSeen, readOnly, fname)`: the `__index` function
/// of the views of `data` (see [`view_index`]).
pub(super) fn register(lua: &Lua, iface: &Table) -> mlua::Result<()> {
    let make = lua.create_function(
        |lua, (data, seen, read_only, fname): (Table, Table, Function, Value)| {
            // SAFETY: the four values are at indices 1–4 of the stack `exec_raw` gives;
            // `lua_pushcclosure` takes them as upvalues and leaves the closure alone on
            // the stack. A memory error is raised into `exec_raw`'s protected call.
            unsafe {
                lua.exec_raw::<Function>((data, seen, read_only, fname), |state| {
                    ffi::lua_pushcclosure(state, view_index, 4);
                })
            }
        },
    )?;
    iface.set("viewIndex", make)
}

/// `__index(view, key)` of a view of the data in upvalue 1: the data's value for `key`,
/// or for a table the view of it that `view`'s call of `mw.loadData` made, made now by
/// `readOnly` (upvalue 3, with the call's `seen` map and the name in upvalue 4) if the
/// call has not reached it yet. Each view's `seen` map is found in the weak table of
/// upvalue 2; a table that is no view fails Scribunto's assertion.
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
