-- mw.uri: encoding, query strings and the wiki's URLs.
-- URLs of pages are made in Rust (`uri.rs`, the host's `url` operation).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib).
local _, _, lib = ...
local type, tonumber, setmetatable, getmetatable, rawget, rawset =
	type, tonumber, setmetatable, getmetatable, rawget, rawset
local concat, sort = table.concat, table.sort
local ucheck, host = lib.ucheck, lib.host
local checkType = lib.libraryUtil.checkType
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
-- A query table keeps its keys in the order they were first set (as Scribunto's parsed
-- queries do), so a parsed URL is written back as it was.
local function orderedQuery()
	local keys = {}
	return setmetatable({}, {
		__newindex = function(t, k, v)
			for i, key in ipairs(keys) do
				if key == k then
					table.remove(keys, i)
					break
				end
			end
			keys[#keys + 1] = k
			rawset(t, k, v)
		end,
		__pairs = function(t)
			local i = 0
			return function()
				while i < #keys do
					i = i + 1
					local k = keys[i]
					if rawget(t, k) ~= nil then
						return k, rawget(t, k)
					end
				end
			end, t, nil
		end,
	})
end
-- Pairs in the table's own order when it has one (`__pairs`), else sorted by key: a
-- plain table's hash order is no order a page should depend on.
local function query(q)
	if type(q) ~= 'table' then
		return q
	end
	local entries = {}
	for k, v in pairs(q) do
		entries[#entries + 1] = { tostring(k), v }
	end
	local mt = getmetatable(q)
	if not (type(mt) == 'table' and rawget(mt, '__pairs')) then
		sort(entries, function(x, y)
			return x[1] < y[1]
		end)
	end
	local parts = {}
	for _, e in ipairs(entries) do
		local values = type(e[2]) == 'table' and e[2] or { e[2] }
		for _, v in ipairs(values) do
			if v == false then
				parts[#parts + 1] = uri.encode(e[1])
			else
				parts[#parts + 1] = uri.encode(e[1]) .. '=' .. uri.encode(tostring(v))
			end
		end
	end
	return concat(parts, '&')
end
-- `+` is a space; a key without `=` has the value false; a repeated key collects its
-- values in a list.
function uri.parseQueryString(s, i, j)
	checkType('parseQueryString', 1, s, 'string')
	checkType('parseQueryString', 2, i, 'number', true)
	checkType('parseQueryString', 3, j, 'number', true)
	s = s:sub(i or 1, j or -1):gsub('%+', ' ')
	if s:sub(1, 1) == '?' then
		s = s:sub(2)
	end
	local q = orderedQuery()
	if s == '' then
		return q
	end
	for part in (s .. '&'):gmatch('([^&]*)&') do
		local k, v = part:match('^([^=]*)=(.*)$')
		if k then
			k, v = uri.decode(k, 'PATH'), uri.decode(v, 'PATH')
		else
			k, v = uri.decode(part, 'PATH'), false
		end
		-- A key seen only without a value so far takes the new one (as Scribunto).
		local old = q[k]
		if not old then
			q[k] = v
		elseif type(old) == 'table' then
			old[#old + 1] = v
		else
			q[k] = { old, v }
		end
	end
	return q
end
uri.buildQueryString = query
-- A URL object: the parts are fields (`protocol`, `user`, `password`, `host`, `port`,
-- `path`, `query`, `fragment`); `userInfo`, `hostPort`, `authority`, `queryString` and
-- `relativePath` are computed from them, and setting one sets the parts. `tostring`
-- writes the URL from the parts.
local PARTS = { 'protocol', 'user', 'password', 'host', 'port', 'path', 'query', 'fragment' }
local DERIVED = { 'userInfo', 'hostPort', 'authority', 'queryString', 'relativePath' }
local methods, getters, setters = {}, {}, {}
local uriMeta = {}
function getters.userInfo(o)
	local user, password = rawget(o, 'user'), rawget(o, 'password')
	if user and password then
		return user .. ':' .. password
	end
	return user
end
function getters.hostPort(o)
	local port = rawget(o, 'port')
	if port then
		return (rawget(o, 'host') or '') .. ':' .. port
	end
	return rawget(o, 'host')
end
function getters.authority(o)
	local info, hostPort = o.userInfo, o.hostPort
	if info then
		return info .. '@' .. (hostPort or '')
	end
	return hostPort
end
function getters.queryString(o)
	local q = rawget(o, 'query')
	return q and query(q)
end
function getters.relativePath(o)
	local out, qs, fragment = rawget(o, 'path') or '', o.queryString, rawget(o, 'fragment')
	if qs then
		out = out .. '?' .. qs
	end
	if fragment then
		out = out .. '#' .. fragment
	end
	return out
end
local function checkString(key, value)
	if value ~= nil then
		lib.libraryUtil.checkTypeForIndex(key, value, 'string')
	end
	return value
end
function setters.userInfo(o, v)
	v = checkString('userInfo', v)
	local user, password = v, nil
	if v and v:find(':', 1, true) then
		user, password = v:match('^([^:]*):(.*)$')
	end
	rawset(o, 'user', user)
	rawset(o, 'password', password)
end
function setters.hostPort(o, v)
	v = checkString('hostPort', v)
	local h, port = nil, nil
	if v then
		-- An IPv6 address in brackets holds colons of its own.
		h, port = v:match('^(%[[^/?#%[%]@]+%]):(%d+)$')
		h = h or v:match('^(%[[^/?#%[%]@]+%])$')
		if not h then
			h, port = v:match('^([^:]*):(.*)$')
			if not h then
				h = v
			elseif not tonumber(port) then
				error(string.format("Invalid port in '%s'", v), 3)
			end
		end
	end
	rawset(o, 'host', h)
	rawset(o, 'port', tonumber(port))
end
function setters.authority(o, v)
	v = checkString('authority', v)
	local at = v and v:find('@', 1, true)
	setters.userInfo(o, at and v:sub(1, at - 1) or nil)
	setters.hostPort(o, at and v:sub(at + 1) or v)
end
function setters.queryString(o, v)
	v = checkString('queryString', v)
	rawset(o, 'query', v and uri.parseQueryString(v))
end
function setters.relativePath(o, v)
	v = checkString('relativePath', v)
	local path, q, fragment = v, nil, nil
	if v then
		local hash = v:find('#', 1, true)
		if hash then
			path, fragment = v:sub(1, hash - 1), v:sub(hash + 1)
		end
		local mark = path:find('?', 1, true)
		if mark then
			path, q = path:sub(1, mark - 1), uri.parseQueryString(path:sub(mark + 1))
		end
	end
	rawset(o, 'path', path)
	rawset(o, 'query', q)
	rawset(o, 'fragment', fragment)
end
function uriMeta.__index(o, key)
	if methods[key] then
		return methods[key]
	end
	local get = getters[key]
	return get and get(o)
end
function uriMeta.__newindex(o, key, value)
	if setters[key] then
		return setters[key](o, value)
	elseif methods[key] then
		error("index '" .. key .. "' is read only", 2)
	end
	rawset(o, key, value)
end
-- The parts, then the computed fields, then anything else set on the object.
function uriMeta.__pairs(o)
	local order, seen = {}, {}
	for _, list in ipairs({ PARTS, DERIVED }) do
		for _, k in ipairs(list) do
			order[#order + 1], seen[k] = k, true
		end
	end
	for k in next, o do
		if not seen[k] then
			order[#order + 1] = k
		end
	end
	local i = 0
	return function()
		while i < #order do
			i = i + 1
			local v = o[order[i]]
			if v ~= nil then
				return order[i], v
			end
		end
	end, o, nil
end
function uriMeta.__tostring(o)
	local out, authority = o.protocol and (o.protocol .. ':') or '', o.authority
	if authority then
		out = out .. '//' .. authority
	end
	return out .. o.relativePath
end
-- Whether the parts make a URL: (true, '') or (false, the problems joined by '; ').
function uri.validate(o)
	checkType('validate', 1, o, 'table')
	local problems = {}
	local function check(key, ok, message)
		if o[key] ~= nil and not ok then
			problems[#problems + 1] = message or ('invalid .' .. key)
		end
	end
	local function typed(key, want)
		local t = type(o[key])
		if o[key] ~= nil and t ~= want then
			problems[#problems + 1] = string.format('.%s must be a %s, not %s', key, want, t)
			return false
		end
		return o[key] ~= nil
	end
	if typed('protocol', 'string') then
		check('protocol', o.protocol:match('^[^:/?#]+$'))
	end
	for _, key in ipairs({ 'user', 'password' }) do
		if typed(key, 'string') then
			check(key, o[key]:match('^[^:@/?#]*$'))
		end
	end
	if typed('host', 'string') then
		check('host', o.host:match('^[^:/?#]*$') or o.host:match('^%[[^/?#%[%]@]+%]$'))
	end
	local port = o.port
	if port ~= nil and (type(port) ~= 'number' or port % 1 ~= 0) then
		problems[#problems + 1] = '.port must be an integer, not ' .. type(port)
	elseif port ~= nil then
		check('port', port >= 1 and port <= 65535)
	end
	local authority = o.user or o.password or o.host or o.port
	local path = o.path
	if path == nil then
		problems[#problems + 1] = 'missing .path'
	elseif typed('path', 'string') then
		local fine
		if authority then
			fine = path == '' or path:match('^/[^?#]*$')
		else
			-- Without an authority a path must not look like one (`//`), nor, without a
			-- protocol, like a protocol (`a:b`).
			fine = path == '' or path == '/' or path:match('^/[^?#/][^?#]*$')
				or (o.protocol and path:match('^[^?#/][^?#]*$'))
				or (not o.protocol and (path:match('^[^?#/:]+$') or path:match('^[^?#/:]+/[^?#]*$')))
		end
		check('path', fine)
	end
	typed('query', 'table')
	typed('fragment', 'string')
	return #problems == 0, concat(problems, '; ')
end
function methods.parse(o, s)
	checkType('uri:parse', 1, s, 'string')
	local protocol, authority, rest = s:match('^([^:/?#]+)://([^/?#]*)(.*)$')
	if not protocol then
		authority, rest = s:match('^//([^/?#]*)(.*)$')
	end
	if not (protocol or authority) then
		protocol, rest = s:match('^([^:/?#]+):(.*)$')
	end
	local parsed = setmetatable({ protocol = protocol }, uriMeta)
	if not pcall(setters.authority, parsed, authority) then
		error('Invalid port number in string', 2)
	end
	parsed.relativePath = rest or s
	local ok, problems = uri.validate(parsed)
	if not ok then
		error(problems, 2)
	end
	-- Only the parts the string has replace the object's.
	for _, k in ipairs(PARTS) do
		local v = rawget(parsed, k)
		if v ~= nil then
			rawset(o, k, v)
		end
	end
	if parsed.password then
		rawset(o, 'user', rawget(parsed, 'user'))
	end
	return o
end
function methods.clone(o)
	return uri.new(o)
end
function methods.extend(o, parameters)
	checkType('uri:extend', 1, parameters, 'table')
	local q = rawget(o, 'query')
	if not q then
		q = orderedQuery()
		rawset(o, 'query', q)
	end
	for k, v in pairs(parameters) do
		q[k] = v
	end
	return o
end
function methods.validate(o)
	return uri.validate(o)
end
function uri.new(s)
	if s == nil or type(s) == 'string' then
		local o = setmetatable({}, uriMeta)
		return o:parse(s or mw.title.getCurrentTitle():fullUrl())
	elseif type(s) == 'table' then
		local o = setmetatable({}, uriMeta)
		for _, k in ipairs(PARTS) do
			rawset(o, k, k == 'query' and mw.clone(s.query) or s[k])
		end
		return o
	end
	checkType('new', 1, s, 'string or table or nil')
end
-- As the title's own URL methods (the page name as MediaWiki writes it, the fragment
-- in full and canonical URLs), as a URL object.
local function url(kind, name, page, q)
	checkType(name, 1, page, 'string')
	if q ~= nil and type(q) ~= 'string' and type(q) ~= 'table' then
		checkType(name, 2, q, 'string or table')
	end
	local t = mw.title.new(page)
	if not t then
		return nil
	end
	return uri.new(t[kind .. 'Url'](t, q))
end
function uri.localUrl(page, q)
	return url('local', 'localurl', page, q)
end
function uri.fullUrl(page, q)
	return url('full', 'fullurl', page, q)
end
function uri.canonicalUrl(page, q)
	return url('canonical', 'canonicalurl', page, q)
end
