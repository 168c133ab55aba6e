//! Counting the items of a cited table or list, straight from the index: what the
//! cardinality check compares a staged table's row count with.
//!
//! A table's items are its data rows, minus note rows (one cell spanning every column:
//! "Basin areas vary between sources…"). A section's items are its top-level list items
//! outside tables.

use crate::index::IndexError;
use crate::locator::{Locator, Resolution, Resolver, Target};

/// One counted item: the text of its key cell (or list item) and the pages it links to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub key: String,
    pub pages: Vec<u32>,
    /// The row's cells (empty for list items), for filtering.
    pub cells: Vec<(Option<String>, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemCount {
    pub page: String,
    /// `table 1`, `list in section Rivers`.
    pub what: String,
    pub items: Vec<Item>,
}

/// Counts the items the locator names: a table (`table:N`, rows), or a section or page
/// (its list items). `key_col` picks the key cell of table rows (default: column 0).
pub fn count_items(
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
    let index = resolver.index();
    let final_of = |ns: i32, key: &str| -> Result<Option<u32>, IndexError> {
        match index.find(ns, key) {
            Some(p) => crate::locator::final_page(index, p).map(Some),
            None => Ok(None),
        }
    };
    if let Target::Table { .. } = loc.target
        && let crate::locator::Content::Table { table, .. } = &r.content
    {
        let t = &s.tables[table - 1];
        let labels = t.column_labels();
        let h = t.header_rows();
        let cols = t.columns as usize;
        let kc = match key_col {
            Some(super::contract::SourceCol::Index(i)) => *i,
            Some(super::contract::SourceCol::Header(hd)) => {
                let want = super::values::fold(hd);
                labels
                    .iter()
                    .position(|l| l.as_deref().is_some_and(|l| super::values::fold(l) == want))
                    .unwrap_or(0)
            }
            None => 0,
        };
        let mut items = Vec::new();
        for (ri, row) in t.rows.iter().enumerate().skip(h) {
            let note = cols > 1 && row.cells.len() == 1 && row.cells[0].colspan as usize >= cols;
            if note {
                continue;
            }
            let cell = t.cell_at(ri, kc);
            let mut pages = Vec::new();
            for &li in cell.map(|c| &c.links[..]).unwrap_or(&[]) {
                if let Some(l) = s.links.get(li as usize)
                    && let Some(p) = final_of(l.ns, &l.dbkey)?
                {
                    pages.push(p);
                }
            }
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
            let mut pages = Vec::new();
            if let Some(&li) = it.links.first()
                && let Some(l) = s.links.get(li as usize)
                && let Some(p) = final_of(l.ns, &l.dbkey)?
            {
                pages.push(p);
            }
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
