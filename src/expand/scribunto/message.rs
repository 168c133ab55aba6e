//! The Rust half of `mw.message` (`message.lua`): a message's text and its parameters.
//!
//! A message's text is, as MediaWiki's message cache finds it, the dump's
//! `MediaWiki:Key` page (`MediaWiki:Key/lang` in another language) unless the module
//! turned the database off, then the recorded messages file when it is in that language.
//! MediaWiki's own i18n files are not in a dump: of them wikiwit has the few English core
//! messages a module asks for (`mainpage`, separators; `data/messages_en.tsv`), what
//! MediaWiki's fallback to English finds; a message found nowhere does not exist (`⧼key⧽`).

use mlua::{Lua, MultiValue, Table, Value};

use super::super::locale::unescape;
use super::super::php::htmlspecialchars;
use super::host::{Ctx, Op, arg_str, err, one, string};
use crate::title::ucfirst;

/// The message operations, by the name `message.lua` calls them with.
pub(super) const OPS: &[(&str, Op)] = &[("messagePlain", plain), ("messageCheck", check)];

/// `NS_MEDIAWIKI`.
const NS_MEDIAWIKI: i32 = 8;

/// What `message.lua` sends: the raw text or the keys to try, the language, whether the
/// dump's pages count.
struct Request {
    raw: Option<String>,
    keys: Vec<String>,
    lang: String,
    use_db: bool,
}

impl Request {
    fn read(a: &[Value], at: usize) -> mlua::Result<Request> {
        let keys = match a.get(at + 1) {
            Some(Value::Table(t)) => t.sequence_values::<String>().collect::<Result<_, _>>()?,
            _ => Vec::new(),
        };
        Ok(Request {
            raw: arg_str(a, at),
            keys,
            lang: arg_str(a, at + 2).unwrap_or_default(),
            use_db: !matches!(a.get(at + 3), Some(Value::Boolean(false))),
        })
    }

    /// The message's text, `None` when no key has one.
    fn text(&self, cx: &Ctx<'_, '_>) -> Option<String> {
        if let Some(raw) = &self.raw {
            return Some(raw.clone());
        }
        self.keys
            .iter()
            .find_map(|k| lookup(cx, k, &self.lang, self.use_db))
    }
}

/// The text of message `key` in `lang`.
fn lookup(cx: &Ctx<'_, '_>, key: &str, lang: &str, use_db: bool) -> Option<String> {
    let config = cx.ex.config();
    let content = lang == config.lang;
    if use_db {
        let mut page = ucfirst(&key.replace(' ', "_")).into_owned();
        if !content {
            page = format!("{page}/{lang}");
        }
        if let Some(text) = cx.ex.source().wikitext(NS_MEDIAWIKI, &page) {
            return Some(text.into_owned());
        }
    }
    let file = &config.messages;
    let file_lang = if file.lang.is_empty() {
        config.lang.as_str()
    } else {
        file.lang.as_str()
    };
    let recorded = if lang == file_lang {
        file.messages.get(&lcfirst(key)).cloned()
    } else {
        None
    };
    // MediaWiki falls back along the language chain to its own English messages.
    recorded.or_else(|| core_english(&lcfirst(key)))
}

/// MediaWiki's own English text of `key`, for the few core messages of
/// `data/messages_en.tsv` (`tools/language-names/record-core-messages.py`).
fn core_english(key: &str) -> Option<String> {
    static TABLE: std::sync::OnceLock<Vec<(&'static str, String)>> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        include_str!("../data/messages_en.tsv")
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .map(|(k, text)| (k, unescape(text)))
            .collect()
    });
    let i = table.binary_search_by(|(k, _)| (*k).cmp(key)).ok()?;
    Some(table[i].1.clone())
}

/// MediaWiki's message keys start with a lower-case letter.
fn lcfirst(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `messagePlain(raw, keys, lang, useDB, params)`: the text with its parameters.
fn plain(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let req = Request::read(a, 0)?;
    let params: Vec<String> = match a.get(4) {
        Some(Value::Table(t)) => strings(t)?,
        _ => Vec::new(),
    };
    let text = match req.text(cx) {
        Some(t) => replace_params(&t, &params),
        None => format!(
            "⧼{}⧽",
            htmlspecialchars(req.keys.first().map_or("", String::as_str))
        ),
    };
    string(lua, &text)
}

fn strings(t: &Table) -> mlua::Result<Vec<String>> {
    t.sequence_values::<mlua::LuaString>()
        .map(|s| s.map(|s| s.to_string_lossy().to_string()))
        .collect()
}

/// `messageCheck(what, raw, keys, lang, useDB)`: `exists`, `isBlank` (missing or
/// empty) or `isDisabled` (blank or `-`).
fn check(cx: &Ctx<'_, '_>, _: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let what = arg_str(a, 0).unwrap_or_default();
    let text = Request::read(a, 1)?.text(cx);
    let answer = match what.as_str() {
        "exists" => text.is_some(),
        "isBlank" => text.is_none_or(|t| t.is_empty()),
        "isDisabled" => text.is_none_or(|t| t.is_empty() || t == "-"),
        _ => return Err(err("invalid what for 'messageCheck'")),
    };
    one(Value::Boolean(answer))
}

/// `$1`, `$2`, … replaced in one pass as PHP's `strtr` does: the longest `$n` that names
/// a parameter wins (`$10` with one parameter is the first one followed by `0`), and a
/// parameter's own text is not searched again.
pub(super) fn replace_params(text: &str, params: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let run = after.bytes().take_while(u8::is_ascii_digit).count();
        let found = (1..=run).rev().find_map(|len| {
            let digits = &after[..len];
            let n: usize = digits.parse().ok()?;
            (!digits.starts_with('0') && n >= 1 && n <= params.len()).then_some((len, n))
        });
        match found {
            Some((len, n)) => {
                out.push_str(&params[n - 1]);
                rest = &after[len..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parameters_are_replaced_as_strtr_does() {
        // CS1's `<cite class="$1">$2</cite>` with a class and the citation.
        let cite = replace_params("<cite class=\"$1\">$2</cite>", &p(&["citation", "X $1"]));
        assert_eq!(cite, "<cite class=\"citation\">X $1</cite>");
        assert_eq!(
            replace_params("$10 $1 $0 $01 $", &p(&["a"])),
            "a0 a $0 $01 $"
        );
        let twelve: Vec<String> = (1..=12).map(|i| format!("p{i}")).collect();
        assert_eq!(replace_params("$12$123$13", &twelve), "p12p123p13");
    }

    const MSG: &str = r#"
local p = {}
function p.cs1()
    -- CS1's rendering of a citation: one table of parameters.
    return mw.message.newRawMessage('<cite class="$1">$2</cite>', {'citation', 'X'}):plain()
end
function p.forms()
    local m = mw.message.newRawMessage
    return table.concat({
        m('($1 $2)', 'a', 7):plain(),
        m('($1 $2 $3)'):params("'''f'''", mw.message.rawParam('r'), mw.message.numParam(123456)):plain(),
        m('($1 $2)'):rawParams({'x', 'y'}):plain(),
        m('($1 $2)'):numParams(-1.5, 1234567):plain(),
        m('($1)', m('inner $1', 'z')):plain(),
        tostring(m('[$1]', 'tostring')),
        mw.message.new('no-such-message-here'):plain(),
        tostring(mw.message.new('no-such-message-here'):exists()),
        tostring(mw.message.new('custom'):exists()),
        mw.message.new('custom', 'P'):plain(),
        mw.message.newFallbackSequence('no-such', 'custom'):params('Q'):plain(),
        mw.message.new('custom'):useDatabase(false):plain(),
        tostring(mw.message.new('dash'):isDisabled()),
        tostring(mw.message.new('dash'):isBlank()),
    }, '|')
end
function p.core()
    return table.concat({ tostring(mw.message.new('mainpage'):exists()),
        mw.message.new('mainpage'):plain(), mw.message.new('and'):useDatabase(false):plain(),
        mw.message.new('Comma-separator'):plain() }, '|')
end
function p.bad()
    local ok1, e1 = pcall(mw.message.newRawMessage, 'x', {1}, 2)
    local ok2, e2 = pcall(mw.message.newRawMessage, 'x', true)
    local ok3, e3 = pcall(mw.message.new('custom').plain)
    return e1 .. '|' .. e2 .. '|' .. e3
end
return p
"#;

    /// MediaWiki's own English messages, which no dump holds (Scribunto's
    /// MessageLibraryTests asks `exists('mainpage')`).
    #[test]
    fn core_messages_exist_without_a_page() {
        let e = crate::expand::tests::run(&[("Module:Msg", MSG)], "{{#invoke:Msg|core}}");
        assert_eq!(e.text, "true|Main Page| and|, ");
    }

    #[test]
    fn messages_take_parameters_in_every_form() {
        use crate::expand::tests::run;
        let pages = [
            ("Module:Msg", MSG),
            ("MediaWiki:Custom", "Custom $1"),
            ("MediaWiki:Dash", "-"),
        ];
        let e = run(&pages, "{{#invoke:Msg|cs1}}");
        assert_eq!(e.text, "<cite class=\"citation\">X</cite>");
        let e = run(&pages, "{{#invoke:Msg|forms}}");
        let want = [
            "(a 7)",
            "('''f''' r 123,456)",
            "(x y)",
            "(\u{2212}1.5 1,234,567)",
            "(inner z)",
            "[tostring]",
            "⧼no-such-message-here⧽",
            "false",
            "true",
            "Custom P",
            "Custom Q",
            "⧼custom⧽",
            "true",
            "false",
        ];
        assert_eq!(e.text, want.join("|"));
        let e = run(&pages, "{{#invoke:Msg|bad}}");
        assert_eq!(
            e.text,
            "bad arguments to 'params' (pass either a table of params or params as individual \
             arguments)|bad argument #1 to 'params' (string or number expected, got boolean)|\
             mw.message: invalid message object. Did you call plain with a dot instead of a \
             colon, i.e. msg.plain() instead of msg:plain()?"
        );
    }
}
