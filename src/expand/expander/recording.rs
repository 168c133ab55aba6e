//! Work done inside an `#invoke` whose records a later page can replay instead of doing
//! it again: the `mw.loadData` tables a kept Lua state shares across pages
//! (`scribunto/mw.rs`). The work is captured as a template expansion is for the cache
//! (`cache.rs`), and kept only when it read nothing of the page.

use super::Expander;
use super::state::{Effect, State};

/// The records (transclusions, existence links) of a finished piece of work that read
/// nothing of its page and reached no limit.
#[derive(Debug)]
pub(in crate::expand) struct Recording {
    effects: Vec<Effect>,
}

impl Expander<'_> {
    /// Starts capturing what the work about to run records; the depth returned is what
    /// [`end_recording`](Self::end_recording) and
    /// [`close_recordings`](Self::close_recordings) take.
    pub(in crate::expand) fn begin_recording(&self, st: &mut State) -> usize {
        let depth = st.captures.len();
        self.begin_capture(st);
        depth
    }

    /// Ends the capture begun at `depth` (and any an error left open above it); its
    /// records pass to the enclosing capture as usual. The recording, when the work read
    /// nothing of the page (title, text, frames), reached no limit and counted no
    /// expensive call (which depends on what the page counted before).
    pub(in crate::expand) fn end_recording(
        &self,
        st: &mut State,
        depth: usize,
    ) -> Option<Recording> {
        if st.captures.len() <= depth {
            return None;
        }
        self.close_recordings(st, depth + 1);
        let c = self.end_capture(st);
        let expensive = c.effects.iter().any(|e| matches!(e, Effect::Expensive(..)));
        (!c.page_dependent && !c.uncacheable && !expensive)
            .then_some(Recording { effects: c.effects })
    }

    /// Ends every capture begun at `depth` or above that a Lua error left open, passing
    /// what they recorded to the enclosing one.
    pub(in crate::expand) fn close_recordings(&self, st: &mut State, depth: usize) {
        while st.captures.len() > depth {
            self.end_capture(st);
        }
    }

    /// Records on this page what `r` recorded where it was made.
    pub(in crate::expand) fn replay_recording(&self, st: &mut State, r: &Recording) {
        for e in &r.effects {
            st.record(e.clone());
        }
    }
}

impl State {
    /// How many captures are open: the depth to give
    /// [`Expander::close_recordings`] after work that may fail half-way.
    pub(in crate::expand) fn capture_depth(&self) -> usize {
        self.captures.len()
    }
}
