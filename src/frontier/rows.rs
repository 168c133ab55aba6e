//! Table rows read for matching: every grid cell of a data row (row and column spans
//! expanded, so a cell spanning three rows belongs to each), as `label: value` text, and
//! the row's key column.

use crate::locator::{Column, Locator, PageSpec, Target};
use crate::wikitext::Table;

/// One grid cell of a data row.
#[derive(Debug, Clone)]
pub(crate) struct CellRead {
    pub col: usize,
    pub label: Option<String>,
    pub text: String,
    /// Indices into the page's links.
    pub links: Vec<u32>,
}

/// One data row (0-based, header rows not counted).
#[derive(Debug, Clone)]
pub(crate) struct RowRead {
    pub row: usize,
    /// `label: value; label: value`, as the text index reads table rows.
    pub text: String,
    pub cells: Vec<CellRead>,
}

/// A row or list item of the seed: what the planner scores and keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Unit {
    /// Data row `row` (0-based) of table `table` (1-based, page-wide).
    Row { table: usize, row: usize },
    /// List item `item` (0-based, page-wide).
    Item(usize),
}

impl Unit {
    /// Where the unit is on `title`, as a locator (`Seed|table:2|row:5`, `Seed|item:3`).
    pub fn locator(self, title: &str) -> String {
        match self {
            Unit::Row { table, row } => locator(title, Target::Row { table, row }),
            Unit::Item(item) => locator(title, Target::Item { item }),
        }
    }

    /// The table a row belongs to; list items form one group (`None`).
    pub fn group(self) -> Option<usize> {
        match self {
            Unit::Row { table, .. } => Some(table),
            Unit::Item(_) => None,
        }
    }
}

/// The locator of `target` on page `title`, in the grammar `wikiwit locate` reads, so
/// every place the frontier reports resolves.
pub(crate) fn locator(title: &str, target: Target) -> String {
    Locator {
        page: Some(PageSpec::titled(title)),
        section: None,
        target,
    }
    .to_string()
}

/// Where a cell is: table (1-based), data row and grid column (0-based).
pub(crate) fn cell_locator(title: &str, table: usize, row: usize, col: usize) -> String {
    let col = Column::Index(col);
    locator(title, Target::Cell { table, row, col })
}

/// The data rows of `t`.
pub(crate) fn read_rows(t: &Table) -> Vec<RowRead> {
    let h = t.header_rows();
    let labels = t.column_labels();
    (h..t.rows.len())
        .map(|r| {
            let mut cells: Vec<CellRead> = Vec::new();
            let mut last: Option<&crate::wikitext::Cell> = None;
            for c in 0..t.columns as usize {
                let Some(cell) = t.cell_at(r, c) else {
                    continue;
                };
                // A column span shows the same cell several times; read it once.
                if last.is_some_and(|l| std::ptr::eq(l, cell)) {
                    continue;
                }
                last = Some(cell);
                cells.push(CellRead {
                    col: c,
                    label: labels.get(c).cloned().flatten(),
                    text: cell.text.clone(),
                    links: cell.links.clone(),
                });
            }
            let text = cells
                .iter()
                .filter(|c| !c.text.is_empty())
                .map(|c| match &c.label {
                    Some(l) => format!("{l}: {}", c.text),
                    None => c.text.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ");
            RowRead {
                row: r - h,
                text,
                cells,
            }
        })
        .collect()
}

/// The key column: the one naming each row's entity. It is the column whose cells are
/// most often links, among columns whose non-empty values are nearly all distinct and
/// not numbers; ties go to the leftmost column (tables put their key first). Without
/// linked columns, the leftmost distinct textual column.
pub(crate) fn key_column(rows: &[RowRead]) -> Option<usize> {
    let cols = rows
        .iter()
        .flat_map(|r| r.cells.iter().map(|c| c.col + 1))
        .max()
        .unwrap_or(0);
    let mut best: Option<(usize, usize)> = None; // (linked rows, col)
    for col in 0..cols {
        let values: Vec<&CellRead> = rows
            .iter()
            .filter_map(|r| r.cells.iter().find(|c| c.col == col))
            .filter(|c| !c.text.trim().is_empty())
            .collect();
        if values.is_empty() {
            continue;
        }
        let mut distinct: Vec<&str> = values.iter().map(|c| c.text.as_str()).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let numeric = values
            .iter()
            .filter(|c| {
                c.text
                    .chars()
                    .all(|ch| ch.is_ascii_digit() || " .,–-:/%$".contains(ch))
            })
            .count();
        if distinct.len() * 10 < values.len() * 9 || numeric * 2 > values.len() {
            continue;
        }
        let linked = values.iter().filter(|c| !c.links.is_empty()).count();
        if best.is_none_or(|(l, _)| linked > l) {
            best = Some((linked, col));
        }
    }
    best.map(|(_, c)| c)
}

/// The key-column text of `row`.
pub(crate) fn key_of(row: &RowRead, key: Option<usize>) -> Option<String> {
    let k = key?;
    row.cells
        .iter()
        .find(|c| c.col == k)
        .map(|c| c.text.clone())
        .filter(|t| !t.is_empty())
}
