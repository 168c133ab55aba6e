-- mw.text: trimming, splitting, entities, tags, nowiki, truncation, JSON.
-- Entity decoding and JSON parsing are done in Rust (`text.rs`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.text` holds the Rust functions; `site.separators`
-- the content language's list separators.
local iface, site, lib = ...
local type, error = type, error
local concat, sort = table.concat, table.sort
local ucheck, checkType = lib.ucheck, lib.libraryUtil.checkType
local mw = mw
local ustring = mw.ustring
local native = iface.text

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
	return (native.decode(ucheck('decode', s), decodeNamedEntities and true or false))
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
-- What Scribunto checks in Lua before a value reaches PHP; `level` is the error level of
-- the caller of jsonEncode.
local function checkJson(v, seen, level)
	local t = type(v)
	if t == 'table' then
		if seen[v] then
			error('mw.text.jsonEncode: Cannot use recursive tables', level)
		end
		seen[v] = true
		for k, x in pairs(v) do
			local kt = type(k)
			if kt == 'number' then
				if k == math.huge or k == -math.huge then
					error("mw.text.jsonEncode: Cannot use 'inf' as a table key", level)
				end
			elseif kt ~= 'string' then
				error(string.format("mw.text.jsonEncode: Cannot use type '%s' as a table key", kt), level)
			end
			checkJson(x, seen, level + 1)
		end
		seen[v] = nil
	elseif t == 'number' then
		if v ~= v or v == math.huge or v == -math.huge then
			error('mw.text.jsonEncode: Cannot encode non-finite numbers', level)
		end
	elseif t ~= 'boolean' and t ~= 'string' and t ~= 'nil' then
		error(string.format("mw.text.jsonEncode: Cannot encode type '%s'", t), level)
	end
end
-- Errors raised on PHP's side carry no position (level 0).
local function flagsOf(name, flags)
	if flags == nil then
		return 0
	elseif type(flags) ~= 'number' then
		error(string.format("bad argument #2 to '%s' (number expected, got %s)", name, type(flags)), 0)
	end
	return flags - flags % 1
end
function text.jsonEncode(value, flags)
	checkJson(value, {}, 3)
	local s, err = native.jsonEncode(value, flagsOf('mw.text.jsonEncode', flags), pairs)
	if err then
		error('mw.text.jsonEncode: ' .. err, 0)
	end
	return s
end
function text.jsonDecode(s, flags)
	if type(s) ~= 'string' then
		error(string.format("bad argument #1 to 'mw.text.jsonDecode' (string expected, got %s)", type(s)), 0)
	end
	local v, err = native.jsonDecode(s, flagsOf('mw.text.jsonDecode', flags))
	if err then
		error('mw.text.jsonDecode: ' .. err, 0)
	end
	return v
end
text.JSON_PRESERVE_KEYS = 1
text.JSON_TRY_FIXING = 2
text.JSON_PRETTY = 4
