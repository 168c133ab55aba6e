//! When the question asks for a column of the kept rows themselves ("what year …" over
//! a table with a Year column), the rows hold the answer: the planner says so beside
//! the pages (the `answer_in_row` rule).

use super::{AnswerInRow, Planning, UnitScores, Units};
use crate::frontier::Seed;
use crate::frontier::question::{AskedFor, asked_column, asked_for, asks_which_row};
use crate::frontier::rows::Unit;

impl Planning<'_> {
    /// When the rule is on: whether the question asks for a column of the kept rows.
    pub(super) fn answer_in_row(&self, units: &Units, scored: &UnitScores) -> Option<AnswerInRow> {
        if !self.opts.rules.answer_in_row {
            return None;
        }
        let kept_rows: Vec<(usize, usize)> = (0..units.texts.len())
            .filter(|&i| scored.kept(i))
            .map(|i| match units.texts[i].0 {
                Unit::Row { table, row } => Some((table, row)),
                Unit::Item(_) => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        asked_for(&self.opts.query, &self.seed.page.title)
            .filter(AskedFor::names_a_thing)
            .and_then(|a| answered_by_row(self.seed, &scored.labels, &kept_rows, &a))
            .or_else(|| {
                // "Which one is older": the row's entity is the answer; its key cell
                // names it.
                let words = asks_which_row(&self.opts.query)?;
                let table = kept_rows.first()?.0;
                let key = self.seed.rows(table - 1).key?;
                let label = scored.labels.get(table - 1)?.get(key).cloned().flatten();
                row_answer(self.seed, &kept_rows, key, label.unwrap_or_default(), words)
            })
    }
}

/// Whether the kept rows answer the question themselves: the question's wh-phrase names
/// a column of their table, and [`row_answer`] finds the answer there.
fn answered_by_row(
    seed: &Seed,
    labels: &[Vec<Option<String>>],
    kept_rows: &[(usize, usize)],
    asked: &AskedFor,
) -> Option<AnswerInRow> {
    let table = kept_rows.first()?.0;
    let col = asked_column(asked, labels.get(table - 1)?, &seed.page.title)?;
    let head: Vec<&str> = asked.head.iter().map(|t| t.folded.as_str()).collect();
    let words = format!("{} … {}", asked.wh, head.join(" "));
    row_answer(seed, kept_rows, col.col, col.label, words)
}

/// The kept rows' cells in column `col`, when the kept rows are rows of one table and
/// every one of them has a value there: the answer the rows hold.
fn row_answer(
    seed: &Seed,
    kept_rows: &[(usize, usize)],
    col: usize,
    label: String,
    asked: String,
) -> Option<AnswerInRow> {
    let table = kept_rows.first()?.0;
    if kept_rows.iter().any(|&(t, _)| t != table) {
        return None;
    }
    let rows = &seed.rows(table - 1).rows;
    let values = kept_rows
        .iter()
        .map(|&(_, r)| {
            let cell = rows.get(r)?.cells.iter().find(|c| c.col == col)?;
            let v = cell.text.trim();
            (!v.is_empty()).then(|| v.to_string())
        })
        .collect::<Option<Vec<String>>>()?;
    Some(AnswerInRow {
        table,
        rows: kept_rows.iter().map(|&(_, r)| r).collect(),
        col,
        label,
        asked,
        values,
    })
}
