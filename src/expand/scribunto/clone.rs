//! The copy of the library's tables that each `#invoke`'s globals start from
//! (`mw.lua`'s `cloneEnv`, Scribunto's clone of `_G`), made in C.
//!
//! Written in Lua, as `mw.clone` is, the copy of `mw`, `string`, `table` and the rest
//! took about 11 % of the whole build of enwiki's CS1 articles (an `#invoke` per
//! citation; measured by copying twice). This one makes the same tables — entries
//! inserted in the same order, shared references and metatables kept alike — without
//! the interpreter, and charges the page one instruction per entry copied (its
//! allocations are charged as any are).

use std::ffi::c_int;
use std::rc::Rc;

use mlua::{Lua, Table, Value, ffi};

use super::base_functions::push_visible_metatable;
use super::sandbox::{self, Budget};

/// Tables nested deeper than this are left to `mw.clone`, whose recursion in Lua ends
/// in a Lua error where this one's would overrun the C stack.
const MAX_DEPTH: u32 = 64;

/// Registers `iface.cloneTable(t)`: a deep copy of `t` as `mw.clone` makes it, or `nil`
/// where `mw.clone` must make it (nesting deeper than [`MAX_DEPTH`], a `__metatable`
/// field that is not a table, whose `setmetatable` error Lua then gives).
pub(super) fn register(lua: &Lua, iface: &Table, budget: &Rc<Budget>) -> mlua::Result<()> {
    let b = budget.clone();
    let clone = lua.create_function(move |lua, t: Table| {
        let mut entries = 0u64;
        // SAFETY: runs on the stack `exec_raw` gives it, with `t` at index 1, and
        // leaves exactly one value there: the copy, or nil. Lua errors (memory) are
        // caught by `exec_raw`'s protected call; no Rust value with a destructor
        // lives across the calls that may raise them.
        let copy: Value = unsafe {
            lua.exec_raw(t, |state| {
                ffi::lua_newtable(state);
                if copy(state, 1, 2, 0, &mut entries) {
                    ffi::lua_replace(state, 1);
                    ffi::lua_settop(state, 1);
                } else {
                    ffi::lua_settop(state, 0);
                    ffi::lua_pushnil(state);
                }
            })?
        };
        sandbox::charge(&b, entries as f64)?;
        Ok(copy)
    })?;
    iface.set("cloneTable", clone)
}

/// Pushes a copy of the value at `idx` (absolute), using the table at `seen` (copies by
/// original) so that a table reached twice is copied once; `false` when `mw.clone`
/// must do it (the stack then holds partial work, which the caller drops).
///
/// # Safety
/// `state` is a live Lua state; `idx` and `seen` are valid absolute indices.
unsafe fn copy(
    state: *mut ffi::lua_State,
    idx: c_int,
    seen: c_int,
    depth: u32,
    entries: &mut u64,
) -> bool {
    unsafe {
        if ffi::lua_type(state, idx) != ffi::LUA_TTABLE {
            ffi::lua_pushvalue(state, idx);
            return true;
        }
        if depth > MAX_DEPTH || ffi::lua_checkstack(state, 8) == 0 {
            return false;
        }
        ffi::lua_pushvalue(state, idx);
        if ffi::lua_rawget(state, seen) != ffi::LUA_TNIL {
            return true;
        }
        ffi::lua_pop(state, 1);
        ffi::lua_newtable(state);
        let c = ffi::lua_gettop(state);
        ffi::lua_pushvalue(state, idx);
        ffi::lua_pushvalue(state, c);
        ffi::lua_rawset(state, seen);
        // `c[copy(k)] = copy(v)` for each entry in `next`'s order, as `mw.clone` does.
        ffi::lua_pushnil(state);
        while ffi::lua_next(state, idx) != 0 {
            let top = ffi::lua_gettop(state);
            if !copy(state, top - 1, seen, depth + 1, entries)
                || !copy(state, top, seen, depth + 1, entries)
            {
                return false;
            }
            ffi::lua_rawset(state, c);
            ffi::lua_pop(state, 1);
            *entries += 1;
        }
        // The metatable as `getmetatable` gives it (its `__metatable` field if set).
        if push_visible_metatable(state, idx) {
            let m = ffi::lua_gettop(state);
            match ffi::lua_type(state, m) {
                ffi::LUA_TTABLE => {
                    if !copy(state, m, seen, depth + 1, entries) {
                        return false;
                    }
                    ffi::lua_setmetatable(state, c);
                    ffi::lua_pop(state, 1);
                }
                _ => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use mlua::Function;

    use super::super::PageLua;
    use crate::expand::tests::{Pages, config};

    /// Serializes a value walking every table in `next`'s order (tables numbered as
    /// first met, functions by identity, metatables as `getmetatable` gives them), and
    /// compares `cloneTable` with `mw.clone` on every library table and on made ones.
    const COMPARE: &str = r#"
local cloneTable = ...
local ids, n = {}, 0
local function ser(v, seen, out)
    local t = type(v)
    if t ~= 'table' then
        if t == 'function' or t == 'userdata' or t == 'thread' then
            if not ids[v] then n = n + 1; ids[v] = n end
            out[#out + 1] = t .. ids[v]
        else
            out[#out + 1] = t .. ':' .. tostring(v)
        end
        return
    end
    if seen[v] then out[#out + 1] = '@' .. seen[v]; return end
    seen.count = seen.count + 1
    seen[v] = seen.count
    out[#out + 1] = '{'
    for k, x in next, v do
        ser(k, seen, out); out[#out + 1] = '='; ser(x, seen, out); out[#out + 1] = ','
    end
    out[#out + 1] = '}'
    local mt = getmetatable(v)
    if mt ~= nil then out[#out + 1] = 'mt'; ser(mt, seen, out) end
end
local function same(v)
    local a, b = {}, {}
    local copy = cloneTable(v)
    if copy == nil then return 'nil' end
    if copy == v then return 'not copied' end
    ser(copy, { count = 0 }, a)
    ser(mw.clone(v), { count = 0 }, b)
    a, b = table.concat(a), table.concat(b)
    return a == b and #a or 'differs'
end
local out = {}
local names = {}
for k in next, _G do names[#names + 1] = k end
table.sort(names)
for _, k in ipairs(names) do
    local v = _G[k]
    if type(v) == 'table' and k ~= '_G' then out[#out + 1] = k .. ':' .. same(v) end
end
-- Shared references, a cycle, a protected metatable, a table in its own metatable,
-- entries removed after being set. (Not keys that are tables: their copies' places
-- follow their addresses, in either copy.)
local shared = { 1, 2 }
local made = { a = shared, b = shared, list = { 'x', 'y', 'z' }, [1.5] = true, [7] = 'n' }
made.self = made
made.removed = true
made.removed = nil
setmetatable(made, { __index = shared, __metatable = { locked = shared } })
local own = {}
setmetatable(own, own)
out[#out + 1] = 'made:' .. same(made)
out[#out + 1] = 'own:' .. same(own)
-- Left to mw.clone: nesting past the C copy's depth, a __metatable that is no table.
local deep = {}
for i = 1, 100 do deep = { deep } end
out[#out + 1] = 'deep:' .. same(deep)
out[#out + 1] = 'locked:' .. same(setmetatable({}, { __metatable = 'locked' }))
return table.concat(out, ' ')
"#;

    #[test]
    fn copies_as_mw_clone_does() {
        let pages = Pages::new(&[]);
        let p = PageLua::new(&config(), &pages.codec).expect("a Lua state");
        let clone: Function = p.iface.get("cloneTable").expect("registered");
        let compare: Function = p.lua.load(COMPARE).into_function().expect("compiles");
        let report: String = compare.call(clone).expect("runs");
        let mut sizes = std::collections::BTreeMap::new();
        for item in report.split(' ') {
            let (name, result) = item.split_once(':').expect("name:result");
            sizes.insert(name.to_string(), result.to_string());
        }
        assert_eq!(sizes["deep"], "nil", "{report}");
        assert_eq!(sizes["locked"], "nil", "{report}");
        sizes.remove("deep");
        sizes.remove("locked");
        for (name, result) in &sizes {
            assert!(
                result.parse::<usize>().is_ok(),
                "{name}: {result} ({report})"
            );
        }
        // The whole `mw` library was compared, not an empty table.
        assert!(sizes["mw"].parse::<usize>().unwrap() > 5000, "{report}");
        assert!(
            sizes.contains_key("string") && sizes.contains_key("made"),
            "{report}"
        );
    }
}
