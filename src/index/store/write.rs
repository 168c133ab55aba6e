//! Writing a block store: records are gathered into a block on the caller's thread; full
//! blocks are compressed and written in order by a thread of the writer's own.
//!
//! The build pushes every page's text and structure from the one thread that consumes
//! parsed pages in dump order, and that thread paces the parsing workers: compressing
//! there (about 1 s of CPU on the OTT-QA dump) cost a median 1.2 s of wall time in 10
//! alternating builds, so it only copies bytes and hands whole blocks over a bounded
//! channel. Blocks are written in the order they were pushed and each is compressed
//! alone, so the file is byte-identical however the threads are scheduled (and was
//! identical to the one compressed inline).
//!
//! Memory stays independent of the number of records: the block table is spilled to a
//! temporary file beside the output as blocks are written and appended at the end.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use serde::Serialize;

use super::super::IndexError;
use super::super::file::{FramedWriter, HEADER_LEN};
use super::{Codec, block_size_for, level_for};

/// Full blocks waiting for the compressing thread: enough to ride out a slow write,
/// few enough that they hold well under a megabyte.
const QUEUE: usize = 8;

/// Writes records in order.
pub(crate) struct StoreWriter<T> {
    path: PathBuf,
    /// Where blocks end.
    cut: Cut,
    /// The current block's record bytes, and each record's end within them.
    data: Vec<u8>,
    ends: Vec<u32>,
    /// Records pushed so far; the current block's first record; blocks closed.
    records: u64,
    first: u64,
    blocks: u64,
    /// Encoding buffer for [`StoreWriter::push`].
    buf: Vec<u8>,
    /// `None` once finished.
    sink: Option<Sink>,
    _t: PhantomData<fn(&T)>,
}

/// A full block: its first record and its bytes.
struct Block {
    first: u64,
    content: Content,
}

enum Content {
    /// Raw bytes (ends, then records), to be stored as the store's codec says.
    Raw(Vec<u8>),
    /// A block of another store of this kind, as stored there, with its raw length and
    /// CRC-32 (`StoreWriter::push_block`).
    Copied {
        stored: Vec<u8>,
        raw_len: u64,
        crc: u32,
    },
}

/// Where a writer closes a block, decided from the block's size and its last record's
/// bytes alone, so that a store written in parts (a build's shards) cuts most blocks
/// where one writer of all the records does, and the merge copies them
/// ([`StoreWriter::push_block`]). A writer closes the block after a record once it
/// holds `min` (¾ of `block_size`) and the record's CRC-32 falls below a bound
/// proportional to its length (a *content cut*, expected every `block_size / 4` bytes
/// past `min`), or once it holds `max` (twice `block_size`); and before a record that
/// would take a non-empty block past `max`. Two writers that start at different records
/// cut at the same record the first time a content cut comes with both blocks past
/// `min`, and alike from there on. Blocks average about `block_size`, as when they were
/// cut at `block_size` exactly. With `min` at ⅞ the writers took about nine blocks
/// to fall into step in the store tests (40 records a block), at ¾ at most one (on 8
/// OTT-QA shards, 0.5 of `structure.rec` and 2.75 of `text.rec` a shard); at ½ blocks
/// would vary more, and a random read decodes the whole block it falls in.
#[derive(Debug, Clone, Copy)]
struct Cut {
    min: usize,
    max: usize,
    /// Expected bytes between content cuts.
    spacing: u64,
}

impl Cut {
    fn of(block_size: usize) -> Cut {
        let spacing = (block_size / 4).max(1);
        Cut {
            min: block_size - spacing,
            max: block_size.saturating_mul(2),
            spacing: spacing as u64,
        }
    }

    /// Whether a block of `len` bytes whose last record is `record` is closed.
    fn after(&self, len: usize, record: &[u8]) -> bool {
        if len >= self.max {
            return true;
        }
        len >= self.min
            && u64::from(crc32fast::hash(record)) * self.spacing < (record.len() as u64) << 32
    }
}

/// The compressing thread: blocks go in through `tx`; it hands the writer back when the
/// channel closes.
struct Sink {
    tx: SyncSender<Block>,
    thread: JoinHandle<Result<Blocks, IndexError>>,
}

impl<T: Serialize> StoreWriter<T> {
    /// Creates the store of `kind` at `path`, in blocks of the kind's size
    /// (`block_size_for`).
    pub fn create(path: &Path, kind: u32) -> Result<StoreWriter<T>, IndexError> {
        StoreWriter::with_block_size(path, kind, block_size_for(kind))
    }

    /// Creates a store whose blocks hold about `block_size` raw bytes (compressed or
    /// not as [`Codec::for_kind`] says).
    pub(crate) fn with_block_size(
        path: &Path,
        kind: u32,
        block_size: usize,
    ) -> Result<StoreWriter<T>, IndexError> {
        let blocks = Blocks::create(path, kind)?;
        let (tx, rx) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("wikiwit-store".into())
            .spawn(move || blocks.run(rx))
            .map_err(|e| IndexError::io(path, e))?;
        Ok(StoreWriter {
            path: path.to_path_buf(),
            cut: Cut::of(block_size.max(1)),
            data: Vec::new(),
            ends: Vec::new(),
            records: 0,
            first: 0,
            blocks: 0,
            buf: Vec::new(),
            sink: Some(Sink { tx, thread }),
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
        let pushed = self.push_encoded(&bytes);
        self.buf = bytes;
        pushed
    }

    /// Appends a record already encoded with [`super::encode`] (lets workers do the
    /// encoding).
    pub(crate) fn push_encoded(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        let cut = self.cut;
        if !self.ends.is_empty() && self.data.len() + bytes.len() > cut.max {
            self.flush()?;
        }
        let end = u32::try_from(self.data.len() + bytes.len()).map_err(|_| IndexError::Encode {
            what: "record",
            message: format!("record {} is larger than 4 GiB", self.records),
        })?;
        self.data.extend_from_slice(bytes);
        self.ends.push(end);
        self.records += 1;
        if cut.after(self.data.len(), bytes) {
            self.flush()?;
        }
        Ok(())
    }

    /// Whether the block being filled is empty: the next record starts a block.
    pub(crate) fn at_block_start(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends a whole block of another store of the same kind and block size, as
    /// stored (compressed or not) with its table entry's raw length and CRC-32, and
    /// `count` records. Only at a block start ([`StoreWriter::at_block_start`]), and
    /// only a block that its writer closed by the same rule ([`Cut`]) from a block
    /// start: this writer would then have cut the same records into the same block, so
    /// the file is the one pushing them would make (`join.rs`).
    pub(crate) fn push_block(
        &mut self,
        stored: &[u8],
        count: u64,
        raw_len: u64,
        crc: u32,
    ) -> Result<(), IndexError> {
        let wrong = if !self.ends.is_empty() {
            Some("a block copied in the middle of a block")
        } else if count == 0 {
            Some("a block of no record copied")
        } else {
            None
        };
        if let Some(wrong) = wrong {
            return Err(IndexError::Encode {
                what: "record store",
                message: format!("{}: {wrong}", self.path.display()),
            });
        }
        self.records += count;
        let block = Block {
            first: self.first,
            content: Content::Copied {
                stored: stored.to_vec(),
                raw_len,
                crc,
            },
        };
        self.first = self.records;
        self.send(block)
    }

    pub fn len(&self) -> usize {
        self.records as usize
    }

    /// Writes the last block, the block table and the counts, then the footer; returns
    /// the file's size.
    pub fn finish(mut self) -> Result<u64, IndexError> {
        if !self.ends.is_empty() {
            self.flush()?;
        }
        let blocks = self.join()?;
        blocks.finish(self.records)
    }

    /// Hands the current block to the compressing thread.
    fn flush(&mut self) -> Result<(), IndexError> {
        let mut raw = Vec::with_capacity(self.ends.len() * 4 + self.data.len());
        for e in &self.ends {
            raw.extend_from_slice(&e.to_le_bytes());
        }
        raw.extend_from_slice(&self.data);
        let block = Block {
            first: self.first,
            content: Content::Raw(raw),
        };
        self.first = self.records;
        self.data.clear();
        self.ends.clear();
        self.send(block)
    }

    /// Blocks closed so far.
    pub(crate) fn blocks(&self) -> u64 {
        self.blocks
    }

    fn send(&mut self, block: Block) -> Result<(), IndexError> {
        self.blocks += 1;
        let sent = match &self.sink {
            Some(s) => s.tx.send(block).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            // The thread stopped on an error: report it.
            Err(match self.join() {
                Err(e) => e,
                Ok(_) => IndexError::Encode {
                    what: "record store",
                    message: format!("{}: the compressing thread stopped", self.path.display()),
                },
            })
        }
    }

    /// Closes the channel and waits for the compressing thread's last block.
    fn join(&mut self) -> Result<Blocks, IndexError> {
        let Some(Sink { tx, thread }) = self.sink.take() else {
            return Err(IndexError::Encode {
                what: "record store",
                message: format!("{}: already finished", self.path.display()),
            });
        };
        drop(tx);
        thread.join().map_err(|_| IndexError::Encode {
            what: "record store",
            message: format!("{}: the compressing thread panicked", self.path.display()),
        })?
    }
}

impl<T> Drop for StoreWriter<T> {
    /// A writer dropped unfinished (a failed build) stops its thread before the staging
    /// directory is removed, and the thread deletes the table spill.
    fn drop(&mut self) {
        if let Some(Sink { tx, thread }) = self.sink.take() {
            drop(tx);
            let _ = thread.join();
        }
    }
}

/// The compressing side: the output file, the compressor and the spilled block table.
struct Blocks {
    path: PathBuf,
    codec: Codec,
    out: FramedWriter,
    zstd: zstd::bulk::Compressor<'static>,
    packed: Vec<u8>,
    table: Spill,
    /// CRC-32 of the block table written so far.
    table_crc: crc32fast::Hasher,
    blocks: u64,
}

impl Blocks {
    fn create(path: &Path, kind: u32) -> Result<Blocks, IndexError> {
        let table = Spill::create(path)?;
        Ok(Blocks {
            path: path.to_path_buf(),
            codec: Codec::for_kind(kind),
            out: FramedWriter::create(path, kind)?,
            zstd: zstd::bulk::Compressor::new(level_for(kind))
                .map_err(|e| IndexError::io(path, e))?,
            packed: Vec::new(),
            table,
            table_crc: crc32fast::Hasher::new(),
            blocks: 0,
        })
    }

    /// Compresses and writes blocks until the channel closes.
    fn run(mut self, rx: Receiver<Block>) -> Result<Blocks, IndexError> {
        for block in rx {
            self.write(&block)?;
        }
        Ok(self)
    }

    fn write(&mut self, block: &Block) -> Result<(), IndexError> {
        super::super::fault::point("store");
        let (crc, raw_len) = match &block.content {
            Content::Raw(raw) if self.codec == Codec::Stored => {
                self.out.write(raw)?;
                (crc32fast::hash(raw), raw.len() as u64)
            }
            Content::Raw(raw) => {
                self.packed.clear();
                self.packed
                    .reserve(zstd::zstd_safe::compress_bound(raw.len()));
                self.zstd
                    .compress_to_buffer(raw, &mut self.packed)
                    .map_err(|e| IndexError::io(&self.path, e))?;
                self.out.write(&self.packed)?;
                (crc32fast::hash(&self.packed), raw.len() as u64)
            }
            Content::Copied {
                stored,
                raw_len,
                crc,
            } => {
                self.out.write(stored)?;
                (*crc, *raw_len)
            }
        };
        let end = self.out.position() - HEADER_LEN as u64;
        let mut entry = [0u8; super::ENTRY_LEN];
        entry[..8].copy_from_slice(&end.to_le_bytes());
        entry[8..16].copy_from_slice(&block.first.to_le_bytes());
        entry[16..24].copy_from_slice(&raw_len.to_le_bytes());
        entry[24..].copy_from_slice(&crc.to_le_bytes());
        self.table_crc.update(&entry);
        self.table.write(&entry)?;
        self.blocks += 1;
        Ok(())
    }

    /// Appends the block table (read back from the spill) and the trailer.
    fn finish(mut self, records: u64) -> Result<u64, IndexError> {
        let mut table = self.table.reopen()?;
        let mut chunk = vec![0u8; 1 << 20];
        loop {
            let n = table
                .read(&mut chunk)
                .map_err(|e| IndexError::io(&self.table.path, e))?;
            if n == 0 {
                break;
            }
            self.out.write(&chunk[..n])?;
        }
        let mut trailer = [0u8; super::TRAILER_LEN];
        trailer[..8].copy_from_slice(&records.to_le_bytes());
        trailer[8..16].copy_from_slice(&self.blocks.to_le_bytes());
        trailer[16..20].copy_from_slice(&(self.codec as u32).to_le_bytes());
        trailer[20..].copy_from_slice(&self.table_crc.clone().finalize().to_le_bytes());
        self.out.write(&trailer)?;
        self.out.finish()
    }
}

/// The block table while blocks are written: `<store>.tmp-table` beside the store,
/// removed when dropped (after [`Blocks::finish`], or when a build fails).
struct Spill {
    path: PathBuf,
    file: Option<BufWriter<File>>,
}

impl Spill {
    fn create(store: &Path) -> Result<Spill, IndexError> {
        let mut name = store.as_os_str().to_owned();
        name.push(".tmp-table");
        let path = PathBuf::from(name);
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|e| IndexError::io(&path, e))?;
        Ok(Spill {
            path,
            file: Some(BufWriter::new(file)),
        })
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), IndexError> {
        match &mut self.file {
            Some(f) => f
                .write_all(bytes)
                .map_err(|e| IndexError::io(&self.path, e)),
            None => Ok(()),
        }
    }

    /// The spilled bytes, for reading from the start.
    fn reopen(&mut self) -> Result<File, IndexError> {
        let io = |e| IndexError::io(&self.path, e);
        let Some(w) = self.file.take() else {
            return Err(io(std::io::Error::other("table spill already read")));
        };
        let mut file = w.into_inner().map_err(|e| io(e.into_error()))?;
        file.rewind().map_err(io)?;
        Ok(file)
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
