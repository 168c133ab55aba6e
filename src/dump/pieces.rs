//! Pieces: independently parseable parts of a dump, processed in parallel and consumed in
//! order.
//!
//! A piece is a bz2 stream range, a slice of plain XML, or a chunk from the sequential
//! decoder. Its complete `<page>` elements are parsed on a worker thread; the bytes before
//! its first `<page>` (*lead*) and after its last `</page>` (*tail*) are returned raw and
//! stitched to the neighbouring piece's, so a page split across two bz2 streams (as
//! pbzip2 output does) is still read correctly. For Wikimedia multistream dumps, leads and
//! tails are whitespace and stitching costs nothing.

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::bz2::{self, SeqDecoder};
use super::error::{DumpError, Location};
use super::index_check::IndexChecker;
use super::multistream::title_hash;
use super::sniff;
use super::xml::{self, RawPage};
use super::{Dump, Plan, ReadStats, pipeline};
use crate::siteinfo::SiteInfo;

const PAGE_OPEN: &[u8] = b"<page>";
const PAGE_CLOSE: &[u8] = b"</page>";
/// Target size of plain-XML slices and sequential-decoder chunks.
const CHUNK: usize = 8 << 20;

/// A pass over some pages only (see [`super::Dump::pages_in_namespaces`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Filter<'a> {
    /// Pages of other namespaces are skipped before their XML is parsed; `None`: every
    /// page of the chosen streams is parsed as in a full read (a shard's pass).
    pub namespaces: Option<&'a [i32]>,
    /// For a stream plan: the stream ranges to decode (others are not read at all).
    pub streams: Option<&'a [usize]>,
    /// Pages of other namespaces are handed over as their head ([`xml::page_head`]:
    /// title, namespace, id, no text) instead of being skipped.
    pub heads: bool,
}

/// The namespace number of a `<page>` element, read from its `<ns>` without parsing
/// the page (text is escaped, so the first `<ns>` is the element). `None` if absent.
fn page_ns(page: &[u8]) -> Option<i32> {
    let head = &page[..page.len().min(4096)];
    let open = memchr::memmem::find(head, b"<ns>")? + 4;
    let close = open + memchr::memmem::find(&head[open..], b"</ns>")?;
    std::str::from_utf8(&head[open..close])
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Where a piece's bytes start, to turn region offsets into [`Location`]s.
#[derive(Debug, Clone, Copy)]
enum Base {
    Plain(u64),
    Stream(u64),
    Decompressed(u64),
}

impl Base {
    fn at(self, rel: u64) -> Location {
        match self {
            Base::Plain(o) => Location::Plain { offset: o + rel },
            Base::Stream(s) => Location::Bz2 {
                stream_offset: s,
                decompressed: rel,
            },
            Base::Decompressed(o) => Location::Decompressed { offset: o + rel },
        }
    }
}

/// The header of a dump and what follows it.
pub(super) struct Header {
    pub site: SiteInfo,
    /// Decoded bytes after the header that belong to the page sequence.
    carry: Vec<u8>,
    /// For `Plan::Streams`: index of the first range not consumed by the header.
    next_range: usize,
    /// For `Plan::Plain`: byte offset where pages start.
    plain_start: usize,
}

/// Finds the end of the header in decoded bytes: the first `<page>`, if any.
fn header_end(acc: &[u8]) -> usize {
    memchr::memmem::find(acc, PAGE_OPEN).unwrap_or(acc.len())
}

fn header_complete(acc: &[u8]) -> bool {
    memchr::memmem::find(acc, b"</siteinfo>").is_some()
        || memchr::memmem::find(acc, PAGE_OPEN).is_some()
}

fn parse_header(dump: &Dump, region: &[u8], base: Base) -> Result<SiteInfo, DumpError> {
    let path = dump.path.as_path();
    if let Err(s) = sniff::sniff_xml(&region[..region.len().min(4096)]) {
        return Err(super::sniff_error(path, s));
    }
    let text = std::str::from_utf8(region).map_err(|e| DumpError::InvalidUtf8 {
        path: path.to_path_buf(),
        location: base.at(e.valid_up_to() as u64),
    })?;
    match xml::parse_siteinfo(text) {
        Ok(Some(site)) => Ok(site),
        Ok(None) => Err(DumpError::MissingSiteinfo {
            path: path.to_path_buf(),
        }),
        Err(f) => Err(DumpError::Xml {
            path: path.to_path_buf(),
            location: base.at(f.offset),
            page: None,
            message: f.message,
        }),
    }
}

/// Reads the header of the dump (decoding as little as needed).
pub(super) fn read_header(dump: &Dump) -> Result<Header, DumpError> {
    let data: &[u8] = &dump.data;
    match &dump.plan {
        Plan::Plain => {
            let end = header_end(data);
            let site = parse_header(dump, &data[..end], Base::Plain(0))?;
            Ok(Header {
                site,
                carry: Vec::new(),
                next_range: 0,
                plain_start: end,
            })
        }
        Plan::Streams(ranges) => {
            let mut acc = Vec::new();
            let mut next = 0;
            while next < ranges.len() && !header_complete(&acc) {
                let r = &ranges[next];
                acc.extend(bz2::decode_range(&dump.path, data, r.start, r.end)?);
                next += 1;
            }
            let end = header_end(&acc);
            let site = parse_header(dump, &acc[..end], Base::Stream(0))?;
            Ok(Header {
                site,
                carry: acc[end..].to_vec(),
                next_range: next,
                plain_start: 0,
            })
        }
        Plan::Sequential => {
            let mut dec = SeqDecoder::new(&dump.path, data, 0);
            let mut acc = Vec::new();
            let mut eof = false;
            while !eof && !header_complete(&acc) {
                let target = acc.len() + (1 << 20);
                eof = dec.fill(&mut acc, target)?;
            }
            let end = header_end(&acc);
            let site = parse_header(dump, &acc[..end], Base::Decompressed(0))?;
            Ok(Header {
                site,
                carry: Vec::new(),
                next_range: 0,
                plain_start: end,
            })
        }
    }
}

/// A unit of work.
enum Source {
    Plain(Range<usize>),
    Stream(usize),
    Owned(Vec<u8>, u64),
}

/// What a worker returns for one piece.
struct PieceOut<T> {
    /// Decoded size of the piece.
    decoded_len: u64,
    lead: Vec<u8>,
    items: Vec<T>,
    tail: Vec<u8>,
    /// The piece held at least one whole page (otherwise `lead` holds all of it).
    complete: bool,
    base: Base,
    /// For a stream piece read with a multistream index: the stream range and the
    /// (page id, title hash) of its pages, for [`IndexChecker`].
    indexed: Option<(usize, Vec<(u64, u64)>)>,
}

/// Splits decoded bytes into (lead end, tail start) around the complete pages.
pub(super) fn complete_span(bytes: &[u8]) -> Option<(usize, usize)> {
    let first = memchr::memmem::find(bytes, PAGE_OPEN)?;
    let last = memchr::memmem::rfind(bytes, PAGE_CLOSE)? + PAGE_CLOSE.len();
    (last > first).then_some((first, last))
}

#[allow(clippy::too_many_arguments)]
fn parse_region<T, St, M>(
    path: &Path,
    region: &[u8],
    base: Base,
    rel: usize,
    state: &mut St,
    map: &M,
    items: &mut Vec<T>,
    ids: Option<&mut Vec<(u64, u64)>>,
) -> Result<(), DumpError>
where
    M: Fn(&mut St, RawPage<'_>, Location) -> Result<T, DumpError>,
{
    let mut pages = Vec::new();
    xml::parse_pages(region, |p| {
        pages.push(p);
        Ok(())
    })
    .map_err(|f| {
        if f.utf8 || f.message.starts_with("invalid UTF-8") {
            DumpError::InvalidUtf8 {
                path: path.to_path_buf(),
                location: base.at(rel as u64 + f.offset),
            }
        } else {
            DumpError::Xml {
                path: path.to_path_buf(),
                location: base.at(rel as u64 + f.offset),
                page: f.page,
                message: f.message,
            }
        }
    })?;
    if let Some(ids) = ids {
        ids.extend(pages.iter().map(|p| (p.id, title_hash(&p.title))));
    }
    items.reserve(pages.len());
    for p in pages {
        let loc = base.at(rel as u64 + p.offset);
        items.push(map(state, p, loc)?);
    }
    Ok(())
}

fn work<T, St, M>(
    dump: &Dump,
    src: Source,
    state: &mut St,
    map: &M,
    filter: Option<&Filter<'_>>,
) -> Result<PieceOut<T>, DumpError>
where
    M: Fn(&mut St, RawPage<'_>, Location) -> Result<T, DumpError>,
{
    let (bytes, base, range_idx): (Cow<'_, [u8]>, Base, Option<usize>) = match src {
        Source::Plain(r) => (
            Cow::Borrowed(&dump.data[r.clone()]),
            Base::Plain(r.start as u64),
            None,
        ),
        Source::Stream(i) => {
            let Plan::Streams(ranges) = &dump.plan else {
                unreachable!("stream pieces only come from a stream plan")
            };
            let r = &ranges[i];
            // Each worker decodes into the buffer its previous stream used: a fresh
            // half-megabyte allocation per stream cost page faults and regrowth copies.
            let mut buf = DECODE_BUF.with(|b| std::mem::take(&mut *b.borrow_mut()));
            buf.clear();
            bz2::decode_range_into(&dump.path, &dump.data, r.start, r.end, &mut buf)?;
            (Cow::Owned(buf), Base::Stream(r.start as u64), Some(i))
        }
        Source::Owned(v, off) => (Cow::Owned(v), Base::Decompressed(off), None),
    };
    // Pages are checked against the index in a read that parses every page of its
    // streams: the whole dump's, or a shard's.
    let checked = filter.is_none_or(|f| f.namespaces.is_none());
    let range_idx = range_idx.filter(|_| dump.index.is_some() && checked);
    let Some((first, last)) = complete_span(&bytes) else {
        return Ok(PieceOut {
            decoded_len: bytes.len() as u64,
            lead: bytes.into_owned(),
            items: Vec::new(),
            tail: Vec::new(),
            complete: false,
            base,
            indexed: range_idx.map(|r| (r, Vec::new())),
        });
    };
    let mut items = Vec::new();
    let mut ids = Vec::new();
    match filter.and_then(|f| f.namespaces.map(|ns| (f, ns))) {
        None => parse_region(
            &dump.path,
            &bytes[first..last],
            base,
            first,
            state,
            map,
            &mut items,
            range_idx.map(|_| &mut ids),
        )?,
        Some((f, namespaces)) => {
            // Only the wanted pages are parsed; the others are stepped over.
            let region = &bytes[first..last];
            let mut pos = 0;
            while let Some(k) = memchr::memmem::find(&region[pos..], PAGE_OPEN) {
                let start = pos + k;
                let end = memchr::memmem::find(&region[start..], PAGE_CLOSE)
                    .map_or(region.len(), |e| start + e + PAGE_CLOSE.len());
                let page = &region[start..end];
                let wanted = page_ns(page).is_none_or(|ns| namespaces.contains(&ns));
                let head = (!wanted && f.heads).then(|| xml::page_head(page));
                if let Some(Some(head)) = head {
                    let loc = base.at((first + start) as u64);
                    items.push(map(state, head, loc)?);
                } else if wanted || head.is_some() {
                    parse_region(
                        &dump.path,
                        page,
                        base,
                        first + start,
                        state,
                        map,
                        &mut items,
                        None,
                    )?;
                }
                pos = end;
            }
        }
    }
    let out = PieceOut {
        decoded_len: bytes.len() as u64,
        lead: bytes[..first].to_vec(),
        items,
        tail: bytes[last..].to_vec(),
        complete: true,
        base,
        indexed: range_idx.map(|r| (r, ids)),
    };
    if let (Cow::Owned(buf), Some(_)) = (bytes, range_idx) {
        DECODE_BUF.with(|b| *b.borrow_mut() = buf);
    }
    Ok(out)
}

/// The (page id, title hash) of the whole pages of the stream in `range` of `data`, for
/// checking them against the multistream index without reading them for their content.
pub(super) fn stream_page_ids(
    path: &Path,
    data: &[u8],
    range: Range<usize>,
) -> Result<Vec<(u64, u64)>, DumpError> {
    let bytes = bz2::decode_range(path, data, range.start, range.end)?;
    let mut ids = Vec::new();
    if let Some((first, last)) = complete_span(&bytes) {
        let skip = |_: &mut (), _: RawPage<'_>, _: Location| Ok(());
        parse_region(
            path,
            &bytes[first..last],
            Base::Stream(range.start as u64),
            first,
            &mut (),
            &skip,
            &mut Vec::new(),
            Some(&mut ids),
        )?;
    }
    Ok(ids)
}

thread_local! {
    /// The decoded-stream buffer of this worker thread, reused from stream to stream.
    static DECODE_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Sequential state: the carried fragment and the consumer.
struct Stitcher<'a, T, St, Init, M, C> {
    dump: &'a Dump,
    /// Makes the map's state for pages stitched on the consumer's thread.
    init: &'a Init,
    state: Option<St>,
    map: &'a M,
    consume: C,
    carry: Vec<u8>,
    carry_base: Base,
    pages: u64,
    /// With a multistream index: checks pages against it, in dump order.
    checker: Option<IndexChecker<'a>>,
    /// Only chosen streams are read: a fragment cannot be stitched, and the dump's end
    /// may not be reached.
    partial: bool,
    /// The last stream is read: the dump's end must be there (`</mediawiki>`), as in a
    /// whole read.
    reaches_end: bool,
    _t: std::marker::PhantomData<T>,
}

impl<T, St, Init, M, C> Stitcher<'_, T, St, Init, M, C>
where
    Init: Fn() -> St,
    M: Fn(&mut St, RawPage<'_>, Location) -> Result<T, DumpError>,
    C: FnMut(T) -> Result<(), DumpError>,
{
    fn emit(&mut self, item: T) -> Result<(), DumpError> {
        self.pages += 1;
        (self.consume)(item)
    }

    /// Parses the carried bytes, which must now hold whole pages only.
    fn flush_carry(&mut self) -> Result<(), DumpError> {
        if self.carry.iter().all(u8::is_ascii_whitespace) {
            self.carry.clear();
            return Ok(());
        }
        if self.partial {
            return Err(DumpError::StreamFragment {
                path: self.dump.path.clone(),
                location: self.carry_base.at(0),
            });
        }
        if self.dump.index.is_some() {
            return Err(DumpError::IndexMismatch {
                index: self
                    .dump
                    .index_path()
                    .unwrap_or(Path::new(""))
                    .to_path_buf(),
                dump: self.dump.path.clone(),
                message: format!(
                    "a page crosses the stream boundary near {}, so the index's offsets cannot be page boundaries",
                    self.carry_base.at(0)
                ),
            });
        }
        let carry = std::mem::take(&mut self.carry);
        let mut items = Vec::new();
        let state = self.state.get_or_insert_with(self.init);
        parse_region(
            &self.dump.path,
            &carry,
            self.carry_base,
            0,
            state,
            self.map,
            &mut items,
            None,
        )?;
        for it in items {
            self.emit(it)?;
        }
        Ok(())
    }

    fn piece(&mut self, mut out: PieceOut<T>) -> Result<(), DumpError> {
        if let (Some(checker), Some((range, ids))) = (self.checker.as_mut(), out.indexed.take()) {
            checker.piece(range, ids, out.base.at(0))?;
        }
        if self.carry.is_empty() {
            self.carry_base = out.base;
        }
        self.carry.extend_from_slice(&out.lead);
        if !out.complete {
            return Ok(());
        }
        self.flush_carry()?;
        for it in out.items {
            self.emit(it)?;
        }
        self.carry = out.tail;
        self.carry_base = out.base;
        Ok(())
    }

    fn finish(mut self) -> Result<u64, DumpError> {
        let rest = String::from_utf8_lossy(&self.carry);
        let rest = rest.trim();
        let ended = rest == "</mediawiki>";
        if self.partial && !self.reaches_end {
            // The streams after these hold the rest of the dump.
            if !rest.is_empty() && !ended {
                return Err(DumpError::StreamFragment {
                    path: self.dump.path.clone(),
                    location: self.carry_base.at(0),
                });
            }
        } else if !ended {
            if rest.is_empty() || rest.starts_with("<page") || rest.contains("<page>") {
                return Err(DumpError::Truncated {
                    path: self.dump.path.clone(),
                });
            }
            // A page-less tail that is not the closing tag: report what is there.
            let shown: String = rest.chars().take(60).collect();
            let _ = &mut self.consume;
            return Err(DumpError::Xml {
                path: self.dump.path.clone(),
                location: self.carry_base.at(0),
                page: None,
                message: format!("unexpected content after the last page: {shown:?}"),
            });
        }
        if let Some(checker) = self.checker.take() {
            checker.finish()?;
        }
        Ok(self.pages)
    }
}

/// How many pieces may be in flight ahead of the consumer.
fn window(threads: usize) -> usize {
    threads * 4
}

/// The sequential plan's source: decodes the file in order and cuts chunks at `<page>`.
struct SeqChunks<'a> {
    dec: SeqDecoder<'a>,
    buf: Vec<u8>,
    /// Header bytes still to drop from the start of the output.
    skip: usize,
    /// Decompressed offset of `buf[0]`.
    offset: u64,
    done: bool,
}

impl Iterator for SeqChunks<'_> {
    type Item = Result<(Source, u64), DumpError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let eof = match self.dec.fill(&mut self.buf, self.skip + CHUNK) {
                Ok(eof) => eof,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            if self.skip > 0 {
                let k = self.skip.min(self.buf.len());
                self.buf.drain(..k);
                self.offset += k as u64;
                self.skip -= k;
                if self.skip > 0 && !eof {
                    continue;
                }
            }
            let cut = if eof {
                self.done = true;
                self.buf.len()
            } else {
                match memchr::memmem::rfind(&self.buf, PAGE_OPEN) {
                    Some(p) if p > 0 => p,
                    _ => continue,
                }
            };
            let rest = self.buf.split_off(cut);
            let chunk = std::mem::replace(&mut self.buf, rest);
            let off = self.offset;
            self.offset += chunk.len() as u64;
            if chunk.is_empty() {
                return None;
            }
            return Some(Ok((Source::Owned(chunk, off), self.dec.position() as u64)));
        }
        None
    }
}

/// Whether a read (of `filter`'s streams, if any) holds the dump's last stream.
fn reaches_end(dump: &Dump, filter: Option<&Filter<'_>>) -> bool {
    match (&dump.plan, filter.and_then(|f| f.streams)) {
        (Plan::Streams(ranges), Some(chosen)) => {
            chosen.last().is_some_and(|&last| last + 1 == ranges.len())
        }
        _ => true,
    }
}

/// The index check of a read: a whole read checks every page against the multistream
/// index, a shard's read those of its streams; a pass over some namespaces checks none
/// (the main pass does).
fn checker<'a>(dump: &'a Dump, filter: Option<&Filter<'a>>) -> Option<IndexChecker<'a>> {
    let (Some(load), Plan::Streams(ranges)) = (&dump.index, &dump.plan) else {
        return None;
    };
    let shard = match filter {
        None => None,
        Some(&Filter {
            namespaces: None,
            streams: Some(chosen),
            ..
        }) => Some(chosen),
        Some(_) => return None,
    };
    Some(IndexChecker::new(
        load,
        &dump.path,
        (ranges, &dump.data[..]),
        shard,
    ))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run<T, St, Init, M, C, P>(
    dump: &Dump,
    init: &Init,
    map: &M,
    consume: C,
    progress: &P,
    cancel: &AtomicBool,
    filter: Option<&Filter<'_>>,
) -> Result<ReadStats, DumpError>
where
    T: Send,
    Init: Fn() -> St + Sync,
    M: Fn(&mut St, RawPage<'_>, Location) -> Result<T, DumpError> + Sync,
    C: FnMut(T) -> Result<(), DumpError>,
    P: Fn(u64),
{
    let header = read_header(dump)?;
    let carry_base = match &dump.plan {
        Plan::Plain => Base::Plain(header.plain_start as u64),
        Plan::Streams(_) => Base::Stream(0),
        Plan::Sequential => Base::Decompressed(header.plain_start as u64),
    };
    let mut st = Stitcher {
        dump,
        init,
        state: None,
        map,
        consume,
        carry: header.carry,
        carry_base,
        pages: 0,
        partial: filter.is_some_and(|f| f.streams.is_some()),
        reaches_end: reaches_end(dump, filter),
        checker: checker(dump, filter),
        _t: std::marker::PhantomData,
    };
    let threads = rayon::current_num_threads();
    let mut decompressed = 0u64;
    let mut on_piece = |(out, end): (PieceOut<T>, u64)| -> Result<(), DumpError> {
        decompressed += out.decoded_len;
        st.piece(out)?;
        progress(end);
        Ok(())
    };
    let work = |state: &mut St, (src, end): (Source, u64)| {
        work(dump, src, state, map, filter).map(|o| (o, end))
    };
    // Each plan yields its pieces (with the file position reached, for progress) in
    // order; pieces of plain XML and of the sequential decoder start after the header.
    type Pieces<'s> = Box<dyn Iterator<Item = Result<(Source, u64), DumpError>> + Send + 's>;
    let (source, header_bytes): (Pieces<'_>, usize) = match &dump.plan {
        Plan::Plain => {
            let data: &[u8] = &dump.data;
            let mut cuts = vec![header.plain_start];
            let mut pos = header.plain_start;
            while pos < data.len() {
                let next = if pos + CHUNK >= data.len() {
                    data.len()
                } else {
                    memchr::memmem::find(&data[pos + CHUNK..], PAGE_OPEN)
                        .map(|k| pos + CHUNK + k)
                        .unwrap_or(data.len())
                };
                cuts.push(next);
                pos = next;
            }
            let pieces: Vec<_> = cuts
                .windows(2)
                .map(|w| Ok((Source::Plain(w[0]..w[1]), w[1] as u64)))
                .collect();
            (Box::new(pieces.into_iter()), header.plain_start)
        }
        Plan::Streams(ranges) => match filter.and_then(|f| f.streams) {
            Some(chosen) => (
                Box::new(
                    chosen
                        .iter()
                        .copied()
                        .filter(|&i| i >= header.next_range && i < ranges.len())
                        .map(|i| Ok((Source::Stream(i), ranges[i].end as u64)))
                        .collect::<Vec<_>>()
                        .into_iter(),
                ),
                0,
            ),
            None => (
                Box::new(
                    (header.next_range..ranges.len())
                        .map(|i| Ok((Source::Stream(i), ranges[i].end as u64))),
                ),
                0,
            ),
        },
        Plan::Sequential => (
            Box::new(SeqChunks {
                dec: SeqDecoder::new(&dump.path, &dump.data, 0),
                buf: Vec::new(),
                skip: header.plain_start,
                offset: 0,
                done: false,
            }),
            header.plain_start,
        ),
    };
    pipeline::ordered(
        threads,
        window(threads),
        source,
        init,
        work,
        &mut on_piece,
        cancel,
    )?;
    decompressed += header_bytes as u64;
    let pages = st.finish()?;
    Ok(ReadStats {
        pages,
        decompressed_bytes: decompressed,
    })
}
