//! What an audit keeps so that it can be resumed after a kill: a side directory beside
//! the findings log (`LOG.resume/<audit>-<offset>/`, the offset being where the run's
//! `started` record begins) holding the summaries' sorted runs and `state.json`, which
//! says, for the last two checkpoints, which runs hold the rows up to it and which
//! count-source items they staged. The log's `checkpoint` record is written after
//! `state.json`, so the log's last checkpoint always has its state here.
//!
//! A run holds an exclusive lock on `lock` in its directory while it lives: a run that
//! is still going is never taken for an interrupted one, and a directory nobody holds is
//! left over (removed by the next run once it has a state).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::log::{LastRun, Progress};
use super::summaries::{Summaries, SummariesCheckpoint};

/// The state of one checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Saved {
    pub rows: usize,
    pub summaries: SummariesCheckpoint,
    /// Count-source items staged so far (`0`/`1` each).
    pub coverage: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    audit: String,
    saved: Vec<Saved>,
}

/// A run's side directory, locked while the run lives.
pub(crate) struct SideDir {
    dir: PathBuf,
    _lock: File,
    state: State,
}

/// An interrupted run taken over: where it got to and what it had kept.
pub(crate) struct Resumed {
    pub progress: Progress,
    pub saved: Saved,
    /// Where the log's records of the run begin, and where its last checkpoint ends.
    pub start: u64,
    pub log_end: u64,
    /// Lifecycle states the interrupted run recorded.
    pub states: Vec<String>,
}

/// The folder holding the side directories of `log`'s runs.
fn parent_of(log: &Path) -> PathBuf {
    let mut name = log.file_name().unwrap_or_default().to_os_string();
    name.push(".resume");
    log.with_file_name(name)
}

fn dir_for(log: &Path, audit: &str, start: u64) -> PathBuf {
    parent_of(log).join(format!("{audit}-{start}"))
}

/// Opens and locks `dir`'s lock file; `None` when another run holds it.
fn lock(dir: &Path) -> std::io::Result<Option<File>> {
    let f = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("lock"))?;
    match f.try_lock() {
        Ok(()) => Ok(Some(f)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

impl SideDir {
    /// Takes over `run`, the log's interrupted last run of this audit, when its side
    /// directory is free and has the state of its last checkpoint; `None` otherwise (the
    /// audit then starts a run of its own).
    pub fn resume(log: &Path, run: &LastRun, audit: &str) -> Option<(SideDir, Resumed)> {
        let (log_end, progress) = run.checkpoint.clone()?;
        if run.audit != audit || run.finished || run.foreign_after {
            return None;
        }
        let dir = dir_for(log, audit, run.start);
        let lock = lock(&dir).ok()??;
        let state: State =
            serde_json::from_slice(&std::fs::read(dir.join("state.json")).ok()?).ok()?;
        let saved = state
            .saved
            .iter()
            .find(|s| s.rows == progress.rows && state.audit == audit)?
            .clone();
        let keep: Vec<&str> = Summaries::files(&saved.summaries).collect();
        if keep.iter().any(|f| !dir.join(f).is_file()) {
            return None;
        }
        // Runs written after the checkpoint (and a killed merge's output) go.
        for e in std::fs::read_dir(&dir).ok()?.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name != "lock" && name != "state.json" && !keep.contains(&&*name) {
                std::fs::remove_file(e.path()).ok()?;
            }
        }
        let side = SideDir {
            dir,
            _lock: lock,
            state,
        };
        side.remove_stale(log);
        let resumed = Resumed {
            progress,
            saved,
            start: run.start,
            log_end,
            states: run.states.clone(),
        };
        Some((side, resumed))
    }

    /// A new side directory for the run whose `started` record begins at `start`.
    pub fn create(log: &Path, audit: &str, start: u64) -> std::io::Result<SideDir> {
        let dir = dir_for(log, audit, start);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        let lock = lock(&dir)?.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                format!("{} is locked by another audit", dir.display()),
            )
        })?;
        let side = SideDir {
            dir,
            _lock: lock,
            state: State {
                audit: audit.to_string(),
                saved: Vec::new(),
            },
        };
        side.remove_stale(log);
        Ok(side)
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Removes the side directories of `log`'s other runs that nobody holds and that got
    /// as far as a state (one without is a run still setting itself up).
    fn remove_stale(&self, log: &Path) {
        let Ok(entries) = std::fs::read_dir(parent_of(log)) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p == self.dir || !p.join("state.json").is_file() {
                continue;
            }
            if let Ok(Some(_held)) = lock(&p) {
                let _ = std::fs::remove_dir_all(&p);
            }
        }
    }

    /// Records the state of a checkpoint (keeping the one before, which the log's last
    /// checkpoint names until the new record is written).
    pub fn save(&mut self, saved: Saved) -> std::io::Result<()> {
        self.state.saved.push(saved);
        if self.state.saved.len() > 2 {
            self.state.saved.remove(0);
        }
        let tmp = self.dir.join("state.json.tmp");
        let mut f = File::create(&tmp)?;
        f.write_all(&serde_json::to_vec(&self.state)?)?;
        drop(f);
        std::fs::rename(&tmp, self.dir.join("state.json"))
    }

    /// The run is over: its directory goes (and the folder of side directories, when it
    /// was the last).
    pub fn remove(self, log: &Path) {
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = std::fs::remove_dir(parent_of(log));
    }
}
