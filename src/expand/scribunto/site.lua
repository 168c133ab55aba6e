-- mw.site: the wiki's name, server, statistics and namespaces.
-- The data comes from Rust (`site.rs`) as the `site` argument.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib).
local _, site, lib = ...
local type, tonumber, setmetatable, getmetatable, rawget =
	type, tonumber, setmetatable, getmetatable, rawget
local rawpairs = lib.rawpairs
local mw = mw
local ustring = mw.ustring

local s = {
	siteName = site.sitename, server = site.server, scriptPath = site.scriptPath,
	stylePath = site.scriptPath .. '/skins', currentVersion = '1.39.0',
	stats = {
		pages = site.stats.pages, articles = site.stats.articles, files = site.stats.files,
		edits = site.stats.edits, users = site.stats.users, activeUsers = site.stats.activeUsers,
		admins = site.stats.admins,
	},
}
-- A dump holds no interwiki table: every filter answers an empty map, after
-- Scribunto's checks of the filter.
function s.interwikiMap(filter)
	if filter ~= nil and type(filter) ~= 'string' then
		error(string.format("bad argument #1 to 'interwikiMap' (string expected, got %s)", type(filter)), 0)
	elseif filter ~= nil and filter ~= 'local' and filter ~= '!local' then
		error(string.format("bad argument #1 to 'interwikiMap' (unknown filter '%s')", filter), 0)
	end
	return {}
end
function s.stats.pagesInCategory()
	return 0
end
function s.stats.pagesInNamespace()
	return 0
end
function s.stats.usersInGroup()
	return 0
end
local namespaces, byName = {}, {}
-- Names match case-insensitively, with any run of whitespace and underscores as one
-- space and none at either end (MediaWiki's getNsIndex).
local function norm(n)
	local name = ustring.lower(tostring(n)):gsub('[%s_]+', ' ')
	return (name:match('^ ?(.-) ?$'))
end
for _, n in ipairs(site.namespaces) do
	local ns = {
		id = n.id, name = n.name, canonicalName = n.canonicalName,
		displayName = n.name, aliases = n.aliases or {},
		hasSubpages = n.hasSubpages, hasGenderDistinction = n.id == 2 or n.id == 3,
		isCapitalized = n.isCapitalized, isContent = n.id == 0, isIncludable = true,
		isMovable = n.id >= 0, isSubject = n.id < 2 or n.id % 2 == 0,
		isTalk = n.id >= 0 and n.id % 2 == 1, defaultContentModel = nil,
	}
	namespaces[n.id] = ns
	byName[norm(n.name)] = ns
	byName[norm(n.canonicalName)] = ns
	for _, a in ipairs(ns.aliases) do
		byName[norm(a)] = ns
	end
end
for id, ns in pairs(namespaces) do
	if id >= 0 then
		ns.subject = namespaces[id - id % 2]
		ns.talk = namespaces[id - id % 2 + 1]
		ns.associated = ns.isTalk and ns.subject or ns.talk
	else
		ns.subject = ns
	end
end
setmetatable(namespaces, {
	__index = function(t, k)
		if type(k) == 'string' then
			local id = tonumber(k)
			if id then
				return rawget(t, id)
			end
			return byName[norm(k)]
		end
	end,
})
s.namespaces = namespaces
s.contentNamespaces, s.subjectNamespaces, s.talkNamespaces = { [0] = namespaces[0] }, {}, {}
setmetatable(s.contentNamespaces, getmetatable(namespaces))
for id, ns in rawpairs(namespaces) do
	if ns.isSubject then
		s.subjectNamespaces[id] = ns
	end
	if ns.isTalk then
		s.talkNamespaces[id] = ns
	end
end
function s.matchNamespaceName(name)
	local ns = byName[norm(name)]
	return ns and ns.id
end
mw.site = s
