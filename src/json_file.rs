//! Reading a JSON file a user wrote (an audit contract, an authority-tiers file), with
//! errors that name the file and, for syntax and shape errors, the line and column:
//! these files are edited by hand, and "invalid JSON" alone sends the user searching.

use std::path::Path;

use serde::de::DeserializeOwned;

/// A JSON file that cannot be read or parsed into the expected shape.
#[derive(Debug, thiserror::Error)]
pub enum JsonFileError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: line {line}, column {column}: {message}")]
    Json {
        path: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// Reads `path`, returning the parsed value and the bytes (kept by callers that
/// fingerprint the file).
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<(T, Vec<u8>), JsonFileError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| JsonFileError::Io {
        path: shown.clone(),
        source,
    })?;
    let value = parse(&bytes, &shown)?;
    Ok((value, bytes))
}

/// Parses `bytes`; `path` is how the source is named in errors.
pub fn parse<T: DeserializeOwned>(bytes: &[u8], path: &str) -> Result<T, JsonFileError> {
    serde_json::from_slice(bytes).map_err(|e| JsonFileError::Json {
        path: path.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}
