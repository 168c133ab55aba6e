//! Chunk checksums for the full-text index's files, checked as tantivy reads them.
//!
//! Tantivy ends each file with a CRC-32 of the whole file, but checks it only when asked
//! to read every byte (`Index::validate_checksum`): gigabytes on English Wikipedia, too
//! slow for each `search`. A flipped byte in a posting list or a term dictionary would
//! otherwise give wrong hits or a confusing failure deep inside tantivy. So the build
//! writes [`FILE`] into the directory: every file's length and a CRC-32 per [`CHUNK`]
//! bytes. Readers open the directory through [`CheckedDirectory`], which checks a chunk
//! the first time tantivy reads any byte of it (once per process), and fails the read
//! with the file and the bytes named when it does not match.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::chunk_crc::{CHUNK, Checked, ChunkHasher, CopyError, read_through};
use tantivy::HasLen;
use tantivy::directory::error::{DeleteError, OpenDirectoryError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback,
    WatchHandle, WritePtr,
};

/// The chunk table's file name, inside the text index directory.
pub const FILE: &str = "chunks.crc32";

const MAGIC: &[u8; 8] = b"WWTXTCRC";
const VERSION: u32 = 1;

/// One file's length and chunk checksums.
#[derive(Debug)]
struct FileChunks {
    len: u64,
    crcs: Arc<[u32]>,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// The chunk checksums of the file at `path` and the CRC-32 of the whole file (which
/// the manifest keeps for `info --verify`), read in one streaming pass; each block read
/// is handed to `sink` too (a copy's writer).
fn file_chunks(
    path: &Path,
    mut sink: impl FnMut(&[u8]) -> io::Result<()>,
) -> Result<(FileChunks, u32), CopyError> {
    let (mut chunks, mut whole) = (ChunkHasher::default(), crc32fast::Hasher::new());
    let len = read_through(path, |bytes| {
        chunks.update(bytes);
        whole.update(bytes);
        sink(bytes)
    })?;
    let chunks = FileChunks {
        len,
        crcs: chunks.finish().into(),
    };
    Ok((chunks, whole.finalize()))
}

/// Files copied into a text index directory with their checksums taken on the way
/// ([`Copied::copy`]), so that [`write_with`] need not read them again.
#[derive(Default)]
pub(crate) struct Copied(BTreeMap<String, (FileChunks, u32)>);

impl Copied {
    /// Copies `from` to `dir/name` (synced) and returns the CRC-32 of its bytes.
    pub(crate) fn copy(&mut self, from: &Path, dir: &Path, name: &str) -> Result<u32, CopyError> {
        use std::io::Write;
        let mut out = std::fs::File::create(dir.join(name)).map_err(CopyError::Write)?;
        let (chunks, whole) = file_chunks(from, |bytes| out.write_all(bytes))?;
        out.sync_all().map_err(CopyError::Write)?;
        self.0.insert(name.to_string(), (chunks, whole));
        Ok(whole)
    }
}

/// Writes [`FILE`] for the files now in `dir` (tantivy's lock files aside: they come and
/// go with readers). Called once the index is committed and its writer gone, so no
/// file changes afterwards. Returns the CRC-32 of every file of the directory, [`FILE`]
/// included, by name: the manifest's checksums, without reading the files again.
pub(crate) fn write(dir: &Path) -> io::Result<BTreeMap<String, u32>> {
    write_with(dir, Copied::default())
}

/// [`write`], taking the checksums of the files `copied` holds from it rather than
/// reading those files again.
pub(crate) fn write_with(dir: &Path, mut copied: Copied) -> io::Result<BTreeMap<String, u32>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_file() && !name.ends_with(".lock") && name != FILE {
            names.push(name);
        }
    }
    names.sort();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(CHUNK as u32).to_le_bytes());
    out.extend_from_slice(&(names.len() as u32).to_le_bytes());
    let mut wholes = BTreeMap::new();
    for name in &names {
        let (chunks, whole) = match copied.0.remove(name) {
            Some(known) => known,
            None => file_chunks(&dir.join(name), |_| Ok(())).map_err(CopyError::into_inner)?,
        };
        wholes.insert(name.clone(), whole);
        let name_len = u16::try_from(name.len())
            .map_err(|_| invalid(format!("{name}: file name too long")))?;
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&chunks.len.to_le_bytes());
        for crc in chunks.crcs.iter() {
            out.extend_from_slice(&crc.to_le_bytes());
        }
    }
    out.extend_from_slice(&crc32fast::hash(&out).to_le_bytes());
    let path = dir.join(FILE);
    std::fs::write(&path, &out)?;
    std::fs::File::open(&path)?.sync_all()?;
    wholes.insert(FILE.to_string(), crc32fast::hash(&out));
    Ok(wholes)
}

/// The chunk tables of a text index directory, by file name.
#[derive(Debug)]
struct ChunkTable {
    files: BTreeMap<String, FileChunks>,
}

/// A little-endian reader over the table's bytes that refuses to read past the end.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| invalid(format!("truncated at byte {}", self.at)))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u16(&mut self) -> io::Result<u16> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }

    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

impl ChunkTable {
    /// Reads and checks the table of `bytes` (the file's own CRC-32 first).
    fn parse(bytes: &[u8]) -> io::Result<ChunkTable> {
        let (body, trailer) = bytes
            .split_last_chunk::<4>()
            .ok_or_else(|| invalid("shorter than its checksum".into()))?;
        let (stored, actual) = (u32::from_le_bytes(*trailer), crc32fast::hash(body));
        if stored != actual {
            return Err(invalid(format!(
                "fails its CRC-32 (stored {stored:08x}, computed {actual:08x})"
            )));
        }
        let mut c = Cursor { bytes: body, at: 0 };
        if c.take(MAGIC.len())? != MAGIC {
            return Err(invalid("not a wikiwit chunk table".into()));
        }
        let (version, chunk) = (c.u32()?, c.u32()?);
        if version != VERSION || chunk as usize != CHUNK {
            return Err(invalid(format!(
                "version {version} with {chunk}-byte chunks, where version {VERSION} with \
                 {CHUNK}-byte chunks was expected"
            )));
        }
        let mut files = BTreeMap::new();
        for _ in 0..c.u32()? {
            let name_len = usize::from(c.u16()?);
            let at = c.at;
            let name = std::str::from_utf8(c.take(name_len)?)
                .map_err(|_| invalid(format!("a file name at byte {at} is not UTF-8")))?
                .to_string();
            let len = c.u64()?;
            let count = usize::try_from(len.div_ceil(CHUNK as u64))
                .map_err(|_| invalid(format!("{name}: length {len} out of range")))?;
            let table = c.take(count.saturating_mul(4))?;
            let crcs = table
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect();
            files.insert(name, FileChunks { len, crcs });
        }
        if c.at != body.len() {
            return Err(invalid(format!(
                "{} bytes after the last file",
                body.len() - c.at
            )));
        }
        Ok(ChunkTable { files })
    }
}

/// The first damage a check found: tantivy passes the failed read up as an opaque I/O
/// error, so the searcher asks here which file and which bytes failed, to say so plainly.
#[derive(Clone, Default)]
pub(crate) struct DamageLog(Arc<Mutex<Option<Damage>>>);

/// A file of the text index that failed its check, and what failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Damage {
    pub path: PathBuf,
    pub comment: String,
}

impl DamageLog {
    /// Records that `path` is damaged (`comment` says where) and returns the I/O error
    /// for tantivy.
    fn record(&self, path: &Path, comment: String) -> io::Error {
        let message = format!("{}: {comment}", path.display());
        let mut first = self.0.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| Damage {
            path: path.to_path_buf(),
            comment,
        });
        invalid(message)
    }

    /// The damaged file and what failed, if a check failed.
    pub fn first(&self) -> Option<Damage> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Tantivy's memory-mapped directory, with every read checked against the chunk table.
#[derive(Clone)]
pub(crate) struct CheckedDirectory {
    inner: MmapDirectory,
    dir: PathBuf,
    table: Arc<ChunkTable>,
    /// One handle per file, so that each chunk is checked once per process however often
    /// tantivy reopens the file.
    handles: Arc<Mutex<HashMap<PathBuf, Arc<CheckedFile>>>>,
    damage: DamageLog,
}

impl fmt::Debug for CheckedDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CheckedDirectory({})", self.dir.display())
    }
}

impl CheckedDirectory {
    /// Opens the text index directory `dir` and reads its chunk table; a directory or
    /// table that cannot be read is damage to the index.
    pub fn open(dir: &Path) -> Result<CheckedDirectory, Damage> {
        let inner = MmapDirectory::open(dir).map_err(|e| Damage {
            path: dir.to_path_buf(),
            comment: match e {
                OpenDirectoryError::DoesNotExist(_) => "missing".to_string(),
                other => other.to_string(),
            },
        })?;
        let path = dir.join(FILE);
        let corrupt = |comment: String| Damage {
            path: path.clone(),
            comment,
        };
        let bytes = std::fs::read(&path).map_err(|e| corrupt(format!("cannot be read: {e}")))?;
        let table = ChunkTable::parse(&bytes).map_err(|e| corrupt(e.to_string()))?;
        Ok(CheckedDirectory {
            inner,
            dir: dir.to_path_buf(),
            table: Arc::new(table),
            handles: Arc::default(),
            damage: DamageLog::default(),
        })
    }

    /// Where this directory's checks record damage.
    pub fn damage(&self) -> DamageLog {
        self.damage.clone()
    }

    /// The chunk table entry of `path`, with the file's length checked against it.
    fn chunks(&self, path: &Path, len: usize) -> io::Result<&FileChunks> {
        let full = self.dir.join(path);
        let name = path.to_string_lossy();
        let chunks = self.table.files.get(name.as_ref()).ok_or_else(|| {
            let table = self.dir.join(FILE);
            let comment = format!("a file the chunk table {} does not list", table.display());
            self.damage.record(&full, comment)
        })?;
        if chunks.len != len as u64 {
            let comment = format!("{len} bytes where the chunk table says {}", chunks.len);
            return Err(self.damage.record(&full, comment));
        }
        Ok(chunks)
    }
}

impl Directory for CheckedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let mut handles = self.handles.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = handles.get(path) {
            return Ok(h.clone());
        }
        let inner = self.inner.get_file_handle(path)?;
        let full = self.dir.join(path);
        let chunks = self
            .chunks(path, inner.len())
            .map_err(|e| OpenReadError::wrap_io_error(e, full.clone()))?;
        let handle = Arc::new(CheckedFile {
            inner,
            path: full,
            crcs: chunks.crcs.clone(),
            checked: Checked::new(chunks.crcs.len()),
            damage: self.damage.clone(),
        });
        handles.insert(path.to_path_buf(), handle.clone());
        Ok(handle)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let data = self.inner.atomic_read(path)?;
        let full = self.dir.join(path);
        let chunks = self
            .chunks(path, data.len())
            .map_err(|e| OpenReadError::wrap_io_error(e, full.clone()))?;
        Checked::new(chunks.crcs.len())
            .check(
                0..data.len(),
                data.len(),
                |r| Ok(&data[r]),
                |k| chunks.crcs[k],
                |m| self.damage.record(&full, m.to_string()),
            )
            .map_err(|e| OpenReadError::wrap_io_error(e, full.clone()))?;
        Ok(data)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.inner.open_write(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.inner.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(
        &self,
        lock: &Lock,
    ) -> Result<DirectoryLock, tantivy::directory::error::LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(callback)
    }
}

/// A file of the text index whose chunks are checked the first time they are read.
struct CheckedFile {
    inner: Arc<dyn FileHandle>,
    path: PathBuf,
    crcs: Arc<[u32]>,
    /// The chunks already checked.
    checked: Checked,
    damage: DamageLog,
}

impl fmt::Debug for CheckedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CheckedFile({})", self.path.display())
    }
}

impl CheckedFile {
    fn check(&self, range: Range<usize>) -> io::Result<()> {
        self.checked.check(
            range,
            self.inner.len(),
            |r| self.inner.read_bytes(r),
            |k| self.crcs[k],
            |m| self.damage.record(&self.path, m.to_string()),
        )
    }
}

impl HasLen for CheckedFile {
    fn len(&self) -> usize {
        self.inner.len()
    }
}

impl FileHandle for CheckedFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        self.check(range.clone())?;
        self.inner.read_bytes(range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_round_trips_and_refuses_damage() {
        let tmp = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..CHUNK * 2 + 100).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(tmp.path().join("a.idx"), &big).unwrap();
        std::fs::write(tmp.path().join("meta.json"), b"{}").unwrap();
        std::fs::write(tmp.path().join(".tantivy-meta.lock"), b"").unwrap();
        let wholes = write(tmp.path()).unwrap();
        let bytes = std::fs::read(tmp.path().join(FILE)).unwrap();
        assert_eq!(wholes["a.idx"], crc32fast::hash(&big));
        assert_eq!(wholes[FILE], crc32fast::hash(&bytes));
        let table = ChunkTable::parse(&bytes).unwrap();
        let names: Vec<&str> = table.files.keys().map(String::as_str).collect();
        assert_eq!(names, ["a.idx", "meta.json"]);
        let a = &table.files["a.idx"];
        assert_eq!(a.len, big.len() as u64);
        assert_eq!(a.crcs.len(), 3);
        assert_eq!(a.crcs[2], crc32fast::hash(&big[CHUNK * 2..]));
        for at in [0, 9, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert!(ChunkTable::parse(&damaged).is_err(), "byte {at}");
        }
        assert!(ChunkTable::parse(&bytes[..bytes.len() - 5]).is_err());
    }

    #[test]
    fn a_read_touching_a_damaged_chunk_fails_and_others_pass() {
        let tmp = tempfile::tempdir().unwrap();
        let mut big: Vec<u8> = (0..CHUNK * 3).map(|i| (i % 253) as u8).collect();
        std::fs::write(tmp.path().join("a.idx"), &big).unwrap();
        write(tmp.path()).unwrap();
        big[CHUNK + 10] ^= 0x10;
        std::fs::write(tmp.path().join("a.idx"), &big).unwrap();
        let dir = CheckedDirectory::open(tmp.path()).unwrap();
        let file = dir.get_file_handle(Path::new("a.idx")).unwrap();
        assert_eq!(file.read_bytes(0..100).unwrap().as_slice(), &big[..100]);
        assert!(file.read_bytes(CHUNK * 2..CHUNK * 2 + 5).is_ok());
        let e = file
            .read_bytes(CHUNK - 1..CHUNK + 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("a.idx: chunk 1 (bytes 65536–131072)"), "{e}");
        // A file the table does not list is refused, not read unchecked.
        std::fs::write(tmp.path().join("b.idx"), b"x").unwrap();
        assert!(dir.get_file_handle(Path::new("b.idx")).is_err());
    }
}
