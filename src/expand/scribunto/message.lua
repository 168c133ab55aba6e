-- mw.message: interface messages (the dump's `MediaWiki:` pages, then the recorded
-- messages file) and raw messages, with plain, raw and number parameters.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `site.lang` is the default language; the text comes
-- from the host's `messagePlain` / `messageCheck` (`message.rs`).
local _, site, lib = ...
local type, error, select, tostring, getmetatable, setmetatable =
	type, error, select, tostring, getmetatable, setmetatable
local format, maxn = string.format, table.maxn
local host, util = lib.host, lib.libraryUtil
local checkType = util.checkType

-- Parameters given through rawParam/numParam carry their kind in this metatable.
local special = {
	__tostring = function(t)
		return tostring(t.raw or t.num)
	end,
}

local function hasToString(v)
	local mt = getmetatable(v)
	return mt ~= nil and type(mt) == 'table' and mt.__tostring ~= nil
end

-- One parameter: a string or number, a raw/num parameter where they are allowed, or
-- anything with a __tostring (a message object gives its plain text).
local function scalar(fname, i, v, level, specialOk)
	local t = type(v)
	if t == 'table' then
		if specialOk and getmetatable(v) == special then
			return v
		end
		if hasToString(v) then
			return tostring(v)
		end
	end
	if t ~= 'string' and t ~= 'number' then
		error(format("bad argument #%d to '%s' (string or number expected, got %s)", i, fname,
			t), level + 1)
	end
	return v
end

-- The parameters of a call: one table of them, or each as its own argument.
local function paramList(fname, specialOk, ...)
	local first, n = ..., select('#', ...)
	local list, count
	if type(first) == 'table' and not hasToString(first) then
		if n ~= 1 then
			error("bad arguments to '" .. fname
				.. "' (pass either a table of params or params as individual arguments)", 3)
		end
		list, count = {}, maxn(first)
		for i = 1, count do
			list[i] = first[i]
		end
	else
		list, count = { ... }, n
	end
	for i = 1, count do
		list[i] = scalar('params', i, list[i], 3, specialOk)
	end
	return list, count
end

-- The parameters as the text they put in the message (numbers formatted in the
-- message's language).
local function paramTexts(data)
	local out = {}
	for i = 1, #data.params do
		local p = data.params[i]
		if type(p) == 'table' and p.num ~= nil then
			local lang = mw.language and mw.language.new(data.lang)
			out[i] = lang and lang:formatNum(tonumber(p.num) or p.num) or tostring(p.num)
		elseif type(p) == 'table' then
			out[i] = tostring(p.raw)
		else
			out[i] = tostring(p)
		end
	end
	return out
end

local function makeMessage(keys, raw)
	local obj = {}
	local checkSelf = util.makeCheckSelfFunction('mw.message', 'msg', obj, 'message object')
	local data = { keys = keys, raw = raw, params = {}, lang = site.lang, useDB = true }
	local function add(name, specialOk, wrap)
		obj[name] = function(self, ...)
			checkSelf(self, name)
			local list, count = paramList(name, specialOk, ...)
			local j = #data.params
			for i = 1, count do
				data.params[j + i] = wrap and wrap(list[i]) or list[i]
			end
			return self
		end
	end
	add('params', true)
	add('rawParams', false, function(v)
		return setmetatable({ raw = v }, special)
	end)
	add('numParams', false, function(v)
		return setmetatable({ num = v }, special)
	end)
	function obj:inLanguage(lang)
		checkSelf(self, 'inLanguage')
		if type(lang) == 'table' and lang.getCode then
			lang = lang:getCode()
		end
		checkType('inLanguage', 1, lang, 'string')
		data.lang = lang
		return self
	end
	function obj:useDatabase(value)
		checkSelf(self, 'useDatabase')
		checkType('useDatabase', 1, value, 'boolean')
		data.useDB = value
		return self
	end
	function obj:plain()
		checkSelf(self, 'plain')
		return host('messagePlain', data.raw, data.keys, data.lang, data.useDB, paramTexts(data))
	end
	for _, what in ipairs({ 'exists', 'isBlank', 'isDisabled' }) do
		obj[what] = function(self)
			checkSelf(self, what)
			return host('messageCheck', what, data.raw, data.keys, data.lang, data.useDB)
		end
	end
	return setmetatable(obj, {
		__tostring = function(t)
			return t:plain()
		end,
	})
end

local message = {}
mw.message = message
function message.new(key, ...)
	checkType('message.new', 1, key, 'string')
	return makeMessage({ key }):params(...)
end
function message.newFallbackSequence(...)
	local n = select('#', ...)
	for i = 1, n > 0 and n or 1 do
		checkType('message.newFallbackSequence', i, (select(i, ...)), 'string')
	end
	return makeMessage({ ... })
end
function message.newRawMessage(msg, ...)
	checkType('message.newRawMessage', 1, msg, 'string')
	return makeMessage(nil, msg):params(...)
end
function message.rawParam(v)
	return setmetatable({ raw = scalar('message.rawParam', 1, v, 2) }, special)
end
function message.numParam(v)
	return setmetatable({ num = scalar('message.numParam', 1, v, 2) }, special)
end
function message.getDefaultLanguage()
	return mw.language and mw.language.new(site.lang) or site.lang
end
