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
pub struct Staging {
    target: PathBuf,
    tmp: TempDir,
    _lock: File,
}

const TMP_PREFIX: &str = ".wikiwit-building-";

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
        remove_stale(&parent, &name);
        let tmp = tempfile::Builder::new()
            .prefix(&format!("{TMP_PREFIX}{name}-"))
            .tempdir_in(&parent)
            .map_err(|e| IndexError::io(&parent, e))?;
        Ok(Staging {
            target: target.to_path_buf(),
            tmp,
            _lock: lock,
        })
    }

    /// Where the new index's files go.
    pub fn dir(&self) -> &Path {
        self.tmp.path()
    }

    /// Moves the finished index into place. The lock is released when `self` drops.
    pub fn commit(self) -> Result<PathBuf, IndexError> {
        let tmp_path = self.tmp.path().to_path_buf();
        sync_dir(&tmp_path)?;
        if self.target.exists() {
            match rustix::fs::renameat_with(
                rustix::fs::CWD,
                &tmp_path,
                rustix::fs::CWD,
                &self.target,
                rustix::fs::RenameFlags::EXCHANGE,
            ) {
                Ok(()) => {
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

/// Removes temporary directories of earlier builds of `name` that were killed before
/// they could clean up (we hold the lock, so none of them is running).
fn remove_stale(parent: &Path, name: &str) {
    let prefix = format!("{TMP_PREFIX}{name}-");
    if let Ok(entries) = std::fs::read_dir(parent) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.starts_with(&prefix) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}
