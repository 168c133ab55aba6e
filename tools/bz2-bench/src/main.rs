//! The bz2 decoders that could sit behind wikiwit's dump reader, side by side.
//!
//!   wikiwit-bz2-bench speed DUMP [ROUNDS]   decode every stream of DUMP on one thread
//!                                           with each decoder, in alternating rounds
//!   wikiwit-bz2-bench checks DUMP           how each one treats concatenated streams,
//!                                           truncation, damaged blocks and bad CRCs
//!
//! Every decoder decodes the same byte ranges (one per bz2 stream, found by scanning as
//! the dump reader does), one after another on the calling thread: the dump reader
//! decodes streams in parallel itself, so a decoder's single-thread speed is what counts.
//! Run through `tools/bench-bz2.sh`, which times `lbzip2 -d -n 1` in the same invocation.

use std::io::Read;
use std::sync::Arc;
use std::time::Instant;

#[allow(dead_code)]
#[path = "../../../src/dump/bz2_decode.rs"]
mod bz2_decode;

type Decode = Box<dyn FnMut(&[u8]) -> Result<Vec<u8>, String>>;

fn decoders() -> Vec<(&'static str, Decode)> {
    let mut ours = bz2_decode::Decoder::new();
    vec![
        (
            "wikiwit (pbz2-core blocks)",
            Box::new(move |d: &[u8]| {
                let mut out = Vec::with_capacity(d.len() * 5);
                let mut cur = bz2_decode::Cursor::new(0);
                ours.fill(d, &mut cur, &mut out, usize::MAX)
                    .map_err(|e| format!("{e:?}"))?;
                Ok(out)
            }),
        ),
        (
            "pbz2 DecoderReader",
            Box::new(|d: &[u8]| {
                let mut out = Vec::with_capacity(d.len() * 5);
                pbz2::DecoderReader::new(d)
                    .read_to_end(&mut out)
                    .map_err(|e| e.to_string())?;
                Ok(out)
            }),
        ),
        ("C libbz2 (bzip2-sys)", Box::new(libbz2_c)),
        ("libbz2-rs-sys", Box::new(libbz2_rs)),
        (
            "lbzip2 crate",
            Box::new(|d: &[u8]| lbzip2::stream::decompress(d).map_err(|e| format!("{e:?}"))),
        ),
        (
            "parallel_bzip2_decoder",
            Box::new(|d: &[u8]| {
                let mut out = Vec::with_capacity(d.len() * 5);
                parallel_bzip2_decoder::Bz2Decoder::new(Arc::new(d.to_vec()))
                    .read_to_end(&mut out)
                    .map_err(|e| e.to_string())?;
                Ok(out)
            }),
        ),
    ]
}

/// The C library through the `bzip2` crate, every stream of `d` in turn.
fn libbz2_c(d: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(d.len() * 5);
    let mut pos = 0;
    while pos < d.len() {
        let mut dec = bzip2::Decompress::new(false);
        loop {
            if out.capacity() - out.len() < 1 << 16 {
                out.reserve(out.len().max(1 << 20));
            }
            let before = dec.total_in();
            let st = dec
                .decompress_vec(&d[pos..], &mut out)
                .map_err(|e| e.to_string())?;
            pos += (dec.total_in() - before) as usize;
            if st == bzip2::Status::StreamEnd {
                break;
            }
            if pos >= d.len() && dec.total_in() == before {
                return Err("truncated".into());
            }
        }
    }
    Ok(out)
}

/// The Rust translation of libbz2, through its C API, every stream of `d` in turn.
fn libbz2_rs(d: &[u8]) -> Result<Vec<u8>, String> {
    use libbz2_rs_sys::*;
    let mut out: Vec<u8> = Vec::with_capacity(d.len() * 5);
    let mut pos = 0;
    while pos < d.len() {
        // SAFETY: `strm` is zeroed as the C API requires, its pointers address live
        // buffers of the lengths given, and it is ended before the buffers go.
        unsafe {
            let mut strm: bz_stream = std::mem::zeroed();
            if BZ2_bzDecompressInit(&mut strm, 0, 0) != BZ_OK {
                return Err("init".into());
            }
            let rc = loop {
                if out.capacity() - out.len() < 1 << 16 {
                    out.reserve(out.len().max(1 << 20));
                }
                strm.next_in = d[pos..].as_ptr().cast();
                strm.avail_in = (d.len() - pos) as u32;
                let spare = out.capacity() - out.len();
                strm.next_out = out.as_mut_ptr().add(out.len()).cast();
                strm.avail_out = spare as u32;
                let before = d.len() - pos;
                let rc = BZ2_bzDecompress(&mut strm);
                pos += before - strm.avail_in as usize;
                out.set_len(out.len() + spare - strm.avail_out as usize);
                if rc != BZ_OK || (strm.avail_in == 0 && spare == strm.avail_out as usize) {
                    break rc;
                }
            };
            BZ2_bzDecompressEnd(&mut strm);
            match rc {
                BZ_STREAM_END => {}
                BZ_OK => return Err("truncated".into()),
                other => return Err(format!("libbz2 error {other}")),
            }
        }
    }
    Ok(out)
}

/// Stream starts found by scanning for `BZh[1-9]` followed by a block or end marker.
fn stream_starts(data: &[u8]) -> Vec<usize> {
    let mut starts: Vec<usize> = [&b"1AY&SY"[..], b"\x17\x72\x45\x38\x50\x90"]
        .iter()
        .flat_map(|m| memchr::memmem::find_iter(data, m).collect::<Vec<_>>())
        .filter(|&h| {
            h >= 4 && &data[h - 4..h - 1] == b"BZh" && (b'1'..=b'9').contains(&data[h - 1])
        })
        .map(|h| h - 4)
        .collect();
    starts.sort_unstable();
    starts
}

fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

fn speed(data: &[u8], rounds: usize) {
    let starts = stream_starts(data);
    let ranges: Vec<(usize, usize)> = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| (s, starts.get(i + 1).copied().unwrap_or(data.len())))
        .collect();
    println!("{} bytes, {} streams", data.len(), ranges.len());
    let mut decs = decoders();
    let mut reference: Option<(usize, u32)> = None;
    for round in 1..=rounds {
        for (name, dec) in decs.iter_mut() {
            let (t0, c0) = (Instant::now(), cpu_seconds());
            let mut crc = crc32fast::Hasher::new();
            let mut len = 0;
            let mut failed = None;
            for &(s, e) in &ranges {
                match dec(&data[s..e]) {
                    Ok(out) => {
                        len += out.len();
                        crc.update(&out);
                    }
                    Err(m) => {
                        failed = Some(format!("stream at {s}: {m}"));
                        break;
                    }
                }
            }
            let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
            let crc = crc.finalize();
            let same = match (failed, reference) {
                (Some(m), _) => format!("FAILED: {m}"),
                (None, None) => {
                    reference = Some((len, crc));
                    "reference".into()
                }
                (None, Some(r)) if r == (len, crc) => "identical".into(),
                (None, Some(_)) => "DIFFERENT OUTPUT".into(),
            };
            println!(
                "round {round}\t{name}\twall {wall:.2} s\tcpu {cpu:.2} s\t{len} bytes\tcrc32 {crc:08x}\t{same}"
            );
        }
    }
}

/// The end-of-stream marker's bit position in a one-stream `s`.
fn eos_bit(s: &[u8]) -> u64 {
    let total = s.len() as u64 * 8;
    (total - 87..=total - 80)
        .find(|&b| {
            let byte = (b / 8) as usize;
            let mut w = [0u8; 8];
            let n = (s.len() - byte).min(8);
            w[..n].copy_from_slice(&s[byte..byte + n]);
            (u64::from_be_bytes(w) << (b % 8)) >> 16 == 0x1772_4538_5090
        })
        .expect("end-of-stream marker")
}

fn checks(data: &[u8]) {
    let starts = stream_starts(data);
    let one = &data[starts[1]..starts[2]];
    let two = &data[starts[1]..starts[3]];
    let flip = |s: &[u8], byte: usize, mask: u8| {
        let mut v = s.to_vec();
        v[byte] ^= mask;
        v
    };
    let eos = eos_bit(one);
    let crc_bit = eos + 48 + 31;
    let mut with_garbage = two.to_vec();
    with_garbage.extend_from_slice(b"garbage after the streams");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("two concatenated streams", two.to_vec()),
        ("truncated (60 %)", one[..one.len() * 6 / 10].to_vec()),
        ("truncated (last byte)", one[..one.len() - 1].to_vec()),
        ("64 bytes xor 0x5a mid-stream", {
            let mut v = one.to_vec();
            let mid = v.len() / 2;
            v[mid..mid + 64].iter_mut().for_each(|b| *b ^= 0x5a);
            v
        }),
        ("stored block CRC flipped", flip(one, 10, 0x01)),
        (
            "stored stream CRC flipped",
            flip(one, (crc_bit / 8) as usize, 0x80 >> (crc_bit % 8)),
        ),
        ("garbage after the last stream", with_garbage),
    ];
    let mut decs = decoders();
    let expect = [
        Ok(libbz2_c(two).unwrap()),
        Err(()),
        Err(()),
        Err(()),
        Err(()),
        Err(()),
        Err(()),
    ];
    for ((case, input), want) in cases.iter().zip(expect) {
        println!("{case}:");
        for (name, dec) in decs.iter_mut() {
            let got = dec(input);
            let verdict = match (&got, &want) {
                (Ok(o), Ok(w)) if o == w => "correct".to_string(),
                (Ok(o), Ok(w)) => format!("WRONG: {} bytes of {}", o.len(), w.len()),
                (Err(e), Ok(_)) => format!("WRONG: refused ({e})"),
                (Err(e), Err(())) => format!("refused: {e}"),
                (Ok(o), Err(())) => format!("ACCEPTED ({} bytes)", o.len()),
            };
            println!("  {name:28} {verdict}");
        }
    }
}

fn main() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("one rayon thread");
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: wikiwit-bz2-bench speed|checks DUMP [ROUNDS]";
    let (Some(mode), Some(path)) = (args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let data = std::fs::read(path).expect("read the dump");
    match mode.as_str() {
        "speed" => speed(&data, args.get(3).and_then(|r| r.parse().ok()).unwrap_or(3)),
        "checks" => checks(&data),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
