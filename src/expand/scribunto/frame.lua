-- Frames: `frame.args`, the parent frame, expandTemplate, preprocess, callParserFunction,
-- newChild (answered in Rust, `frame.rs`), mw.getCurrentFrame, and the #invoke driver
-- that runs a module's function with the invocation's frame. Loaded last.
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib): sets `iface.invoke`, which Rust calls.
local iface, _, lib = ...
local type, error, tonumber, setmetatable = type, error, tonumber, setmetatable
local concat, sort, floor = table.concat, table.sort, math.floor
local host, cloneEnv, rawsetfenv = lib.host, lib.cloneEnv, lib.rawsetfenv
local mw = mw

local currentFrame
local frames = {}
lib.pageResets[#lib.pageResets + 1] = function()
	currentFrame, frames = nil, {}
end
local function argKey(k)
	if type(k) == 'string' and (k:match('^%-?[1-9]%d*$') or k == '0') and #k < 16 then
		return tonumber(k)
	end
	return k
end
local function newFrame(fid)
	if frames[fid] then
		return frames[fid]
	end
	local frame = {}
	local cache = {}
	local names
	local function get(k)
		local key
		if type(k) == 'number' then
			if k ~= floor(k) then
				return nil
			end
			key = string.format('%d', k)
		elseif type(k) == 'string' then
			key = k
		else
			return nil
		end
		local v = cache[key]
		if v == nil then
			v = host('arg', fid, key)
			cache[key] = v == nil and false or v
		end
		return v or nil
	end
	local args = {}
	setmetatable(args, {
		__index = function(t, k)
			return get(k)
		end,
		__newindex = function(t, k, v)
			error('frame.args is read-only', 2)
		end,
		__pairs = function(t)
			if not names then
				names = host('argnames', fid)
			end
			local i = 0
			return function()
				i = i + 1
				local n = names[i]
				if n == nil then
					return nil
				end
				return argKey(n), get(n)
			end, t, nil
		end,
		__ipairs = function(t)
			return function(_, i)
				i = i + 1
				local v = get(i)
				if v ~= nil then
					return i, v
				end
			end, t, 0
		end,
	})
	frame.args = args
	function frame:getParent()
		local p = host('parent', fid)
		return p and newFrame(p) or nil
	end
	function frame:getTitle()
		return host('frametitle', fid)
	end
	function frame:getArgument(name)
		if type(name) == 'table' then
			name = name.name
		end
		local v = get(name)
		if v == nil then
			return nil
		end
		return { expand = function()
			return v
		end }
	end
	function frame:argumentPairs()
		return pairs(args)
	end
	-- Scribunto's argument check for the frame's calls into the parser: keys strings
	-- or numbers, values strings or numbers (booleans as '1' or ''); anything else an
	-- error, never its `tostring` (a table's address would make the page differ from
	-- run to run). `level`: where the error points (3: the method's caller).
	local function checkArgs(what, t, level)
		local out = {}
		for k, v in pairs(t) do
			local tp = type(k)
			if tp ~= 'string' and tp ~= 'number' then
				error(what .. ': arg keys must be strings or numbers, ' .. tp .. ' given', level)
			end
			tp = type(v)
			if tp == 'boolean' then
				out[k] = v and '1' or ''
			elseif tp == 'string' or tp == 'number' then
				out[k] = tostring(v)
			else
				error(what .. ': invalid type ' .. tp .. " for arg '" .. k .. "'", level)
			end
		end
		return out
	end
	local function stringArgs(t, what)
		local out = {}
		if t == nil then
			return out
		end
		if type(t) ~= 'table' then
			error(what .. ': args must be a table', 3)
		end
		for k, v in pairs(checkArgs(what, t, 4)) do
			out[#out + 1] = { tostring(k), v }
		end
		return out
	end
	-- A tag or function name: a string or a number.
	local function checkName(what, name, kind)
		if name == nil then
			error(what .. ': a function name is required', 3)
		elseif type(name) ~= 'string' and type(name) ~= 'number' then
			error(what .. ': ' .. kind .. ' must be a string or number', 3)
		end
		return tostring(name)
	end
	function frame:expandTemplate(opt)
		if type(opt) ~= 'table' then
			error('frame:expandTemplate: the first parameter must be a table', 2)
		end
		local t = opt.title
		if t == nil then
			error('frame:expandTemplate: a title is required', 2)
		end
		if type(t) == 'table' and t.fields then
			t = t.fields.prefixedText
		end
		local r, err = host('expandTemplate', fid, tostring(t), stringArgs(opt.args, 'frame:expandTemplate'))
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:preprocess(opt)
		if type(opt) == 'table' then
			opt = opt.text
		end
		if type(opt) ~= 'string' and type(opt) ~= 'number' then
			error("bad argument #1 to 'preprocess' (string expected, got " .. type(opt) .. ')', 2)
		end
		local r, err = host('preprocess', fid, tostring(opt))
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:callParserFunction(name, args, ...)
		if type(name) == 'table' then
			name, args = name.name, name.args
			if type(args) ~= 'table' then
				args = { args }
			end
		elseif type(args) ~= 'table' then
			args = { args, ... }
		end
		name = checkName('frame:callParserFunction', name, 'function name')
		args = checkArgs('frame:callParserFunction', args, 3)
		local list = {}
		for k, v in pairs(args) do
			list[#list + 1] = { k, v }
		end
		sort(list, function(a, b)
			local na, nb = type(a[1]) == 'number', type(b[1]) == 'number'
			if na ~= nb then
				return na
			end
			if na then
				return a[1] < b[1]
			end
			return tostring(a[1]) < tostring(b[1])
		end)
		local flat, named = {}, {}
		for _, kv in ipairs(list) do
			if type(kv[1]) == 'number' then
				flat[#flat + 1] = tostring(kv[2])
			else
				named[#named + 1] = kv[1] .. '=' .. tostring(kv[2])
			end
		end
		for _, n in ipairs(named) do
			flat[#flat + 1] = n
		end
		local r, err = host('callParserFunction', fid, tostring(name), flat)
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:extensionTag(name, content, targs)
		if type(name) == 'table' then
			name, content, targs = name.name, name.content, name.args
		end
		name = checkName('frame:extensionTag', name, 'tag name')
		if content == nil then
			content = ''
		elseif type(content) == 'string' or type(content) == 'number' then
			content = tostring(content)
		else
			error('frame:extensionTag: content must be a string or number', 2)
		end
		local args = { content }
		if type(targs) == 'table' then
			-- Positional arguments are no attributes: `#tag` reads named ones only.
			for k, v in pairs(checkArgs('frame:extensionTag', targs, 3)) do
				if type(k) == 'string' then
					args[k] = v
				end
			end
		elseif targs ~= nil and type(targs) ~= 'string' and type(targs) ~= 'number' then
			error('frame:extensionTag: args must be a string, number, or table', 2)
		end
		local a = { name, args[1] }
		local keys = {}
		for k in pairs(args) do
			if type(k) == 'string' then
				keys[#keys + 1] = k
			end
		end
		sort(keys)
		for _, k in ipairs(keys) do
			a[#a + 1] = k .. '=' .. tostring(args[k])
		end
		local r, err = host('callParserFunction', fid, '#tag', a)
		if r == nil then
			error(err, 2)
		end
		return r
	end
	function frame:newChild(opt)
		opt = opt or {}
		local t = opt.title
		if type(t) == 'table' and t.fields then
			t = t.fields.prefixedText
		end
		local id = host('newChild', fid, t and tostring(t) or nil, stringArgs(opt.args, 'frame:newChild'))
		return newFrame(id)
	end
	function frame:newParserValue(v)
		return { expand = function()
			return frame:preprocess(v)
		end }
	end
	function frame:newTemplateParserValue(opt)
		return { expand = function()
			return frame:expandTemplate(opt)
		end }
	end
	frames[fid] = frame
	return frame
end
function mw.getCurrentFrame()
	return currentFrame or newFrame(0)
end

-- Runs `fname` of the module compiled as `chunk` with frame 0 (the #invoke) and
-- returns (true, text) or (false, message, isScriptError).
local function invoke(chunk, fname)
	local env = cloneEnv()
	rawsetfenv(chunk, env)
	local ok, exports = pcall(chunk)
	if not ok then
		return false, exports, nil
	end
	if type(exports) ~= 'table' then
		return false, type(exports), 'notarrayreturn'
	end
	local fn = exports[fname]
	if type(fn) ~= 'function' then
		return false, fname, 'nosuchfunction'
	end
	local frame = newFrame(0)
	local old = currentFrame
	currentFrame = frame
	local results = { pcall(fn, frame) }
	currentFrame = old
	if not results[1] then
		return false, results[2], nil
	end
	local out = {}
	for i = 2, #results do
		if results[i] == nil then
			break
		end
		out[#out + 1] = tostring(results[i])
	end
	return true, concat(out)
end
-- Frame ids belong to one invocation: an #invoke nested in another (through
-- frame:expandTemplate) gets its own and the outer ones come back afterwards.
iface.invoke = function(chunk, fname)
	local saved = frames
	frames = {}
	local r = { invoke(chunk, fname) }
	frames = saved
	return r[1], r[2], r[3]
end
