-- mw.uri: encoding, query strings and the wiki's URLs.
-- URLs of pages are made in Rust (`uri.rs`, the host's `url` operation).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib).
local _, _, lib = ...
local type, tonumber, setmetatable = type, tonumber, setmetatable
local concat, sort = table.concat, table.sort
local ucheck, host = lib.ucheck, lib.host
local mw = mw

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
-- As the title's own URL methods: the page name as MediaWiki writes it, and its
-- fragment in full and canonical URLs.
local function url(kind, page, q)
	local t = mw.title.new(tostring(page))
	if not t then
		return nil
	end
	return t[kind .. 'Url'](t, q)
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
