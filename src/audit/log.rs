//! The findings log: append-only JSON lines, separate from the rows. Besides findings it
//! records the table's lifecycle — `proposed` (first audit of a contract), `staged`
//! (first audit of these rows under it), `audited` (with the counts), `repaired` (an
//! audit with no blocking findings after one that had some) — so the log is the table's
//! history. Records carry no clock time: the same inputs append the same bytes.
//!
//! Each run opens with `started` and records `checkpoint`s (rows audited so far, where
//! the next row starts, the counts): the log says how far an interrupted audit got, and
//! an audit of the same inputs goes on from its last checkpoint (`super::resume`). The
//! format is described in docs/auditor.md.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{AuditError, Finding, Summary};

/// The version of the log's records, written in each run's `started` record. 2: runs
/// are marked (`started`, `checkpoint`), and a last line without its newline is the
/// remains of an interrupted write, which readers skip and the next writer removes.
pub(crate) const FORMAT: u32 = 2;

/// How far an audit got, as a `checkpoint` record says: the rows audited (and where
/// the next one starts in the rows file) and the counts of what they were found to have.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Progress {
    pub rows: usize,
    pub line: u64,
    pub offset: u64,
    pub findings: usize,
    pub blocking: usize,
    pub hygiene: usize,
    pub advisory: usize,
    pub rows_blocked: usize,
    pub by_check: BTreeMap<u8, usize>,
}

/// A `checkpoint` record as written (read back as its [`Progress`]: serde's flatten
/// cannot read the number keys of `by_check`).
#[derive(Serialize)]
struct CheckpointRecord {
    state: String,
    audit: String,
    #[serde(flatten)]
    progress: Progress,
}

/// The last run the log holds (the last `started` record and what follows it).
#[derive(Debug, Clone, Default)]
pub(crate) struct LastRun {
    pub audit: String,
    /// Where its `started` record begins.
    pub start: u64,
    pub checkpoint_rows: usize,
    /// Lifecycle states it recorded (`proposed`, `staged`).
    pub states: Vec<String>,
    /// Its last checkpoint and where that record ends.
    pub checkpoint: Option<(u64, Progress)>,
    /// An `audited` record ended it.
    pub finished: bool,
    /// After its last checkpoint come records that are not its findings (another
    /// audit's, or too long to tell): it cannot be resumed without losing them.
    pub foreign_after: bool,
}

/// What earlier runs recorded, read from the existing log.
#[derive(Default)]
struct History {
    contracts: Vec<String>,
    staged: Vec<(String, String)>,
    /// (contract sha, rows sha, blocking) of the last `audited` record per contract.
    last_audit: Vec<(String, String, u64)>,
    last_run: Option<LastRun>,
}

/// Several `wikiwit audit` processes may append to one log: records are gathered whole
/// in `pending` and written under an exclusive lock of the file, each batch in one
/// `write_all` at the end (`O_APPEND`), so no record is interleaved with another
/// process's. A process killed in the middle of a write can leave a record torn at the
/// end of the log: the next writer, holding the lock, cuts it off before appending.
pub(crate) struct Log {
    path: PathBuf,
    file: File,
    pending: Vec<u8>,
    history: History,
}

/// Bytes of records held before a locked append.
const BATCH: usize = 1 << 20;

impl Log {
    pub fn open(path: &Path) -> Result<Log, AuditError> {
        let err = |e| AuditError::Log {
            path: path.to_path_buf(),
            source: e,
        };
        let history = match File::open(path) {
            Ok(f) => read_history(BufReader::with_capacity(1 << 20, f)).map_err(err)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => History::default(),
            Err(e) => return Err(err(e)),
        };
        let f = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(path)
            .map_err(err)?;
        let mut log = Log {
            path: path.to_path_buf(),
            file: f,
            pending: Vec::with_capacity(BATCH),
            history,
        };
        log.locked(|file| {
            let end = torn_tail(file)?;
            if end != file.metadata()?.len() {
                file.set_len(end)?;
            }
            Ok(())
        })?;
        Ok(log)
    }

    /// The last run the log held when it was opened.
    pub fn last_run(&self) -> Option<&LastRun> {
        self.history.last_run.as_ref()
    }

    /// Runs `f` on the file under the log's exclusive lock.
    fn locked<T>(
        &mut self,
        f: impl FnOnce(&mut File) -> std::io::Result<T>,
    ) -> Result<T, AuditError> {
        let err = |e: std::io::Error| AuditError::Log {
            path: self.path.clone(),
            source: e,
        };
        self.file.lock().map_err(err)?;
        let done = f(&mut self.file);
        let unlocked = self.file.unlock();
        let v = done.map_err(err)?;
        unlocked.map_err(err)?;
        Ok(v)
    }

    /// Cuts the log back to `end` (the end of an interrupted run's last checkpoint), to
    /// go on from there.
    pub fn truncate(&mut self, end: u64) -> Result<(), AuditError> {
        self.locked(|file| file.set_len(end))
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

    /// Appends the pending whole records under an exclusive lock of the log; returns
    /// where they end.
    fn flush(&mut self) -> Result<u64, AuditError> {
        let pending = std::mem::take(&mut self.pending);
        let end = self.locked(|file| {
            // In two writes, so that the kill tests can stop one half-way (a torn record).
            let half = pending.len() / 2;
            file.write_all(&pending[..half])?;
            crate::index::fault::point("audit-write");
            file.write_all(&pending[half..])?;
            Ok(file.metadata()?.len())
        })?;
        self.pending = pending;
        self.pending.clear();
        Ok(end)
    }

    pub fn write(&mut self, f: &Finding) -> Result<(), AuditError> {
        super::record::write(&mut self.pending, f);
        if self.pending.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends whole records, already written as JSON lines.
    pub fn append(&mut self, records: &[u8]) -> Result<(), AuditError> {
        self.pending.extend_from_slice(records);
        if self.pending.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    /// Records that these rows are audited up to `p`, once every finding before it is
    /// in the log.
    pub fn checkpoint(&mut self, audit: &str, p: &Progress) -> Result<(), AuditError> {
        self.line(&CheckpointRecord {
            state: "checkpoint".into(),
            audit: audit.into(),
            progress: p.clone(),
        })?;
        self.flush().map(drop)
    }

    /// Starts a run: `started` (where it begins is returned), then `proposed` /
    /// `staged` when these inputs are new to the log (the states recorded).
    pub fn begin(
        &mut self,
        audit: &str,
        checkpoint_rows: usize,
        inputs: &Inputs<'_>,
    ) -> Result<(u64, Vec<String>), AuditError> {
        self.line(&json!({
            "state": "started", "audit": audit, "log_format": FORMAT,
            "checkpoint_rows": checkpoint_rows,
        }))?;
        let len = self.pending.len() as u64;
        let start = self.flush()? - len;
        let mut states = Vec::new();
        let contract_sha = inputs.contract_sha;
        if !self.history.contracts.iter().any(|c| c == contract_sha) {
            self.line(&json!({
                "state": "proposed", "audit": audit,
                "contract": inputs.contract.display().to_string(),
                "contract_sha256": contract_sha, "query": inputs.query,
            }))?;
            states.push("proposed".to_string());
        }
        if !self
            .history
            .staged
            .iter()
            .any(|(c, r)| c == contract_sha && r == inputs.rows_sha)
        {
            self.line(&json!({
                "state": "staged", "audit": audit,
                "rows": inputs.rows.display().to_string(),
                "rows_sha256": inputs.rows_sha, "contract_sha256": contract_sha,
            }))?;
            states.push("staged".to_string());
        }
        Ok((start, states))
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

/// The inputs of an audit, as its first records name them.
pub(crate) struct Inputs<'a> {
    pub contract: &'a Path,
    pub contract_sha: &'a str,
    pub query: &'a str,
    pub rows: &'a Path,
    pub rows_sha: &'a str,
}

/// Where the log's whole records end: before a last line without its newline.
fn torn_tail(file: &mut File) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let mut end = len;
    let mut buf = vec![0u8; 1 << 16];
    while end > 0 {
        let from = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - from) as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(chunk)?;
        match memchr::memrchr(b'\n', chunk) {
            Some(p) => return Ok(from + p as u64 + 1),
            None => end = from,
        }
    }
    Ok(0)
}

/// Reads the state records of an existing log (finding lines are skipped unparsed, but
/// for the audit they begin with) and follows its last run.
fn read_history(r: impl BufRead) -> std::io::Result<History> {
    let mut h = History::default();
    let mut buf = Vec::new();
    let mut r = r;
    let mut offset = 0u64;
    while let Some((fits, used)) =
        super::rows::read_line_bounded(&mut r, &mut buf, super::rows::MAX_LINE)?
    {
        let start = offset;
        offset += used;
        if fits && used == buf.len() as u64 {
            break; // the torn remains of an interrupted write: not a record
        }
        let state = fits && memchr::memmem::find(&buf, b"\"state\":").is_some();
        let v = match state {
            true => serde_json::from_slice::<serde_json::Value>(&buf).ok(),
            false => None,
        };
        let Some(v) = v else {
            if let Some(run) = &mut h.last_run {
                let ours =
                    fits && buf.starts_with(format!("{{\"audit\":\"{}\"", run.audit).as_bytes());
                run.foreign_after |= !ours;
            }
            continue;
        };
        follow_run(&mut h.last_run, &v, start, offset);
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

/// Follows the last run through one state record `v` (at bytes `start..end`).
fn follow_run(run: &mut Option<LastRun>, v: &serde_json::Value, start: u64, end: u64) {
    let audit = v.get("audit").and_then(|x| x.as_str()).unwrap_or("");
    let state = v.get("state").and_then(|s| s.as_str()).unwrap_or("");
    if state == "started" {
        *run = Some(LastRun {
            audit: audit.to_string(),
            start,
            checkpoint_rows: v
                .get("checkpoint_rows")
                .and_then(|x| x.as_u64())
                .unwrap_or(0) as usize,
            ..LastRun::default()
        });
        return;
    }
    let Some(run) = run else { return };
    match state {
        _ if audit != run.audit => run.foreign_after = true,
        "proposed" | "staged" if run.checkpoint.is_none() => run.states.push(state.to_string()),
        "checkpoint" => match Progress::deserialize(v) {
            Ok(p) => {
                run.checkpoint = Some((end, p));
                run.foreign_after = false;
            }
            Err(_) => run.foreign_after = true,
        },
        "audited" => run.finished = true,
        _ => run.foreign_after = true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(log: &str) -> History {
        read_history(log.as_bytes()).unwrap()
    }

    #[test]
    fn the_last_run_and_how_far_it_got() {
        let started = r#"{"audit":"a1","checkpoint_rows":4,"log_format":2,"state":"started"}"#;
        let staged =
            r#"{"audit":"a1","contract_sha256":"c","rows":"r","rows_sha256":"r","state":"staged"}"#;
        let cp = |rows: usize| {
            serde_json::to_string(&CheckpointRecord {
                state: "checkpoint".into(),
                audit: "a1".into(),
                progress: Progress {
                    rows,
                    by_check: [(2, rows), (5, 1)].into(),
                    ..Progress::default()
                },
            })
            .unwrap()
        };
        let finding = r#"{"audit":"a1","check":2,"message":"x"}"#;
        let other = r#"{"audit":"b2","check":2,"message":"x"}"#;
        let log = format!(
            "{started}\n{staged}\n{}\n{finding}\n{}\n{finding}\n{{\"audit\":\"a1\",\"ch",
            cp(0),
            cp(4)
        );
        let h = history(&log);
        let run = h.last_run.unwrap();
        assert_eq!(
            (run.audit.as_str(), run.start, run.checkpoint_rows),
            ("a1", 0, 4)
        );
        assert_eq!(run.states, ["staged"]);
        let (end, p) = run.checkpoint.unwrap();
        assert_eq!((p.rows, p.by_check[&2]), (4, 4));
        let upto = log.find(&cp(4)).unwrap() + cp(4).len() + 1;
        assert_eq!(end, upto as u64);
        assert!(!run.finished && !run.foreign_after);
        assert_eq!(h.staged, [("c".to_string(), "r".to_string())]);
        // Another audit's finding after the checkpoint: not resumable.
        let h = history(&format!("{log}\n{other}\n"));
        assert!(h.last_run.unwrap().foreign_after);
        // A torn last line ends the log where it starts.
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(log.as_bytes()).unwrap();
        assert_eq!(
            torn_tail(&mut f).unwrap(),
            log.rfind('\n').unwrap() as u64 + 1
        );
        f.write_all(b"\n").unwrap();
        assert_eq!(torn_tail(&mut f).unwrap(), log.len() as u64 + 1);
    }
}
