-- mw.hash: PHP's hash() over the algorithms of PHP 8.2's hash_algos(); the digests are
-- computed in Rust (`hash.rs`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.hash` holds the Rust functions.
local iface, _, lib = ...
local error = error
local checkType = lib.libraryUtil.checkType
local native = iface.hash

local hash = {}
mw.hash = hash
function hash.listAlgorithms()
	return native.listAlgorithms()
end
function hash.hashValue(algo, value)
	checkType('hashValue', 1, algo, 'string')
	checkType('hashValue', 2, value, 'string')
	local h, err = native.hashValue(algo, value)
	if err then
		-- Raised on PHP's side in Scribunto: no position.
		error(err, 0)
	end
	return h
end
