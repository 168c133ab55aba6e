-- mw.text: trimming, splitting, entities, tags, nowiki, truncation, JSON.
-- Entity decoding and JSON parsing are done in Rust (`text.rs`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.text` holds the Rust functions; `site.separators`
-- the content language's list separators.
local iface, site, lib = ...
local type, error = type, error
local concat = table.concat
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
	['}'] = '&#125;',
}
-- After a line break (\n or \r): list and indent markers, a leading space, blank lines.
local NOWIKI_LINE = {
	['#'] = '&#35;', ['*'] = '&#42;', [':'] = '&#58;', [';'] = '&#59;', [' '] = '&#32;',
	['\n'] = '&#10;', ['\r'] = '&#13;', ['\t'] = '&#9;',
}
local NOWIKI_SPACE = { [' '] = '&#32;', ['\t'] = '&#9;', ['\r'] = '&#13;', ['\n'] = '&#10;', ['\f'] = '&#12;' }
-- MediaWiki's default $wgUrlProtocols that end in ':' (the others hold '//').
-- Each as the pattern of it and its colon in any case, made once: CS1 escapes its
-- parameters with `nowiki`, and making the twelve patterns on every call was most of
-- the call.
local NOWIKI_PROTOCOLS = {}
for i, p in ipairs({ 'bitcoin', 'geo', 'magnet', 'mailto', 'matrix', 'news', 'sip', 'sips',
	'sms', 'tel', 'urn', 'xmpp' }) do
	NOWIKI_PROTOCOLS[i] = '(' .. p:gsub('%a', function(c)
		return '[' .. c:upper() .. c .. ']'
	end) .. '):'
end
function text.nowiki(s)
	s = ucheck('nowiki', s)
	s = s:gsub('["&\'<=>%[%]{|}]', NOWIKI)
	s = ('\n' .. s):gsub('([\r\n])([#*:; \n\r\t])', function(brk, c)
		if brk == '\r' and c == '\n' then
			return '&#13;\n'
		end
		return brk .. NOWIKI_LINE[c]
	end)
	s = s:gsub('([\r\n])%-%-%-%-', '%1&#45;---'):sub(2)
	s = s:gsub('__', '_&#95;'):gsub('://', '&#58;//')
	for _, w in ipairs({ 'ISBN', 'RFC', 'PMID' }) do
		s = s:gsub(w .. '(%s)', function(c)
			return w .. (NOWIKI_SPACE[c] or c)
		end)
	end
	for _, pat in ipairs(NOWIKI_PROTOCOLS) do
		s = s:gsub(pat, '%1&#58;')
	end
	return s
end
local ENCODE = { ['<'] = '&lt;', ['>'] = '&gt;', ['&'] = '&amp;', ['"'] = '&quot;',
	["'"] = '&#039;', ['\194\160'] = '&nbsp;' }
function text.encode(s, charset)
	s = ucheck('encode', s)
	charset = charset or '<>&"\'\194\160'
	return (ustring.gsub(s, '[' .. charset .. ']', function(c)
		return ENCODE[c] or string.format('&#%d;', ustring.codepoint(c))
	end))
end
function text.decode(s, decodeNamedEntities)
	return (native.decode(ucheck('decode', s), decodeNamedEntities and true or false))
end
function text.tag(name, attrs, content)
	local named = type(name) == 'table'
	if named then
		name, attrs, content = name.name, name.attrs, name.content
		lib.libraryUtil.checkTypeForNamedArg('tag', 'name', name, 'string')
		lib.libraryUtil.checkTypeForNamedArg('tag', 'attrs', attrs, 'table', true)
	else
		checkType('tag', 1, name, 'string')
		checkType('tag', 2, attrs, 'table', true)
	end
	local out = { '<' .. name }
	-- Attributes in the order `pairs` gives them (a `__pairs` decides), as Scribunto.
	for k, v in pairs(attrs or {}) do
		if type(k) ~= 'string' then
			error("bad named argument attrs to 'tag' (keys must be strings, found " .. type(k) .. ')', 2)
		end
		if k:match('[\t\r\n\f /<>"\'=]') then
			error("bad named argument attrs to 'tag' (invalid key '" .. k .. "')", 2)
		end
		local t = type(v)
		if t == 'boolean' then
			if v then
				out[#out + 1] = ' ' .. k
			end
		elseif t == 'string' or t == 'number' then
			out[#out + 1] = ' ' .. k .. '="' .. text.encode(tostring(v)) .. '"'
		else
			error("bad named argument attrs to 'tag' (value for key '" .. k .. "' may not be " .. t .. ')', 2)
		end
	end
	local t = type(content)
	if content == nil then
		out[#out + 1] = '>'
	elseif content == false then
		out[#out + 1] = ' />'
	elseif t == 'string' or t == 'number' then
		out[#out + 1] = '>' .. content .. '</' .. name .. '>'
	elseif named then
		lib.libraryUtil.checkTypeForNamedArg('tag', 'content', content, 'string, number, nil, or false')
	else
		checkType('tag', 3, content, 'string, number, nil, or false')
	end
	return concat(out)
end
-- Scribunto's rules: nothing is cut when the text is no longer than |length|; the
-- ellipsis (the content language's, "..." in English) counts towards the length with
-- `adjustLength`; a result not shorter than the text gives the text back.
function text.truncate(s, length, ellipsis, adjustLength)
	s = ucheck('truncate', s)
	checkType('truncate', 2, length, 'number')
	local len = ustring.len(s)
	if len <= math.abs(length) then
		return s
	end
	ellipsis = ellipsis or site.separators.ellipsis
	local elen = adjustLength and ustring.len(ellipsis) or 0
	local out
	if math.abs(length) <= elen then
		out = ellipsis
	elseif length > 0 then
		out = ustring.sub(s, 1, length - elen) .. ellipsis
	else
		out = ellipsis .. ustring.sub(s, length + elen)
	end
	if ustring.len(out) < len then
		return out
	end
	return s
end
function text.killMarkers(s)
	return (ucheck('killMarkers', s):gsub('\127\'"`UNIQ%-.-%-QINU`"\'\127', ''))
end
-- The markers of `<nowiki>` tags replaced by their text, from the page's strip state.
function text.unstripNoWiki(s)
	return lib.host('unstripNoWiki', ucheck('unstripNoWiki', s))
end
function text.unstrip(s)
	return text.killMarkers(text.unstripNoWiki(s))
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
