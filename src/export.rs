//! `wikiwit export`: index contents as TSV with the columns of MediaWiki's own tables
//! (as in `../shared/oracle/*/pages.tsv` and `redirects.tsv`), so they can be diffed
//! against MediaWiki and loaded into pandas.

use std::io::Write;

use crate::index::{Index, IndexError};

/// Errors while exporting: the index's or the output's.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
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

/// `page_id, namespace, title, is_redirect` for every page, in dump order.
pub fn pages(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    for n in 0..index.page_count() {
        let p = index.page(n as u32)?;
        writeln!(
            out,
            "{}\t{}\t{}\t{}",
            p.id,
            p.ns,
            field(&p.dbkey),
            u8::from(p.redirect.is_some())
        )?;
    }
    Ok(())
}

/// `from_ns, from_title, to_ns, to_title, fragment` for every redirect. As in
/// MediaWiki's `redirect` table, an interwiki redirect lists the title on the other wiki
/// without its prefix (MediaWiki keeps the prefix in `rd_interwiki`).
pub fn redirects(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    for n in 0..index.page_count() {
        let p = index.page(n as u32)?;
        let Some(r) = &p.redirect else { continue };
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}",
            p.ns,
            field(&p.dbkey),
            r.ns,
            field(&r.dbkey),
            field(r.fragment.as_deref().unwrap_or(""))
        )?;
    }
    Ok(())
}
