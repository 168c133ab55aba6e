//! bzip2 streams: finding them, decoding them independently (in parallel) or in sequence.
//!
//! Wikimedia's multistream dumps are concatenated bz2 streams of 100 pages each, and
//! parallel compressors (pbzip2, lbzip2) also write one stream per ~900 kB. A stream
//! starts byte-aligned with `BZh[1-9]` followed by the block magic `1AY&SY` (or, for an
//! empty stream, the end-of-stream magic), so the boundaries can be found by a byte scan
//! without the index file, and every stream can be decoded on its own core.

use std::path::Path;

use bzip2::{Decompress, Status};

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

fn map_err(path: &Path, stream_offset: usize, e: bzip2::Error) -> DumpError {
    let detail = match e {
        bzip2::Error::Data => "the data is corrupt (bad block or CRC mismatch)".to_string(),
        bzip2::Error::DataMagic => "missing bz2 stream header".to_string(),
        other => format!("{other:?}"),
    };
    DumpError::Bz2Corrupt {
        path: path.to_path_buf(),
        stream_offset: stream_offset as u64,
        detail,
    }
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
    let mut dec = SeqDecoder::new(path, &data[..end], start);
    while !dec.fill(out, usize::MAX)? {}
    Ok(())
}

/// Decodes consecutive streams incrementally, with exact error locations.
pub(crate) struct SeqDecoder<'a> {
    path: &'a Path,
    data: &'a [u8],
    /// Next unread input byte.
    pos: usize,
    /// Start offset of the stream being decoded.
    stream_start: usize,
    dec: Option<Decompress>,
}

impl<'a> SeqDecoder<'a> {
    pub fn new(path: &'a Path, data: &'a [u8], start: usize) -> SeqDecoder<'a> {
        SeqDecoder {
            path,
            data,
            pos: start,
            stream_start: start,
            dec: None,
        }
    }

    /// Input bytes consumed so far (for progress).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Appends decoded bytes to `out` until it holds at least `target` bytes or the input
    /// ends. Returns `true` at the end of the input.
    pub(crate) fn fill(&mut self, out: &mut Vec<u8>, target: usize) -> Result<bool, DumpError> {
        loop {
            if self.dec.is_none() {
                if self.pos >= self.data.len() {
                    return Ok(true);
                }
                if !self.data[self.pos..].starts_with(b"BZh") {
                    return Err(DumpError::Bz2Corrupt {
                        path: self.path.to_path_buf(),
                        stream_offset: self.pos as u64,
                        detail: "unexpected bytes after the end of a bz2 stream (no stream header)"
                            .to_string(),
                    });
                }
                self.stream_start = self.pos;
                self.dec = Some(Decompress::new(false));
            }
            if out.len() >= target {
                return Ok(false);
            }
            let dec = self.dec.as_mut().expect("decoder present");
            if out.capacity() - out.len() < (1 << 16) {
                out.reserve((out.len() / 2).max(1 << 20));
            }
            let before_in = dec.total_in();
            let before_out = dec.total_out();
            let input = &self.data[self.pos..];
            let status = dec
                .decompress_vec(input, out)
                .map_err(|e| map_err(self.path, self.stream_start, e))?;
            let consumed = (dec.total_in() - before_in) as usize;
            let produced = dec.total_out() - before_out;
            self.pos += consumed;
            match status {
                Status::StreamEnd => {
                    self.dec = None;
                }
                _ => {
                    if consumed == 0 && produced == 0 && self.pos >= self.data.len() {
                        return Err(DumpError::Bz2Truncated {
                            path: self.path.to_path_buf(),
                            stream_offset: self.stream_start as u64,
                            file_size: self.data.len() as u64,
                        });
                    }
                }
            }
        }
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
