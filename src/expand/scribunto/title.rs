//! The Rust half of `mw.title` (`title.lua`): titles parsed and made by the wiki's rules,
//! the current page's title, existence and redirects (recorded as MediaWiki records
//! them, and counted as expensive), and a page's content.

use mlua::{Lua, MultiValue, Value};

use super::NS_MODULE;
use super::host::{Ctx, Op, arg_int, arg_str, err, nil, one, string};
use super::site::has_subpages;

/// The title operations, by the name `title.lua` calls them with.
pub(super) const OPS: &[(&str, Op)] = &[
    ("title", title),
    ("maketitle", make_title),
    ("currentTitle", current_title),
    ("exists", exists),
    ("redirect", redirect),
    ("content", content),
    ("pageId", page_id),
    ("titleById", title_by_id),
];

/// `mw.title.new(text, namespace)`.
fn title(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let text = arg_str(a, 0).unwrap_or_default();
    let ns = arg_int(a, 1).unwrap_or(0) as i32;
    match cx.ex.codec().parse(&text, ns) {
        Ok(t) if !t.dbkey.is_empty() || t.interwiki.is_some() => one(cx.title(
            lua,
            t.ns,
            &t.dbkey,
            t.fragment.as_deref().unwrap_or(""),
            t.interwiki.as_deref().unwrap_or(""),
        )?),
        _ => nil(),
    }
}

/// `mw.title.makeTitle(namespace, text, fragment)`.
fn make_title(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let ns = arg_int(a, 0).unwrap_or(0) as i32;
    let text = arg_str(a, 1).unwrap_or_default();
    let fragment = arg_str(a, 2).unwrap_or_default();
    let Some(name) = cx.ex.codec().namespaces().name_of(ns) else {
        return nil();
    };
    let full = if ns == 0 {
        format!(":{text}")
    } else {
        format!("{name}:{text}")
    };
    match cx.ex.codec().parse(&full, 0) {
        Ok(t) if t.ns == ns && !t.dbkey.is_empty() && t.interwiki.is_none() => {
            let f = if fragment.is_empty() {
                t.fragment.unwrap_or_default()
            } else {
                fragment
            };
            one(cx.title(lua, t.ns, &t.dbkey, &f, "")?)
        }
        _ => nil(),
    }
}

fn current_title(cx: &Ctx<'_, '_>, lua: &Lua, _: &[Value]) -> mlua::Result<MultiValue> {
    let (ns, dbkey) = {
        let mut st = cx.st.borrow_mut();
        st.page_dependent();
        (st.page_ns, st.page_dbkey.clone())
    };
    one(cx.title(lua, ns, &dbkey, "", "")?)
}

/// `title.exists`.
fn exists(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    existence(cx, lua, a, true)
}

/// `title.redirectTarget` (and `title.isRedirect`).
fn redirect(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    existence(cx, lua, a, false)
}

/// Whether a page exists, or its redirect target: a look-up MediaWiki records as a link
/// and counts as expensive (but not for the current page).
fn existence(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value], exists: bool) -> mlua::Result<MultiValue> {
    let ns = arg_int(a, 0).unwrap_or(0) as i32;
    let dbkey = arg_str(a, 1).unwrap_or_default();
    if arg_str(a, 2).is_some_and(|i| !i.is_empty()) || ns < -1 {
        return one(Value::Boolean(false));
    }
    if ns == -1 {
        return one(Value::Boolean(exists));
    }
    {
        let mut st = cx.st.borrow_mut();
        let current = st.page_ns == ns && st.page_dbkey == dbkey;
        if !current && !cx.ex.expensive_call(&mut st, ns, &dbkey) {
            return Err(err("too many expensive function calls"));
        }
        st.record_existence_link(ns, &dbkey);
    }
    let source = cx.ex.source();
    if exists {
        return one(Value::Boolean(source.exists(ns, &dbkey)));
    }
    match source.redirect(ns, &dbkey) {
        Some((tns, tkey)) => one(cx.title(lua, tns, &tkey, "", "")?),
        None => nil(),
    }
}

/// `title.id`: the dump's page id (0 for a missing page), a look-up like `exists`; the
/// current page's from its revision.
fn page_id(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let ns = arg_int(a, 0).unwrap_or(0) as i32;
    let dbkey = arg_str(a, 1).unwrap_or_default();
    if ns < 0 {
        return one(Value::Number(0.0));
    }
    let current = {
        let st = cx.st.borrow();
        st.page_ns == ns && st.page_dbkey == dbkey
    };
    if let Some(r) = cx.ex.revision().filter(|_| current) {
        return one(Value::Number(r.page_id as f64));
    }
    let exists = existence(cx, lua, a, true)?;
    if !matches!(exists.front(), Some(Value::Boolean(true))) {
        return one(Value::Number(0.0));
    }
    let id = cx.ex.source().page_id(ns, &dbkey).unwrap_or(1);
    one(Value::Number(id as f64))
}

/// `mw.title.new(id)`: the page with that page id, a look-up counted as expensive.
fn title_by_id(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let id = arg_int(a, 0).unwrap_or(0);
    let Some((ns, dbkey)) = u64::try_from(id)
        .ok()
        .filter(|&i| i > 0)
        .and_then(|i| cx.ex.source().page_of_id(i))
    else {
        return nil();
    };
    {
        let mut st = cx.st.borrow_mut();
        if !cx.ex.expensive_call(&mut st, ns, &dbkey) {
            return Err(err("too many expensive function calls"));
        }
        st.record_existence_link(ns, &dbkey);
    }
    one(cx.title(lua, ns, &dbkey, "", "")?)
}

/// `title:getContent()`: the page's wikitext, recorded as a transclusion.
fn content(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let ns = arg_int(a, 0).unwrap_or(0) as i32;
    let dbkey = arg_str(a, 1).unwrap_or_default();
    if ns < 0 {
        return nil();
    }
    let current = {
        let mut st = cx.st.borrow_mut();
        st.record_template(ns, &dbkey);
        let current = st.page_ns == ns && st.page_dbkey == dbkey;
        if current {
            // The text being expanded, which need not be the dump's (`expand` of a
            // section): what reads it cannot be reused on another page.
            st.page_dependent();
        }
        current
    };
    if let Some(text) = cx.ex.content().filter(|_| current) {
        return string(lua, &text);
    }
    match cx.ex.source().wikitext(ns, &dbkey) {
        Some(t) => string(lua, &t),
        None => nil(),
    }
}

impl Ctx<'_, '_> {
    /// The fields of a title that Rust knows; `title.lua` computes the rest.
    fn title(
        &self,
        lua: &Lua,
        ns: i32,
        dbkey: &str,
        fragment: &str,
        interwiki: &str,
    ) -> mlua::Result<Value> {
        let t = lua.create_table()?;
        let names = self.ex.codec().namespaces();
        let ns_text = |n: i32| names.name_of(n).unwrap_or("").replace('_', " ");
        t.set("namespace", ns)?;
        t.set("dbkey", dbkey)?;
        t.set("text", dbkey.replace('_', " "))?;
        t.set("fragment", fragment)?;
        t.set("interwiki", interwiki)?;
        t.set("nsText", ns_text(ns))?;
        t.set("subjectNsText", ns_text(if ns >= 0 { ns & !1 } else { ns }))?;
        if ns >= 0 {
            t.set("talkNsText", ns_text(ns | 1))?;
        }
        t.set("contentModel", default_model(ns, dbkey))?;
        t.set("hasSubpages", has_subpages(ns))?;
        Ok(Value::Table(t))
    }
}

/// The content model MediaWiki gives a page by its title (a dump's pages keep it; the
/// index does not): Scribunto for modules but their `.json` pages and `/doc` pages,
/// JSON, CSS and JavaScript for those pages of the MediaWiki namespace and user
/// subpages, wikitext for the rest.
pub(super) fn default_model(ns: i32, dbkey: &str) -> &'static str {
    let by_suffix = || {
        [(".json", "json"), (".css", "css"), (".js", "javascript")]
            .into_iter()
            .find(|(s, _)| dbkey.ends_with(s))
            .map(|(_, m)| m)
    };
    match ns {
        NS_MODULE if dbkey.ends_with(".json") => "json",
        NS_MODULE if dbkey.ends_with("/doc") => "wikitext",
        NS_MODULE => "Scribunto",
        8 => by_suffix().unwrap_or("wikitext"),
        2 if dbkey.contains('/') => by_suffix().unwrap_or("wikitext"),
        _ => "wikitext",
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use crate::expand::tests::{Pages, config};
    use crate::expand::{Expander, PageRevision, TemplateSource};

    /// The test pages with page ids: the n-th page (from 0) has id 10 + n.
    struct WithIds(Pages, Vec<(i32, String)>);

    impl WithIds {
        fn new(pages: &[(&str, &str)]) -> WithIds {
            let p = Pages::new(pages);
            let keys = pages
                .iter()
                .map(|(t, _)| {
                    let t = p.codec.parse_page_title(t).expect("title");
                    (t.ns, t.dbkey)
                })
                .collect();
            WithIds(p, keys)
        }
    }

    impl TemplateSource for WithIds {
        fn wikitext(&self, ns: i32, dbkey: &str) -> Option<Cow<'_, str>> {
            self.0.wikitext(ns, dbkey)
        }
        fn exists(&self, ns: i32, dbkey: &str) -> bool {
            self.0.exists(ns, dbkey)
        }
        fn redirect(&self, ns: i32, dbkey: &str) -> Option<(i32, String)> {
            self.0.redirect(ns, dbkey)
        }
        fn holds_templates(&self) -> bool {
            self.0.holds_templates()
        }
        fn page_id(&self, ns: i32, dbkey: &str) -> Option<u64> {
            let k = (ns, dbkey.to_string());
            self.1.iter().position(|p| *p == k).map(|n| 10 + n as u64)
        }
        fn page_of_id(&self, id: u64) -> Option<(i32, String)> {
            self.1
                .get(usize::try_from(id).ok()?.checked_sub(10)?)
                .cloned()
        }
    }

    const T: &str = r#"
local p = {}
function p.fields()
    local t = mw.title.new('Talk:Has/A/Subpage')
    t.fragment = '__frag__frag__'
    local ok, e = pcall(function() t.text = 'x' end)
    e = e:gsub('^.-:%d+: ', '')
    t.mine = 1
    local s = mw.title.new(' __ Template __ : __ Test _ Framework __ # _ frag _ frag _ ')
    return table.concat({
        t.fragment, t.fullText, t:fullUrl(), t:localUrl(), t.talkNsText, t.subjectNsText,
        e, t.mine, s.fragment, tostring(s), t.contentModel,
        mw.title.new('Module:X').contentModel, mw.title.new('Module:X.json').contentModel,
        mw.title.getCurrentTitle().fragment,
    }, '|')
end
function p.ids()
    local cur = mw.title.getCurrentTitle()
    local byId = mw.title.new(11)
    return table.concat({
        cur.id, mw.title.new('Target').id, mw.title.new('Missing').id, tostring(byId),
        tostring(mw.title.new(99)), tostring(mw.title.new(0)),
        tostring(mw.title.new('Redirect').redirectTarget),
        tostring(mw.title.new('Target').redirectTarget),
        tostring(mw.title.new('File:X.png').fileExists),
        cur:getContent(),
    }, '|')
end
return p
"#;

    #[test]
    fn title_fields_ids_and_the_current_page() {
        let src = WithIds::new(&[
            ("Module:T", T),
            ("Target", "target text"),
            ("Redirect", "#REDIRECT [[Target]]"),
        ]);
        let ex = Expander::new(&src, &src.0.codec, config());
        let e = ex.expand_page(0, "Test_page", "{{#invoke:T|fields}}");
        let want = [
            " frag frag",
            "Talk:Has/A/Subpage# frag frag",
            "//en.wikipedia.org/wiki/Talk:Has/A/Subpage#_frag_frag",
            "/wiki/Talk:Has/A/Subpage",
            "Talk",
            "",
            "index 'text' is read only",
            "1",
            " frag frag",
            "Template:Test Framework",
            "wikitext",
            "Scribunto",
            "json",
            "",
        ];
        assert_eq!(e.text, want.join("|"));
        ex.set_revision(Some(PageRevision {
            page_id: 7,
            rev_id: None,
            timestamp: 0,
            size: None,
        }));
        // The page's own text, as the build hands it over (not in the source).
        ex.set_content(Arc::from("own text"));
        let e = ex.expand_page(0, "Test_page", "{{#invoke:T|ids}}");
        assert_eq!(e.text, "7|11|0|Target|nil|nil|Target|false|false|own text");
    }
}
