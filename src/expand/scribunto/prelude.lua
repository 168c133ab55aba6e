-- wikiwit's Scribunto environment: the `mw` library and the sandbox, written for
-- wikiwit from the Scribunto Lua reference manual (not derived from Scribunto's code).
-- Called once per Lua state with (iface, site): `iface.host(op, ...)` reaches the
-- expander (replaced on each #invoke), `iface.u` holds the Rust string functions.
local iface, site = ...
local u = iface.u
local function host(op, ...)
	return iface.host(op, ...)
end
local rawsetfenv, rawloadstring, rawtostring, rawpairs, rawipairs =
	setfenv, loadstring, tostring, pairs, ipairs
local type, error, select, tonumber, setmetatable, getmetatable, rawget, rawset, next =
	type, error, select, tonumber, setmetatable, getmetatable, rawget, rawset, next
local concat, insert, sort, floor = table.concat, table.insert, table.sort, math.floor

-- Sandbox: nothing that reaches files, processes, the clock or bytecode.
dofile, loadfile, load, print, collectgarbage, gcinfo, module, newproxy =
	nil, nil, nil, nil, nil, nil, nil, nil
getfenv, setfenv = nil, nil
string.dump = nil
function loadstring(s, name)
	if type(s) ~= 'string' then
		error('bad argument #1 to \'loadstring\' (string expected)', 2)
	end
	if s:sub(1, 1) == '\27' then
		return nil, 'loading binary chunks is not allowed'
	end
	return rawloadstring(s, name)
end
-- Addresses differ from run to run: never print them.
function tostring(v)
	local t = type(v)
	if t == 'table' or t == 'function' or t == 'userdata' or t == 'thread' then
		local mt = getmetatable(v)
		if type(mt) == 'table' and rawget(mt, '__tostring') then
			return rawtostring(v)
		end
		return t
	end
	return rawtostring(v)
end
function pairs(t)
	local mt = getmetatable(t)
	if type(mt) == 'table' and rawget(mt, '__pairs') then
		return mt.__pairs(t)
	end
	return rawpairs(t)
end
function ipairs(t)
	local mt = getmetatable(t)
	if type(mt) == 'table' and rawget(mt, '__ipairs') then
		return mt.__ipairs(t)
	end
	return rawipairs(t)
end

-- As LuaSandbox does, pcall and xpcall do not catch the end of the time budget:
-- otherwise a loop around pcall would run for ever.
do
	local rawpcall, rawxpcall, expired = pcall, xpcall, u.expired
	local function rethrow(ok, ...)
		if not ok and expired() then
			error((...), 0)
		end
		return ok, ...
	end
	function pcall(f, ...)
		return rethrow(rawpcall(f, ...))
	end
	function xpcall(f, handler)
		return rethrow(rawxpcall(f, function(e)
			if expired() then
				return e
			end
			return handler(e)
		end))
	end
end

-- math.random from C shares one generator across threads: a seeded LCG instead.
do
	local seed = 1
	function math.randomseed(s)
		seed = floor(tonumber(s) or 0) % 2147483648
	end
	function math.random(m, n)
		seed = (1103515245 * seed + 12345) % 2147483648
		local r = seed / 2147483648
		if m == nil then
			return r
		end
		if n == nil then
			m, n = 1, m
		end
		if m > n then
			error('bad argument to \'random\' (interval is empty)', 2)
		end
		return m + floor(r * (n - m + 1))
	end
end

-- os: only the pinned clock.
do
	local now = site.now
	local function civil(days)
		local z = days + 719468
		local era = floor(z / 146097)
		local doe = z - era * 146097
		local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
		local y = yoe + era * 400
		local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
		local mp = floor((5 * doy + 2) / 153)
		local d = doy - floor((153 * mp + 2) / 5) + 1
		local m = mp < 10 and mp + 3 or mp - 9
		if m <= 2 then
			y = y + 1
		end
		return y, m, d
	end
	local function days_from_civil(y, m, d)
		if m <= 2 then
			y = y - 1
		end
		local era = floor(y / 400)
		local yoe = y - era * 400
		local mp = (m + 9) % 12
		local doy = floor((153 * mp + 2) / 5) + d - 1
		local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
		return era * 146097 + doe - 719468
	end
	local function fields(t)
		local days = floor(t / 86400)
		local secs = t - days * 86400
		local y, m, d = civil(days)
		local jan1 = days_from_civil(y, 1, 1)
		return {
			year = y, month = m, day = d,
			hour = floor(secs / 3600), min = floor(secs / 60) % 60, sec = secs % 60,
			wday = (days + 4) % 7 + 1, yday = days - jan1 + 1, isdst = false,
		}
	end
	local MONTHS = { 'January', 'February', 'March', 'April', 'May', 'June', 'July',
		'August', 'September', 'October', 'November', 'December' }
	local DAYS = { 'Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday' }
	local function two(n)
		return string.format('%02d', n)
	end
	os = {}
	function os.time(t)
		if t == nil then
			return now
		end
		if type(t) ~= 'table' then
			error('bad argument #1 to \'time\' (table expected)', 2)
		end
		local function f(k, d)
			local v = t[k]
			if v == nil then
				if d == nil then
					error('field \'' .. k .. '\' missing in date table', 3)
				end
				return d
			end
			return floor(tonumber(v) or 0)
		end
		return days_from_civil(f('year'), f('month'), 1) * 86400 + (f('day') - 1) * 86400
			+ f('hour', 12) * 3600 + f('min', 0) * 60 + f('sec', 0)
	end
	function os.clock()
		return 0
	end
	function os.difftime(a, b)
		return (tonumber(a) or 0) - (tonumber(b) or 0)
	end
	function os.date(format, t)
		format = format or '%c'
		t = t or now
		if format:sub(1, 1) == '!' then
			format = format:sub(2)
		end
		local f = fields(t)
		if format == '*t' then
			return f
		end
		return (format:gsub('%%(.)', function(c)
			if c == 'Y' then return tostring(f.year)
			elseif c == 'y' then return two(f.year % 100)
			elseif c == 'm' then return two(f.month)
			elseif c == 'd' then return two(f.day)
			elseif c == 'H' then return two(f.hour)
			elseif c == 'I' then return two((f.hour + 11) % 12 + 1)
			elseif c == 'M' then return two(f.min)
			elseif c == 'S' then return two(f.sec)
			elseif c == 'p' then return f.hour < 12 and 'AM' or 'PM'
			elseif c == 'B' then return MONTHS[f.month]
			elseif c == 'b' then return MONTHS[f.month]:sub(1, 3)
			elseif c == 'A' then return DAYS[f.wday]
			elseif c == 'a' then return DAYS[f.wday]:sub(1, 3)
			elseif c == 'j' then return string.format('%03d', f.yday)
			elseif c == 'w' then return tostring(f.wday - 1)
			elseif c == 'c' then
				return string.format('%s %s %2d %s:%s:%s %d', DAYS[f.wday]:sub(1, 3),
					MONTHS[f.month]:sub(1, 3), f.day, two(f.hour), two(f.min), two(f.sec), f.year)
			elseif c == 'x' then return two(f.month) .. '/' .. two(f.day) .. '/' .. two(f.year % 100)
			elseif c == 'X' then return two(f.hour) .. ':' .. two(f.min) .. ':' .. two(f.sec)
			elseif c == '%' then return '%'
			end
			return '%' .. c
		end))
	end
end

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
		setmetatable(c, getmetatable(x))
		return c
	end
	return copy(v)
end

function mw.log() end
function mw.logObject() end
function mw.addWarning() end
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

---------------------------------------------------------------------------
-- libraryUtil
local libraryUtil = {}
do
	local function typeError(name, argIdx, expect, got, level)
		error(string.format("bad argument #%d to '%s' (%s expected, got %s)", argIdx, name,
			expect, got), level + 1)
	end
	function libraryUtil.checkType(name, argIdx, arg, expectType, nilOk)
		if arg == nil and nilOk then
			return
		end
		if type(arg) ~= expectType then
			typeError(name, argIdx, expectType, type(arg), 3)
		end
	end
	function libraryUtil.checkTypeMulti(name, argIdx, arg, expectTypes)
		local t = type(arg)
		for _, e in ipairs(expectTypes) do
			if t == e then
				return
			end
		end
		local n = #expectTypes
		local expect = n > 1 and (concat(expectTypes, ', ', 1, n - 1) .. ' or ' .. expectTypes[n])
			or tostring(expectTypes[1])
		typeError(name, argIdx, expect, t, 3)
	end
	function libraryUtil.checkTypeForIndex(index, value, expectType)
		if type(value) ~= expectType then
			error(string.format("value for index '%s' must be %s, %s given", tostring(index),
				expectType, type(value)), 3)
		end
	end
	function libraryUtil.checkTypeForNamedArg(name, argName, arg, expectType, nilOk)
		if arg == nil and nilOk then
			return
		end
		if type(arg) ~= expectType then
			error(string.format("bad named argument %s to '%s' (%s expected, got %s)", argName,
				name, expectType, type(arg)), 3)
		end
	end
	function libraryUtil.makeCheckSelfFunction(libraryName, varName, selfObj, selfObjDesc)
		return function(self, method)
			if self ~= selfObj then
				error(string.format("%s: invalid %s. Did you call %s with a dot instead of a colon, i.e. %s.%s() instead of %s:%s()?",
					libraryName, selfObjDesc, method, varName, method, varName, method), 3)
			end
		end
	end
end
local checkType = libraryUtil.checkType

---------------------------------------------------------------------------
-- mw.ustring: code points, Rust-side patterns with Unicode classes.
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

---------------------------------------------------------------------------
-- mw.text
local text = {}
mw.text = text
function text.trim(s, charset)
	s = ucheck('trim', s)
	if charset == nil then
		return (s:match('^[\t\r\n\f ]*(.-)[\t\r\n\f ]*$'))
	end
	return (ustring.gsub(ustring.gsub(s, '^[' .. charset .. ']+', ''), '[' .. charset .. ']+$', ''))
end
function text.split(s, pattern, plain)
	local out = {}
	for piece in text.gsplit(s, pattern, plain) do
		out[#out + 1] = piece
	end
	return out
end
function text.gsplit(s, pattern, plain)
	s = ucheck('gsplit', s)
	local pos, len, done = 1, ustring.len(s), false
	return function()
		if done then
			return nil
		end
		local a, b = ustring.find(s, pattern, pos, plain)
		if a == nil or a > len then
			done = true
			return ustring.sub(s, pos)
		end
		if b < a then
			-- An empty match splits off one character.
			if a > len then
				done = true
				return ustring.sub(s, pos)
			end
			local piece = ustring.sub(s, pos, a)
			pos = a + 1
			if pos > len then
				done = true
			end
			return piece
		end
		local piece = ustring.sub(s, pos, a - 1)
		pos = b + 1
		return piece
	end
end
-- The content language's separators (MediaWiki's `comma-separator`, and `and` followed
-- by `word-separator`).
function text.listToText(list, separator, conjunction)
	separator = separator or site.separators.comma
	conjunction = conjunction or site.separators.conjunction
	local n = #list
	if n == 0 then
		return ''
	elseif n == 1 then
		return tostring(list[1])
	end
	return concat(list, separator, 1, n - 1) .. conjunction .. tostring(list[n])
end
local NOWIKI = {
	['"'] = '&#34;', ['&'] = '&#38;', ["'"] = '&#39;', ['<'] = '&#60;', ['='] = '&#61;',
	['>'] = '&#62;', ['['] = '&#91;', [']'] = '&#93;', ['{'] = '&#123;', ['|'] = '&#124;',
	['}'] = '&#125;', [';'] = '&#59;',
}
function text.nowiki(s)
	s = ucheck('nowiki', s)
	s = s:gsub('["&\'<=>%[%]{|};]', NOWIKI)
	s = ('\n' .. s):gsub('\n([#*:])', function(c)
		return '\n' .. string.format('&#%d;', c:byte())
	end):sub(2)
	s = s:gsub('\n\n', '\n&#10;'):gsub('\r\n', '&#13;\n'):gsub('^\n', '&#10;')
	s = ('\n' .. s):gsub('\n%-%-%-%-', '\n&#45;---'):sub(2)
	s = ('\n' .. s):gsub('\n ', '\n&#32;'):sub(2)
	s = s:gsub('__', '_&#95;'):gsub('://', '&#58;//')
	for _, w in ipairs({ 'ISBN', 'RFC', 'PMID' }) do
		s = s:gsub(w .. '([\t\n\f\r ])', function(c)
			return w .. string.format('&#%d;', c:byte())
		end)
	end
	return s
end
local ENCODE = { ['<'] = '&lt;', ['>'] = '&gt;', ['&'] = '&amp;', ['"'] = '&quot;',
	["'"] = '&#039;', ['\194\160'] = '&nbsp;' }
function text.encode(s, charset)
	s = ucheck('encode', s)
	if charset == nil then
		return (s:gsub('\194\160', ENCODE):gsub('[<>&"\']', ENCODE))
	end
	return (ustring.gsub(s, '[' .. charset .. ']', function(c)
		return ENCODE[c] or string.format('&#%d;', ustring.codepoint(c))
	end))
end
function text.decode(s, decodeNamedEntities)
	return (u.decode(ucheck('decode', s), decodeNamedEntities and true or false))
end
function text.tag(name, attrs, content)
	if type(name) == 'table' then
		name, attrs, content = name.name, name.attrs, name.content
	end
	local out = { '<' .. name }
	if attrs then
		local keys = {}
		for k in pairs(attrs) do
			keys[#keys + 1] = k
		end
		sort(keys, function(a, b)
			return tostring(a) < tostring(b)
		end)
		for _, k in ipairs(keys) do
			local v = attrs[k]
			if v == true then
				out[#out + 1] = ' ' .. k
			elseif v ~= false and v ~= nil then
				out[#out + 1] = ' ' .. k .. '="' .. text.encode(tostring(v), '<>&"') .. '"'
			end
		end
	end
	if content == false then
		out[#out + 1] = ' />'
	else
		out[#out + 1] = '>'
		if content ~= nil then
			out[#out + 1] = tostring(content) .. '</' .. name .. '>'
		end
	end
	return concat(out)
end
function text.truncate(s, length, ellipsis, adjustLength)
	s = ucheck('truncate', s)
	ellipsis = ellipsis or '…'
	local len = ustring.len(s)
	if length == nil or math.abs(length) >= len then
		return s
	end
	local elen = adjustLength and ustring.len(ellipsis) or 0
	if length >= 0 then
		local keep = length - elen
		if keep <= 0 then
			return ellipsis
		end
		return ustring.sub(s, 1, keep) .. ellipsis
	end
	local keep = -length - elen
	if keep <= 0 then
		return ellipsis
	end
	return ellipsis .. ustring.sub(s, -keep)
end
function text.killMarkers(s)
	return (ucheck('killMarkers', s):gsub('\127\'"`UNIQ%-.-%-QINU`"\'\127', ''))
end
text.unstrip = text.killMarkers
text.unstripNoWiki = function(s)
	return s
end
local jsonDecode = iface.jsonDecode
function text.jsonDecode(s, flags)
	checkType('mw.text.jsonDecode', 1, s, 'string')
	local v, err = jsonDecode(s)
	if err then
		error('mw.text.jsonDecode: ' .. err, 2)
	end
	return v
end
function text.jsonEncode(v)
	local function enc(x)
		local t = type(x)
		if t == 'nil' then
			return 'null'
		elseif t == 'boolean' then
			return tostring(x)
		elseif t == 'number' then
			if x ~= x or x == math.huge or x == -math.huge then
				error('mw.text.jsonEncode: cannot encode non-finite numbers', 3)
			end
			if x == floor(x) and math.abs(x) < 1e15 then
				return string.format('%d', x)
			end
			return string.format('%.14g', x)
		elseif t == 'string' then
			return '"' .. x:gsub('[%c"\\]', function(c)
				local m = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t', ['\r'] = '\\r' }
				return m[c] or string.format('\\u%04x', c:byte())
			end) .. '"'
		elseif t == 'table' then
			local n = #x
			local isArray = next(x) == nil or n > 0
			if isArray then
				local parts = {}
				for i = 1, n do
					parts[i] = enc(x[i])
				end
				return '[' .. concat(parts, ',') .. ']'
			end
			local keys = {}
			for k in pairs(x) do
				keys[#keys + 1] = tostring(k)
			end
			sort(keys)
			local parts = {}
			for _, k in ipairs(keys) do
				local val = x[k]
				if val == nil then
					val = x[tonumber(k)]
				end
				parts[#parts + 1] = enc(k) .. ':' .. enc(val)
			end
			return '{' .. concat(parts, ',') .. '}'
		end
		error('mw.text.jsonEncode: cannot encode type ' .. t, 3)
	end
	return enc(v)
end

---------------------------------------------------------------------------
-- mw.html
do
	local HtmlBuilder = {}
	HtmlBuilder.__index = HtmlBuilder
	local SELF_CLOSING = {
		area = true, base = true, br = true, col = true, command = true, embed = true,
		hr = true, img = true, input = true, keygen = true, link = true, meta = true,
		param = true, source = true, track = true, wbr = true,
	}
	local function esc(s)
		return (s:gsub('[&<>"]', { ['&'] = '&amp;', ['<'] = '&lt;', ['>'] = '&gt;', ['"'] = '&quot;' }))
	end
	local function new(tagName, args, parent)
		args = args or {}
		local b = setmetatable({
			nodes = {}, attributes = {}, styles = {}, tagName = tagName, parent = parent,
			selfClosing = tagName ~= nil and (SELF_CLOSING[tagName] or args.selfClosing) or false,
		}, HtmlBuilder)
		return b
	end
	HtmlBuilder.__tostring = function(b)
		return b:_build({})
	end
	function HtmlBuilder:_build(out)
		local buf = {}
		if self.tagName then
			buf[#buf + 1] = '<' .. self.tagName
			for _, a in ipairs(self.attributes) do
				buf[#buf + 1] = ' ' .. a.name .. '="' .. esc(a.val) .. '"'
			end
			if #self.styles > 0 then
				local css = {}
				for _, st in ipairs(self.styles) do
					if type(st) == 'string' then
						css[#css + 1] = st
					else
						css[#css + 1] = st.name .. ':' .. st.val
					end
				end
				-- Joined, not terminated: Scribunto writes `a:1;b:2`.
				buf[#buf + 1] = ' style="' .. esc(concat(css, ';')) .. '"'
			end
			if self.selfClosing then
				buf[#buf + 1] = ' />'
			else
				buf[#buf + 1] = '>'
			end
		end
		for _, n in ipairs(self.nodes) do
			if type(n) == 'table' then
				buf[#buf + 1] = tostring(n)
			else
				buf[#buf + 1] = n
			end
		end
		if self.tagName and not self.selfClosing then
			buf[#buf + 1] = '</' .. self.tagName .. '>'
		end
		return concat(buf)
	end
	function HtmlBuilder:node(b)
		if b ~= nil then
			if type(b) == 'table' and getmetatable(b) == HtmlBuilder then
				b.parent = self
			end
			self.nodes[#self.nodes + 1] = b
		end
		return self
	end
	function HtmlBuilder:wikitext(...)
		for i = 1, select('#', ...) do
			local w = select(i, ...)
			if w == nil then
				break
			end
			local t = type(w)
			if t ~= 'string' and t ~= 'number' then
				error(string.format("bad argument #%d to 'wikitext' (string or number expected, got %s)", i, t), 2)
			end
			self.nodes[#self.nodes + 1] = tostring(w)
		end
		return self
	end
	function HtmlBuilder:newline()
		self.nodes[#self.nodes + 1] = '\n'
		return self
	end
	function HtmlBuilder:tag(tagName, args)
		local child = new(tagName, args, self)
		self.nodes[#self.nodes + 1] = child
		return child
	end
	function HtmlBuilder:getAttr(name)
		for _, a in ipairs(self.attributes) do
			if a.name == name then
				return a.val
			end
		end
	end
	function HtmlBuilder:attr(name, val)
		if type(name) == 'table' then
			if val ~= nil then
				error("bad argument #2 to 'attr' (if argument #1 is a table, argument #2 must be left empty)", 2)
			end
			local keys = {}
			for k in pairs(name) do
				keys[#keys + 1] = k
			end
			for _, k in ipairs(keys) do
				self:attr(k, name[k])
			end
			return self
		end
		if type(name) ~= 'string' and type(name) ~= 'number' then
			error("bad argument #1 to 'attr' (string or number expected, got " .. type(name) .. ')', 2)
		end
		name = tostring(name)
		if val ~= nil and type(val) ~= 'string' and type(val) ~= 'number' then
			error("bad argument #2 to 'attr' (string, number or nil expected, got " .. type(val) .. ')', 2)
		end
		if name == 'style' then
			self.styles = { val }
			return self
		end
		for i, a in ipairs(self.attributes) do
			if a.name == name then
				if val == nil then
					table.remove(self.attributes, i)
				else
					a.val = tostring(val)
				end
				return self
			end
		end
		if val ~= nil then
			self.attributes[#self.attributes + 1] = { name = name, val = tostring(val) }
		end
		return self
	end
	function HtmlBuilder:addClass(class)
		if class == nil then
			return self
		end
		if type(class) ~= 'string' and type(class) ~= 'number' then
			error("bad argument #1 to 'addClass' (string, number or nil expected, got " .. type(class) .. ')', 2)
		end
		local classes = {}
		local existing = self:getAttr('class')
		if existing then
			for c in existing:gmatch('%S+') do
				classes[#classes + 1] = c
			end
		end
		for c in tostring(class):gmatch('%S+') do
			local found = false
			for _, e in ipairs(classes) do
				if e == c then
					found = true
				end
			end
			if not found then
				classes[#classes + 1] = c
			end
		end
		return self:attr('class', concat(classes, ' '))
	end
	function HtmlBuilder:css(name, val)
		if type(name) == 'table' then
			for k, v in pairs(name) do
				self:css(k, v)
			end
			return self
		end
		if type(name) ~= 'string' and type(name) ~= 'number' then
			error("bad argument #1 to 'css' (string or number expected, got " .. type(name) .. ')', 2)
		end
		name = tostring(name)
		for i, st in ipairs(self.styles) do
			if type(st) == 'table' and st.name == name then
				if val == nil then
					table.remove(self.styles, i)
				else
					st.val = tostring(val)
				end
				return self
			end
		end
		if val ~= nil then
			self.styles[#self.styles + 1] = { name = name, val = tostring(val) }
		end
		return self
	end
	function HtmlBuilder:cssText(css)
		if css ~= nil then
			-- Kept as written, a trailing `;` too: styles are joined with `;`.
			css = tostring(css)
			if css ~= '' then
				self.styles[#self.styles + 1] = css
			end
		end
		return self
	end
	function HtmlBuilder:done()
		return self.parent or self
	end
	function HtmlBuilder:allDone()
		local b = self
		while b.parent do
			b = b.parent
		end
		return b
	end
	mw.html = {}
	function mw.html.create(tagName, args)
		if tagName ~= nil and type(tagName) ~= 'string' then
			error("bad argument #1 to 'mw.html.create' (string or nil expected, got " .. type(tagName) .. ')', 2)
		end
		return new(tagName, args)
	end
end

---------------------------------------------------------------------------
-- mw.site
do
	local s = {
		siteName = site.sitename, server = site.server, scriptPath = site.scriptPath,
		stylePath = site.scriptPath .. '/skins', currentVersion = '1.39.0',
		stats = {
			pages = site.stats.pages, articles = site.stats.articles, files = site.stats.files,
			edits = site.stats.edits, users = site.stats.users, activeUsers = site.stats.activeUsers,
			admins = site.stats.admins,
		},
		interwikiMap = function()
			return {}
		end,
	}
	function s.stats.pagesInCategory()
		return 0
	end
	function s.stats.pagesInNamespace()
		return 0
	end
	function s.stats.usersInGroup()
		return 0
	end
	local namespaces, byName = {}, {}
	local function norm(n)
		return (ustring.lower(tostring(n)):gsub('[_ ]+', ' '))
	end
	for _, n in ipairs(site.namespaces) do
		local ns = {
			id = n.id, name = n.name, canonicalName = n.canonicalName,
			displayName = n.name, aliases = n.aliases or {},
			hasSubpages = n.hasSubpages, hasGenderDistinction = n.id == 2 or n.id == 3,
			isCapitalized = n.isCapitalized, isContent = n.id == 0, isIncludable = true,
			isMovable = n.id >= 0, isSubject = n.id < 2 or n.id % 2 == 0,
			isTalk = n.id >= 0 and n.id % 2 == 1, defaultContentModel = nil,
		}
		namespaces[n.id] = ns
		byName[norm(n.name)] = ns
		byName[norm(n.canonicalName)] = ns
		for _, a in ipairs(ns.aliases) do
			byName[norm(a)] = ns
		end
	end
	for id, ns in pairs(namespaces) do
		if id >= 0 then
			ns.subject = namespaces[id - id % 2]
			ns.talk = namespaces[id - id % 2 + 1]
			ns.associated = ns.isTalk and ns.subject or ns.talk
		else
			ns.subject = ns
		end
	end
	setmetatable(namespaces, {
		__index = function(t, k)
			if type(k) == 'string' then
				local id = tonumber(k)
				if id then
					return rawget(t, id)
				end
				return byName[norm(k)]
			end
		end,
	})
	s.namespaces = namespaces
	s.contentNamespaces, s.subjectNamespaces, s.talkNamespaces = { [0] = namespaces[0] }, {}, {}
	setmetatable(s.contentNamespaces, getmetatable(namespaces))
	for id, ns in rawpairs(namespaces) do
		if ns.isSubject then
			s.subjectNamespaces[id] = ns
		end
		if ns.isTalk then
			s.talkNamespaces[id] = ns
		end
	end
	function s.matchNamespaceName(name)
		local ns = byName[norm(name)]
		return ns and ns.id
	end
	mw.site = s
end

---------------------------------------------------------------------------
-- mw.uri
do
	local uri = {}
	mw.uri = uri
	function uri.encode(s, enctype)
		s = ucheck('encode', s)
		enctype = enctype or 'QUERY'
		local keep = enctype == 'WIKI' and "[^%w%-%._~:/!$()*,;@]" or '[^%w%-%._~]'
		local out = s:gsub(keep, function(c)
			if c == ' ' and enctype == 'QUERY' then
				return '+'
			elseif c == ' ' and enctype == 'WIKI' then
				return '_'
			end
			return string.format('%%%02X', c:byte())
		end)
		return out
	end
	function uri.decode(s, enctype)
		s = ucheck('decode', s)
		if (enctype or 'QUERY') == 'QUERY' then
			s = s:gsub('%+', ' ')
		elseif enctype == 'WIKI' then
			s = s:gsub('_', ' ')
		end
		return (s:gsub('%%(%x%x)', function(h)
			return string.char(tonumber(h, 16))
		end))
	end
	function uri.anchorEncode(s)
		return host('callParserFunction', 0, 'anchorencode', { tostring(s) })
	end
	local function query(q)
		if type(q) == 'table' then
			local keys = {}
			for k in pairs(q) do
				keys[#keys + 1] = tostring(k)
			end
			sort(keys)
			local parts = {}
			for _, k in ipairs(keys) do
				local v = q[k]
				if v == nil then
					v = q[tonumber(k)]
				end
				if v == false then
					parts[#parts + 1] = uri.encode(k)
				else
					parts[#parts + 1] = uri.encode(k) .. '=' .. uri.encode(tostring(v))
				end
			end
			return concat(parts, '&')
		end
		return q
	end
	uri.buildQueryString = query
	local function url(kind, page, q)
		local fields = host('title', tostring(page), 0)
		if not fields then
			return nil
		end
		return host('url', kind, fields.prefixedText, query(q))
	end
	function uri.localUrl(page, q)
		return url('local', page, q)
	end
	function uri.fullUrl(page, q)
		return url('full', page, q)
	end
	function uri.canonicalUrl(page, q)
		return url('canonical', page, q)
	end
	local Uri = {}
	Uri.__index = Uri
	Uri.__tostring = function(self)
		return self.text
	end
	function uri.new(s)
		s = tostring(s or '')
		local o = setmetatable({ text = s }, Uri)
		o.protocol = s:match('^(%a[%w+.-]*):')
		local hostpart = s:match('^%a[%w+.-]*://([^/?#]*)') or s:match('^//([^/?#]*)')
		o.host = hostpart
		o.path = s:match('^[^:/]*://[^/]*(/[^?#]*)') or s:match('^(/[^?#]*)')
		o.query = {}
		o.fragment = s:match('#(.*)$')
		return o
	end
	function uri.validate()
		return true
	end
end

mw.ext = { ParserFunctions = {} }
function mw.ext.ParserFunctions.expr(e)
	local r, err = host('callParserFunction', 0, '#expr', { tostring(e) })
	if r == nil then
		error(err, 2)
	end
	return r
end

---------------------------------------------------------------------------
-- mw.language
do
	local Lang = {}
	Lang.__index = Lang
	local function newLang(code)
		return setmetatable({ code = code }, Lang)
	end
	function Lang:getCode()
		return self.code
	end
	function Lang:getFallbackLanguages()
		return {}
	end
	function Lang:isRTL()
		return false
	end
	function Lang:lc(s)
		return ustring.lower(s)
	end
	function Lang:uc(s)
		return ustring.upper(s)
	end
	function Lang:lcfirst(s)
		s = tostring(s)
		return ustring.lower(ustring.sub(s, 1, 1)) .. ustring.sub(s, 2)
	end
	function Lang:ucfirst(s)
		s = tostring(s)
		return ustring.upper(ustring.sub(s, 1, 1)) .. ustring.sub(s, 2)
	end
	function Lang:caseFold(s)
		return ustring.lower(s)
	end
	function Lang:formatNum(n, opts)
		local r = host('callParserFunction', 0, 'formatnum',
			{ tostring(n), (type(opts) == 'table' and opts.noCommafy) and 'NOSEP' or nil })
		return r
	end
	function Lang:parseFormattedNumber(s)
		return tonumber((tostring(s):gsub(',', '')))
	end
	function Lang:formatDate(format, timestamp, localTime)
		local args = { tostring(format) }
		if timestamp ~= nil then
			args[2] = tostring(timestamp)
		end
		local r = host('callParserFunction', 0, localTime and '#timel' or '#time', args)
		return r
	end
	function Lang:convertPlural(n, ...)
		local forms = ...
		if type(forms) ~= 'table' then
			forms = { ... }
		end
		local args = { tostring(n) }
		for i, f in ipairs(forms) do
			args[i + 1] = f
		end
		return host('callParserFunction', 0, 'plural', args)
	end
	Lang.plural = Lang.convertPlural
	function Lang:convertGrammar(word)
		return word
	end
	Lang.grammar = Lang.convertGrammar
	function Lang:gender(what, masc)
		return masc
	end
	function Lang:formatDuration(s)
		return tostring(s) .. ' seconds'
	end
	mw.language = {}
	local content = newLang(site.lang)
	function mw.language.getContentLanguage()
		return content
	end
	mw.getContentLanguage = mw.language.getContentLanguage
	mw.language.new = function(code)
		return newLang(tostring(code))
	end
	mw.getLanguage = mw.language.new
	function mw.language.fetchLanguageName()
		return ''
	end
	function mw.language.fetchLanguageNames()
		return {}
	end
	function mw.language.isKnownLanguageTag(code)
		return type(code) == 'string' and code:match('^%l%l%l?$') ~= nil
	end
	mw.language.isValidCode = mw.language.isKnownLanguageTag
	mw.language.isSupportedLanguage = mw.language.isKnownLanguageTag
	mw.language.isValidBuiltInCode = mw.language.isKnownLanguageTag
	function mw.language.getFallbacksFor()
		return {}
	end
end

---------------------------------------------------------------------------
-- mw.message (messages are not in the dump: raw messages only)
do
	local Msg = {}
	Msg.__index = Msg
	local function new(raw, key, params)
		return setmetatable({ raw = raw, key = key, params = params or {} }, Msg)
	end
	function Msg:params(...)
		local p = ...
		if type(p) ~= 'table' then
			p = { ... }
		end
		for _, v in ipairs(p) do
			self.params[#self.params + 1] = v
		end
		return self
	end
	Msg.rawParams = Msg.params
	Msg.numParams = Msg.params
	function Msg:inLanguage()
		return self
	end
	function Msg:useDatabase()
		return self
	end
	function Msg:exists()
		return self.raw ~= nil
	end
	function Msg:isBlank()
		return self.raw == nil or self.raw == ''
	end
	Msg.isDisabled = Msg.isBlank
	function Msg:plain()
		if self.raw == nil then
			return '⧼' .. tostring(self.key) .. '⧽'
		end
		return (self.raw:gsub('%$(%d+)', function(d)
			local v = self.params[tonumber(d)]
			return v ~= nil and tostring(v) or '$' .. d
		end))
	end
	Msg.text = Msg.plain
	Msg.escaped = function(self)
		return text.encode(self:plain())
	end
	Msg.parse = Msg.plain
	Msg.__tostring = Msg.plain
	mw.message = {}
	function mw.message.new(key, ...)
		return new(nil, key, { ... })
	end
	mw.message.newFallbackSequence = mw.message.new
	function mw.message.newRawMessage(msg, ...)
		return new(tostring(msg), nil, { ... })
	end
	function mw.message.rawParam(v)
		return v
	end
	mw.message.numParam = mw.message.rawParam
	function mw.message.getDefaultLanguage()
		return mw.language.getContentLanguage()
	end
end

---------------------------------------------------------------------------
-- mw.title
do
	local title = {}
	mw.title = title
	local Title = {}
	local methods = {}
	local function make(fields)
		if not fields then
			return nil
		end
		iface.completeTitle(fields)
		return setmetatable({ fields = fields }, Title)
	end
	local function lazy(self, key, f)
		local cache = rawget(self, 'cache')
		if not cache then
			cache = {}
			rawset(self, 'cache', cache)
		end
		if cache[key] == nil then
			local v = f()
			cache[key] = v == nil and false or v
		end
		local v = cache[key]
		if v == false and key ~= 'exists' and key ~= 'isRedirect' then
			return nil
		end
		return v
	end
	Title.__index = function(self, k)
		local f = rawget(self, 'fields')
		local m = methods[k]
		if m then
			return m
		end
		local v = f[k]
		if v ~= nil then
			return v
		end
		if k == 'exists' then
			return lazy(self, k, function()
				return host('exists', f.namespace, f.dbkey, f.interwiki)
			end)
		elseif k == 'isRedirect' then
			return lazy(self, k, function()
				return host('redirect', f.namespace, f.dbkey) ~= nil
			end)
		elseif k == 'redirectTarget' then
			return lazy(self, k, function()
				return make(host('redirect', f.namespace, f.dbkey)) or false
			end)
		elseif k == 'id' then
			return lazy(self, k, function()
				return host('exists', f.namespace, f.dbkey, f.interwiki) and 1 or 0
			end)
		elseif k == 'contentModel' then
			return f.namespace == 828 and 'Scribunto' or 'wikitext'
		elseif k == 'basePageTitle' then
			return title.makeTitle(f.namespace, f.baseText)
		elseif k == 'rootPageTitle' then
			return title.makeTitle(f.namespace, f.rootText)
		elseif k == 'talkPageTitle' then
			if f.namespace < 0 then
				return nil
			end
			return title.makeTitle(f.namespace - f.namespace % 2 + 1, f.text)
		elseif k == 'subjectPageTitle' then
			if f.namespace < 0 then
				return self
			end
			return title.makeTitle(f.namespace - f.namespace % 2, f.text)
		elseif k == 'protectionLevels' or k == 'cascadingProtection' then
			return k == 'protectionLevels' and { edit = {}, move = {} } or { restrictions = {}, sources = {} }
		end
		return nil
	end
	Title.__newindex = function(self, k)
		error("index '" .. tostring(k) .. "' is read only", 2)
	end
	Title.__tostring = function(self)
		return self.fields.prefixedText
	end
	Title.__eq = function(a, b)
		return a.fields.prefixedText == b.fields.prefixedText and a.fields.interwiki == b.fields.interwiki
			and a.fields.fragment == b.fields.fragment
	end
	Title.__lt = function(a, b)
		return title.compare(a, b) < 0
	end
	Title.__le = function(a, b)
		return title.compare(a, b) <= 0
	end
	function methods.isSubpageOf(self, other)
		return self.fields.namespace == other.fields.namespace
			and self.fields.text:sub(1, #other.fields.text + 1) == other.fields.text .. '/'
			and self.fields.hasSubpages
	end
	function methods.inNamespace(self, ns)
		if type(ns) == 'string' then
			ns = mw.site.matchNamespaceName(ns)
		end
		return self.fields.namespace == tonumber(ns)
	end
	function methods.inNamespaces(self, ...)
		for i = 1, select('#', ...) do
			if methods.inNamespace(self, (select(i, ...))) then
				return true
			end
		end
		return false
	end
	function methods.hasSubjectNamespace(self, ns)
		if type(ns) == 'string' then
			ns = mw.site.matchNamespaceName(ns)
		end
		ns = tonumber(ns)
		local own = self.fields.namespace
		return ns ~= nil and own - own % 2 == ns - ns % 2
	end
	function methods.subPageTitle(self, sub)
		return title.makeTitle(self.fields.namespace, self.fields.text .. '/' .. tostring(sub))
	end
	function methods.partialUrl(self)
		return (self.fields.dbkey:gsub('[^%w%-%._~:/]', function(c)
			return string.format('%%%02X', c:byte())
		end))
	end
	local function url(kind)
		return function(self, q, proto)
			local qs = q
			if type(q) == 'table' then
				qs = mw.uri.buildQueryString(q)
			end
			return host('url', kind, self.fields.fullText, qs)
		end
	end
	methods.fullUrl = url('full')
	methods.localUrl = url('local')
	methods.canonicalUrl = url('canonical')
	function methods.getContent(self)
		return host('content', self.fields.namespace, self.fields.dbkey)
	end
	function title.new(t, ns)
		if type(t) == 'number' then
			return nil
		end
		if type(t) ~= 'string' then
			error("bad argument #1 to 'mw.title.new' (string or number expected, got " .. type(t) .. ')', 2)
		end
		if ns ~= nil and type(ns) ~= 'number' then
			ns = mw.site.matchNamespaceName(ns)
		end
		return make(host('title', t, ns or 0))
	end
	function title.makeTitle(ns, t, fragment, interwiki)
		if type(ns) == 'string' then
			ns = mw.site.matchNamespaceName(ns)
		end
		if ns == nil or t == nil then
			return nil
		end
		return make(host('maketitle', ns, tostring(t), fragment, interwiki))
	end
	function title.getCurrentTitle()
		return make(host('currentTitle'))
	end
	function title.equals(a, b)
		return a.fields.prefixedText == b.fields.prefixedText and a.fields.interwiki == b.fields.interwiki
	end
	function title.compare(a, b)
		local ai, bi = a.fields.interwiki or '', b.fields.interwiki or ''
		if ai ~= bi then
			return ai < bi and -1 or 1
		end
		if a.fields.namespace ~= b.fields.namespace then
			return a.fields.namespace < b.fields.namespace and -1 or 1
		end
		if a.fields.text ~= b.fields.text then
			return a.fields.text < b.fields.text and -1 or 1
		end
		return 0
	end
	-- Fields computed from (namespace, text) here rather than in Rust.
	iface.completeTitle = function(f)
		local t = f.text
		f.prefixedText = f.nsText ~= '' and (f.nsText .. ':' .. t) or t
		if f.interwiki and f.interwiki ~= '' then
			f.prefixedText = f.interwiki .. ':' .. f.prefixedText
		else
			f.interwiki = ''
		end
		f.fullText = f.fragment ~= '' and (f.prefixedText .. '#' .. f.fragment) or f.prefixedText
		f.isSubpage = f.hasSubpages and t:find('/', 1, true) ~= nil
		f.baseText = f.hasSubpages and t:match('^(.*)/[^/]*$') or t
		f.rootText = f.hasSubpages and t:match('^([^/]*)/') or t
		f.subpageText = f.hasSubpages and t:match('/([^/]*)$') or t
		f.isContentPage = f.namespace == 0
		f.isExternal = f.interwiki ~= ''
		f.isLocal = f.interwiki == ''
		f.isTalkPage = f.namespace >= 0 and f.namespace % 2 == 1
		f.isSpecialPage = f.namespace == -1
		f.canTalk = f.namespace >= 0
		return f
	end
end

---------------------------------------------------------------------------
-- Frames
local currentFrame
local frames = {}
local function argKey(k)
	if type(k) == 'string' and (k:match('^%-?[1-9]%d*$') or k == '0') and #k < 16 then
		return tonumber(k)
	end
	return k
end
local function newFrame(fid)
	if frames[fid] then
		return frames[fid]
	end
	local frame = {}
	local cache = {}
	local names
	local function get(k)
		local key
		if type(k) == 'number' then
			if k ~= floor(k) then
				return nil
			end
			key = string.format('%d', k)
		elseif type(k) == 'string' then
			key = k
		else
			return nil
		end
		local v = cache[key]
		if v == nil then
			v = host('arg', fid, key)
			cache[key] = v == nil and false or v
		end
		return v or nil
	end
	local args = {}
	setmetatable(args, {
		__index = function(t, k)
			return get(k)
		end,
		__newindex = function(t, k, v)
			error('frame.args is read-only', 2)
		end,
		__pairs = function(t)
			if not names then
				names = host('argnames', fid)
			end
			local i = 0
			return function()
				i = i + 1
				local n = names[i]
				if n == nil then
					return nil
				end
				return argKey(n), get(n)
			end, t, nil
		end,
		__ipairs = function(t)
			return function(_, i)
				i = i + 1
				local v = get(i)
				if v ~= nil then
					return i, v
				end
			end, t, 0
		end,
	})
	frame.args = args
	function frame:getParent()
		local p = host('parent', fid)
		return p and newFrame(p) or nil
	end
	function frame:getTitle()
		return host('frametitle', fid)
	end
	function frame:getArgument(name)
		if type(name) == 'table' then
			name = name.name
		end
		local v = get(name)
		if v == nil then
			return nil
		end
		return { expand = function()
			return v
		end }
	end
	function frame:argumentPairs()
		return pairs(args)
	end
	local function stringArgs(t, what)
		local out = {}
		if t == nil then
			return out
		end
		if type(t) ~= 'table' then
			error(what .. ': args must be a table', 3)
		end
		for k, v in pairs(t) do
			local tk = type(k)
			if tk ~= 'string' and tk ~= 'number' then
				error(what .. ': invalid type ' .. tk .. ' for arg key', 3)
			end
			local tv = type(v)
			if tv ~= 'string' and tv ~= 'number' then
				if tv == 'boolean' or tv == 'table' or tv == 'function' then
					error(what .. ': invalid type ' .. tv .. ' for arg \'' .. tostring(k) .. '\'', 3)
				end
			end
			out[#out + 1] = { tostring(k), tostring(v) }
		end
		return out
	end
	function frame:expandTemplate(opt)
		if type(opt) ~= 'table' then
			error('frame:expandTemplate: the first parameter must be a table', 2)
		end
		local t = opt.title
		if t == nil then
			error('frame:expandTemplate: a title is required', 2)
		end
		if type(t) == 'table' and t.fields then
			t = t.fields.prefixedText
		end
		local r, err = host('expandTemplate', fid, tostring(t), stringArgs(opt.args, 'frame:expandTemplate'))
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:preprocess(opt)
		if type(opt) == 'table' then
			opt = opt.text
		end
		if type(opt) ~= 'string' and type(opt) ~= 'number' then
			error("bad argument #1 to 'preprocess' (string expected, got " .. type(opt) .. ')', 2)
		end
		return host('preprocess', fid, tostring(opt))
	end
	function frame:callParserFunction(name, ...)
		local args
		if type(name) == 'table' then
			name, args = name.name, name.args
		else
			args = ...
			if type(args) ~= 'table' then
				args = { ... }
			end
		end
		if type(args) ~= 'table' then
			args = { args }
		end
		local list = {}
		for k, v in pairs(args) do
			list[#list + 1] = { k, v }
		end
		sort(list, function(a, b)
			local na, nb = type(a[1]) == 'number', type(b[1]) == 'number'
			if na ~= nb then
				return na
			end
			if na then
				return a[1] < b[1]
			end
			return tostring(a[1]) < tostring(b[1])
		end)
		local flat, named = {}, {}
		for _, kv in ipairs(list) do
			if type(kv[1]) == 'number' then
				flat[#flat + 1] = tostring(kv[2])
			else
				named[#named + 1] = kv[1] .. '=' .. tostring(kv[2])
			end
		end
		for _, n in ipairs(named) do
			flat[#flat + 1] = n
		end
		local r, err = host('callParserFunction', fid, tostring(name), flat)
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:extensionTag(name, content, targs)
		if type(name) == 'table' then
			name, content, targs = name.name, name.content, name.args
		end
		local args = { content or '' }
		if type(targs) == 'table' then
			for k, v in pairs(targs) do
				args[k .. ''] = v
			end
		elseif type(targs) == 'string' then
			args[2] = targs
		end
		local a = { tostring(name), args[1] }
		local keys = {}
		for k in pairs(args) do
			if type(k) == 'string' then
				keys[#keys + 1] = k
			end
		end
		sort(keys)
		for _, k in ipairs(keys) do
			a[#a + 1] = k .. '=' .. tostring(args[k])
		end
		local r, err = host('callParserFunction', fid, '#tag', a)
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:newChild(opt)
		opt = opt or {}
		local t = opt.title
		if type(t) == 'table' and t.fields then
			t = t.fields.prefixedText
		end
		local id = host('newChild', fid, t and tostring(t) or nil, stringArgs(opt.args, 'frame:newChild'))
		return newFrame(id)
	end
	function frame:newParserValue(v)
		return { expand = function()
			return frame:preprocess(v)
		end }
	end
	function frame:newTemplateParserValue(opt)
		return { expand = function()
			return frame:expandTemplate(opt)
		end }
	end
	frames[fid] = frame
	return frame
end
function mw.getCurrentFrame()
	return currentFrame or newFrame(0)
end

---------------------------------------------------------------------------
-- Modules: require / mw.loadData through the dump, one environment per #invoke.
local loadedData = {}
local baseGlobals = _G
local function loadChunk(name)
	local fn, t = host('loadModule', name)
	return fn, t
end
local function cloneEnv()
	local env = {}
	for k, v in next, baseGlobals do
		if type(v) == 'table' and k ~= '_G' then
			env[k] = mw.clone(v)
		else
			env[k] = v
		end
	end
	env._G = env
	local loaded = {
		libraryUtil = libraryUtil, ustring = env.mw.ustring,
		string = env.string, table = env.table, math = env.math, os = env.os, mw = env.mw,
		_G = env,
	}
	env.package = { loaded = loaded, preload = {} }
	local loading = {}
	env.require = function(name)
		if type(name) ~= 'string' then
			error("bad argument #1 to 'require' (string expected, got " .. type(name) .. ')', 2)
		end
		if loaded[name] ~= nil then
			return loaded[name]
		end
		if name == 'strict' then
			local mt = getmetatable(env) or {}
			mt.__index = function(_, k)
				error('variable \'' .. tostring(k) .. '\' is not declared', 2)
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
	env.mw.loadData = function(name)
		if type(name) ~= 'string' then
			error("bad argument #1 to 'mw.loadData' (string expected, got " .. type(name) .. ')', 2)
		end
		local fn, key = loadChunk(name)
		if not fn then
			error("module '" .. name .. "' not found", 2)
		end
		if loadedData[key] == nil then
			rawsetfenv(fn, cloneEnv())
			local r = fn()
			if type(r) ~= 'table' then
				error('mw.loadData: the module ' .. key .. ' returned a ' .. type(r) .. ', not a table', 2)
			end
			loadedData[key] = r
		end
		return loadedData[key]
	end
	return env
end

-- Runs `fname` of the module compiled as `chunk` with frame 0 (the #invoke) and
-- returns (true, text) or (false, message, isScriptError).
local function invoke(chunk, fname)
	local env = cloneEnv()
	rawsetfenv(chunk, env)
	local ok, exports = pcall(chunk)
	if not ok then
		return false, exports, nil
	end
	if type(exports) ~= 'table' then
		return false, type(exports), 'notarrayreturn'
	end
	local fn = exports[fname]
	if type(fn) ~= 'function' then
		return false, fname, 'nosuchfunction'
	end
	local frame = newFrame(0)
	local old = currentFrame
	currentFrame = frame
	local results = { pcall(fn, frame) }
	currentFrame = old
	if not results[1] then
		return false, results[2], nil
	end
	local out = {}
	for i = 2, #results do
		if results[i] == nil then
			break
		end
		out[#out + 1] = tostring(results[i])
	end
	return true, concat(out)
end
-- Frame ids belong to one invocation: an #invoke nested in another (through
-- frame:expandTemplate) gets its own and the outer ones come back afterwards.
iface.invoke = function(chunk, fname)
	local saved = frames
	frames = {}
	local r = { invoke(chunk, fname) }
	frames = saved
	return r[1], r[2], r[3]
end
