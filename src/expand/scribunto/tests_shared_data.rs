//! `mw.loadData` tables shared across the pages of a kept state (`shared_data.rs`): a
//! later page gets the table, records and instruction count a fresh state gives it, and
//! loads that read their page are never shared; and the read-only views each call of
//! `mw.loadData` gets (`mw.lua`, `data_view.rs`).

use crate::expand::tests::{Pages, config};
use crate::expand::{Expander, Expansion};

/// A data module of 2,000 entries (CS1's whitelist is such a table).
fn data_module() -> String {
    "local t = {}\nfor i = 1, 2000 do t['k' .. i] = { i, 'v' .. i } end\nreturn t\n".to_string()
}

const READER: &str = r#"
local p = {}
local function sum(d)
    local n = 0
    for _, v in pairs(d) do n = n + v[1] end
    return n
end
function p.data() return tostring(sum(mw.loadData('Module:Data'))) end
function p.twice()
    return tostring(sum(mw.loadData('Module:Data')) + sum(mw.loadData('Module:Data')))
end
function p.page() return mw.loadData('Module:Paged').title end
function p.random() return mw.loadData('Module:Dice').roll .. '/' .. math.random(1000) end
function p.frame() return mw.loadData('Module:Framed').arg end
function p.outer() return tostring(mw.loadData('Module:Outer').n) end
function p.inner() return tostring(mw.loadData('Module:Inner').n) end
function p.text() return mw.loadData('Module:Texted').start end
return p
"#;

fn pages() -> Pages {
    let data = data_module();
    Pages::new(&[
        ("Module:Data", data.as_str()),
        ("Module:Reader", READER),
        (
            "Module:Paged",
            "return { title = mw.title.getCurrentTitle().text }",
        ),
        ("Module:Dice", "return { roll = math.random(6) }"),
        (
            "Module:Framed",
            "return { arg = mw.getCurrentFrame().args[1] or '-' }",
        ),
        (
            "Module:Texted",
            "return { start = mw.title.new('Some page'):getContent():sub(1, 4) }",
        ),
        ("Module:Inner", "return { n = 5 }"),
        (
            "Module:Outer",
            "return { n = mw.loadData('Module:Inner').n + 1 }",
        ),
        ("Some page", "Some text"),
    ])
}

/// Expands each `(title, text)` in turn in one expander (one kept Lua state); the last
/// page's expansion and how many loads the state kept for later pages.
fn in_turn(pages_in_order: &[(&str, &str)]) -> (Expansion, usize) {
    let src = pages();
    let ex = Expander::new(&src, &src.codec, config());
    let mut last = None;
    for (title, text) in pages_in_order {
        last = Some(ex.expand_page(0, title, text));
    }
    let kept = ex.page_lua().map(|p| p.shared.kept()).unwrap_or(0);
    (last.expect("a page"), kept)
}

fn templates(e: &Expansion) -> Vec<String> {
    e.templates.iter().map(|(_, k)| k.clone()).collect()
}

/// The page expanded after others equals the page expanded alone: text, records, and
/// instructions within two of the hook's intervals (1,000 each: where the count hook
/// falls differs, and strings an earlier page left need no allocation).
fn same_as_fresh(kept: &Expansion, fresh: &Expansion) {
    assert_eq!(kept.text, fresh.text);
    assert_eq!(templates(kept), templates(fresh));
    assert_eq!(kept.warnings, fresh.warnings);
    let (k, f) = (kept.stats.lua_instructions, fresh.stats.lua_instructions);
    assert!(k.abs_diff(f) <= 2000, "{k} instructions against {f}");
}

#[test]
fn a_later_page_gets_the_table_and_is_charged_for_it() {
    let page = ("B", "{{#invoke:Reader|data}}");
    let (fresh, _) = in_turn(&[page]);
    assert_eq!(fresh.text, "2001000");
    // A load costs tens of thousands of instructions: a page that got the table free
    // would show it.
    assert!(fresh.stats.lua_instructions > 20_000, "{:?}", fresh.stats);
    let (kept, shared) = in_turn(&[("A", "{{#invoke:Reader|twice}}"), page]);
    assert_eq!(shared, 1, "the table is kept once");
    same_as_fresh(&kept, &fresh);
    assert!(templates(&kept).contains(&"Data".to_string()));
    // Twice on one page is loaded once, as Scribunto does, shared or not.
    let twice = ("C", "{{#invoke:Reader|twice}}");
    let (fresh_twice, _) = in_turn(&[twice]);
    let (kept_twice, _) = in_turn(&[("A", "{{#invoke:Reader|data}}"), twice]);
    same_as_fresh(&kept_twice, &fresh_twice);
}

#[test]
fn loads_that_read_their_page_stay_with_it() {
    // The page's title, its frame, a page's text through `getContent` of another title
    // (read from the dump: shared) and the random generator.
    let cases = [
        ("{{#invoke:Reader|page}}", 0),
        ("{{#invoke:Reader|frame|x}}", 0),
        ("{{#invoke:Reader|random}}", 0),
        ("{{#invoke:Reader|text}}", 1),
    ];
    for (text, shared_after) in cases {
        let other = text.replace("|x}}", "|y}}");
        let (fresh, _) = in_turn(&[("B", text)]);
        let (kept, shared) = in_turn(&[("A", &other), ("B", text)]);
        same_as_fresh(&kept, &fresh);
        assert_eq!(shared, shared_after, "{text}");
    }
    let (b, _) = in_turn(&[
        ("A", "{{#invoke:Reader|page}}"),
        ("B", "{{#invoke:Reader|page}}"),
    ]);
    assert_eq!(b.text, "B");
    let (b, _) = in_turn(&[
        ("A", "{{#invoke:Reader|frame|x}}"),
        ("B", "{{#invoke:Reader|frame|y}}"),
    ]);
    assert_eq!(b.text, "y");
}

#[test]
fn a_load_inside_a_load_stays_with_its_page() {
    // Module:Outer loads Module:Inner: on a page that loaded Inner first, Outer's load
    // records no transclusion of Inner and costs less; shared, it would lose Inner on
    // a page that loads Outer alone.
    let page = ("B", "{{#invoke:Reader|outer}}");
    let (fresh, _) = in_turn(&[page]);
    assert!(templates(&fresh).contains(&"Inner".to_string()));
    let (kept, shared) = in_turn(&[
        ("A", "{{#invoke:Reader|inner}}{{#invoke:Reader|outer}}"),
        page,
    ]);
    same_as_fresh(&kept, &fresh);
    assert_eq!(shared, 1, "Inner alone is kept");
}

/// The read-only views `mw.loadData` hands out: a view per call, its nested tables one
/// view each within the call, so that `rawset` on one leaves every other call's alone
/// (Scribunto's `loadData.rawset` test, and the same one level down), on the same page
/// and on the next `#invoke`; writes, `pairs` (which walks the data, not what `rawset`
/// added), `ipairs` and the foreign-table assertion as in Scribunto. The views of one
/// table share their metatable within a page (the difference `mw.lua` documents); each
/// page makes its own.
#[test]
fn load_data_views_are_per_call() {
    let views = r#"
local p = {}
local function try(f, ...)
    local ok, e = pcall(f, ...)
    return ok and 'ok' or (e:gsub('^[%w.:]*:%d+: ', ''))
end
function p.first()
    local a, b = mw.loadData('Module:Nested'), mw.loadData('Module:Nested')
    rawset(a, 'str', 'ugh')
    rawset(a.t, 'y', 'ugh')
    local keys = {}
    for k, v in pairs(a.t) do keys[#keys + 1] = k .. '=' .. tostring(v) end
    table.sort(keys)
    local list = {}
    for i, v in ipairs(a.list) do list[i] = type(v) == 'table' and v[1] or v end
    return table.concat({
        tostring(a == b), tostring(a.t == a.t), tostring(a.t == b.t),
        tostring(a.t == a.same), a.str, b.str, tostring(a.t.y), tostring(b.t.y),
        table.concat(keys, ' '), table.concat(list, ' '),
        tostring(getmetatable(a).mw_loadData), tostring(getmetatable(a) == getmetatable(b)),
        try(function() a.t.x = 1 end), try(getmetatable(a).__index, {}, 'str'),
        try(setmetatable, a, {}),
        try(function() local f, s = pairs(a.t) return f(s, 'nokey') end),
        try(function() local f, s = ipairs(a.list) return f(s, 'x') end),
    }, ';') .. ';' .. tostring(rawset(getmetatable(a), 'marker', 'set') ~= nil)
end
function p.second()
    local c = mw.loadData('Module:Nested')
    return c.str .. ';' .. tostring(c.t.y) .. ';' .. tostring(rawget(c, 'str')) .. ';'
        .. tostring(getmetatable(c).marker)
end
function p.mt()
    return tostring(getmetatable(mw.loadData('Module:Nested')).marker)
end
return p
"#;
    let nested = "local t = { x = 1 }\n\
                  return { str = 'data', t = t, same = t, list = { 'a', { 'b' }, 'c' } }";
    let src = Pages::new(&[("Module:Views", views), ("Module:Nested", nested)]);
    let ex = Expander::new(&src, &src.codec, config());
    let e = ex.expand_page(
        0,
        "Viewer",
        "{{#invoke:Views|first}}\n{{#invoke:Views|second}}\n{{#invoke:Views|mt}}",
    );
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
    let lines: Vec<&str> = e.text.lines().collect();
    assert_eq!(
        lines,
        [
            "false;true;false;true;ugh;data;ugh;nil;x=1;a b c;true;true;\
             table from mw.loadData is read-only;assertion failed!;\
             cannot change a protected metatable;invalid key to 'next';\
             attempt to perform arithmetic on local 'i' (a string value);true",
            "data;nil;nil;set",
            "set",
        ]
    );
    // The next page's views have a metatable of their own.
    let next = ex.expand_page(0, "Other viewer", "{{#invoke:Views|mt}}");
    assert_eq!(next.text, "nil");
}
