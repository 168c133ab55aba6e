//! Checking the pages of a multistream dump against its `-index.txt.bz2`.
//!
//! The index is one bz2 stream: decoding it cannot be split across cores, and on the
//! 184 k-page OTT-QA dump it takes 0.3 s, which used to be spent before the first stream
//! was decoded, with the other core idle. The dump's streams are found by scanning
//! instead (as without an index), the index is read on its own thread meanwhile, and
//! the pages are checked against it in dump order as soon as it is there: the checker
//! queues the (page id, title hash) lists of the pieces it is given until then.
//! Workers never wait for the index, so the index costs its CPU time and no wall time.
//!
//! The index stays authoritative: every offset it lists must be the start of a stream,
//! every page must sit in the stream group the index places it in, in the index's
//! order, and every page the index lists must be found.

use std::collections::VecDeque;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::JoinHandle;

use super::error::{DumpError, Location};
use super::multistream::{Entry, MultistreamIndex};

/// The index as it is being read: a thread until it is joined.
pub(super) struct IndexLoad {
    path: PathBuf,
    state: Mutex<LoadState>,
}

enum LoadState {
    Reading(JoinHandle<Result<MultistreamIndex, DumpError>>),
    Ready(Box<MultistreamIndex>),
    /// The error was handed to the caller that joined the thread.
    Failed,
}

impl IndexLoad {
    /// Starts reading `path` on a thread of its own. A file that cannot be opened is
    /// reported here, at once, rather than after the dump has been read.
    pub fn start(path: &Path) -> Result<IndexLoad, DumpError> {
        let file = std::fs::File::open(path).map_err(|source| DumpError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let owned = path.to_path_buf();
        let handle = std::thread::Builder::new()
            .name("wikiwit-index-file".into())
            .spawn(move || MultistreamIndex::read(&owned, file))
            .map_err(|source| DumpError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(IndexLoad {
            path: path.to_path_buf(),
            state: Mutex::new(LoadState::Reading(handle)),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the index; `wait` false returns `Ok(None)` while it is still being
    /// read. A read error is returned once; later calls get [`DumpError::Internal`].
    fn with<R>(
        &self,
        wait: bool,
        f: impl FnOnce(&mut MultistreamIndex) -> R,
    ) -> Result<Option<R>, DumpError> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let LoadState::Reading(handle) = &*state {
            if !wait && !handle.is_finished() {
                return Ok(None);
            }
            let LoadState::Reading(handle) = std::mem::replace(&mut *state, LoadState::Failed)
            else {
                unreachable!("matched above")
            };
            let read = handle.join().map_err(|_| DumpError::Internal {
                message: format!("the thread reading {} panicked", self.path.display()),
            })?;
            *state = LoadState::Ready(Box::new(read?));
        }
        match &mut *state {
            LoadState::Ready(ix) => Ok(Some(f(ix))),
            _ => Err(DumpError::Internal {
                message: format!(
                    "{} could not be read (reported before)",
                    self.path.display()
                ),
            }),
        }
    }

    /// Waits for the index and runs `f` on it (`None` only if it could not be read
    /// and that was reported before).
    pub(super) fn with_index<R>(
        &self,
        f: impl FnOnce(&MultistreamIndex) -> R,
    ) -> Result<Option<R>, DumpError> {
        self.with(true, |ix| f(ix))
    }

    /// Waits for the index; the offsets of the stream groups listing a title whose
    /// prefix (text before the first `:`) `wanted` accepts.
    pub(crate) fn offsets_with_prefix(
        &self,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<u64>, DumpError> {
        let offsets = self.with(true, |ix| {
            ix.ranges
                .iter()
                .filter(|r| r.prefixes.iter().any(|p| wanted(p)))
                .map(|r| r.offset)
                .collect()
        })?;
        Ok(offsets.unwrap_or_default())
    }
}

/// A piece waiting for the index: its stream range, the (page id, title hash) of its
/// pages, and where it starts.
type Pending = (usize, Vec<(u64, u64)>, Location);

/// Checks pieces against the index in dump order.
pub(super) struct IndexChecker<'a> {
    load: &'a IndexLoad,
    dump_path: &'a Path,
    /// The dump's stream ranges (the plan).
    ranges: &'a [Range<usize>],
    dump_len: usize,
    /// Pieces not yet checked, in dump order.
    queue: VecDeque<Pending>,
    /// For each stream range, the index group holding it (0: before the first offset),
    /// computed when the index has been read.
    group_of: Option<Vec<usize>>,
    /// The group being checked and how many of its entries have been matched.
    group: usize,
    matched: usize,
}

impl<'a> IndexChecker<'a> {
    pub fn new(
        load: &'a IndexLoad,
        dump_path: &'a Path,
        ranges: &'a [Range<usize>],
        dump_len: usize,
    ) -> IndexChecker<'a> {
        IndexChecker {
            load,
            dump_path,
            ranges,
            dump_len,
            queue: VecDeque::new(),
            group_of: None,
            group: 0,
            matched: 0,
        }
    }

    fn mismatch(&self, message: String) -> DumpError {
        DumpError::IndexMismatch {
            index: self.load.path().to_path_buf(),
            dump: self.dump_path.to_path_buf(),
            message,
        }
    }

    /// Queues the pages found in stream range `range` and checks what can be checked.
    pub fn piece(
        &mut self,
        range: usize,
        found: Vec<(u64, u64)>,
        at: Location,
    ) -> Result<(), DumpError> {
        self.queue.push_back((range, found, at));
        self.drain(false)
    }

    /// Waits for the index and checks everything, including that no listed page is
    /// missing at the end.
    pub fn finish(mut self) -> Result<(), DumpError> {
        self.drain(true)?;
        self.load
            .with(true, |ix| self.close_groups(ix, ix.ranges.len() + 1))?
            .expect("waited")
    }

    fn drain(&mut self, wait: bool) -> Result<(), DumpError> {
        if self.queue.is_empty() && !wait {
            return Ok(());
        }
        let load = self.load;
        match load.with(wait, |ix| self.check_queue(ix))? {
            Some(result) => result,
            None => Ok(()),
        }
    }

    fn check_queue(&mut self, ix: &mut MultistreamIndex) -> Result<(), DumpError> {
        if self.group_of.is_none() {
            self.group_of = Some(self.group_streams(ix)?);
        }
        while let Some((range, found, at)) = self.queue.pop_front() {
            let group = self.group_of.as_ref().expect("computed above")[range];
            if group != self.group {
                self.close_groups(ix, group)?;
            }
            let expected: &[Entry] = match group {
                0 => &[],
                g => &ix.ranges[g - 1].entries[self.matched..],
            };
            for (k, (id, hash)) in found.iter().enumerate() {
                match expected.get(k) {
                    None => {
                        return Err(self.mismatch(format!(
                            "{at} holds page id {id}, which the index does not list at this offset"
                        )));
                    }
                    Some(e) if e.page_id != *id || e.title_hash != *hash => {
                        return Err(self.mismatch(format!(
                            "index line {} lists page id {} at this offset, but {at} holds page id {id}{}",
                            e.line,
                            e.page_id,
                            if e.page_id == *id {
                                " with a different title"
                            } else {
                                ""
                            }
                        )));
                    }
                    Some(_) => {}
                }
            }
            self.matched += found.len();
        }
        Ok(())
    }

    /// Ends the current group (all its entries must have been found) and every group
    /// before `next`, which no stream reached; `next` becomes current.
    /// A closed group's entries are freed: enwiki's index lists 24 M pages (576 MB of
    /// entries), and keeping them to the end of the build held that memory throughout.
    fn close_groups(&mut self, ix: &mut MultistreamIndex, next: usize) -> Result<(), DumpError> {
        while self.group < next {
            if self.group > 0 {
                let r = &mut ix.ranges[self.group - 1];
                if let Some(e) = r.entries.get(self.matched) {
                    return Err(self.mismatch(format!(
                        "index line {} lists page id {} at offset {}, but the streams there hold no such page",
                        e.line, e.page_id, r.offset
                    )));
                }
                r.entries = Vec::new();
            }
            self.group += 1;
            self.matched = 0;
        }
        Ok(())
    }

    /// Maps every stream range to its index group, checking that each offset the index
    /// gives is inside the dump and the start of one of its streams.
    fn group_streams(&self, ix: &MultistreamIndex) -> Result<Vec<usize>, DumpError> {
        let starts: Vec<usize> = self.ranges.iter().map(|r| r.start).collect();
        for r in &ix.ranges {
            let off = usize::try_from(r.offset).unwrap_or(usize::MAX);
            if off == 0 || off >= self.dump_len {
                return Err(self.mismatch(format!(
                    "index line {} gives offset {} but the dump is {} bytes long",
                    r.entries[0].line, r.offset, self.dump_len
                )));
            }
            if starts.binary_search(&off).is_err() {
                return Err(self.mismatch(format!(
                    "index line {} gives offset {}, which is not the start of a bz2 stream in the dump",
                    r.entries[0].line, r.offset
                )));
            }
        }
        let mut group = 0;
        Ok(starts
            .iter()
            .map(|&s| {
                while group < ix.ranges.len() && ix.ranges[group].offset as usize <= s {
                    group += 1;
                }
                group
            })
            .collect())
    }
}
