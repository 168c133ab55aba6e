-- Evaluates the cases of cases.lua with lua5.1 and writes each as one JSON line for
-- gen.php: the Lua value as Scribunto hands it over (a table's entries in `pairs`
-- order, numbers with their full precision, strings as hex).
local cases = dofile(arg[1])

local function pairs(t)
	local mt = getmetatable(t)
	if mt and mt.__pairs then
		return mt.__pairs(t)
	end
	return next, t, nil
end

local function nest(n)
	local t = {}
	for _ = 2, n do
		t = { t }
	end
	return t
end

local function quote(s)
	return '"' .. s:gsub('[%c"\\\128-\255]', function(c)
		return string.format('\\u%04x', c:byte())
	end) .. '"'
end

local function hex(s)
	return quote((s:gsub('.', function(c)
		return string.format('%02x', c:byte())
	end)))
end

local function number(n)
	return '{"n":' .. quote(string.format('%.17g', n)) .. ',"lua":' .. quote(tostring(n)) .. '}'
end

local function tagged(v)
	local t = type(v)
	if t == 'nil' then
		return 'null'
	elseif t == 'boolean' then
		return tostring(v)
	elseif t == 'number' then
		return number(v)
	elseif t == 'string' then
		return '{"s":' .. hex(v) .. '}'
	elseif t == 'table' then
		local out = {}
		for k, x in pairs(v) do
			out[#out + 1] = '[' .. tagged(k) .. ',' .. tagged(x) .. ']'
		end
		return '{"a":[' .. table.concat(out, ',') .. ']}'
	end
	error('cannot hand over ' .. t)
end

local env = { setmetatable = setmetatable, nest = nest }
for _, c in ipairs(cases.encode) do
	local f = assert(loadstring('return ' .. c[2]))
	setfenv(f, env)
	print('{"op":"encode","flags":' .. c[1] .. ',"expr":' .. hex(c[2]) .. ',"value":'
		.. tagged(f()) .. '}')
end
for _, c in ipairs(cases.decode) do
	print('{"op":"decode","flags":' .. c[1] .. ',"text":' .. hex(c[2]) .. '}')
end
