//! LEB128 unsigned varints for the build's temporary files (sort runs, key spools):
//! titles and page numbers are short, so most take one or two bytes instead of eight.

use std::io::{BufRead, Read};

/// The longest encoding of a `u64`: ten 7-bit groups.
pub(crate) const MAX_LEN: usize = 10;

pub(crate) fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads one varint; `Ok(None)` when the input ends cleanly before it.
pub(crate) fn get_or_end(input: &mut impl BufRead) -> std::io::Result<Option<u64>> {
    if input.fill_buf()?.is_empty() {
        return Ok(None);
    }
    get(input).map(Some)
}

pub fn get(input: &mut impl Read) -> std::io::Result<u64> {
    let mut v = 0u64;
    let mut b = [0u8; 1];
    for shift in (0..64).step_by(7) {
        input.read_exact(&mut b)?;
        v |= u64::from(b[0] & 0x7f) << shift;
        if b[0] < 0x80 {
            return Ok(v);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "varint longer than 10 bytes",
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip_and_clean_end() {
        let mut buf = Vec::new();
        for v in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            super::put(&mut buf, v);
        }
        let mut r = &buf[..];
        for v in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            assert_eq!(super::get_or_end(&mut r).unwrap(), Some(v));
        }
        assert_eq!(super::get_or_end(&mut r).unwrap(), None);
        // A varint cut in the middle is an error, not a clean end.
        let mut cut = &[0x80u8][..];
        assert!(super::get_or_end(&mut cut).is_err());
    }
}
