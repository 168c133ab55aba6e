//! The audit in pieces, for engines that spread rows over machines (Spark): the row-level
//! checks run on any subset of the rows, anywhere, and return with each row's findings a
//! [`RowSummary`]; the table-level checks (key integrity, cardinality, coverage,
//! provenance, exhaustiveness) then run once over every row's summary, folded in row
//! order. Together they give the findings [`super::audit`] writes for the same rows,
//! whatever the split.

use super::rows::{Format, RowItem, parse_json_row};
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
    rows.iter()
        .map(|r| {
            let item: RowItem = parse_json_row(r.json, r.number, r.line);
            let o = row_checks::check(&ctx, &item, Format::Jsonl)?;
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
    let mut state = TableState::default();
    for s in summaries {
        state.add(s);
    }
    table_checks::run(&ctx, &state, rows)
}
