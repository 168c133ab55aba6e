//! The Rust half of `mw.language` (`language.lua`): dates formatted as
//! `mw.language:formatDate` formats them, through the same reader and formatter as
//! `{{#time}}` but raising Scribunto's errors where `#time` writes an error message;
//! language names, code checks, direction and fallbacks from [`super::language_data`].

use mlua::{Lua, MultiValue, Value};

use super::super::locale;
use super::super::time::{self, DateError};
use super::host::{Ctx, Op, fail, one, string};
use super::language_data as data;

/// The language operations, by the name `language.lua` calls them with.
pub(super) const OPS: &[(&str, Op)] = &[
    ("formatDate", format_date),
    ("fetchLanguageName", fetch_language_name),
    ("fetchLanguageNames", fetch_language_names),
    ("codeTest", code_test),
    ("getFallbacksFor", fallbacks_for),
    ("isRTL", is_rtl),
    ("plural", plural),
    ("formatNum", format_num),
    ("parseFormattedNumber", parse_formatted_number),
    ("formatDuration", format_duration),
    ("convertGrammar", convert_grammar),
];

/// Lua's name of a value's type, for "bad argument" messages.
pub(super) fn lua_type(v: &Value) -> &'static str {
    match v {
        Value::Nil => "nil",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

/// Argument `i` (0-based) of the PHP-side function `name` as a string: nil is `default`
/// (or an error when the argument is required), other types the error Scribunto's
/// type check raises (numbers included: PHP receives them as numbers).
fn str_arg(a: &[Value], i: usize, name: &str, default: Option<&str>) -> Result<String, String> {
    match (a.get(i).unwrap_or(&Value::Nil), default) {
        (Value::String(s), _) => Ok(s.to_string_lossy().to_string()),
        (Value::Nil, Some(d)) => Ok(d.to_string()),
        (v, _) => Err(format!(
            "bad argument #{} to '{name}' (string expected, got {})",
            i + 1,
            lua_type(v)
        )),
    }
}

/// `fetchLanguageName(code, inLanguage)`: the name, or "" for a code nobody names.
fn fetch_language_name(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let code = match str_arg(a, 0, "fetchLanguageName", None) {
        Ok(c) => c.to_lowercase(),
        Err(m) => return fail(lua, m),
    };
    let in_language = match a.get(1) {
        None | Some(Value::Nil) => None,
        _ => match str_arg(a, 1, "fetchLanguageName", None) {
            Ok(l) => Some(l.to_lowercase()),
            Err(m) => return fail(lua, m),
        },
    };
    string(lua, data::name(&code, in_language.as_deref()))
}

/// `fetchLanguageNames(inLanguage, include)`: a table of code → name.
fn fetch_language_names(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let in_language = match a.first() {
        None | Some(Value::Nil) => None,
        _ => match str_arg(a, 0, "fetchLanguageNames", None) {
            Ok(l) => Some(l.to_lowercase()),
            Err(m) => return fail(lua, m),
        },
    };
    let include = match str_arg(a, 1, "fetchLanguageNames", Some("mw")) {
        Ok(i) => i,
        Err(m) => return fail(lua, m),
    };
    let names = data::names_memo(in_language, include);
    // SAFETY: runs on the stack `exec_raw` gives it and leaves one value there, the new
    // table; a Lua error (memory) is caught by `exec_raw`'s protected call, and `names`
    // lives outside the call. One protected call for the whole table, because each of
    // mlua's costs closures and registry writes here (docs/expansion.md) and Module:Lang
    // asks for thousands of names on every page.
    let t: mlua::Table = unsafe {
        lua.exec_raw((), |state| {
            // Unsized, filled in the order `set` filled it: the same layout, so the same
            // `pairs` order as before.
            mlua::ffi::lua_newtable(state);
            for (code, name) in names.iter() {
                mlua::ffi::lua_pushlstring(state, code.as_ptr().cast(), code.len());
                mlua::ffi::lua_pushlstring(state, name.as_ptr().cast(), name.len());
                mlua::ffi::lua_rawset(state, -3);
            }
        })?
    };
    one(Value::Table(t))
}

/// `codeTest(which, code)`: `isKnownLanguageTag`, `isSupportedLanguage`,
/// `isValidBuiltInCode` or `isValidCode` of `code`.
fn code_test(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let which = match a.first() {
        Some(Value::String(s)) => s.to_string_lossy().to_string(),
        _ => String::new(),
    };
    let test: fn(&str) -> bool = match which.as_str() {
        "isKnownLanguageTag" => data::is_known_tag,
        "isSupportedLanguage" => data::is_supported,
        "isValidBuiltInCode" => data::is_valid_builtin_code,
        _ => data::is_valid_code,
    };
    match str_arg(&a[1.min(a.len())..], 0, &which, None) {
        Ok(code) => one(Value::Boolean(test(&code))),
        Err(m) => fail(lua, m),
    }
}

/// `getFallbacksFor(code)`: the fallback sequence as a Lua sequence.
fn fallbacks_for(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    match str_arg(a, 0, "getFallbacksFor", None) {
        Ok(code) => one(Value::Table(
            lua.create_sequence_from(data::fallbacks(&code))?,
        )),
        Err(m) => fail(lua, m),
    }
}

/// `isRTL(code)` of a valid code: languages MediaWiki does not know read left to right.
fn is_rtl(_: &Ctx<'_, '_>, _: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let code = match a.first() {
        Some(Value::String(s)) => s.to_string_lossy().to_string(),
        _ => String::new(),
    };
    one(Value::Boolean(data::language(&code).is_some_and(|l| l.rtl)))
}

/// `formatDate(code, format, date, local)`: the formatted date, or `nil, message` with
/// the error Scribunto raises (invalid date, a year outside 0–9999, a wrong type).
fn format_date(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let args = &a[1.min(a.len())..];
    let (format, date) = match (
        str_arg(args, 0, "formatDate", None),
        str_arg(args, 1, "formatDate", Some("")),
    ) {
        (Ok(f), Ok(d)) => (f, d),
        (Err(m), _) | (_, Err(m)) => return fail(lua, m),
    };
    match a.get(3).unwrap_or(&Value::Nil) {
        Value::Nil | Value::Boolean(_) => {}
        v => {
            let m = format!(
                "bad argument #3 to 'formatDate' (boolean expected, got {})",
                lua_type(v)
            );
            return fail(lua, m);
        }
    }
    let config = cx.ex.config();
    let dt = match time::parse(&date, config.now) {
        Ok(dt) => dt,
        Err(DateError::Invalid) => {
            return fail(
                lua,
                "bad argument #2 to 'formatDate' (not a valid timestamp)".into(),
            );
        }
        Err(DateError::TooSmall) => {
            return fail(
                lua,
                "mw.language:formatDate() only supports years from 0".into(),
            );
        }
        Err(DateError::TooBig) => {
            return fail(
                lua,
                "mw.language:formatDate() only supports years up to 9999".into(),
            );
        }
    };
    let (names, numbers) = locale::date_names(&code_of(a), config);
    string(lua, &time::format_in(&format, dt, names, Some(numbers)))
}

/// The language code every operation receives first.
fn code_of(a: &[Value]) -> String {
    match a.first() {
        Some(Value::String(s)) => s.to_string_lossy().to_string(),
        _ => String::new(),
    }
}

/// Argument `i` (0-based, after the code) of `name` as a number, with Scribunto's
/// type error.
fn number_arg(a: &[Value], i: usize, name: &str) -> Result<f64, String> {
    match a.get(i + 1).unwrap_or(&Value::Nil) {
        Value::Integer(n) => Ok(*n as f64),
        Value::Number(x) => Ok(*x),
        v => Err(format!(
            "bad argument #{} to '{name}' (number expected, got {})",
            i + 1,
            lua_type(v)
        )),
    }
}

/// `formatNum(code, n, noCommafy)`: `n` as the language writes it (PHP receives the
/// number and turns it into a string as Lua's `tostring` does, but for the exponent's
/// spelling, which the formatter reads either way).
fn format_num(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let n = match number_arg(a, 0, "formatNum") {
        Ok(n) => n,
        Err(m) => return fail(lua, m),
    };
    if n.is_nan() {
        return fail(lua, "bad argument #1 to 'formatNum' (NaN)".into());
    }
    if n.is_infinite() {
        return fail(lua, "bad argument #1 to 'formatNum' (infinite)".into());
    }
    let no_commafy = matches!(a.get(2), Some(Value::Boolean(true)));
    let text = super::ustring::lua_number(n);
    string(
        lua,
        &locale::locale(&code_of(a))
            .number
            .format(&text, !no_commafy),
    )
}

/// `parseFormattedNumber(code, s)`: the text of the number `s` writes in the language,
/// nil for anything but a string or number (Scribunto: like `tonumber`, no error).
fn parse_formatted_number(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let text = match a.get(1) {
        Some(Value::String(s)) => s.to_string_lossy().to_string(),
        Some(Value::Integer(n)) => n.to_string(),
        Some(Value::Number(x)) => super::ustring::lua_number(*x),
        _ => return one(Value::Nil),
    };
    string(lua, &locale::locale(&code_of(a)).number.parse(&text))
}

/// `formatDuration(code, seconds, intervals)`: the duration in the language's words.
fn format_duration(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let seconds = match number_arg(a, 0, "formatDuration") {
        Ok(n) => n,
        Err(m) => return fail(lua, m),
    };
    let chosen: Vec<String> = match a.get(2) {
        None | Some(Value::Nil) => Vec::new(),
        Some(Value::Table(t)) => t
            .clone()
            .pairs::<Value, Value>()
            .filter_map(|kv| kv.ok().map(|(_, v)| super::host::value_string(&v)))
            .collect(),
        Some(v) => {
            let m = format!(
                "bad argument #2 to 'formatDuration' (table expected, got {})",
                lua_type(v)
            );
            return fail(lua, m);
        }
    };
    let chosen: Vec<&str> = chosen.iter().map(String::as_str).collect();
    let code = code_of(a);
    string(
        lua,
        &locale::locale(&code).format_duration(&code, seconds, &chosen),
    )
}

/// `convertGrammar(code, word, case)`: the word in the grammatical case.
fn convert_grammar(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let args = &a[1.min(a.len())..];
    match (
        str_arg(args, 0, "convertGrammar", None),
        str_arg(args, 1, "convertGrammar", None),
    ) {
        (Ok(word), Ok(case)) => string(lua, &locale::convert_grammar(&code_of(a), &word, &case)),
        (Err(m), _) | (_, Err(m)) => fail(lua, m),
    }
}

/// `plural(code, n, forms)`: the form `n` takes in the language `code`
/// (`Language::convertPlural`: explicit `N=` forms, CLDR's rule, missing forms padded).
fn plural(_: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let code = match a.first() {
        Some(Value::String(s)) => s.to_string_lossy().to_string(),
        _ => String::new(),
    };
    let n = match a.get(1) {
        Some(Value::Integer(i)) => *i as f64,
        Some(Value::Number(x)) => *x,
        Some(Value::String(s)) => s.to_string_lossy().trim().parse().unwrap_or(0.0),
        v => {
            let m = format!(
                "bad argument #1 to 'convertPlural' (number expected, got {})",
                lua_type(v.unwrap_or(&Value::Nil))
            );
            return fail(lua, m);
        }
    };
    let forms: Vec<String> = match a.get(2) {
        Some(Value::Table(t)) => t.sequence_values::<String>().collect::<mlua::Result<_>>()?,
        _ => Vec::new(),
    };
    string(lua, super::super::plural::choose(&code, n, &forms))
}

#[cfg(test)]
mod tests {
    use crate::expand::tests::run;

    /// What CS1 and other modules ask `mw.language`, with MediaWiki 1.39's answers (the
    /// test wiki's clock: 2017-09-20 13:45:30 UTC).
    const MODULE: &str = r#"
local p = {}
local function try(f, ...)
    local ok, r = pcall(f, ...)
    return (ok and 'ok:' or 'err:') .. tostring(r)
end
function p.dates()
    local lang = mw.getContentLanguage()
    local out = {}
    for _, d in ipairs({ 'today + 2 days', '2020-05-01 + 1 day', 'next monday',
            'last day of next month', '1May', '20140305123456', '2020-05-01 12:00 Europe/Paris',
            'not a date', '@253402300800' }) do
        out[#out + 1] = try(lang.formatDate, lang, 'Y-m-d H:i', d)
    end
    out[#out + 1] = try(lang.formatDate, lang, 'U', 5)
    out[#out + 1] = try(mw.language.new('[[bogus]]').formatDate, mw.language.new('[[bogus]]'), 'Y')
    return table.concat(out, '|')
end
function p.names()
    local en = mw.language.fetchLanguageNames('en', 'all')
    return table.concat({ mw.language.fetchLanguageName('ru', 'en'), mw.language.fetchLanguageName('RU'),
        mw.language.fetchLanguageName('xx-bogus', 'en'), en.akk, tostring(en['x']),
        tostring(mw.language.isKnownLanguageTag('akk')), tostring(mw.language.isValidCode('[[x]]')),
        table.concat(mw.language.getFallbacksFor('arz'), ','),
        mw.language.new('fa'):getDir(), mw.language.new('kaa'):ucfirst('ix'),
        try(mw.language.new('[[bogus]]').isRTL, mw.language.new('[[bogus]]')),
        try(mw.language.fetchLanguageName, nil),
        mw.language.new('pl'):plural(22, { 'a', 'b', 'c' }) .. mw.language.new('pl'):convertPlural(5, 'a', 'b', 'c') }, '|')
end
function p.fresh()
    local a = mw.language.fetchLanguageNames('en', 'all')
    a.ru = 'changed'
    a.zz = 'added'
    local b = mw.language.fetchLanguageNames('en', 'all')
    local n, first = 0, {}
    for code, name in pairs(b) do
        n = n + 1
        if n <= 3 then first[#first + 1] = code .. '=' .. name end
    end
    local m = 0
    for _ in pairs(mw.language.fetchLanguageNames()) do m = m + 1 end
    return table.concat({ tostring(a == b), b.ru, tostring(b.zz), a.ru, n, m,
        table.concat(first, ',') }, '|')
end
function p.languages()
    local out = {}
    local function add(...)
        for i = 1, select('#', ...) do
            out[#out + 1] = tostring((select(i, ...)))
        end
    end
    add(mw.language.fetchLanguageName('en', 'ru'), mw.language.fetchLanguageNames('de').ru)
    for _, code in ipairs({ 'en', 'kaa', 'fa' }) do
        local l = mw.language.new(code)
        add(l:formatNum(123456.78901), l:formatNum(123456.78901, { noCommafy = true }),
            l:formatDate('Y-F-d H:i:s', '20140305123456'), l:formatDuration(86461),
            l:formatDuration(86461, { 'hours', 'minutes' }))
    end
    local ru = mw.language.new('ru')
    add(ru:convertGrammar('**ия', 'genitive'), ru:grammar('genitive', '**ия'))
    local en = mw.language.new('en')
    add(pcall(en.formatNum, en, '12'))
    add(pcall(en.formatDuration, en, 60, 'hours'))
    add(pcall(ru.convertGrammar, ru, nil, 'genitive'))
    local fa = mw.language.new('fa')
    add(fa:parseFormattedNumber(fa:formatNum(-1234.5)), en:parseFormattedNumber({}),
        en:parseFormattedNumber('x'))
    return table.concat(out, '|')
end
return p
"#;

    #[test]
    fn format_date_reads_php_dates_and_raises() {
        let e = run(&[("Module:L", MODULE)], "{{#invoke:L|dates}}");
        assert_eq!(
            e.text,
            "ok:2017-09-22 00:00|ok:2020-05-02 00:00|ok:2017-09-25 00:00|\
             ok:2017-10-31 13:45|ok:2017-05-01 00:00|ok:2014-03-05 12:34|ok:2020-05-01 10:00|\
             err:bad argument #2 to 'formatDate' (not a valid timestamp)|\
             err:mw.language:formatDate() only supports years up to 9999|\
             err:bad argument #2 to 'formatDate' (string expected, got number)|\
             err:language code '[[bogus]]' is invalid"
        );
    }

    /// Languages other than English, as MediaWiki 1.39 with the CLDR extension answers
    /// (Scribunto's LanguageLibraryTests' expectations, and its argument checks).
    #[test]
    fn names_numbers_dates_durations_and_grammar_per_language() {
        let e = run(&[("Module:L", MODULE)], "{{#invoke:L|languages}}");
        assert_eq!(
            e.text,
            "английский|Russisch|\
             123,456.78901|123456.78901|2014-March-05 12:34:56|\
             1 day, 1 minute and 1 second|24 hours and 1 minute|\
             123\u{a0}456,78901|123456.78901|2014-Mart-05 12:34:56|\
             1 kún, 1 minut hám 1 sekund|24 saat hám 1 minut|\
             ۱۲۳٬۴۵۶٫۷۸۹۰۱|۱۲۳۴۵۶.۷۸۹۰۱|۲۰۱۴-مارس-۰۵ ۱۲:۳۴:۵۶|\
             ۱ روز، ۱ دقیقه و ۱ ثانیه|۲۴ ساعت و ۱ دقیقه|**ии|**ии|\
             false|bad argument #1 to 'formatNum' (number expected, got string)|\
             false|bad argument #2 to 'formatDuration' (table expected, got string)|\
             false|bad argument #1 to 'convertGrammar' (string expected, got nil)|\
             -1234.5|nil|nil"
        );
    }

    /// Each call gets a table of its own (the lists are kept per thread, the tables not),
    /// as many entries as the lists hold, in the order the entries were set.
    #[test]
    fn every_call_gets_a_fresh_table_of_names() {
        let e = run(&[("Module:L", MODULE)], "{{#invoke:L|fresh}}");
        let all = super::data::names(Some("en"), "all");
        let mw = super::data::names(None, "mw");
        let parts: Vec<&str> = e.text.split('|').collect();
        assert_eq!(
            parts[..4],
            ["false", "Russian", "nil", "changed"],
            "{}",
            e.text
        );
        assert_eq!(parts[4], all.len().to_string());
        assert_eq!(parts[5], mw.len().to_string());
        assert!(
            all.len() > 500 && mw.len() > 300,
            "{} {}",
            all.len(),
            mw.len()
        );
        // `pairs` order on a table filled entry by entry with `Table::set`, as it was.
        let lua = mlua::Lua::new();
        let t = lua.create_table().unwrap();
        for (code, name) in &all {
            t.set(*code, *name).unwrap();
        }
        let first: Vec<String> = t
            .pairs::<String, String>()
            .take(3)
            .map(|kv| kv.map(|(k, v)| format!("{k}={v}")).unwrap())
            .collect();
        assert_eq!(parts[6], first.join(","));
    }

    #[test]
    fn language_names_codes_and_direction() {
        let e = run(&[("Module:L", MODULE)], "{{#invoke:L|names}}");
        assert_eq!(
            e.text,
            "Russian|русский||Akkadian|nil|true|false|ar,en|rtl|İx|\
             err:language code '[[bogus]]' is invalid|\
             err:bad argument #1 to 'fetchLanguageName' (string expected, got nil)|bc"
        );
    }
}
