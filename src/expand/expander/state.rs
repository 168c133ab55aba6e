//! The state of one page's expansion: MediaWiki's limit counters, the templates, links
//! and modules recorded, the warnings given, and the effects a cached expansion replays.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::cache::Capture;
use crate::expand::{CallCost, CostKind, Segment, Warning};

/// Something an expansion did besides producing text, replayed when a cached expansion
/// is reused.
#[derive(Debug, Clone)]
pub(super) enum Effect {
    Template(i32, String),
    ExistenceLink(i32, String),
    Invoke(String),
    DefaultSort(String),
    Expensive(i32, String),
    /// A call of a template or module ended, having cost this much (inclusive).
    Cost(CostKind, Rc<str>, Counters),
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counters {
    pub(super) nodes: u64,
    pub(super) post_expand: u64,
    pub(super) pre_expand: u64,
    pub(super) arg_size: u64,
    pub(super) work: u64,
    /// Lua VM instructions (see [`super::Limits::lua_instructions`]).
    pub(super) lua: u64,
}

impl Counters {
    pub(super) fn minus(self, o: Counters) -> Counters {
        Counters {
            nodes: self.nodes - o.nodes,
            post_expand: self.post_expand - o.post_expand,
            pre_expand: self.pre_expand - o.pre_expand,
            arg_size: self.arg_size - o.arg_size,
            work: self.work - o.work,
            lua: self.lua - o.lua,
        }
    }
}

/// Warnings kept per page.
const MAX_WARNINGS: usize = 50;

/// Which warnings were already given (one of each kind per page).
#[derive(Debug, Default)]
pub(super) struct Warned {
    pub(super) node_count: bool,
    pub(super) expand_depth: bool,
    pub(super) work: bool,
    pub(super) expensive: bool,
    pub(super) arg_size: bool,
}

/// The state of one page's expansion.
pub(in crate::expand) struct State {
    pub page_ns: i32,
    pub page_dbkey: String,
    pub(super) counters: Counters,
    pub(super) expand_depth: u32,
    /// Nodes made by preprocessing texts built during the expansion
    /// ([`super::Limits::generated_nodes`]).
    pub(super) generated_nodes: u64,
    pub(super) max_template_depth: u32,
    pub(super) expensive: u32,
    pub(super) expensive_seen: FxHashSet<(i32, String)>,
    pub(super) templates: Vec<(i32, String)>,
    pub(super) templates_seen: FxHashSet<(i32, String)>,
    pub(super) existence_links: Vec<(i32, String)>,
    pub(super) existence_seen: FxHashSet<(i32, String)>,
    pub(super) invoked: Vec<String>,
    pub(super) default_sort: Option<String>,
    pub(super) warnings: Vec<Warning>,
    pub(super) warned: Warned,
    pub(super) captures: Vec<Capture>,
    pub(super) exhausted: bool,
    /// Where the page's text and the final output live (addresses), to record the
    /// [`Segment`]s of nodes expanded straight into the output.
    pub(super) page_text: std::ops::Range<usize>,
    pub(super) root_out: usize,
    pub(super) segments: Vec<Segment>,
    /// While a root node expands: the first template it recorded (`Some(None)`: none yet).
    pub(super) root_first: Option<Option<(i32, String)>>,
    /// Scribunto error spans written so far: each gets the next `mw-scribunto-error-N` id.
    pub script_error_spans: u32,
    /// What each template and module called so far cost (see `costs.rs`).
    pub(super) costs: FxHashMap<(CostKind, Rc<str>), CallCost>,
    /// The modules of the `#invoke`s running, innermost last, with when each named its
    /// module.
    pub(super) invokes: Vec<(Rc<str>, std::time::Instant)>,
    /// The extension tags stripped so far, by marker number (`strip.rs`).
    pub(super) strip: Vec<super::strip::Item>,
}

impl State {
    pub(super) fn new(page_ns: i32, page_dbkey: &str) -> State {
        State {
            page_ns,
            page_dbkey: page_dbkey.to_string(),
            counters: Counters::default(),
            expand_depth: 0,
            generated_nodes: 0,
            max_template_depth: 0,
            expensive: 0,
            expensive_seen: FxHashSet::default(),
            templates: Vec::new(),
            templates_seen: FxHashSet::default(),
            existence_links: Vec::new(),
            existence_seen: FxHashSet::default(),
            invoked: Vec::new(),
            default_sort: None,
            warnings: Vec::new(),
            warned: Warned::default(),
            captures: Vec::new(),
            script_error_spans: 0,
            exhausted: false,
            page_text: 0..0,
            root_out: 0,
            segments: Vec::new(),
            root_first: None,
            costs: FxHashMap::default(),
            invokes: Vec::new(),
            strip: Vec::new(),
        }
    }

    fn apply(&mut self, e: &Effect) {
        match e {
            Effect::Template(ns, k) => {
                let t = (*ns, k.clone());
                if let Some(first @ None) = &mut self.root_first {
                    *first = Some(t.clone());
                }
                if self.templates_seen.insert(t.clone()) {
                    self.templates.push(t);
                }
            }
            Effect::ExistenceLink(ns, k) => {
                let t = (*ns, k.clone());
                if self.existence_seen.insert(t.clone()) {
                    self.existence_links.push(t);
                }
            }
            Effect::Invoke(m) => {
                if !self.invoked.contains(m) {
                    self.invoked.push(m.clone());
                }
            }
            Effect::DefaultSort(k) => self.default_sort = Some(k.clone()),
            Effect::Expensive(ns, k) => {
                if self.expensive_seen.insert((*ns, k.clone())) {
                    self.expensive += 1;
                }
            }
            Effect::Cost(kind, title, d) => self.add_cost(*kind, title, d),
        }
    }

    pub(super) fn record(&mut self, e: Effect) {
        self.apply(&e);
        if let Some(c) = self.captures.last_mut() {
            c.effects.push(e);
        }
    }

    /// The expansion being computed depends on the page's title.
    pub(crate) fn page_dependent(&mut self) {
        if let Some(c) = self.captures.last_mut() {
            c.page_dependent = true;
        }
    }

    /// The expansion being computed hit a limit or a loop, or depends on state of the
    /// page: it must not be reused elsewhere.
    pub(crate) fn uncacheable(&mut self) {
        if let Some(c) = self.captures.last_mut() {
            c.uncacheable = true;
        }
    }

    /// Records a warning: size limits once per page (as MediaWiki's limit report), the
    /// others once per distinct warning, at most [`MAX_WARNINGS`] in all.
    pub(super) fn warn(&mut self, w: Warning) {
        self.uncacheable();
        let same_kind = |a: &Warning, b: &Warning| {
            std::mem::discriminant(a) == std::mem::discriminant(b)
                && matches!(
                    a,
                    Warning::PostExpandSize { .. } | Warning::PreExpandSize { .. }
                )
        };
        if self.warnings.len() >= MAX_WARNINGS
            || self.warnings.iter().any(|x| *x == w || same_kind(x, &w))
        {
            return;
        }
        self.warnings.push(w);
    }

    pub(crate) fn record_template(&mut self, ns: i32, dbkey: &str) {
        self.record(Effect::Template(ns, dbkey.to_string()));
    }

    pub(crate) fn record_existence_link(&mut self, ns: i32, dbkey: &str) {
        self.record(Effect::ExistenceLink(ns, dbkey.to_string()));
    }

    pub(crate) fn record_invoke(&mut self, module: &str) {
        self.invokes
            .push((module.into(), std::time::Instant::now()));
        self.record(Effect::Invoke(module.to_string()));
    }

    pub(crate) fn default_sort_key(&self) -> Option<&str> {
        self.default_sort.as_deref()
    }

    pub(crate) fn set_default_sort(&mut self, key: &str) {
        self.record(Effect::DefaultSort(key.to_string()));
    }

    /// Warns that `#invoke` was not run.
    pub(crate) fn lua_unavailable(&mut self, module: &str) {
        self.warn(Warning::LuaUnavailable {
            module: module.to_string(),
        });
    }

    /// Warns that the page's Lua instruction budget ran out.
    pub(crate) fn lua_timeout(&mut self, module: &str) {
        self.warn(Warning::LuaTimeout {
            module: module.to_string(),
        });
    }

    /// Warns that the page's Lua memory limit was reached.
    pub fn lua_memory(&mut self, module: &str) {
        self.warn(Warning::LuaMemory {
            module: module.to_string(),
        });
    }

    /// Records a module's error (the message cut to a readable length).
    pub(crate) fn script_error(&mut self, module: &str, message: &str) {
        let message: String = message.chars().take(300).collect();
        self.warn(Warning::ScriptError {
            module: module.to_string(),
            message,
        });
    }

    /// Lua instructions the page has run.
    pub(crate) fn lua_used(&self) -> u64 {
        self.counters.lua
    }

    pub(crate) fn set_lua_used(&mut self, used: u64) {
        self.counters.lua = used;
    }
}
