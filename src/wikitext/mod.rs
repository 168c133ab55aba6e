//! Wikitext → structure: links, categories, templates, sections with MediaWiki's anchors,
//! infoboxes, tables and lists, from one page's text, in linear time.
//!
//! The pipeline follows MediaWiki's parser: `preprocess` builds the template tree;
//! [`flat`] replaces templates and extension tags by markers; [`links`], [`tables`] and
//! list/heading scanning run on that text, as MediaWiki runs them on its expanded text;
//! template arguments and `<ref>` contents are analysed the same way, recursively, with
//! their links marked as coming from inside a template (`in_template`) or a reference.
//! The analysis itself does not expand templates; [`crate::expand`] turns a page into the
//! text MediaWiki's parser sees after template expansion (templates transcluded, parser
//! functions evaluated), on which [`crate::analysis`] runs the same analysis to find what
//! templates make.

mod analyze;
pub mod anchors;
pub mod flat;
pub mod known;
pub mod links;
mod list_page;
pub mod magic;
mod plaintext;
pub(crate) mod preprocess;
pub mod render;
pub mod sortkey;
pub mod tables;

use serde::{Deserialize, Serialize};

pub use analyze::analyze;
pub(crate) use analyze::{analyze_assembled, analyze_with_text, analyze_with_values};
pub(crate) use list_page::is_list_page;
pub(crate) use plaintext::{Assembled, assemble, assemble_text, assembles_to, structure_sentences};

/// Where a link sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Context {
    Prose,
    List,
    Table,
    Infobox,
    Template,
    Ref,
    Gallery,
    Caption,
}

impl Context {
    /// Every context, in the order of [`Context::as_str`]'s names.
    pub const ALL: [Context; 8] = [
        Context::Prose,
        Context::List,
        Context::Table,
        Context::Infobox,
        Context::Template,
        Context::Ref,
        Context::Gallery,
        Context::Caption,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Context::Prose => "prose",
            Context::List => "list",
            Context::Table => "table",
            Context::Infobox => "infobox",
            Context::Template => "template",
            Context::Ref => "ref",
            Context::Gallery => "gallery",
            Context::Caption => "caption",
        }
    }

    pub fn parse(s: &str) -> Option<Context> {
        Some(match s {
            "prose" => Context::Prose,
            "list" => Context::List,
            "table" => Context::Table,
            "infobox" => Context::Infobox,
            "template" => Context::Template,
            "ref" => Context::Ref,
            "gallery" => Context::Gallery,
            "caption" => Context::Caption,
            _ => return None,
        })
    }
}

/// A link to a page of this wiki (what MediaWiki records in `pagelinks`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub ns: i32,
    pub dbkey: String,
    pub fragment: Option<String>,
    /// The text a reader sees (link text plus trail).
    pub text: String,
    pub context: Context,
    /// Inside the arguments of a template call.
    pub in_template: bool,
    /// Section number: 0 for the lead, `i` for the i-th heading.
    pub section: u32,
    /// Byte range of the link in the wikitext; for a link a template made, the range
    /// of the call in the page's text that made it.
    pub start: u32,
    pub end: u32,
    /// `None`: written in the page's own text; else the template (namespace, DB key)
    /// called from the page's text whose expansion produced it.
    pub origin: Option<(i32, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryLink {
    /// Category name as a DB key (without the namespace prefix).
    pub dbkey: String,
    pub sortkey: String,
    pub in_template: bool,
    /// Byte range of `[[Category:…]]` in the wikitext, or of the call that made it.
    pub start: u32,
    pub end: u32,
    /// As [`Link::origin`].
    pub origin: Option<(i32, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateUse {
    pub ns: i32,
    pub dbkey: String,
    /// Called from the page's own text (not only from another template's arguments).
    pub direct: bool,
    /// Byte range of the call in the wikitext (links inside it belong to it); for a
    /// template used only inside another template, the range of the page's call that
    /// led to it.
    pub start: u32,
    pub end: u32,
    /// `None`: called in the page's own text; else the template called from the page's
    /// text through which it was used (as MediaWiki's `templatelinks` records it).
    pub origin: Option<(i32, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub level: u8,
    /// 1-based heading index in MediaWiki's numbering (`index` of `action=parse`).
    pub index: u32,
    /// Heading as plain text, templates rendering nothing.
    pub heading: String,
    /// Heading as MediaWiki renders it when its templates are missing
    /// (`Template:Name` text); only when the heading calls templates.
    pub heading_missing: Option<String>,
    /// Templates called in the heading (namespace, DB key).
    pub heading_templates: Vec<(i32, String)>,
    /// Anchor, assuming the heading's templates exist (see `finalize_anchors`).
    pub anchor: String,
    pub number: String,
    pub toclevel: u32,
    /// Code-point offset of the heading in the wikitext (MediaWiki's `byteoffset`).
    pub byteoffset: u32,
    /// Byte offsets in the wikitext: heading line start, body start, end of the section
    /// without and with its subsections.
    pub start: u32,
    pub body: u32,
    pub end: u32,
    pub end_with_subsections: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    /// Byte range of the `name = value` part in the wikitext.
    pub start: u32,
    pub end: u32,
    /// The value as written (wikitext, trimmed).
    pub raw: String,
    /// The value as plain text.
    pub text: String,
    /// Indices into the page's links.
    pub links: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Infobox {
    /// Template name (DB key in the Template namespace).
    pub template: String,
    /// Detected by name (`Infobox …`) or by shape (many named arguments, one per line).
    pub by_name: bool,
    pub section: u32,
    pub start: u32,
    pub end: u32,
    pub fields: Vec<Field>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    pub header: bool,
    pub text: String,
    pub links: Vec<u32>,
    pub rowspan: u16,
    pub colspan: u16,
    /// Grid column of the cell's left edge (after earlier rowspans).
    pub col: u16,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub section: u32,
    pub caption: String,
    /// Table attributes as written (`class="wikitable sortable"`).
    pub attrs: String,
    pub rows: Vec<Row>,
    /// Number of grid columns.
    pub columns: u16,
    /// 1-based number of the enclosing table, for nested tables.
    pub parent: Option<u16>,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListItem {
    pub section: u32,
    pub depth: u8,
    /// The list characters (`*`, `#`, `:`, `;` combinations, e.g. `*#`).
    pub marker: String,
    pub text: String,
    pub links: Vec<u32>,
    pub in_table: bool,
    pub start: u32,
    pub end: u32,
}

/// Everything extracted from one page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageStructure {
    pub sections: Vec<Section>,
    pub links: Vec<Link>,
    pub categories: Vec<CategoryLink>,
    pub templates: Vec<TemplateUse>,
    /// Files shown on the page (DB keys in the File namespace).
    pub images: Vec<String>,
    pub infoboxes: Vec<Infobox>,
    pub tables: Vec<Table>,
    pub lists: Vec<ListItem>,
    /// Non-fatal problems found while parsing.
    pub warnings: Vec<String>,
}

impl Table {
    /// The cell covering grid position (`row`, `col`), following row and column spans.
    pub fn cell_at(&self, row: usize, col: usize) -> Option<&Cell> {
        for r in (0..=row.min(self.rows.len().saturating_sub(1))).rev() {
            for c in &self.rows.get(r)?.cells {
                let c0 = c.col as usize;
                if col >= c0 && col < c0 + c.colspan as usize && r + c.rowspan as usize > row {
                    return Some(c);
                }
            }
        }
        None
    }

    /// Rows whose cells are all header cells.
    pub fn header_rows(&self) -> usize {
        self.rows
            .iter()
            .take_while(|r| !r.cells.is_empty() && r.cells.iter().all(|c| c.header))
            .count()
    }

    /// The table as a grid of cell references (row-major), spans expanded.
    pub fn grid(&self) -> Vec<Vec<Option<&Cell>>> {
        let cols = self.columns as usize;
        (0..self.rows.len())
            .map(|r| (0..cols).map(|c| self.cell_at(r, c)).collect())
            .collect()
    }

    /// Column labels: the last header row's cell texts, repeated over column spans;
    /// `None` for a column without a header.
    pub(crate) fn column_labels(&self) -> Vec<Option<String>> {
        let h = self.header_rows();
        let cols = self.columns as usize;
        if h == 0 {
            return vec![None; cols];
        }
        (0..cols)
            .map(|c| {
                self.cell_at(h - 1, c)
                    .map(|x| x.text.clone())
                    .filter(|t| !t.is_empty())
            })
            .collect()
    }

    /// Number of data rows (rows after the header rows).
    pub fn data_rows(&self) -> usize {
        self.rows.len() - self.header_rows()
    }
}

/// Final anchors: a heading whose templates are all missing from the wiki is rendered the
/// way MediaWiki renders missing templates (`Template:Name`); then duplicates get
/// `_2`, `_3`, … in document order.
pub(crate) fn finalize_anchors(sections: &mut [Section], exists: &dyn Fn(i32, &str) -> bool) {
    let mut set = anchors::AnchorSet::default();
    for s in sections.iter_mut() {
        let missing = !s.heading_templates.is_empty()
            && s.heading_templates.iter().any(|(ns, k)| !exists(*ns, k));
        let text = match (&s.heading_missing, missing) {
            (Some(m), true) => m.as_str(),
            _ => s.heading.as_str(),
        };
        s.anchor = set.unique(anchors::anchor(text));
    }
}
