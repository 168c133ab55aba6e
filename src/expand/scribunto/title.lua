-- mw.title: title objects, their fields and methods; parsing, existence, redirects and
-- content come from Rust (`title.rs`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): sets `iface.completeTitle`.
local iface, _, lib = ...
local type, error, select, tonumber, setmetatable, rawget, rawset =
	type, error, select, tonumber, setmetatable, rawget, rawset
local host = lib.host
local mw = mw

local title = {}
mw.title = title
local Title = {}
local methods = {}
-- A fragment as MediaWiki keeps it: runs of spaces and underscores as one space, no
-- trailing space.
local function normalFragment(v)
	v = v:gsub('[%s_]+', ' ')
	return (v:gsub('^(.-) ?$', '%1'))
end
local function make(fields)
	if not fields then
		return nil
	end
	fields.fragment = normalFragment(fields.fragment or '')
	iface.completeTitle(fields)
	return setmetatable({ fields = fields }, Title)
end
local function lazy(self, key, f)
	local cache = rawget(self, 'cache')
	if not cache then
		cache = {}
		rawset(self, 'cache', cache)
	end
	if cache[key] == nil then
		local v = f()
		cache[key] = v == nil and false or v
	end
	local v = cache[key]
	if v == false and key ~= 'exists' and key ~= 'isRedirect' and key ~= 'redirectTarget' then
		return nil
	end
	return v
end
Title.__index = function(self, k)
	local f = rawget(self, 'fields')
	local m = methods[k]
	if m then
		return m
	end
	if k == 'fullText' then
		return f.fragment ~= '' and (f.prefixedText .. '#' .. f.fragment) or f.prefixedText
	end
	local v = f[k]
	if v ~= nil then
		return v
	end
	if k == 'exists' then
		return lazy(self, k, function()
			return host('exists', f.namespace, f.dbkey, f.interwiki)
		end)
	elseif k == 'isRedirect' then
		return lazy(self, k, function()
			return host('redirect', f.namespace, f.dbkey) ~= nil
		end)
	elseif k == 'redirectTarget' then
		return lazy(self, k, function()
			return make(host('redirect', f.namespace, f.dbkey)) or false
		end)
	elseif k == 'id' then
		return lazy(self, k, function()
			return host('pageId', f.namespace, f.dbkey, f.interwiki)
		end)
	elseif k == 'basePageTitle' then
		return title.makeTitle(f.namespace, f.baseText)
	elseif k == 'rootPageTitle' then
		return title.makeTitle(f.namespace, f.rootText)
	elseif k == 'talkPageTitle' then
		if f.namespace < 0 then
			return nil
		end
		return title.makeTitle(f.namespace - f.namespace % 2 + 1, f.text)
	elseif k == 'subjectPageTitle' then
		if f.namespace < 0 then
			return self
		end
		return title.makeTitle(f.namespace - f.namespace % 2, f.text)
	elseif k == 'pageLang' then
		return mw.language.getContentLanguage()
	elseif k == 'file' or k == 'fileExists' then
		-- A dump holds no uploaded files: a File: or Media: page has none.
		if f.namespace ~= 6 and f.namespace ~= -2 then
			return nil
		end
		mw.incrementExpensiveFunctionCount()
		return k == 'file' and { exists = false } or false
	elseif k == 'protectionLevels' or k == 'cascadingProtection' then
		-- A dump holds no protections.
		return k == 'protectionLevels' and { edit = {}, move = {} } or { restrictions = {}, sources = {} }
	end
	return nil
end
-- Fields a module cannot set; `fragment` it can (normalized as MediaWiki does: runs of
-- spaces and underscores become one space, a trailing space goes), other keys are its own.
local readOnly = {
	id = true, interwiki = true, namespace = true, nsText = true, subjectNsText = true,
	talkNsText = true, text = true, prefixedText = true, fullText = true, rootText = true,
	baseText = true, subpageText = true, canTalk = true, exists = true, isContentPage = true,
	isExternal = true, isLocal = true, isRedirect = true, isSpecialPage = true,
	isSubpage = true, isTalkPage = true, contentModel = true, basePageTitle = true,
	rootPageTitle = true, talkPageTitle = true, subjectPageTitle = true,
	redirectTarget = true, pageLang = true, protectionLevels = true,
	cascadingProtection = true, file = true, fileExists = true,
}
Title.__newindex = function(self, k, v)
	if k == 'fragment' then
		if type(v) ~= 'string' then
			error(string.format("value for index '%s' must be %s, %s given", k, 'string', type(v)), 2)
		end
		rawget(self, 'fields').fragment = normalFragment(v)
	elseif readOnly[k] or methods[k] then
		error("index '" .. tostring(k) .. "' is read only", 2)
	else
		rawset(self, k, v)
	end
end
Title.__tostring = function(self)
	return self.fields.prefixedText
end
Title.__eq = function(a, b)
	return title.equals(a, b)
end
Title.__lt = function(a, b)
	return title.compare(a, b) < 0
end
Title.__le = function(a, b)
	return title.compare(a, b) <= 0
end
function methods.isSubpageOf(self, other)
	return self.fields.namespace == other.fields.namespace
		and self.fields.text:sub(1, #other.fields.text + 1) == other.fields.text .. '/'
		and self.fields.hasSubpages
end
function methods.inNamespace(self, ns)
	if type(ns) == 'string' then
		ns = mw.site.matchNamespaceName(ns)
	end
	return self.fields.namespace == tonumber(ns)
end
function methods.inNamespaces(self, ...)
	for i = 1, select('#', ...) do
		if methods.inNamespace(self, (select(i, ...))) then
			return true
		end
	end
	return false
end
function methods.hasSubjectNamespace(self, ns)
	if type(ns) == 'string' then
		ns = mw.site.matchNamespaceName(ns)
	end
	ns = tonumber(ns)
	local own = self.fields.namespace
	return ns ~= nil and own - own % 2 == ns - ns % 2
end
function methods.subPageTitle(self, sub)
	return title.makeTitle(self.fields.namespace, self.fields.text .. '/' .. tostring(sub))
end
function methods.partialUrl(self)
	return (self.fields.dbkey:gsub('[^%w%-%._~:/]', function(c)
		return string.format('%%%02X', c:byte())
	end))
end
local function url(kind)
	return function(self, q, proto)
		local qs = q
		if type(q) == 'table' then
			qs = mw.uri.buildQueryString(q)
		end
		local u = host('url', kind, self.fields.prefixedText, qs)
		if (proto == 'http' or proto == 'https') and kind == 'full' and u:sub(1, 2) == '//' then
			u = proto .. ':' .. u
		end
		local frag = self.fields.fragment
		if kind ~= 'local' and frag ~= '' then
			-- As MediaWiki's fragment for a URL (HTML5 ids): spaces as underscores, a
			-- `%XX` that is already there escaped.
			u = u .. '#' .. frag:gsub(' ', '_'):gsub('%%(%x%x)', '%%25%1')
		end
		return u
	end
end
methods.fullUrl = url('full')
methods.localUrl = url('local')
methods.canonicalUrl = url('canonical')
function methods.getContent(self)
	return host('content', self.fields.namespace, self.fields.dbkey)
end
function title.new(t, ns)
	if type(t) == 'number' then
		return make(host('titleById', t))
	end
	if type(t) ~= 'string' then
		error("bad argument #1 to 'mw.title.new' (string or number expected, got " .. type(t) .. ')', 2)
	end
	if ns ~= nil and type(ns) ~= 'number' then
		ns = mw.site.matchNamespaceName(ns)
	end
	return make(host('title', t, ns or 0))
end
function title.makeTitle(ns, t, fragment, interwiki)
	if type(ns) == 'string' then
		ns = mw.site.matchNamespaceName(ns)
	end
	if ns == nil or t == nil then
		return nil
	end
	return make(host('maketitle', ns, tostring(t), fragment, interwiki))
end
function title.getCurrentTitle()
	return make(host('currentTitle'))
end
function title.equals(a, b)
	return a.fields.prefixedText == b.fields.prefixedText and a.fields.interwiki == b.fields.interwiki
end
function title.compare(a, b)
	local ai, bi = a.fields.interwiki or '', b.fields.interwiki or ''
	if ai ~= bi then
		return ai < bi and -1 or 1
	end
	if a.fields.namespace ~= b.fields.namespace then
		return a.fields.namespace < b.fields.namespace and -1 or 1
	end
	if a.fields.text ~= b.fields.text then
		return a.fields.text < b.fields.text and -1 or 1
	end
	return 0
end
-- Fields computed from (namespace, text) here rather than in Rust.
iface.completeTitle = function(f)
	local t = f.text
	f.prefixedText = f.nsText ~= '' and (f.nsText .. ':' .. t) or t
	if f.interwiki and f.interwiki ~= '' then
		f.prefixedText = f.interwiki .. ':' .. f.prefixedText
	else
		f.interwiki = ''
	end
	f.isSubpage = f.hasSubpages and t:find('/', 1, true) ~= nil
	f.baseText = f.hasSubpages and t:match('^(.*)/[^/]*$') or t
	f.rootText = f.hasSubpages and t:match('^([^/]*)/') or t
	f.subpageText = f.hasSubpages and t:match('/([^/]*)$') or t
	f.isContentPage = f.namespace == 0
	f.isExternal = f.interwiki ~= ''
	f.isLocal = f.interwiki == ''
	f.isTalkPage = f.namespace >= 0 and f.namespace % 2 == 1
	f.isSpecialPage = f.namespace == -1
	f.canTalk = f.namespace >= 0
	return f
end
