//! The Rust half of `mw.title` (`title.lua`): titles parsed and made by the wiki's rules,
//! the current page's title, existence and redirects (recorded as MediaWiki records
//! them, and counted as expensive), and a page's content.

use mlua::{Lua, MultiValue, Value};

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

/// `title:getContent()`: the page's wikitext, recorded as a transclusion.
fn content(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let ns = arg_int(a, 0).unwrap_or(0) as i32;
    let dbkey = arg_str(a, 1).unwrap_or_default();
    if ns < 0 {
        return nil();
    }
    cx.st.borrow_mut().record_template(ns, &dbkey);
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
        t.set("hasSubpages", has_subpages(ns))?;
        Ok(Value::Table(t))
    }
}
