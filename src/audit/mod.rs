//! The staged-table auditor: holds a table whose every row cites a page and a locator to
//! its contract, with twelve checks, and appends what it finds to a findings log. It
//! reads the rows (read-only, hashed before and after) and never edits them.
//!
//! Flow: the contract is read and validated ([`contract`]); the rows are streamed in
//! batches ([`rows`], each JSON record read straight into a row by `json_row`); each
//! batch's rows are checked in parallel (`row_checks`, rayon) against the
//! memory-mapped index through one shared `Resolver` that decodes each cited page once;
//! what the table-level checks need from each row goes to sorters that spill under the
//! memory budget (`summaries`); after the last row those checks stream out of them
//! (`table_checks`: keys, counts, sources). Findings go to the log in row order as they
//! are found, so the same inputs give the same bytes at any thread count and budget
//! (`log`); checkpoints in the log and a side directory let an interrupted audit go on
//! where it stopped (`resume`). The run itself is `run`.

pub mod checks;
pub mod contract;
mod count;
mod json_row;
mod log;
mod memo;
pub mod numbers;
pub mod pieces;
mod record;
mod resume;
mod row_checks;
pub mod rows;
mod run;
mod summaries;
mod table_checks;
pub mod values;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::Digest;

pub(crate) use checks::Severity;
pub use checks::{Category, Check};
pub use contract::{Contract, ContractError};
pub(crate) use count::count_items;
pub use count::is_note_row;
pub use row_checks::RowSummary;

use crate::index::{Index, IndexError};
use crate::locator::Resolver;

/// One finding, as written to the log (one JSON object per line).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Finding {
    /// Identifies the inputs (contract, rows, index): the same inputs, the same id.
    pub audit: String,
    pub check: u8,
    pub name: &'static str,
    pub category: Category,
    pub severity: Severity,
    /// 0-based row number (records in file order); absent for table-level findings.
    pub row: Option<usize>,
    /// 1-based line where the record starts.
    pub line: Option<u64>,
    /// The row's primary key values, joined by ` | `.
    pub key: Option<String>,
    pub locator: Option<String>,
    /// What the locator's content says (cell texts, sentence, field value).
    pub evidence: Option<String>,
    pub message: String,
}

/// Why an audit could not run (exit code 2). Bad rows are findings, not errors.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Contract(#[from] ContractError),
    #[error("{path}: {source}")]
    Rows {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Log {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("{path} changed while it was being audited (sha256 {before} before, {after} after)")]
    Changed {
        path: PathBuf,
        before: String,
        after: String,
    },
    #[error("the findings log {0} is one of the inputs; findings go to a separate file")]
    LogIsInput(PathBuf),
    #[error("cannot start {0} threads: {1}")]
    Threads(usize, String),
}

/// How to run an audit.
#[derive(Debug, Clone)]
pub struct Options {
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Rows checked per parallel batch (bounds memory).
    pub batch: usize,
    /// Also return every finding in [`Summary::kept`] (for a report rendered from the
    /// run; memory grows with the findings). Such a run does not resume another.
    pub keep_findings: bool,
    /// Bytes the audit's sorters and page cache may hold (`None`: the build's default,
    /// 512 MiB). The findings are the same whatever the budget.
    pub memory_budget: Option<u64>,
    /// Rows between two checkpoints of the findings log.
    pub checkpoint_rows: usize,
    /// Go on from where an interrupted audit of the same inputs into the same log
    /// stopped (its last checkpoint), instead of starting over.
    pub resume: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 0,
            batch: 8192,
            keep_findings: false,
            memory_budget: None,
            checkpoint_rows: 1 << 20,
            resume: true,
        }
    }
}

impl Options {
    /// The memory budget in bytes.
    fn budget(&self) -> usize {
        let b = self
            .memory_budget
            .unwrap_or(crate::indexer::DEFAULT_MEMORY_BUDGET);
        usize::try_from(b).unwrap_or(usize::MAX)
    }
}

/// What an audit found, for the summary line and the exit code.
#[derive(Debug, Clone, Default, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub audit: String,
    pub contract_sha256: String,
    pub rows_sha256: String,
    pub rows: usize,
    pub findings: usize,
    pub blocking: usize,
    pub hygiene: usize,
    pub advisory: usize,
    /// Rows with at least one blocking finding.
    pub rows_blocked: usize,
    /// Findings per check id.
    pub by_check: BTreeMap<u8, usize>,
    /// Lifecycle states this run recorded (`proposed`, `staged`, `audited`, `repaired`).
    pub states: Vec<String>,
    /// Where the findings were written; empty, and left out, when they are returned
    /// instead (the MCP tool and `/v1/audit` answer with them).
    #[serde(skip_serializing_if = "is_empty_path")]
    pub findings_log: PathBuf,
    /// Where this audit's records begin in the findings log (for a resumed audit, those
    /// of the run it resumed), so a reader can take exactly them.
    pub log_offset: u64,
    /// The rows an interrupted audit had done when this one took over from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed_from: Option<usize>,
    /// Sorted runs the per-row summaries were spilled to (0: they stayed in memory).
    #[serde(skip)]
    pub spilled_runs: u64,
    /// This run's findings in log order, when [`Options::keep_findings`] asked for them.
    #[serde(skip)]
    pub kept: Vec<Finding>,
}

fn is_empty_path(p: &std::path::Path) -> bool {
    p.as_os_str().is_empty()
}

/// Shared state of one audit.
pub(crate) struct Ctx<'a> {
    pub contract: &'a Contract,
    /// The contract's columns by name, with their position (rows look theirs up several
    /// times each).
    columns: rustc_hash::FxHashMap<&'a str, (usize, &'a contract::ColumnSpec)>,
    pub filters: Vec<contract::Filter>,
    pub resolver: Resolver<'a>,
    pub as_of: Option<values::Date>,
    /// The wiki language's decimal mark, for figures in values and cells.
    pub mark: numbers::DecimalMark,
    pub audit: String,
    severities: [Severity; 13],
}

impl Ctx<'_> {
    /// The contract's column `name`.
    pub fn column(&self, name: &str) -> Option<&contract::ColumnSpec> {
        self.columns.get(name).map(|c| c.1)
    }

    /// A row's value of each contract column, in the contract's order: a row names a few
    /// of the declared columns, so one pass over its values replaces a lookup in them per
    /// declared column and check.
    pub fn values_of<'r>(&self, row: &'r rows::StagedRow) -> Vec<Option<&'r rows::Value>> {
        let mut out = vec![None; self.contract.columns.len()];
        for (name, v) in &row.values {
            if let Some(&(i, _)) = self.columns.get(name.as_str()) {
                out[i] = Some(v);
            }
        }
        out
    }

    /// Whether `name` is a primary key column.
    pub fn is_key(&self, name: &str) -> bool {
        self.contract.primary_key.iter().any(|k| k == name)
    }

    /// The contract's severity for `check`.
    pub fn severity(&self, check: Check) -> Severity {
        self.severities[check.id() as usize]
    }

    /// A finding of `check` with the contract's severity for it.
    pub fn finding(&self, check: Check, message: String) -> Finding {
        Finding {
            audit: self.audit.clone(),
            check: check.id(),
            name: check.name(),
            category: check.category(),
            severity: self.severities[check.id() as usize],
            row: None,
            line: None,
            key: None,
            locator: None,
            evidence: None,
            message,
        }
    }
}

/// What a decoded page with tables holds in memory, about (its structure: cells, links,
/// sections), for sizing the page cache by the budget.
const PAGE_BYTES: usize = 64 << 10;
/// What a cached title lookup holds, about (the title, the page or the reason).
const TITLE_BYTES: usize = 256;

/// A validated contract with what every check needs from it (severities, filters, the
/// as-of date) and the audit's id: shared by [`audit`] and the audit in pieces
/// ([`pieces`]).
pub struct Prepared {
    contract: Contract,
    filters: Vec<contract::Filter>,
    as_of: Option<values::Date>,
    severities: [Severity; 13],
    audit: String,
}

impl Prepared {
    /// `name` says where the contract came from, for errors.
    pub fn new(contract: Contract, name: &str, audit: String) -> Result<Prepared, ContractError> {
        let mut severities = [Severity::Advisory; 13];
        for c in checks::ALL {
            severities[c.id() as usize] = contract
                .severity
                .get(&c.id().to_string())
                .copied()
                .unwrap_or(c.default_severity());
        }
        let filters = contract
            .filters()
            .map_err(|message| ContractError::Invalid {
                path: name.to_string(),
                message,
            })?;
        let as_of = contract
            .scope
            .as_of
            .as_deref()
            .and_then(values::parse_date_strict);
        Ok(Prepared {
            contract,
            filters,
            as_of,
            severities,
            audit,
        })
    }

    pub fn contract(&self) -> &Contract {
        &self.contract
    }

    pub(crate) fn ctx<'a>(&'a self, index: &'a Index) -> Ctx<'a> {
        self.ctx_with(index, Resolver::new(index))
    }

    /// A context whose page and title caches hold about what `budget` bytes allow: a
    /// quarter for decoded pages (taken at [`PAGE_BYTES`] each), an eighth for titles.
    pub(crate) fn ctx_in<'a>(&'a self, index: &'a Index, budget: usize) -> Ctx<'a> {
        let resolver =
            Resolver::with_capacity(index, budget / 4 / PAGE_BYTES, budget / 8 / TITLE_BYTES);
        self.ctx_with(index, resolver)
    }

    fn ctx_with<'a>(&'a self, index: &'a Index, resolver: Resolver<'a>) -> Ctx<'a> {
        Ctx {
            contract: &self.contract,
            columns: self
                .contract
                .columns
                .iter()
                .enumerate()
                .map(|(i, c)| (c.name.as_str(), (i, c)))
                .collect(),
            filters: self.filters.clone(),
            resolver,
            as_of: self.as_of,
            audit: self.audit.clone(),
            severities: self.severities,
            mark: numbers::DecimalMark::for_lang(&index.manifest().site.lang),
        }
    }
}

fn sha256_file(path: &Path) -> Result<String, AuditError> {
    let mut f = std::fs::File::open(path).map_err(|e| AuditError::Rows {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut h = sha2::Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| AuditError::Rows {
            path: path.to_path_buf(),
            source: e,
        })?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Audits `rows_path` against `contract_path`, appending to `findings_log`.
pub fn audit(
    index: &Index,
    contract_path: &Path,
    rows_path: &Path,
    findings_log: &Path,
    opts: &Options,
) -> Result<Summary, AuditError> {
    if same_file(findings_log, rows_path) || same_file(findings_log, contract_path) {
        return Err(AuditError::LogIsInput(findings_log.to_path_buf()));
    }
    let (contract, contract_bytes) = Contract::read(contract_path)?;
    let contract_sha = hex(&sha2::Sha256::digest(&contract_bytes));
    let rows_sha = sha256_file(rows_path)?;
    let index_id = &index.manifest().source.sha256;
    let audit_id = hex(&sha2::Sha256::digest(
        format!("{contract_sha}\n{rows_sha}\n{index_id}\n").as_bytes(),
    ))[..16]
        .to_string();
    let prepared = Prepared::new(
        contract,
        &contract_path.display().to_string(),
        audit_id.clone(),
    )?;
    let ctx = prepared.ctx_in(index, opts.budget());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| AuditError::Threads(opts.threads, e.to_string()))?;
    let setup = run::Setup {
        audit: &audit_id,
        inputs: log::Inputs {
            contract: contract_path,
            contract_sha: &contract_sha,
            query: &prepared.contract.query,
            rows: rows_path,
            rows_sha: &rows_sha,
        },
        log: findings_log,
    };
    run::run(&ctx, &pool, &setup, opts)
}
