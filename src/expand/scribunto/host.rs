//! The expander's side of an `#invoke`: one dispatcher function (`iface.host(op, …)`)
//! through which the `mw` library reaches frames, templates, titles and modules. It is
//! created in an mlua scope for each invocation, borrowing that invocation's frames and
//! the page's [`State`], and the previous dispatcher is put back afterwards, so an
//! `#invoke` reached from inside Lua (a template expanded by `frame:expandTemplate`)
//! nests correctly.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Function, Lua, MultiValue, Table, Value};
use rustc_hash::FxHashMap;

use super::super::expander::{Expander, FnCall, State};
use super::super::frame::{ArgDef, Frame, TextArgs};
use super::super::php::{php_trim, wf_urlencode};
use super::{Failure, NS_MODULE, PageLua, lua_message};
use crate::title::NS_TEMPLATE;
use crate::wikitext::preprocess::{self, Node, Part};

/// Namespaces where `/` makes subpages (as the page-name magic words use them).
const NS_WITH_SUBPAGES: &[i32] = &[1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 828, 829];

pub(super) fn has_subpages(ns: i32) -> bool {
    NS_WITH_SUBPAGES.contains(&ns)
}

/// MediaWiki's canonical (English) namespace names.
pub(super) fn canonical_name(ns: i32) -> Option<&'static str> {
    Some(match ns {
        -2 => "Media",
        -1 => "Special",
        0 => "",
        1 => "Talk",
        2 => "User",
        3 => "User talk",
        4 => "Project",
        5 => "Project talk",
        6 => "File",
        7 => "File talk",
        8 => "MediaWiki",
        9 => "MediaWiki talk",
        10 => "Template",
        11 => "Template talk",
        12 => "Help",
        13 => "Help talk",
        14 => "Category",
        15 => "Category talk",
        828 => "Module",
        829 => "Module talk",
        _ => return None,
    })
}

/// The page's Lua state, created at its first `#invoke` and dropped with the page.
#[derive(Default)]
pub(in super::super) struct PageLuaCell {
    state: RefCell<Option<Rc<PageLua>>>,
    failed: std::cell::Cell<bool>,
}

impl PageLuaCell {
    pub(in super::super) fn reset(&self) {
        *self.state.borrow_mut() = None;
        self.failed.set(false);
    }

    pub(in super::super) fn get(&self, ex: &Expander<'_>) -> Result<Rc<PageLua>, ()> {
        if let Some(p) = self.state.borrow().as_ref() {
            return Ok(p.clone());
        }
        if self.failed.get() {
            return Err(());
        }
        match PageLua::new(ex.config(), ex.codec()) {
            Ok(p) => {
                let p = Rc::new(p);
                *self.state.borrow_mut() = Some(p.clone());
                Ok(p)
            }
            Err(_) => {
                self.failed.set(true);
                Err(())
            }
        }
    }
}

/// A frame as Lua sees it.
enum LFrame<'a> {
    /// A frame of the expander (the `#invoke` and its caller).
    Borrowed(&'a Frame<'a>),
    /// Made by `frame:newChild`: string arguments.
    Owned {
        title: Option<(i32, String)>,
        args: Vec<(String, String)>,
        parent: usize,
    },
}

struct Ctx<'a, 's> {
    ex: &'a Expander<'s>,
    st: RefCell<&'a mut State>,
    frames: RefCell<Vec<LFrame<'a>>>,
    module: (i32, String),
    page: &'a PageLua,
    /// The invocation's own frame (Lua frame 0).
    invoke: &'a Frame<'a>,
}

fn err(msg: impl Into<String>) -> mlua::Error {
    mlua::Error::RuntimeError(msg.into())
}

fn arg_str(args: &[Value], i: usize) -> Option<String> {
    match args.get(i)? {
        Value::String(s) => Some(s.to_string_lossy().to_string()),
        Value::Integer(n) => Some(n.to_string()),
        Value::Number(n) => Some(super::ustring::lua_number(*n)),
        _ => None,
    }
}

fn arg_int(args: &[Value], i: usize) -> Option<i64> {
    match args.get(i)? {
        Value::Integer(n) => Some(*n),
        Value::Number(n) if n.is_finite() => Some(*n as i64),
        Value::String(s) => s.to_str().ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// `{ {key, value}, … }` from Lua into pairs.
fn string_pairs(v: Option<&Value>) -> mlua::Result<Vec<(String, String)>> {
    let Some(Value::Table(t)) = v else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for pair in t.sequence_values::<Table>() {
        let pair = pair?;
        let k: String = pair.get(1)?;
        let v: String = pair.get(2)?;
        out.push((k, v));
    }
    Ok(out)
}

fn multi(values: impl IntoIterator<Item = Value>) -> MultiValue {
    MultiValue::from_iter(values)
}

/// Runs `function` of `chunk` for the `#invoke` call `fc`.
pub(super) fn run(
    fc: &FnCall<'_, '_>,
    st: &mut State,
    page: &PageLua,
    chunk: Function,
    function: &str,
    module: (i32, String),
) -> Result<String, Failure> {
    let ex = fc.ex;
    let mut args = FxHashMap::default();
    let mut positional = 0u32;
    for p in fc.parts.iter().skip(1) {
        match &p.name {
            None => {
                positional += 1;
                args.insert(
                    positional.to_string(),
                    ArgDef {
                        value: &p.value,
                        named: false,
                    },
                );
            }
            Some(name) => {
                let k = ex.expand_string(st, fc.frame, fc.src, name);
                args.insert(
                    php_trim(&k).to_string(),
                    ArgDef {
                        value: &p.value,
                        named: true,
                    },
                );
            }
        }
    }
    let frame = Frame {
        parent: Some(fc.frame),
        arg_src: fc.src,
        args,
        title: Some(module.clone()),
        depth: fc.frame.depth + 1,
        expanded: RefCell::new(FxHashMap::default()),
    };
    let ctx = Ctx {
        ex,
        st: RefCell::new(st),
        frames: RefCell::new(vec![LFrame::Borrowed(&frame), LFrame::Borrowed(fc.frame)]),
        module,
        page,
        invoke: &frame,
    };
    let lua_err = |e: mlua::Error| Failure::Lua(lua_message(&e));
    let previous: Value = page.iface.get("host").map_err(lua_err)?;
    let result = page.lua.scope(|scope| {
        let host = scope.create_function(|lua, args: MultiValue| ctx.call(lua, args))?;
        page.iface.set("host", host)?;
        let invoke: Function = page.iface.get("invoke")?;
        invoke.call::<(bool, Value, Option<String>)>((chunk, function))
    });
    let _ = page.iface.set("host", previous);
    match result {
        Ok((true, v, _)) => Ok(value_string(&v)),
        Ok((false, v, Some(kind))) => Err(Failure::Script(kind, value_string(&v))),
        Ok((false, v, _)) => Err(Failure::Lua(value_string(&v))),
        Err(e) => Err(lua_err(e)),
    }
}

fn value_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string_lossy().to_string(),
        Value::Number(n) => super::ustring::lua_number(*n),
        Value::Integer(n) => n.to_string(),
        Value::Error(e) => lua_message(e),
        Value::Nil => String::new(),
        v => v.to_string().unwrap_or_default(),
    }
}

impl<'a, 's> Ctx<'a, 's> {
    fn call(&self, lua: &Lua, args: MultiValue) -> mlua::Result<MultiValue> {
        let args: Vec<Value> = args.into_iter().collect();
        let op = arg_str(&args, 0).unwrap_or_default();
        // Give the expander the instructions spent so far (templates expanded from
        // here may contain `#invoke`s or be replayed from the cache), then take back
        // what they spent.
        let budget = &self.page.budget;
        {
            let mut st = self
                .st
                .try_borrow_mut()
                .map_err(|_| err("re-entrant call"))?;
            st.set_lua_used(budget.used.get());
        }
        let r = self.dispatch(lua, &op, &args[1..]);
        if let Ok(st) = self.st.try_borrow() {
            budget.used.set(budget.used.get().max(st.lua_used()));
        }
        r
    }

    fn dispatch(&self, lua: &Lua, op: &str, a: &[Value]) -> mlua::Result<MultiValue> {
        let nil = || Ok(MultiValue::new());
        let one = |v: Value| Ok(multi([v]));
        let string = |s: &str| -> mlua::Result<MultiValue> {
            Ok(multi([Value::String(lua.create_string(s)?)]))
        };
        let fail = |m: String| -> mlua::Result<MultiValue> {
            Ok(multi([Value::Nil, Value::String(lua.create_string(&m)?)]))
        };
        match op {
            "arg" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let key = arg_str(a, 1).unwrap_or_default();
                match self.arg(fid, &key) {
                    Some(v) => string(&v),
                    None => nil(),
                }
            }
            "argnames" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let names = self.arg_names(fid);
                one(Value::Table(lua.create_sequence_from(names)?))
            }
            "parent" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let frames = self.frames.borrow();
                match frames.get(fid) {
                    Some(LFrame::Borrowed(_)) if fid == 0 => one(Value::Number(1.0)),
                    Some(LFrame::Owned { parent, .. }) => one(Value::Number(*parent as f64)),
                    _ => nil(),
                }
            }
            "frametitle" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let t = self.frame_title(fid);
                string(&self.ex.codec().prefixed_text(t.0, &t.1))
            }
            "newChild" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let title = arg_str(a, 1)
                    .and_then(|t| self.ex.codec().parse(&t, 0).ok().map(|t| (t.ns, t.dbkey)));
                let args = string_pairs(a.get(2))?;
                let mut frames = self.frames.borrow_mut();
                if frames.len() > 100 {
                    return Err(err("newChild: too many frames"));
                }
                frames.push(LFrame::Owned {
                    title,
                    args,
                    parent: fid,
                });
                one(Value::Number((frames.len() - 1) as f64))
            }
            "expandTemplate" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let title = arg_str(a, 1).unwrap_or_default();
                let args = string_pairs(a.get(2))?;
                let t = match self.ex.codec().parse(&title, NS_TEMPLATE) {
                    Ok(t) if t.interwiki.is_none() && !t.dbkey.is_empty() => t,
                    _ => return fail(format!("expandTemplate: invalid title \"{title}\"")),
                };
                match self.with_frame(fid, |st, frame| {
                    self.ex
                        .expand_template_with(st, frame, t.ns, &t.dbkey, &args)
                }) {
                    Ok(text) => string(&text),
                    Err(m) => fail(m),
                }
            }
            "preprocess" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let text = arg_str(a, 1).unwrap_or_default();
                let out = self.with_frame(fid, |st, frame| {
                    let nodes = if frame.depth > 0 {
                        preprocess::preprocess_for_inclusion(&text)
                    } else {
                        preprocess::preprocess(&text)
                    };
                    self.ex.expand_string(st, frame, &text, &nodes)
                });
                string(&out)
            }
            "callParserFunction" => {
                let fid = arg_int(a, 0).unwrap_or(0) as usize;
                let name = arg_str(a, 1).unwrap_or_default();
                let mut list: Vec<String> = match a.get(2) {
                    Some(Value::Table(t)) => t
                        .sequence_values::<Value>()
                        .map(|v| v.map(|v| value_string(&v)))
                        .collect::<mlua::Result<_>>()?,
                    _ => Vec::new(),
                };
                let (name, first) = match name.split_once(':') {
                    Some((n, f)) => (n.to_string(), Some(f.to_string())),
                    None => (name, None),
                };
                if let Some(f) = first {
                    list.insert(0, f);
                }
                match self.with_frame(fid, |st, frame| {
                    self.ex.call_function_with(st, frame, &name, &list)
                }) {
                    Some(text) => string(&text),
                    None => fail(format!(
                        "callParserFunction: function \"{name}\" was not found"
                    )),
                }
            }
            "title" => {
                let text = arg_str(a, 0).unwrap_or_default();
                let ns = arg_int(a, 1).unwrap_or(0) as i32;
                match self.ex.codec().parse(&text, ns) {
                    Ok(t) if !t.dbkey.is_empty() || t.interwiki.is_some() => one(self.title(
                        lua,
                        t.ns,
                        &t.dbkey,
                        t.fragment.as_deref().unwrap_or(""),
                        t.interwiki.as_deref().unwrap_or(""),
                    )?),
                    _ => nil(),
                }
            }
            "maketitle" => {
                let ns = arg_int(a, 0).unwrap_or(0) as i32;
                let text = arg_str(a, 1).unwrap_or_default();
                let fragment = arg_str(a, 2).unwrap_or_default();
                let Some(name) = self.ex.codec().namespaces().name_of(ns) else {
                    return nil();
                };
                let full = if ns == 0 {
                    format!(":{text}")
                } else {
                    format!("{name}:{text}")
                };
                match self.ex.codec().parse(&full, 0) {
                    Ok(t) if t.ns == ns && !t.dbkey.is_empty() && t.interwiki.is_none() => {
                        let f = if fragment.is_empty() {
                            t.fragment.unwrap_or_default()
                        } else {
                            fragment
                        };
                        one(self.title(lua, t.ns, &t.dbkey, &f, "")?)
                    }
                    _ => nil(),
                }
            }
            "currentTitle" => {
                let (ns, dbkey) = {
                    let mut st = self.st.borrow_mut();
                    st.page_dependent();
                    (st.page_ns, st.page_dbkey.clone())
                };
                one(self.title(lua, ns, &dbkey, "", "")?)
            }
            "exists" | "redirect" => {
                let ns = arg_int(a, 0).unwrap_or(0) as i32;
                let dbkey = arg_str(a, 1).unwrap_or_default();
                if arg_str(a, 2).is_some_and(|i| !i.is_empty()) || ns < -1 {
                    return one(Value::Boolean(false));
                }
                if ns == -1 {
                    return one(Value::Boolean(op == "exists"));
                }
                {
                    let mut st = self.st.borrow_mut();
                    let current = st.page_ns == ns && st.page_dbkey == dbkey;
                    if !current && !self.ex.expensive_call(&mut st, ns, &dbkey) {
                        return Err(err("too many expensive function calls"));
                    }
                    st.record_existence_link(ns, &dbkey);
                }
                let source = self.ex.source();
                if op == "exists" {
                    return one(Value::Boolean(source.exists(ns, &dbkey)));
                }
                match source.redirect(ns, &dbkey) {
                    Some((tns, tkey)) => one(self.title(lua, tns, &tkey, "", "")?),
                    None => nil(),
                }
            }
            "content" => {
                let ns = arg_int(a, 0).unwrap_or(0) as i32;
                let dbkey = arg_str(a, 1).unwrap_or_default();
                if ns < 0 {
                    return nil();
                }
                self.st.borrow_mut().record_template(ns, &dbkey);
                match self.ex.source().wikitext(ns, &dbkey) {
                    Some(t) => string(&t),
                    None => nil(),
                }
            }
            "loadModule" => {
                let name = arg_str(a, 0).unwrap_or_default();
                let t = match self.ex.codec().parse(&name, 0) {
                    Ok(t) if t.ns == NS_MODULE && t.interwiki.is_none() && !t.dbkey.is_empty() => t,
                    _ => return nil(),
                };
                self.st.borrow_mut().record_template(t.ns, &t.dbkey);
                let key = self.ex.codec().prefixed_text(t.ns, &t.dbkey);
                match self.page.module(self.ex, t.ns, &t.dbkey) {
                    Some(Ok(f)) => Ok(multi([
                        Value::Function(f),
                        Value::String(lua.create_string(&key)?),
                    ])),
                    Some(Err(m)) => Err(err(m)),
                    None => nil(),
                }
            }
            "url" => {
                let kind = arg_str(a, 0).unwrap_or_default();
                let text = arg_str(a, 1).unwrap_or_default();
                let query = arg_str(a, 2).unwrap_or_default();
                string(&self.url(&kind, &text, &query))
            }
            "expensive" => {
                let mut st = self.st.borrow_mut();
                let ok = self.ex.expensive_call(&mut st, i32::MIN, "");
                if ok {
                    one(Value::Boolean(true))
                } else {
                    fail("too many expensive function calls".to_string())
                }
            }
            _ => Err(err(format!("unknown host operation {op}"))),
        }
    }

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

    fn url(&self, kind: &str, text: &str, query: &str) -> String {
        let config = self.ex.config();
        let key = text.replace(' ', "_");
        let local = if query.is_empty() {
            config.article_path.replace("$1", &wf_urlencode(&key))
        } else {
            format!(
                "{}/index.php?title={}&{query}",
                config.script_path,
                wf_urlencode(&key)
            )
        };
        match kind {
            "local" => local,
            "canonical" if config.server.starts_with("//") => {
                format!("https:{}{local}", config.server)
            }
            _ => format!("{}{local}", config.server),
        }
    }

    fn frame_title(&self, fid: usize) -> (i32, String) {
        let frames = self.frames.borrow();
        match frames.get(fid) {
            Some(LFrame::Borrowed(f)) => match &f.title {
                Some(t) => t.clone(),
                None => {
                    let mut st = self.st.borrow_mut();
                    st.page_dependent();
                    (st.page_ns, st.page_dbkey.clone())
                }
            },
            Some(LFrame::Owned { title: Some(t), .. }) => t.clone(),
            Some(LFrame::Owned { parent, .. }) => {
                let p = *parent;
                drop(frames);
                if p == fid {
                    self.module.clone()
                } else {
                    self.frame_title(p)
                }
            }
            None => self.module.clone(),
        }
    }

    fn arg(&self, fid: usize, key: &str) -> Option<String> {
        let frames = self.frames.borrow();
        match frames.get(fid)? {
            LFrame::Borrowed(f) => {
                let f: &Frame<'_> = f;
                let mut st = self.st.borrow_mut();
                self.ex.frame_arg(&mut st, f, key).map(|v| v.to_string())
            }
            LFrame::Owned { args, .. } => {
                let mut positional = 0;
                let mut found = None;
                for (k, v) in args {
                    let name = if k.trim().is_empty() {
                        positional += 1;
                        positional.to_string()
                    } else {
                        k.trim().to_string()
                    };
                    if name == key {
                        found = Some(v.clone());
                    }
                }
                found
            }
        }
    }

    fn arg_names(&self, fid: usize) -> Vec<String> {
        let frames = self.frames.borrow();
        let mut names: Vec<String> = match frames.get(fid) {
            Some(LFrame::Borrowed(f)) => f.args.keys().cloned().collect(),
            Some(LFrame::Owned { args, .. }) => {
                args.iter().map(|(k, _)| k.trim().to_string()).collect()
            }
            None => Vec::new(),
        };
        // Numbers first in order, then names: a stable order whatever the hashing.
        names.sort_by(|a, b| match (a.parse::<i64>(), b.parse::<i64>()) {
            (Ok(x), Ok(y)) => x.cmp(&y),
            (Ok(_), Err(_)) => std::cmp::Ordering::Less,
            (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
            _ => a.cmp(b),
        });
        names.dedup();
        names
    }

    /// Runs `f` with the expander frame that stands for Lua frame `fid` (a frame made
    /// by `newChild` becomes a frame of string arguments under the invocation's).
    fn with_frame<R>(&self, fid: usize, f: impl FnOnce(&mut State, &Frame<'_>) -> R) -> R {
        let frames = self.frames.borrow();
        let invoke = self.invoke;
        match frames.get(fid) {
            Some(LFrame::Borrowed(fr)) => {
                let fr: &Frame<'_> = fr;
                let mut st = self.st.borrow_mut();
                f(&mut st, fr)
            }
            Some(LFrame::Owned { title, args, .. }) => {
                let sa = TextArgs::new(args);
                let title = title.clone();
                let mut st = self.st.borrow_mut();
                let child = sa.frame(invoke, title.or_else(|| Some(self.module.clone())));
                f(&mut st, &child)
            }
            None => {
                let mut st = self.st.borrow_mut();
                f(&mut st, invoke)
            }
        }
    }
}

/// Parts of a parser-function call given as strings (`frame:callParserFunction`): a
/// text `name=value` becomes a named part, as the preprocessor would split it.
pub(in super::super) struct StringParts {
    pub src: String,
    pub parts: Vec<Part>,
}

impl StringParts {
    pub(in super::super) fn new(args: &[String]) -> StringParts {
        let mut src = String::new();
        let mut parts = Vec::new();
        let mut index = 0;
        for a in args {
            let start = src.len() as u32;
            src.push_str(a);
            let end = src.len() as u32;
            let part = match a.find('=') {
                Some(eq) => Part {
                    name: Some(vec![Node::Text(start..start + eq as u32)]),
                    index: 0,
                    value: vec![Node::Text(start + eq as u32 + 1..end)],
                    span: start..end,
                },
                None => {
                    index += 1;
                    Part {
                        name: None,
                        index,
                        value: vec![Node::Text(start..end)],
                        span: start..end,
                    }
                }
            };
            parts.push(part);
        }
        StringParts { src, parts }
    }
}
