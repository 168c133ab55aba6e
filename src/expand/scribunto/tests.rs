//! `#invoke`: modules run in the sandboxed Lua, the `mw` library, and hostile modules
//! bounded per page. Expected outputs follow Scribunto's Lua reference manual.

use std::time::Instant;

use crate::expand::tests::{Pages, config, run, templates};
use crate::expand::{Expander, Expansion, Limits, Warning};

fn module(name: &str, code: &'static str) -> (String, &'static str) {
    (format!("Module:{name}"), code)
}

fn run_mods(mods: &[(String, &str)], extra: &[(&str, &str)], text: &str) -> Expansion {
    let mut pages: Vec<(&str, &str)> = mods.iter().map(|(t, c)| (t.as_str(), *c)).collect();
    pages.extend_from_slice(extra);
    run(&pages, text)
}

/// What `{{#invoke:T|f}}` expands to where `Module:T`'s `p.f` has `body` (its first line
/// is the module's line 4, as error positions read).
fn f_text(body: &str) -> String {
    let code = format!("\nlocal p = {{}}\nfunction p.f()\n{body}end\nreturn p\n");
    run_mods(&[(String::from("Module:T"), &code)], &[], "{{#invoke:T|f}}").text
}

fn warning_kinds(e: &Expansion) -> Vec<String> {
    e.warnings
        .iter()
        .map(|w| {
            serde_json::to_value(w)
                .ok()
                .and_then(|v| v["kind"].as_str().map(str::to_string))
                .unwrap_or_default()
        })
        .collect()
}

const ECHO: &str = r#"
local p = {}
function p.args(frame)
    local out = {}
    for k, v in pairs(frame.args) do
        out[#out + 1] = type(k) .. ':' .. tostring(k) .. '=' .. v
    end
    return table.concat(out, ';')
end
function p.parent(frame)
    local parent = frame:getParent()
    return parent.args[1] .. '|' .. (parent.args.x or 'nil') .. '|' .. parent:getTitle()
        .. '|' .. frame:getTitle()
end
function p.many() return 'a', 1.5, 2, nil, 'ignored' end
function p.nothing() end
function p.html()
    local root = mw.html.create('div')
    root:addClass('a'):addClass('b'):addClass('a'):attr('id', 'x"y')
        :css('color', 'red'):cssText('margin:0;')
        :tag('span'):wikitext('[[Link]]', ' text'):done()
        :tag('br'):done()
        :node(mw.html.create():wikitext('raw'))
    return root
end
function p.fail() error('boom') end
return p
"#;

#[test]
fn invoke_runs_module_functions() {
    let mods = [module("Echo", ECHO)];
    let e = run_mods(&mods, &[], "{{#invoke:Echo|args| a |b|name = v |7=seven}}");
    assert_eq!(
        e.text,
        "number:1= a ;number:2=b;number:7=seven;string:name=v"
    );
    assert_eq!(templates(&e), ["828:Echo"]);
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
    let tpl = [("Template:Box", "{{#invoke:Echo|parent}}")];
    let e = run_mods(&mods, &tpl, "{{Box|one|x=2}}");
    assert_eq!(e.text, "one|2|Template:Box|Module:Echo");
    assert_eq!(templates(&e), ["10:Box", "828:Echo"]);
    assert_eq!(run_mods(&mods, &[], "{{#invoke:Echo|many}}").text, "a1.52");
    assert_eq!(
        run_mods(&mods, &[], "[{{#invoke:Echo|nothing}}]").text,
        "[]"
    );
}

/// `type` answers from names made once (`sandbox::interned_type`): every type's name as
/// Lua 5.1 gives it, the names equal to the strings a module writes, and Lua's own error,
/// naming the function as called, when the value is missing.
#[test]
fn type_names_as_lua() {
    let m = r#"
local p = {}
function p.t()
    local t = type
    local co = coroutine.create(function() end)
    local names = { type(nil), type(false), type(0), type(''), type({}), type(tostring),
        type(p.t), type(co), type(mw.html.create('b')) }
    local _, e1 = pcall(type)
    local _, e2 = pcall(function() return t() end)
    return table.concat(names, ' ') .. '|' .. tostring(type('x') == 'string') .. '|'
        .. e1 .. '|' .. e2:gsub('^Module:T:%d+: ', '')
end
return p
"#;
    let e = run_mods(&[module("T", m)], &[], "{{#invoke:T|t}}");
    assert_eq!(
        e.text,
        "nil boolean number string table function function thread table|true|\
         bad argument #1 to '?' (value expected)|bad argument #1 to 't' (value expected)"
    );
}

#[test]
fn html_builder_serializes_as_scribunto() {
    let mods = [module("Echo", ECHO)];
    assert_eq!(
        run_mods(&mods, &[], "{{#invoke:Echo|html}}").text,
        "<div class=\"a b a\" id=\"x&quot;y\" style=\"color:red;margin:0;\"><span>[[Link]] text</span><br />raw</div>"
    );
}

#[test]
fn script_errors_render_and_are_recorded() {
    let mods = [module("Echo", ECHO)];
    let e = run_mods(&mods, &[], "{{#invoke:Echo|fail}}");
    assert!(
        e.text.contains("Lua error in Module:Echo at line"),
        "{}",
        e.text
    );
    assert!(e.text.contains("boom"));
    assert_eq!(warning_kinds(&e), ["script-error"]);
    let e = run_mods(&mods, &[], "{{#invoke:Echo|nosuch}}");
    assert!(
        e.text
            .contains("The function &quot;nosuch&quot; does not exist.")
    );
    let e = run_mods(&mods, &[], "{{#iferror:{{#invoke:Echo|fail}}|caught}}");
    assert_eq!(e.text, "caught");
}

/// `string.find`, `match`, `gmatch` and `gsub` are C functions of wikiwit's
/// (`pattern_calls.rs`): an argument error names the function and the module's line, as
/// Lua 5.1's own (and so LuaSandbox's) do — `lua5.1` gives the first six messages for
/// the same calls — whether the call is one the sandbox charges (a long subject) or not;
/// and a pattern the sandbox refuses is refused at the module's line.
#[test]
fn pattern_function_errors_read_as_lua_5_1s() {
    let text = f_text(
        r#"    local long = string.rep('x', 5000)
    local _, e1 = pcall(function() return string.find(nil, 'x') end)
    local _, e2 = pcall(function() return string.gsub('abc', 'b') end)
    local _, e3 = pcall(function() return ('abc'):find('b', {}) end)
    local _, e4 = pcall(function() return long:match('x*', {}) end)
    local _, e5 = pcall(function() return string.gmatch(nil, 'x') end)
    local _, e6 = pcall(function() return ('x'):gmatch({}) end)
    local _, e7 = pcall(function() return ('x'):find(string.rep('a?', 10001)) end)
    local _, e8 = pcall(function() return long:gmatch(string.rep('(', 10001)) end)
    return table.concat({ e1, e2, e3, e4, e5, e6, e7, e8 }, '|')
"#,
    );
    assert_eq!(
        text,
        "Module:T:5: bad argument #1 to 'find' (string expected, got nil)|\
         Module:T:6: bad argument #3 to 'gsub' (string/function/table expected)|\
         Module:T:7: bad argument #2 to 'find' (number expected, got table)|\
         Module:T:8: bad argument #2 to 'match' (number expected, got table)|\
         Module:T:9: bad argument #1 to 'gmatch' (string expected, got nil)|\
         Module:T:10: bad argument #1 to 'gmatch' (string expected, got table)|\
         Module:T:11: pattern too complex|\
         Module:T:12: pattern too complex"
    );
}

/// `pairs`, `ipairs`, `getmetatable` and `tostring` are C functions of wikiwit's
/// (`base_functions.rs`): an argument error names the function and the module's line as
/// `lua5.1` does for the same calls, and what the sandbox changes still holds —
/// `__pairs`/`__ipairs` (three values of theirs, found through a `__metatable` field as
/// `getmetatable` finds it), no metatable for a string, no address in `tostring`.
#[test]
fn base_functions_read_as_lua_5_1s_with_the_sandboxs_changes() {
    let text = f_text(
        r#"    local _, e1 = pcall(function() return pairs(nil) end)
    local _, e2 = pcall(function() return ipairs(5) end)
    local _, e3 = pcall(function() for i, v in ipairs() do end end)
    local four = setmetatable({}, { __pairs = function(t) return next, { 'a' }, nil, 'x' end })
    local n = select('#', pairs(four))
    local walked = {}
    for k, v in pairs(four) do walked[#walked + 1] = k .. '=' .. v end
    local hidden = setmetatable({}, { __metatable = { __ipairs = function() return function(_, i)
        if i < 2 then return i + 1, 'v' .. (i + 1) end
    end, nil, 0 end } })
    for i, v in ipairs(hidden) do walked[#walked + 1] = i .. '=' .. v end
    local falsy = setmetatable({ 'plain' }, { __ipairs = false })
    for i, v in ipairs(falsy) do walked[#walked + 1] = i .. '=' .. v end
    local named = setmetatable({}, { __tostring = function() return 'named' end })
    return table.concat({ e1, e2, e3, n, table.concat(walked, ' '),
        tostring(getmetatable('')), tostring(getmetatable({})), tostring(getmetatable()),
        tostring({}), tostring(print or tostring), tostring(named), tostring(), tostring(1.5),
        tostring(setmetatable({}, { __metatable = 'locked' })) }, '|')
"#,
    );
    assert_eq!(
        text,
        "Module:T:4: bad argument #1 to 'pairs' (table expected, got nil)|\
         Module:T:5: bad argument #1 to 'ipairs' (table expected, got number)|\
         Module:T:6: bad argument #1 to 'ipairs' (table expected, got no value)|\
         3|1=a 1=v1 2=v2 1=plain|nil|nil|nil|table|function|named|nil|1.5|table"
    );
}

/// Each library file is its own chunk, named after its library: an error raised inside
/// a library's code says which library it is in, as an error in a module names the module.
#[test]
fn errors_inside_a_library_name_its_file() {
    let code = "return { f = function() return mw.text.truncate('abcdef', 2, {}) end }";
    let e = run_mods(&[module("T", code)], &[], "{{#invoke:T|f}}");
    assert!(
        e.text.contains("Lua error in mw.text at line"),
        "{}",
        e.text
    );
    assert!(e.text.contains("attempt to concatenate"), "{}", e.text);
    assert!(
        matches!(&e.warnings[..], [Warning::ScriptError { module, message }]
            if module == "Module:T" && message.starts_with("mw.text:")),
        "{:?}",
        e.warnings
    );
}

#[test]
fn ustring_and_text() {
    let m = r#"
local p = {}
function p.t()
    local u = mw.ustring
    local r = {
        u.len('Latgola āčē'), u.sub('āčēīū', 2, -2), u.upper('āb ß'), u.lower('ĀB'),
        select(2, u.find('xxāčē', 'č')), u.match('Rēzekne 1917', '(%a+) (%d+)'),
        (u.gsub('ā-ā-ā', 'ā', 'a')), u.gsub('hello world', '(%w+)', '<%1>'),
        mw.text.trim('  x y \n'), table.concat(mw.text.split('a, b,c', ',%s*'), '|'),
        mw.text.listToText({'a', 'b', 'c'}), mw.text.nowiki('[[x]]'), mw.text.encode('<a>'),
        mw.text.tag('ref', {name = 'n'}, 'c'), u.char(0x101, 0x41), u.codepoint('ā'),
        tostring({}), os.date('%Y-%m-%d', 0), os.time() > 0 and 'now' or 'zero',
        mw.text.truncate('abcdefgh', 3) .. mw.text.truncate('abcdef', 3), mw.uri.encode('a b&c'),
    }
    local g = {}
    for w in u.gmatch('one two  three', '%a+') do g[#g + 1] = w end
    r[#r + 1] = table.concat(g, ',')
    return table.concat(r, ';')
end
return p
"#;
    let mods = [module("U", m)];
    let e = run_mods(&mods, &[], "{{#invoke:U|t}}");
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
    assert_eq!(
        e.text,
        "11;čēī;ĀB ß;āb;4;Rēzekne;a-a-a;<hello> <world>;x y;a|b|c;a, b and c;\
         &#91;&#91;x&#93;&#93;;&lt;a&gt;;<ref name=\"n\">c</ref>;āA;257;table;1970-01-01;now;\
         abc...abcdef;a+b%26c;one,two,three"
    );
}

#[test]
fn modules_templates_and_titles_are_recorded() {
    let m = r#"
local data = mw.loadData('Module:Data')
local helper = require('Module:Helper')
local p = {}
function p.f(frame)
    local t = mw.title.new('Existing')
    local missing = mw.title.new('Missing page')
    return data.x .. helper.y() .. frame:expandTemplate{title = 'Greet', args = {'you', who = 'me'}}
        .. tostring(t.exists) .. tostring(missing.exists) .. t.fullText
        .. frame:preprocess('{{Greet|{{{1}}}|who=us}}')
        .. mw.title.getCurrentTitle().prefixedText
        .. frame:callParserFunction('#if', 'x', 'yes', 'no')
        .. frame:extensionTag('ref', 'note', {name = 'n'})
end
return p
"#;
    let mods = [
        module("M", m),
        module("Data", "return { x = 'D' }"),
        module("Helper", "return { y = function() return 'H' end }"),
    ];
    let extra = [
        ("Template:Greet", "[{{{1}}} from {{{who}}}]"),
        ("Existing", "text"),
    ];
    let e = run_mods(&mods, &extra, "{{#invoke:M|f|arg}}");
    assert_eq!(
        e.text,
        "DH[you from me]truefalseExisting[arg from us]Test pageyes<ref name=\"n\">note</ref>"
    );
    assert_eq!(
        templates(&e),
        ["828:M", "828:Data", "828:Helper", "10:Greet"]
    );
    assert_eq!(
        e.existence_links,
        [(0, "Existing".to_string()), (0, "Missing_page".to_string())]
    );
}

/// The frame's calls into the parser check their arguments with Scribunto's messages: a
/// table or function argument is an error, not its address in the page (which made the
/// page's text differ from run to run: the fuzzer's `frame:extensionTag(nil, _G, '')`).
#[test]
fn frame_calls_check_their_arguments_as_scribunto() {
    let m = r#"
local p = {}
local function e(f, ...)
    local ok, m = pcall(f, ...)
    return tostring(ok) .. ':' .. tostring(m)
end
function p.f(frame)
    return table.concat({
        e(frame.extensionTag, frame, nil, _G, ''),
        e(frame.extensionTag, frame, 'ref', _G),
        e(frame.extensionTag, frame, tostring, 'x'),
        e(frame.extensionTag, frame, 'ref', 'x', true),
        e(frame.extensionTag, frame, 'ref', 'x', { name = {} }),
        e(frame.extensionTag, frame, {}, 'x'),
        e(frame.callParserFunction, frame, '#if', { 'x', {} }),
        e(frame.callParserFunction, frame, nil),
        e(frame.callParserFunction, frame, '#if', { [true] = 'x' }),
        e(frame.expandTemplate, frame, { title = 'T', args = { x = tostring } }),
        frame:extensionTag('ref', 12, { name = 'n', 'positional' }),
        frame:callParserFunction('#if', true, 'yes', 'no'),
    }, '\n')
end
return p
"#;
    let e = run_mods(&[module("F", m)], &[], "{{#invoke:F|f}}");
    assert_eq!(
        e.text,
        "false:frame:extensionTag: a function name is required
false:frame:extensionTag: content must be a string or number
false:frame:extensionTag: tag name must be a string or number
false:frame:extensionTag: args must be a string, number, or table
false:frame:extensionTag: invalid type table for arg 'name'
false:frame:extensionTag: a function name is required
false:frame:callParserFunction: invalid type table for arg '2'
false:frame:callParserFunction: a function name is required
false:frame:callParserFunction: arg keys must be strings or numbers, boolean given
false:frame:expandTemplate: invalid type function for arg 'x'
<ref name=\"n\">12</ref>
yes"
    );
}

#[test]
fn wikibase_is_absent() {
    let mods = [module(
        "W",
        "return { f = function() return mw.wikibase.getEntity() end }",
    )];
    let e = run_mods(&mods, &[], "{{#invoke:W|f}}");
    assert!(
        e.text.contains("Lua error in Module:W at line 1"),
        "{}",
        e.text
    );
}

fn hostile(code: &'static str) -> (Expansion, std::time::Duration) {
    let mods = [module("H", code)];
    let started = Instant::now();
    let e = run_mods(&mods, &[], "{{#invoke:H|f}} after {{#invoke:H|f}}");
    (e, started.elapsed())
}

#[test]
fn hostile_infinite_loop_times_out() {
    let (e, _) = hostile("return { f = function() while true do end end }");
    assert!(
        e.text
            .contains("The time allocated for running scripts has expired")
    );
    assert!(e.text.contains(" after "));
    assert_eq!(warning_kinds(&e), ["lua-timeout"]);
    // Ended by the instruction count, not a clock.
    assert!(e.stats.lua_instructions <= Limits::default().lua_instructions + 1_000);
    // pcall cannot swallow the timeout for good.
    let (e, _) = hostile(
        "return { f = function() while true do pcall(function() while true do end end) end end }",
    );
    assert_eq!(warning_kinds(&e), ["lua-timeout"]);
    // Nor can a coroutine escape the hook.
    let (e, _) = hostile(
        "return { f = function() local c = coroutine.create(function() while true do end end) \
         return tostring(coroutine.resume(c)) end }",
    );
    assert!(e.stats.lua_instructions > 0);
    assert!(!e.text.contains("true"), "{}", e.text);
}

#[test]
fn hostile_memory_bombs_are_bounded() {
    let (e, _) =
        hostile("return { f = function() local s = 'x' while true do s = s .. s end end }");
    assert!(e.text.contains("not enough memory"), "{}", e.text);
    assert!(warning_kinds(&e).contains(&"lua-memory".to_string()));
    let (e, _) = hostile(
        "return { f = function() local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end end }",
    );
    let kinds = warning_kinds(&e);
    assert!(
        kinds.contains(&"lua-memory".to_string()) || kinds.contains(&"lua-timeout".to_string()),
        "{kinds:?}"
    );
    let (e, _) = hostile("return { f = function() return string.rep('x', 2^30) end }");
    assert!(!warning_kinds(&e).is_empty(), "{}", e.text);
}

/// A find over a long subject is charged by the subject's length (`#s / 16`
/// instructions), plain finds too, whichever way the wrapper takes: a loop of them must
/// not run for free in C.
#[test]
fn finds_over_a_long_subject_are_charged_by_its_length() {
    let code = "local s = string.rep('a', 2^20) \
        return { long = function() string.find(s, 'b', 1, true) return 'x' end, \
        short = function() string.find(s:sub(1, 10), 'b', 1, true) return 'x' end, \
        loop = function() for i = 1, 1e5 do string.find(s, 'b', 1, true) end return 'ran' end }";
    let mods = [module("F", code)];
    let long = run_mods(&mods, &[], "{{#invoke:F|long}}");
    let short = run_mods(&mods, &[], "{{#invoke:F|short}}");
    let charged = long.stats.lua_instructions - short.stats.lua_instructions;
    // Less the few instructions `short` spends cutting its subject.
    assert!(charged > (1 << 20) / 16 - 100, "{charged}");
    let looped = run_mods(&mods, &[], "{{#invoke:F|loop}}");
    assert!(!looped.text.contains("ran"), "{}", looped.text);
    assert_eq!(warning_kinds(&looped), ["lua-timeout"]);
}

/// A bomb caught by `pcall` costs a hundred instructions but copies 64 MB: what the heap
/// grows by is charged, so a loop of them spends the page's budget (about fifty of them)
/// instead of running them all.
#[test]
fn copied_bytes_are_charged_to_the_budget() {
    let (e, _) = hostile(
        "return { f = function() for i = 1, 200 do \
         pcall(function() local s = 'x' while true do s = s .. s end end) end \
         return 'all bombs ran' end }",
    );
    assert!(!e.text.contains("all bombs ran"), "{}", e.text);
    assert_eq!(warning_kinds(&e), ["lua-timeout"]);
    assert!(e.stats.lua_instructions <= config().limits.lua_instructions + 1_000);
}

/// Sorting is work in C that runs no VM instruction: a comparator that sorts the array
/// again (a fuzzer's find) did ~1,500 uncounted comparisons per call and kept one page
/// busy for minutes. Every sort is charged, so the page's budget ends it.
#[test]
fn sorts_inside_a_comparator_are_charged() {
    let (e, _) = hostile(
        "return { f = function() local t = {} for i = 1, 200 do t[i] = i % 7 end \
         for k = 1, 200 do pcall(table.sort, t, function(a, b) table.sort(t) return a < b end) end \
         return 'all sorts ran' end }",
    );
    assert!(!e.text.contains("all sorts ran"), "{}", e.text);
    assert_eq!(warning_kinds(&e), ["lua-timeout"]);
}

/// Every error that crosses between Lua and Rust costs a traceback (mlua writes one), a
/// walk of the stack no instruction counts: 3,000 errors raised by a `mw.ustring.gsub`
/// callback and caught, 30 instructions each, ran to the end uncharged (a fuzzer's find:
/// 2 M of them kept one page busy for minutes); charged, they end the page's budget.
#[test]
fn errors_crossing_into_rust_are_charged() {
    let (e, _) = hostile(
        "return { f = function() local n = 0 \
         for i = 1, 3000 do \
           if not pcall(mw.ustring.gsub, 'a', '.', function() error('x') end) then n = n + 1 end \
         end return 'caught ' .. n end }",
    );
    assert!(!e.text.contains("caught"), "{}", e.text);
    assert_eq!(warning_kinds(&e), ["lua-timeout"]);
    // Fewer fit in the budget: the same loop of 100 completes.
    let (e, _) = hostile(
        "return { f = function() local n = 0 \
         for i = 1, 100 do \
           if not pcall(mw.ustring.gsub, 'a', '.', function() error('x') end) then n = n + 1 end \
         end return 'caught ' .. n end }",
    );
    assert!(e.text.contains("caught 100 after caught 100"), "{}", e.text);
}

/// The message a module catches from an error raised inside a callback is the error's
/// own, without the traceback mlua writes at the boundary.
#[test]
fn callback_errors_keep_their_message() {
    let (e, _) = hostile(
        "return { f = function() \
         local _, m = pcall(mw.ustring.gsub, 'a', '.', function() error('x') end) \
         local _, j = pcall(mw.text.jsonEncode, setmetatable({}, {__pairs = function() error('y') end})) \
         return m .. '|' .. j end }",
    );
    assert!(
        e.text.starts_with("Module:H:1: x|Module:H:1: y after "),
        "{}",
        e.text
    );
}

/// A module preprocessing a text of many calls of itself: each level's parsed tree stays
/// alive while the next runs, so the nodes the preprocessor makes are bounded per page.
#[test]
fn generated_nodes_are_bounded() {
    let mods = [module(
        "G",
        "return { f = function(frame) \
         return frame:preprocess(string.rep('{{#invoke:G|f}}', 20000)) end }",
    )];
    let e = run_mods(&mods, &[], "{{#invoke:G|f}}");
    let kinds = warning_kinds(&e);
    assert!(
        kinds.contains(&"generated-node-count".to_string()),
        "{kinds:?}"
    );
}

#[test]
fn hostile_escapes_fail() {
    for code in [
        "return { f = function() return os.execute('echo hi') end }",
        "return { f = function() return io.open('/etc/passwd'):read('*a') end }",
        "return { f = function() return require('/etc/passwd') end }",
        "return { f = function() return require('io') and 'x' end }",
        "return { f = function() return loadstring(string.dump(print)) end }",
        "return { f = function() return debug.getinfo(1) end }",
        "return { f = function() return dofile('/etc/passwd') end }",
        "return { f = function() return loadstring('\\27Lua')() end }",
    ] {
        let (e, _) = hostile(code);
        assert!(
            e.text.starts_with("<strong class=\"error\">"),
            "{code}: {}",
            e.text
        );
        assert_eq!(warning_kinds(&e), ["script-error"], "{code}");
    }
}

#[test]
fn hostile_deep_recursion_is_a_script_error() {
    let (e, _) = hostile(
        "local function r(n) return 1 + r(n + 1) end return { f = function() return r(1) end }",
    );
    assert!(e.text.contains("stack overflow"), "{}", e.text);
    // Unbounded Lua → wikitext → Lua recursion stops at MediaWiki's depth limits.
    let mods = [module(
        "R",
        "return { f = function(frame) return frame:preprocess('{{#invoke:R|f}}') end }",
    )];
    let e = run_mods(&mods, &[], "{{#invoke:R|f}}");
    assert!(!e.warnings.is_empty());
}

#[test]
fn output_does_not_depend_on_other_pages() {
    let m = "counter = (counter or 0) + 1 return { f = function() return tostring(counter) end }";
    let src = Pages::new(&[("Module:C", m)]);
    let ex = Expander::new(&src, &src.codec, config());
    let a = ex.expand_page(0, "A", "{{#invoke:C|f}}");
    let b = ex.expand_page(0, "B", "{{#invoke:C|f}}");
    assert_eq!(a.text, "1");
    assert_eq!(b.text, "1");
}

/// `mw.text` as MediaWiki 1.39 answers: the English ellipsis "...", no truncation that
/// would not shorten, attributes in `pairs` order (a `__pairs` decides), a no-break
/// space encoded, and nowiki escaping line-start markers after `\n` and `\r`, magic
/// words' spaces and URL protocols.
#[test]
fn text_as_mediawiki_139() {
    let m = r#"
local p = {}
function p.t()
    local attrs = setmetatable({}, { __pairs = function()
        local keys, i = { 'z', 'a' }, 0
        return function() i = i + 1 if keys[i] then return keys[i], i end end
    end })
    return table.concat({
        mw.text.truncate('foobarbaz', 3), mw.text.truncate('foobarbaz', -3),
        mw.text.truncate('foobarbaz', 6), mw.text.truncate('foobarbaz', 6, nil, true),
        mw.text.truncate('foobarbaz', 1, nil, true), mw.text.tag('b', attrs, 'x'),
        mw.text.encode('a\194\160b'),
        mw.text.nowiki('x;y\n;a\r#b\n\nc\r\nd ISBN 1 mailto:q'),
    }, '|')
end
function p.bad() return mw.text.tag('b', { [1] = 'x' }) end
return p
"#;
    let mods = [module("X", m)];
    let e = run_mods(&mods, &[], "{{#invoke:X|t}}");
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
    assert_eq!(
        e.text,
        "foo...|...baz|foobarbaz|foo...|...|<b z=\"1\" a=\"2\">x</b>|a&nbsp;b|\
         x;y\n&#59;a\r&#35;b\n&#10;c&#13;\nd ISBN&#32;1 mailto&#58;q"
    );
    let e = run_mods(&mods, &[], "{{#invoke:X|bad}}");
    assert!(
        matches!(&e.warnings[..], [Warning::ScriptError { message, .. }]
            if message.contains("bad named argument attrs to 'tag' (keys must be strings, found number)")),
        "{:?}",
        e.warnings
    );
}
