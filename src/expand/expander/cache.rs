//! The expander's two caches, kept across pages: template texts resolved through
//! redirects and preprocessed, by title; and template expansions that do not depend on
//! the calling frame, by template and argument text, reused only where expanding again
//! would give the same text, records and limit counts.

use std::borrow::Cow;
use std::rc::Rc;

use rustc_hash::FxHashSet;

use super::state::{Counters, Effect, State};
use super::{Expander, WIKITEXT_TAGS, span};
use crate::expand::frame::Frame;
use crate::wikitext::preprocess::{self, Call, Node};

/// A preprocessed template body.
#[derive(Debug)]
pub(super) struct Parsed {
    pub(super) text: String,
    pub(super) nodes: Vec<Node>,
}

/// A template title resolved through redirects (`Parser::statelessFetchTemplate`).
#[derive(Debug)]
pub(super) struct Fetched {
    /// Every title looked at, the requested one first: all are recorded in templatelinks.
    pub(super) deps: Vec<(i32, String)>,
    /// The last title whose text was found: the frame's title, used for loop detection.
    pub(super) last: (i32, String),
    /// `last` as prefixed text: what the template's calls are counted under.
    pub(super) cost_title: Rc<str>,
    pub(super) body: Option<Rc<Parsed>>,
}

/// What one template expansion did, collected while it runs.
#[derive(Debug)]
pub(super) struct Capture {
    pub(super) effects: Vec<Effect>,
    pub(super) page_dependent: bool,
    pub(super) uncacheable: bool,
    pub(super) start: Counters,
    pub(super) start_expand_depth: u32,
    pub(super) max_template_depth: u32,
    pub(super) max_expand_depth: u32,
}

/// A template expansion that can stand in for expanding the same template with the same
/// argument texts again.
#[derive(Debug)]
pub(super) struct Cached {
    pub(super) text: Rc<str>,
    pub(super) effects: Vec<Effect>,
    pub(super) delta: Counters,
    /// Template depth reached below the call's own frame (0: no template inside).
    pub(super) template_depth: u32,
    /// Expansion depth reached below the call.
    pub(super) expand_depth: u32,
    /// Every template used inside: reuse is wrong where one of them would be a loop.
    pub(super) titles: FxHashSet<(i32, String)>,
    pub(super) page_dependent: bool,
}

/// (template after redirects, number of arguments, argument text as written). The
/// number tells `{{T}}` from `{{T|}}`, whose argument texts are both empty: `T` sees no
/// argument `1` in one and an empty one in the other (`{{{1|default}}}` differs).
pub(super) type CacheKey = ((i32, String), usize, String);

/// Bytes of cached expansion text kept across pages before the cache is emptied.
const MAX_CACHE_BYTES: usize = 64 * 1024 * 1024;

/// Bytes of template text (times [`PARSED_OVERHEAD`] for its preprocessor tree) kept
/// preprocessed across pages before that cache is emptied: enwiki has about a million
/// templates and modules, and a build expands every page with one expander per worker,
/// so an unbounded cache would grow with the dump.
const MAX_FETCHED_BYTES: usize = 128 * 1024 * 1024;
const PARSED_OVERHEAD: usize = 4;

/// Whether nodes contain no `{{{…}}}`: their expansion is the same in every frame.
fn frame_independent(nodes: &[Node]) -> bool {
    nodes.iter().all(|n| match n {
        Node::Argument(_) => false,
        Node::Template(c) => {
            frame_independent(&c.title)
                && c.parts.iter().all(|p| {
                    frame_independent(&p.value) && p.name.as_deref().is_none_or(frame_independent)
                })
        }
        Node::Heading { children, .. } => frame_independent(children),
        // Tag contents may be parsed in the frame (`<ref>{{{1}}}</ref>`).
        Node::Ext(e) => !WIKITEXT_TAGS.contains(&e.name.as_str()),
        _ => true,
    })
}

impl Expander<'_> {
    /// Resolves a template title through at most two redirects, as MediaWiki does.
    pub(super) fn fetch(&self, title: (i32, String)) -> Rc<Fetched> {
        if let Some(f) = self.fetched.borrow().get(&title) {
            return f.clone();
        }
        let mut deps = Vec::new();
        let mut last = title.clone();
        let mut text: Option<Cow<'_, str>> = None;
        let mut next = Some(title.clone());
        for _ in 0..3 {
            let Some(t) = next.take() else { break };
            deps.push(t.clone());
            let Some(w) = self.source.wikitext(t.0, &t.1) else {
                break;
            };
            text = Some(w);
            next = self.source.redirect(t.0, &t.1);
            last = t;
        }
        let body = text.map(|t| {
            let text = t.into_owned();
            let nodes = preprocess::preprocess_for_inclusion(&text);
            Rc::new(Parsed { text, nodes })
        });
        let size = 64 + body.as_ref().map_or(0, |b| b.text.len() * PARSED_OVERHEAD);
        let cost_title = self.codec.prefixed_text(last.0, &last.1).into();
        let f = Rc::new(Fetched {
            deps,
            last,
            cost_title,
            body,
        });
        let bytes = self.fetched_bytes.get() + size;
        if bytes > MAX_FETCHED_BYTES {
            self.fetched.borrow_mut().clear();
            self.fetched_bytes.set(size);
        } else {
            self.fetched_bytes.set(bytes);
        }
        self.fetched.borrow_mut().insert(title, f.clone());
        f
    }

    pub(super) fn cache_key(
        &self,
        src: &str,
        call: &Call,
        title: &(i32, String),
    ) -> Option<CacheKey> {
        let ok = call.parts.iter().all(|p| {
            frame_independent(&p.value) && p.name.as_deref().is_none_or(frame_independent)
        });
        if !ok {
            return None;
        }
        let args = match (call.parts.first(), call.parts.last()) {
            (Some(a), Some(b)) => span(src, &(a.span.start..b.span.end)).to_string(),
            _ => String::new(),
        };
        Some((title.clone(), call.parts.len(), args))
    }

    pub(super) fn lookup(&self, key: &CacheKey) -> Option<Rc<Cached>> {
        if self.keeps()
            && let Some(c) = self.cache.borrow().get(key)
        {
            return Some(c.clone());
        }
        self.page_cache.borrow().get(key).cloned()
    }

    /// Whether reusing `hit` here gives exactly what expanding again would give: no
    /// template inside it is a caller (a loop), no depth or size limit would be reached.
    pub(super) fn replayable(&self, st: &State, frame: &Frame<'_>, hit: &Cached) -> bool {
        let l = &self.config.limits;
        let c = &st.counters;
        let d = &hit.delta;
        let new_expensive = hit
            .effects
            .iter()
            .filter(|e| matches!(e, Effect::Expensive(..)))
            .count() as u32;
        frame.depth + 1 + hit.template_depth < l.template_depth
            && st.expand_depth + hit.expand_depth < l.expand_depth
            && c.nodes + d.nodes < l.node_count
            && c.post_expand + d.post_expand < l.post_expand_size
            && c.pre_expand + d.pre_expand < l.pre_expand_size
            && c.arg_size + d.arg_size < l.argument_size
            && c.work + d.work < l.work
            && (d.lua == 0 || c.lua + d.lua < l.lua_instructions)
            && st.expensive + new_expensive < l.expensive_functions
            && !frame.chain().any(|t| hit.titles.contains(t))
    }

    pub(super) fn replay(&self, st: &mut State, frame_depth: u32, hit: &Cached) {
        let d = hit.delta;
        st.counters.nodes += d.nodes;
        st.counters.post_expand += d.post_expand;
        st.counters.pre_expand += d.pre_expand;
        st.counters.arg_size += d.arg_size;
        st.counters.work += d.work;
        st.counters.lua += d.lua;
        for e in &hit.effects {
            st.record(e.clone());
        }
        if hit.page_dependent {
            st.page_dependent();
        }
        let deepest = frame_depth + 1 + hit.template_depth;
        st.max_template_depth = st.max_template_depth.max(deepest);
        if let Some(c) = st.captures.last_mut() {
            c.max_template_depth = c.max_template_depth.max(deepest);
            c.max_expand_depth = c.max_expand_depth.max(st.expand_depth + hit.expand_depth);
        }
    }

    pub(super) fn begin_capture(&self, st: &mut State) {
        let c = Capture {
            effects: Vec::new(),
            page_dependent: false,
            uncacheable: false,
            start: st.counters,
            start_expand_depth: st.expand_depth,
            max_template_depth: 0,
            max_expand_depth: st.expand_depth,
        };
        st.captures.push(c);
    }

    pub(super) fn end_capture(&self, st: &mut State) -> Capture {
        let c = st.captures.pop().unwrap_or(Capture {
            effects: Vec::new(),
            page_dependent: true,
            uncacheable: true,
            start: st.counters,
            start_expand_depth: st.expand_depth,
            max_template_depth: 0,
            max_expand_depth: 0,
        });
        if let Some(parent) = st.captures.last_mut() {
            parent.effects.extend(c.effects.iter().cloned());
            parent.page_dependent |= c.page_dependent;
            parent.uncacheable |= c.uncacheable;
            parent.max_template_depth = parent.max_template_depth.max(c.max_template_depth);
            parent.max_expand_depth = parent.max_expand_depth.max(c.max_expand_depth);
        }
        c
    }

    pub(super) fn store(
        &self,
        key: CacheKey,
        text: &str,
        c: Capture,
        delta: Counters,
        child_depth: u32,
    ) {
        if c.uncacheable {
            return;
        }
        let titles = c
            .effects
            .iter()
            .filter_map(|e| match e {
                Effect::Template(ns, k) => Some((*ns, k.clone())),
                _ => None,
            })
            .collect();
        let page_dependent = c.page_dependent;
        let entry = Rc::new(Cached {
            text: text.into(),
            delta,
            template_depth: c.max_template_depth.saturating_sub(child_depth),
            expand_depth: c.max_expand_depth.saturating_sub(c.start_expand_depth),
            effects: c.effects,
            titles,
            page_dependent,
        });
        if page_dependent || !self.keeps() {
            self.page_cache.borrow_mut().insert(key, entry);
            return;
        }
        let bytes = self.cache_bytes.get() + text.len() + 64;
        if bytes > MAX_CACHE_BYTES {
            self.cache.borrow_mut().clear();
            self.cache_bytes.set(0);
        } else {
            self.cache_bytes.set(bytes);
        }
        self.cache.borrow_mut().insert(key, entry);
    }
}
