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

-- A call of the Rust side that raises its error message, as Scribunto's PHP side
-- raises: with no position.
local function call(...)
	local r, e = host(...)
	if e ~= nil then
		error(e, 0)
	end
	return r
end

-- What MediaWiki runs in PHP needs a Language object, which it cannot make of an
-- invalid code.
local function checkLang(self)
	if self.valid == nil then
		self.valid = call('codeTest', 'isValidCode', self.code)
	end
	if not self.valid then
		error("language code '" .. self.code .. "' is invalid", 0)
	end
end

function Lang:getCode()
	return self.code
end
function Lang:getFallbackLanguages()
	return mw.language.getFallbacksFor(self.code)
end
function Lang:isRTL()
	checkLang(self)
	return call('isRTL', self.code)
end
function Lang:getDir()
	checkLang(self)
	return self:isRTL() and 'rtl' or 'ltr'
end
-- `rtl` when the text runs right to left (the other way with `opposite`), else `ltr`.
local function byDirection(self, opposite, rtl, ltr)
	checkLang(self)
	if self:isRTL() ~= (opposite and true or false) then
		return rtl
	end
	return ltr
end
function Lang:getDirMark(opposite)
	return byDirection(self, opposite, '\226\128\143', '\226\128\142')
end
function Lang:getDirMarkEntity(opposite)
	return byDirection(self, opposite, '&rlm;', '&lrm;')
end
local fixedArrows = { left = '←', right = '→', up = '↑', down = '↓' }
function Lang:getArrow(direction)
	direction = direction or 'forwards'
	if fixedArrows[direction] then
		return fixedArrows[direction]
	end
	checkLang(self)
	if direction ~= 'forwards' and direction ~= 'backwards' then
		error("bad argument #1 to 'getArrow' ('forwards', 'backwards', 'left', 'right', 'up', 'down' expected)", 2)
	end
	if (direction == 'forwards') == self:isRTL() then
		return '←'
	end
	return '→'
end
function Lang:lc(s)
	checkLang(self)
	return ustring.lower(s)
end
function Lang:uc(s)
	checkLang(self)
	return ustring.upper(s)
end
-- Languages whose Language class gives a dotless i and a dotted capital I to the first
-- letter (Turkic).
local turkic = { tr = true, az = true, kaa = true, crh = true, ['crh-latn'] = true }
function Lang:lcfirst(s)
	checkLang(self)
	s = tostring(s)
	local first = ustring.sub(s, 1, 1)
	if turkic[self.code] and first == 'I' then
		return 'ı' .. ustring.sub(s, 2)
	end
	return ustring.lower(first) .. ustring.sub(s, 2)
end
function Lang:ucfirst(s)
	checkLang(self)
	s = tostring(s)
	local first = ustring.sub(s, 1, 1)
	if turkic[self.code] and first == 'i' then
		return 'İ' .. ustring.sub(s, 2)
	end
	return ustring.upper(first) .. ustring.sub(s, 2)
end
-- MediaWiki folds case to upper case.
function Lang:caseFold(s)
	checkLang(self)
	return ustring.upper(s)
end
function Lang:formatNum(n, opts)
	checkLang(self)
	local noCommafy = false
	if opts ~= nil then
		if type(opts) ~= 'table' then
			error("bad argument #2 to 'formatNum' (table expected, got " .. type(opts) .. ')', 0)
		end
		-- PHP's `!empty()`: false, '', '0' and 0 do not count.
		local v = opts.noCommafy
		noCommafy = v ~= nil and v ~= false and v ~= '' and v ~= '0' and v ~= 0
	end
	return call('formatNum', self.code, n, noCommafy)
end
function Lang:parseFormattedNumber(s)
	checkLang(self)
	local r = call('parseFormattedNumber', self.code, s)
	return r and tonumber(r)
end
function Lang:formatDate(format, timestamp, localTime)
	checkLang(self)
	-- Errors come from the Rust side with Scribunto's wording and no position, as
	-- PHP-raised errors arrive in Lua.
	return call('formatDate', self.code, format, timestamp, localTime)
end
-- The forms of `plural` and `gender`: given one by one or as one table.
local function formsOf(...)
	local forms = ...
	if type(forms) ~= 'table' then
		forms = { ... }
	end
	return forms
end
function Lang:convertPlural(n, ...)
	checkLang(self)
	local forms = {}
	for i, f in ipairs(formsOf(...)) do
		forms[i] = tostring(f)
	end
	return call('plural', self.code, n, forms)
end
Lang.plural = Lang.convertPlural
function Lang:convertGrammar(word, case)
	checkLang(self)
	return call('convertGrammar', self.code, word, case)
end
-- `grammar(case, word)`: `convertGrammar`'s arguments the other way round.
function Lang:grammar(case, word)
	return self:convertGrammar(word, case)
end
-- `gender(what, masculine, feminine, neutral)` or with the forms in a table; a user
-- name's gender is unknown offline (no preferences in a dump).
function Lang:gender(what, ...)
	checkLang(self)
	local forms = formsOf(...)
	if #forms == 0 then
		return ''
	end
	if what == 'male' then
		return forms[1]
	elseif what == 'female' then
		return forms[2] or forms[#forms]
	end
	return forms[3] or forms[1]
end
-- MediaWiki's intervals, largest first, in seconds (a year of 365.2425 days).
local intervals = {
	{ 'millennia', 31556952000 }, { 'centuries', 3155695200 }, { 'decades', 315569520 },
	{ 'years', 31556952 }, { 'weeks', 604800 }, { 'days', 86400 }, { 'hours', 3600 },
	{ 'minutes', 60 }, { 'seconds', 1 },
}
local defaultIntervals = { 'millennia', 'centuries', 'decades', 'years', 'days', 'hours', 'minutes', 'seconds' }
function Lang:getDurationIntervals(seconds, chosen)
	checkLang(self)
	if type(seconds) ~= 'number' then
		error("bad argument #1 to 'getDurationIntervals' (number expected, got " .. type(seconds) .. ')', 0)
	end
	local want = {}
	for _, name in ipairs(type(chosen) == 'table' and chosen or defaultIntervals) do
		want[name] = true
	end
	local smallest
	for _, iv in ipairs(intervals) do
		if want[iv[1]] then
			smallest = iv[1]
		end
	end
	local out, any = {}, false
	for _, iv in ipairs(intervals) do
		if want[iv[1]] then
			local v = math.floor(seconds / iv[2])
			if v > 0 or (iv[1] == smallest and not any) then
				seconds = seconds - v * iv[2]
				out[iv[1]] = v
				any = true
			end
		end
	end
	return out
end
function Lang:formatDuration(seconds, chosen)
	checkLang(self)
	return call('formatDuration', self.code, seconds, chosen)
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
function mw.language.fetchLanguageName(code, inLanguage)
	return call('fetchLanguageName', code, inLanguage)
end
function mw.language.fetchLanguageNames(inLanguage, include)
	return call('fetchLanguageNames', inLanguage, include)
end
for _, name in ipairs({ 'isKnownLanguageTag', 'isSupportedLanguage', 'isValidBuiltInCode', 'isValidCode' }) do
	mw.language[name] = function(code)
		return call('codeTest', name, code)
	end
end
function mw.language.getFallbacksFor(code)
	return call('getFallbacksFor', code)
end
