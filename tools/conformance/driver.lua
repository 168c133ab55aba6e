-- Module:WikiwitTestDriver — runs Scribunto's LuaCommon test providers from a dump, one
-- call per {{#invoke:}}, as its PHP test bases call them:
--   list|Module|from|to   the provider's count, then for each test its name and its
--                         expected value formatted by the provider (PHP's data provider:
--                         an engine on which no setUp ran)
--   run|Module|n|...      the test's result string, after the setUp that the module's PHP
--                         test class runs in Lua (a fresh engine per test, as PHPUnit's)
--   norm|hex,hex,…;…      UstringLibraryNormalizationTests' run() on columns of
--                         NormalizationTest.txt, each result
-- Everything is written as records `@@WWT:kind:hex:hex…;`, values hex-encoded so that
-- no byte of a result can be taken for wikitext or lost on the way out.

-- Taken before any test runs: tests replace globals and extend `string`.
local byte, format, gsub = string.byte, string.format, string.gsub
local sub, char, len, gmatch = string.sub, string.char, string.len, string.gmatch
local concat = table.concat
local pcall, require, type, tostring, tonumber = pcall, require, type, tostring, tonumber
local select, unpack = select, unpack
local mw = mw

local p = {}

local function hex(s)
	return (gsub(s, '.', function (c)
		return format('%02x', byte(c))
	end))
end

local function unhex(s)
	return (gsub(s, '%x%x', function (h)
		return char(tonumber(h, 16))
	end))
end

-- A value as `type` and text: PHP compares strings, so a non-string is a difference
-- worth seeing as such.
local function value(v)
	local t = type(v)
	local ok, s = pcall(tostring, v)
	if not ok or type(s) ~= 'string' then
		s = '(tostring failed)'
	end
	return t, s
end

local function record(out, kind, ...)
	local fields = { '@@WWT:', kind }
	for i = 1, select('#', ...) do
		fields[#fields + 1] = ':' .. hex(tostring((select(i, ...))))
	end
	fields[#fields + 1] = ';'
	out[#out + 1] = concat(fields)
end

-- What each PHP test class's setUp does in the Lua engine before the module loads.
local setups = {
	HtmlLibraryTests = function ()
		-- Parser::MARKER_PREFIX .. '-test-nowiki-' .. Parser::MARKER_SUFFIX
		mw.html.stripMarkers = { nowiki = "\127'\"`UNIQ--test-nowiki-QINU`\"'\127" }
	end,
	TextLibraryTests = function (frame)
		-- PHP puts a nowiki and a general item into the parser's strip state; on a wiki
		-- only the parser does, for a <nowiki> and for any other tag.
		mw.text.stripTest = {
			nowiki = frame:extensionTag('nowiki', 'NoWiki'),
			general = frame:extensionTag('pre', 'General'),
		}
	end,
	TitleLibraryTests = function (frame)
		mw.title.testPageId = tonumber(frame.args.pageid)
	end,
}

local function load(out, name)
	local ok, provider = pcall(require, 'Module:' .. name)
	if not ok then
		record(out, 'load', value(provider))
		return nil
	end
	if type(provider) ~= 'table' then
		record(out, 'load', 'string', 'the module returned a ' .. type(provider))
		return nil
	end
	return provider
end

function p.list(frame)
	local out = {}
	local provider = load(out, frame.args[1])
	if provider then
		local count = provider.count
		record(out, 'count', value(count))
		local from = tonumber(frame.args[2]) or 1
		local to = tonumber(frame.args[3]) or count
		if type(count) == 'number' and to > count then
			to = count
		end
		for i = from, to do
			local ok, key, name, expect = pcall(provider.provide, i)
			if ok then
				local name_type, name_text = value(name)
				record(out, 'test', i, name_type, name_text, value(expect))
			else
				record(out, 'provide', i, value(key))
			end
		end
	end
	return concat(out)
end

function p.run(frame)
	local out = {}
	local name, n = frame.args[1], tonumber(frame.args[2])
	local setup = setups[name]
	if setup then
		local ok, err = pcall(setup, frame)
		if not ok then
			record(out, 'setup', value(err))
		end
	end
	local provider = load(out, name)
	if provider then
		local ok, got = pcall(provider.run, n)
		if ok then
			record(out, 'ok', value(got))
		elseif type(got) == 'string' and sub(got, 1, 6) == 'SKIP: ' then
			record(out, 'skip', 'string', sub(got, 7, len(got)))
		else
			record(out, 'error', value(got))
		end
	end
	return concat(out)
end

function p.norm(frame)
	local out = {}
	local provider = load(out, 'UstringLibraryNormalizationTests')
	if provider then
		for line in gmatch(frame.args[1], '[^;]+') do
			local cols = {}
			for field in gmatch(line, '[^,]+') do
				cols[#cols + 1] = unhex(field)
			end
			local got = { pcall(provider.run, cols[1], cols[2], cols[3], cols[4], cols[5]) }
			if got[1] then
				record(out, 'norm', unpack(got, 2, 21))
			else
				record(out, 'error', value(got[2]))
			end
		end
	end
	return concat(out)
end

return p
