//! Frames: one per template call being expanded, holding the call's arguments
//! unexpanded, as `PPTemplateFrame_Hash` does — an argument is expanded (in the caller's
//! frame) only when the template uses it, then remembered, so that templates inside an
//! unused argument are neither expanded nor recorded.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::wikitext::preprocess::Node;

/// An argument as written in the call: its value nodes in the caller's text.
#[derive(Debug)]
pub(super) struct ArgDef<'a> {
    pub value: &'a [Node],
    /// Named arguments are trimmed after expansion, positional ones are not.
    pub named: bool,
}

/// A template being expanded (or the page itself, the root frame).
#[derive(Debug)]
pub(super) struct Frame<'a> {
    /// The frame of the caller, in which arguments are expanded; `None` for the page.
    pub parent: Option<&'a Frame<'a>>,
    /// The caller's text, into which the argument nodes point.
    pub arg_src: &'a str,
    /// Arguments by name (`"1"`, `"2"`, … for positional ones); a later duplicate wins.
    pub args: FxHashMap<String, ArgDef<'a>>,
    /// The template's title after redirects (`None` for the page).
    pub title: Option<(i32, String)>,
    /// Template nesting: 0 for the page.
    pub depth: u32,
    /// Expanded argument values.
    pub expanded: RefCell<FxHashMap<String, Rc<str>>>,
}

impl<'a> Frame<'a> {
    pub fn root() -> Frame<'static> {
        Frame {
            parent: None,
            arg_src: "",
            args: FxHashMap::default(),
            title: None,
            depth: 0,
            expanded: RefCell::new(FxHashMap::default()),
        }
    }

    /// Whether `title` is this frame's template or one of its callers' (a loop).
    pub(crate) fn in_chain(&self, title: &(i32, String)) -> bool {
        let mut f = Some(self);
        while let Some(frame) = f {
            if frame.title.as_ref() == Some(title) {
                return true;
            }
            f = frame.parent;
        }
        false
    }

    /// The titles of this frame and its callers.
    pub fn chain(&self) -> impl Iterator<Item = &(i32, String)> {
        let mut f = Some(self);
        std::iter::from_fn(move || {
            let frame = f?;
            f = frame.parent;
            Some(frame)
        })
        .filter_map(|frame| frame.title.as_ref())
    }
}

/// Arguments given as text (by Lua: `frame:expandTemplate`, `frame:newChild`): each
/// value is one text node of `src`, copied as is when the template uses it.
pub(super) struct TextArgs {
    src: String,
    nodes: Vec<(String, Vec<Node>)>,
}

impl TextArgs {
    pub fn new(args: &[(String, String)]) -> TextArgs {
        let mut src = String::new();
        let mut nodes = Vec::new();
        let mut positional = 0u32;
        for (k, v) in args {
            let start = src.len() as u32;
            src.push_str(v);
            let key = k.trim().to_string();
            let key = if key.is_empty() {
                positional += 1;
                positional.to_string()
            } else {
                key
            };
            nodes.push((key, vec![Node::Text(start..src.len() as u32)]));
        }
        TextArgs { src, nodes }
    }

    pub fn frame<'b>(&'b self, parent: &'b Frame<'b>, title: Option<(i32, String)>) -> Frame<'b> {
        let mut args = FxHashMap::default();
        for (k, n) in &self.nodes {
            args.insert(
                k.clone(),
                ArgDef {
                    value: n,
                    named: false,
                },
            );
        }
        Frame {
            parent: Some(parent),
            arg_src: &self.src,
            args,
            title,
            depth: parent.depth + 1,
            expanded: RefCell::new(FxHashMap::default()),
        }
    }
}
