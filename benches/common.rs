//! Shared by the benchmarks: a fixed-seed generator and argument reading.

use std::path::PathBuf;

/// xorshift64*: a fixed-seed generator, so every run draws the same sample.
pub struct Rng(pub u64);

impl Default for Rng {
    fn default() -> Rng {
        Rng(0x9E37_79B9_7F4A_7C15)
    }
}

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The index directory (first argument) and the remaining arguments, `--bench` removed.
pub fn args(usage: &str) -> anyhow::Result<(PathBuf, Vec<String>)> {
    let mut args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    anyhow::ensure!(!args.is_empty(), "usage: {usage}");
    let dir = PathBuf::from(args.remove(0));
    Ok((dir, args))
}
