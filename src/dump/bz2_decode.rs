//! Decoding bz2 streams that are wholly in memory (the memory-mapped dump), block by
//! block, with pbz2's block decoder.
//!
//! pbz2-core decodes one block given its bits and a scratch space; this module walks the
//! stream structure around the blocks itself (header, block and end-of-stream markers,
//! the stream CRC combined from the block CRCs) because the dump reader must say which
//! stream a fault is in, and because a mapped dump needs no copying into a decoder's own
//! input buffer. Every block CRC and every stream CRC is checked. `docs/performance.md`
//! compares it with the other decoders.
//!
//! The module uses only `std` and `pbz2_core`, so that `tools/bz2-bench` measures this
//! very code against the other decoders.

use pbz2_core::{Level, decode_block_into, decode_scratch_words};

/// The 48-bit marker before every block (BCD π).
const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
/// The 48-bit marker before a stream's CRC (BCD √π).
const END_MAGIC: u64 = 0x1772_4538_5090;

/// What is wrong with a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fault {
    /// The input ends before the stream's end-of-stream marker and CRC.
    Truncated,
    /// After a complete stream, something other than the next stream's `BZh`.
    NoHeader,
    /// The stream's data is damaged; the text says how.
    Corrupt(String),
}

/// A fault and the byte offset (in the input) of the stream it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StreamFault {
    pub stream_offset: usize,
    pub fault: Fault,
}

/// The pbz2 backend the CPU allows, picked at run time: the release build targets
/// baseline x86-64, where pbz2-core's compile-time choice would be its portable code.
#[derive(Clone, Copy)]
enum Engine {
    #[cfg(target_arch = "x86_64")]
    Avx2(pbz2_core::Vectorized<pbz2_core::fearless_simd::Avx2>),
    #[cfg(target_arch = "x86_64")]
    Sse42(pbz2_core::Vectorized<pbz2_core::fearless_simd::Sse4_2>),
    Native(pbz2_core::Native),
}

impl Engine {
    fn detect() -> Engine {
        #[cfg(target_arch = "x86_64")]
        {
            let level = pbz2_core::fearless_simd::Level::new();
            if let Some(token) = level.as_avx2() {
                return Engine::Avx2(pbz2_core::Vectorized(token));
            }
            if let Some(token) = level.as_sse4_2() {
                return Engine::Sse42(pbz2_core::Vectorized(token));
            }
        }
        Engine::Native(pbz2_core::native())
    }

    fn decode_block(
        self,
        input: &[u8],
        bit: u64,
        level: Level,
        scratch: &mut [u32],
    ) -> Result<pbz2_core::BlockOutput, pbz2_core::Error> {
        let end = input.len() as u64 * 8;
        match self {
            #[cfg(target_arch = "x86_64")]
            Engine::Avx2(b) => decode_block_into(b, input, bit, end, level, scratch),
            #[cfg(target_arch = "x86_64")]
            Engine::Sse42(b) => decode_block_into(b, input, bit, end, level, scratch),
            Engine::Native(b) => decode_block_into(b, input, bit, end, level, scratch),
        }
    }
}

/// Where decoding is in the input.
#[derive(Debug, Clone, Copy)]
enum At {
    /// At byte `next`, where a stream header must be unless the input ends there.
    StreamStart { next: usize },
    /// Inside the stream that started at byte `start`, at bit `bit` of the input, before
    /// a block marker or the end-of-stream marker.
    InStream {
        start: usize,
        bit: u64,
        level: Level,
        crc: u32,
    },
}

/// A position in concatenated bz2 streams: what [`Decoder::fill`] goes on from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cursor {
    at: At,
    /// Whether a stream has ended before `at` (so other bytes there are trailing garbage
    /// rather than a missing first header).
    after_stream: bool,
}

impl Cursor {
    /// Decoding from byte `from`, where a stream starts.
    pub fn new(from: usize) -> Cursor {
        Cursor {
            at: At::StreamStart { next: from },
            after_stream: false,
        }
    }

    /// Input bytes consumed so far.
    pub fn position(&self) -> usize {
        match self.at {
            At::StreamStart { next } => next,
            At::InStream { bit, .. } => (bit / 8) as usize,
        }
    }
}

/// `n` ≤ 57 bits of `input` from bit `bit` on, most significant first; `None` past its end.
fn bits(input: &[u8], bit: u64, n: u32) -> Option<u64> {
    if bit + u64::from(n) > input.len() as u64 * 8 {
        return None;
    }
    let byte = (bit / 8) as usize;
    let mut word = [0u8; 8];
    let avail = (input.len() - byte).min(8);
    word[..avail].copy_from_slice(&input[byte..byte + avail]);
    let v = u64::from_be_bytes(word) << (bit % 8);
    Some(v >> (64 - n))
}

/// The block decoder's working memory, reused from stream to stream.
pub(crate) struct Decoder {
    scratch: Vec<u32>,
    engine: Engine,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder {
            scratch: Vec::new(),
            engine: Engine::detect(),
        }
    }

    /// Appends decoded bytes to `out`, a block at a time, from `cursor` on until `out`
    /// holds at least `target` bytes or `input` ends. Returns `true` at the end of the
    /// input, every stream in it complete.
    pub fn fill(
        &mut self,
        input: &[u8],
        cursor: &mut Cursor,
        out: &mut Vec<u8>,
        target: usize,
    ) -> Result<bool, StreamFault> {
        loop {
            if out.len() >= target {
                return Ok(false);
            }
            match cursor.at {
                At::StreamStart { next } => {
                    if next >= input.len() {
                        return Ok(true);
                    }
                    cursor.at = stream_header(input, next, cursor.after_stream)?;
                }
                At::InStream {
                    start,
                    bit,
                    level,
                    crc,
                } => {
                    let fault = |fault| StreamFault {
                        stream_offset: start,
                        fault,
                    };
                    match bits(input, bit, 48).ok_or(fault(Fault::Truncated))? {
                        BLOCK_MAGIC => {
                            let (end, block_crc) =
                                self.block(input, bit, level, out).map_err(fault)?;
                            cursor.at = At::InStream {
                                start,
                                bit: end,
                                level,
                                crc: crc.rotate_left(1) ^ block_crc,
                            };
                        }
                        END_MAGIC => {
                            let stored =
                                bits(input, bit + 48, 32).ok_or(fault(Fault::Truncated))?;
                            if stored != u64::from(crc) {
                                return Err(fault(Fault::Corrupt(
                                    "the stream CRC does not match its blocks".into(),
                                )));
                            }
                            cursor.at = At::StreamStart {
                                next: (bit + 80).div_ceil(8) as usize,
                            };
                            cursor.after_stream = true;
                        }
                        _ => {
                            return Err(fault(Fault::Corrupt(
                                "a block or end-of-stream marker is missing".into(),
                            )));
                        }
                    }
                }
            }
        }
    }

    /// Decodes the block whose marker is at `bit` onto `out`; returns the bit after it
    /// and its CRC, checked.
    fn block(
        &mut self,
        input: &[u8],
        bit: u64,
        level: Level,
        out: &mut Vec<u8>,
    ) -> Result<(u64, u32), Fault> {
        if self.scratch.is_empty() {
            self.scratch = vec![0; decode_scratch_words(Level::BEST)];
        }
        let mut block = self
            .engine
            .decode_block(input, bit, level, &mut self.scratch)
            .map_err(corrupt)?;
        if block.block_length() as usize > level.block_bytes() {
            return Err(corrupt(pbz2_core::Error::BlockTooLarge));
        }
        while !block.is_finished() {
            // Zero-filling costs a memset of about the output; the decoding costs ~50×.
            let want = (block.block_length() as usize).max(1 << 16);
            let old = out.len();
            out.resize(old + want, 0);
            let n = block.read(&self.scratch, &mut out[old..]);
            out.truncate(old + n);
        }
        let crc = block.finish().map_err(corrupt)?;
        Ok((block.end_bit(), crc))
    }
}

fn corrupt(e: pbz2_core::Error) -> Fault {
    match e {
        pbz2_core::Error::Truncated => Fault::Truncated,
        other => Fault::Corrupt(other.to_string()),
    }
}

/// Reads the stream header at byte `at`.
fn stream_header(input: &[u8], at: usize, after_stream: bool) -> Result<At, StreamFault> {
    let fault = |fault| StreamFault {
        stream_offset: at,
        fault,
    };
    let head = &input[at..input.len().min(at + 4)];
    if !b"BZh".starts_with(&head[..head.len().min(3)]) {
        return Err(fault(if after_stream {
            Fault::NoHeader
        } else {
            Fault::Corrupt("missing bz2 stream header".into())
        }));
    }
    let level = match head.get(3) {
        None => return Err(fault(Fault::Truncated)),
        Some(&d) => d
            .checked_sub(b'0')
            .and_then(Level::new)
            .ok_or_else(|| fault(Fault::Corrupt("missing bz2 stream header".into())))?,
    };
    Ok(At::InStream {
        start: at,
        bit: (at as u64 + 4) * 8,
        level,
        crc: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn shared(name: &str) -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/shared/data");
        std::fs::read(dir.join(name)).expect("shared dump")
    }

    /// The C libbz2, an independent decoder, on all streams of `data`.
    fn reference(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        bzip2::read::MultiBzDecoder::new(data)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn decode(data: &[u8]) -> Result<Vec<u8>, StreamFault> {
        let mut out = Vec::new();
        let mut cursor = Cursor::new(0);
        let done = Decoder::new().fill(data, &mut cursor, &mut out, usize::MAX)?;
        assert!(done);
        assert_eq!(cursor.position(), data.len());
        Ok(out)
    }

    /// The bit position of the end-of-stream marker of a one-stream `s`.
    fn eos_bit(s: &[u8]) -> u64 {
        let total = s.len() as u64 * 8;
        (total - 87..=total - 80)
            .find(|&b| bits(s, b, 48) == Some(END_MAGIC))
            .expect("end-of-stream marker")
    }

    #[test]
    fn real_dumps_decode_as_libbz2_decodes_them() {
        // Many streams of 100 pages; one stream of many 900 kB blocks.
        for name in [
            "ltgwiki-2017-multistream.xml.bz2",
            "enwiki-2016-206pages.xml.bz2",
        ] {
            let data = shared(name);
            assert_eq!(decode(&data).unwrap(), reference(&data), "{name}");
        }
    }

    #[test]
    fn fill_stops_between_blocks_and_goes_on() {
        let data = shared("enwiki-2016-206pages.xml.bz2");
        let (mut out, mut cursor, mut dec) = (Vec::new(), Cursor::new(0), Decoder::new());
        let mut steps = 0;
        loop {
            let target = out.len() + 1;
            if dec.fill(&data, &mut cursor, &mut out, target).unwrap() {
                break;
            }
            steps += 1;
        }
        // One step per block of at most 900 kB.
        assert!(steps >= out.len() / 900_000, "{steps} steps");
        assert_eq!(out, reference(&data));
    }

    #[test]
    fn every_fault_names_its_stream() {
        let data = shared("ltgwiki-2017-multistream.xml.bz2");
        let starts = crate::dump::bz2::stream_starts(&data);
        let (s1, s2, s3) = (starts[1], starts[2], starts[3]);
        let stream = &data[s2..s3];
        let eos = eos_bit(stream);
        let at = |fault| {
            Err::<Vec<u8>, _>(StreamFault {
                stream_offset: s2 - s1,
                fault,
            })
        };
        let with = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut v = data[s1..s3].to_vec();
            edit(&mut v);
            decode(&v)
        };
        let off = s2 - s1;
        // The stored block CRC (bytes 10..14 of a stream) and the stream CRC.
        assert_eq!(
            with(&|v| v[off + 10] ^= 1),
            at(Fault::Corrupt(
                "a bzip2 block checksum does not match".into()
            ))
        );
        let crc_bit = eos + 48 + 31;
        assert_eq!(
            with(&|v| v[off + (crc_bit / 8) as usize] ^= 0x80 >> (crc_bit % 8)),
            at(Fault::Corrupt(
                "the stream CRC does not match its blocks".into()
            ))
        );
        // Damage inside the block's Huffman data.
        assert!(matches!(
            with(&|v| v[off + stream.len() / 2] ^= 0x5a),
            Err(StreamFault { stream_offset, fault: Fault::Corrupt(_) }) if stream_offset == off
        ));
        assert_eq!(with(&|v| v.truncate(v.len() - 1)), at(Fault::Truncated));
        assert_eq!(with(&|v| v.truncate(off + 20)), at(Fault::Truncated));
        assert_eq!(with(&|v| v.truncate(off + 3)), at(Fault::Truncated));
        assert_eq!(
            with(&|v| v[off + 3] = b'0'),
            at(Fault::Corrupt("missing bz2 stream header".into()))
        );
        let end = data.len() - s1 - (data.len() - s3);
        assert_eq!(
            with(&|v| v.extend_from_slice(b"trailing")),
            Err(StreamFault {
                stream_offset: end,
                fault: Fault::NoHeader
            })
        );
        assert_eq!(
            decode(b"not bz2"),
            Err(StreamFault {
                stream_offset: 0,
                fault: Fault::Corrupt("missing bz2 stream header".into())
            })
        );
    }

    #[test]
    fn empty_and_multi_block_streams() {
        use std::io::Write;
        let compress = |level, text: &[u8]| {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
            e.write_all(text).unwrap();
            e.finish().unwrap()
        };
        // Runs of every length around bzip2's run-length step, across 100 kB blocks.
        let text: Vec<u8> = (0..60_000u32)
            .flat_map(|i| std::iter::repeat_n((i % 251) as u8, (i % 7) as usize))
            .collect();
        let mut data = compress(1, b"");
        data.extend(compress(1, &text));
        data.extend(compress(9, b"x"));
        let mut want = text.clone();
        want.push(b'x');
        assert_eq!(decode(&data).unwrap(), want);
    }
}
