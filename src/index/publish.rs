//! Building an index next to its final place and swapping it in atomically.
//!
//! A build writes into a hidden temporary directory beside the target. Only when every
//! file is written and synced is it exchanged with the target (`renameat2` with
//! `RENAME_EXCHANGE`, so there is no instant without an index), after which the old
//! index is deleted. A failed, interrupted or killed build leaves the previous index
//! untouched; its temporary directory is removed on error, or by the next build.

use std::fs::File;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

use super::{IndexError, manifest};

/// A build in progress: the lock on the target and the temporary directory.
pub(crate) struct Staging {
    target: PathBuf,
    name: String,
    tmp: TempDir,
    _lock: File,
}

const TMP_PREFIX: &str = ".wikiwit-building-";
const SPILL_PREFIX: &str = ".wikiwit-spill-";

impl Staging {
    /// Prepares to build `target`: refuses to replace a directory that is not a wikiwit
    /// index, takes a lock so two builds cannot race, and removes leftovers of killed
    /// builds.
    pub fn begin(target: &Path) -> Result<Staging, IndexError> {
        let name = target
            .file_name()
            .ok_or_else(|| IndexError::BadTarget {
                path: target.to_path_buf(),
                reason: "it has no directory name".into(),
            })?
            .to_string_lossy()
            .into_owned();
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| IndexError::io(&parent, e))?;
        if target.exists() {
            if !target.is_dir() {
                return Err(IndexError::BadTarget {
                    path: target.to_path_buf(),
                    reason: "it exists and is not a directory".into(),
                });
            }
            let empty = std::fs::read_dir(target)
                .map_err(|e| IndexError::io(target, e))?
                .next()
                .is_none();
            if !empty && !target.join(manifest::FILE).exists() {
                return Err(IndexError::BadTarget {
                    path: target.to_path_buf(),
                    reason: "it is a non-empty directory that is not a wikiwit index; refusing to replace it".into(),
                });
            }
        }
        let lock_path = parent.join(format!(".{name}.lock"));
        let lock = File::create(&lock_path).map_err(|e| IndexError::io(&lock_path, e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(IndexError::Busy {
                    path: target.to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(IndexError::io(&lock_path, e)),
        }
        remove_stale(&parent, &format!("{TMP_PREFIX}{name}-"));
        let tmp = tempfile::Builder::new()
            .prefix(&format!("{TMP_PREFIX}{name}-"))
            .tempdir_in(&parent)
            .map_err(|e| IndexError::io(&parent, e))?;
        Ok(Staging {
            target: target.to_path_buf(),
            name,
            tmp,
            _lock: lock,
        })
    }

    /// Where the new index's files go.
    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }

    /// A directory for the build's temporary files (sort runs, spools): inside the
    /// staging directory, or under `tmp` (`--tmp-dir`, e.g. another disk). It is removed
    /// when dropped; after a kill, the next build of the same target removes it (the
    /// name carries the target's name and a hash of its path, and the lock says no
    /// build of that target is running).
    pub(crate) fn spill_dir(&self, tmp: Option<&Path>) -> Result<TempDir, IndexError> {
        let (parent, prefix) = match tmp {
            None => (self.tmp.path().to_path_buf(), ".spill-".to_string()),
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|e| IndexError::io(d, e))?;
                let target = std::path::absolute(&self.target).unwrap_or(self.target.clone());
                let hash = crc32fast::hash(target.as_os_str().as_encoded_bytes());
                let prefix = format!("{SPILL_PREFIX}{}-{hash:08x}-", self.name);
                remove_stale(d, &prefix);
                (d.to_path_buf(), prefix)
            }
        };
        tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir_in(&parent)
            .map_err(|e| IndexError::io(&parent, e))
    }

    /// Moves the finished index into place. The lock is released when `self` drops.
    pub fn commit(self) -> Result<PathBuf, IndexError> {
        let tmp_path = self.tmp.path().to_path_buf();
        sync_dir(&tmp_path)?;
        super::fault::point("publish");
        if self.target.exists() {
            match rustix::fs::renameat_with(
                rustix::fs::CWD,
                &tmp_path,
                rustix::fs::CWD,
                &self.target,
                rustix::fs::RenameFlags::EXCHANGE,
            ) {
                Ok(()) => {
                    // The new index is in place, the previous one not yet removed.
                    super::fault::point("publish");
                    // `tmp` now holds the previous index; dropping it deletes it.
                    drop(self.tmp);
                }
                Err(_) => {
                    // Filesystems without RENAME_EXCHANGE: move the old index aside first.
                    let name = self
                        .target
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy();
                    let old = tempfile::Builder::new()
                        .prefix(&format!("{TMP_PREFIX}{name}-old-"))
                        .tempdir_in(self.target.parent().unwrap_or(Path::new(".")))
                        .map_err(|e| IndexError::io(&self.target, e))?;
                    let aside = old.path().join("index");
                    std::fs::rename(&self.target, &aside)
                        .map_err(|e| IndexError::io(&self.target, e))?;
                    let tmp = self.tmp.keep();
                    if let Err(e) = std::fs::rename(&tmp, &self.target) {
                        // Put the old index back before reporting.
                        let _ = std::fs::rename(&aside, &self.target);
                        let _ = std::fs::remove_dir_all(&tmp);
                        return Err(IndexError::io(&self.target, e));
                    }
                    drop(old);
                }
            }
        } else {
            let tmp = self.tmp.keep();
            std::fs::rename(&tmp, &self.target).map_err(|e| IndexError::io(&self.target, e))?;
        }
        if let Some(parent) = self.target.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
        Ok(self.target)
    }
}

fn sync_dir(dir: &Path) -> Result<(), IndexError> {
    File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(|e| IndexError::io(dir, e))
}

/// Removes temporary directories (names starting with `prefix`) of earlier builds of the
/// same target that were killed before they could clean up (we hold the lock, so none of
/// them is running).
fn remove_stale(parent: &Path, prefix: &str) {
    if let Ok(entries) = std::fs::read_dir(parent) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            // Only `prefix` + tempfile's random suffix (or `old-` + suffix): a longer
            // name belongs to another target whose name extends this one (`en-x`).
            let rest = n
                .strip_prefix(prefix)
                .map(|r| r.strip_prefix("old-").unwrap_or(r));
            if rest.is_some_and(|r| r.len() == 6 && r.bytes().all(|b| b.is_ascii_alphanumeric())) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}
