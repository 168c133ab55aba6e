-- mw.ext.ParserFunctions: `#expr` for modules, evaluated by the expander.
-- (Scribunto gets it from the ParserFunctions extension.)
-- Written for wikiwit from the Scribunto Lua reference manual (not derived from
-- Scribunto's code).
-- Called with (iface, site, lib).
local _, _, lib = ...
local error = error
local host = lib.host
local mw = mw

mw.ext = { ParserFunctions = {} }
function mw.ext.ParserFunctions.expr(e)
	local r, err = host('callParserFunction', 0, '#expr', { tostring(e) })
	if r == nil then
		error(err, 2)
	end
	return r
end
