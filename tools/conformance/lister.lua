-- The names of a LuaCommon test file's tests, for a file the engine under test cannot
-- load: runs the file on the reference Lua 5.1 with every `mw` value (and every module
-- but Module:TestFramework) replaced by a stub that accepts any use.
-- usage: lua5.1 lister.lua DIR NAME   (DIR holds TestFramework.lua and NAME.lua)
local dir, name = arg[1], arg[2]

local stub_mt = {}
local function stub()
	return setmetatable({}, stub_mt)
end
stub_mt.__index = function (t, k)
	local v = stub()
	rawset(t, k, v)
	return v
end
stub_mt.__call = stub
stub_mt.__concat = function () return '' end
stub_mt.__tostring = function () return 'stub' end
stub_mt.__len = function () return 0 end
for _, op in ipairs({ '__add', '__sub', '__mul', '__div', '__mod', '__pow', '__unm' }) do
	stub_mt[op] = function () return 0 end
end

mw = stub()
local framework = dofile(dir .. '/TestFramework.lua')
function require(module)
	if module == 'Module:TestFramework' then
		return framework
	end
	return stub()
end

local provider = dofile(dir .. '/' .. name .. '.lua')
for i = 1, provider.count do
	local ok, _, test_name = pcall(provider.provide, i)
	io.write(i, '\t', ok and tostring(test_name) or '(unnamed)', '\n')
end
