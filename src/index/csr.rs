//! Adjacency lists in compressed sparse row form: for row `i`, a sorted list of `u32`.
//!
//! Used for the link graph (out- and in-links), category members and redirects. Rows are
//! slices of one array, so a row is found with two offset reads and nothing is decoded.

use std::path::Path;

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
