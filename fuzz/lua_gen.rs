//! Lua module source made from fuzzer bytes: each byte picks the next choice of a small
//! grammar over what can hurt a sandbox — the library functions that trust their
//! arguments (`unpack`, `select`, `string.rep`/`format`/`byte`/`find`/`gsub`,
//! `table.concat`/`insert`/`sort`, `setmetatable`, coroutines, the `mw` functions),
//! called with edge values (0, ±2^31, 2^43, NaN, huge widths, long patterns), and
//! recursion through the places where Lua 5.1 re-enters C (metamethods, `tostring`,
//! `gsub` callbacks, `pcall`, `coroutine.resume`, `frame:preprocess`). So every input
//! is a module that compiles, and the fuzzer spends its time in the sandbox rather
//! than in the parser.

/// The choices still to be read; past the end every choice is 0, so any input is a
/// whole module.
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
        from[self.byte() as usize % from.len()]
    }

    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }
}

/// Numbers at the edges of `int`, of doubles and of the sandbox's own limits.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "255",
    "256",
    "7999",
    "8000",
    "8001",
    "1e4",
    "2^31-1",
    "-2^31",
    "2^31",
    "2^32+1",
    "2^43",
    "2^53",
    "-2^63",
    "1e308",
    "-1e308",
    "0/0",
    "1/0",
    "-1/0",
    "0.5",
    "-0.5",
    "1e7",
    "50*1024*1024",
];

/// Strings: format directives, malformed and deeply quantified patterns, markup.
const STRINGS: &[&str] = &[
    "''",
    "'x'",
    "'abc'",
    "'%d'",
    "'%s'",
    "'%q'",
    "'%99999d'",
    "'%5.99s'",
    "'%-099.099f'",
    "'%'",
    "'%z'",
    "'('",
    "'[a-'",
    "'%b()'",
    "'%f[%w]'",
    "'(()'",
    "'%1'",
    "'(.-)(.-)(.-)(.-)(.-)b'",
    "string.rep('a?', 30000)",
    "string.rep('(', 40)",
    "string.rep('a', 100000)",
    "string.rep('x', 5000, ',')",
    "'{{#invoke:F|main}}'",
    "'{{T|{{{1}}}}}'",
    "'[[Link]]'",
    "'\\0\\255\\128'",
    "'é€😀'",
    "'1e400'",
    "'0x7fffffff'",
];

/// Other values: tables with hostile metatables, functions, coroutines.
const VALUES: &[&str] = &[
    "nil",
    "true",
    "{}",
    "{1, 2, 3}",
    "{n = 1, [2^31] = 'x', [0/0 ~= 0/0] = 1}",
    "deep(200)",
    "deep(20000)",
    "cyclic()",
    "hostile()",
    "print",
    "function() end",
    "error",
    "coroutine.create(function() end)",
    "mw",
    "_G",
    "string",
    "mw.getCurrentFrame()",
];

/// Functions called with generated arguments, each protected by `pcall`.
const FUNCTIONS: &[&str] = &[
    "unpack",
    "select",
    "tostring",
    "tonumber",
    "type",
    "next",
    "rawequal",
    "rawget",
    "rawset",
    "setmetatable",
    "getmetatable",
    "pairs",
    "ipairs",
    "error",
    "assert",
    "pcall",
    "xpcall",
    "loadstring",
    "require",
    "string.rep",
    "string.format",
    "string.char",
    "string.byte",
    "string.sub",
    "string.upper",
    "string.find",
    "string.match",
    "string.gmatch",
    "string.gsub",
    "string.len",
    "string.reverse",
    "table.concat",
    "table.insert",
    "table.remove",
    "table.sort",
    "table.maxn",
    "math.floor",
    "math.max",
    "math.min",
    "math.fmod",
    "math.random",
    "math.ldexp",
    "math.frexp",
    "math.pow",
    "math.log",
    "os.date",
    "os.time",
    "coroutine.create",
    "coroutine.resume",
    "coroutine.wrap",
    "coroutine.yield",
    "coroutine.status",
    "mw.clone",
    "mw.dumpObject",
    "mw.allToString",
    "mw.addWarning",
    "mw.loadData",
    "mw.text.split",
    "mw.text.gsplit",
    "mw.text.trim",
    "mw.text.tag",
    "mw.text.truncate",
    "mw.text.nowiki",
    "mw.text.encode",
    "mw.text.listToText",
    "mw.text.jsonEncode",
    "mw.text.jsonDecode",
    "mw.text.unstrip",
    "mw.ustring.rep",
    "mw.ustring.sub",
    "mw.ustring.char",
    "mw.ustring.codepoint",
    "mw.ustring.find",
    "mw.ustring.gsub",
    "mw.ustring.format",
    "mw.ustring.toNFC",
    "mw.html.create",
    "mw.title.new",
    "mw.title.makeTitle",
    "mw.uri.encode",
    "mw.uri.new",
    "mw.language.new",
    "mw.message.new",
    "mw.getCurrentFrame().preprocess",
    "mw.getCurrentFrame().expandTemplate",
    "mw.getCurrentFrame().callParserFunction",
    "mw.getCurrentFrame().extensionTag",
    "mw.getCurrentFrame().newChild",
];

/// Recursion through each place Lua 5.1 re-enters C; `%d` is the depth.
const RECURSIONS: &[&str] = &[
    // __index functions calling themselves.
    "local t = setmetatable({}, {}) getmetatable(t).__index = function(s, k) return s[k .. 'x'] end local _ = t.a",
    // __tostring of a table whose __tostring calls tostring again.
    "local t = {} setmetatable(t, {__tostring = function(s) return tostring(s) end}) tostring(t)",
    // gsub callbacks nested %d deep.
    "local function g(n) if n == 0 then return 'x' end return (string.gsub('ab', '.', function() return g(n - 1) end)) end g(%d)",
    // pcall nested %d deep, the innermost error passed up through each level.
    "local function p(n) if n == 0 then error('bottom') end local ok, e = pcall(p, n - 1) if not ok then error(e, 0) end return ok end p(%d)",
    // coroutines resumed inside coroutines.
    "local function c(n) if n == 0 then return 1 end return coroutine.wrap(function() return c(n - 1) end)() end c(%d)",
    // __add / __concat / __eq / __lt metamethods recursing.
    "local mt = {} mt.__add = function(a, b) return a + b end local _ = setmetatable({}, mt) + 1",
    "local mt = {} mt.__concat = function(a, b) return a .. b end local _ = setmetatable({}, mt) .. 'x'",
    "local mt = {} mt.__lt = function(a, b) return a < b end local x = setmetatable({}, mt) local _ = x < x",
    "local mt = {} mt.__call = function(s, n) if n > 0 then return s(n - 1) end end setmetatable({}, mt)(%d)",
    // table.sort with a comparator that errors, recurses or is inconsistent.
    "local t = {} for i = 1, 200 do t[i] = i % 7 end table.sort(t, function(a, b) return true end)",
    "local t = {} for i = 1, 200 do t[i] = i % 7 end table.sort(t, function(a, b) table.sort(t) return a < b end)",
    // Lua-only recursion: the Lua stack, not the C stack.
    "local function r(n) return 1 + r(n + 1) end r(1)",
    // #invoke re-entered through the frame.
    "mw.getCurrentFrame():preprocess(string.rep('{{#invoke:F|main}}', %d))",
    // deep tables through the serializers.
    "mw.text.jsonEncode(deep(%d))",
    "mw.dumpObject(deep(%d))",
    "mw.clone(deep(%d))",
    "tostring(deep(%d))",
    // string building past the memory limit.
    "local s = 'x' while true do s = s .. s end",
    "local t = {} for i = 1, 1e7 do t[i] = string.rep('x', 1000) end",
    "for i = 1, 1e6 do string.rep('x', 1e7) end",
    "for i = 1, 1e6 do table.concat({string.rep('x', 4e6), 'y'}) end",
];

const DEPTHS: &[&str] = &["1", "10", "150", "199", "200", "201", "1000", "100000"];

/// The helpers every generated module starts with.
const PRELUDE: &str = "local p = {}
local function deep(n) local t = {} for i = 1, n do t = {t} end return t end
local function cyclic() local t = {} t.t = t t[1] = t return t end
local function hostile()
  return setmetatable({}, {__index = function() error('index') end,
    __newindex = function() error('newindex') end, __tostring = function() return {} end,
    __len = function() return 2^31 end, __pairs = function() return 1, 2, 3, 4 end,
    __metatable = 'locked'})
end
";

fn value(c: &mut Choices<'_>) -> String {
    match c.byte() % 4 {
        0 => c.pick(NUMBERS).to_string(),
        1 => c.pick(STRINGS).to_string(),
        2 => c.pick(VALUES).to_string(),
        _ => format!("({} + {})", c.pick(NUMBERS), c.pick(NUMBERS)),
    }
}

/// A call of one of [`FUNCTIONS`] with up to four generated arguments: protected by
/// `pcall` (its result or error kept), or not (its error ends `main`, as a module's own
/// error would).
fn call(c: &mut Choices<'_>, protected: bool) -> String {
    let f = c.pick(FUNCTIONS);
    let n = c.byte() % 5;
    let mut args: Vec<String> = (0..n).map(|_| value(c)).collect();
    // A method of the frame needs the frame as its first argument.
    if f.starts_with("mw.getCurrentFrame().") {
        args.insert(0, "mw.getCurrentFrame()".to_string());
    }
    let args = args.join(", ");
    if protected {
        let comma = if args.is_empty() { "" } else { ", " };
        format!("out[#out + 1] = select(2, pcall({f}{comma}{args}))")
    } else {
        format!("out[#out + 1] = ({f})({args})")
    }
}

fn statement(c: &mut Choices<'_>) -> String {
    match c.byte() % 8 {
        0..=4 => call(c, true),
        5 | 6 => {
            let body = c.pick(RECURSIONS).replace("%d", c.pick(DEPTHS));
            format!("out[#out + 1] = select(2, pcall(function() {body} end))")
        }
        _ => call(c, false),
    }
}

/// A module `p` whose `main` runs up to 16 generated statements and returns what they
/// gave (as text, through the sandbox's `tostring`).
pub fn module(data: &[u8]) -> String {
    let mut c = Choices { bytes: data, at: 0 };
    let mut code = String::from(PRELUDE);
    code.push_str("function p.main(frame)\n  local out = {}\n");
    for _ in 0..16 {
        if c.done() {
            break;
        }
        code.push_str("  ");
        code.push_str(&statement(&mut c));
        code.push('\n');
    }
    code.push_str(
        "  for i = 1, #out do out[i] = tostring(out[i]) end\n  return table.concat(out, '|')\nend\nreturn p\n",
    );
    code
}
