//! Offline citation auditing for agent-written research reports.
//!
//! [`parse`] finds every citation in a markdown report and the claim it supports;
//! [`support`] scores how well evidence sentences support a claim, lexically. Both are
//! pure and index-independent, so they can be tested on their own. [`check`] puts them to
//! work against a Wikipedia index (existence, locator, support, attribution quality), and
//! [`eval`] measures the support scorer on WiCE.

pub mod check;
pub mod eval;
pub mod parse;
pub mod support;

use std::path::Path;

/// A report that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not UTF-8 text (invalid byte at offset {offset}, line {line})")]
    NotUtf8 {
        path: String,
        offset: usize,
        line: usize,
    },
}

/// Reads a report as UTF-8, naming the first invalid byte's offset and line if it is not.
pub fn read_report(path: &Path) -> Result<String, ReportError> {
    let bytes = std::fs::read(path).map_err(|source| ReportError::Io {
        path: path.display().to_string(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let line = 1 + memchr::memchr_iter(b'\n', &e.as_bytes()[..offset]).count();
        ReportError::NotUtf8 {
            path: path.display().to_string(),
            offset,
            line,
        }
    })
}

/// Byte offset → 1-based line number of a report, for every citation at the cost of one
/// scan.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }
}
