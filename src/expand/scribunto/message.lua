-- mw.message: messages with parameters (messages are not in the dump: raw messages only).
-- Pure Lua; nothing from Rust.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib).
local type, tonumber, setmetatable = type, tonumber, setmetatable
local mw = mw
local text = mw.text

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
