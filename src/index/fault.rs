//! Named points at which a build can be made to die on purpose, so that a test can kill
//! it at a chosen moment of a chosen phase instead of after a guessed delay.
//!
//! `WIKIWIT_FAULT_POINT=<phase>:<n>` (undocumented for users: it exists for
//! `tests/faults.rs`) makes the `n`-th (0-based) passage through [`point`]`(phase)`
//! abort the process. `std::process::abort` ends it as `kill -9` would for the files:
//! no destructor runs, no temporary directory is removed, nothing is flushed. Without
//! the variable a point costs one atomic load.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable naming the point.
pub(crate) const VAR: &str = "WIKIWIT_FAULT_POINT";

struct Target {
    phase: String,
    n: u64,
    hits: AtomicU64,
}

static TARGET: OnceLock<Option<Target>> = OnceLock::new();

fn target() -> Option<&'static Target> {
    TARGET
        .get_or_init(|| {
            let value = std::env::var(VAR).ok()?;
            let (phase, n) = value.rsplit_once(':')?;
            Some(Target {
                phase: phase.to_string(),
                n: n.parse().ok()?,
                hits: AtomicU64::new(0),
            })
        })
        .as_ref()
}

/// One passage through a point of `phase`: aborts the process if it is the one
/// `VAR` names.
pub fn point(phase: &str) {
    if let Some(t) = target()
        && t.phase == phase
        && t.hits.fetch_add(1, Ordering::SeqCst) == t.n
    {
        std::process::abort();
    }
}
