-- The sandbox every module runs in: what Lua's standard library may not reach, and the
-- replacements that keep output deterministic (no addresses, a pinned clock, a seeded
-- random generator) and the time budget unescapable. Loaded first.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.expired` tells whether the page's instruction
-- budget ran out; `site.now` is the pinned time; `lib` receives what later files use.
local iface, site, lib = ...
local rawsetfenv, rawloadstring, rawtostring, rawpairs, rawipairs =
	setfenv, loadstring, tostring, pairs, ipairs
local type, error, tonumber, getmetatable, rawget = type, error, tonumber, getmetatable, rawget
local floor = math.floor
-- Captured before they are removed: module environments (`mw.lua`, `frame.lua`) and
-- `mw.site` (`site.lua`) need them.
lib.rawsetfenv, lib.rawpairs = rawsetfenv, rawpairs

-- Sandbox: nothing that reaches files, processes, the clock or bytecode.
dofile, loadfile, load, print, collectgarbage, gcinfo, module, newproxy =
	nil, nil, nil, nil, nil, nil, nil, nil
getfenv, setfenv = nil, nil
string.dump = nil
function loadstring(s, name)
	if type(s) ~= 'string' then
		error('bad argument #1 to \'loadstring\' (string expected)', 2)
	end
	if s:sub(1, 1) == '\27' then
		return nil, 'loading binary chunks is not allowed'
	end
	return rawloadstring(s, name)
end
-- Addresses differ from run to run: never print them.
function tostring(v)
	local t = type(v)
	if t == 'table' or t == 'function' or t == 'userdata' or t == 'thread' then
		local mt = getmetatable(v)
		if type(mt) == 'table' and rawget(mt, '__tostring') then
			return rawtostring(v)
		end
		return t
	end
	return rawtostring(v)
end
function pairs(t)
	local mt = getmetatable(t)
	if type(mt) == 'table' and rawget(mt, '__pairs') then
		return mt.__pairs(t)
	end
	return rawpairs(t)
end
function ipairs(t)
	local mt = getmetatable(t)
	if type(mt) == 'table' and rawget(mt, '__ipairs') then
		return mt.__ipairs(t)
	end
	return rawipairs(t)
end

-- As LuaSandbox does, pcall and xpcall do not catch the end of the time budget:
-- otherwise a loop around pcall would run for ever.
do
	local rawpcall, rawxpcall, expired = pcall, xpcall, iface.expired
	local function rethrow(ok, ...)
		if not ok and expired() then
			error((...), 0)
		end
		return ok, ...
	end
	function pcall(f, ...)
		return rethrow(rawpcall(f, ...))
	end
	function xpcall(f, handler)
		return rethrow(rawxpcall(f, function(e)
			if expired() then
				return e
			end
			return handler(e)
		end))
	end
end

-- math.random from C shares one generator across threads: a seeded LCG instead.
do
	local seed = 1
	function math.randomseed(s)
		seed = floor(tonumber(s) or 0) % 2147483648
	end
	function math.random(m, n)
		seed = (1103515245 * seed + 12345) % 2147483648
		local r = seed / 2147483648
		if m == nil then
			return r
		end
		if n == nil then
			m, n = 1, m
		end
		if m > n then
			error('bad argument to \'random\' (interval is empty)', 2)
		end
		return m + floor(r * (n - m + 1))
	end
end

-- os: only the pinned clock.
do
	local now = site.now
	local function civil(days)
		local z = days + 719468
		local era = floor(z / 146097)
		local doe = z - era * 146097
		local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
		local y = yoe + era * 400
		local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
		local mp = floor((5 * doy + 2) / 153)
		local d = doy - floor((153 * mp + 2) / 5) + 1
		local m = mp < 10 and mp + 3 or mp - 9
		if m <= 2 then
			y = y + 1
		end
		return y, m, d
	end
	local function days_from_civil(y, m, d)
		if m <= 2 then
			y = y - 1
		end
		local era = floor(y / 400)
		local yoe = y - era * 400
		local mp = (m + 9) % 12
		local doy = floor((153 * mp + 2) / 5) + d - 1
		local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
		return era * 146097 + doe - 719468
	end
	local function fields(t)
		local days = floor(t / 86400)
		local secs = t - days * 86400
		local y, m, d = civil(days)
		local jan1 = days_from_civil(y, 1, 1)
		return {
			year = y, month = m, day = d,
			hour = floor(secs / 3600), min = floor(secs / 60) % 60, sec = secs % 60,
			wday = (days + 4) % 7 + 1, yday = days - jan1 + 1, isdst = false,
		}
	end
	local MONTHS = { 'January', 'February', 'March', 'April', 'May', 'June', 'July',
		'August', 'September', 'October', 'November', 'December' }
	local DAYS = { 'Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday' }
	local function two(n)
		return string.format('%02d', n)
	end
	os = {}
	function os.time(t)
		if t == nil then
			return now
		end
		if type(t) ~= 'table' then
			error('bad argument #1 to \'time\' (table expected)', 2)
		end
		local function f(k, d)
			local v = t[k]
			if v == nil then
				if d == nil then
					error('field \'' .. k .. '\' missing in date table', 3)
				end
				return d
			end
			return floor(tonumber(v) or 0)
		end
		return days_from_civil(f('year'), f('month'), 1) * 86400 + (f('day') - 1) * 86400
			+ f('hour', 12) * 3600 + f('min', 0) * 60 + f('sec', 0)
	end
	function os.clock()
		return 0
	end
	function os.difftime(a, b)
		return (tonumber(a) or 0) - (tonumber(b) or 0)
	end
	function os.date(format, t)
		format = format or '%c'
		t = t or now
		if format:sub(1, 1) == '!' then
			format = format:sub(2)
		end
		local f = fields(t)
		if format == '*t' then
			return f
		end
		return (format:gsub('%%(.)', function(c)
			if c == 'Y' then return tostring(f.year)
			elseif c == 'y' then return two(f.year % 100)
			elseif c == 'm' then return two(f.month)
			elseif c == 'd' then return two(f.day)
			elseif c == 'H' then return two(f.hour)
			elseif c == 'I' then return two((f.hour + 11) % 12 + 1)
			elseif c == 'M' then return two(f.min)
			elseif c == 'S' then return two(f.sec)
			elseif c == 'p' then return f.hour < 12 and 'AM' or 'PM'
			elseif c == 'B' then return MONTHS[f.month]
			elseif c == 'b' then return MONTHS[f.month]:sub(1, 3)
			elseif c == 'A' then return DAYS[f.wday]
			elseif c == 'a' then return DAYS[f.wday]:sub(1, 3)
			elseif c == 'j' then return string.format('%03d', f.yday)
			elseif c == 'w' then return tostring(f.wday - 1)
			elseif c == 'c' then
				return string.format('%s %s %2d %s:%s:%s %d', DAYS[f.wday]:sub(1, 3),
					MONTHS[f.month]:sub(1, 3), f.day, two(f.hour), two(f.min), two(f.sec), f.year)
			elseif c == 'x' then return two(f.month) .. '/' .. two(f.day) .. '/' .. two(f.year % 100)
			elseif c == 'X' then return two(f.hour) .. ':' .. two(f.min) .. ':' .. two(f.sec)
			elseif c == '%' then return '%'
			end
			return '%' .. c
		end))
	end
end
