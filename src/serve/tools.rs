//! The questions `/v1/` and the MCP server answer, each a typed input and a typed answer
//! (both with a JSON schema derived from the type, for MCP clients), the answer being the
//! value the CLI prints with `--json` for the same question. Both front ends call these,
//! so an agent, an HTTP client and the CLI agree.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::index::Index;
use crate::locator::{Locator, Resolution};
use crate::query::text::{SearchResult, TextView};
use crate::query::{FieldAnswer, InfoboxView, RowView, TableView};

/// Why a tool has no answer.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The thing asked for is not in the index (the CLI's exit code 1).
    #[error("{0}")]
    NotFound(String),
    /// The request itself is wrong (a bad locator, an unknown operator, a bad contract).
    #[error("{0}")]
    BadRequest(String),
    /// The index or the server failed.
    #[error("{0}")]
    Internal(String),
}

impl From<crate::query::QueryError> for ToolError {
    fn from(e: crate::query::QueryError) -> ToolError {
        if e.is_not_found() {
            ToolError::NotFound(e.to_string())
        } else {
            ToolError::Internal(e.to_string())
        }
    }
}

impl From<crate::index::IndexError> for ToolError {
    fn from(e: crate::index::IndexError) -> ToolError {
        ToolError::Internal(e.to_string())
    }
}

/// The value as the CLI prints it: through its JSON text, so that an `f32` score reads
/// back as the CLI's shortest form (`14.727776`), not as the wider `f64` it converts to.
pub fn to_value<T: Serialize>(v: &T) -> Result<Value, ToolError> {
    serde_json::to_string(v)
        .and_then(|s| serde_json::from_str(&s))
        .map_err(|e| ToolError::Internal(e.to_string()))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TitleIn {
    /// A page title as a reader writes it (redirects are followed).
    pub title: String,
}

/// What a title resolves to: normalized form, page, redirect chain, final target.
pub fn resolve(index: &Index, i: &TitleIn) -> Result<crate::resolve::Resolved, ToolError> {
    Ok(crate::resolve::resolve(index, &i.title)?)
}

/// A page's summary: sections, infoboxes, tables, categories, link counts.
pub fn page(index: &Index, i: &TitleIn) -> Result<crate::query::PageSummary, ToolError> {
    Ok(crate::query::summary(index, &i.title)?)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LinksIn {
    /// A page title as a reader writes it (redirects are followed).
    pub title: String,
    /// Pages linking here instead of the links from here.
    #[serde(default)]
    pub incoming: bool,
    /// With `incoming`: only links to the page itself, not through its redirects.
    #[serde(default)]
    pub direct: bool,
    /// Only links in this context (where the link sits in the page).
    pub context: Option<crate::wikitext::Context>,
    /// Only links written in the page's own text (`own`) or made by its templates
    /// (`template`).
    pub origin: Option<crate::query::Origin>,
}

/// A page's outgoing links in document order, or the pages linking to it.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum LinksAnswer {
    Out(Vec<crate::query::LinkView>),
    In(Vec<crate::query::InLink>),
}

/// Outgoing links with their context, section and status, or incoming links with the
/// contexts they sit in (as `wikiwit links [--in]` prints them, one per line).
pub fn links(index: &Index, i: &LinksIn) -> Result<LinksAnswer, ToolError> {
    Ok(if i.incoming {
        LinksAnswer::In(crate::query::inlinks(
            index, &i.title, i.context, i.direct, i.origin,
        )?)
    } else {
        LinksAnswer::Out(crate::query::outlinks(
            index, &i.title, i.context, i.origin,
        )?)
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchIn {
    /// Words to search for (BM25 over sections).
    pub query: String,
    /// At most this many hits (default 10, at most 100).
    pub limit: Option<usize>,
    /// Only this page (a title).
    pub page: Option<String>,
    /// Only this section anchor of `page` ("" for the lead).
    pub section: Option<String>,
}

/// Full-text search with the best sentence of each hit.
pub fn search(index: &Index, i: &SearchIn) -> Result<Vec<SearchResult>, ToolError> {
    let scope = crate::query::text::Scope {
        page: i.page.as_deref(),
        section: i.section.as_deref(),
    };
    let limit = i.limit.unwrap_or(10).clamp(1, 100);
    Ok(crate::query::text::search(index, &i.query, scope, limit)?)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SectionIn {
    pub title: String,
    /// Section anchor or heading (`Geography`); absent: the whole page, sentence by sentence.
    pub section: Option<String>,
}

/// The plain text of a page or one section, sentence by sentence.
pub fn section_text(index: &Index, i: &SectionIn) -> Result<TextView, ToolError> {
    Ok(crate::query::text::text(
        index,
        &i.title,
        i.section.as_deref(),
    )?)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TableIn {
    pub title: String,
    /// Table number on the page, from 1 in document order.
    pub table: usize,
    /// A data row (0-based, header rows not counted); absent: the whole table.
    pub row: Option<usize>,
}

/// One data row with its column labels, or a whole table.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum TableAnswer {
    Row(RowView),
    Table(TableView),
}

/// A table of a page, or one data row of it with its column labels.
pub fn table(index: &Index, i: &TableIn) -> Result<TableAnswer, ToolError> {
    Ok(match i.row {
        Some(r) => TableAnswer::Row(crate::query::table_row(index, &i.title, i.table, r)?),
        None => TableAnswer::Table(crate::query::table(index, &i.title, i.table)?),
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct InfoboxIn {
    pub title: String,
    /// A field name (`length`, `population total`); absent: every field of every infobox.
    pub field: Option<String>,
}

/// One infobox field, or every infobox of the page (a JSON array, as the CLI prints it).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum InfoboxAnswer {
    Field(FieldAnswer),
    All(Vec<InfoboxView>),
}

/// An infobox field's text, wikitext and links, or all infoboxes of the page.
pub fn infobox(index: &Index, i: &InfoboxIn) -> Result<InfoboxAnswer, ToolError> {
    if let Some(f) = &i.field {
        return Ok(InfoboxAnswer::Field(crate::query::infobox_field(
            index, &i.title, f,
        )?));
    }
    Ok(InfoboxAnswer::All(crate::query::infobox_views(
        index, &i.title,
    )?))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SiblingsIn {
    pub title: String,
    /// At most this many siblings (default 50).
    pub limit: Option<usize>,
}

/// Pages listed next to a page (same table column, list or navigation template).
pub fn siblings(index: &Index, i: &SiblingsIn) -> Result<crate::siblings::Siblings, ToolError> {
    Ok(crate::siblings::siblings(
        index,
        &i.title,
        i.limit.unwrap_or(50),
    )?)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LocateIn {
    /// `Page#Section|table:1|row:3|col:Length`, `Page|infobox:length`, a Wikipedia URL, …
    pub locator: String,
}

/// A locator in its canonical text form, and what it points at or why it points nowhere.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LocateAnswer {
    pub locator: Locator,
    #[serde(flatten)]
    pub resolution: Resolution,
}

/// What a locator points at, or why it points nowhere (as `wikiwit locate --json`).
pub fn locate(index: &Index, i: &LocateIn) -> Result<LocateAnswer, ToolError> {
    let locator = crate::locator::parse(&i.locator)
        .map_err(|e| ToolError::BadRequest(format!("{:?}: {e}", i.locator)))?;
    let resolution = crate::locator::resolve(index, &locator)?;
    Ok(LocateAnswer {
        locator,
        resolution,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FrontierIn {
    /// The page the question starts from.
    pub seed: String,
    /// The question.
    pub query: String,
    /// Only rows of this table of the seed (1-based).
    pub table: Option<usize>,
    /// Operators (outlinks, seed-table, seed-list, sibling-list, redirect, entity-page,
    /// category, count); default: the CLI's.
    pub ops: Option<Vec<String>>,
    /// At most this many pages (default 10).
    pub limit: Option<usize>,
}

/// The pages a question over the seed needs, each with its provenance.
pub fn frontier(index: &Index, i: &FrontierIn) -> Result<crate::frontier::Frontier, ToolError> {
    use crate::frontier::{Op, PlanOptions, planner::ROW_RATIO};
    let ops = match &i.ops {
        None => Op::DEFAULT.to_vec(),
        Some(v) if v.is_empty() => Op::DEFAULT.to_vec(),
        Some(v) => v
            .iter()
            .map(|o| {
                Op::parse(o.trim()).ok_or_else(|| {
                    let names: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
                    ToolError::BadRequest(format!(
                        "unknown operator {o:?}; known: {}",
                        names.join(", ")
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    let opts = PlanOptions {
        seed: i.seed.clone(),
        query: i.query.clone(),
        table: i.table,
        ops,
        limit: i.limit.unwrap_or(10),
        row_ratio: ROW_RATIO,
        page_weight: crate::frontier::planner::PAGE_WEIGHT,
        rules: crate::frontier::planner::Rules::default(),
    };
    match crate::frontier::plan(index, &opts) {
        Ok(f) => Ok(f),
        Err(e) if e.is_not_found() => Err(ToolError::NotFound(e.to_string())),
        Err(crate::frontier::FrontierError::BadRequest(m)) => Err(ToolError::BadRequest(m)),
        Err(e) => Err(ToolError::Internal(e.to_string())),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AuditIn {
    /// The contract (as `wikiwit audit` reads from its CONTRACT file).
    pub contract: Value,
    /// The staged rows: JSON lines, or CSV with a header line when `format` is `csv`.
    pub rows: String,
    /// `jsonl` (default) or `csv`.
    pub format: Option<String>,
}

/// An audit's summary (without a findings log: the findings are here) and its findings.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AuditAnswer {
    #[serde(flatten)]
    pub summary: crate::audit::Summary,
    /// Every finding, in log order.
    pub findings_list: Vec<crate::audit::Finding>,
}

/// Audits staged rows against a contract; the summary and every finding.
pub fn audit(index: &Index, i: &AuditIn) -> Result<AuditAnswer, ToolError> {
    let mut summary = run_audit(index, i)?;
    let findings_list = std::mem::take(&mut summary.kept);
    // The temporary log is gone when this returns; the findings are the answer.
    summary.findings_log = std::path::PathBuf::new();
    Ok(AuditAnswer {
        summary,
        findings_list,
    })
}

/// The audit of `i` in a temporary directory, its findings kept in the summary.
pub(crate) fn run_audit(index: &Index, i: &AuditIn) -> Result<crate::audit::Summary, ToolError> {
    let ext = match i.format.as_deref() {
        None | Some("jsonl") => "jsonl",
        Some("csv") => "csv",
        Some(other) => {
            return Err(ToolError::BadRequest(format!(
                "rows format {other:?}: jsonl or csv"
            )));
        }
    };
    let dir = tempfile::tempdir().map_err(|e| ToolError::Internal(e.to_string()))?;
    let contract = dir.path().join("contract.json");
    let rows = dir.path().join(format!("rows.{ext}"));
    let log = dir.path().join("findings.jsonl");
    let write = |p: &std::path::Path, b: &[u8]| {
        std::fs::write(p, b).map_err(|e| ToolError::Internal(e.to_string()))
    };
    write(
        &contract,
        &serde_json::to_vec(&i.contract).unwrap_or_default(),
    )?;
    write(&rows, i.rows.as_bytes())?;
    let opts = crate::audit::Options {
        keep_findings: true,
        ..Default::default()
    };
    crate::audit::audit(index, &contract, &rows, &log, &opts)
        .map_err(|e| ToolError::BadRequest(e.to_string()))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CiteIn {
    /// A markdown report with citations (as `wikiwit cite check` reads it).
    pub markdown: String,
}

/// Checks every citation of a report: existence, locator, support, quality.
pub fn cite_check(index: &Index, i: &CiteIn) -> Result<crate::cite::check::CheckReport, ToolError> {
    check_citations(index, i)
}

/// The typed check of `i`'s citations, as `cite check` makes it with default options.
pub fn check_citations(
    index: &Index,
    i: &CiteIn,
) -> Result<crate::cite::check::CheckReport, ToolError> {
    let parsed = crate::cite::parse::parse_report(&i.markdown);
    Ok(crate::cite::check::check_report(
        index,
        &i.markdown,
        &parsed,
        &crate::cite::check::CheckOptions::default(),
    )?)
}
