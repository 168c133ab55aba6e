//! The export tables as typed rows: one walk per table, read alike by the TSV / JSON
//! lines writers and the Arrow / Parquet writer, so every format carries the same rows
//! and values.

use crate::index::{Index, IndexError, PageRecord};
use crate::wikitext::{PageStructure, Section};

use super::ExportError;

/// The tables `wikiwit export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Pages,
    Redirects,
    Links,
    Categories,
    Templates,
    Sections,
    Text,
}

impl Table {
    pub const ALL: [Table; 7] = [
        Table::Pages,
        Table::Redirects,
        Table::Links,
        Table::Categories,
        Table::Templates,
        Table::Sections,
        Table::Text,
    ];

    /// The name used on the command line and in the Python package.
    pub fn name(self) -> &'static str {
        match self {
            Table::Pages => "pages",
            Table::Redirects => "redirects",
            Table::Links => "links",
            Table::Categories => "categories",
            Table::Templates => "templates",
            Table::Sections => "sections",
            Table::Text => "text",
        }
    }

    /// The table called `name`, if any.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The table's columns, in order (documented in `docs/parquet.md`).
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Pages => PAGES,
            Table::Redirects => REDIRECTS,
            Table::Links => LINKS,
            Table::Categories => CATEGORIES,
            Table::Templates => TEMPLATES,
            Table::Sections => SECTIONS,
            Table::Text => TEXT,
        }
    }
}

use ColumnType::{Bool, Int32, Int64, Utf8};

const fn c(name: &'static str, ty: ColumnType) -> Column {
    Column {
        name,
        ty,
        nullable: false,
    }
}

const fn opt(name: &'static str, ty: ColumnType) -> Column {
    Column {
        name,
        ty,
        nullable: true,
    }
}

const PAGES: &[Column] = &[
    c("page_id", Int64),
    c("namespace", Int32),
    c("title", Utf8),
    c("is_redirect", Bool),
];

const REDIRECTS: &[Column] = &[
    c("from_ns", Int32),
    c("from_title", Utf8),
    c("to_ns", Int32),
    c("to_title", Utf8),
    opt("fragment", Utf8),
];

const LINKS: &[Column] = &[
    c("from_ns", Int32),
    c("from_title", Utf8),
    c("to_ns", Int32),
    c("to_title", Utf8),
    c("context", Utf8),
    c("in_template", Bool),
    c("origin", Utf8),
];

const CATEGORIES: &[Column] = &[
    c("from_ns", Int32),
    c("from_title", Utf8),
    c("category", Utf8),
    c("in_template", Bool),
    c("origin", Utf8),
];

const TEMPLATES: &[Column] = &[
    c("from_ns", Int32),
    c("from_title", Utf8),
    c("template_ns", Int32),
    c("template_title", Utf8),
    c("direct", Bool),
    c("origin", Utf8),
];

const SECTIONS: &[Column] = &[
    c("title", Utf8),
    c("index", Int32),
    c("toclevel", Int32),
    c("level", Int32),
    c("line", Utf8),
    c("number", Utf8),
    c("anchor", Utf8),
    c("byteoffset", Int64),
];

const TEXT: &[Column] = &[
    c("title", Utf8),
    c("section", Int32),
    opt("anchor", Utf8),
    c("sentence", Int32),
    c("kind", Utf8),
    c("start", Int64),
    c("end", Int64),
    c("text", Utf8),
];

/// A column's value type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int32,
    Int64,
    Bool,
    Utf8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub ty: ColumnType,
    /// Whether the column holds nulls (a redirect without fragment, the lead's anchor).
    pub nullable: bool,
}

/// One value of a row, borrowed from the record being walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell<'a> {
    Int(i64),
    Bool(bool),
    Str(&'a str),
    Null,
}

/// Called with each row, cells in [`Table::columns`] order.
pub(crate) type RowSink<'s> = dyn FnMut(&[Cell<'_>]) -> Result<(), ExportError> + 's;

/// Walks `table`'s rows in dump order. Tables beyond pages and redirects fail on a
/// pages-only index before the first row; `text` fails on an index built without text.
pub(crate) fn walk(index: &Index, table: Table, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    match table {
        Table::Pages => pages(index, sink),
        Table::Redirects => redirects(index, sink),
        Table::Links => links(index, sink),
        Table::Categories => categories(index, sink),
        Table::Templates => templates(index, sink),
        Table::Sections => sections(index, sink),
        Table::Text => text(index, sink),
    }
}

/// Every page that holds its title, with its structure, in dump order: the walks' common
/// loop. A page shadowed by a duplicate title is left out (for MediaWiki it does not
/// exist); a record or block that does not read is yielded as the error before any
/// filtering, so a damaged block ends the walk.
pub(crate) fn held_pages(
    index: &Index,
) -> Result<impl Iterator<Item = Result<(PageRecord, PageStructure), IndexError>> + '_, IndexError>
{
    Ok(index
        .pages()
        .zip(index.structures()?)
        .enumerate()
        .filter_map(|(n, (p, s))| match (p, s) {
            (Ok(p), Ok(s)) => (!index.is_shadowed(n as u32, &p)).then_some(Ok((p, s))),
            (Err(e), _) | (_, Err(e)) => Some(Err(e)),
        }))
}

fn int(n: impl Into<i64>) -> Cell<'static> {
    Cell::Int(n.into())
}

fn pages(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    for (n, p) in index.pages().enumerate() {
        let p = p?;
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        // Page ids are MediaWiki's unsigned 32-bit `page_id`s; a larger one would be a
        // damaged record, reported rather than wrapped.
        let id = i64::try_from(p.id).map_err(|_| IndexError::DataCorruption {
            path: index.dir().join("pages.rec"),
            comment: format!("page {:?} has id {}, beyond 2^63", p.dbkey, p.id),
        })?;
        sink(&[
            Cell::Int(id),
            int(p.ns),
            Cell::Str(&p.dbkey),
            Cell::Bool(p.redirect.is_some()),
        ])?;
    }
    Ok(())
}

/// As in MediaWiki's `redirect` table, an interwiki redirect lists the title on the other
/// wiki without its prefix (MediaWiki keeps the prefix in `rd_interwiki`).
fn redirects(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    for (n, p) in index.pages().enumerate() {
        let p = p?;
        if index.is_shadowed(n as u32, &p) {
            continue;
        }
        let Some(r) = &p.redirect else { continue };
        sink(&[
            int(p.ns),
            Cell::Str(&p.dbkey),
            int(r.ns),
            Cell::Str(&r.dbkey),
            r.fragment.as_deref().map_or(Cell::Null, Cell::Str),
        ])?;
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

/// Every distinct link (as written, normalized, not redirect-resolved — as MediaWiki's
/// `pagelinks`), with where it sits and where it comes from. A target linked from several
/// contexts appears once per context.
fn links(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    for page in held_pages(index)? {
        let (p, s) = page?;
        let mut rows: Vec<(i32, &str, &str, bool, String)> = s
            .links
            .iter()
            .map(|l| {
                let o = origin(index, &l.origin);
                (l.ns, l.dbkey.as_str(), l.context.as_str(), l.in_template, o)
            })
            .collect();
        rows.sort_unstable();
        rows.dedup();
        for (ns, k, ctx, t, o) in &rows {
            sink(&[
                int(p.ns),
                Cell::Str(&p.dbkey),
                int(*ns),
                Cell::Str(k),
                Cell::Str(ctx),
                Cell::Bool(*t),
                Cell::Str(o),
            ])?;
        }
    }
    Ok(())
}

fn categories(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    for page in held_pages(index)? {
        let (p, s) = page?;
        let mut rows: Vec<(&str, bool, String)> = s
            .categories
            .iter()
            .map(|c| (c.dbkey.as_str(), c.in_template, origin(index, &c.origin)))
            .collect();
        rows.sort_unstable();
        rows.dedup();
        for (c, t, o) in &rows {
            sink(&[
                int(p.ns),
                Cell::Str(&p.dbkey),
                Cell::Str(c),
                Cell::Bool(*t),
                Cell::Str(o),
            ])?;
        }
    }
    Ok(())
}

fn templates(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    for page in held_pages(index)? {
        let (p, s) = page?;
        let mut rows: Vec<(i32, &str, bool, String)> = s
            .templates
            .iter()
            .map(|t| (t.ns, t.dbkey.as_str(), t.direct, origin(index, &t.origin)))
            .collect();
        rows.sort_unstable();
        // A template called both directly and from arguments is direct; called both in
        // the page's text and through another template, it is the page's own.
        rows.dedup_by(|a, b| {
            a.0 == b.0 && a.1 == b.1 && {
                b.2 = b.2 || a.2;
                if a.3 == "own" {
                    b.3 = std::mem::take(&mut a.3);
                }
                true
            }
        });
        for (ns, k, d, o) in &rows {
            sink(&[
                int(p.ns),
                Cell::Str(&p.dbkey),
                int(*ns),
                Cell::Str(k),
                Cell::Bool(*d),
                Cell::Str(o),
            ])?;
        }
    }
    Ok(())
}

/// Called with each page's title and sections by [`section_pages`].
pub(crate) type SectionSink<'s> = dyn FnMut(&str, &[Section]) -> Result<(), ExportError> + 's;

/// The main-namespace, non-redirect pages that hold their title, each with its title
/// and sections, in dump order: the one walk both sections exports are written from
/// (a row per section here, an object per page — headings or not — in JSON lines).
pub(crate) fn section_pages(index: &Index, each: &mut SectionSink<'_>) -> Result<(), ExportError> {
    for page in held_pages(index)? {
        let (p, s) = page?;
        if p.ns != crate::title::NS_MAIN || p.redirect.is_some() {
            continue;
        }
        each(&index.display_title(&p), &s.sections)?;
    }
    Ok(())
}

/// One row per section of [`section_pages`], with the fields of MediaWiki's
/// `action=parse&prop=sections` (there strings, here `index` and `level` are integers).
fn sections(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
    section_pages(index, &mut |title, sections| {
        for x in sections {
            sink(&[
                Cell::Str(title),
                int(x.index),
                int(x.toclevel),
                int(x.level),
                Cell::Str(&x.heading),
                Cell::Str(&x.number),
                Cell::Str(&x.anchor),
                int(x.byteoffset),
            ])?;
        }
        Ok(())
    })
}

/// One row per sentence, pages in dump order (redirects and pages without text skipped).
fn text(index: &Index, sink: &mut RowSink<'_>) -> Result<(), ExportError> {
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
            let kind = match x.kind {
                crate::text::SentenceKind::Prose => "prose",
                crate::text::SentenceKind::List => "list",
                crate::text::SentenceKind::Table => "table",
                crate::text::SentenceKind::Infobox => "infobox",
            };
            let i = i64::try_from(i).unwrap_or(i64::MAX);
            sink(&[
                Cell::Str(&title),
                int(sec),
                anchor.as_deref().map_or(Cell::Null, Cell::Str),
                Cell::Int(i),
                Cell::Str(kind),
                int(x.start),
                int(x.end),
                Cell::Str(&x.text),
            ])?;
        }
    }
    Ok(())
}
