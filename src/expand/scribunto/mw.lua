-- mw: the library's table and its core functions (clone, log, dumpObject, allToString,
-- incrementExpensiveFunctionCount), and the environment each #invoke runs in: a copy
-- of the globals with `require` and `mw.loadData` reading modules from the dump.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.host(op, ...)` reaches the expander (replaced on
-- each #invoke); sets `lib.host` and `lib.cloneEnv`.
local iface, _, lib = ...
local type, error, select, setmetatable, getmetatable, next =
	type, error, select, setmetatable, getmetatable, next
local concat, sort = table.concat, table.sort
local rawsetfenv, libraryUtil = lib.rawsetfenv, lib.libraryUtil
local function host(op, ...)
	return iface.host(op, ...)
end
lib.host = host

local mw = {}
_G.mw = mw

-- mw.clone: a deep copy keeping metatables and shared references.
function mw.clone(v)
	local seen = {}
	local function copy(x)
		if type(x) ~= 'table' then
			return x
		end
		if seen[x] then
			return seen[x]
		end
		local c = {}
		seen[x] = c
		for k, val in next, x do
			c[copy(k)] = copy(val)
		end
		-- The metatable is copied too, as Scribunto does.
		setmetatable(c, copy(getmetatable(x)))
		return c
	end
	return copy(v)
end

function mw.log() end
function mw.logObject() end
function mw.addWarning(text)
	if type(text) ~= 'string' and type(text) ~= 'number' then
		error("bad argument #1 to 'addWarning' (string expected)", 2)
	end
end
function mw.isSubsting()
	return false
end
function mw.incrementExpensiveFunctionCount()
	local ok, err = host('expensive')
	if not ok then
		error(err, 2)
	end
end

function mw.dumpObject(o)
	local seen = {}
	local function dump(x, indent)
		if type(x) == 'string' then
			return string.format('%q', x)
		elseif type(x) ~= 'table' then
			return tostring(x)
		end
		if seen[x] then
			return 'table (recursion)'
		end
		seen[x] = true
		local keys = {}
		for k in next, x do
			keys[#keys + 1] = k
		end
		sort(keys, function(a, b)
			if type(a) == type(b) and (type(a) == 'number' or type(a) == 'string') then
				return a < b
			end
			return type(a) < type(b)
		end)
		local parts = { 'table {\n' }
		for _, k in ipairs(keys) do
			parts[#parts + 1] = indent .. '  [' .. dump(k, indent .. '  ') .. '] = '
				.. dump(x[k], indent .. '  ') .. ',\n'
		end
		parts[#parts + 1] = indent .. '}'
		return concat(parts)
	end
	return dump(o, '')
end

function mw.allToString(...)
	local t = {}
	for i = 1, select('#', ...) do
		t[i] = tostring((select(i, ...)))
	end
	return concat(t)
end

-- Modules: require / mw.loadData through the dump, one environment per #invoke.
local loadedData = {}
local baseGlobals = _G
local function loadChunk(name)
	local fn, t = host('loadModule', name)
	return fn, t
end
-- mw.loadData / mw.loadJsonData: a module's table (or a JSON page) loaded once per page,
-- checked to hold only plain data, and handed out through read-only views.
local dataErrors = {}
local function checkData(v, seen)
	local t = type(v)
	if t == 'nil' or t == 'boolean' or t == 'number' or t == 'string' then
		return nil
	elseif t ~= 'table' then
		return "data for mw.loadData contains unsupported data type '" .. t .. "'"
	end
	if seen[v] then
		return nil
	end
	seen[v] = true
	if getmetatable(v) ~= nil then
		return 'data for mw.loadData contains a table with a metatable'
	end
	for k, x in next, v do
		if type(k) == 'table' then
			return 'data for mw.loadData contains a table as a key'
		end
		local e = checkData(k, seen) or checkData(x, seen)
		if e then
			return e
		end
	end
	return nil
end

-- A read-only view of `data`: reads go through to it (tables as views of their own,
-- one per table and call of mw.loadData), writes raise, `pairs`/`ipairs` walk it; `#` is
-- 0, as in Scribunto. Every call gets views of its own, so that `rawset` on one leaves
-- the others alone, but the metatable and its functions are made once per page for each
-- table (`__index`, `__pairs` and `__ipairs` in C, `data_view.rs`; each view's `seen`
-- map found through the weak `viewSeen`): a cited article calls CS1, and so loads its configuration, dozens of
-- times, and each call reaches hundreds of its tables. The one difference a module can
-- see: two views of one table share their metatable within a page, so changing its
-- fields changes the other views too (and its functions accept any view of the table
-- where Scribunto's accept only their own).
local viewMts, viewSeen, readOnly
local viewFunctions, viewMaker = iface.viewFunctions, iface.viewMaker
local function viewMt(data, fname)
	local mt = viewMts[data]
	if mt then
		return mt
	end
	mt = { mw_loadData = true }
	local index, pairsFn, ipairsFn = viewFunctions(data, viewSeen, readOnly, fname)
	mt.__index = index
	mt.__newindex = function()
		error('table from ' .. fname .. ' is read-only', 2)
	end
	mt.__pairs = pairsFn
	mt.__ipairs = ipairsFn
	mt.__metatable = mt
	viewMts[data] = mt
	return mt
end
-- `readOnly(data, seen, fname)`: a view of `data` for the call whose views are `seen`
-- (in C, `data_view.rs`), made afresh with the page's maps.
local function resetViews()
	viewMts, viewSeen = {}, setmetatable({}, { __mode = 'k' })
	readOnly = viewMaker(viewSeen, viewMts, viewMt)
end
resetViews()

-- The data of `name` loaded once per page by `load` (which returns the table, or the
-- error message kept for every later call), as a read-only view.
local function notTable(name, v)
	return name .. ' returned ' .. type(v) .. ', table expected'
end
local function cachedData(cache, fname, name, load)
	if type(name) ~= 'string' then
		error("bad argument #1 to '" .. fname .. "' (string expected, got " .. type(name) .. ')', 3)
	end
	local data = cache[name]
	if data == nil then
		data = load()
		cache[name] = data
	end
	if type(data) == 'string' then
		error(data, 3)
	end
	return readOnly(data, nil, fname)
end

-- Tables loaded by earlier pages of this state whose loads read nothing of their page,
-- by module name: { table, id } (`shared_data.rs`). Never reset: a page that loads one
-- gets it without running the module, and is charged as if it had.
local sharedData = {}
-- Loads running: data read inside one (loaded before, or shared) makes it the page's own.
local loading = 0
local randomUses = lib.randomUses
local function loadData(name)
	if loading > 0 then
		host('dataTaint')
	end
	return cachedData(loadedData, 'mw.loadData', name, function()
		local shared = sharedData[name]
		if shared then
			host('dataReplay', shared[2])
			return shared[1]
		end
		local mark, uses = host('dataBegin'), randomUses()
		loading = loading + 1
		local fn = loadChunk(name)
		if not fn then
			loading = loading - 1
			error("module '" .. name .. "' not found", 4)
		end
		rawsetfenv(fn, lib.cloneEnv())
		-- An error here leaves the count up for the rest of the page: later loads then
		-- only taint the loads around them, which are kept for their page alone.
		local data = fn()
		loading = loading - 1
		if type(data) == 'table' then
			data = checkData(data, {}) or data
		else
			data = notTable(name, data)
		end
		local id = host('dataEnd', mark, type(data) == 'table' and randomUses() == uses)
		if id then
			sharedData[name] = { data, id }
		end
		return data
	end)
end

local loadedJson = {}
lib.pageResets[#lib.pageResets + 1] = function()
	loadedData, loadedJson, loading = {}, {}, 0
	resetViews()
end
local function loadJsonData(name)
	if loading > 0 then
		host('dataTaint')
	end
	if type(name) ~= 'string' then
		-- Scribunto names the type of `arg`, a global that is always nil in a module.
		error("bad argument #1 to 'mw.loadJsonData' (string expected, got nil)", 2)
	end
	return cachedData(loadedJson, 'mw.loadJsonData', name, function()
		local data, err = host('loadJsonData', name)
		if err then
			error(err, 4)
		end
		return type(data) == 'table' and data or notTable(name, data)
	end)
end

local cloneTable = iface.cloneTable
local function cloneEnv()
	local env = {}
	for k, v in next, baseGlobals do
		if type(v) == 'table' and k ~= '_G' then
			env[k] = cloneTable(v) or mw.clone(v)
		else
			env[k] = v
		end
	end
	env._G = env
	local loaded = {
		libraryUtil = libraryUtil, ustring = env.mw.ustring,
		string = env.string, table = env.table, math = env.math, os = env.os, mw = env.mw,
		coroutine = env.coroutine, _G = env,
	}
	env.package = { loaded = loaded, preload = {} }
	loaded.package = env.package
	local loading = {}
	env.require = function(name)
		if type(name) ~= 'string' then
			error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ')', 2)
		end
		if loaded[name] ~= nil then
			return loaded[name]
		end
		if name == 'strict' then
			-- Every global must exist before `require('strict')`; `arg` is exempt.
			local mt = getmetatable(env) or {}
			mt.__index = function(_, k)
				if k ~= 'arg' then
					error('variable \'' .. tostring(k) .. '\' is not declared', 2)
				end
			end
			mt.__newindex = function(t, k, v)
				if k ~= 'arg' then
					error('assign to undeclared variable \'' .. tostring(k) .. '\'', 2)
				end
				rawset(t, k, v)
			end
			setmetatable(env, mt)
			loaded[name] = true
			return true
		end
		local fn, key = loadChunk(name)
		if not fn then
			error("module '" .. name .. "' not found", 2)
		end
		if loading[key] then
			error("loop or previous error loading module '" .. name .. "'", 2)
		end
		loading[key] = true
		rawsetfenv(fn, env)
		local r = fn()
		loading[key] = nil
		if r == nil then
			r = true
		end
		loaded[name] = r
		return r
	end
	env.mw.loadData = loadData
	env.mw.loadJsonData = loadJsonData
	return env
end
lib.cloneEnv = cloneEnv
