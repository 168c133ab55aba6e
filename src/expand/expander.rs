//! The expansion walk: preprocessor nodes → text, in a frame (`PPFrame_Hash::expand`),
//! with template calls resolved as `Parser::braceSubstitution` resolves them and
//! arguments as `Parser::argSubstitution` does.

mod cache;
mod costs;
mod recording;
mod state;
mod strip;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use cache::{CacheKey, Cached, Fetched};
pub(super) use recording::Recording;
use state::Effect;
pub(super) use state::State;
pub(super) use strip::{kill_markers, skip_markers};

use super::frame::{ArgDef, Frame, TextArgs};
use super::php::{php_trim, starts_with_ci};
use super::{
    CostKind, ExpandConfig, Expansion, ExpansionStats, Segment, TemplateSource, Warning,
    core_functions, parser_functions, variables,
};
use crate::title::{NS_TEMPLATE, TitleCodec};
use crate::wikitext::preprocess::{self, Call, Ext, Node, Part};

/// Expands pages of one wiki. Holds caches of preprocessed templates and of template
/// expansions that do not depend on the page, so one expander should serve many pages;
/// it is not `Sync`: parallel builds use one per thread. Results do not depend on which
/// pages were expanded before (cached expansions are reused only where recomputing them
/// would give the same text, records and limit counts).
pub struct Expander<'s> {
    source: &'s dyn TemplateSource,
    codec: &'s TitleCodec,
    config: ExpandConfig,
    fetched: RefCell<FxHashMap<(i32, String), Rc<Fetched>>>,
    cache: RefCell<FxHashMap<CacheKey, Rc<Cached>>>,
    page_cache: RefCell<FxHashMap<CacheKey, Rc<Cached>>>,
    cache_bytes: Cell<usize>,
    fetched_bytes: Cell<usize>,
    /// The Lua state of the page being expanded.
    lua: super::scribunto::PageLuaCell,
    /// Whether what is computed for one page may serve later ones: the Lua state (its
    /// library and compiled modules) and page-independent template expansions. Off
    /// with [`super::NO_CACHE_ENV`], to check that the caches change nothing.
    reuse: bool,
    /// Set while a page is expanded again as if it were the first ([`Self::isolated`]).
    isolated: Cell<bool>,
    /// The page expanded since the last [`expand_page`](Self::expand_page) came near a
    /// Lua limit (or reached one).
    lua_edge: Cell<bool>,
    /// The revision of the page being expanded, when the caller knows it.
    revision: Cell<Option<super::PageRevision>>,
    /// That revision's wikitext, when the caller holds it: `getContent()` of the current
    /// page (CS1's configuration reads it on every page) then costs no read of the dump.
    content: RefCell<Option<std::sync::Arc<str>>>,
}

/// A parser function call: its name was matched, its first argument (after the colon)
/// is expanded, the other parts are expanded on demand.
pub(super) struct FnCall<'a, 's> {
    pub ex: &'a Expander<'s>,
    pub frame: &'a Frame<'a>,
    pub src: &'a str,
    pub parts: &'a [Part],
    pub first: String,
}

impl<'a, 's> FnCall<'a, 's> {
    /// Number of arguments, the first one included.
    pub fn len(&self) -> usize {
        1 + self.parts.len()
    }

    /// Argument `i` (0 = the first) expanded whole (`name=value` stays one text) and
    /// trimmed, as MediaWiki passes arguments to functions that take strings.
    pub fn arg(&self, st: &mut State, i: usize) -> String {
        if i == 0 {
            return self.first.clone();
        }
        match self.parts.get(i - 1) {
            Some(p) => php_trim(&self.ex.expand_part(st, self.frame, self.src, p)).to_string(),
            None => String::new(),
        }
    }

    /// Like [`Self::arg`], `None` when the argument is absent.
    pub(crate) fn arg_opt(&self, st: &mut State, i: usize) -> Option<String> {
        (i < self.len()).then(|| self.arg(st, i))
    }

    /// Part `i` (1-based like [`Self::arg`]) as (name nodes, value nodes).
    pub fn part(&self, i: usize) -> Option<&'a Part> {
        i.checked_sub(1).and_then(|k| self.parts.get(k))
    }

    pub fn expand(&self, st: &mut State, nodes: &[Node]) -> String {
        self.ex.expand_string(st, self.frame, self.src, nodes)
    }

    pub fn codec(&self) -> &'s TitleCodec {
        self.ex.codec
    }

    /// Spends work units (see [`super::Limits::work`]); `false` once the budget is gone.
    pub(crate) fn spend(&self, st: &mut State, units: u64) -> bool {
        self.ex.tick(st, units)
    }

    pub fn config(&self) -> &'a ExpandConfig {
        &self.ex.config
    }

    pub fn source(&self) -> &'s dyn TemplateSource {
        self.ex.source
    }

    /// Counts an expensive call on `title` (see [`Expander::expensive_call`]).
    pub(crate) fn expensive(&self, st: &mut State, ns: i32, dbkey: &str) -> bool {
        self.ex.expensive_call(st, ns, dbkey)
    }
}

/// How near a Lua limit (a fraction of it) a page must come, with a worker's kept state
/// and caches, to be expanded again from a fresh state ([`Expander::history_may_matter`]):
/// far above the largest difference history was measured to make in a page's count
/// or heap (docs/expansion.md, "The budgets' edge").
const EDGE_MARGIN: f64 = 0.10;

/// Extension tags whose content is wikitext that their hook parses in the calling frame
/// (`Parser::recursiveTagParse`): templates and arguments inside are expanded.
const WIKITEXT_TAGS: &[&str] = &["ref", "references", "poem", "indicator", "gallery"];

fn span<'t>(src: &'t str, r: &std::ops::Range<u32>) -> &'t str {
    src.get(r.start as usize..r.end as usize).unwrap_or("")
}

impl<'s> Expander<'s> {
    pub fn new(
        source: &'s dyn TemplateSource,
        codec: &'s TitleCodec,
        config: ExpandConfig,
    ) -> Expander<'s> {
        Expander {
            source,
            codec,
            config,
            fetched: RefCell::new(FxHashMap::default()),
            cache: RefCell::new(FxHashMap::default()),
            page_cache: RefCell::new(FxHashMap::default()),
            revision: Cell::new(None),
            content: RefCell::new(None),
            cache_bytes: Cell::new(0),
            fetched_bytes: Cell::new(0),
            lua: Default::default(),
            reuse: std::env::var_os(super::NO_CACHE_ENV).is_none(),
            isolated: Cell::new(false),
            lua_edge: Cell::new(false),
        }
    }

    /// Whether what one page computes may serve later ones (see `reuse`).
    fn keeps(&self) -> bool {
        self.reuse && !self.isolated.get()
    }

    /// Whether the page expanded last, with what this expander kept from earlier pages,
    /// came within [`EDGE_MARGIN`] of a Lua limit or reached one: then its outcome could
    /// depend on those pages (docs/expansion.md, "The budgets' edge"), and the caller
    /// expands it again [`isolated`](Self::isolated).
    pub(crate) fn history_may_matter(&self) -> bool {
        self.keeps() && self.lua_edge.get()
    }

    /// Runs `f`, the expansion of one whole page (its text and the pieces expanded in
    /// it), as if this expander had served no page before: a fresh Lua state, no
    /// expansion cached by another page used or kept. The state kept for later pages is
    /// set aside meanwhile, so they keep it.
    pub(crate) fn isolated<R>(&self, f: impl FnOnce() -> R) -> R {
        let kept = self.lua.set_aside();
        self.isolated.set(true);
        let r = f();
        self.isolated.set(false);
        // The page's fresh state goes; the kept one comes back.
        drop(self.lua.set_aside());
        self.lua.put_back(kept);
        r
    }

    /// Notes whether the expansion `st` of the page came near a Lua limit: its
    /// instructions, its heap, or a limit's warning.
    fn note_lua_edge(&self, st: &State) {
        let l = &self.config.limits;
        let near = st.lua_used() as f64 >= (1.0 - EDGE_MARGIN) * l.lua_instructions as f64
            || st
                .warnings
                .iter()
                .any(|w| matches!(w, Warning::LuaTimeout { .. } | Warning::LuaMemory { .. }))
            || self.lua.near_heap_limit(l, EDGE_MARGIN);
        if near {
            self.lua_edge.set(true);
        }
    }

    pub fn config(&self) -> &ExpandConfig {
        &self.config
    }

    pub(super) fn codec(&self) -> &'s TitleCodec {
        self.codec
    }

    /// Where the expander takes its templates and modules from.
    pub fn source(&self) -> &'s dyn TemplateSource {
        self.source
    }

    /// Whether the dump has page `ns:dbkey` (the template or module a call needs).
    pub(crate) fn has_page(&self, ns: i32, dbkey: &str) -> bool {
        self.source.exists(ns, dbkey)
    }

    /// The page's Lua state, created on first use.
    pub(super) fn page_lua(&self) -> Result<Rc<super::scribunto::PageLua>, ()> {
        self.lua.get(self)
    }

    /// Counts an expensive call on `title` (each title once per page, as MediaWiki's
    /// link cache makes repeats free); `false` once the limit is reached.
    pub(super) fn expensive_call(&self, st: &mut State, ns: i32, dbkey: &str) -> bool {
        if st.expensive_seen.contains(&(ns, dbkey.to_string())) {
            return true;
        }
        if st.expensive >= self.config.limits.expensive_functions {
            if !st.warned.expensive {
                st.warned.expensive = true;
                st.warn(Warning::ExpensiveFunctions {
                    limit: self.config.limits.expensive_functions,
                });
            } else {
                st.uncacheable();
            }
            return false;
        }
        st.record(Effect::Expensive(ns, dbkey.to_string()));
        true
    }

    /// The value of argument `name` of `frame` (expanded once, in the caller's frame).
    pub(super) fn frame_arg(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        name: &str,
    ) -> Option<Rc<str>> {
        self.get_arg(st, frame, name)
    }

    /// `frame:expandTemplate{title, args}`: the template (`ns`, `dbkey`) expanded with
    /// argument values taken as they are, in a frame below `parent`. Errors are
    /// Scribunto's messages.
    pub(super) fn expand_template_with(
        &self,
        st: &mut State,
        parent: &Frame<'_>,
        ns: i32,
        dbkey: &str,
        args: &[(String, String)],
    ) -> Result<String, String> {
        let title_text = self.codec.prefixed_text(ns, dbkey);
        let limit = self.config.limits.template_depth;
        if parent.depth >= limit {
            st.warn(Warning::TemplateDepth {
                title: title_text,
                limit,
            });
            return Err("expandTemplate: template depth limit exceeded".to_string());
        }
        if ns < 0 {
            return Err(format!(
                "expandTemplate: template \"{title_text}\" does not exist"
            ));
        }
        let fetched = self.fetch((ns, dbkey.to_string()));
        for (n, k) in &fetched.deps {
            st.record_template(*n, k);
        }
        let Some(body) = fetched.body.clone() else {
            return Err(format!(
                "expandTemplate: template \"{title_text}\" does not exist"
            ));
        };
        let start = st.cost_start();
        let r = self.expand_fetched_with(st, parent, &fetched, &body, &title_text, args);
        st.end_call(CostKind::Template, fetched.cost_title.clone(), start);
        r
    }

    /// [`expand_template_with`](Self::expand_template_with) once the template's text is
    /// found.
    fn expand_fetched_with(
        &self,
        st: &mut State,
        parent: &Frame<'_>,
        fetched: &Fetched,
        body: &cache::Parsed,
        title_text: &str,
        args: &[(String, String)],
    ) -> Result<String, String> {
        let len = body.text.len() as u64;
        if !self.tick(st, len / 16) {
            st.uncacheable();
            return Ok(String::new());
        }
        let pre_limit = self.config.limits.pre_expand_size;
        if st.counters.pre_expand + len > pre_limit {
            st.warn(Warning::PreExpandSize {
                title: title_text.to_string(),
                limit: pre_limit,
            });
            return Ok(format!("[[:{title_text}]]"));
        }
        st.counters.pre_expand += len;
        if parent.in_chain(&fetched.last) {
            st.warn(Warning::TemplateLoop {
                title: title_text.to_string(),
            });
            return Err(format!(
                "expandTemplate: template loop detected: {title_text}"
            ));
        }
        let text_args = TextArgs::new(args);
        let child = text_args.frame(parent, Some(fetched.last.clone()));
        st.max_template_depth = st.max_template_depth.max(child.depth);
        if let Some(c) = st.captures.last_mut() {
            c.max_template_depth = c.max_template_depth.max(child.depth);
        }
        Ok(self.expand_string(st, &child, &body.text, &body.nodes))
    }

    /// `frame:callParserFunction`: parser function or core function `name` (a `#` is
    /// tried in front when the bare name is none) with arguments given as text;
    /// `None` when no function has that name.
    pub(super) fn call_function_with(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        name: &str,
        args: &[String],
    ) -> Option<String> {
        let sp = super::scribunto::StringParts::new(args.get(1..).unwrap_or(&[]));
        let fc = FnCall {
            ex: self,
            frame,
            src: &sp.src,
            parts: &sp.parts,
            first: php_trim(args.first().map(String::as_str).unwrap_or("")).to_string(),
        };
        let name = name.trim();
        let lower = name.to_lowercase();
        let attempt = |st: &mut State, n: &str| {
            parser_functions::call(&fc, st, n).or_else(|| core_functions::call(&fc, st, n))
        };
        let start = st.function_start();
        let r = attempt(st, name)
            .or_else(|| attempt(st, &lower))
            .or_else(|| {
                (!name.starts_with('#'))
                    .then(|| attempt(st, &format!("#{lower}")))
                    .flatten()
            });
        st.end_invoke(start);
        r
    }

    /// Sets the revision the next pages expand as (until set again): the build passes
    /// each page's, `expand --title` the titled page's.
    pub fn set_revision(&self, revision: Option<super::PageRevision>) {
        self.revision.set(revision);
        *self.content.borrow_mut() = None;
    }

    /// Gives the wikitext of the revision set last (until the next `set_revision`), which
    /// the caller already holds: the build its page's text, `page --expanded` the page
    /// it read.
    pub fn set_content(&self, content: std::sync::Arc<str>) {
        *self.content.borrow_mut() = Some(content);
    }

    /// The current page's wikitext given by [`set_content`](Self::set_content).
    pub(super) fn content(&self) -> Option<std::sync::Arc<str>> {
        self.content.borrow().clone()
    }

    pub(super) fn revision(&self) -> Option<super::PageRevision> {
        self.revision.get()
    }

    /// Expands `text` as the content of page (`ns`, `dbkey`) — what MediaWiki's parser
    /// works on after `replaceVariables`.
    pub fn expand_page(&self, ns: i32, dbkey: &str, text: &str) -> Expansion {
        self.page_cache.borrow_mut().clear();
        // A fresh Lua state per page: no module state leaks between pages.
        self.lua.reset(self.keeps());
        self.lua_edge.set(false);
        self.expand_in_page(ns, dbkey, text)
    }

    /// Expands `text`, a piece of the page [`expand_page`](Self::expand_page) expanded
    /// last (a table cell, an infobox value), with that page's Lua state and cache:
    /// MediaWiki runs one Lua engine per parse, so the modules compiled and the
    /// `mw.loadData` tables loaded for the page serve its pieces too (each `#invoke`
    /// still gets a fresh module environment).
    pub(crate) fn expand_in_page(&self, ns: i32, dbkey: &str, text: &str) -> Expansion {
        let nodes = preprocess::preprocess(text);
        let mut st = State::new(ns, dbkey);
        st.counters.work += text.len() as u64 / 16;
        let root = Frame::root();
        let mut out = String::with_capacity(text.len() + text.len() / 2);
        st.page_text = text.as_ptr() as usize..text.as_ptr() as usize + text.len();
        st.root_out = &out as *const String as usize;
        self.expand(&mut st, &root, text, &nodes, &mut out);
        let out = st.unstrip_page(out);
        self.note_lua_edge(&st);
        let costs = st.take_costs();
        Expansion {
            text: out,
            segments: st.segments,
            templates: st.templates,
            existence_links: st.existence_links,
            invoked_modules: st.invoked,
            default_sort: st.default_sort,
            warnings: st.warnings,
            stats: ExpansionStats {
                node_count: st.counters.nodes,
                post_expand_size: st.counters.post_expand,
                pre_expand_size: st.counters.pre_expand,
                argument_size: st.counters.arg_size,
                expensive_functions: st.expensive,
                max_template_depth: st.max_template_depth,
                work: st.counters.work,
                lua_instructions: st.counters.lua,
            },
            costs,
        }
    }

    /// Spends `units` of the work budget; `false` once it is exhausted.
    fn tick(&self, st: &mut State, units: u64) -> bool {
        if st.exhausted {
            return false;
        }
        st.counters.work += units;
        if st.counters.work > self.config.limits.work {
            st.exhausted = true;
            if !st.warned.work {
                st.warned.work = true;
                st.warn(Warning::WorkBudget {
                    limit: self.config.limits.work,
                });
            }
            return false;
        }
        true
    }

    /// Preprocesses a text made while the page expands (`frame:preprocess`), counting
    /// its nodes against the page's generated-node limit and its bytes against the work
    /// budget; `None` once the limit is reached (no nodes once the budget is). Without the bound, a module that preprocesses
    /// a text invoking itself keeps a parsed tree alive at every level of the recursion
    /// (gigabytes before the depth limit is reached).
    pub(in crate::expand) fn preprocess_generated(
        &self,
        st: &mut State,
        text: &str,
        inclusion: bool,
    ) -> Option<Vec<Node>> {
        let limit = self.config.limits.generated_nodes;
        if st.generated_nodes > limit {
            st.uncacheable();
            return None;
        }
        if !self.tick(st, text.len() as u64 / 16) {
            // The end of the work budget: nothing expands any more.
            st.uncacheable();
            return Some(Vec::new());
        }
        let nodes = if inclusion {
            preprocess::preprocess_for_inclusion(text)
        } else {
            preprocess::preprocess(text)
        };
        st.generated_nodes += preprocess::node_count(&nodes);
        if st.generated_nodes > limit {
            st.warn(Warning::GeneratedNodeCount { limit });
            return None;
        }
        Some(nodes)
    }

    pub(super) fn expand_string(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        nodes: &[Node],
    ) -> String {
        let mut out = String::new();
        self.expand(st, frame, src, nodes, &mut out);
        out
    }

    /// `PPFrame::expand`: appends the expansion of `nodes` (spans into `src`) to `out`.
    pub(super) fn expand(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        nodes: &[Node],
        out: &mut String,
    ) {
        let limits = &self.config.limits;
        if st.expand_depth > limits.expand_depth {
            if !st.warned.expand_depth {
                st.warned.expand_depth = true;
                st.warn(Warning::ExpandDepth {
                    limit: limits.expand_depth,
                });
            } else {
                st.uncacheable();
            }
            out.push_str("<span class=\"error\">Expansion depth limit exceeded</span>");
            return;
        }
        st.expand_depth += 1;
        if let Some(c) = st.captures.last_mut() {
            c.max_expand_depth = c.max_expand_depth.max(st.expand_depth);
        }
        // Nodes of the page's own text expanded straight into the page's output (the
        // top level, headings, tags like `<ref>`) are recorded as segments: which own
        // bytes made which output bytes, and through which template.
        let own_base = (st.root_out == out as *const String as usize
            && st.page_text.contains(&(src.as_ptr() as usize)))
        .then(|| (src.as_ptr() as usize - st.page_text.start) as u32);
        for node in nodes {
            let mark = own_base.map(|base| {
                st.root_first = Some(None);
                (
                    base,
                    out.len(),
                    st.templates.len(),
                    st.existence_links.len(),
                )
            });
            st.counters.nodes += 1;
            if st.counters.nodes > limits.node_count {
                if !st.warned.node_count {
                    st.warned.node_count = true;
                    st.warn(Warning::NodeCount {
                        limit: limits.node_count,
                    });
                } else {
                    st.uncacheable();
                }
                out.push_str("<span class=\"error\">Node-count limit exceeded</span>");
                break;
            }
            let units = match node {
                Node::Text(r) => 1 + (r.end - r.start) as u64 / 32,
                _ => 1,
            };
            if !self.tick(st, units) {
                st.uncacheable();
                break;
            }
            match node {
                Node::Text(r) => out.push_str(span(src, r)),
                Node::Comment(_) | Node::Ignore(_) => {}
                Node::Equals(_) => out.push('='),
                Node::Heading { children, .. } => self.expand(st, frame, src, children, out),
                Node::Ext(e) => self.ext(st, frame, src, e, out),
                Node::Template(call) => self.brace(st, frame, src, call, out),
                Node::Argument(call) => self.argument(st, frame, src, call, out),
            }
            if let Some((base, out_start, templates, existence)) = mark {
                let own = match node {
                    Node::Text(r) | Node::Comment(r) | Node::Ignore(r) => Some((r.clone(), false)),
                    Node::Template(c) | Node::Argument(c) => Some((c.span.clone(), true)),
                    Node::Equals(p) => Some((*p..*p + 1, false)),
                    // A tag copied as it is.
                    Node::Ext(e)
                        if !(e.inner.is_some() && WIKITEXT_TAGS.contains(&e.name.as_str())) =>
                    {
                        Some((e.span.clone(), false))
                    }
                    // Their children were recorded as they were expanded.
                    Node::Heading { .. } | Node::Ext(_) => None,
                };
                let first = st.root_first.take().flatten();
                if let Some((r, call)) = own {
                    st.segments.push(Segment {
                        own: base + r.start..base + r.end,
                        out: out_start as u32..out.len() as u32,
                        call,
                        template: if call { first } else { None },
                        templates: templates as u32..st.templates.len() as u32,
                        existence_links: existence as u32..st.existence_links.len() as u32,
                    });
                }
            }
        }
        st.expand_depth -= 1;
    }

    /// A part as one text: `name=value` for named parts.
    pub(super) fn expand_part(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        part: &Part,
    ) -> String {
        let mut out = String::new();
        if let Some(name) = &part.name {
            self.expand(st, frame, src, name, &mut out);
            out.push('=');
        }
        self.expand(st, frame, src, &part.value, &mut out);
        out
    }

    /// An extension tag: written out as it is, the wikitext inside `<ref>` and its
    /// kind expanded. Straight into the page's output where it stands there; anywhere
    /// else (an argument, a template's text) as a strip marker (`strip.rs`).
    fn ext(&self, st: &mut State, frame: &Frame<'_>, src: &str, e: &Ext, out: &mut String) {
        if st.root_out == out as *const String as usize {
            return self.ext_text(st, frame, src, e, out);
        }
        let mut text = String::new();
        self.ext_text(st, frame, src, e, &mut text);
        // The name as written (`<REF>` makes `UNIQ--REF-…`), as MediaWiki's marker has it.
        let at = e.span.start as usize + 1;
        let name = src.get(at..at + e.name.len()).unwrap_or(&e.name);
        let marker = st.strip(name, text);
        out.push_str(&marker);
    }

    fn ext_text(&self, st: &mut State, frame: &Frame<'_>, src: &str, e: &Ext, out: &mut String) {
        match &e.inner {
            Some(inner) if WIKITEXT_TAGS.contains(&e.name.as_str()) => {
                let text = span(src, inner);
                if !self.tick(st, text.len() as u64 / 16) {
                    return;
                }
                let nodes = preprocess::preprocess(text);
                out.push_str(span(src, &(e.span.start..inner.start)));
                self.expand(st, frame, text, &nodes, out);
                out.push_str(span(src, &(inner.end..e.span.end)));
            }
            _ => out.push_str(span(src, &e.span)),
        }
    }

    /// `{{{name|default}}}`.
    fn argument(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        call: &Call,
        out: &mut String,
    ) {
        let name_ws = self.expand_string(st, frame, src, &call.title);
        let name = php_trim(&name_ws);
        if let Some(value) = self.get_arg(st, frame, name) {
            let limit = self.config.limits.argument_size;
            if st.counters.arg_size + value.len() as u64 > limit {
                if !st.warned.arg_size {
                    st.warned.arg_size = true;
                    st.warn(Warning::ArgumentSize { limit });
                } else {
                    st.uncacheable();
                }
                out.push_str("<!-- WARNING: argument omitted, expansion size too large -->");
                return;
            }
            st.counters.arg_size += value.len() as u64;
            out.push_str(&value);
            return;
        }
        if let Some(default) = call.parts.first() {
            let text = self.expand_part(st, frame, src, default);
            out.push_str(&text);
            return;
        }
        out.push_str("{{{");
        out.push_str(&name_ws);
        out.push_str("}}}");
    }

    /// The value of argument `name` of `frame`, expanded in the caller's frame once.
    fn get_arg(&self, st: &mut State, frame: &Frame<'_>, name: &str) -> Option<Rc<str>> {
        let def = frame.args.get(name)?;
        if let Some(v) = frame.expanded.borrow().get(name) {
            return Some(v.clone());
        }
        let parent = frame.parent?;
        let text = self.expand_string(st, parent, frame.arg_src, def.value);
        let value: Rc<str> = if def.named {
            php_trim(&text).into()
        } else {
            text.into()
        };
        frame
            .expanded
            .borrow_mut()
            .insert(name.to_string(), value.clone());
        Some(value)
    }

    /// `{{…}}` written as text again, its parts expanded (`virtualBracketedImplode`).
    fn literal(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        title_ws: &str,
        parts: &[Part],
        out: &mut String,
    ) {
        out.push_str("{{");
        out.push_str(title_ws);
        for p in parts {
            out.push('|');
            let t = self.expand_part(st, frame, src, p);
            out.push_str(&t);
        }
        out.push_str("}}");
    }

    /// Output of a template or function: a block-level start moves to a new line
    /// (T2529), and the post-expand include size is counted.
    fn emit(&self, st: &mut State, call: &Call, mut text: String, link: &str, out: &mut String) {
        if !call.line_start && (text.starts_with("{|") || text.starts_with([':', ';', '#', '*'])) {
            text.insert(0, '\n');
        }
        let limit = self.config.limits.post_expand_size;
        if st.counters.post_expand + text.len() as u64 > limit {
            st.warn(Warning::PostExpandSize {
                title: link.to_string(),
                limit,
            });
            out.push_str("[[:");
            out.push_str(link.trim_start_matches(':'));
            out.push_str(
                "]]<!-- WARNING: template omitted, post-expand include size too large -->",
            );
            return;
        }
        st.counters.post_expand += text.len() as u64;
        // Copying output up through the nesting levels is work too; once the budget is
        // spent, expansion stops at the next node.
        self.tick(st, text.len() as u64 / 64);
        out.push_str(&text);
    }

    /// `{{…}}`: a variable, a parser function or a template (`braceSubstitution`).
    fn brace(&self, st: &mut State, frame: &Frame<'_>, src: &str, call: &Call, out: &mut String) {
        let title_ws = self.expand_string(st, frame, src, &call.title);
        let mut part1 = php_trim(&title_ws);
        if starts_with_ci(part1, "subst:") {
            // Outside a pre-save transform, `subst:` calls stay as written.
            self.literal(st, frame, src, &title_ws, &call.parts, out);
            return;
        }
        if starts_with_ci(part1, "safesubst:") {
            part1 = php_trim(&part1["safesubst:".len()..]);
        }
        let mut nowiki = false;
        if starts_with_ci(part1, "msgnw:") {
            nowiki = true;
            part1 = php_trim(&part1["msgnw:".len()..]);
        } else if starts_with_ci(part1, "msg:") {
            part1 = php_trim(&part1["msg:".len()..]);
        }
        if starts_with_ci(part1, "raw:") {
            part1 = php_trim(&part1["raw:".len()..]);
        }
        if call.parts.is_empty()
            && !nowiki
            && let Some(v) = variables::variable(self, st, part1)
        {
            self.emit(st, call, v, part1, out);
            return;
        }
        if !nowiki && let Some(colon) = part1.find(':') {
            let name = &part1[..colon];
            let fc = FnCall {
                ex: self,
                frame,
                src,
                parts: &call.parts,
                first: php_trim(&part1[colon + 1..]).to_string(),
            };
            // An `#invoke` here, or anywhere in a function's branches, counts for its
            // module once its output is counted too.
            let start = st.function_start();
            let result = match parser_functions::call(&fc, st, name) {
                Some(r) => Some(r),
                None => core_functions::call(&fc, st, name),
            };
            if let Some(text) = result {
                self.emit(st, call, text, part1, out);
                st.end_invoke(start);
                return;
            }
        }
        self.template(st, frame, src, call, part1, &title_ws, nowiki, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn template(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        call: &Call,
        part1: &str,
        title_ws: &str,
        nowiki: bool,
        out: &mut String,
    ) {
        let t = match self.codec.parse(part1, NS_TEMPLATE) {
            Ok(t) if t.interwiki.is_none() && !t.dbkey.is_empty() => t,
            _ => {
                self.literal(st, frame, src, title_ws, &call.parts, out);
                return;
            }
        };
        let title_text = self.codec.prefixed_text(t.ns, &t.dbkey);
        let limit = self.config.limits.template_depth;
        if frame.depth >= limit {
            st.warn(Warning::TemplateDepth {
                title: title_text,
                limit,
            });
            let message = self.config.messages.format(
                "parser-template-recursion-depth-warning",
                "Template recursion depth limit exceeded ($1)",
                &[&limit.to_string()],
            );
            let text = format!("<span class=\"error\">{message}</span>");
            self.emit(st, call, text, part1, out);
            return;
        }
        if t.ns < 0 {
            // Special and Media pages cannot be transcluded here: a link, as for a
            // missing template.
            let text = format!("[[:{title_text}]]");
            self.emit(st, call, text, &title_text, out);
            return;
        }
        let fetched = self.fetch((t.ns, t.dbkey));
        for (ns, k) in &fetched.deps {
            st.record_template(*ns, k);
        }
        let Some(body) = fetched.body.clone() else {
            let text = format!("[[:{title_text}]]");
            self.emit(st, call, text, &title_text, out);
            return;
        };
        let start = st.cost_start();
        let page = (&*fetched, &*body);
        self.transclude(st, frame, src, call, page, &title_text, nowiki, out);
        st.end_call(CostKind::Template, fetched.cost_title.clone(), start);
    }

    /// [`template`](Self::template) once the template's text is found: its size
    /// counted, a loop refused, then its expansion replayed from the cache or computed
    /// in a frame of its own.
    #[allow(clippy::too_many_arguments)]
    fn transclude(
        &self,
        st: &mut State,
        frame: &Frame<'_>,
        src: &str,
        call: &Call,
        (fetched, body): (&Fetched, &cache::Parsed),
        title_text: &str,
        nowiki: bool,
        out: &mut String,
    ) {
        let len = body.text.len() as u64;
        if !self.tick(st, len / 16) {
            st.uncacheable();
            return;
        }
        let pre_limit = self.config.limits.pre_expand_size;
        if st.counters.pre_expand + len > pre_limit {
            st.warn(Warning::PreExpandSize {
                title: title_text.to_string(),
                limit: pre_limit,
            });
            out.push_str(&format!(
                "[[:{title_text}]]<!-- WARNING: template omitted, pre-expand include size too large -->"
            ));
            return;
        }
        st.counters.pre_expand += len;
        if frame.in_chain(&fetched.last) {
            st.warn(Warning::TemplateLoop {
                title: title_text.to_string(),
            });
            let message = self.config.messages.format(
                "parser-template-loop-warning",
                "Template loop detected: [[$1]]",
                &[title_text],
            );
            let text = format!("<span class=\"error\">{message}</span>");
            self.emit(st, call, text, title_text, out);
            return;
        }
        if nowiki {
            let text = super::php::escape_wikitext(&body.text);
            self.emit(st, call, text, title_text, out);
            return;
        }
        let key = self.cache_key(src, call, &fetched.last);
        if let Some(key) = &key
            && let Some(hit) = self.lookup(key)
            && self.replayable(st, frame, &hit)
        {
            self.replay(st, frame.depth, &hit);
            let text = hit.text.to_string();
            self.emit(st, call, text, title_text, out);
            return;
        }
        self.begin_capture(st);
        let mut args = FxHashMap::default();
        for p in &call.parts {
            match &p.name {
                None => {
                    args.insert(
                        p.index.to_string(),
                        ArgDef {
                            value: &p.value,
                            named: false,
                        },
                    );
                }
                Some(name) => {
                    let n = self.expand_string(st, frame, src, name);
                    args.insert(
                        php_trim(&n).to_string(),
                        ArgDef {
                            value: &p.value,
                            named: true,
                        },
                    );
                }
            }
        }
        let child = Frame {
            parent: Some(frame),
            arg_src: src,
            args,
            title: Some(fetched.last.clone()),
            depth: frame.depth + 1,
            expanded: RefCell::new(FxHashMap::default()),
        };
        st.max_template_depth = st.max_template_depth.max(child.depth);
        if let Some(c) = st.captures.last_mut() {
            c.max_template_depth = c.max_template_depth.max(child.depth);
        }
        let text = self.expand_string(st, &child, &body.text, &body.nodes);
        let capture = self.end_capture(st);
        if let Some(key) = key {
            let delta = st.counters.minus(capture.start);
            self.store(key, &text, capture, delta, child.depth);
        }
        self.emit(st, call, text, title_text, out);
    }
}
