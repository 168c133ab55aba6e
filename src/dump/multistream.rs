//! The `-index.txt.bz2` of a multistream dump: `offset:page_id:title` per page.
//!
//! wikiwit does not need the index to read a multistream dump in parallel (stream starts
//! are found by scanning), but when one is given it is authoritative: each offset must be
//! a stream start and every page found is checked against it (`index_check`), so a dump
//! and an index from different runs are refused instead of silently mixed.

use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::Path;

use super::bz2_decode::{Cursor, Decoder, Fault};
use super::error::DumpError;
use super::sniff::{Container, Sniffed, sniff_file};

/// One page as the index lists it (title kept as a hash to bound memory on enwiki's
/// 19 M lines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub page_id: u64,
    pub title_hash: u64,
    /// 1-based line number in the index file, for messages.
    pub line: u64,
}

/// The pages the index places in one stream range.
#[derive(Debug, Clone)]
pub struct StreamRange {
    pub offset: u64,
    pub entries: Vec<Entry>,
    /// The distinct texts before the first `:` of the titles listed here (namespace
    /// prefixes, and colons of ordinary titles): what a pass that wants only some
    /// namespaces decides from ([`crate::dump::Dump::pages_in_namespaces`]).
    pub prefixes: Vec<Box<str>>,
}

/// A parsed multistream index.
#[derive(Debug, Clone)]
pub struct MultistreamIndex {
    pub ranges: Vec<StreamRange>,
    pub pages: u64,
}

/// The hash used to compare index titles with dump titles.
pub(crate) fn title_hash(title: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    title.hash(&mut h);
    h.finish()
}

impl MultistreamIndex {
    /// Reads an index file, plain text or bz2 (detected from its bytes), from `file`
    /// opened at `path` (named in errors).
    pub fn read(path: &Path, mut file: std::fs::File) -> Result<MultistreamIndex, DumpError> {
        let io_err = |source| DumpError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut head = [0u8; 16];
        let n = read_head(&mut file, &mut head).map_err(io_err)?;
        file.rewind().map_err(io_err)?;
        let reader: Box<dyn Read> = match sniff_file(&head[..n]) {
            Sniffed::Empty => {
                return Err(DumpError::Empty {
                    path: path.to_path_buf(),
                });
            }
            Sniffed::Container(Container::Bzip2) => {
                // SAFETY: the index is opened read-only and read once, now.
                let data = unsafe { memmap2::Mmap::map(&file) }.map_err(io_err)?;
                Box::new(Bz2Reader::new(data))
            }
            _ => Box::new(file),
        };
        Self::parse(path, BufReader::with_capacity(1 << 20, reader))
    }

    fn parse(path: &Path, reader: impl BufRead) -> Result<MultistreamIndex, DumpError> {
        let syntax = |line: u64, message: String| DumpError::IndexFileSyntax {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut ranges: Vec<StreamRange> = Vec::new();
        let mut pages = 0u64;
        for (i, line) in reader.split(b'\n').enumerate() {
            let lineno = i as u64 + 1;
            let line = line.map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidData | std::io::ErrorKind::Other => {
                    syntax(lineno, format!("cannot decompress the index: {e}"))
                }
                _ => DumpError::Io {
                    path: path.to_path_buf(),
                    source: e,
                },
            })?;
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
            if line.is_empty() {
                continue;
            }
            let line = std::str::from_utf8(line)
                .map_err(|_| syntax(lineno, "not UTF-8 text".to_string()))?;
            let mut parts = line.splitn(3, ':');
            let (Some(off), Some(id), Some(title)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(syntax(
                    lineno,
                    format!("expected `offset:page_id:title`, found {line:?}"),
                ));
            };
            let offset: u64 = off
                .parse()
                .map_err(|_| syntax(lineno, format!("bad byte offset {off:?}")))?;
            let page_id: u64 = id
                .parse()
                .map_err(|_| syntax(lineno, format!("bad page id {id:?}")))?;
            let entry = Entry {
                page_id,
                title_hash: title_hash(title),
                line: lineno,
            };
            let prefix = title.split_once(':').map(|(p, _)| p);
            let add_prefix = |r: &mut StreamRange| {
                if let Some(p) = prefix
                    && !r.prefixes.iter().any(|x| &**x == p)
                {
                    r.prefixes.push(p.into());
                }
            };
            match ranges.last_mut() {
                Some(r) if r.offset == offset => {
                    r.entries.push(entry);
                    add_prefix(r);
                }
                Some(r) if r.offset > offset => {
                    return Err(syntax(
                        lineno,
                        format!(
                            "offset {offset} is smaller than the previous offset {}: offsets must ascend",
                            r.offset
                        ),
                    ));
                }
                _ => {
                    let mut r = StreamRange {
                        offset,
                        entries: vec![entry],
                        prefixes: Vec::new(),
                    };
                    add_prefix(&mut r);
                    ranges.push(r);
                }
            }
            pages += 1;
        }
        if ranges.is_empty() {
            return Err(syntax(0, "the index lists no pages".to_string()));
        }
        Ok(MultistreamIndex { ranges, pages })
    }
}

/// The decoded bytes of a mapped bz2 file as a reader, a block at a time, so that
/// enwiki's 1 GB of index text never sits in memory at once.
struct Bz2Reader {
    data: memmap2::Mmap,
    cursor: Cursor,
    dec: Decoder,
    buf: Vec<u8>,
    /// Bytes of `buf` already read.
    taken: usize,
}

impl Bz2Reader {
    fn new(data: memmap2::Mmap) -> Bz2Reader {
        Bz2Reader {
            data,
            cursor: Cursor::new(0),
            dec: Decoder::new(),
            buf: Vec::new(),
            taken: 0,
        }
    }
}

impl Read for Bz2Reader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.taken == self.buf.len() {
            self.buf.clear();
            self.taken = 0;
            self.dec
                .fill(&self.data, &mut self.cursor, &mut self.buf, 1)
                .map_err(|e| {
                    let what = match e.fault {
                        Fault::Truncated => "the bz2 data ends early".to_string(),
                        Fault::NoHeader => "unexpected bytes after a bz2 stream".to_string(),
                        Fault::Corrupt(detail) => detail,
                    };
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{what} (bz2 stream at byte {})", e.stream_offset),
                    )
                })?;
        }
        let n = out.len().min(self.buf.len() - self.taken);
        out[..n].copy_from_slice(&self.buf[self.taken..self.taken + n]);
        self.taken += n;
        Ok(n)
    }
}

fn read_head(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        let k = r.read(&mut buf[n..])?;
        if k == 0 {
            break;
        }
        n += k;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_keep_their_colons() {
        let text = b"600:10:Foo\n600:12:Category:Bar: baz\n900:13:X\n";
        let idx = MultistreamIndex::parse(Path::new("i"), &text[..]).unwrap();
        assert_eq!(idx.ranges.len(), 2);
        assert_eq!(
            idx.ranges[0].entries[1].title_hash,
            title_hash("Category:Bar: baz")
        );
        assert_eq!(idx.pages, 3);
    }

    #[test]
    fn descending_offsets_are_refused() {
        let text = b"900:1:A\n600:2:B\n";
        let err = MultistreamIndex::parse(Path::new("i"), &text[..]).unwrap_err();
        assert!(err.to_string().contains("line 2"), "{err}");
    }
}
