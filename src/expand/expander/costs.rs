//! Costs per template and module, accounted as calls end: what the page's counters grew
//! by during the call, recorded as an [`Effect`] so that a cached expansion replays the
//! costs of the calls nested in it with the rest of what it did.

use std::rc::Rc;
use std::time::Instant;

use super::state::{Counters, Effect, State};
use crate::expand::{CallCost, CostKind};

/// Where a call started: the page's counters, the clock (for a template call; a parser
/// function's starts when an `#invoke` names its module, so that the `#if`s and
/// `#switch`es of a page read no clock), and how many `#invoke`s were running.
pub(in crate::expand) struct CostStart {
    counters: Counters,
    at: Option<Instant>,
    invokes: usize,
}

/// What `now` grew by since `then` (counters never shrink during a page; saturating
/// so that a change to how one is kept cannot make this panic).
fn growth(now: Counters, then: Counters) -> Counters {
    Counters {
        nodes: now.nodes.saturating_sub(then.nodes),
        post_expand: now.post_expand.saturating_sub(then.post_expand),
        pre_expand: now.pre_expand.saturating_sub(then.pre_expand),
        arg_size: now.arg_size.saturating_sub(then.arg_size),
        work: now.work.saturating_sub(then.work),
        lua: now.lua.saturating_sub(then.lua),
    }
}

impl State {
    /// Marks the start of a template call, whose cost [`end_call`](Self::end_call)
    /// records.
    pub(in crate::expand) fn cost_start(&self) -> CostStart {
        CostStart {
            at: Some(Instant::now()),
            ..self.function_start()
        }
    }

    /// Marks the start of a parser function call, whose cost
    /// [`end_invoke`](Self::end_invoke) records if it is an `#invoke`.
    pub(in crate::expand) fn function_start(&self) -> CostStart {
        CostStart {
            counters: self.counters,
            at: None,
            invokes: self.invokes.len(),
        }
    }

    /// A call of `kind` on page `title` ended: its cost counted (and captured, for a
    /// cached expansion to replay), its time measured.
    pub(super) fn end_call(&mut self, kind: CostKind, title: Rc<str>, start: CostStart) {
        let delta = growth(self.counters, start.counters);
        let nanos = start.at.map_or(0, |at| at.elapsed().as_nanos() as u64);
        self.record(Effect::Cost(kind, title.clone(), delta));
        if let Some(c) = self.costs.get_mut(&(kind, title)) {
            c.nanos += nanos;
        }
    }

    /// A parser function call started at `start` ended (its output counted): when it
    /// was an `{{#invoke:…}}` that got as far as naming a module, counted for the module
    /// (the `#invoke`s nested in it have taken theirs).
    pub(in crate::expand) fn end_invoke(&mut self, start: CostStart) {
        if self.invokes.len() > start.invokes {
            let (module, at) = self.invokes.swap_remove(start.invokes);
            self.invokes.truncate(start.invokes);
            let start = CostStart {
                at: Some(at),
                ..start
            };
            self.end_call(CostKind::Module, module, start);
        }
    }

    /// Adds one call's cost `d` to `title`'s.
    pub(super) fn add_cost(&mut self, kind: CostKind, title: &Rc<str>, d: &Counters) {
        let c = self
            .costs
            .entry((kind, title.clone()))
            .or_insert_with(|| CallCost {
                kind,
                title: title.to_string(),
                calls: 0,
                nodes: 0,
                post_expand_size: 0,
                work: 0,
                lua_instructions: 0,
                nanos: 0,
            });
        c.calls += 1;
        c.nodes += d.nodes;
        c.post_expand_size += d.post_expand;
        c.work += d.work;
        c.lua_instructions += d.lua;
    }

    /// The page's costs, by kind and title.
    pub(super) fn take_costs(&mut self) -> Vec<CallCost> {
        let mut out: Vec<CallCost> = self.costs.drain().map(|(_, c)| c).collect();
        out.sort_unstable_by(|a, b| (a.kind, &a.title).cmp(&(b.kind, &b.title)));
        out
    }
}
