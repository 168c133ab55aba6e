//! The argument checks and messages of `mw.html`, `mw.ustring`, `mw.site` and `mw.uri`.
//! Each case's answer is what MediaWiki 1.39 with Scribunto on LuaSandbox (Wikipedia's
//! engine) gives for the same call: recorded with the installed MediaWiki, or (for a
//! few) what Scribunto's own tests, which pass there, expect of a similar call. Errors
//! are shown as `ERR message`, without the position a Lua-side check adds (in the
//! module or in a library's chunk).

use crate::expand::tests::run;

/// Runs each line of `cases` (a Lua expression list) in one module and gives one line of
/// answers per case: values joined by `,`, strings quoted, or `ERR` and the message.
fn answers(cases: &str) -> Vec<String> {
    let list: Vec<String> = cases
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("function() return {l} end,"))
        .collect();
    let code = format!(
        r#"
local function show(...)
    local out = {{}}
    for i = 1, select('#', ...) do
        local v = select(i, ...)
        out[i] = type(v) == 'string' and ('"' .. v .. '"') or tostring(v)
    end
    return table.concat(out, ',')
end
local function pack(...)
    return select('#', ...), {{ ... }}
end
local function try(f)
    local n, r = pack(pcall(f))
    if not r[1] then
        local e = r[2]
        if type(e) ~= 'string' then
            return 'ERR of type ' .. type(e)
        end
        return 'ERR ' .. e:gsub('^Module:L:%d+: ', ''):gsub('^mw[%w.]*:%d+: ', '')
    end
    return show(unpack(r, 2, n))
end
local cases = {{
{}
}}
return {{ run = function()
    local out = {{}}
    for i, f in ipairs(cases) do
        out[i] = try(f)
    end
    return table.concat(out, '\n')
end }}
"#,
        list.join("\n")
    );
    let e = run(&[("Module:L", code.as_str())], "{{#invoke:L|run}}");
    assert!(e.warnings.is_empty(), "{:?}", e.warnings);
    e.text.lines().map(str::to_string).collect()
}

#[test]
fn html_builds_and_refuses_as_scribunto() {
    let got = answers(
        r#"
        tostring(mw.html.create('div'):addClass('a'):addClass('b'):addClass('a'))
        tostring(mw.html.create('p'):css('content', 'x:y;z'):css('font-family', 'Ünï'))
        tostring(mw.html.create('p'):cssText(''):attr('data-x', 5))
        tostring(mw.html.create('p'):attr('style', 'a:b'):css('c', 'd'))
        tostring(mw.html.create('br'):node(nil))
        tostring(mw.html.create('x-y'))
        tostring(mw.html.create('p'):attr('a b', 'c'))
        tostring(mw.html.create('p'):attr(7, 'c'))
        tostring(mw.html.create('p'):attr({ a = {} }))
        tostring(mw.html.create('p'):css({ a = true }))
        tostring(mw.html.create('p'):getAttr(1))
        tostring(mw.html.create('p'):wikitext('a', nil, 'b'))
        tostring(mw.html.create('p'):tag('br', { selfClosing = false }):wikitext('x'))
        tostring(mw.html.create(''):wikitext('a'):tag('i'):allDone())
        tostring(mw.html.create('p'):attr('title', "\127'\"`UNIQ--nowiki-00000001-QINU`\"'\127<"))
        "#,
    );
    let want = [
        r#""<div class="a b a"></div>""#,
        r#""<p style="content:x\3A y\3B z;font-family:\DC n\EF "></p>""#,
        r#""<p data-x="5" style=""></p>""#,
        r#""<p style="a:b;c:d"></p>""#,
        "ERR self-closing tags can't have child nodes",
        "ERR invalid tag name 'x-y'",
        "ERR bad argument #1 to 'attr' (invalid attribute name 'a b')",
        "ERR bad argument #1 to 'attr' (string expected, got number)",
        "ERR bad argument #1 to 'attr' (table keys must be strings, and values must be strings or numbers)",
        "ERR bad argument #1 to 'css' (table keys and values must be strings or numbers)",
        "ERR bad argument #1 to 'getAttr' (string expected, got number)",
        r#""<p>a</p>""#,
        "ERR self-closing tags can't have child nodes",
        r#""a<i></i>""#,
        "\"<p title=\"\u{7f}'\"`UNIQ--nowiki-00000001-QINU`\"'\u{7f}&lt;\"></p>\"",
    ];
    assert_eq!(got, want);
}

#[test]
fn ustring_patterns_are_checked_whole_with_scribunto_messages() {
    let got = answers(
        r#"
        mw.ustring.find('abc', 'b]')
        mw.ustring.find('abc', 'b]', 1, true)
        mw.ustring.match('abc', '(a(b)')
        mw.ustring.match('abc', 'a)')
        mw.ustring.match('abc', '(a)%2')
        mw.ustring.match('abc', '%f')
        mw.ustring.find('fóó', '()[^]')
        mw.ustring.gmatch('x', '(')
        mw.ustring.gsub('abc', '[', 'x', 0)
        mw.ustring.gsub('x', string.rep('x', 10001), '')
        mw.ustring.find('a^b', '^b', 2)
        mw.ustring.find('abc', 'a', -10)
        "#,
    );
    let want = [
        "ERR Unmatched close-bracket at pattern character 2",
        "nil",
        "ERR Unclosed capture beginning at pattern character 1",
        "ERR Unmatched close-paren at pattern character 2",
        "ERR invalid capture index %2 at pattern character 4",
        "ERR missing '[' after %f in pattern at pattern character 1",
        "ERR Missing close-bracket for character set beginning at pattern character 3",
        "ERR Unmatched open-paren at pattern character 1",
        "\"abc\",0",
        "ERR bad argument #2 to 'gsub' (pattern is longer than 10000 bytes)",
        "nil",
        "1,1",
    ];
    assert_eq!(got, want);
}

/// Errors of the Rust-side functions reach Lua as strings (never userdata), without a
/// position, as PHP's do.
#[test]
fn ustring_errors_and_replacements_as_scribunto() {
    let got = answers(
        r#"
        mw.ustring.gsub('abc', '%w', '%a')
        mw.ustring.gsub('abc', '%w', '[%%]')
        mw.ustring.gsub('abc', '(%w)', '%2')
        mw.ustring.gsub('abc', '(%w)', { a = false })
        mw.ustring.gsub('abc', '(%w)', { a = 1 })
        mw.ustring.gsub('abc', '(%w)', function() return {} end)
        mw.ustring.gsub('abc', '%w', 'x', 1.5)
        mw.ustring.gsub('abc', 'b')
        mw.ustring.gsub('abc', 'b', true)
        mw.ustring.find('abc', 'b', 1, 1)
        mw.ustring.sub('abcdef', '2')
        mw.ustring.sub('abcdef', 2.7, 4.2)
        mw.ustring.sub('\255abc', 2)
        mw.ustring.len('\255abc')
        mw.ustring.char('65', 66.9, ' 67 ')
        mw.ustring.char(0xD800)
        mw.ustring.char('x')
        mw.ustring.char(-1)
        mw.ustring.codepoint('aé', -5, 10)
        mw.ustring.upper(nil)
        mw.ustring.find('x')
        mw.ustring.gmatch(5, 'x')
        mw.ustring.gcodepoint('abc', 2)()
        mw.ustring.isutf8(5)
        mw.ustring.toNFC('\255')
        "#,
    );
    let want = [
        "\"%a%a%a\",3",
        "\"[%][%][%]\",3",
        "ERR invalid capture index %2 in replacement string",
        "ERR invalid replacement value (a boolean)",
        "\"1bc\",3",
        "ERR invalid replacement value (a table)",
        "\"xbc\",1",
        "ERR too few arguments to mw.ustring.gsub",
        "ERR bad argument #3 to 'gsub' (function or table or string expected, got boolean)",
        "ERR bad argument #4 to 'find' (boolean expected, got number)",
        "ERR bad argument #2 to 'sub' (number expected, got string)",
        "\"bcd\"",
        "ERR bad argument #1 to 'sub' (string is not UTF-8)",
        "nil",
        "\"ABC\"",
        "\"?\"",
        "ERR bad argument #1 to 'char' (number expected, got string)",
        "ERR bad argument #1 to 'char' (value out of range)",
        "97,233",
        "ERR bad argument #1 to 'uc' (string expected, got nil)",
        "ERR too few arguments to mw.ustring.find",
        "ERR bad argument #1 to 'gmatch' (string expected, got number)",
        "98",
        "true",
        "nil",
    ];
    assert_eq!(got, want);
}

/// Positions that are not ordinary numbers (NaN, infinities, 2^63 and beyond) give an
/// empty or clamped answer: a NaN end once sliced the text backwards and panicked the
/// worker (a libFuzzer find, `tests/data/fuzz/lua_module/codepoint-nan-span`), and a huge
/// `byteoffset` count overflowed.
#[test]
fn ustring_positions_out_of_the_ordinary() {
    let got = answers(
        r#"
        mw.ustring.codepoint('1e+308', 0/0)
        mw.ustring.codepoint('abcdef', 7, 0/0)
        mw.ustring.codepoint('abc', 0/0, 2)
        mw.ustring.sub('abcdef', 7, 0/0)
        mw.ustring.sub('abcdef', 0/0, 0/0)
        mw.ustring.sub('abcdef', 0/0)
        mw.ustring.sub('abcdef', -1/0, 1/0)
        mw.ustring.byteoffset('abc', 1/0)
        mw.ustring.byteoffset('abc', 2^63, 1)
        "#,
    );
    assert_eq!(
        got,
        [
            "49",
            "",
            "97,98",
            "\"\"",
            "\"a\"",
            "\"abcdef\"",
            "\"abcdef\"",
            "nil",
            "nil"
        ]
    );
}

#[test]
fn ustring_byteoffset_as_scribunto() {
    // 'aéb' is bytes a=1, é=2–3, b=4.
    let got = answers(
        r#"
        mw.ustring.byteoffset('aéb', 0, 3)
        mw.ustring.byteoffset('aéb', 1, 3)
        mw.ustring.byteoffset('aéb', -1, 4)
        mw.ustring.byteoffset('aéb', 2)
        mw.ustring.byteoffset('aéb', 1, -2)
        mw.ustring.byteoffset('aéb', 1, 0)
        mw.ustring.byteoffset('aéb', 3)
        "#,
    );
    assert_eq!(got, ["2", "4", "2", "2", "4", "nil", "4"]);
}

#[test]
fn site_namespace_names_and_interwiki_filters() {
    let got = answers(
        r#"
        mw.site.namespaces['  user_TALK '].id
        mw.site.namespaces['User\t_talk'].id
        mw.site.namespaces.Nosuch
        #mw.site.interwikiMap('local')
        #mw.site.interwikiMap()
        mw.site.interwikiMap(1)
        mw.site.interwikiMap('')
        "#,
    );
    let want = [
        "3",
        "3",
        "nil",
        "0",
        "0",
        "ERR bad argument #1 to 'interwikiMap' (string expected, got number)",
        "ERR bad argument #1 to 'interwikiMap' (unknown filter '')",
    ];
    assert_eq!(got, want);
}

/// The page's URLs are URL objects; written back, a parsed query is re-encoded in its
/// own order. The tests' wiki is `https://en.wikipedia.org`.
#[test]
fn uri_urls_are_objects_with_the_page_name() {
    let got = answers(
        r#"
        tostring(mw.uri.localUrl('help:a b', { x = 1 }))
        tostring(mw.uri.fullUrl('Main Page#Sec 1'))
        tostring(mw.uri.canonicalUrl('Talk:x', 'action=raw'))
        tostring(mw.uri.localUrl('Main Page#Sec'))
        mw.uri.localUrl('[[')
        mw.uri.localUrl(5)
        type(mw.uri.fullUrl('X'))
        "#,
    );
    let want = [
        r#""/w/index.php?title=Help%3AA_b&x=1""#,
        r#""//en.wikipedia.org/wiki/Main_Page#Sec_1""#,
        r#""https://en.wikipedia.org/w/index.php?title=Talk%3AX&action=raw""#,
        r#""/wiki/Main_Page""#,
        "nil",
        "ERR bad argument #1 to 'localurl' (string expected, got number)",
        r#""table""#,
    ];
    assert_eq!(got, want);
}

#[test]
fn uri_new_parses_into_parts_and_writes_them_back() {
    let got = answers(
        r#"
        mw.uri.new('http://u:p@h.example:81/a?x=1&y&x=2#f').authority
        mw.uri.new('http://u:p@h.example:81/a?x=1&y&x=2#f').queryString
        mw.uri.new('http://u:p@h.example:81/a?x=1&y&x=2#f').query.x[2]
        mw.uri.new('http://u:p@h.example:81/a?x=1&y&x=2#f').port
        mw.uri.new('//[2001:db8::]:80').host
        tostring(mw.uri.new('http:?q=1'))
        tostring(mw.uri.new('/w/index.php?'))
        tostring(mw.uri.new('http://h/p'):extend({ a = 'b c' }))
        mw.uri.new('http://h:x/')
        mw.uri.parseQueryString('?a=1+2&b=%41').a
        mw.uri.parseQueryString('?a=1+2&b=%41').b
        mw.uri.new('http://h:99999/')
        mw.uri.validate({ path = 5, port = 1.5, protocol = 'a:b' })
        mw.uri.validate({})
        mw.uri.validate({ path = '//x' })
        mw.uri.validate({ path = 'a:b' })
        mw.uri.validate({ host = 'h', path = 'x' })
        mw.uri.new('http://h/p'):validate()
        "#,
    );
    let want = [
        r#""u:p@h.example:81""#,
        r#""x=1&x=2&y""#,
        r#""2""#,
        "81",
        r#""[2001:db8::]""#,
        r#""http:?q=1""#,
        r#""/w/index.php?""#,
        r#""http://h/p?a=b+c""#,
        "ERR Invalid port number in string",
        r#""1 2""#,
        r#""A""#,
        "ERR invalid .port",
        r#"false,"invalid .protocol; .port must be an integer, not number; .path must be a string, not number""#,
        r#"false,"missing .path""#,
        r#"false,"invalid .path""#,
        r#"false,"invalid .path""#,
        r#"false,"invalid .path""#,
        r#"true,"""#,
    ];
    assert_eq!(got, want);
}

/// `$wgCanonicalServer` takes the scheme of the dump's `<base>`.
#[test]
fn canonical_server_follows_the_dumps_base() {
    let mut site = crate::siteinfo::SiteInfo::synthesized("en");
    site.base = "http://wiki.local/wiki/Main_Page".to_string();
    let cfg = crate::expand::ExpandConfig::from_site(&site, 0);
    assert_eq!(cfg.server, "//wiki.local");
    assert_eq!(cfg.canonical_server, "http://wiki.local");
}
