//! Key cells without a link (the `entity-page` operator inside the plan): the text of a
//! kept row's key cell may still name a page, found by title and redirects.

use std::collections::BTreeMap;

use super::PlanOptions;
use crate::frontier::operators::{EntityNames, OperatorResult, Unresolved};
use crate::frontier::rows::{Unit, cell_locator};
use crate::frontier::{Candidate, FrontierError, LinkedFrom, Seed};
use crate::index::Index;

/// Key cells of kept rows that have no link: their text may still name a page.
type KeyCells = (Vec<Candidate>, Vec<Unresolved>);

pub(super) fn resolve_key_cells(
    index: &Index,
    seed: &Seed,
    opts: &PlanOptions,
    unit_of: &BTreeMap<Unit, usize>,
    kept: &dyn Fn(usize) -> bool,
) -> Result<KeyCells, FrontierError> {
    let page = &seed.page;
    // Built once from the seed, whatever the number of key cells to resolve.
    let names = EntityNames::new(index, Some(seed))?;
    let mut out = (Vec::new(), Vec::new());
    for ti in 0..seed.s.tables.len() {
        let tn = ti + 1;
        if opts.table.is_some_and(|n| n != tn) {
            continue;
        }
        let crate::frontier::TableRows { rows, key } = seed.rows(ti);
        let Some(key) = *key else {
            continue;
        };
        for row in rows {
            let unit = Unit::Row {
                table: tn,
                row: row.row,
            };
            if !unit_of.get(&unit).is_some_and(|&i| kept(i)) {
                continue;
            }
            let Some(cell) = row.cells.iter().find(|c| c.col == key) else {
                continue;
            };
            if !cell.links.is_empty() || cell.text.trim().is_empty() {
                continue;
            }
            let mut r = OperatorResult::new("entity-page");
            names.resolve(&cell.text, &mut r)?;
            let locator = cell_locator(&page.title, tn, row.row, key);
            for mut c in r.candidates {
                if let Some(first) = c.chain.first_mut() {
                    first.locator = locator.clone();
                }
                c.context = row.text.clone();
                c.in_key_column = true;
                c.linked_from = Some(LinkedFrom::Cell {
                    table: tn,
                    row: row.row,
                    col: key,
                });
                out.0.push(c);
            }
            for mut u in r.unresolved {
                u.locator = locator.clone();
                u.row = Some(unit);
                out.1.push(u);
            }
        }
    }
    Ok(out)
}
