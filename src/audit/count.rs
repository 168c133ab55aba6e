//! Counting the items of a cited table or list, straight from the index: what the
//! cardinality check compares a staged table's row count with.
//!
//! A table's items are its data rows, minus note rows (one cell spanning every column:
//! "Basin areas vary between sources…"). A section's items are its top-level list items
//! outside tables.

use crate::index::{IndexError, NO_PAGE};
use crate::locator::{Locator, Resolution, Resolver, Target};
use crate::wikitext::Table;

/// One counted item: the text of its key cell (or list item) and the pages it links to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub key: String,
    pub pages: Vec<u32>,
    /// The row's cells (empty for list items), for filtering.
    pub cells: Vec<(Option<String>, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemCount {
    pub page: String,
    /// `table 1`, `list in section Rivers`.
    pub what: String,
    pub items: Vec<Item>,
}

/// Counts the items the locator names: a table (`table:N`, rows), or a section or page
/// (its list items). `key_col` picks the key cell of table rows (default: column 0).
pub(crate) fn count_items(
    resolver: &Resolver<'_>,
    loc: &Locator,
    key_col: Option<&super::contract::SourceCol>,
) -> Result<Result<ItemCount, String>, IndexError> {
    let r = match resolver.resolve(loc)? {
        Resolution::Found(r) => *r,
        Resolution::Unresolved(u) => return Ok(Err(u.to_string())),
    };
    let page = resolver.page(r.number)?;
    let s = &page.structure;
    // The final page of a link, looked up once per page and shared with the rows that
    // cite it.
    let final_of = |li: u32| -> Result<Option<u32>, IndexError> {
        let p = page.link_target(resolver.index(), li)?;
        Ok((p != NO_PAGE).then_some(p))
    };
    if let Target::Table { .. } = loc.target
        && let crate::locator::Content::Table { table, .. } = &r.content
    {
        let t = &s.tables[table - 1];
        let labels = t.column_labels();
        let h = t.header_rows();
        let cols = t.columns as usize;
        let kc = key_col
            .and_then(|sc| sc.position(labels.iter().map(|l| l.as_deref())).ok())
            .unwrap_or(0);
        let mut items = Vec::new();
        for ri in h..t.rows.len() {
            if is_note_row(t, ri) {
                continue;
            }
            let cell = t.cell_at(ri, kc);
            let pages = match cell {
                Some(c) => c
                    .links
                    .iter()
                    .filter_map(|&li| final_of(li).transpose())
                    .collect::<Result<_, _>>()?,
                None => Vec::new(),
            };
            items.push(Item {
                key: cell.map(|c| c.text.clone()).unwrap_or_default(),
                pages,
                cells: (0..cols)
                    .map(|c| {
                        (
                            labels.get(c).cloned().flatten(),
                            t.cell_at(ri, c).map(|x| x.text.clone()).unwrap_or_default(),
                        )
                    })
                    .collect(),
            });
        }
        return Ok(Ok(ItemCount {
            page: r.page,
            what: format!("table {table}"),
            items,
        }));
    }
    if matches!(loc.target, Target::Page | Target::Section) {
        let sec = r.section.as_ref().map_or(0, |x| x.number);
        let mut items = Vec::new();
        for it in s
            .lists
            .iter()
            .filter(|i| i.section == sec && i.depth == 1 && !i.in_table)
        {
            let pages = match it.links.first() {
                Some(&li) => final_of(li)?.into_iter().collect(),
                None => Vec::new(),
            };
            items.push(Item {
                key: it.text.clone(),
                pages,
                cells: Vec::new(),
            });
        }
        let what = match r.section.as_ref().and_then(|x| x.anchor.clone()) {
            Some(a) => format!("list in section {a}"),
            None => "list in the lead".into(),
        };
        return Ok(Ok(ItemCount {
            page: r.page,
            what,
            items,
        }));
    }
    Ok(Err(format!(
        "{loc} names neither a table (table:N) nor a section or page with a list"
    )))
}

/// Whether grid row `row` is a note ("Basin areas vary between sources…"): one cell
/// spanning every column of a table of several. Not an item of the table.
pub fn is_note_row(t: &Table, row: usize) -> bool {
    let cols = t.columns as usize;
    t.rows
        .get(row)
        .is_some_and(|r| cols > 1 && r.cells.len() == 1 && r.cells[0].colspan as usize >= cols)
}
