-- mw.language: language objects; case, numbers, dates and plurals through the
-- expander's parser functions (`formatnum`, `#time`, `plural`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `site.lang` is the content language.
local _, site, lib = ...
local type, tonumber, setmetatable = type, tonumber, setmetatable
local host = lib.host
local mw = mw
local ustring = mw.ustring

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
