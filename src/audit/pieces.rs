//! The audit in pieces, for engines that spread rows over machines (Spark): the row-level
//! checks run on any subset of the rows, anywhere, and return with each row's findings a
//! [`RowSummary`]; the table-level checks (key integrity, cardinality, coverage,
//! provenance, exhaustiveness) then run over every row's summary, folded in row order —
//! either at once ([`table_findings`]) or in two stages: [`key_group`] per group of rows
//! that shares no key identity with another group (run anywhere, in parallel), then
//! [`merged_findings`] once over the groups' small [`TablePart`]s. Either way they give
//! the findings [`super::audit`] writes for the same rows, whatever the split.

use super::rows::{Format, RowItem};
pub use super::table_checks::TablePart;
use super::table_checks::TableState;
use super::{Finding, Prepared, RowSummary, row_checks, table_checks};
use crate::index::{Index, IndexError};

/// One staged row as JSON text (an object, as a line of a JSONL rows file), with its
/// 0-based row number and the 1-based line it stands on in the rows file.
pub struct JsonRow<'a> {
    pub number: usize,
    pub line: u64,
    pub json: &'a [u8],
}

/// Row-level checks of `rows` (any subset, any order); findings and summary per row,
/// in the order given.
pub fn check_rows(
    prepared: &Prepared,
    index: &Index,
    rows: &[JsonRow<'_>],
) -> Result<Vec<(Vec<Finding>, RowSummary)>, IndexError> {
    let ctx = prepared.ctx(index);
    let mut memo = super::memo::RowMemo::default();
    rows.iter()
        .map(|r| {
            let item: RowItem = super::json_row::parse(r.json, r.number, r.line);
            let o = row_checks::check(&ctx, &item, Format::Jsonl, &mut memo)?;
            Ok((o.findings, o.summary))
        })
        .collect()
}

/// Table-level checks over every row's summary. `summaries` must be in row order (the
/// first row holding a key is the original, later ones its duplicates) and complete:
/// `rows` is the number of rows of the table.
pub fn table_findings(
    prepared: &Prepared,
    index: &Index,
    summaries: impl IntoIterator<Item = RowSummary>,
    rows: usize,
) -> Result<Vec<Finding>, IndexError> {
    let ctx = prepared.ctx(index);
    table_checks::run(&ctx, &folded(summaries), rows)
}

/// The summaries folded in the order given.
fn folded(summaries: impl IntoIterator<Item = RowSummary>) -> TableState {
    let mut state = TableState::default();
    for s in summaries {
        state.add(s);
    }
    state
}

/// The row's key group, for spreading the table-level checks: rows with equal key
/// identities get the same value (the identity's hash), a row without one its row number
/// (it can duplicate nothing). Grouping rows by this value modulo any count gives
/// groups fit for [`key_group`].
pub fn group_key(summary: &RowSummary) -> u64 {
    match &summary.identity {
        Some(id) => table_checks::identity_hash(id),
        None => summary.number as u64,
    }
}

/// Stage one of the split table-level checks, over one key group: rows whose key
/// identities no other group holds (e.g. all rows whose identity hashes to one
/// partition), in row order. Returns the group's key-integrity findings (check 5, final)
/// and what the whole-table checks need from it.
pub fn key_group(
    prepared: &Prepared,
    index: &Index,
    summaries: impl IntoIterator<Item = RowSummary>,
) -> (Vec<Finding>, TablePart) {
    let ctx = prepared.ctx(index);
    let state = folded(summaries);
    (table_checks::key_findings(&ctx, &state), state.part(&ctx))
}

/// Stage two: the whole-table checks (9–12) over every group's [`TablePart`], in any
/// order; `rows` is the number of rows of the table.
pub fn merged_findings(
    prepared: &Prepared,
    index: &Index,
    parts: impl IntoIterator<Item = TablePart>,
    rows: usize,
) -> Result<Vec<Finding>, IndexError> {
    let ctx = prepared.ctx(index);
    let mut state = TableState::default();
    for p in parts {
        state.absorb(p);
    }
    table_checks::whole_table_of(&ctx, &state, rows)
}
