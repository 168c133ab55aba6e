//! The staged-table auditor: holds a table whose every row cites a page and a locator to
//! its contract, with twelve checks, and appends what it finds to a findings log. It
//! reads the rows (read-only, hashed before and after) and never edits them.
//!
//! Flow: the contract is read and validated ([`contract`]); the rows are streamed in
//! batches ([`rows`]); each batch's rows are checked in parallel (`row_checks`, rayon)
//! against the memory-mapped index through one shared `Resolver` that decodes each
//! cited page once; then the table-level checks run on what the rows left behind
//! (`table_checks`: keys, counts, sources); findings go to the log in row order, so the
//! same inputs give the same bytes at any thread count (`log`).

pub mod checks;
pub mod contract;
mod count;
mod log;
pub mod numbers;
pub mod pieces;
mod row_checks;
pub mod rows;
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
    /// run; memory grows with the findings).
    pub keep_findings: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            threads: 0,
            batch: 8192,
            keep_findings: false,
        }
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
    pub filters: Vec<contract::Filter>,
    pub resolver: Resolver<'a>,
    pub as_of: Option<values::Date>,
    /// The wiki language's decimal mark, for figures in values and cells.
    pub mark: numbers::DecimalMark,
    pub audit: String,
    severities: [Severity; 13],
}

impl Ctx<'_> {
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
        Ctx {
            contract: &self.contract,
            filters: self.filters.clone(),
            resolver: Resolver::new(index),
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
    let contract = &prepared.contract;
    let ctx = prepared.ctx(index);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()
        .map_err(|e| AuditError::Threads(opts.threads, e.to_string()))?;

    let mut log = log::Log::open(findings_log)?;
    let mut summary = Summary {
        audit: audit_id.clone(),
        contract_sha256: contract_sha.clone(),
        rows_sha256: rows_sha.clone(),
        findings_log: findings_log.to_path_buf(),
        ..Default::default()
    };
    let keep = opts.keep_findings;
    summary.states = log.begin(
        &audit_id,
        contract_path,
        &contract_sha,
        &contract.query,
        rows_path,
        &rows_sha,
    )?;

    let rows_err = |e| AuditError::Rows {
        path: rows_path.to_path_buf(),
        source: e,
    };
    let mut reader = rows::RowReader::open(rows_path).map_err(rows_err)?;
    let mut table = table_checks::TableState::default();
    let mut header_findings = row_checks::header_findings(&ctx, reader.header(), reader.format());
    record(&mut summary, &mut log, &mut header_findings, keep)?;
    loop {
        let batch = reader.batch(opts.batch.max(1)).map_err(rows_err)?;
        if batch.is_empty() {
            break;
        }
        let outcomes: Vec<Result<row_checks::RowOutcome, IndexError>> = pool.install(|| {
            use rayon::prelude::*;
            batch
                .par_iter()
                .map(|item| row_checks::check(&ctx, item, reader.format()))
                .collect()
        });
        for o in outcomes {
            let mut o = o?;
            summary.rows += 1;
            if o.findings.iter().any(|f| f.severity == Severity::Blocking) {
                summary.rows_blocked += 1;
            }
            record(&mut summary, &mut log, &mut o.findings, keep)?;
            table.add(o.summary);
        }
    }
    let mut table_findings = table_checks::run(&ctx, &table, summary.rows)?;
    for f in &table_findings {
        if f.severity == Severity::Blocking
            && let Some(r) = f.row
            && !table.blocked(r)
        {
            summary.rows_blocked += 1;
            table.mark_blocked(r);
        }
    }
    record(&mut summary, &mut log, &mut table_findings, keep)?;
    let after = sha256_file(rows_path)?;
    if after != rows_sha {
        return Err(AuditError::Changed {
            path: rows_path.to_path_buf(),
            before: rows_sha,
            after,
        });
    }
    let end = log.finish(&audit_id, &contract_sha, &summary)?;
    summary.states.extend(end);
    Ok(summary)
}

fn record(
    summary: &mut Summary,
    log: &mut log::Log,
    findings: &mut Vec<Finding>,
    keep: bool,
) -> Result<(), AuditError> {
    for f in findings.drain(..) {
        summary.findings += 1;
        *summary.by_check.entry(f.check).or_default() += 1;
        match f.severity {
            Severity::Blocking => summary.blocking += 1,
            Severity::Hygiene => summary.hygiene += 1,
            Severity::Advisory => summary.advisory += 1,
        }
        log.write(&f)?;
        if keep {
            summary.kept.push(f);
        }
    }
    Ok(())
}
