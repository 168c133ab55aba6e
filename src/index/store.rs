//! A record store: a sequence of serde values, addressable by number, memory-mapped.
//!
//! Records are postcard-encoded one after another, followed by a table of `u64` end
//! offsets. Reading record `i` is two slice lookups and one small decode, so any page's
//! data is reachable in microseconds without loading the store; and because records are
//! self-describing serde values, stores can grow fields under a new format version
//! without a hand-written binary layout for each.

use std::marker::PhantomData;
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::IndexError;
use super::file::{FramedFile, FramedWriter, HEADER_LEN};

/// Writes records in order.
pub struct StoreWriter<T> {
    out: FramedWriter,
    ends: Vec<u64>,
    buf: Vec<u8>,
    _t: PhantomData<fn(&T)>,
}

impl<T: Serialize> StoreWriter<T> {
    pub fn create(path: &Path, kind: u32) -> Result<StoreWriter<T>, IndexError> {
        Ok(StoreWriter {
            out: FramedWriter::create(path, kind)?,
            ends: Vec::new(),
            buf: Vec::new(),
            _t: PhantomData,
        })
    }

    pub fn push(&mut self, record: &T) -> Result<(), IndexError> {
        self.buf.clear();
        let bytes = postcard::to_extend(record, std::mem::take(&mut self.buf)).map_err(|e| {
            IndexError::Encode {
                what: "record",
                message: e.to_string(),
            }
        })?;
        self.out.write(&bytes)?;
        self.buf = bytes;
        self.ends.push(self.out.position() - HEADER_LEN as u64);
        Ok(())
    }

    /// Appends a record already encoded with [`encode`] (lets workers do the encoding).
    pub fn push_encoded(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        self.out.write(bytes)?;
        self.ends.push(self.out.position() - HEADER_LEN as u64);
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Writes the offset table (`u64` ends, then the count) and the footer.
    pub fn finish(mut self) -> Result<u64, IndexError> {
        let mut table = Vec::with_capacity(self.ends.len() * 8 + 8);
        for e in &self.ends {
            table.extend_from_slice(&e.to_le_bytes());
        }
        table.extend_from_slice(&(self.ends.len() as u64).to_le_bytes());
        self.out.write(&table)?;
        self.out.finish()
    }
}

/// Encodes one record the way [`StoreWriter::push`] does.
pub fn encode<T: Serialize>(record: &T) -> Result<Vec<u8>, IndexError> {
    postcard::to_allocvec(record).map_err(|e| IndexError::Encode {
        what: "record",
        message: e.to_string(),
    })
}

/// Reads records by number.
pub struct Store<T> {
    file: FramedFile,
    count: usize,
    /// Byte offset (within the body) of the end table.
    table: usize,
    _t: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> Store<T> {
    pub fn open(path: &Path, kind: u32) -> Result<Store<T>, IndexError> {
        let file = FramedFile::open(path, kind)?;
        let body = file.body();
        let corrupt = |comment: &str| IndexError::DataCorruption {
            path: path.to_path_buf(),
            comment: comment.to_string(),
        };
        if body.len() < 8 {
            return Err(corrupt("record store without a count"));
        }
        let count = u64::from_le_bytes(body[body.len() - 8..].try_into().expect("8 bytes"));
        let table_len = count
            .checked_mul(8)
            .and_then(|n| n.checked_add(8))
            .filter(|&n| n <= body.len() as u64)
            .ok_or_else(|| corrupt("record count larger than the file"))?;
        let table = body.len() - table_len as usize;
        let store = Store {
            file,
            count: count as usize,
            table,
            _t: PhantomData,
        };
        if store.count > 0 && store.end(store.count - 1) as usize > table {
            return Err(corrupt("record offsets point past the data"));
        }
        Ok(store)
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    fn end(&self, i: usize) -> u64 {
        let at = self.table + i * 8;
        u64::from_le_bytes(self.file.body()[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The raw bytes of record `i`.
    fn raw(&self, i: usize) -> Result<&[u8], IndexError> {
        let start = if i == 0 { 0 } else { self.end(i - 1) } as usize;
        let end = self.end(i) as usize;
        if start > end || end > self.table {
            return Err(IndexError::DataCorruption {
                path: self.file.path().to_path_buf(),
                comment: format!("record {i} has offsets {start}..{end}"),
            });
        }
        Ok(&self.file.body()[start..end])
    }

    /// Decodes record `i`. Panics if `i >= len()` (callers hold valid numbers).
    pub fn get(&self, i: usize) -> Result<T, IndexError> {
        assert!(i < self.count, "record {i} of {}", self.count);
        let raw = self.raw(i)?;
        postcard::from_bytes(raw).map_err(|e| IndexError::DataCorruption {
            path: self.file.path().to_path_buf(),
            comment: format!("record {i}: {e}"),
        })
    }

    pub fn verify(&self) -> Result<(), IndexError> {
        self.file.verify()
    }
}
