//! `wikiwit export`: index contents as TSV with the columns of MediaWiki's own tables
//! (as in `../shared/oracle/*/pages.tsv` and `redirects.tsv`), so they can be diffed
//! against MediaWiki and loaded into pandas; JSON lines for sections and sentences; the
//! same rows as Arrow record batches and Parquet files ([`arrow`], `docs/parquet.md`).

pub mod arrow;
pub mod rows;

use std::io::Write;

use crate::index::{Index, IndexError};

pub use rows::{Cell, Column, Table};

/// Errors while exporting: the index's or the output's.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
    #[error("writing the Parquet file: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("building Arrow record batches: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// Tabs and line breaks cannot occur in valid titles; escape them anyway so one record is
/// always one line.
fn field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['\t', '\n', '\r']) {
        s.replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .into()
    } else {
        s.into()
    }
}

/// Writes `table` as TSV (pages, redirects, links, categories, templates) or JSON lines
/// (sections, text): the command's default format.
pub fn write_text(index: &Index, table: Table, out: &mut dyn Write) -> Result<(), ExportError> {
    match table {
        Table::Sections => sections(index, out),
        Table::Text => text(index, out),
        _ => tsv(index, table, out),
    }
}

/// One line per row, cells tab-separated; booleans as `0`/`1`, nulls as empty fields.
fn tsv(index: &Index, table: Table, out: &mut dyn Write) -> Result<(), ExportError> {
    rows::walk(index, table, &mut |cells| {
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                out.write_all(b"\t")?;
            }
            match c {
                Cell::Int(n) => write!(out, "{n}")?,
                Cell::Bool(b) => write!(out, "{}", u8::from(*b))?,
                Cell::Str(s) => out.write_all(field(s).as_bytes())?,
                Cell::Null => {}
            }
        }
        out.write_all(b"\n")?;
        Ok(())
    })
}

/// One JSON object per main-namespace, non-redirect page, like MediaWiki's
/// `action=parse&prop=sections`: `{"title", "sections": [{toclevel, level, line, number,
/// index, anchor, byteoffset}]}`. A page without headings has an empty list, which is why
/// this is written per page from [`rows::section_pages`] rather than grouped from the
/// flat `sections` rows.
fn sections(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    rows::section_pages(index, &mut |title, sections| {
        let sections: Vec<serde_json::Value> = sections
            .iter()
            .map(|x| {
                serde_json::json!({
                    "toclevel": x.toclevel,
                    "level": x.level.to_string(),
                    "line": x.heading,
                    "number": x.number,
                    "index": x.index.to_string(),
                    "anchor": x.anchor,
                    "byteoffset": x.byteoffset,
                })
            })
            .collect();
        let obj = serde_json::json!({ "title": title, "sections": sections });
        serde_json::to_writer(&mut *out, &obj).map_err(std::io::Error::from)?;
        writeln!(out)?;
        Ok(())
    })
}

/// One JSON object per sentence: `{"title", "section", "anchor", "sentence", "kind",
/// "start", "end", "text"}`, pages in dump order (redirects and pages without text
/// skipped). Needs an index built with text.
fn text(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    let columns = Table::Text.columns();
    rows::walk(index, Table::Text, &mut |cells| {
        let obj: serde_json::Map<String, serde_json::Value> = columns
            .iter()
            .zip(cells)
            .map(|(c, v)| {
                let v = match v {
                    Cell::Int(n) => serde_json::Value::from(*n),
                    Cell::Bool(b) => serde_json::Value::from(*b),
                    Cell::Str(s) => serde_json::Value::from(*s),
                    Cell::Null => serde_json::Value::Null,
                };
                (c.name.to_string(), v)
            })
            .collect();
        serde_json::to_writer(&mut *out, &obj).map_err(std::io::Error::from)?;
        writeln!(out)?;
        Ok(())
    })
}
