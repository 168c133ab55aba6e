//! Adjacency lists in compressed sparse row form: for row `i`, a sorted list of `u32`.
//!
//! Used for the link graph (out- and in-links), category members and redirects. Rows are
//! slices of one array, so a row is found with two offset reads and nothing is decoded.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::IndexError;
use super::file::{FramedFile, FramedWriter};

/// Writes `rows` (each sorted by the caller) as one framed file of `kind`.
pub fn write(path: &Path, kind: u32, rows: &[Vec<u32>]) -> Result<u64, IndexError> {
    let mut w = FramedWriter::create(path, kind)?;
    w.write(&(rows.len() as u64).to_le_bytes())?;
    let mut off = 0u64;
    let mut buf = Vec::with_capacity((rows.len() + 1) * 8);
    buf.extend_from_slice(&off.to_le_bytes());
    for r in rows {
        off += r.len() as u64;
        buf.extend_from_slice(&off.to_le_bytes());
    }
    w.write(&buf)?;
    buf.clear();
    for r in rows {
        for v in r {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        if buf.len() > 1 << 20 {
            w.write(&buf)?;
            buf.clear();
        }
    }
    w.write(&buf)?;
    w.finish()
}

/// Writes an adjacency file row by row, for graphs too large to hold: the values and the
/// row ends go to two temporary files under `tmp`, which [`CsrWriter::finish`] copies
/// into place behind the row count. The bytes equal [`write`]'s for the same rows.
pub struct CsrWriter {
    path: PathBuf,
    kind: u32,
    ends: TempPart,
    values: TempPart,
    rows: u64,
    total: u64,
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
        Ok(CsrWriter {
            path: path.to_path_buf(),
            kind,
            ends: TempPart::create(tmp.join(format!("{name}.ends")))?,
            values: TempPart::create(tmp.join(format!("{name}.values")))?,
            rows: 0,
            total: 0,
        })
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Appends one row (sorted by the caller).
    pub fn push_row(&mut self, row: &[u32]) -> Result<(), IndexError> {
        for v in row {
            self.values.write(&v.to_le_bytes())?;
        }
        self.total += row.len() as u64;
        self.rows += 1;
        self.ends.write(&self.total.to_le_bytes())
    }

    /// Appends empty rows until there are `rows` rows.
    pub fn pad_to(&mut self, rows: u64) -> Result<(), IndexError> {
        while self.rows < rows {
            self.push_row(&[])?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<u64, IndexError> {
        self.ends.flush()?;
        self.values.flush()?;
        let mut w = FramedWriter::create(&self.path, self.kind)?;
        w.write(&self.rows.to_le_bytes())?;
        w.write(&0u64.to_le_bytes())?;
        w.copy_file(&self.ends.path)?;
        w.copy_file(&self.values.path)?;
        w.finish()
    }
}

/// Reads rows by number.
pub struct Csr {
    file: FramedFile,
    rows: usize,
}

impl Csr {
    pub fn open(path: &Path, kind: u32) -> Result<Csr, IndexError> {
        let file = FramedFile::open(path, kind)?;
        let body_len = file.body().len();
        let body = file.body();
        let corrupt = |c: &str| IndexError::DataCorruption {
            path: path.to_path_buf(),
            comment: c.to_string(),
        };
        if body.len() < 16 {
            return Err(corrupt("adjacency file too short"));
        }
        let rows = u64::from_le_bytes(body[..8].try_into().expect("8 bytes")) as usize;
        let offsets_end = rows
            .checked_add(1)
            .and_then(|n| n.checked_mul(8))
            .and_then(|n| n.checked_add(8))
            .filter(|&n| n <= body_len)
            .ok_or_else(|| corrupt("row count larger than the file"))?;
        let csr = Csr { file, rows };
        let total = csr.offset(rows);
        if offsets_end as u64 + total * 4 != body_len as u64 {
            return Err(corrupt("adjacency values do not fill the file"));
        }
        Ok(csr)
    }

    fn offset(&self, i: usize) -> u64 {
        let at = 8 + i * 8;
        u64::from_le_bytes(self.file.body()[at..at + 8].try_into().expect("8 bytes"))
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Row `i` (empty when out of range).
    pub fn row(&self, i: usize) -> Vec<u32> {
        if i >= self.rows {
            return Vec::new();
        }
        let values = 8 + (self.rows + 1) * 8;
        let (s, e) = (self.offset(i) as usize, self.offset(i + 1) as usize);
        self.file.body()[values + s * 4..values + e * 4]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    }

    /// Length of row `i`.
    pub fn degree(&self, i: usize) -> usize {
        if i >= self.rows {
            return 0;
        }
        (self.offset(i + 1) - self.offset(i)) as usize
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
        assert_eq!(csr.row(1_234), rows[1_234]);
    }
}
