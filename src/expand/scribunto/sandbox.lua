-- The sandbox every module runs in: what Lua's standard library may not reach, and the
-- replacements that keep output deterministic (no addresses, a pinned clock, a seeded
-- random generator) and the time budget unescapable. Loaded first.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): `iface.expired` tells whether the page's instruction
-- budget ran out; `site.now` is the pinned time; `lib` receives what later files use.
local iface, site, lib = ...
local rawsetfenv, rawloadstring, rawpairs = setfenv, loadstring, pairs
local type, error, tonumber, rawgetmetatable = type, error, tonumber, getmetatable
local floor = math.floor
-- Captured before they are removed: module environments (`mw.lua`, `frame.lua`) and
-- `mw.site` (`site.lua`) need them.
lib.rawsetfenv, lib.rawpairs, lib.rawgetmetatable = rawsetfenv, rawpairs, rawgetmetatable
-- Functions that put a library's page state back as a fresh state has it (`page.lua`).
lib.pageResets = {}

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
-- Addresses differ from run to run: never print them (`tostring` writes a table,
-- function, userdata or thread as its type's name unless its metatable has a
-- `__tostring`). `pairs` and `ipairs` honour `__pairs` and `__ipairs` as Lua 5.2 does;
-- as in Scribunto, only the first three values of the metamethod are an iterator's.
-- `getmetatable` answers only for tables: the metatable of strings (whose `__index` is
-- the real `string` table) and of any other non-table would let a module change what
-- every other module sees. All four are C functions (`base_functions.rs`).
tostring, pairs, ipairs, getmetatable = iface.tostring, iface.pairs, iface.ipairs, iface.getmetatable

-- Library functions that trust their arguments. Lua 5.1's `unpack` computes the count of
-- results in an `int`: a range such as (0, 2^31 - 1) overflows it and the C stack is
-- overrun (a crash, not an error). Checked first, as Scribunto does; the C function
-- keeps the local name `old_unpack` because Lua names it so in its own argument errors,
-- as modules on Wikipedia see them.
do
	local old_unpack, abs = unpack, math.abs
	local MAX_INT, MAX_RESULTS = 2 ^ 31 - 1, 8000
	function unpack(t, i, j)
		if type(t) == 'table' then
			local from, to = i, j
			if from == nil then
				from = 1
			end
			if to == nil then
				to = #t
			end
			if type(from) == 'number' and type(to) == 'number'
				and (abs(from) > MAX_INT or abs(to) > MAX_INT or to - from > MAX_RESULTS)
			then
				error('too many results to unpack', 2)
			end
		end
		return old_unpack(t, i, j)
	end
end

-- Work done inside C functions runs no VM instruction, so the count would not see a loop
-- around `string.rep('x', 1e7)`: such calls are charged to the page's budget by the bytes
-- they produce (`iface.charge`, in instructions), and a result larger than the Lua heap
-- may hold fails at once instead of after filling it. (A C function called in a tail
-- position keeps its name in its own argument errors: the wrappers give `bad argument #1
-- to 'rep'` as Lua does.)
local charge, memoryLimit = iface.charge, iface.memoryLimit
-- Bytes a C function may touch before its work is charged; below this a call costs
-- about what the instructions that make it cost.
local FREE_BYTES = iface.freeBytes
do
	local rep, floor = string.rep, math.floor
	function string.rep(s, n)
		local len, count = (type(s) == 'string' or type(s) == 'number') and #tostring(s),
			tonumber(n)
		if len and count and count >= 1 then
			if len == 0 then
				return ''
			end
			local total = len * floor(count)
			if total > memoryLimit then
				error('not enough memory', 2)
			end
			if total > FREE_BYTES then
				charge(total / 16)
			end
		end
		return rep(s, n)
	end
	local concat = table.concat
	function table.concat(t, sep, i, j)
		local r = concat(t, sep, i, j)
		local count = type(t) == 'table' and (tonumber(j) or #t) - (tonumber(i) or 1) or 0
		if #r > FREE_BYTES or count > FREE_BYTES then
			charge((#r + count) / 16)
		end
		return r
	end
	-- `table.insert(t, -2^31, v)` moves every slot from `#t` down to the position: two
	-- billion steps in C for a one-line call.
	local insert = table.insert
	function table.insert(...)
		local t, pos = ...
		if select('#', ...) == 3 and type(t) == 'table' and type(pos) == 'number' then
			local moves = #t - pos
			if moves > FREE_BYTES then
				charge(moves)
			end
		end
		return insert(...)
	end
	-- Sorting is charged at every size: a sort of 200 items makes ~1,500 comparisons in C
	-- for one instruction, and a comparator that sorts again (found by fuzzing) multiplies
	-- that uncounted work until one page ran for minutes. About one instruction per
	-- comparison (n ln n), whether or not a comparator's own instructions count too.
	local sort, log = table.sort, math.log
	function table.sort(t, comp)
		local n = type(t) == 'table' and #t or 0
		if n > 1 then
			charge(n * log(n))
		end
		return sort(t, comp)
	end
end

-- Lua 5.1's pattern matcher recurses in C once per quantifier or capture of the pattern,
-- with no bound of its own: a long enough pattern of `a?a?a?…` overruns the C stack.
-- Patterns with more such items than any real module uses are refused. Scanning a long
-- subject is charged like the string functions above, and the matcher's backtracking by
-- the steps it will take (counted in Rust by the same algorithm, up to the budget left).
-- The four functions are C closures that charge the call and then run Lua's own
-- (`pattern_calls.rs`).
string.find, string.match, string.gmatch, string.gsub = iface.patternCalls(string.find,
	string.match, string.gmatch, string.gsub)

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
-- `lib.randomUses()` counts the calls that read or set its state (`mw.loadData` does not
-- share a table whose making used it).
do
	local seed, uses = 1, 0
	lib.pageResets[#lib.pageResets + 1] = function()
		seed = 1
	end
	function lib.randomUses()
		return uses
	end
	function math.randomseed(s)
		uses = uses + 1
		seed = floor(tonumber(s) or 0) % 2147483648
	end
	function math.random(m, n)
		uses = uses + 1
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
