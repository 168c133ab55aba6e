//! `wikiwit table TITLE N [--row R]` and `wikiwit infobox TITLE [FIELD]`.
//!
//! Tables are numbered from 1 in document order (nested tables included), rows of a
//! table from 0 *after its header rows* (a data row, as a reader counts them), columns
//! from 0 on the grid with row and column spans expanded.

use serde::Serialize;

use super::{QueryError, find_page, section_anchor};
use crate::index::Index;
use crate::wikitext::Infobox;

#[derive(Debug, Serialize)]
pub struct CellView {
    pub text: String,
    pub header: bool,
    /// Link targets in the cell.
    pub links: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct RowView {
    pub page: String,
    pub table: usize,
    /// 0-based data row.
    pub row: usize,
    pub labels: Vec<Option<String>>,
    pub cells: Vec<CellView>,
}

#[derive(Debug, Serialize)]
pub struct TableView {
    pub page: String,
    pub table: usize,
    pub caption: String,
    pub section: Option<String>,
    pub attrs: String,
    pub labels: Vec<Option<String>>,
    /// Data rows, spans expanded: one text per grid column.
    pub rows: Vec<Vec<String>>,
}

fn load(
    index: &Index,
    title: &str,
    n: usize,
) -> Result<(super::Found, crate::wikitext::PageStructure), QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    if n == 0 || n > s.tables.len() {
        return Err(QueryError::NotFound(format!(
            "{:?} has {} table(s); there is no table {n}",
            page.title,
            s.tables.len()
        )));
    }
    Ok((page, s))
}

pub fn table(index: &Index, title: &str, n: usize) -> Result<TableView, QueryError> {
    let (page, s) = load(index, title, n)?;
    let t = &s.tables[n - 1];
    let h = t.header_rows();
    let grid = t.grid();
    Ok(TableView {
        page: page.title.clone(),
        table: n,
        caption: t.caption.clone(),
        section: section_anchor(&s, t.section),
        attrs: t.attrs.clone(),
        labels: t.column_labels(),
        rows: grid[h..]
            .iter()
            .map(|r| {
                r.iter()
                    .map(|c| c.map(|c| c.text.clone()).unwrap_or_default())
                    .collect()
            })
            .collect(),
    })
}

pub fn table_row(index: &Index, title: &str, n: usize, row: usize) -> Result<RowView, QueryError> {
    let (page, s) = load(index, title, n)?;
    let t = &s.tables[n - 1];
    let h = t.header_rows();
    if row >= t.data_rows() {
        return Err(QueryError::NotFound(format!(
            "table {n} of {:?} has {} data row(s); there is no row {row}",
            page.title,
            t.data_rows()
        )));
    }
    let cols = t.columns as usize;
    let cells = (0..cols)
        .map(|c| match t.cell_at(h + row, c) {
            Some(cell) => CellView {
                text: cell.text.clone(),
                header: cell.header,
                links: cell
                    .links
                    .iter()
                    .filter_map(|&i| s.links.get(i as usize))
                    .map(|l| index.codec().prefixed_text(l.ns, &l.dbkey))
                    .collect(),
            },
            None => CellView {
                text: String::new(),
                header: false,
                links: Vec::new(),
            },
        })
        .collect();
    Ok(RowView {
        page: page.title.clone(),
        table: n,
        row,
        labels: t.column_labels(),
        cells,
    })
}

/// The page's infoboxes (all of them; most pages have one).
pub fn infobox(
    index: &Index,
    title: &str,
) -> Result<(super::Found, Vec<Infobox>, crate::wikitext::PageStructure), QueryError> {
    let page = find_page(index, title)?;
    let s = index.structure(page.number)?;
    if s.infoboxes.is_empty() {
        return Err(QueryError::NotFound(format!(
            "{:?} has no infobox",
            page.title
        )));
    }
    let boxes = s.infoboxes.clone();
    Ok((page, boxes, s))
}

/// One infobox field: its plain text, its wikitext, and the link targets in it.
#[derive(Debug, Serialize)]
pub struct FieldView {
    pub page: String,
    pub field: String,
    pub text: String,
    pub raw: String,
    pub links: Vec<String>,
}

/// Field `name` of the page's infoboxes, matched as editors write names: case and
/// spaces versus underscores do not matter.
pub fn infobox_field(index: &Index, title: &str, name: &str) -> Result<FieldView, QueryError> {
    let (page, boxes, s) = infobox(index, title)?;
    let want = name.trim().to_lowercase().replace(' ', "_");
    let field = boxes
        .iter()
        .flat_map(|b| b.fields.iter())
        .find(|x| x.name.to_lowercase().replace(' ', "_") == want)
        .ok_or_else(|| {
            QueryError::NotFound(format!(
                "the infobox of {:?} has no field {name:?}",
                page.title
            ))
        })?;
    Ok(FieldView {
        page: page.title.clone(),
        field: field.name.clone(),
        text: field.text.clone(),
        raw: field.raw.clone(),
        links: field
            .links
            .iter()
            .filter_map(|&i| s.links.get(i as usize))
            .map(|l| index.codec().prefixed_text(l.ns, &l.dbkey))
            .collect(),
    })
}
