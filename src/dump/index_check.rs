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
    /// The dump file's bytes.
    data: &'a [u8],
    /// A shard's streams (ascending, consecutive), when only they are read.
    shard: Option<&'a [usize]>,
    /// Pieces not yet checked, in dump order.
    queue: VecDeque<Pending>,
    /// For each stream range, the index group holding it (0: before the first offset),
    /// and the groups this read checks, computed when the index has been read.
    group_of: Option<(Vec<usize>, Owned)>,
    /// The group being checked and how many of its entries have been matched.
    group: usize,
    matched: usize,
}

/// The index groups a read checks, first to last (`None`: none).
///
/// A whole read checks them all. A shard checks the groups whose first stream it
/// reads, the only shard that does: streams at its start that continue a group begun
/// in the shard before are checked there, and streams past its end that continue its
/// last group are decoded here for their page ids alone. Every group is then checked
/// once, whole, by one shard, however the byte cut falls.
type Owned = Option<(usize, usize)>;

impl<'a> IndexChecker<'a> {
    /// A checker of the pages of `ranges`, all of them or (`shard`) those of a shard's
    /// streams.
    pub fn new(
        load: &'a IndexLoad,
        dump_path: &'a Path,
        (ranges, data): (&'a [Range<usize>], &'a [u8]),
        shard: Option<&'a [usize]>,
    ) -> IndexChecker<'a> {
        IndexChecker {
            load,
            dump_path,
            ranges,
            data,
            shard,
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
    /// missing at the end (of the last group checked, for a shard).
    pub fn finish(mut self) -> Result<(), DumpError> {
        self.drain(true)?;
        let load = self.load;
        load.with(true, |ix| self.close_owned(ix))?.expect("waited")
    }

    /// Closes the groups this read checks: for a shard, after the streams past its end
    /// that continue its last group are checked.
    fn close_owned(&mut self, ix: &mut MultistreamIndex) -> Result<(), DumpError> {
        let Some((group_of, owned)) = self.group_of.as_ref() else {
            return Err(DumpError::Internal {
                message: "the index's groups were not computed before the check ended".into(),
            });
        };
        let Some((_, last)) = *owned else {
            return Ok(());
        };
        if let Some(&end) = self.shard.and_then(|s| s.last()) {
            let beyond: Vec<usize> = (end + 1..self.ranges.len())
                .take_while(|&i| group_of[i] == last)
                .collect();
            for i in beyond {
                let r = self.ranges[i].clone();
                let found = super::pieces::stream_page_ids(self.dump_path, self.data, r.clone())?;
                let at = Location::Bz2 {
                    stream_offset: r.start as u64,
                    decompressed: 0,
                };
                self.check_piece(ix, last, &found, at)?;
            }
        }
        self.close_groups(ix, last + 1)
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
            let group_of = self.group_streams(ix)?;
            let owned = self.owned(&group_of, ix.ranges.len());
            if let Some((first, _)) = owned {
                self.group = first;
            }
            self.group_of = Some((group_of, owned));
        }
        while let Some((range, found, at)) = self.queue.pop_front() {
            let (group_of, owned) = self.group_of.as_ref().expect("computed above");
            let group = group_of[range];
            // A group begun before a shard's streams is checked by the shard it began in.
            if owned.is_none_or(|(first, _)| group < first) {
                continue;
            }
            self.check_piece(ix, group, &found, at)?;
        }
        Ok(())
    }

    /// The groups this read checks ([`Owned`]), given each stream's group.
    fn owned(&self, group_of: &[usize], groups: usize) -> Owned {
        let Some(streams) = self.shard else {
            return Some((0, groups));
        };
        let (&a, &b) = (streams.first()?, streams.last()?);
        // The first stream's group is the shard's if it starts there (or is none).
        let begun_before = group_of[a] > 0 && a > 0 && group_of[a - 1] == group_of[a];
        let first = group_of[a] + usize::from(begun_before);
        (first <= group_of[b]).then_some((first, group_of[b]))
    }

    /// Checks the pages `found` in a stream of `group`, which follow those matched so far.
    fn check_piece(
        &mut self,
        ix: &mut MultistreamIndex,
        group: usize,
        found: &[(u64, u64)],
        at: Location,
    ) -> Result<(), DumpError> {
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
            if off == 0 || off >= self.data.len() {
                return Err(self.mismatch(format!(
                    "index line {} gives offset {} but the dump is {} bytes long",
                    r.entries[0].line,
                    r.offset,
                    self.data.len()
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
