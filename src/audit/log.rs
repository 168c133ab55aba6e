//! The findings log: append-only JSON lines, separate from the rows. Besides findings it
//! records the table's lifecycle — `proposed` (first audit of a contract), `staged`
//! (first audit of these rows under it), `audited` (with the counts), `repaired` (an
//! audit with no blocking findings after one that had some) — so the log is the table's
//! history. Records carry no clock time: the same inputs append the same bytes.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::json;

use super::{AuditError, Finding, Summary};

/// What earlier runs recorded, read from the existing log.
#[derive(Default)]
struct History {
    contracts: Vec<String>,
    staged: Vec<(String, String)>,
    /// (contract sha, rows sha, blocking) of the last `audited` record per contract.
    last_audit: Vec<(String, String, u64)>,
}

/// Several `wikiwit audit` processes may append to one log: records are gathered whole
/// in `pending` and written under an exclusive lock of the file, each batch in one
/// `write_all` at the end (`O_APPEND`), so no record is torn or interleaved with
/// another process's.
pub(crate) struct Log {
    path: PathBuf,
    file: File,
    pending: Vec<u8>,
    history: History,
}

/// Records held before a locked append.
const BATCH: usize = 1 << 16;

impl Log {
    pub fn open(path: &Path) -> Result<Log, AuditError> {
        let err = |e| AuditError::Log {
            path: path.to_path_buf(),
            source: e,
        };
        let history = match File::open(path) {
            Ok(f) => read_history(BufReader::new(f)).map_err(err)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => History::default(),
            Err(e) => return Err(err(e)),
        };
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(err)?;
        Ok(Log {
            path: path.to_path_buf(),
            file: f,
            pending: Vec::with_capacity(BATCH),
            history,
        })
    }

    fn line(&mut self, v: &impl serde::Serialize) -> Result<(), AuditError> {
        serde_json::to_writer(&mut self.pending, v).map_err(|e| AuditError::Log {
            path: self.path.clone(),
            source: e.into(),
        })?;
        self.pending.push(b'\n');
        if self.pending.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends the pending whole records under an exclusive lock of the log.
    fn flush(&mut self) -> Result<(), AuditError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let err = |e: std::io::Error| AuditError::Log {
            path: self.path.clone(),
            source: e,
        };
        self.file.lock().map_err(err)?;
        let written = self.file.write_all(&self.pending);
        let unlocked = self.file.unlock();
        written.map_err(err)?;
        unlocked.map_err(err)?;
        self.pending.clear();
        Ok(())
    }

    pub fn write(&mut self, f: &Finding) -> Result<(), AuditError> {
        self.line(f)
    }

    /// Records `proposed` / `staged` when these inputs are new to the log.
    pub fn begin(
        &mut self,
        audit: &str,
        contract: &Path,
        contract_sha: &str,
        query: &str,
        rows: &Path,
        rows_sha: &str,
    ) -> Result<Vec<String>, AuditError> {
        let mut states = Vec::new();
        if !self.history.contracts.iter().any(|c| c == contract_sha) {
            self.line(&json!({
                "state": "proposed", "audit": audit,
                "contract": contract.display().to_string(),
                "contract_sha256": contract_sha, "query": query,
            }))?;
            states.push("proposed".to_string());
        }
        if !self
            .history
            .staged
            .iter()
            .any(|(c, r)| c == contract_sha && r == rows_sha)
        {
            self.line(&json!({
                "state": "staged", "audit": audit,
                "rows": rows.display().to_string(),
                "rows_sha256": rows_sha, "contract_sha256": contract_sha,
            }))?;
            states.push("staged".to_string());
        }
        Ok(states)
    }

    /// Records `audited` (and `repaired` when an earlier audit of the contract had
    /// blocking findings and this one has none), then flushes.
    pub fn finish(
        &mut self,
        audit: &str,
        contract_sha: &str,
        s: &Summary,
    ) -> Result<Vec<String>, AuditError> {
        let mut states = vec!["audited".to_string()];
        self.line(&json!({
            "state": "audited", "audit": audit,
            "contract_sha256": contract_sha, "rows_sha256": s.rows_sha256,
            "rows": s.rows, "findings": s.findings, "blocking": s.blocking,
            "hygiene": s.hygiene, "advisory": s.advisory, "rows_blocked": s.rows_blocked,
            "by_check": s.by_check,
        }))?;
        if let Some((_, prev_rows, prev_blocking)) = self
            .history
            .last_audit
            .iter()
            .find(|(c, _, _)| c == contract_sha)
            .cloned()
            && prev_blocking > 0
            && s.blocking == 0
            && prev_rows != s.rows_sha256
        {
            self.line(&json!({
                "state": "repaired", "audit": audit,
                "contract_sha256": contract_sha,
                "previous_rows_sha256": prev_rows, "previous_blocking": prev_blocking,
                "rows_sha256": s.rows_sha256,
            }))?;
            states.push("repaired".to_string());
        }
        self.flush()?;
        Ok(states)
    }
}

/// Reads the state records of an existing log (finding lines are skipped unparsed).
fn read_history(r: impl BufRead) -> std::io::Result<History> {
    let mut h = History::default();
    let mut buf = Vec::new();
    let mut r = r;
    while let Some(fits) = super::rows::read_line_bounded(&mut r, &mut buf, super::rows::MAX_LINE)?
    {
        if !fits || memchr::memmem::find(&buf, b"\"state\":").is_none() {
            continue;
        }
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&buf) else {
            continue;
        };
        let get = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
        match v.get("state").and_then(|s| s.as_str()) {
            Some("proposed") => h.contracts.push(get("contract_sha256")),
            Some("staged") => h.staged.push((get("contract_sha256"), get("rows_sha256"))),
            Some("audited") => {
                let c = get("contract_sha256");
                let blocking = v.get("blocking").and_then(|x| x.as_u64()).unwrap_or(0);
                h.last_audit.retain(|(x, _, _)| *x != c);
                h.last_audit.push((c, get("rows_sha256"), blocking));
            }
            _ => {}
        }
    }
    Ok(h)
}
