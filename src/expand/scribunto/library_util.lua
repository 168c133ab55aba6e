-- libraryUtil: the argument checks Scribunto's libraries and modules share
-- (`require('libraryUtil')`).
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib); sets `lib.libraryUtil`.
local _, _, lib = ...
local type, error = type, error
local concat = table.concat

local libraryUtil = {}
do
	local function typeError(name, argIdx, expect, got, level)
		error(string.format("bad argument #%d to '%s' (%s expected, got %s)", argIdx, name,
			expect, got), level + 1)
	end
	function libraryUtil.checkType(name, argIdx, arg, expectType, nilOk)
		if arg == nil and nilOk then
			return
		end
		if type(arg) ~= expectType then
			typeError(name, argIdx, expectType, type(arg), 3)
		end
	end
	function libraryUtil.checkTypeMulti(name, argIdx, arg, expectTypes)
		local t = type(arg)
		for _, e in ipairs(expectTypes) do
			if t == e then
				return
			end
		end
		local n = #expectTypes
		local expect = n > 1 and (concat(expectTypes, ', ', 1, n - 1) .. ' or ' .. expectTypes[n])
			or tostring(expectTypes[1])
		typeError(name, argIdx, expect, t, 3)
	end
	function libraryUtil.checkTypeForIndex(index, value, expectType)
		if type(value) ~= expectType then
			error(string.format("value for index '%s' must be %s, %s given", tostring(index),
				expectType, type(value)), 3)
		end
	end
	function libraryUtil.checkTypeForNamedArg(name, argName, arg, expectType, nilOk)
		if arg == nil and nilOk then
			return
		end
		if type(arg) ~= expectType then
			error(string.format("bad named argument %s to '%s' (%s expected, got %s)", argName,
				name, expectType, type(arg)), 3)
		end
	end
	function libraryUtil.makeCheckSelfFunction(libraryName, varName, selfObj, selfObjDesc)
		return function(self, method)
			if self ~= selfObj then
				error(string.format("%s: invalid %s. Did you call %s with a dot instead of a colon, i.e. %s.%s() instead of %s:%s()?",
					libraryName, selfObjDesc, method, varName, method, varName, method), 3)
			end
		end
	end
end
lib.libraryUtil = libraryUtil
