-- mw.ustring: strings as code points, with patterns whose classes are Unicode's; the
-- work is done in Rust (`ustring.rs`, `pattern.rs`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.ustring` holds the Rust functions; sets
-- `lib.ucheck`, the string-argument check other libraries share.
local iface, _, lib = ...
local type, error, select = type, error, select
local u = iface.ustring
local checkType = lib.libraryUtil.checkType
local mw = mw

local ustring = {}
mw.ustring = ustring
ustring.maxPatternLength = 10000
ustring.maxStringLength = 2097152
local function ucheck(name, s)
	local t = type(s)
	if t == 'number' then
		return tostring(s)
	elseif t ~= 'string' then
		error(string.format("bad argument #1 to '%s' (string expected, got %s)", name, t), 3)
	end
	return s
end
-- The functions answer `(true, results...)` or `(false, message)`: Scribunto runs them
-- in PHP, whose errors reach Lua as the bare message, without a position.
local function answer(ok, ...)
	if ok then
		return ...
	end
	error((...), 0)
end
-- Scribunto counts the arguments in Lua before calling PHP.
local function bind(name, least)
	local f = u[name]
	return function(...)
		if select('#', ...) < least then
			error('too few arguments to mw.ustring.' .. name, 2)
		end
		return answer(f(...))
	end
end
for _, name in ipairs({ 'len', 'sub', 'upper', 'lower', 'codepoint', 'isutf8', 'byteoffset',
	'toNFC', 'toNFD', 'toNFKC', 'toNFKD' }) do
	ustring[name] = bind(name, 1)
end
ustring.find = bind('find', 2)
ustring.match = bind('match', 2)
ustring.gsub = bind('gsub', 3)
function ustring.char(...)
	return answer(u.char(...))
end
ustring.uc = ustring.upper
ustring.lc = ustring.lower
ustring.byte = string.byte
ustring.format = string.format
ustring.rep = string.rep
-- Subject and pattern are checked once, when the iterator is made.
function ustring.gmatch(s, pattern)
	checkType('gmatch', 1, s, 'string')
	checkType('gmatch', 2, pattern, 'string')
	s, pattern = answer(u.gmatch_init(s, pattern))
	local pos = 1
	local function step(ok, ...)
		if not ok then
			error((...), 0)
		elseif select('#', ...) == 0 then
			pos = nil
			return nil
		end
		pos = (...)
		return select(2, ...)
	end
	return function()
		if pos == nil then
			return nil
		end
		return step(u.gmatch(s, pattern, pos))
	end, nil, nil
end
function ustring.gcodepoint(s, i, j)
	checkType('gcodepoint', 1, s, 'string')
	checkType('gcodepoint', 2, i, 'number', true)
	checkType('gcodepoint', 3, j, 'number', true)
	local cps = answer(u.gcodepoint_init(s, i, j or -1))
	local k = 0
	return function()
		k = k + 1
		return cps[k]
	end
end
lib.ucheck = ucheck
