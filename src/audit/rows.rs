//! Staged rows, streamed: JSON lines or CSV, one record at a time, with a bounded line
//! length, so a rows file of any size is read in constant memory and a malformed record
//! becomes a per-row error instead of stopping the audit.
//!
//! JSONL: one object per line; `source_page`, `locator`, `cell_locators` (column →
//! locator), `claims` (column → extracted/derived/inferred), `as_of`; every other key is
//! a column (strings, numbers, arrays for lists, null).
//! CSV: a header line; the same reserved names, `locator:COL` for per-cell locators and
//! `claim:COL` for claim types.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Keys that are not columns.
pub(crate) const RESERVED: [&str; 5] =
    ["source_page", "locator", "cell_locators", "claims", "as_of"];

/// Longest record accepted (1 MiB); longer lines are reported and skipped.
pub(crate) const MAX_LINE: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Null,
    Text(String),
    Items(Vec<String>),
}

impl Value {
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Null => true,
            Value::Text(t) => t.trim().is_empty(),
            Value::Items(v) => v.is_empty(),
        }
    }

    /// The value as one string (list items joined by `sep`).
    pub fn joined(&self, sep: &str) -> String {
        match self {
            Value::Null => String::new(),
            Value::Text(t) => t.clone(),
            Value::Items(v) => v.join(sep),
        }
    }
}

/// One staged row.
#[derive(Debug, Clone, Default)]
pub struct StagedRow {
    /// 0-based row number (records, header excluded).
    pub number: usize,
    /// 1-based line in the file where the record starts.
    pub line: u64,
    pub source_page: Option<String>,
    pub locator: Option<String>,
    pub cell_locators: BTreeMap<String, String>,
    pub claims: BTreeMap<String, String>,
    pub as_of: Option<String>,
    pub values: BTreeMap<String, Value>,
    /// Problems reading the record that still leave a row (missing CSV fields).
    pub problems: Vec<String>,
}

/// A record, or why it could not be read.
#[derive(Debug, Clone)]
pub enum RowItem {
    Row(StagedRow),
    Bad {
        number: usize,
        line: u64,
        message: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Csv,
}

/// Reads one line of at most `max` bytes into `buf` (without the newline). Returns
/// `None` at end of input, else whether the line fitted (a longer one is skipped, `buf`
/// left empty) and how many bytes it took from the input, newline included.
pub(crate) fn read_line_bounded(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<(bool, u64)>> {
    buf.clear();
    append_line(r, buf, max)
}

/// [`read_line_bounded`], appending to `out`: on a line longer than `max` bytes `out` is
/// left as it was.
fn append_line(
    r: &mut impl BufRead,
    out: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<(bool, u64)>> {
    let start = out.len();
    let mut consumed = 0u64;
    let mut fits = true;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok((consumed > 0).then_some((fits, consumed)));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(p) => (p, true),
            None => (chunk.len(), false),
        };
        if fits {
            if out.len() - start + take <= max {
                out.extend_from_slice(&chunk[..take]);
            } else {
                fits = false;
                out.truncate(start);
            }
        }
        let used = take + usize::from(done);
        r.consume(used);
        consumed += used as u64;
        if done {
            if out.len() > start && out.last() == Some(&b'\r') {
                out.pop();
            }
            return Ok(Some((fits, consumed)));
        }
    }
}

/// Hashes (sha256) every byte read through it: the audit compares the hash of what it
/// read with the one taken before, instead of reading the rows a second time.
struct Hashing<R> {
    inner: R,
    sha: sha2::Sha256,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(buf)?;
        self.sha.update(&buf[..n]);
        Ok(n)
    }
}

/// How far a reader got: bytes taken from the input, lines and records read. What a
/// checkpoint records, and where a resumed audit starts reading.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Position {
    pub offset: u64,
    pub line: u64,
    pub rows: usize,
}

/// One record as read: where its bytes are in the batch, or `None` for a record longer
/// than [`MAX_LINE`] (reported, not kept).
pub(crate) struct RawRecord {
    pub number: usize,
    pub line: u64,
    pub span: Option<std::ops::Range<usize>>,
}

/// Records read together, unparsed (the workers parse them), their bytes in one buffer.
#[derive(Default)]
pub(crate) struct RawBatch {
    pub data: Vec<u8>,
    pub records: Vec<RawRecord>,
    /// Where the reader stood after the batch's last record.
    pub end: Position,
}

impl RawBatch {
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// A streaming reader of staged rows.
pub struct RowReader<R: Read> {
    input: BufReader<Hashing<R>>,
    format: Format,
    header: Vec<String>,
    pos: Position,
    buf: Vec<u8>,
}

impl RowReader<File> {
    /// Opens `path` read-only. The format comes from the extension (`.csv`, else JSONL
    /// when the first byte is `{`).
    pub fn open(path: &Path) -> std::io::Result<RowReader<File>> {
        let f = File::open(path)?;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let format = match ext.as_deref() {
            Some("csv") => Format::Csv,
            Some("jsonl" | "ndjson" | "json") => Format::Jsonl,
            _ => {
                let mut first = [0u8; 64];
                let n = File::open(path)?.read(&mut first)?;
                if first[..n]
                    .iter()
                    .find(|b| !b.is_ascii_whitespace())
                    .is_some_and(|&b| b == b'{')
                {
                    Format::Jsonl
                } else {
                    Format::Csv
                }
            }
        };
        RowReader::new(f, format)
    }
}

impl<R: Read> RowReader<R> {
    pub fn new(input: R, format: Format) -> std::io::Result<RowReader<R>> {
        let hashing = Hashing {
            inner: input,
            sha: sha2::Sha256::default(),
        };
        let mut r = RowReader {
            input: BufReader::with_capacity(1 << 16, hashing),
            format,
            header: Vec::new(),
            pos: Position::default(),
            buf: Vec::new(),
        };
        if format == Format::Csv {
            match read_line_bounded(&mut r.input, &mut r.buf, MAX_LINE)? {
                Some((true, used)) => {
                    r.pos.line = 1;
                    r.pos.offset = used;
                    r.header = csv_fields(&r.buf).unwrap_or_default();
                    if let Some(h) = r.header.first_mut() {
                        *h = h.trim_start_matches('\u{FEFF}').to_string();
                    }
                }
                Some((false, _)) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "line 1: the CSV header is longer than 1 MiB",
                    ));
                }
                None => {}
            }
        }
        Ok(r)
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The CSV header (empty for JSONL).
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Goes on from `at` (a position this reader's input reached before): the bytes up
    /// to it are read (and hashed) but not parsed.
    pub(crate) fn skip_to(&mut self, at: Position) -> std::io::Result<()> {
        let Some(mut left) = at.offset.checked_sub(self.pos.offset) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("cannot go back to byte {}", at.offset),
            ));
        };
        while left > 0 {
            let chunk = self.input.fill_buf()?;
            if chunk.is_empty() {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let n = chunk.len().min(left as usize);
            self.input.consume(n);
            left -= n as u64;
        }
        self.pos = at;
        Ok(())
    }

    /// The sha256 of every byte the reader has taken from its input, once it has read
    /// to the end (`None` before).
    pub(crate) fn sha256(&mut self) -> std::io::Result<Option<[u8; 32]>> {
        use sha2::Digest;
        if !self.input.fill_buf()?.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.input.get_ref().sha.clone().finalize().into()))
    }

    /// Reads up to `n` records.
    pub fn batch(&mut self, n: usize) -> std::io::Result<Vec<RowItem>> {
        let raw = self.raw_batch(n)?;
        Ok(raw
            .records
            .iter()
            .map(|r| parse_record(self.format, &self.header, &raw, r))
            .collect())
    }

    /// Reads up to `n` records without parsing them.
    pub(crate) fn raw_batch(&mut self, n: usize) -> std::io::Result<RawBatch> {
        let mut batch = RawBatch::default();
        self.raw_batch_into(n, &mut batch)?;
        Ok(batch)
    }

    /// Reads up to `n` records into `batch` (emptied first; its buffers are used again).
    pub(crate) fn raw_batch_into(&mut self, n: usize, batch: &mut RawBatch) -> std::io::Result<()> {
        batch.data.clear();
        batch.records.clear();
        while batch.records.len() < n && self.next_record(batch)? {}
        batch.end = self.pos;
        Ok(())
    }

    /// Appends the next record to `batch`; `false` at the end of the input.
    fn next_record(&mut self, batch: &mut RawBatch) -> std::io::Result<bool> {
        loop {
            let start = batch.data.len();
            let Some((fits, used)) = append_line(&mut self.input, &mut batch.data, MAX_LINE)?
            else {
                return Ok(false);
            };
            self.pos.offset += used;
            self.pos.line += 1;
            let line = self.pos.line;
            let number = self.pos.rows;
            if !fits {
                self.pos.rows += 1;
                batch.records.push(RawRecord {
                    number,
                    line,
                    span: None,
                });
                return Ok(true);
            }
            if batch.data[start..].iter().all(u8::is_ascii_whitespace) {
                batch.data.truncate(start);
                continue;
            }
            // A CSV record may continue over lines inside a quoted field.
            if self.format == Format::Csv {
                self.continue_quoted(&mut batch.data, start)?;
            }
            self.pos.rows += 1;
            batch.records.push(RawRecord {
                number,
                line,
                span: Some(start..batch.data.len()),
            });
            return Ok(true);
        }
    }

    /// Joins the lines of a CSV record whose quoted field spans them (an odd number of
    /// quotes so far), up to [`MAX_LINE`] bytes.
    fn continue_quoted(&mut self, data: &mut Vec<u8>, start: usize) -> std::io::Result<()> {
        while data[start..].iter().filter(|&&b| b == b'"').count() % 2 == 1 {
            let joined = data.len();
            data.push(b'\n');
            let room = MAX_LINE.saturating_sub(joined - start + 1);
            match append_line(&mut self.input, data, room)? {
                Some((true, used)) => {
                    self.pos.offset += used;
                    self.pos.line += 1;
                }
                Some((false, used)) => {
                    // The line that does not fit is dropped, and the record ends.
                    self.pos.offset += used;
                    data.truncate(joined);
                    break;
                }
                None => {
                    data.truncate(joined);
                    break;
                }
            }
        }
        Ok(())
    }
}

/// Parses one record of a batch.
pub(crate) fn parse_record(
    format: Format,
    header: &[String],
    batch: &RawBatch,
    r: &RawRecord,
) -> RowItem {
    let Some(span) = &r.span else {
        return RowItem::Bad {
            number: r.number,
            line: r.line,
            message: format!("line {} is longer than {MAX_LINE} bytes; skipped", r.line),
        };
    };
    let bytes = &batch.data[span.clone()];
    match format {
        Format::Jsonl => super::json_row::parse(bytes, r.number, r.line),
        Format::Csv => parse_csv_row(header, bytes, r.number, r.line),
    }
}

fn parse_csv_row(header: &[String], bytes: &[u8], number: usize, line: u64) -> RowItem {
    let bad = |message: String| RowItem::Bad {
        number,
        line,
        message,
    };
    let fields = match csv_fields(bytes) {
        Ok(f) => f,
        Err(e) => return bad(format!("line {line}: not a CSV record: {e}")),
    };
    let mut row = StagedRow {
        number,
        line,
        ..Default::default()
    };
    if fields.len() != header.len() {
        row.problems.push(format!(
            "line {line} has {} field(s); the header has {}",
            fields.len(),
            header.len()
        ));
    }
    for (name, raw) in header.iter().zip(fields) {
        // Row metadata is read trimmed; values as written, so that a space that
        // changes a value is seen (check 7 reports stray whitespace).
        let v = raw.trim().to_string();
        let opt = (!v.is_empty()).then_some(v.clone());
        match name.as_str() {
            "source_page" => row.source_page = opt,
            "locator" => row.locator = opt,
            "as_of" => row.as_of = opt,
            _ => {
                if let Some(col) = name.strip_prefix("locator:") {
                    if let Some(v) = opt {
                        row.cell_locators.insert(col.to_string(), v);
                    }
                } else if let Some(col) = name.strip_prefix("claim:") {
                    if let Some(v) = opt {
                        row.claims.insert(col.to_string(), v);
                    }
                } else {
                    row.values.insert(
                        name.clone(),
                        if v.is_empty() {
                            Value::Null
                        } else {
                            Value::Text(raw)
                        },
                    );
                }
            }
        }
    }
    RowItem::Row(row)
}

fn csv_fields(line: &[u8]) -> Result<Vec<String>, String> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(line);
    let mut rec = csv::StringRecord::new();
    match rdr.read_record(&mut rec) {
        Ok(true) => Ok(rec.iter().map(str::to_string).collect()),
        Ok(false) => Ok(Vec::new()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_lines_skip_the_overlong_one() {
        let data = format!("short\n{}\nafter\r\nlast", "x".repeat(100));
        let mut r = BufReader::with_capacity(8, data.as_bytes());
        let mut buf = Vec::new();
        let mut read = |buf: &mut Vec<u8>| read_line_bounded(&mut r, buf, 50).unwrap();
        assert_eq!(read(&mut buf), Some((true, 6)));
        assert_eq!(buf, b"short");
        assert_eq!(read(&mut buf), Some((false, 101)));
        assert_eq!(read(&mut buf), Some((true, 7)));
        assert_eq!(buf, b"after");
        assert_eq!(read(&mut buf), Some((true, 4)));
        assert_eq!(buf, b"last");
        assert_eq!(read(&mut buf), None);
    }

    /// Positions count bytes, lines and records; a reader skipped to a position reads
    /// the records after it, and hashes the whole input either way.
    #[test]
    fn positions_resume_where_a_reader_stopped() {
        let csv = "source_page,locator,v\nA,\"x\n y\",1\n\nB,b,2\nC,c,3\n";
        let mut r = RowReader::new(csv.as_bytes(), Format::Csv).unwrap();
        let first = r.raw_batch(2).unwrap();
        assert_eq!(first.records.len(), 2);
        assert_eq!(
            first.end,
            Position {
                offset: 40,
                line: 5,
                rows: 2
            }
        );
        let rest = r.batch(10).unwrap();
        let whole = r.sha256().unwrap().unwrap();
        let mut again = RowReader::new(csv.as_bytes(), Format::Csv).unwrap();
        assert_eq!(again.sha256().unwrap(), None);
        again.skip_to(first.end).unwrap();
        let resumed = again.batch(10).unwrap();
        assert_eq!(format!("{rest:?}"), format!("{resumed:?}"));
        let RowItem::Row(c) = &resumed[0] else {
            panic!()
        };
        assert_eq!((c.number, c.line), (2, 6));
        assert_eq!(again.sha256().unwrap(), Some(whole));
        use sha2::Digest;
        assert_eq!(whole, <[u8; 32]>::from(sha2::Sha256::digest(csv)));
    }

    #[test]
    fn csv_rows_with_quotes_per_cell_locators_and_missing_fields() {
        let csv = "source_page,locator,river,locator:length,length\nDanube,\"table:1|row:8\",Danube,\"table:1|row:8|col:Length (km)\",2850\n\"Rhine\",\"multi\nline\",Rhine\n";
        let mut r = RowReader::new(csv.as_bytes(), Format::Csv).unwrap();
        let items = r.batch(10).unwrap();
        assert_eq!(items.len(), 2);
        let RowItem::Row(a) = &items[0] else { panic!() };
        assert_eq!(a.locator.as_deref(), Some("table:1|row:8"));
        assert_eq!(a.cell_locators["length"], "table:1|row:8|col:Length (km)");
        assert_eq!(a.values["length"], Value::Text("2850".into()));
        // Values keep their spaces; metadata is trimmed.
        let spaced = "source_page,locator,code\n Danube , table:1|row:8 ,\" AT 1\"\n";
        let mut r = RowReader::new(spaced.as_bytes(), Format::Csv).unwrap();
        let RowItem::Row(s) = &r.batch(10).unwrap()[0] else {
            panic!()
        };
        assert_eq!(s.source_page.as_deref(), Some("Danube"));
        assert_eq!(s.locator.as_deref(), Some("table:1|row:8"));
        assert_eq!(s.values["code"], Value::Text(" AT 1".into()));
        let RowItem::Row(b) = &items[1] else { panic!() };
        assert_eq!(b.line, 3);
        assert_eq!(b.locator.as_deref(), Some("multi\nline"));
        assert!(
            b.problems[0].contains("3 field(s); the header has 5"),
            "{:?}",
            b.problems
        );
    }

    #[test]
    fn json_rows_and_bad_lines() {
        let j = "{\"source_page\":\"Danube\",\"length\":2850,\"countries\":[\"Germany\",\"Austria\"],\"x\":null}\nnot json\n\n[1]\n";
        let mut r = RowReader::new(j.as_bytes(), Format::Jsonl).unwrap();
        let items = r.batch(10).unwrap();
        assert_eq!(items.len(), 3);
        let RowItem::Row(a) = &items[0] else { panic!() };
        assert_eq!(a.values["length"], Value::Text("2850".into()));
        assert_eq!(
            a.values["countries"],
            Value::Items(vec!["Germany".into(), "Austria".into()])
        );
        assert_eq!(a.values["x"], Value::Null);
        assert!(
            matches!(&items[1], RowItem::Bad { line: 2, message, .. } if message.contains("not valid JSON"))
        );
        assert!(matches!(
            &items[2],
            RowItem::Bad {
                line: 4,
                number: 2,
                ..
            }
        ));
    }
}
