//! bzip2 streams: finding them, decoding them independently (in parallel) or in sequence.
//!
//! Wikimedia's multistream dumps are concatenated bz2 streams of 100 pages each, and
//! parallel compressors (pbzip2, lbzip2) also write one stream per ~900 kB. A stream
//! starts byte-aligned with `BZh[1-9]` followed by the block magic `1AY&SY` (or, for an
//! empty stream, the end-of-stream magic), so the boundaries can be found by a byte scan
//! without the index file, and every stream can be decoded on its own core. The decoding
//! itself is `bz2_decode`'s; this module turns its faults into [`DumpError`]s.

use std::cell::RefCell;
use std::path::Path;

use super::bz2_decode::{Cursor, Decoder, Fault, StreamFault};
use super::error::DumpError;

const BLOCK_MAGIC: &[u8] = b"1AY&SY";
const EOS_MAGIC: &[u8] = b"\x17\x72\x45\x38\x50\x90";

/// Whether a bz2 stream header starts at `pos`.
pub(crate) fn is_stream_start(data: &[u8], pos: usize) -> bool {
    let Some(h) = data.get(pos..pos + 10) else {
        return false;
    };
    &h[..3] == b"BZh"
        && (b'1'..=b'9').contains(&h[3])
        && (&h[4..] == BLOCK_MAGIC || &h[4..] == EOS_MAGIC)
}

/// Byte offsets of all stream starts, ascending (always includes 0 for a bz2 file).
///
/// A false positive would need 10 specific bytes at a byte-aligned position inside
/// compressed data (probability ~2⁻⁸⁰ per position); decoding would then fail loudly
/// rather than silently produce wrong pages.
pub(crate) fn stream_starts(data: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    for magic in [BLOCK_MAGIC, EOS_MAGIC] {
        for hit in memchr::memmem::find_iter(data, magic) {
            if hit >= 4 && is_stream_start(data, hit - 4) {
                starts.push(hit - 4);
            }
        }
    }
    starts.sort_unstable();
    starts.dedup();
    starts
}

fn stream_error(path: &Path, file_size: usize, e: StreamFault) -> DumpError {
    let stream_offset = e.stream_offset as u64;
    let path = path.to_path_buf();
    match e.fault {
        Fault::Truncated => DumpError::Bz2Truncated {
            path,
            stream_offset,
            file_size: file_size as u64,
        },
        Fault::NoHeader => DumpError::Bz2Corrupt {
            path,
            stream_offset,
            detail: "unexpected bytes after the end of a bz2 stream (no stream header)".into(),
        },
        Fault::Corrupt(detail) => DumpError::Bz2Corrupt {
            path,
            stream_offset,
            detail,
        },
    }
}

thread_local! {
    /// This thread's block decoder: its 4.6 MB of scratch space is reused from stream to
    /// stream instead of being allocated (and faulted in) for each.
    static DECODER: RefCell<Decoder> = RefCell::new(Decoder::new());
}

/// Decodes every stream in `data[start..end]` (one or more concatenated streams).
pub(crate) fn decode_range(
    path: &Path,
    data: &[u8],
    start: usize,
    end: usize,
) -> Result<Vec<u8>, DumpError> {
    let mut out = Vec::new();
    decode_range_into(path, data, start, end, &mut out)?;
    Ok(out)
}

/// [`decode_range`], appending to `out` (a buffer reused across ranges).
pub(crate) fn decode_range_into(
    path: &Path,
    data: &[u8],
    start: usize,
    end: usize,
    out: &mut Vec<u8>,
) -> Result<(), DumpError> {
    out.reserve((end - start).saturating_mul(5));
    let input = &data[..end];
    DECODER.with(|d| {
        let mut cursor = Cursor::new(start);
        d.borrow_mut()
            .fill(input, &mut cursor, out, usize::MAX)
            .map(|_| ())
            .map_err(|e| stream_error(path, end, e))
    })
}

/// Decodes consecutive streams incrementally, with exact error locations.
pub(crate) struct SeqDecoder<'a> {
    path: &'a Path,
    data: &'a [u8],
    cursor: Cursor,
    dec: Decoder,
}

impl<'a> SeqDecoder<'a> {
    pub fn new(path: &'a Path, data: &'a [u8], start: usize) -> SeqDecoder<'a> {
        SeqDecoder {
            path,
            data,
            cursor: Cursor::new(start),
            dec: Decoder::new(),
        }
    }

    /// Input bytes consumed so far (for progress).
    pub fn position(&self) -> usize {
        self.cursor.position()
    }

    /// Appends decoded bytes to `out` until it holds at least `target` bytes or the input
    /// ends. Returns `true` at the end of the input.
    pub(crate) fn fill(&mut self, out: &mut Vec<u8>, target: usize) -> Result<bool, DumpError> {
        self.dec
            .fill(self.data, &mut self.cursor, out, target)
            .map_err(|e| stream_error(self.path, self.data.len(), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn compress(s: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(s).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn finds_and_decodes_concatenated_streams() {
        let mut data = compress(b"hello ");
        let second = data.len();
        data.extend(compress(b"world"));
        data.extend(compress(b""));
        let starts = stream_starts(&data);
        assert_eq!(starts.len(), 3);
        assert_eq!(starts[1], second);
        let p = Path::new("t.bz2");
        assert_eq!(
            decode_range(p, &data, 0, data.len()).unwrap(),
            b"hello world"
        );
        assert_eq!(
            decode_range(p, &data, second, data.len()).unwrap(),
            b"world"
        );
    }

    #[test]
    fn truncation_and_corruption_are_located() {
        let data = compress(&b"some text that compresses ".repeat(100));
        let p = Path::new("t.bz2");
        let cut = &data[..data.len() - 8];
        assert!(matches!(
            decode_range(p, cut, 0, cut.len()),
            Err(DumpError::Bz2Truncated {
                stream_offset: 0,
                ..
            })
        ));
        let mut bad = data.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0xff;
        assert!(matches!(
            decode_range(p, &bad, 0, bad.len()),
            Err(DumpError::Bz2Corrupt { .. })
        ));
    }
}
