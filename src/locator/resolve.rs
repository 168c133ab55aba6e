//! Locator → content, against the index.
//!
//! Pages are found as links would find them (MediaWiki title rules), redirects are
//! followed and reported (`via`); a redirect that ends nowhere (missing target, loop,
//! another wiki) is a reason, not a page. Decoded pages are shared through a sharded
//! cache so that parallel callers decode each page once.

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use super::{Column, Locator, PageSpec, SectionSpec, Target};
use crate::index::{DeadEnd, DeadRedirect, Index, IndexError, NotFound, PageRecord};
use crate::text::PageText;
use crate::wikitext::{PageStructure, Table};

/// Why a locator does not resolve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Unresolved {
    #[error("no page {title:?}")]
    NoSuchPage { title: String },
    #[error("{title:?} is not a valid title: {why}")]
    InvalidTitle { title: String, why: String },
    #[error("{title:?} is on another wiki")]
    OtherWiki {
        title: String,
        /// `fr.wikipedia` for a URL's language, the prefix of an interwiki title.
        wiki: String,
    },
    #[error("{from:?} redirects elsewhere: {why}")]
    RedirectElsewhere { from: String, why: String },
    #[error("{page:?} has no section {section:?}")]
    NoSuchSection { page: String, section: String },
    #[error("{page:?} has no infobox field {field:?}{}", if .fields.is_empty() { " (no infobox)".to_string() } else { format!(" (fields: {})", .fields.join(", ")) })]
    NoSuchField {
        page: String,
        field: String,
        fields: Vec<String>,
    },
    #[error("{page:?} has {tables} table(s){}; there is no table {table}", .section.as_deref().map(|s| format!(" in section {s:?}")).unwrap_or_default())]
    NoSuchTable {
        page: String,
        section: Option<String>,
        table: usize,
        tables: usize,
    },
    #[error("table {table} of {page:?} has {rows} data row(s); there is no row {row}")]
    NoSuchRow {
        page: String,
        table: usize,
        row: usize,
        rows: usize,
    },
    #[error("table {table} of {page:?} has no column {column}{why}")]
    NoSuchColumn {
        page: String,
        table: usize,
        column: String,
        /// Labels the column could have meant (see [`super::ColumnMiss::describe`]).
        why: String,
    },
    #[error("{page:?} has {sentences} sentence(s) in {where_}; there is no sentence {sentence}")]
    NoSuchSentence {
        page: String,
        where_: String,
        sentence: usize,
        sentences: usize,
    },
    #[error("{page:?} has {items} list item(s) in {where_}; there is no item {item}")]
    NoSuchItem {
        page: String,
        where_: String,
        item: usize,
        items: usize,
    },
    #[error("the quote is not in {where_} of {page:?}")]
    QuoteNotFound { page: String, where_: String },
    #[error("the index has no plain text (built with --no-text)")]
    NoText,
    #[error("no page is given (a relative locator needs a source page)")]
    NoPage,
}

/// A section, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SectionInfo {
    /// 0 = lead.
    pub number: u32,
    pub anchor: Option<String>,
    pub heading: Option<String>,
}

/// One cell of a located row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CellContent {
    pub col: usize,
    pub label: Option<String>,
    pub text: String,
    /// Titles the cell links to.
    pub links: Vec<String>,
    /// Final pages (redirects followed) of those links, for name matching.
    #[serde(skip)]
    pub link_pages: Vec<u32>,
}

/// What the locator points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Content {
    /// The page's lead (or the section's text, for a section locator).
    Text {
        text: String,
    },
    Field {
        template: String,
        name: String,
        value: String,
        raw: String,
    },
    Table {
        /// Page-wide table number (1-based).
        table: usize,
        caption: String,
        labels: Vec<Option<String>>,
        rows: usize,
    },
    Row {
        table: usize,
        row: usize,
        cells: Vec<CellContent>,
    },
    Cell {
        table: usize,
        row: usize,
        cell: CellContent,
        /// The rest of the row, for context.
        row_cells: Vec<CellContent>,
    },
    Sentence {
        sentence: usize,
        text: String,
    },
    /// A list item: its text and the titles it links to.
    Item {
        item: usize,
        text: String,
        links: Vec<String>,
        /// Final pages of those links, as for cells.
        #[serde(skip)]
        link_pages: Vec<u32>,
    },
}

impl Content {
    /// A one-line excerpt of the evidence (`label: text; …` for rows).
    pub fn excerpt(&self) -> String {
        match self {
            Content::Text { text }
            | Content::Sentence { text, .. }
            | Content::Item { text, .. } => text.clone(),
            Content::Field { name, value, .. } => format!("{name} = {value}"),
            Content::Table {
                caption,
                labels,
                rows,
                ..
            } => {
                let l: Vec<&str> = labels.iter().map(|x| x.as_deref().unwrap_or("")).collect();
                format!("{caption} [{}] ({rows} rows)", l.join(" | "))
            }
            Content::Row { cells, .. } => cells_line(cells),
            Content::Cell { cell, .. } => cells_line(std::slice::from_ref(cell)),
        }
    }
}

fn cells_line(cells: &[CellContent]) -> String {
    cells
        .iter()
        .map(|c| match &c.label {
            Some(l) => format!("{l}: {}", c.text),
            None => format!("col {}: {}", c.col, c.text),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A resolved locator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Resolved {
    pub page: String,
    pub page_id: u64,
    /// The revision in the index (the evidence's revision).
    pub rev_id: u64,
    /// Unix seconds of that revision.
    pub timestamp: i64,
    /// Redirects followed to reach the page.
    pub via: Vec<String>,
    pub section: Option<SectionInfo>,
    pub content: Content,
    /// The locator asked for another revision (`oldid`) than the index holds.
    pub other_revision: Option<u64>,
    /// Page number in the index.
    #[serde(skip)]
    pub number: u32,
}

/// The outcome of resolving a locator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Resolution {
    Found(Box<Resolved>),
    Unresolved(Unresolved),
}

/// A decoded page, shared by everyone resolving locators on it.
pub(crate) struct PageData {
    pub number: u32,
    pub record: PageRecord,
    pub title: String,
    pub structure: PageStructure,
    text: OnceLock<Option<Arc<PageText>>>,
    /// Final page of each link (redirects followed; `NO_PAGE` for red links), each
    /// looked up when a cited cell or item first asks for it: the rows of a table share
    /// them, and links outside what is cited are never looked up.
    link_targets: Box<[AtomicU64]>,
}

/// A link whose target nobody has asked for yet (targets are `u32`).
const UNSEEN: u64 = u64::MAX;

impl PageData {
    /// The page's plain text (decoded on first use; `None` without a text store).
    pub fn text(&self, index: &Index) -> Result<Option<Arc<PageText>>, IndexError> {
        if let Some(t) = self.text.get() {
            return Ok(t.clone());
        }
        let t = index.page_text(self.number)?.map(Arc::new);
        Ok(self.text.get_or_init(|| t).clone())
    }

    /// The final page of the page's link `li` (`NO_PAGE` where there is none, or no
    /// such link).
    pub fn link_target(&self, index: &Index, li: u32) -> Result<u32, IndexError> {
        let Some(slot) = self.link_targets.get(li as usize) else {
            return Ok(crate::index::NO_PAGE);
        };
        // Workers racing on one link compute the same answer: any store is right.
        let seen = slot.load(Ordering::Relaxed);
        if seen != UNSEEN {
            return Ok(seen as u32);
        }
        let l = &self.structure.links[li as usize];
        let p = match index.find(l.ns, &l.dbkey) {
            Some(p) => final_page(index, p)?,
            None => crate::index::NO_PAGE,
        };
        slot.store(u64::from(p), Ordering::Relaxed);
        Ok(p)
    }
}

/// How a title resolves: the final page number, redirects followed, a redirect's
/// fragment.
type PageLookup = Result<(u32, Vec<String>, Option<String>), Unresolved>;

const SHARDS: usize = 64;
/// Pages kept per shard before the shard is emptied: bounds memory on huge inputs.
const PAGES_PER_SHARD: usize = 512;
const TITLES_PER_SHARD: usize = 16_384;

/// A small sharded map: parallel readers rarely contend, and a full shard is simply
/// cleared (the workload — many rows per page, pages in runs — makes that cheap).
struct Sharded<K, V> {
    /// Fx-hashed: a title is hashed for every lookup, and SipHash showed in the profile.
    shards: Vec<Mutex<FxHashMap<K, V>>>,
    cap: usize,
}

impl<K: std::hash::Hash + Eq, V: Clone> Sharded<K, V> {
    fn new(cap: usize) -> Self {
        Sharded {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(FxHashMap::default()))
                .collect(),
            cap,
        }
    }

    fn shard<Q: std::hash::Hash + ?Sized>(&self, k: &Q) -> &Mutex<FxHashMap<K, V>> {
        use std::hash::BuildHasher;
        let h = rustc_hash::FxBuildHasher.hash_one(k);
        // The shard's own map places keys by the hash's low bits and tags them with its
        // top seven: the shard is picked by bits between, so that keys of one shard
        // still spread over its map.
        &self.shards[((h >> 40) as usize) % SHARDS]
    }

    /// Looks `k` up by any borrowed form (`&str` for `String` keys: no allocation per
    /// lookup); the borrowed form hashes like the key, so it finds the same shard.
    fn get<Q>(&self, k: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        self.shard(k).lock().ok()?.get(k).cloned()
    }

    fn put(&self, k: K, v: V) {
        if let Ok(mut m) = self.shard(&k).lock() {
            if m.len() >= self.cap {
                m.clear();
            }
            m.insert(k, v);
        }
    }
}

/// Resolves locators against one index, caching decoded pages and title lookups.
pub(crate) struct Resolver<'a> {
    index: &'a Index,
    pages: Sharded<u32, Arc<PageData>>,
    titles: Sharded<String, PageLookup>,
}

/// Resolves one locator (no cache kept between calls; use `Resolver` for many).
pub fn resolve(index: &Index, loc: &Locator) -> Result<Resolution, IndexError> {
    Resolver::new(index).resolve(loc)
}

/// Lowercased, whitespace- and underscore-collapsed: how headings, labels and field
/// names are compared.
pub(super) fn fold_name(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c == '_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

impl<'a> Resolver<'a> {
    pub fn new(index: &'a Index) -> Self {
        Resolver::with_capacity(index, SHARDS * PAGES_PER_SHARD, SHARDS * TITLES_PER_SHARD)
    }

    /// A resolver keeping about `pages` decoded pages and `titles` title lookups (at
    /// least one of each per shard): the auditor sizes them by its memory budget.
    pub fn with_capacity(index: &'a Index, pages: usize, titles: usize) -> Self {
        Resolver {
            index,
            pages: Sharded::new((pages / SHARDS).max(1)),
            titles: Sharded::new((titles / SHARDS).max(1)),
        }
    }

    pub fn index(&self) -> &'a Index {
        self.index
    }

    /// The final page a title names, following redirects.
    pub fn find_page(&self, title: &str) -> Result<PageLookup, IndexError> {
        if let Some(hit) = self.titles.get(title) {
            return Ok(hit);
        }
        let r = self.lookup(title)?;
        self.titles.put(title.to_string(), r.clone());
        Ok(r)
    }

    fn lookup(&self, title: &str) -> Result<PageLookup, IndexError> {
        let index = self.index;
        let landing = match index.page_for(title)? {
            Ok(l) => l,
            Err(NotFound::NoPage(t)) => {
                return Ok(Err(Unresolved::NoSuchPage {
                    title: index.codec().prefixed_text(t.ns, &t.dbkey),
                }));
            }
            Err(NotFound::InvalidTitle { error, .. }) => {
                return Ok(Err(Unresolved::InvalidTitle {
                    title: title.to_string(),
                    why: error.to_string(),
                }));
            }
            Err(NotFound::OtherWiki(t)) => {
                return Ok(Err(Unresolved::OtherWiki {
                    title: title.to_string(),
                    wiki: t.interwiki.unwrap_or_default(),
                }));
            }
            Err(NotFound::DeadRedirect(dead)) => return Ok(Err(redirect_elsewhere(index, &dead))),
        };
        let via = landing.via(index).into_iter().collect();
        Ok(Ok((landing.number, via, landing.fragment())))
    }

    /// The final page a locator's page part names: by its title, else by its ids.
    pub fn find_spec(&self, spec: &PageSpec) -> Result<PageLookup, IndexError> {
        if let Some(lang) = &spec.lang
            && !lang.eq_ignore_ascii_case(&self.index.manifest().site.lang)
        {
            return Ok(Err(Unresolved::OtherWiki {
                title: match &spec.title {
                    Some(t) => format!("{lang}:{t}"),
                    None => format!("{lang}:{}", Index::ids_label(spec.curid, spec.oldid)),
                },
                wiki: format!("{lang}.wikipedia"),
            }));
        }
        match &spec.title {
            Some(title) => self.find_page(title),
            None => self.find_page_by_ids(spec),
        }
    }

    /// The final page a title-less page part names by page id or revision id.
    fn find_page_by_ids(&self, spec: &PageSpec) -> Result<PageLookup, IndexError> {
        let index = self.index;
        let Some(n) = index.page_by_ids(spec.curid, spec.oldid)? else {
            let title = Index::ids_label(spec.curid, spec.oldid);
            return Ok(Err(Unresolved::NoSuchPage { title }));
        };
        Ok(match index.follow(n, index.page(n)?) {
            Ok(landing) => Ok((
                landing.number,
                landing.via(index).into_iter().collect(),
                landing.fragment(),
            )),
            Err(dead) => Err(redirect_elsewhere(index, &dead)),
        })
    }

    /// The decoded page `n` (cached).
    pub fn page(&self, n: u32) -> Result<Arc<PageData>, IndexError> {
        if let Some(p) = self.pages.get(&n) {
            return Ok(p);
        }
        let record = self.index.page(n)?;
        let structure = self.index.structure(n)?;
        let data = Arc::new(PageData {
            number: n,
            title: self.index.display_title(&record),
            link_targets: (0..structure.links.len())
                .map(|_| AtomicU64::new(UNSEEN))
                .collect(),
            structure,
            record,
            text: OnceLock::new(),
        });
        self.pages.put(n, data.clone());
        Ok(data)
    }

    /// Resolves a locator to its content, or to why it does not resolve.
    pub fn resolve(&self, loc: &Locator) -> Result<Resolution, IndexError> {
        let Some(spec) = &loc.page else {
            return Ok(Resolution::Unresolved(Unresolved::NoPage));
        };
        let found = self.find_spec(spec)?;
        let (n, via, fragment) = match found {
            Ok(x) => x,
            Err(u) => return Ok(Resolution::Unresolved(u)),
        };
        let page = self.page(n)?;
        match self.content(&page, loc, fragment.as_deref())? {
            Ok((section, content)) => Ok(Resolution::Found(Box::new(Resolved {
                page: page.title.clone(),
                page_id: page.record.id,
                rev_id: page.record.rev_id,
                timestamp: page.record.timestamp,
                via,
                section,
                content,
                other_revision: spec.oldid.filter(|o| *o != page.record.rev_id),
                number: n,
            }))),
            Err(u) => Ok(Resolution::Unresolved(u)),
        }
    }

    /// Section number named by the locator (or by the redirect's fragment).
    fn section(
        &self,
        page: &PageData,
        spec: Option<&SectionSpec>,
        fragment: Option<&str>,
    ) -> Result<Option<u32>, Unresolved> {
        let s = &page.structure;
        let none = |section: String| Unresolved::NoSuchSection {
            page: page.title.clone(),
            section,
        };
        match spec {
            Some(SectionSpec::Anchor(a)) => crate::query::text::section_number(s, a)
                .map(Some)
                .ok_or_else(|| none(a.clone())),
            Some(SectionSpec::Path(path)) => section_by_path(s, path)
                .map(Some)
                .ok_or_else(|| none(path.join("/"))),
            // A redirect's fragment is where the redirect meant; a missing one is ignored
            // (MediaWiki shows the page top).
            None => Ok(fragment.and_then(|f| crate::query::text::section_number(s, f))),
        }
    }

    fn content(
        &self,
        page: &PageData,
        loc: &Locator,
        fragment: Option<&str>,
    ) -> Result<Result<(Option<SectionInfo>, Content), Unresolved>, IndexError> {
        let s = &page.structure;
        let section = match self.section(page, loc.section.as_ref(), fragment) {
            Ok(x) => x,
            Err(u) => return Ok(Err(u)),
        };
        let info = section.map(|n| section_info(s, n));
        let named = loc.section.is_some();
        let content = match &loc.target {
            Target::Page | Target::Section => {
                let Some(text) = page.text(self.index)? else {
                    return Ok(Err(Unresolved::NoText));
                };
                Content::Text {
                    text: text.section_string(section.unwrap_or(0) as usize),
                }
            }
            Target::Infobox { field } => match infobox_field(page, field) {
                Ok(c) => c,
                Err(u) => return Ok(Err(u)),
            },
            Target::Table { table } => {
                match self.table(page, named.then_some(section).flatten(), *table) {
                    Ok((n, t)) => Content::Table {
                        table: n,
                        caption: t.caption.clone(),
                        labels: t.column_labels(),
                        rows: t.data_rows(),
                    },
                    Err(u) => return Ok(Err(u)),
                }
            }
            Target::Row { table, row } | Target::Cell { table, row, .. } => {
                match self.row_content(
                    page,
                    loc,
                    named.then_some(section).flatten(),
                    *table,
                    *row,
                )? {
                    Ok(c) => c,
                    Err(u) => return Ok(Err(u)),
                }
            }
            Target::Sentence { sentence } => {
                let Some(text) = page.text(self.index)? else {
                    return Ok(Err(Unresolved::NoText));
                };
                let sec = section.unwrap_or(0) as usize;
                let sentences = text.sections.get(sec).map(|x| &x.sentences[..]);
                match sentences.and_then(|x| x.get(*sentence)) {
                    Some(x) => Content::Sentence {
                        sentence: *sentence,
                        text: x.text.clone(),
                    },
                    None => {
                        return Ok(Err(Unresolved::NoSuchSentence {
                            page: page.title.clone(),
                            where_: where_(&info),
                            sentence: *sentence,
                            sentences: sentences.map_or(0, |x| x.len()),
                        }));
                    }
                }
            }
            // Numbered like tables: within a section the locator names, else page-wide
            // (a redirect's fragment does not renumber them).
            Target::Item { item } => {
                let scope = named.then_some(section).flatten();
                match list_item(page, self.index, scope, *item)? {
                    Ok(c) => c,
                    Err(items) => {
                        return Ok(Err(Unresolved::NoSuchItem {
                            page: page.title.clone(),
                            where_: match scope {
                                Some(_) => where_(&info),
                                None => "the page".into(),
                            },
                            item: *item,
                            items,
                        }));
                    }
                }
            }
            Target::Quote { text: q } => {
                return self.quote_content(page, q, section, &info);
            }
        };
        Ok(Ok((info, content)))
    }

    /// A row or cell locator's content: the row's cells, or the one the column names.
    fn row_content(
        &self,
        page: &PageData,
        loc: &Locator,
        section: Option<u32>,
        table: usize,
        row: usize,
    ) -> Result<Result<Content, Unresolved>, IndexError> {
        let (n, t) = match self.table(page, section, table) {
            Ok(x) => x,
            Err(u) => return Ok(Err(u)),
        };
        if row >= t.data_rows() {
            return Ok(Err(Unresolved::NoSuchRow {
                page: page.title.clone(),
                table: n,
                row,
                rows: t.data_rows(),
            }));
        }
        let cells = self.row_cells(page, t, row)?;
        Ok(Ok(match &loc.target {
            Target::Cell { col, .. } => match column_index(t, col) {
                Ok(c) if c < cells.len() => Content::Cell {
                    table: n,
                    row,
                    cell: cells[c].clone(),
                    row_cells: cells,
                },
                miss => {
                    return Ok(Err(Unresolved::NoSuchColumn {
                        page: page.title.clone(),
                        table: n,
                        column: match col {
                            Column::Index(i) => i.to_string(),
                            Column::Header(h) => format!("{h:?}"),
                        },
                        why: miss.err().map(|m| m.describe()).unwrap_or_default(),
                    }));
                }
            },
            _ => Content::Row {
                table: n,
                row,
                cells,
            },
        }))
    }

    /// A quote locator's content: the sentence of the page (or of the named section and
    /// its subsections, as for tables) holding the quote, or the sentences it spans, by
    /// the rule the citation checker's text fragments follow ([`crate::text::quote`]).
    fn quote_content(
        &self,
        page: &PageData,
        q: &str,
        section: Option<u32>,
        info: &Option<SectionInfo>,
    ) -> Result<Result<(Option<SectionInfo>, Content), Unresolved>, IndexError> {
        let s = &page.structure;
        let Some(text) = page.text(self.index)? else {
            return Ok(Err(Unresolved::NoText));
        };
        let within = section.map(|n| n..subsections_end(s, n) + 1);
        let Some(found) = crate::text::quote::find(&text, q, None, within) else {
            return Ok(Err(Unresolved::QuoteNotFound {
                page: page.title.clone(),
                where_: if section.is_some() {
                    where_(info)
                } else {
                    "the text".into()
                },
            }));
        };
        let (sec, first) = found[0];
        let sentences = &text.sections[sec as usize].sentences;
        let covered: Vec<&str> = found
            .iter()
            .map(|&(_, k)| sentences[k].text.as_str())
            .collect();
        Ok(Ok((
            Some(section_info(s, sec)),
            Content::Sentence {
                sentence: first,
                text: covered.join(" "),
            },
        )))
    }

    /// Table `n` (1-based) of the page, or of the section and its subsections.
    fn table<'p>(
        &self,
        page: &'p PageData,
        section: Option<u32>,
        n: usize,
    ) -> Result<(usize, &'p Table), Unresolved> {
        let s = &page.structure;
        let in_scope: Vec<usize> = match section {
            None => (0..s.tables.len()).collect(),
            Some(sec) => {
                let last = subsections_end(s, sec);
                (0..s.tables.len())
                    .filter(|&i| s.tables[i].section >= sec && s.tables[i].section <= last)
                    .collect()
            }
        };
        match in_scope.get(n - 1) {
            Some(&i) => Ok((i + 1, &s.tables[i])),
            None => Err(Unresolved::NoSuchTable {
                page: page.title.clone(),
                section: section.and_then(|x| crate::query::section_anchor(s, x)),
                table: n,
                tables: in_scope.len(),
            }),
        }
    }

    fn row_cells(
        &self,
        page: &PageData,
        t: &Table,
        row: usize,
    ) -> Result<Vec<CellContent>, IndexError> {
        let labels = t.column_labels();
        let h = t.header_rows();
        let mut out = Vec::with_capacity(t.columns as usize);
        for c in 0..t.columns as usize {
            let cell = t.cell_at(h + row, c);
            let links = cell.map(|x| &x.links[..]).unwrap_or(&[]);
            let (links, link_pages) = linked(self.index, page, links)?;
            out.push(CellContent {
                col: c,
                label: labels.get(c).cloned().flatten(),
                text: cell.map(|x| x.text.clone()).unwrap_or_default(),
                links,
                link_pages,
            });
        }
        Ok(out)
    }
}

/// List item `item` of the section `section` and its subsections (of the page when no
/// section is named), or how many items there are.
fn list_item(
    page: &PageData,
    index: &Index,
    section: Option<u32>,
    item: usize,
) -> Result<Result<Content, usize>, IndexError> {
    let s = &page.structure;
    let scope = section.map(|n| n..=subsections_end(s, n));
    let in_scope = s
        .lists
        .iter()
        .filter(|x| scope.as_ref().is_none_or(|r| r.contains(&x.section)));
    let Some(x) = in_scope.clone().nth(item) else {
        return Ok(Err(in_scope.count()));
    };
    let (links, link_pages) = linked(index, page, &x.links)?;
    Ok(Ok(Content::Item {
        item,
        text: x.text.clone(),
        links,
        link_pages,
    }))
}

/// The titles links `links` (indices into the page's links) name, and the final pages of
/// those that lead somewhere.
fn linked(
    index: &Index,
    page: &PageData,
    links: &[u32],
) -> Result<(Vec<String>, Vec<u32>), IndexError> {
    let mut titles = Vec::new();
    let mut pages = Vec::new();
    for &li in links {
        let Some(l) = page.structure.links.get(li as usize) else {
            continue;
        };
        titles.push(index.codec().prefixed_text(l.ns, &l.dbkey));
        let p = page.link_target(index, li)?;
        if p != crate::index::NO_PAGE {
            pages.push(p);
        }
    }
    Ok((titles, pages))
}

/// Where a redirect page ends (itself if not a redirect or if it ends nowhere).
pub(crate) fn final_page(index: &Index, n: u32) -> Result<u32, IndexError> {
    Ok(match index.follow(n, index.page(n)?) {
        Ok(landing) => landing.number,
        Err(_) => n,
    })
}

/// Section `n` (0 = lead) as reported.
fn section_info(s: &PageStructure, n: u32) -> SectionInfo {
    SectionInfo {
        number: n,
        anchor: crate::query::section_anchor(s, n),
        heading: (n > 0).then(|| s.sections[n as usize - 1].heading.clone()),
    }
}

fn where_(info: &Option<SectionInfo>) -> String {
    match info.as_ref().and_then(|i| i.anchor.as_deref()) {
        Some(a) => format!("section {a:?}"),
        None => "the lead".into(),
    }
}

/// Last section number inside section `sec` (its subsections included).
pub(crate) fn subsections_end(s: &PageStructure, sec: u32) -> u32 {
    if sec == 0 {
        return 0;
    }
    let level = s.sections[sec as usize - 1].level;
    let mut last = sec;
    while let Some(next) = s.sections.get(last as usize)
        && next.level > level
    {
        last += 1;
    }
    last
}

/// Finds a section by its heading path, outermost first. The first heading may sit at any
/// level; each next one must be inside the previous. A component matches a heading or
/// an anchor, case- and whitespace-insensitively.
fn section_by_path(s: &PageStructure, path: &[String]) -> Option<u32> {
    let matches = |i: usize, want: &str| {
        let x = &s.sections[i];
        fold_name(&x.heading) == want || fold_name(&x.anchor) == want
    };
    let wanted: Vec<String> = path.iter().map(|p| fold_name(p)).collect();
    (0..s.sections.len()).find_map(|start| {
        if !matches(start, &wanted[0]) {
            return None;
        }
        let mut cur = start;
        for w in &wanted[1..] {
            let end = subsections_end(s, cur as u32 + 1) as usize;
            cur = (cur + 1..end).find(|&j| matches(j, w))?;
        }
        Some(cur as u32 + 1)
    })
}

fn column_index(t: &Table, col: &Column) -> Result<usize, super::ColumnMiss> {
    match col {
        Column::Index(i) => Ok(*i),
        Column::Header(h) => {
            let labels = t.column_labels();
            let labels: Vec<Option<&str>> = labels.iter().map(|l| l.as_deref()).collect();
            super::find_column(&labels, h)
        }
    }
}

fn infobox_field(page: &PageData, field: &str) -> Result<Content, Unresolved> {
    let want = fold_name(field);
    let boxes = &page.structure.infoboxes;
    for b in boxes {
        if let Some(f) = b.fields.iter().find(|f| fold_name(&f.name) == want) {
            return Ok(Content::Field {
                template: b.template.replace('_', " "),
                name: f.name.clone(),
                value: f.text.clone(),
                raw: f.raw.clone(),
            });
        }
    }
    Err(Unresolved::NoSuchField {
        page: page.title.clone(),
        field: field.to_string(),
        fields: boxes
            .iter()
            .flat_map(|b| b.fields.iter().map(|f| f.name.clone()))
            .collect(),
    })
}

/// A title that names a redirect leading to no page of this wiki.
fn redirect_elsewhere(index: &Index, dead: &DeadRedirect) -> Unresolved {
    let rec = &dead.named.record;
    let why = match (dead.end, &rec.redirect) {
        (DeadEnd::NoPage, Some(rd)) => format!(
            "its target {:?} has no page",
            index.codec().prefixed_text(rd.ns, &rd.dbkey)
        ),
        (DeadEnd::NoPage, None) => "its target has no page".into(),
        (DeadEnd::Loop, _) => "its redirect chain loops".into(),
        (DeadEnd::OtherWiki, _) => "it points to another wiki".into(),
    };
    Unresolved::RedirectElsewhere {
        from: index.display_title(rec),
        why,
    }
}
