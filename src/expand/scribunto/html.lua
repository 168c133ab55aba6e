-- mw.html: building HTML as Scribunto's HtmlBuilder serializes it.
-- Pure Lua; nothing from Rust.
-- Written for wikiwit from the Scribunto Lua reference manual and the behaviour of
-- MediaWiki 1.39 (not derived from Scribunto's code).
-- Called with (iface, site, lib).
local _, _, lib = ...
local type, error, pcall, setmetatable, tostring = type, error, pcall, setmetatable, tostring
local concat = table.concat
local checkType, checkTypeMulti = lib.libraryUtil.checkType, lib.libraryUtil.checkTypeMulti
local mw = mw

local Builder = {}
Builder.__index = Builder

-- Void elements: serialized as `<br />`, and refusing children.
local VOID = {}
for name in ('area base br col command embed hr img input keygen link meta param source track wbr')
	:gmatch('%S+') do
	VOID[name] = true
end

-- Strip markers survive attribute escaping (their quotes stay quotes), so a marker put
-- into an attribute is still replaced when the page is unstripped.
local MARKER_ENDS = { "\127'\"`UNIQ-", "-QINU`\"'\127" }
local ESCAPES = { ['&'] = '&amp;', ['<'] = '&lt;', ['>'] = '&gt;', ['"'] = '&quot;' }
local RESTORE = {}
for i, raw in ipairs(MARKER_ENDS) do
	local escaped = raw:gsub('[&<>"]', ESCAPES)
	RESTORE[i] = { escaped:gsub('%p', '%%%0'), (raw:gsub('%%', '%%%%')) }
end
local function escapeAttr(v)
	local s = tostring(v):gsub('[&<>"]', ESCAPES)
	for _, r in ipairs(RESTORE) do
		s = s:gsub(r[1], r[2])
	end
	return s
end

-- A CSS name or value from `css()`: code points outside printable ASCII, `:` and `;`
-- become CSS escapes (`\3A `), so one declaration cannot start another.
local function cssEscape(v)
	local s = tostring(v)
	local gsub = s:find('[\128-\255]') and mw.ustring.gsub or string.gsub
	return (gsub(s, '[^\32-\57\60-\127]', function(c)
		return string.format('\\%X ', mw.ustring.codepoint(c))
	end))
end

-- `level` is the error level of an invalid tag name, as seen from the function that
-- created the builder.
local function newBuilder(tagName, args, level)
	if tagName ~= nil and tagName ~= '' and not tagName:match('^[a-zA-Z0-9]+$') then
		error(string.format("invalid tag name '%s'", tagName), level + 1)
	end
	args = args or {}
	if tagName == '' then
		tagName = nil
	end
	return setmetatable({
		nodes = {},
		attributes = {},
		styles = {},
		tagName = tagName,
		parent = args.parent,
		selfClosing = (tagName ~= nil and VOID[tagName]) or args.selfClosing or false,
	}, Builder)
end

-- Adds a child; `level` is the error level as seen from the public method.
local function append(b, child, level)
	if b.selfClosing then
		error("self-closing tags can't have child nodes", level + 1)
	end
	if child then
		b.nodes[#b.nodes + 1] = child
	end
	return b
end

function Builder:_build(out)
	local name = self.tagName
	if name then
		out[#out + 1] = '<' .. name
		for _, a in ipairs(self.attributes) do
			out[#out + 1] = ' ' .. a.name .. '="' .. escapeAttr(a.val) .. '"'
		end
		if #self.styles > 0 then
			local decls = {}
			for i, st in ipairs(self.styles) do
				if type(st) == 'table' then
					decls[i] = escapeAttr(cssEscape(st.name) .. ':' .. cssEscape(st.val))
				else
					decls[i] = escapeAttr(st)
				end
			end
			-- Joined, not terminated: `a:1;b:2`.
			out[#out + 1] = ' style="' .. concat(decls, ';') .. '"'
		end
		if self.selfClosing then
			out[#out + 1] = ' />'
			return
		end
		out[#out + 1] = '>'
	end
	for _, n in ipairs(self.nodes) do
		if type(n) == 'table' then
			n:_build(out)
		else
			out[#out + 1] = tostring(n)
		end
	end
	if name then
		out[#out + 1] = '</' .. name .. '>'
	end
end
Builder.__tostring = function(b)
	local out = {}
	b:_build(out)
	return concat(out)
end

-- A node given to `node` keeps its own parent: `done()` on it does not lead here.
function Builder:node(child)
	return append(self, child, 2)
end
function Builder:wikitext(...)
	for i, w in ipairs({ ... }) do
		checkTypeMulti('wikitext', i, w, { 'string', 'number' })
		append(self, w, 2)
	end
	return self
end
function Builder:newline()
	return self:wikitext('\n')
end
function Builder:tag(tagName, args)
	checkType('tag', 1, tagName, 'string')
	checkType('tag', 2, args, 'table', true)
	args = args or {}
	args.parent = self
	local child = newBuilder(tagName, args, 2)
	self:node(child)
	return child
end
local function findAttr(b, name)
	for i, a in ipairs(b.attributes) do
		if a.name == name then
			return a, i
		end
	end
end
function Builder:getAttr(name)
	checkType('getAttr', 1, name, 'string')
	local a = findAttr(self, name)
	return a and a.val
end

-- Sets each pair of a table through `set`; any failure is reported as the table's.
local function setAll(b, set, t, val, method, what)
	if val ~= nil then
		error(string.format("bad argument #2 to '%s' (if argument #1 is a table, argument #2 must be left empty)",
			method), 3)
	end
	local ok = pcall(function()
		for k, v in pairs(t) do
			set(b, k, v)
		end
	end)
	if not ok then
		error(string.format("bad argument #1 to '%s' (%s)", method, what), 3)
	end
	return b
end
function Builder:attr(name, val)
	if type(name) == 'table' then
		return setAll(self, Builder.attr, name, val, 'attr',
			'table keys must be strings, and values must be strings or numbers')
	end
	checkType('attr', 1, name, 'string')
	checkTypeMulti('attr', 2, val, { 'string', 'number', 'nil' })
	-- An explicit style attribute replaces whatever css() and cssText() added.
	if name == 'style' then
		self.styles = { val }
		return self
	end
	if not name:match('^[a-zA-Z_:][a-zA-Z0-9_.:-]*$') then
		error(string.format("bad argument #1 to 'attr' (invalid attribute name '%s')", name), 2)
	end
	local a, i = findAttr(self, name)
	if a == nil then
		if val ~= nil then
			self.attributes[#self.attributes + 1] = { name = name, val = val }
		end
	elseif val == nil then
		table.remove(self.attributes, i)
	else
		a.val = val
	end
	return self
end
-- Classes are appended as given, duplicates included.
function Builder:addClass(class)
	checkTypeMulti('addClass', 1, class, { 'string', 'number', 'nil' })
	if class ~= nil then
		local a = findAttr(self, 'class')
		if a then
			a.val = a.val .. ' ' .. class
		else
			self:attr('class', class)
		end
	end
	return self
end
function Builder:css(name, val)
	if type(name) == 'table' then
		return setAll(self, Builder.css, name, val, 'css',
			'table keys and values must be strings or numbers')
	end
	checkTypeMulti('css', 1, name, { 'string', 'number' })
	checkTypeMulti('css', 2, val, { 'string', 'number', 'nil' })
	for i, st in ipairs(self.styles) do
		if type(st) == 'table' and st.name == name then
			if val == nil then
				table.remove(self.styles, i)
			else
				st.val = val
			end
			return self
		end
	end
	if val ~= nil then
		self.styles[#self.styles + 1] = { name = name, val = val }
	end
	return self
end
-- Kept as written (no CSS escaping), a trailing `;` too.
function Builder:cssText(css)
	checkTypeMulti('cssText', 1, css, { 'string', 'number', 'nil' })
	if css ~= nil then
		self.styles[#self.styles + 1] = css
	end
	return self
end
function Builder:done()
	return self.parent or self
end
function Builder:allDone()
	local b = self
	while b.parent do
		b = b.parent
	end
	return b
end

mw.html = {}
function mw.html.create(tagName, args)
	checkType('mw.html.create', 1, tagName, 'string', true)
	checkType('mw.html.create', 2, args, 'table', true)
	return newBuilder(tagName, args, 2)
end
