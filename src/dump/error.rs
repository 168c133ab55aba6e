//! Errors raised while reading a dump. Each names the file and where in it the problem is,
//! so that a user can look at the bytes (`bzip2 -dc | head -c`), not just a message.

use std::fmt;
use std::path::PathBuf;

use crate::title::InvalidTitle;

/// Where in a dump something happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// Byte offset in an uncompressed XML file.
    Plain { offset: u64 },
    /// A bz2 stream (its byte offset in the compressed file) and the offset within the
    /// stream's decompressed bytes.
    Bz2 {
        stream_offset: u64,
        decompressed: u64,
    },
    /// Byte offset in the decompressed output of a sequentially decoded bz2 file.
    Decompressed { offset: u64 },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Plain { offset } => write!(f, "byte {offset}"),
            Location::Bz2 {
                stream_offset,
                decompressed,
            } => write!(
                f,
                "bz2 stream at byte {stream_offset}, decompressed byte {decompressed} of that stream"
            ),
            Location::Decompressed { offset } => write!(f, "decompressed byte {offset}"),
        }
    }
}

/// Everything that can be wrong with a dump or its multistream index.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: the file is empty")]
    Empty { path: PathBuf },
    #[error(
        "{path}: the XML is UTF-16 encoded ({detail}); MediaWiki dumps are UTF-8 — convert it (iconv -f UTF-16 -t UTF-8) or download the dump again"
    )]
    Utf16 { path: PathBuf, detail: String },
    #[error("{path}: not a MediaWiki XML dump: {found}")]
    NotADump { path: PathBuf, found: String },
    #[error("{path}: corrupt bz2 data in the stream starting at byte {stream_offset}: {detail}")]
    Bz2Corrupt {
        path: PathBuf,
        stream_offset: u64,
        detail: String,
    },
    #[error(
        "{path}: truncated bz2 data: the stream starting at byte {stream_offset} ends before its end-of-stream marker (file size {file_size})"
    )]
    Bz2Truncated {
        path: PathBuf,
        stream_offset: u64,
        file_size: u64,
    },
    #[error("{path}: invalid UTF-8 at {location}")]
    InvalidUtf8 { path: PathBuf, location: Location },
    #[error("{path}: malformed XML at {location}{}: {message}", page_suffix(.page))]
    Xml {
        path: PathBuf,
        location: Location,
        page: Option<String>,
        message: String,
    },
    #[error("{path}: the dump has no <siteinfo> header before its first page")]
    MissingSiteinfo { path: PathBuf },
    #[error("{path}: the dump ends without </mediawiki>: it is truncated")]
    Truncated { path: PathBuf },
    #[error("{path}: page {title:?} (id {id}) at {location} has an invalid title: {reason}")]
    InvalidTitle {
        path: PathBuf,
        location: Location,
        title: String,
        id: u64,
        reason: InvalidTitle,
    },
    #[error(
        "{path}: page {title:?} (id {id}) at {location}: <ns> says {declared} but the title is in namespace {parsed}"
    )]
    NamespaceMismatch {
        path: PathBuf,
        location: Location,
        title: String,
        id: u64,
        declared: i32,
        parsed: i32,
    },
    #[error("{path}: page {title:?} (id {id}) at {location}: {message}")]
    BadPage {
        path: PathBuf,
        location: Location,
        title: String,
        id: u64,
        message: String,
    },
    #[error("{path}: pages {first_id} and {second_id} both have the title {title:?}")]
    DuplicateTitle {
        path: PathBuf,
        title: String,
        first_id: u64,
        second_id: u64,
    },
    #[error("{path}: line {line}: {message}")]
    IndexFileSyntax {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("the multistream index {index} does not match the dump {dump}: {message}")]
    IndexMismatch {
        index: PathBuf,
        dump: PathBuf,
        message: String,
    },
    #[error("interrupted")]
    Interrupted,
    #[error("internal error while reading the dump (please report it): {message}")]
    Internal { message: String },
    /// A pass over chosen streams met a page cut across streams (`Dump::pages_in_namespaces`
    /// then reads every stream instead).
    #[error("{path}: a page crosses a bz2 stream boundary near {location}")]
    StreamFragment { path: PathBuf, location: Location },
    /// An error of whoever consumes the pages (e.g. writing the index).
    #[error(transparent)]
    Consumer(Box<dyn std::error::Error + Send + Sync>),
}

fn page_suffix(page: &Option<String>) -> String {
    match page {
        Some(t) => format!(" (in page {t:?})"),
        None => String::new(),
    }
}
