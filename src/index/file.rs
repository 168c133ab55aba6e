//! Framing shared by every binary file of an index: a header naming the file kind and the
//! format version, and a footer with the length and a CRC-32 of everything before it.
//!
//! The header lets a reader refuse a file from another format version or of the wrong
//! kind before interpreting a byte; the footer catches truncation on open and corruption
//! on `wikiwit info --verify`.
//!
//! A file read a little at a time by queries (the adjacency lists, gigabytes on
//! English Wikipedia) also carries a CRC-32 per 64 KiB ([`crate::chunk_crc`]), so that the bytes a
//! query reads are checked before they are believed ([`FramedFile::check`]) without
//! reading the whole file: each chunk is checked the first time it is touched.

use memmap2::Mmap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{FORMAT_VERSION, IndexError};
use crate::chunk_crc::{CHUNK, Checked, ChunkHasher};

const MAGIC: &[u8; 8] = b"WIKIWIT\0";
const FOOTER_MAGIC: &[u8; 8] = b"WWEND\0\0\0";
pub(crate) const HEADER_LEN: usize = 16;
/// CRC-32 of the content and chunk table, CRC-32 of the chunk table, where the content
/// ends (`u64`), the file's length (`u64`), the footer magic.
pub(crate) const FOOTER_LEN: usize = 32;

/// Writes a framed file, computing the CRC as bytes go out.
pub(crate) struct FramedWriter {
    path: PathBuf,
    out: BufWriter<File>,
    crc: crc32fast::Hasher,
    len: u64,
    chunks: Option<ChunkHasher>,
}

impl FramedWriter {
    /// A file checked as a whole (`info --verify`): one its readers check in their own
    /// units (the record stores' blocks) or in full on opening (the title maps).
    pub fn create(path: &Path, kind: u32) -> Result<FramedWriter, IndexError> {
        Self::create_with(path, kind, None)
    }

    /// A file with a chunk table, for readers that check what they read
    /// ([`FramedFile::check`]).
    pub(crate) fn create_chunked(path: &Path, kind: u32) -> Result<FramedWriter, IndexError> {
        Self::create_with(path, kind, Some(ChunkHasher::default()))
    }

    fn create_with(
        path: &Path,
        kind: u32,
        chunks: Option<ChunkHasher>,
    ) -> Result<FramedWriter, IndexError> {
        let file = File::create(path).map_err(|e| IndexError::io(path, e))?;
        let mut w = FramedWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, file),
            crc: crc32fast::Hasher::new(),
            len: 0,
            chunks,
        };
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        header[12..16].copy_from_slice(&kind.to_le_bytes());
        w.write(&header)?;
        Ok(w)
    }

    /// Bytes written so far, header included (the offset of the next byte).
    pub fn position(&self) -> u64 {
        self.len
    }

    pub fn write(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        if let Some(c) = &mut self.chunks {
            c.update(bytes);
        }
        self.crc.update(bytes);
        self.len += bytes.len() as u64;
        self.out
            .write_all(bytes)
            .map_err(|e| IndexError::io(&self.path, e))
    }

    /// Appends the whole content of the file at `src` (a temporary part of this file,
    /// such as an fst shard or an adjacency list's values).
    pub(crate) fn copy_file(&mut self, src: &Path) -> Result<(), IndexError> {
        let mut input = File::open(src).map_err(|e| IndexError::io(src, e))?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n =
                std::io::Read::read(&mut input, &mut buf).map_err(|e| IndexError::io(src, e))?;
            if n == 0 {
                return Ok(());
            }
            self.write(&buf[..n])?;
        }
    }

    /// Writes the chunk table (if any), the footer, and syncs the file to disk.
    pub fn finish(mut self) -> Result<u64, IndexError> {
        let content = self.len;
        let mut table = Vec::new();
        if let Some(c) = self.chunks.take() {
            table = c.finish().iter().flat_map(|x| x.to_le_bytes()).collect();
            self.write(&table)?;
        }
        let crc = self.crc.clone().finalize();
        let total = self.len + FOOTER_LEN as u64;
        let mut footer = [0u8; FOOTER_LEN];
        footer[..4].copy_from_slice(&crc.to_le_bytes());
        footer[4..8].copy_from_slice(&crc32fast::hash(&table).to_le_bytes());
        footer[8..16].copy_from_slice(&content.to_le_bytes());
        footer[16..24].copy_from_slice(&total.to_le_bytes());
        footer[24..32].copy_from_slice(FOOTER_MAGIC);
        self.out
            .write_all(&footer)
            .map_err(|e| IndexError::io(&self.path, e))?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| IndexError::io(&self.path, e.into_error()))?;
        file.sync_all().map_err(|e| IndexError::io(&self.path, e))?;
        Ok(total)
    }
}

/// A framed file opened for reading: the mapped bytes between header and footer.
pub(crate) struct FramedFile {
    path: PathBuf,
    map: Mmap,
    /// Where the content ends (the chunk table, if any, follows it).
    content: usize,
    /// The chunk table's entries (empty for a file without one).
    table: std::ops::Range<usize>,
    /// The chunks already checked.
    checked: Checked,
}

impl FramedFile {
    pub fn open(path: &Path, kind: u32) -> Result<FramedFile, IndexError> {
        let file = File::open(path).map_err(|e| IndexError::io(path, e))?;
        // SAFETY: index files are written once, then only read; a concurrent rebuild
        // replaces the directory atomically instead of rewriting files in place.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| IndexError::io(path, e))?;
        let corrupt = |comment: String| IndexError::DataCorruption {
            path: path.to_path_buf(),
            comment,
        };
        if map.len() < HEADER_LEN + FOOTER_LEN || &map[..8] != MAGIC {
            return Err(corrupt("not a wikiwit index file (bad header)".into()));
        }
        let version = u32::from_le_bytes(map[8..12].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(IndexError::Version {
                path: path.to_path_buf(),
                expected: FORMAT_VERSION,
                found: version,
            });
        }
        let found_kind = u32::from_le_bytes(map[12..16].try_into().expect("4 bytes"));
        if found_kind != kind {
            return Err(corrupt(format!(
                "file kind {found_kind} where kind {kind} was expected"
            )));
        }
        let f = &map[map.len() - FOOTER_LEN..];
        let u64_at = |at: usize| u64::from_le_bytes(f[at..at + 8].try_into().expect("8 bytes"));
        let (content, total) = (u64_at(8), u64_at(16));
        if &f[24..32] != FOOTER_MAGIC || total != map.len() as u64 {
            return Err(corrupt(format!(
                "truncated or overwritten (footer says {total} bytes, file has {})",
                map.len()
            )));
        }
        let end = map.len() - FOOTER_LEN;
        let content = usize::try_from(content)
            .ok()
            .filter(|&c| (HEADER_LEN..=end).contains(&c))
            .ok_or_else(|| corrupt(format!("content end {content} outside the file")))?;
        let table = content..end;
        let entries = table.len() / 4;
        if !table.is_empty() && (table.len() % 4 != 0 || entries != content.div_ceil(CHUNK)) {
            return Err(corrupt(format!(
                "a chunk table of {} bytes for {content} bytes of content",
                table.len()
            )));
        }
        let stored = u32::from_le_bytes(f[4..8].try_into().expect("4 bytes"));
        let actual = crc32fast::hash(&map[table.clone()]);
        if stored != actual {
            return Err(corrupt(format!(
                "the chunk table fails its CRC-32 (stored {stored:08x}, computed {actual:08x})"
            )));
        }
        Ok(FramedFile {
            path: path.to_path_buf(),
            map,
            content,
            checked: Checked::new(entries),
            table,
        })
    }

    /// Checks the chunks holding `range` of the body against the chunk table, each
    /// chunk once per opening; a file without a table passes (its readers check it
    /// otherwise). A range reaching past the body is the caller's to refuse.
    pub fn check(&self, range: std::ops::Range<usize>) -> Result<(), IndexError> {
        if self.table.is_empty() || range.is_empty() {
            return Ok(());
        }
        let start = (HEADER_LEN + range.start).min(self.content);
        let end = (HEADER_LEN + range.end).min(self.content);
        self.checked.check(
            start..end,
            self.content,
            |r| Ok(&self.map[r]),
            |k| {
                let at = self.table.start + 4 * k;
                u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"))
            },
            |m| IndexError::DataCorruption {
                path: self.path.clone(),
                comment: m.to_string(),
            },
        )
    }

    /// The payload between header and footer.
    pub fn body(&self) -> &[u8] {
        &self.map[HEADER_LEN..self.content]
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Recomputes the CRC-32 and compares it with the footer.
    pub fn verify(&self) -> Result<(), IndexError> {
        let n = self.map.len() - FOOTER_LEN;
        let stored = u32::from_le_bytes(self.map[n..n + 4].try_into().expect("4 bytes"));
        let actual = crc32fast::hash(&self.map[..n]);
        if stored != actual {
            return Err(IndexError::DataCorruption {
                path: self.path.clone(),
                comment: format!("CRC-32 mismatch: stored {stored:08x}, computed {actual:08x}"),
            });
        }
        Ok(())
    }
}
