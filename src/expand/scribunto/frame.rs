//! The Rust half of frames (`frame.lua`): a frame's arguments and title, its parent,
//! child frames, and what a module asks of the expander through a frame —
//! `expandTemplate`, `preprocess`, `callParserFunction`.

use mlua::{Lua, MultiValue, Table, Value};

use super::super::expander::State;
use super::super::frame::{Frame, TextArgs};
use super::host::{Ctx, Op, arg_int, arg_str, err, fail, nil, one, string, value_string};
use crate::title::NS_TEMPLATE;
use crate::wikitext::preprocess::{Node, Part};

/// The frame operations, by the name `frame.lua` calls them with.
pub(super) const OPS: &[(&str, Op)] = &[
    ("arg", arg),
    ("argnames", argnames),
    ("parent", parent),
    ("frametitle", frametitle),
    ("newChild", new_child),
    ("expandTemplate", expand_template),
    ("preprocess", preprocess_text),
    ("callParserFunction", call_parser_function),
];

/// A frame as Lua sees it.
pub(super) enum LFrame<'a> {
    /// A frame of the expander (the `#invoke` and its caller).
    Borrowed(&'a Frame<'a>),
    /// Made by `frame:newChild`: string arguments.
    Owned {
        title: Option<(i32, String)>,
        args: Vec<(String, String)>,
        parent: usize,
    },
}

/// The frame id a frame operation is called with (its first argument).
fn frame_id(a: &[Value]) -> usize {
    arg_int(a, 0).unwrap_or(0) as usize
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

fn arg(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let key = arg_str(a, 1).unwrap_or_default();
    match cx.arg(frame_id(a), &key) {
        Some(v) => string(lua, &v),
        None => nil(),
    }
}

fn argnames(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let names = cx.arg_names(frame_id(a));
    one(Value::Table(lua.create_sequence_from(names)?))
}

fn parent(cx: &Ctx<'_, '_>, _: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let fid = frame_id(a);
    let frames = cx.frames.borrow();
    match frames.get(fid) {
        Some(LFrame::Borrowed(_)) if fid == 0 => one(Value::Number(1.0)),
        Some(LFrame::Owned { parent, .. }) => one(Value::Number(*parent as f64)),
        _ => nil(),
    }
}

fn frametitle(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let t = cx.frame_title(frame_id(a));
    string(lua, &cx.ex.codec().prefixed_text(t.0, &t.1))
}

fn new_child(cx: &Ctx<'_, '_>, _: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let title =
        arg_str(a, 1).and_then(|t| cx.ex.codec().parse(&t, 0).ok().map(|t| (t.ns, t.dbkey)));
    let args = string_pairs(a.get(2))?;
    let mut frames = cx.frames.borrow_mut();
    if frames.len() > 100 {
        return Err(err("newChild: too many frames"));
    }
    frames.push(LFrame::Owned {
        title,
        args,
        parent: frame_id(a),
    });
    one(Value::Number((frames.len() - 1) as f64))
}

fn expand_template(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let title = arg_str(a, 1).unwrap_or_default();
    let args = string_pairs(a.get(2))?;
    let t = match cx.ex.codec().parse(&title, NS_TEMPLATE) {
        Ok(t) if t.interwiki.is_none() && !t.dbkey.is_empty() => t,
        _ => return fail(lua, format!("expandTemplate: invalid title \"{title}\"")),
    };
    match cx.with_frame(frame_id(a), |st, frame| {
        cx.ex.expand_template_with(st, frame, t.ns, &t.dbkey, &args)
    }) {
        Ok(text) => string(lua, &text),
        Err(m) => fail(lua, m),
    }
}

fn preprocess_text(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let text = arg_str(a, 1).unwrap_or_default();
    let out = cx.with_frame(frame_id(a), |st, frame| {
        let nodes = cx.ex.preprocess_generated(st, &text, frame.depth > 0)?;
        Some(cx.ex.expand_string(st, frame, &text, &nodes))
    });
    match out {
        Some(out) => string(lua, &out),
        None => fail(lua, "Generated node count limit exceeded".to_string()),
    }
}

fn call_parser_function(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
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
    match cx.with_frame(frame_id(a), |st, frame| {
        cx.ex.call_function_with(st, frame, &name, &list)
    }) {
        Some(text) => string(lua, &text),
        None => fail(
            lua,
            format!("callParserFunction: function \"{name}\" was not found"),
        ),
    }
}

impl Ctx<'_, '_> {
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
