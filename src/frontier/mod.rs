//! The source frontier: given a seed page and a question, which other pages does a table
//! need — and, for every page, which operator brought it in and from where.
//!
//! Provenance is part of the answer: an auditor rejects a page nobody can explain, so
//! every [`Candidate`] carries the chain of [`Step`]s that produced it (operator, role,
//! the page and locator it came from, a reason). [`operators`] are the deterministic
//! moves (outlinks, seed-table, seed-list, sibling-list, redirect, entity-page, category,
//! count); [`planner`] composes them for a question and ranks what they find with BM25.

pub mod operators;
pub mod planner;
mod question;
mod rows;
mod texts;

use std::cell::OnceCell;

use serde::Serialize;

use crate::index::{Index, IndexError, Landing, PageRecord};
use crate::query::{Found, QueryError, find_page};
use crate::wikitext::PageStructure;
use rows::{RowRead, key_column, read_rows};

pub use operators::{
    CountSource, OperatorResult, Unresolved, category, count, entity_page, outlinks, redirect,
    seed_list, seed_table, sibling_list,
};
pub(crate) use planner::plan_cached;
pub use planner::{AnswerInRow, Frontier, Op, PlanOptions, Rejected, Rules, plan};
pub use question::Superlative;
pub(crate) use texts::TextCache;

/// What a page is for, in the table being built.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
pub enum Role {
    /// The page the curator started from.
    #[serde(rename = "seed")]
    Seed,
    /// A list or overview page: where rows come from.
    #[serde(rename = "list/overview")]
    ListOverview,
    /// A page about one row's entity.
    #[serde(rename = "entity")]
    Entity,
    /// The canonical page several aliases (redirects) lead to.
    #[serde(rename = "redirect-canonical")]
    RedirectCanonical,
    /// A page whose list or table fixes how many rows there should be.
    #[serde(rename = "count-source")]
    CountSource,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Seed => "seed",
            Role::ListOverview => "list/overview",
            Role::Entity => "entity",
            Role::RedirectCanonical => "redirect-canonical",
            Role::CountSource => "count-source",
        }
    }
}

/// One move that brought a page in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Step {
    /// Operator name: `outlinks`, `seed-table`, `seed-list`, `sibling-list`, `redirect`,
    /// `entity-page`, `category`, `count`.
    pub operator: &'static str,
    pub role: Role,
    /// The page the step read.
    pub from: String,
    /// Where in that page, as a locator `wikiwit locate` resolves: a cell
    /// (`Seed|table:2|row:5|col:1`), a list item (`Seed|item:3`), a section
    /// (`Seed#Rivers`), or a page read as a whole (a category, a list page, a redirect).
    pub locator: String,
    pub reason: String,
}

/// A page an operator found, with how it was found.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Candidate {
    pub title: String,
    /// Page number in the index.
    #[serde(skip)]
    pub page: u32,
    pub role: Role,
    /// The steps from the seed to this page, first to last (never empty).
    pub chain: Vec<Step>,
    /// The text the page was found in (a table row read with its labels, a list item):
    /// what the planner matches against the question.
    pub context: String,
    /// The row's entity key (its key-column cell text), when found in a table.
    pub key: Option<String>,
    /// Linked from the row's key column: the page about the row's own entity.
    pub in_key_column: bool,
    /// The seed's table cell or list item it was linked from (`None`: neither).
    #[serde(skip)]
    pub linked_from: Option<LinkedFrom>,
}

/// The place on the seed a candidate was linked from, which ties it to a row or list
/// item the planner scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkedFrom {
    /// A table cell: table (1-based, page-wide), data row and column (0-based).
    Cell {
        table: usize,
        row: usize,
        col: usize,
    },
    /// A list item (page-wide, 0-based).
    Item(usize),
}

impl LinkedFrom {
    /// The row or list item the place belongs to.
    pub(crate) fn unit(self) -> rows::Unit {
        match self {
            LinkedFrom::Cell { table, row, .. } => rows::Unit::Row { table, row },
            LinkedFrom::Item(i) => rows::Unit::Item(i),
        }
    }

    /// The column of a cell.
    pub(crate) fn col(self) -> Option<usize> {
        match self {
            LinkedFrom::Cell { col, .. } => Some(col),
            LinkedFrom::Item(_) => None,
        }
    }
}

impl Candidate {
    /// The operator that produced the page (the chain's first step).
    pub fn operator(&self) -> &'static str {
        self.chain.first().map(|s| s.operator).unwrap_or("")
    }
}

/// Errors of the frontier operators and planner.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Search(#[from] crate::text::search::SearchError),
    /// Reading a page's wikitext from the index's dump failed.
    #[error(transparent)]
    Dump(Box<QueryError>),
}

impl FrontierError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, FrontierError::NotFound(_))
    }
}

impl From<QueryError> for FrontierError {
    fn from(e: QueryError) -> FrontierError {
        match e {
            QueryError::NotFound(m) => FrontierError::NotFound(m),
            QueryError::Index(i) => FrontierError::Index(i),
            QueryError::Search(s) => FrontierError::Search(s),
            e @ (QueryError::Dump(_) | QueryError::DumpChanged { .. }) => {
                FrontierError::Dump(Box::new(e))
            }
        }
    }
}

/// Where a link target leads: the page, and the redirect followed to get there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub page: u32,
    pub title: String,
    /// The redirect's title, when the link went through one.
    pub via: Option<String>,
}

/// Follows `(ns, dbkey)` to its final page; `None` for red links and broken redirects.
pub(crate) fn target(index: &Index, ns: i32, dbkey: &str) -> Result<Option<Target>, IndexError> {
    match index.find(ns, dbkey) {
        Some(n) => target_of(index, n, &index.page(n)?),
        None => Ok(None),
    }
}

/// Where a title text leads, redirects followed; `None` when it leads to no page.
pub(crate) fn target_for(index: &Index, title: &str) -> Result<Option<Target>, IndexError> {
    match index.page_for(title)? {
        Ok(landing) => landed(index, &landing).map(Some),
        Err(_) => Ok(None),
    }
}

/// Follows page `n` (whose record is `rec`) to its final page; `None` for a broken
/// redirect. For callers that already hold the page, so it is not looked up again.
pub(crate) fn target_of(
    index: &Index,
    n: u32,
    rec: &PageRecord,
) -> Result<Option<Target>, IndexError> {
    match index.follow(n, rec.clone()) {
        Ok(landing) => landed(index, &landing).map(Some),
        Err(_) => Ok(None),
    }
}

fn landed(index: &Index, landing: &Landing) -> Result<Target, IndexError> {
    Ok(Target {
        page: landing.number,
        title: index.display_title(&landing.record(index)?),
        via: landing.via(index),
    })
}

/// The seed page, decoded once for every operator a plan runs on it: its structure, and
/// — worked out on first use, then shared — each table's rows and each link's target.
pub(crate) struct Seed {
    pub page: Found,
    pub s: PageStructure,
    rows: Vec<OnceCell<TableRows>>,
    targets: Vec<OnceCell<Option<Target>>>,
}

/// A table's data rows and key column.
pub(crate) struct TableRows {
    pub rows: Vec<RowRead>,
    pub key: Option<usize>,
}

impl Seed {
    pub fn load(index: &Index, title: &str) -> Result<Seed, FrontierError> {
        let page = find_page(index, title)?;
        let s = index.structure(page.number)?;
        Ok(Seed {
            rows: s.tables.iter().map(|_| OnceCell::new()).collect(),
            targets: s.links.iter().map(|_| OnceCell::new()).collect(),
            page,
            s,
        })
    }

    /// The rows of table `ti` (0-based).
    pub fn rows(&self, ti: usize) -> &TableRows {
        self.rows[ti].get_or_init(|| {
            let rows = read_rows(&self.s.tables[ti]);
            let key = key_column(&rows);
            TableRows { rows, key }
        })
    }

    /// Where link `li` of the seed leads ([`target`]).
    pub fn target(&self, index: &Index, li: usize) -> Result<Option<&Target>, IndexError> {
        let cell = &self.targets[li];
        if cell.get().is_none() {
            let l = &self.s.links[li];
            let t = target(index, l.ns, &l.dbkey)?;
            let _ = cell.set(t);
        }
        Ok(cell.get().and_then(Option::as_ref))
    }
}

/// The role of a page reached by a link: list pages are where rows come from.
pub(crate) fn role_of(index: &Index, page: u32) -> Result<Role, IndexError> {
    Ok(if index.page(page)?.list_page {
        Role::ListOverview
    } else {
        Role::Entity
    })
}

/// The step recording that a link went through a redirect (alias → canonical page).
pub(crate) fn redirect_step(t: &Target) -> Option<Step> {
    t.via.as_ref().map(|via| Step {
        operator: "redirect",
        role: Role::RedirectCanonical,
        from: via.clone(),
        locator: via.clone(),
        reason: format!("{via:?} redirects to {:?}", t.title),
    })
}
