//! The manifests of the directories a build writes besides indexes (shards, sources
//! directories): written last, and read back only when they are of the kind and version
//! asked for, with a message saying what a directory is when it is not.

use std::path::Path;

use super::BuildError;
use crate::index::{self, IndexError};

/// Writes `value` as pretty JSON to `path` and syncs it: a manifest, written last.
pub(super) fn write_json(
    path: &Path,
    value: &impl serde::Serialize,
    what: &'static str,
) -> Result<(), IndexError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| IndexError::Encode {
        what,
        message: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| IndexError::io(path, e))?;
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| IndexError::io(path, e))
}

/// A directory the build writes beside indexes (a shard, a sources directory), as its
/// `manifest.json` names it: what to say when a directory is not one, or not of this
/// version.
pub(super) struct DirKind {
    /// What one is called in messages: "a shard".
    pub(super) what: &'static str,
    /// Its layout's name in the version message: "shard".
    pub(super) layout: &'static str,
    pub(super) format: &'static str,
    pub(super) version: u32,
    /// How to make one: "build one with `…`".
    pub(super) make: &'static str,
    /// What to do with one of another version.
    pub(super) redo: &'static str,
    /// What to say of a directory of another known format.
    pub(super) others: &'static [(&'static str, &'static str)],
}

/// Reads `dir/manifest.json`, refusing anything but a directory of `kind` at its version,
/// of this wikiwit's index format.
pub(super) fn read_dir_manifest<T: serde::de::DeserializeOwned>(
    dir: &Path,
    kind: &DirKind,
) -> Result<T, BuildError> {
    let path = dir.join("manifest.json");
    let bad = |why: String| BuildError::Shards {
        message: format!("{}: {why}", dir.display()),
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(bad(format!(
                "not {} (no manifest.json); {}",
                kind.what, kind.make
            )));
        }
        Err(e) => return Err(IndexError::io(&path, e).into()),
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("manifest.json is not JSON: {e}")))?;
    let format = value.get("format").and_then(|v| v.as_str());
    if format != Some(kind.format) {
        return Err(bad(
            match kind.others.iter().find(|(o, _)| Some(*o) == format) {
                Some((_, why)) => why.to_string(),
                None => format!(
                    "not {} (manifest.json is of another format); {}",
                    kind.what, kind.make
                ),
            },
        ));
    }
    let version = |key: &str| value.get(key).and_then(|v| v.as_u64());
    if version("format_version") != Some(u64::from(kind.version))
        || version("index_format_version") != Some(u64::from(index::FORMAT_VERSION))
    {
        return Err(bad(format!(
            "{layout} format {:?} of index format {:?}, but this wikiwit reads {layout} format {} of index format {}; {}",
            version("format_version"),
            version("index_format_version"),
            kind.version,
            index::FORMAT_VERSION,
            kind.redo,
            layout = kind.layout,
        )));
    }
    serde_json::from_value(value).map_err(|e| bad(format!("manifest.json: {e}")))
}
