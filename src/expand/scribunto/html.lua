-- mw.html: building HTML as Scribunto's HtmlBuilder serializes it.
-- Pure Lua; nothing from Rust.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib).
local type, error, select, setmetatable, getmetatable =
	type, error, select, setmetatable, getmetatable
local concat = table.concat
local mw = mw

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
