//! Is configuration A better than B on these instances? A paired bootstrap confidence
//! interval of the mean difference, and a two-sided sign test.
//!
//! Both are paired: the same instances are scored under both configurations, so the
//! per-instance differences carry the comparison and the instances' own difficulty
//! cancels out. The bootstrap draws from ChaCha8 with a fixed seed (`rand_chacha`,
//! whose output stream is specified and stable), so the interval is the same on every
//! machine and every run.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde::Serialize;

/// Resamples drawn unless told otherwise.
pub(crate) const RESAMPLES: usize = 5000;
/// The fixed seed of the resampling stream.
pub(crate) const SEED: u64 = 20_240_605;

/// A paired comparison of A − B over the same instances.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paired {
    /// Mean of the per-instance differences A − B.
    pub mean_difference: f64,
    /// 95 % percentile bootstrap interval of the mean difference.
    pub ci95: (f64, f64),
    pub resamples: usize,
    pub seed: u64,
    /// Instances where A scored higher, lower, the same.
    pub a_better: usize,
    pub b_better: usize,
    pub ties: usize,
    /// Two-sided exact sign test p-value (ties left out).
    pub sign_test_p: f64,
}

/// Compares paired scores `a[i]` and `b[i]`.
pub fn paired(a: &[f64], b: &[f64], resamples: usize, seed: u64) -> Paired {
    assert_eq!(a.len(), b.len(), "paired scores must align");
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let n = d.len();
    let mean = |v: &mut dyn Iterator<Item = f64>| v.sum::<f64>() / n.max(1) as f64;
    let mean_difference = mean(&mut d.iter().copied());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            if n == 0 {
                return 0.0;
            }
            mean(&mut (0..n).map(|_| d[uniform(&mut rng, n as u64) as usize]))
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let ci95 = (percentile(&means, 0.025), percentile(&means, 0.975));
    let a_better = d.iter().filter(|&&x| x > 0.0).count();
    let b_better = d.iter().filter(|&&x| x < 0.0).count();
    Paired {
        mean_difference,
        ci95,
        resamples,
        seed,
        a_better,
        b_better,
        ties: n - a_better - b_better,
        sign_test_p: sign_test(a_better, b_better),
    }
}

/// A uniform integer in `0..n` (Lemire's multiply-and-reject: no modulo bias).
pub(crate) fn uniform(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let m = (rng.next_u64() as u128) * (n as u128);
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
    }
}

/// The `q` quantile of sorted values, interpolating linearly between ranks (the
/// "type 7" definition of R and NumPy's default).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Two-sided exact sign test: the probability, under Binomial(n, ½), of a split at
/// least as uneven as `wins` : `losses`.
pub(crate) fn sign_test(wins: usize, losses: usize) -> f64 {
    let n = wins + losses;
    if n == 0 {
        return 1.0;
    }
    let k = wins.min(losses);
    // P(X ≤ k) with X ~ Binomial(n, ½), summed in log space to stay exact for large n.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0f64; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=k {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_test_matches_the_binomial_table() {
        // 10 trials, 1 vs 9: 2 · (1 + 10) / 1024.
        assert!((sign_test(1, 9) - 22.0 / 1024.0).abs() < 1e-12);
        assert!((sign_test(9, 1) - 22.0 / 1024.0).abs() < 1e-12);
        assert_eq!(sign_test(5, 5), 1.0);
        assert_eq!(sign_test(0, 0), 1.0);
        // 20 vs 0: 2 / 2^20.
        assert!((sign_test(20, 0) - 2.0 / 1_048_576.0).abs() < 1e-15);
    }

    #[test]
    fn a_constant_difference_has_a_point_interval() {
        let a = vec![0.75; 30];
        let b = vec![0.25; 30];
        let p = paired(&a, &b, 200, SEED);
        assert_eq!(p.mean_difference, 0.5);
        assert_eq!(p.ci95, (0.5, 0.5));
        assert_eq!((p.a_better, p.b_better, p.ties), (30, 0, 0));
    }

    #[test]
    fn interval_is_deterministic_and_brackets_the_mean() {
        let a: Vec<f64> = (0..50).map(|i| ((i * 37) % 11) as f64 / 10.0).collect();
        let b: Vec<f64> = (0..50).map(|i| ((i * 13) % 7) as f64 / 10.0).collect();
        let p = paired(&a, &b, RESAMPLES, SEED);
        let q = paired(&a, &b, RESAMPLES, SEED);
        assert_eq!(p, q);
        assert!(p.ci95.0 < p.mean_difference && p.mean_difference < p.ci95.1);
        let other = paired(&a, &b, RESAMPLES, SEED + 1);
        assert_ne!(p.ci95, other.ci95);
    }

    #[test]
    fn uniform_stays_in_range() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            seen[uniform(&mut rng, 7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
    }
}
