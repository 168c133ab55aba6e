//! Set precision, recall and F1, and their macro averages over instances.
//!
//! Instances differ in how many pages they need; macro averaging (mean of per-instance
//! scores) weighs every question equally, which is what a curator is judged on.

use std::collections::BTreeSet;

use serde::Serialize;

/// Precision, recall and F1 of one prediction.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

impl Prf {
    pub(crate) const ZERO: Prf = Prf {
        precision: 0.0,
        recall: 0.0,
        f1: 0.0,
    };

    /// Scores `predicted` against `gold`. An empty gold set is a question whose answer
    /// needs no further page: predicting nothing is then perfect (1, 1, 1) and
    /// predicting anything scores 0 — the curator brought in pages nobody needs.
    pub fn score<T: Ord>(predicted: &BTreeSet<T>, gold: &BTreeSet<T>) -> Prf {
        if gold.is_empty() {
            let v = if predicted.is_empty() { 1.0 } else { 0.0 };
            return Prf {
                precision: v,
                recall: v,
                f1: v,
            };
        }
        let hit = predicted.intersection(gold).count() as f64;
        let precision = if predicted.is_empty() {
            0.0
        } else {
            hit / predicted.len() as f64
        };
        let recall = hit / gold.len() as f64;
        let f1 = if hit == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Prf {
            precision,
            recall,
            f1,
        }
    }

    /// The mean of each measure (all zeros for no instances).
    pub(crate) fn macro_average(all: &[Prf]) -> Prf {
        if all.is_empty() {
            return Prf::ZERO;
        }
        let n = all.len() as f64;
        Prf {
            precision: all.iter().map(|p| p.precision).sum::<f64>() / n,
            recall: all.iter().map(|p| p.recall).sum::<f64>() / n,
            f1: all.iter().map(|p| p.f1).sum::<f64>() / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn partial_overlap() {
        let p = Prf::score(&set(&["A", "B", "C", "D"]), &set(&["A", "E"]));
        assert_eq!(p.precision, 0.25);
        assert_eq!(p.recall, 0.5);
        assert!((p.f1 - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn empty_gold_rewards_an_empty_prediction_only() {
        assert_eq!(Prf::score(&set(&[]), &set(&[])).f1, 1.0);
        assert_eq!(Prf::score(&set(&["A"]), &set(&[])).f1, 0.0);
        assert_eq!(Prf::score(&set(&[]), &set(&["A"])).f1, 0.0);
    }

    #[test]
    fn macro_is_the_mean_of_instances() {
        let a = Prf::score(&set(&["A"]), &set(&["A"]));
        let b = Prf::score(&set(&["B"]), &set(&["A"]));
        let m = Prf::macro_average(&[a, b]);
        assert_eq!((m.precision, m.recall, m.f1), (0.5, 0.5, 0.5));
    }
}
