//! Adjacency lists in compressed sparse row form: for row `i`, a sorted list of `u32`.
//!
//! Used for the link graph (out- and in-links), category members and redirects. A row is
//! stored as varint deltas and its byte length as a varint; every `GROUP` rows an index
//! entry gives where the group starts in both streams. Most pages of a wiki have few
//! links or none: fixed 8-byte offsets were most of these files on the OTT-QA dump
//! (1.47 MB of its 2.5 MB of out-links), and deltas of sorted page numbers take one to
//! three bytes instead of four. A row costs a scan of at most `GROUP` length bytes and a
//! decode of its own values. The bytes a row is read from are checked against the
//! file's chunk table first (`FramedFile::check`): a damaged file gives an error
//! naming it, not a wrong list of pages.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::IndexError;
use super::file::{FramedFile, FramedWriter};
use super::varint;

/// Rows per index entry.
const GROUP: usize = 64;

/// Bytes of the payload's header: rows, length of the lengths stream, length of the
/// values stream (`u64`s).
const HEADER: usize = 24;

/// Bytes of one group entry: offsets into the lengths and the values streams (`u64`s).
const ENTRY: usize = 16;

/// The three streams of an adjacency file as rows are appended.
#[derive(Default)]
struct Encoder {
    rows: u64,
    lens_len: u64,
    values_len: u64,
    row_buf: Vec<u8>,
    len_buf: Vec<u8>,
}

impl Encoder {
    /// Encodes one sorted row; returns the group entry to write first (every [`GROUP`]
    /// rows), the row's length bytes and its value bytes (in `self`'s buffers).
    fn push(&mut self, row: &[u32]) -> Result<Option<[u8; ENTRY]>, IndexError> {
        let entry = self.rows.is_multiple_of(GROUP as u64).then(|| {
            let mut e = [0u8; ENTRY];
            e[..8].copy_from_slice(&self.lens_len.to_le_bytes());
            e[8..].copy_from_slice(&self.values_len.to_le_bytes());
            e
        });
        self.row_buf.clear();
        let mut prev = 0u32;
        for (k, &v) in row.iter().enumerate() {
            let delta = if k == 0 { Some(v) } else { v.checked_sub(prev) };
            let delta = delta.ok_or_else(|| IndexError::Encode {
                what: "adjacency row",
                message: format!("row {} is not sorted", self.rows),
            })?;
            varint::put(&mut self.row_buf, delta.into());
            prev = v;
        }
        self.len_buf.clear();
        varint::put(&mut self.len_buf, self.row_buf.len() as u64);
        self.rows += 1;
        self.lens_len += self.len_buf.len() as u64;
        self.values_len += self.row_buf.len() as u64;
        Ok(entry)
    }

    fn header(&self) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[..8].copy_from_slice(&self.rows.to_le_bytes());
        h[8..16].copy_from_slice(&self.lens_len.to_le_bytes());
        h[16..].copy_from_slice(&self.values_len.to_le_bytes());
        h
    }
}

/// Writes `rows` (each sorted by the caller) as one framed file of `kind`.
pub fn write(path: &Path, kind: u32, rows: &[Vec<u32>]) -> Result<u64, IndexError> {
    let mut enc = Encoder::default();
    let (mut groups, mut lens, mut values) = (Vec::new(), Vec::new(), Vec::new());
    for r in rows {
        if let Some(e) = enc.push(r)? {
            groups.extend_from_slice(&e);
        }
        lens.extend_from_slice(&enc.len_buf);
        values.extend_from_slice(&enc.row_buf);
    }
    let mut w = FramedWriter::create_chunked(path, kind)?;
    w.write(&enc.header())?;
    w.write(&groups)?;
    w.write(&lens)?;
    w.write(&values)?;
    w.finish()
}

/// Writes an adjacency file row by row, for graphs too large to hold: the group index,
/// the row lengths and the values go to temporary files under `tmp`, which
/// [`CsrWriter::finish`] copies into place behind the header. The bytes equal
/// [`write`]'s for the same rows.
pub(crate) struct CsrWriter {
    path: PathBuf,
    kind: u32,
    enc: Encoder,
    groups: TempPart,
    lens: TempPart,
    values: TempPart,
}

/// A temporary file written through a buffer and removed when dropped.
struct TempPart {
    path: PathBuf,
    out: BufWriter<File>,
}

impl TempPart {
    fn create(path: PathBuf) -> Result<TempPart, IndexError> {
        let file = File::create(&path).map_err(|e| IndexError::io(&path, e))?;
        Ok(TempPart {
            out: BufWriter::with_capacity(1 << 20, file),
            path,
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        self.out
            .write_all(bytes)
            .map_err(|e| IndexError::io(&self.path, e))
    }

    fn flush(&mut self) -> Result<(), IndexError> {
        self.out.flush().map_err(|e| IndexError::io(&self.path, e))
    }
}

impl Drop for TempPart {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl CsrWriter {
    pub fn create(path: &Path, kind: u32, tmp: &Path) -> Result<CsrWriter, IndexError> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let part = |ext: &str| TempPart::create(tmp.join(format!("{name}.{ext}")));
        Ok(CsrWriter {
            path: path.to_path_buf(),
            kind,
            enc: Encoder::default(),
            groups: part("groups")?,
            lens: part("lens")?,
            values: part("values")?,
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.enc.rows
    }

    /// Appends one row (sorted by the caller).
    pub(crate) fn push_row(&mut self, row: &[u32]) -> Result<(), IndexError> {
        if let Some(e) = self.enc.push(row)? {
            self.groups.write(&e)?;
        }
        self.lens.write(&self.enc.len_buf)?;
        self.values.write(&self.enc.row_buf)
    }

    /// Appends empty rows until there are `rows` rows.
    pub(crate) fn pad_to(&mut self, rows: u64) -> Result<(), IndexError> {
        while self.enc.rows < rows {
            self.push_row(&[])?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<u64, IndexError> {
        super::fault::point("csr");
        for part in [&mut self.groups, &mut self.lens, &mut self.values] {
            part.flush()?;
        }
        let mut w = FramedWriter::create_chunked(&self.path, self.kind)?;
        w.write(&self.enc.header())?;
        w.copy_file(&self.groups.path)?;
        w.copy_file(&self.lens.path)?;
        w.copy_file(&self.values.path)?;
        w.finish()
    }
}

/// Reads rows by number.
pub(crate) struct Csr {
    file: FramedFile,
    path: PathBuf,
    rows: usize,
    /// Where the lengths and the values streams start in the body.
    lens_at: usize,
    values_at: usize,
}

impl Csr {
    pub fn open(path: &Path, kind: u32) -> Result<Csr, IndexError> {
        let file = FramedFile::open(path, kind)?;
        let body = file.body();
        let corrupt = |c: &str| IndexError::DataCorruption {
            path: path.to_path_buf(),
            comment: c.to_string(),
        };
        if body.len() < HEADER {
            return Err(corrupt("adjacency file too short"));
        }
        file.check(0..HEADER)?;
        let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().expect("8 bytes"));
        let (rows, lens_len, values_len) = (u64_at(0), u64_at(8), u64_at(16));
        let groups = rows.div_ceil(GROUP as u64);
        let total = groups
            .checked_mul(ENTRY as u64)
            .and_then(|g| g.checked_add(HEADER as u64))
            .and_then(|n| n.checked_add(lens_len))
            .and_then(|n| n.checked_add(values_len));
        if total != Some(body.len() as u64) {
            return Err(corrupt("the rows, lengths and values do not fill the file"));
        }
        let lens_at = HEADER + groups as usize * ENTRY;
        Ok(Csr {
            rows: rows as usize,
            lens_at,
            values_at: lens_at + lens_len as usize,
            path: path.to_path_buf(),
            file,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Row `i`'s encoded values, or why they cannot be found.
    fn encoded(&self, i: usize) -> Result<&[u8], IndexError> {
        let body = self.file.body();
        let corrupt = || IndexError::DataCorruption {
            path: self.path.clone(),
            comment: format!("row {i} is out of the file's bounds"),
        };
        let entry = HEADER + (i / GROUP) * ENTRY;
        self.file.check(entry..entry + ENTRY)?;
        let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().expect("8 bytes"));
        let (lens_off, values_off) = (u64_at(entry), u64_at(entry + 8));
        let lens = body.get(self.lens_at..self.values_at).ok_or_else(corrupt)?;
        let group = lens.get(lens_off as usize..).ok_or_else(corrupt)?;
        // A group's lengths take at most a varint's 10 bytes each.
        let first = self.lens_at + lens_off as usize;
        self.file
            .check(first..first + group.len().min(GROUP * varint::MAX_LEN))?;
        let mut at = group;
        let mut start = values_off;
        for _ in 0..i % GROUP {
            start += varint::get(&mut at).map_err(|_| corrupt())?;
        }
        let len = varint::get(&mut at).map_err(|_| corrupt())?;
        let values = &body[self.values_at..];
        let end = start.checked_add(len).ok_or_else(corrupt)?;
        let row = values
            .get(start as usize..end as usize)
            .ok_or_else(corrupt)?;
        self.file
            .check(self.values_at + start as usize..self.values_at + end as usize)?;
        Ok(row)
    }

    /// Row `i` (empty when out of range); an error if the file is damaged there.
    pub(crate) fn try_row(&self, i: usize) -> Result<Vec<u32>, IndexError> {
        if i >= self.rows {
            return Ok(Vec::new());
        }
        let mut bytes = self.encoded(i)?;
        let mut out = Vec::new();
        let mut v = 0u32;
        while !bytes.is_empty() {
            let d = varint::get(&mut bytes)
                .ok()
                .and_then(|d| u32::try_from(d).ok());
            let next = d.and_then(|d| {
                if out.is_empty() {
                    Some(d)
                } else {
                    v.checked_add(d)
                }
            });
            v = next.ok_or_else(|| IndexError::DataCorruption {
                path: self.path.clone(),
                comment: format!("row {i} holds a value out of range"),
            })?;
            out.push(v);
        }
        Ok(out)
    }

    pub fn verify(&self) -> Result<(), IndexError> {
        self.file.verify()
    }
}

/// Reverses adjacency lists: `rows[i]` contains `j` ⇒ result row `j` contains `i`.
pub fn transpose(rows: &[Vec<u32>], n_out: usize) -> Vec<Vec<u32>> {
    let mut counts = vec![0usize; n_out];
    for r in rows {
        for &v in r {
            counts[v as usize] += 1;
        }
    }
    let mut out: Vec<Vec<u32>> = counts.into_iter().map(Vec::with_capacity).collect();
    for (i, r) in rows.iter().enumerate() {
        for &v in r {
            out[v as usize].push(i as u32);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_rows_give_the_same_file_as_rows_in_memory() {
        let rows: Vec<Vec<u32>> = (0..2_000u32)
            .map(|i| (0..i % 7).map(|j| i * 3 + j).collect())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let mem = dir.path().join("mem.csr");
        write(&mem, 4, &rows).unwrap();
        let streamed = dir.path().join("streamed.csr");
        let mut w = CsrWriter::create(&streamed, 4, dir.path()).unwrap();
        for r in &rows[..1_500] {
            w.push_row(r).unwrap();
        }
        // The tail rows are empty or not: pad the empty ones as the build does.
        for (i, r) in rows.iter().enumerate().skip(1_500) {
            w.pad_to(i as u64).unwrap();
            if !r.is_empty() {
                w.push_row(r).unwrap();
            }
        }
        w.pad_to(rows.len() as u64).unwrap();
        w.finish().unwrap();
        assert!(std::fs::read(&mem).unwrap() == std::fs::read(&streamed).unwrap());
        // Only the two files are left: the temporary parts are gone.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        let csr = Csr::open(&streamed, 4).unwrap();
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(&csr.try_row(i).unwrap(), r, "row {i}");
        }
        assert!(csr.try_row(rows.len()).unwrap().is_empty());
    }

    #[test]
    fn large_values_and_rows_round_trip_and_unsorted_rows_are_refused() {
        let rows = vec![
            vec![0, u32::MAX],
            (0..100_000u32).map(|v| v * 7).collect(),
            Vec::new(),
            vec![5, 5, 6],
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.csr");
        write(&path, 4, &rows).unwrap();
        let csr = Csr::open(&path, 4).unwrap();
        for (i, r) in rows.iter().enumerate() {
            assert_eq!(&csr.try_row(i).unwrap(), r);
        }
        let err = write(&dir.path().join("bad.csr"), 4, &[vec![3, 2]]).unwrap_err();
        assert!(err.to_string().contains("not sorted"), "{err}");
    }

    /// A flipped byte fails only the rows read from its chunk: the others still read,
    /// and every row of the damaged chunk is an error naming the chunk.
    #[test]
    fn a_damaged_chunk_fails_the_rows_read_from_it() {
        let rows: Vec<Vec<u32>> = (0..40_000u32)
            .map(|i| (0..8).map(|j| i * 1_000 + j * 97).collect())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.csr");
        write(&path, 4, &rows).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        // Three chunks in (well inside the values stream), one bit.
        let at = 3 * crate::chunk_crc::CHUNK + 100;
        bytes[at] ^= 0x08;
        std::fs::write(&path, &bytes).unwrap();
        let csr = Csr::open(&path, 4).unwrap();
        let (mut good, mut bad) = (0, 0);
        for (i, r) in rows.iter().enumerate() {
            match csr.try_row(i) {
                Ok(row) => {
                    assert_eq!(&row, r, "row {i}");
                    good += 1;
                }
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.contains("chunk 3") && msg.contains("g.csr"), "{msg}");
                    bad += 1;
                }
            }
        }
        assert!(good > 30_000 && bad > 0, "{good} rows read, {bad} refused");
        assert!(csr.verify().is_err());
    }
}
