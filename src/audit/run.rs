//! One audit run over a rows file, in memory that does not grow with the rows.
//!
//! The rows are read in batches of raw records; each batch is parsed and checked in
//! parallel chunks (a chunk's findings serialized where they are found), while the
//! previous batch's chunks are taken in row order: findings appended to the log, keys
//! and sources handed to the summaries (`super::summaries`), count-source items marked.
//! Every `checkpoint_rows` rows the summaries are written out and a `checkpoint` record
//! says how far the audit got, so a killed audit goes on from there. After the last row
//! the duplicates and the whole-table checks stream out of the sorted summaries.

use std::path::Path;

use rayon::prelude::*;

use super::checks::Severity;
use super::log::{Inputs, Log, Progress};
use super::memo::RowMemo;
use super::resume::{Saved, SideDir};
use super::rows::{Format, Position, RawBatch, RawRecord, RowReader};
use super::summaries::{self, KeyItem, SourceItem, SourceKey, Summaries, SummariesCheckpoint};
use super::table_checks::{self, Cited, CountSource, Coverage, Duplicate, Table};
use super::{AuditError, Ctx, Finding, Options, Summary, record, row_checks};
use crate::index::IndexError;
use crate::indexer::extsort::Sorter;

/// Rows one worker checks in a row (a batch is split into such chunks).
const CHUNK: usize = 256;
/// Duplicate findings serialized in parallel at a time.
const DUP_BLOCK: usize = 1 << 15;

/// What the run is given.
pub(crate) struct Setup<'a> {
    pub audit: &'a str,
    pub inputs: Inputs<'a>,
    pub log: &'a Path,
}

/// How a run begins: from nothing, or where an interrupted one stopped.
struct Start {
    side: SideDir,
    /// Where the run's records begin in the log.
    log_offset: u64,
    states: Vec<String>,
    progress: Progress,
    saved: Option<Saved>,
    interval: usize,
}

/// Counts of one chunk's findings.
#[derive(Default)]
struct Tally {
    rows: usize,
    findings: usize,
    blocking: usize,
    hygiene: usize,
    advisory: usize,
    rows_blocked: usize,
    by_check: [usize; 13],
}

impl Tally {
    fn count(&mut self, f: &Finding) {
        self.findings += 1;
        self.by_check[f.check as usize % 13] += 1;
        match f.severity {
            Severity::Blocking => self.blocking += 1,
            Severity::Hygiene => self.hygiene += 1,
            Severity::Advisory => self.advisory += 1,
        }
    }

    fn add_to(&self, p: &mut Progress) {
        p.rows += self.rows;
        p.findings += self.findings;
        p.blocking += self.blocking;
        p.hygiene += self.hygiene;
        p.advisory += self.advisory;
        p.rows_blocked += self.rows_blocked;
        for (c, &n) in self.by_check.iter().enumerate() {
            if n > 0 {
                *p.by_check.entry(c as u8).or_default() += n;
            }
        }
    }
}

/// What a worker made of a chunk of rows.
#[derive(Default)]
struct Chunk {
    /// The rows' findings as log records, in row order.
    log: Vec<u8>,
    tally: Tally,
    keys: Vec<KeyItem>,
    sources: Vec<SourceItem>,
    /// Count-source items the rows stage.
    covered: Vec<u32>,
    kept: Vec<Finding>,
    /// Rows a duplicate's blocking finding blocks.
    blocked: Vec<u64>,
}

/// The workers' side: checks the rows of a batch.
struct Checker<'c, 'a> {
    ctx: &'c Ctx<'a>,
    format: Format,
    header: &'c [String],
    coverage: Option<&'c Coverage>,
    keep: bool,
    rows: &'c Path,
    /// Chunks' log buffers, used again once their records are appended: fresh ones for
    /// every chunk cost more in page faults than in writing them.
    buffers: std::sync::Mutex<Vec<Vec<u8>>>,
}

impl Checker<'_, '_> {
    fn buffer(&self) -> Vec<u8> {
        let reused = self.buffers.lock().ok().and_then(|mut b| b.pop());
        reused.unwrap_or_else(|| Vec::with_capacity(CHUNK << 10))
    }

    /// Gives the chunks' log buffers back.
    fn recycle(&self, chunks: &mut Vec<Chunk>) {
        if let Ok(mut b) = self.buffers.lock() {
            for c in chunks.drain(..) {
                let mut log = c.log;
                log.clear();
                b.push(log);
            }
        }
    }

    fn batch(&self, batch: &RawBatch) -> Result<Vec<Chunk>, AuditError> {
        batch
            .records
            .par_chunks(CHUNK)
            .map(|records| self.chunk(batch, records))
            .collect()
    }

    fn chunk(&self, batch: &RawBatch, records: &[RawRecord]) -> Result<Chunk, AuditError> {
        let mut c = Chunk {
            log: self.buffer(),
            ..Chunk::default()
        };
        let mut memo = RowMemo::default();
        for r in records {
            let item = super::rows::parse_record(self.format, self.header, batch, r);
            let o = row_checks::check(self.ctx, &item, self.format, &mut memo)?;
            let s = o.summary;
            c.tally.rows += 1;
            c.tally.rows_blocked += usize::from(s.blocked);
            for f in &o.findings {
                c.tally.count(f);
                record::write(&mut c.log, f);
            }
            if let Some(id) = &s.identity {
                c.keys.push(KeyItem {
                    hash: table_checks::identity_hash(id),
                    row: s.number as u64,
                    line: s.line,
                    blocked: s.blocked,
                    key: s.key.map(String::into_boxed_str),
                });
            }
            if let Some(src) = s.source {
                let source = match src {
                    Ok(p) => SourceKey::Page(p),
                    Err(t) => SourceKey::Title(t.into_boxed_str()),
                };
                // Rows cite their pages in runs: a chunk sends each run's first row.
                if c.sources.last().is_none_or(|l| l.source != source) {
                    c.sources.push(SourceItem {
                        source,
                        row: s.number as u64,
                        blocked: s.blocked,
                    });
                }
            }
            if let Some(cov) = self.coverage {
                c.covered
                    .extend(cov.staged_by(s.first_key.as_deref(), s.first_key_page));
            }
            if self.keep {
                c.kept.extend(o.findings);
            }
        }
        Ok(c)
    }
}

/// The consuming side: takes the checked chunks in row order.
struct Consumer<'r> {
    audit: &'r str,
    log: Log,
    side: SideDir,
    /// Taken by the table phase.
    summaries: Option<Summaries>,
    /// Count-source items staged so far.
    marks: Vec<bool>,
    progress: Progress,
    interval: usize,
    keep: bool,
    kept: Vec<Finding>,
    budget: usize,
    /// Runs the summaries were spilled to.
    spilled: u64,
    /// Rows at the last checkpoint.
    checkpointed: Option<usize>,
}

impl Consumer<'_> {
    fn side_err(&self, e: std::io::Error) -> AuditError {
        AuditError::Log {
            path: self.side.path().to_path_buf(),
            source: e,
        }
    }

    /// Takes one checked batch, which ended at `end`; checkpoints at the interval. The
    /// chunks are left with their log buffers only.
    fn consume(&mut self, chunks: &mut [Chunk], end: Position) -> Result<(), AuditError> {
        for c in chunks {
            self.log.append(&c.log)?;
            c.tally.add_to(&mut self.progress);
            if let Some(sum) = &mut self.summaries {
                for k in c.keys.drain(..) {
                    sum.add_key(k)?;
                }
                for s in c.sources.drain(..) {
                    sum.add_source(s)?;
                }
            }
            for i in c.covered.drain(..) {
                if let Some(m) = self.marks.get_mut(i as usize) {
                    *m = true;
                }
            }
            self.kept.append(&mut c.kept);
        }
        self.progress.offset = end.offset;
        self.progress.line = end.line;
        if self.progress.rows.is_multiple_of(self.interval) {
            self.checkpoint()?;
        }
        crate::index::fault::point("audit-batch");
        Ok(())
    }

    /// Writes out the summaries, then the state, then the `checkpoint` record.
    fn checkpoint(&mut self) -> Result<(), AuditError> {
        let summaries = match &mut self.summaries {
            Some(s) => s.checkpoint()?,
            None => SummariesCheckpoint::default(),
        };
        let saved = Saved {
            rows: self.progress.rows,
            summaries,
            coverage: self
                .marks
                .iter()
                .map(|&c| if c { '1' } else { '0' })
                .collect(),
        };
        self.side.save(saved).map_err(|e| self.side_err(e))?;
        self.checkpointed = Some(self.progress.rows);
        self.log.checkpoint(self.audit, &self.progress)
    }

    /// A block's duplicate findings, in row order.
    fn take_duplicates(
        &mut self,
        parts: Vec<Chunk>,
        blocked: &mut Sorter<u64>,
    ) -> Result<(), AuditError> {
        for mut part in parts {
            self.log.append(&part.log)?;
            part.tally.add_to(&mut self.progress);
            self.kept.append(&mut part.kept);
            for &r in &part.blocked {
                blocked.push(r)?;
            }
        }
        Ok(())
    }

    /// A table-level finding: counted, logged, kept; a blocking one's row goes to
    /// `blocked` unless its own findings blocked it already.
    fn record(
        &mut self,
        f: Finding,
        was_blocked: bool,
        blocked: Option<&mut Sorter<u64>>,
    ) -> Result<(), AuditError> {
        let mut t = Tally::default();
        t.count(&f);
        t.add_to(&mut self.progress);
        if f.severity == Severity::Blocking
            && !was_blocked
            && let (Some(r), Some(b)) = (f.row, blocked)
        {
            b.push(r as u64)?;
        }
        self.log.write(&f)?;
        if self.keep {
            self.kept.push(f);
        }
        Ok(())
    }
}

/// Starts a run: resumes the log's interrupted run of these inputs when it can, else
/// records `started` (and `proposed`/`staged`) and makes a side directory.
fn start(log: &mut Log, setup: &Setup<'_>, opts: &Options) -> Result<Start, AuditError> {
    let resumed = match log.last_run() {
        Some(run) if opts.resume && !opts.keep_findings => {
            SideDir::resume(setup.log, run, setup.audit)
                .map(|(side, r)| (side, r, run.checkpoint_rows))
        }
        _ => None,
    };
    if let Some((side, r, interval)) = resumed {
        log.truncate(r.log_end)?;
        return Ok(Start {
            side,
            log_offset: r.start,
            states: r.states,
            progress: r.progress,
            saved: Some(r.saved),
            interval: interval.max(1),
        });
    }
    let interval = opts.checkpoint_rows.max(1);
    let (log_offset, states) = log.begin(setup.audit, interval, &setup.inputs)?;
    let side =
        SideDir::create(setup.log, setup.audit, log_offset).map_err(|e| AuditError::Log {
            path: setup.log.to_path_buf(),
            source: e,
        })?;
    Ok(Start {
        side,
        log_offset,
        states,
        progress: Progress::default(),
        saved: None,
        interval,
    })
}

/// Runs the audit of `setup`'s rows; the summary of what it found.
pub(crate) fn run(
    ctx: &Ctx<'_>,
    pool: &rayon::ThreadPool,
    setup: &Setup<'_>,
    opts: &Options,
) -> Result<Summary, AuditError> {
    let rows_path = setup.inputs.rows;
    let rows_err = |e| AuditError::Rows {
        path: rows_path.to_path_buf(),
        source: e,
    };
    let mut log = Log::open(setup.log)?;
    let count = CountSource::read(ctx)?;
    let coverage = count.as_ref().map(|c| Coverage::new(c.items()));
    let items = count.as_ref().map_or(0, |c| c.items().len());
    let st = start(&mut log, setup, opts)?;
    let budget = opts.budget();
    let mut marks = vec![false; items];
    if let Some(s) = &st.saved {
        for (m, b) in marks.iter_mut().zip(s.coverage.bytes()) {
            *m = b == b'1';
        }
    }
    let from = st
        .saved
        .as_ref()
        .map(|s| s.summaries.clone())
        .unwrap_or_default();
    let resumed_from = st.saved.as_ref().map(|_| st.progress.rows);
    let mut reader = RowReader::open(rows_path).map_err(rows_err)?;
    let mut c = Consumer {
        audit: setup.audit,
        log,
        summaries: Some(Summaries::new(st.side.path(), budget / 4, &from)),
        side: st.side,
        marks,
        progress: st.progress,
        interval: st.interval,
        keep: opts.keep_findings,
        kept: Vec::new(),
        budget,
        spilled: 0,
        checkpointed: st.saved.as_ref().map(|s| s.rows),
    };
    if st.saved.is_some() {
        let at = Position {
            offset: c.progress.offset,
            line: c.progress.line,
            rows: c.progress.rows,
        };
        reader.skip_to(at).map_err(rows_err)?;
    } else {
        for f in row_checks::header_findings(ctx, reader.header(), reader.format()) {
            c.record(f, true, None)?;
        }
        c.checkpoint()?;
    }
    // The reader is borrowed mutably while the workers read the header.
    let header = reader.header().to_vec();
    let checker = Checker {
        ctx,
        format: reader.format(),
        header: &header,
        coverage: coverage.as_ref(),
        keep: opts.keep_findings,
        rows: rows_path,
        buffers: std::sync::Mutex::new(Vec::new()),
    };
    pool.install(|| rows_phase(&checker, &mut c, &mut reader, opts.batch.max(1)))?;
    if c.checkpointed != Some(c.progress.rows) {
        c.checkpoint()?;
    }
    let after = reader.sha256().map_err(rows_err)?.map(|h| super::hex(&h));
    if after.as_deref() != Some(setup.inputs.rows_sha) {
        return Err(AuditError::Changed {
            path: rows_path.to_path_buf(),
            before: setup.inputs.rows_sha.to_string(),
            after: after.unwrap_or_else(|| "unknown (cut short)".into()),
        });
    }
    table_phase(ctx, pool, &mut c, count.as_ref())?;
    let mut summary = Summary {
        audit: setup.audit.to_string(),
        contract_sha256: setup.inputs.contract_sha.to_string(),
        rows_sha256: setup.inputs.rows_sha.to_string(),
        rows: c.progress.rows,
        findings: c.progress.findings,
        blocking: c.progress.blocking,
        hygiene: c.progress.hygiene,
        advisory: c.progress.advisory,
        rows_blocked: c.progress.rows_blocked,
        by_check: c.progress.by_check.iter().map(|(&k, &v)| (k, v)).collect(),
        states: st.states,
        findings_log: setup.log.to_path_buf(),
        log_offset: st.log_offset,
        resumed_from,
        spilled_runs: c.spilled,
        kept: std::mem::take(&mut c.kept),
    };
    let end = c
        .log
        .finish(setup.audit, setup.inputs.contract_sha, &summary)?;
    summary.states.extend(end);
    c.side.remove(setup.log);
    Ok(summary)
}

/// Reads, checks and takes the rows batch by batch: while the workers check one batch,
/// the previous one is taken and the next read (into the buffers of the one before).
fn rows_phase(
    checker: &Checker<'_, '_>,
    c: &mut Consumer<'_>,
    reader: &mut RowReader<std::fs::File>,
    batch_rows: usize,
) -> Result<(), AuditError> {
    let rows_err = |e| AuditError::Rows {
        path: checker.rows.to_path_buf(),
        source: e,
    };
    let interval = c.interval;
    // Batches end at checkpoints.
    let next = |reader: &mut RowReader<std::fs::File>, at: usize, into: &mut RawBatch| {
        let to_checkpoint = interval - at % interval;
        reader.raw_batch_into(batch_rows.min(to_checkpoint), into)
    };
    let mut batch = RawBatch::default();
    let mut spare = RawBatch::default();
    next(reader, c.progress.rows, &mut batch).map_err(rows_err)?;
    let mut checked: Option<(Vec<Chunk>, Position)> = None;
    while !batch.is_empty() {
        let read_at = batch.end.rows;
        let (now, after) = rayon::join(
            || checker.batch(&batch),
            || -> Result<(), AuditError> {
                if let Some((mut chunks, end)) = checked.take() {
                    c.consume(&mut chunks, end)?;
                    checker.recycle(&mut chunks);
                }
                next(reader, read_at, &mut spare).map_err(rows_err)
            },
        );
        checked = Some((now?, batch.end));
        after?;
        std::mem::swap(&mut batch, &mut spare);
    }
    if let Some((mut chunks, end)) = checked {
        c.consume(&mut chunks, end)?;
    }
    Ok(())
}

/// After the last row: duplicates in row order, then the whole-table checks, from the
/// sorted summaries.
fn table_phase(
    ctx: &Ctx<'_>,
    pool: &rayon::ThreadPool,
    c: &mut Consumer<'_>,
    count: Option<&CountSource>,
) -> Result<(), AuditError> {
    let dir = c.side.path().to_path_buf();
    let Some(summaries) = c.summaries.take() else {
        return Ok(());
    };
    let (keys, sources) = summaries.finish()?;
    c.spilled = keys.spilled + sources.spilled;
    crate::index::fault::point("audit-table");
    let mut blocked = Sorter::<u64>::new("blocked", &dir, c.budget / 32);
    let mut dups = summaries::duplicates(keys, &dir, c.budget / 8)?;
    // While the workers write one block's findings, the previous block's go to the log
    // and the next block is read from the sorted runs.
    let fill = |dups: &mut summaries::Duplicates, into: &mut Vec<summaries::DupItem>| {
        into.clear();
        for d in dups.by_ref().take(DUP_BLOCK) {
            into.push(d?);
        }
        Ok::<(), IndexError>(())
    };
    let key_blocks = ctx.severity(super::Check::KeyIntegrity) == Severity::Blocking;
    let keep = c.keep;
    let mut block = Vec::with_capacity(DUP_BLOCK);
    let mut spare = Vec::with_capacity(DUP_BLOCK);
    fill(&mut dups, &mut block)?;
    let mut written: Option<Vec<Chunk>> = None;
    while !block.is_empty() {
        let (parts, after) = pool.install(|| {
            rayon::join(
                || duplicate_block(ctx, &mut block, keep, key_blocks),
                || -> Result<(), AuditError> {
                    if let Some(parts) = written.take() {
                        c.take_duplicates(parts, &mut blocked)?;
                    }
                    Ok(fill(&mut dups, &mut spare)?)
                },
            )
        });
        written = Some(parts);
        after?;
        std::mem::swap(&mut block, &mut spare);
        crate::index::fault::point("audit-table");
    }
    if let Some(parts) = written {
        c.take_duplicates(parts, &mut blocked)?;
    }
    let marks = std::mem::take(&mut c.marks);
    let table = Table {
        rows: c.progress.rows,
        count,
        covered: &|i, _| marks.get(i).copied().unwrap_or(false),
    };
    let cited = summaries::first_citations(sources).map(|s| {
        let s = s?;
        Ok(Cited {
            source: match s.source {
                SourceKey::Page(p) => Ok(p),
                SourceKey::Title(t) => Err(t.into()),
            },
            row: s.row as usize,
            blocked: s.blocked,
        })
    });
    table_checks::whole_table(ctx, &table, cited, &mut |f, was| {
        c.record(f, was, Some(&mut blocked))
    })?;
    let mut last = None;
    for r in blocked.finish()? {
        let r = r?;
        if last != Some(r) {
            c.progress.rows_blocked += 1;
            last = Some(r);
        }
    }
    Ok(())
}

/// The findings of a block of duplicates, serialized in parallel. The block's keys move
/// into the findings (the block is filled again).
fn duplicate_block(
    ctx: &Ctx<'_>,
    block: &mut [summaries::DupItem],
    keep: bool,
    key_blocks: bool,
) -> Vec<Chunk> {
    block
        .par_chunks_mut(CHUNK * 4)
        .map(|ds| {
            let mut part = Chunk::default();
            for d in ds {
                let f = table_checks::duplicate_finding(
                    ctx,
                    Duplicate {
                        row: d.row as usize,
                        line: d.line,
                        key: d.key.take().map(String::from),
                        first_row: d.first_row as usize,
                        first_line: d.first_line,
                    },
                );
                part.tally.count(&f);
                record::write(&mut part.log, &f);
                if keep {
                    part.kept.push(f);
                }
                if key_blocks && !d.blocked {
                    part.blocked.push(d.row);
                }
            }
            part
        })
        .collect()
}
