-- The start of a new page in a Lua state that served other pages before (the build keeps
-- one state per worker thread, so the library is loaded and modules compiled once).
-- What a page could leave behind is put back as a fresh state has it: every table the
-- library can reach from its globals and from `lib` (and the metatables of its objects)
-- gets its own fields and metatable back, and each library's page state (the random
-- generator, `mw.loadData`'s tables, the frames) is reset by the function it gave
-- `lib.onNewPage`. Loaded last, when the library is complete.
-- Called with (iface, site, lib); sets `iface.newPage`.
local iface, _, lib = ...
local type, next, pcall, rawset, setmetatable = type, next, pcall, rawset, setmetatable
local rawgetmetatable = lib.rawgetmetatable

-- Each reachable table with a copy of its fields and its metatable, in a list (so that
-- restoring runs in the same order every time).
local saved = {}
local seen = {}
local function snapshot(t)
	if type(t) ~= 'table' or seen[t] then
		return
	end
	seen[t] = true
	local fields = {}
	for k, v in next, t do
		fields[k] = v
	end
	local mt = rawgetmetatable(t)
	saved[#saved + 1] = { t, fields, mt }
	for k, v in next, fields do
		snapshot(k)
		snapshot(v)
	end
	snapshot(mt)
end
-- Objects' metatables, which modules reach through `getmetatable` of an object; those
-- that need the expander to be made (titles, messages) cannot be made here. Made first,
-- so that what making them leaves in the library is part of the copy.
local objects = {}
for _, make in next, {
	function() return mw.html.create() end,
	function() return mw.uri.new('//example.org/') end,
	function() return mw.language.new('en') end,
	function() return mw.message.newRawMessage('x') end,
} do
	local ok, obj = pcall(make)
	if ok then
		objects[#objects + 1] = rawgetmetatable(obj)
	end
end
snapshot(_G)
snapshot(lib)
for i = 1, #objects do
	snapshot(objects[i])
end
seen = nil

local resets = lib.pageResets
-- Returns false when a table could not be put back (a module gave it a protected
-- metatable): the state is then not reused.
iface.newPage = function()
	local clean = true
	for i = 1, #saved do
		local t, fields, mt = saved[i][1], saved[i][2], saved[i][3]
		local extra = {}
		for k in next, t do
			if fields[k] == nil then
				extra[#extra + 1] = k
			end
		end
		for j = 1, #extra do
			rawset(t, extra[j], nil)
		end
		for k, v in next, fields do
			rawset(t, k, v)
		end
		if rawgetmetatable(t) ~= mt then
			clean = pcall(setmetatable, t, mt) and clean
		end
	end
	for i = 1, #resets do
		resets[i]()
	end
	return clean
end
