//! What each template and module cost in one page's expansion: MediaWiki's limit report
//! counts a page's totals, and a build over a whole dump needs them per template and
//! module to say which ones make it slow.
//!
//! Every figure but [`CallCost::nanos`] is a count the expansion makes anyway (calls,
//! preprocessor nodes, post-expand bytes, work units, Lua instructions), so it is the
//! same whatever was cached or which thread expanded the page: a cached expansion
//! replays its nested calls' costs with its text. `nanos` is a measurement.

use serde::{Deserialize, Serialize};

/// What a cost is counted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CostKind {
    /// A transclusion `{{Name|…}}` or a module's `frame:expandTemplate`, counted for the
    /// template page it read (after redirects).
    Template,
    /// An `{{#invoke:Name|…}}` that reached the module (named and found or not),
    /// counted for the module page.
    Module,
}

/// The calls of one template or module on one page and what they cost, inclusive of
/// everything expanded inside them (as MediaWiki's limit report counts a page: a call
/// nested in another counts for both).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CallCost {
    pub kind: CostKind,
    /// The page called, as its prefixed title (`Template:Cite web`,
    /// `Module:Citation/CS1`).
    pub title: String,
    pub calls: u64,
    /// Preprocessor nodes expanded.
    pub nodes: u64,
    /// Bytes of template and function output, summed over every nesting level.
    pub post_expand_size: u64,
    /// Work units of the expander's budget ([`super::Limits::work`]).
    pub work: u64,
    /// Lua VM instructions run.
    pub lua_instructions: u64,
    /// Time spent in the calls on the expanding thread (monotonic clock, inclusive),
    /// in nanoseconds. Not deterministic: a call replayed from the expansion cache costs
    /// only the replay, and its nested calls no time at all. Left out of equality.
    pub nanos: u64,
}

/// Equal when the counts are: [`CallCost::nanos`] is a measurement, and two expansions
/// of one page are the same whatever their timing.
impl PartialEq for CallCost {
    fn eq(&self, o: &CallCost) -> bool {
        (
            self.kind,
            &self.title,
            self.calls,
            self.nodes,
            self.post_expand_size,
            self.work,
            self.lua_instructions,
        ) == (
            o.kind,
            &o.title,
            o.calls,
            o.nodes,
            o.post_expand_size,
            o.work,
            o.lua_instructions,
        )
    }
}

impl Eq for CallCost {}
