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
/// `None` at end of input, `Some(false)` when the line was longer (the rest is skipped).
pub(crate) fn read_line_bounded(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<bool>> {
    buf.clear();
    let mut any = false;
    let mut fits = true;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(fits));
        }
        any = true;
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(p) => (p, true),
            None => (chunk.len(), false),
        };
        if fits {
            if buf.len() + take <= max {
                buf.extend_from_slice(&chunk[..take]);
            } else {
                fits = false;
                buf.clear();
            }
        }
        r.consume(take + usize::from(done));
        if done {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Some(fits));
        }
    }
}

/// A streaming reader of staged rows.
pub struct RowReader<R: Read> {
    input: BufReader<R>,
    format: Format,
    header: Vec<String>,
    line: u64,
    number: usize,
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
        let mut r = RowReader {
            input: BufReader::with_capacity(1 << 16, input),
            format,
            header: Vec::new(),
            line: 0,
            number: 0,
            buf: Vec::new(),
        };
        if format == Format::Csv {
            match read_line_bounded(&mut r.input, &mut r.buf, MAX_LINE)? {
                Some(true) => {
                    r.line = 1;
                    r.header = csv_fields(&r.buf).unwrap_or_default();
                    if let Some(h) = r.header.first_mut() {
                        *h = h.trim_start_matches('\u{FEFF}').to_string();
                    }
                }
                Some(false) => {
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

    /// Reads up to `n` records.
    pub fn batch(&mut self, n: usize) -> std::io::Result<Vec<RowItem>> {
        let mut out = Vec::with_capacity(n.min(1 << 16));
        while out.len() < n {
            match self.next_item()? {
                Some(x) => out.push(x),
                None => break,
            }
        }
        Ok(out)
    }

    fn next_item(&mut self) -> std::io::Result<Option<RowItem>> {
        loop {
            let Some(fits) = read_line_bounded(&mut self.input, &mut self.buf, MAX_LINE)? else {
                return Ok(None);
            };
            self.line += 1;
            let line = self.line;
            if !fits {
                let number = self.number;
                self.number += 1;
                return Ok(Some(RowItem::Bad {
                    number,
                    line,
                    message: format!("line {line} is longer than {MAX_LINE} bytes; skipped"),
                }));
            }
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // A CSV record may continue over lines inside a quoted field.
            if self.format == Format::Csv {
                let mut extra = Vec::new();
                while self.buf.iter().filter(|&&b| b == b'"').count() % 2 == 1 {
                    match read_line_bounded(&mut self.input, &mut extra, MAX_LINE)? {
                        Some(true) if self.buf.len() + extra.len() < MAX_LINE => {
                            self.line += 1;
                            self.buf.push(b'\n');
                            self.buf.extend_from_slice(&extra);
                        }
                        _ => break,
                    }
                }
            }
            let number = self.number;
            self.number += 1;
            let item = match self.format {
                Format::Jsonl => parse_json_row(&self.buf, number, line),
                Format::Csv => self.parse_csv_row(number, line),
            };
            return Ok(Some(item));
        }
    }

    fn parse_csv_row(&self, number: usize, line: u64) -> RowItem {
        let bad = |message: String| RowItem::Bad {
            number,
            line,
            message,
        };
        let fields = match csv_fields(&self.buf) {
            Ok(f) => f,
            Err(e) => return bad(format!("line {line}: not a CSV record: {e}")),
        };
        let mut row = StagedRow {
            number,
            line,
            ..Default::default()
        };
        if fields.len() != self.header.len() {
            row.problems.push(format!(
                "line {line} has {} field(s); the header has {}",
                fields.len(),
                self.header.len()
            ));
        }
        for (name, raw) in self.header.iter().zip(fields) {
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

/// One JSON lines record (also the audit in pieces' rows, [`super::pieces`]).
pub(crate) fn parse_json_row(line: &[u8], number: usize, lineno: u64) -> RowItem {
    let bad = |message: String| RowItem::Bad {
        number,
        line: lineno,
        message,
    };
    let v: serde_json::Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return bad(format!(
                "line {lineno}, column {}: not valid JSON: {e}",
                e.column()
            ));
        }
    };
    let serde_json::Value::Object(map) = v else {
        return bad(format!("line {lineno}: a row must be a JSON object"));
    };
    let mut row = StagedRow {
        number,
        line: lineno,
        ..Default::default()
    };
    let text = |v: &serde_json::Value| -> Option<String> {
        match v {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    };
    for (k, v) in map {
        match k.as_str() {
            "source_page" | "locator" | "as_of" => {
                let t = match v {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(s) if s.trim().is_empty() => None,
                    serde_json::Value::String(s) => Some(s),
                    other => {
                        row.problems
                            .push(format!("{k} must be a string, not {other}"));
                        None
                    }
                };
                match k.as_str() {
                    "source_page" => row.source_page = t,
                    "locator" => row.locator = t,
                    _ => row.as_of = t,
                }
            }
            "cell_locators" | "claims" => {
                let serde_json::Value::Object(m) = v else {
                    row.problems.push(format!("{k} must be an object"));
                    continue;
                };
                let target = if k == "claims" {
                    &mut row.claims
                } else {
                    &mut row.cell_locators
                };
                for (c, x) in m {
                    match x {
                        serde_json::Value::String(s) => {
                            target.insert(c, s);
                        }
                        other => row
                            .problems
                            .push(format!("{k}.{c} must be a string, not {other}")),
                    }
                }
            }
            _ => {
                let value = match &v {
                    serde_json::Value::Null => Value::Null,
                    serde_json::Value::Array(items) => {
                        let mut out = Vec::new();
                        for x in items {
                            match text(x) {
                                Some(s) => out.push(s),
                                None => row.problems.push(format!(
                                    "column {k}: list items must be strings or numbers"
                                )),
                            }
                        }
                        Value::Items(out)
                    }
                    serde_json::Value::Object(_) => {
                        row.problems
                            .push(format!("column {k}: an object is not a cell value"));
                        Value::Null
                    }
                    other => Value::Text(text(other).unwrap_or_default()),
                };
                row.values.insert(k, value);
            }
        }
    }
    RowItem::Row(row)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_lines_skip_the_overlong_one() {
        let data = format!("short\n{}\nafter\nlast", "x".repeat(100));
        let mut r = BufReader::with_capacity(8, data.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_line_bounded(&mut r, &mut buf, 50).unwrap(), Some(true));
        assert_eq!(buf, b"short");
        assert_eq!(
            read_line_bounded(&mut r, &mut buf, 50).unwrap(),
            Some(false)
        );
        assert_eq!(read_line_bounded(&mut r, &mut buf, 50).unwrap(), Some(true));
        assert_eq!(buf, b"after");
        assert_eq!(read_line_bounded(&mut r, &mut buf, 50).unwrap(), Some(true));
        assert_eq!(buf, b"last");
        assert_eq!(read_line_bounded(&mut r, &mut buf, 50).unwrap(), None);
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
