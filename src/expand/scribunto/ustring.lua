-- mw.ustring: strings as code points, with patterns whose classes are Unicode's; the
-- work is done in Rust (`ustring.rs`, `pattern.rs`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.ustring` holds the Rust functions; sets
-- `lib.ucheck`, the string-argument check other libraries share.
local iface, _, lib = ...
local type, error = type, error
local u = iface.ustring
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
local function wrap(name, f)
	return function(s, ...)
		return f(ucheck(name, s), ...)
	end
end
ustring.len = wrap('len', u.len)
ustring.sub = wrap('sub', u.sub)
ustring.upper = wrap('upper', u.upper)
ustring.lower = wrap('lower', u.lower)
ustring.uc = ustring.upper
ustring.lc = ustring.lower
ustring.codepoint = wrap('codepoint', u.codepoint)
ustring.char = u.char
ustring.byte = string.byte
ustring.format = string.format
ustring.rep = string.rep
ustring.isutf8 = u.isutf8
ustring.toNFC = wrap('toNFC', u.toNFC)
ustring.toNFD = wrap('toNFD', u.toNFD)
ustring.toNFKC = wrap('toNFKC', u.toNFKC)
ustring.toNFKD = wrap('toNFKD', u.toNFKD)
ustring.byteoffset = wrap('byteoffset', u.byteoffset)
local function ucall(name, f, s, ...)
	local r = { f(ucheck(name, s), ...) }
	if r[1] == nil and r[2] ~= nil then
		error(r[2], 3)
	end
	return unpack(r, 2, r[1])
end
function ustring.find(s, pattern, init, plain)
	return ucall('find', u.find, s, tostring(pattern), init, plain)
end
function ustring.match(s, pattern, init)
	return ucall('match', u.match, s, tostring(pattern), init)
end
function ustring.gsub(s, pattern, repl, n)
	return ucall('gsub', u.gsub, s, tostring(pattern), repl, n)
end
function ustring.gmatch(s, pattern)
	s = ucheck('gmatch', s)
	pattern = tostring(pattern)
	local pos = 1
	return function()
		if pos == nil then
			return nil
		end
		local r = { u.gmatch(s, pattern, pos) }
		if r[1] == nil then
			if r[2] ~= nil then
				error(r[2], 2)
			end
			pos = nil
			return nil
		end
		pos = r[2]
		return unpack(r, 3, r[1])
	end
end
function ustring.gcodepoint(s, i, j)
	local cps = { ustring.codepoint(s, i or 1, j or -1) }
	local k = 0
	return function()
		k = k + 1
		return cps[k]
	end
end
lib.ucheck = ucheck
