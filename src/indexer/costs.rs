//! The build's cost accounting: each page's template and module costs
//! ([`crate::expand::CallCost`]) summed as pages are consumed, into `costs.json` (the
//! counts, deterministic) and the `--cost-report` (the counts with the time measured,
//! not deterministic).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::expand::{CallCost, CostKind};
use crate::index::IndexError;
use crate::index::costs::{CostRow, Costs};

/// The costs of the pages consumed so far, with the time measured.
#[derive(Debug, Default)]
pub(crate) struct CostTotals {
    /// Each row with the Lua instructions and nanoseconds measured.
    rows: BTreeMap<(CostKind, String), (CostRow, u64, u64)>,
    pages_with_calls: u64,
}

impl CostTotals {
    /// Adds one page's costs.
    pub(crate) fn add_page(&mut self, costs: &[CallCost]) {
        if !costs.is_empty() {
            self.pages_with_calls += 1;
        }
        for c in costs {
            let (row, lua, nanos) =
                self.rows
                    .entry((c.kind, c.title.clone()))
                    .or_insert_with(|| {
                        let row = CostRow {
                            title: c.title.clone(),
                            ..CostRow::default()
                        };
                        (row, 0, 0)
                    });
            row.calls += c.calls;
            row.pages += 1;
            row.nodes += c.nodes;
            row.post_expand_size += c.post_expand_size;
            row.work += c.work;
            *lua += c.lua_instructions;
            *nanos += c.nanos;
        }
    }

    /// The counts, by kind and title: `costs.json`.
    pub(crate) fn table(&self) -> Costs {
        let mut t = Costs {
            pages_with_calls: self.pages_with_calls,
            ..Costs::default()
        };
        for ((kind, _), (row, _, _)) in &self.rows {
            t.rows_mut(*kind).push(row.clone());
        }
        t
    }

    /// The counts with the time measured, the slowest first.
    pub(crate) fn report(&self) -> CostReport {
        let mut r = CostReport {
            clock: CLOCK.to_string(),
            pages_with_calls: self.pages_with_calls,
            templates: Vec::new(),
            modules: Vec::new(),
        };
        for ((kind, _), (row, lua, nanos)) in &self.rows {
            let m = MeasuredRow {
                row: row.clone(),
                lua_instructions: *lua,
                seconds: *nanos as f64 / 1e9,
            };
            match kind {
                CostKind::Template => r.templates.push(m),
                CostKind::Module => r.modules.push(m),
            }
        }
        for v in [&mut r.templates, &mut r.modules] {
            v.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        }
        r
    }
}

/// What the report's times are.
const CLOCK: &str = "monotonic wall time on the expanding worker thread, inclusive of nested calls (for a module, from when its #invoke named it), summed over calls; a call replayed from the expansion cache counts its replay only, its nested calls no time";

/// `build --cost-report FILE`: [`Costs`] with the Lua instructions and time each
/// template and module took. Those differ between builds; the other counts are
/// `costs.json`'s.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CostReport {
    /// How the times were measured.
    pub clock: String,
    pub pages_with_calls: u64,
    /// The slowest first.
    pub templates: Vec<MeasuredRow>,
    pub modules: Vec<MeasuredRow>,
}

/// A row of `costs.json` with the Lua instructions and the time its calls took.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MeasuredRow {
    #[serde(flatten)]
    pub row: CostRow,
    /// Lua instructions charged (inclusive): counted, but what a page is charged
    /// depends on the pages its worker ran before, so not the same at every thread count.
    pub lua_instructions: u64,
    pub seconds: f64,
}

impl CostReport {
    /// Writes the report as JSON to `path`.
    pub fn write(&self, path: &Path) -> Result<(), IndexError> {
        crate::index::costs::write_pretty_json(path, self, "cost report").map(|_| ())
    }
}
