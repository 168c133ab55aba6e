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
    for (n, p) in index.pages().enumerate() {
        let p = p?;
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
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
    for (n, p) in index.pages().enumerate() {
        let p = p?;
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
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

/// The `origin` column: `own` (written in the page's text) or the prefixed DB key of the
/// template whose expansion produced the row (`Template:Navbox`).
fn origin(index: &Index, o: &Option<(i32, String)>) -> String {
    match o {
        None => "own".to_string(),
        Some((ns, k)) => index.codec().prefixed_dbkey(*ns, k),
    }
}

/// `from_ns, from_title, to_ns, to_title, context, in_template, origin`: every distinct
/// link (as written, normalized, not redirect-resolved — as MediaWiki's `pagelinks`),
/// with where it sits and where it comes from (see [`origin`]). A target linked from
/// several contexts appears once per context.
pub fn links(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    for (n, (p, s)) in index.pages().zip(index.structures()?).enumerate() {
        let (p, s) = (p?, s?);
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        let mut rows: Vec<(i32, &str, &str, u8, String)> = s
            .links
            .iter()
            .map(|l| {
                (
                    l.ns,
                    l.dbkey.as_str(),
                    l.context.as_str(),
                    u8::from(l.in_template),
                    origin(index, &l.origin),
                )
            })
            .collect();
        rows.sort_unstable();
        rows.dedup();
        for (ns, k, ctx, t, o) in rows {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{}",
                p.ns,
                field(&p.dbkey),
                ns,
                field(k),
                ctx,
                t,
                field(&o)
            )?;
        }
    }
    Ok(())
}

/// `from_ns, from_title, category, in_template, origin`.
pub fn categories(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    for (n, (p, s)) in index.pages().zip(index.structures()?).enumerate() {
        let (p, s) = (p?, s?);
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        let mut rows: Vec<(&str, u8, String)> = s
            .categories
            .iter()
            .map(|c| {
                (
                    c.dbkey.as_str(),
                    u8::from(c.in_template),
                    origin(index, &c.origin),
                )
            })
            .collect();
        rows.sort_unstable();
        rows.dedup();
        for (c, t, o) in rows {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}",
                p.ns,
                field(&p.dbkey),
                field(c),
                t,
                field(&o)
            )?;
        }
    }
    Ok(())
}

/// `from_ns, from_title, template_ns, template_title, direct, origin`.
pub fn templates(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    for (n, (p, s)) in index.pages().zip(index.structures()?).enumerate() {
        let (p, s) = (p?, s?);
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        let mut rows: Vec<(i32, &str, u8, String)> = s
            .templates
            .iter()
            .map(|t| {
                (
                    t.ns,
                    t.dbkey.as_str(),
                    u8::from(t.direct),
                    origin(index, &t.origin),
                )
            })
            .collect();
        rows.sort_unstable();
        // A template called both directly and from arguments is direct; called both in
        // the page's text and through another template, it is the page's own.
        rows.dedup_by(|a, b| {
            a.0 == b.0 && a.1 == b.1 && {
                b.2 = b.2.max(a.2);
                if a.3 == "own" {
                    b.3 = std::mem::take(&mut a.3);
                }
                true
            }
        });
        for (ns, k, d, o) in rows {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}",
                p.ns,
                field(&p.dbkey),
                ns,
                field(k),
                d,
                field(&o)
            )?;
        }
    }
    Ok(())
}

/// One JSON object per main-namespace, non-redirect page, like MediaWiki's
/// `action=parse&prop=sections`: `{"title", "sections": [{toclevel, level, line, number,
/// index, anchor, byteoffset}]}`.
pub fn sections(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    for (n, (p, s)) in index.pages().zip(index.structures()?).enumerate() {
        // Checked before skipping: a damaged block ends the walks.
        let (p, s) = (p?, s?);
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        if p.ns != crate::title::NS_MAIN || p.redirect.is_some() {
            continue;
        }
        let sections: Vec<serde_json::Value> = s
            .sections
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
        let obj = serde_json::json!({ "title": index.display_title(&p), "sections": sections });
        serde_json::to_writer(&mut *out, &obj).map_err(std::io::Error::from)?;
        writeln!(out)?;
    }
    Ok(())
}

/// One JSON object per sentence: `{"title", "section", "anchor", "sentence", "kind",
/// "start", "end", "text"}`, pages in dump order (redirects and pages without text
/// skipped). Needs an index built with text.
pub fn text(index: &Index, out: &mut dyn Write) -> Result<(), ExportError> {
    let Some(texts) = index.page_texts()? else {
        return Err(ExportError::Index(IndexError::NoText {
            path: index.dir().to_path_buf(),
        }));
    };
    for (n, ((p, s), t)) in index
        .pages()
        .zip(index.structures()?)
        .zip(texts)
        .enumerate()
    {
        // Checked before skipping: a damaged block ends the walks.
        let (p, s, t) = (p?, s?, t?);
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        if p.redirect.is_some() {
            continue;
        }
        let title = index.display_title(&p);
        for (sec, i, x) in t.sentences() {
            let anchor = crate::query::section_anchor(&s, sec);
            let obj = serde_json::json!({
                "title": title, "section": sec, "anchor": anchor, "sentence": i,
                "kind": x.kind, "start": x.start, "end": x.end, "text": x.text,
            });
            serde_json::to_writer(&mut *out, &obj).map_err(std::io::Error::from)?;
            writeln!(out)?;
        }
    }
    Ok(())
}
