//! Honest estimates of the planner: its settings chosen inside a k-fold split.
//!
//! The planner's settings (the row ratio, and which rules apply) were worked out on the
//! same instances it is scored on; an in-sample figure is then optimistic. Here every
//! instance is scored under the settings that did best on the *other* folds, so the
//! held-out macro F1 is what the way the settings are chosen would give on questions it
//! has not seen. Folds are drawn by a ChaCha8 shuffle with a fixed seed, so they are the
//! same on every machine and run.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use serde::Serialize;

use super::bootstrap::uniform;
use super::metrics::Prf;
use super::{
    Config, EvalError, Instance, InstanceScore, PlannerSettings, all_gold_pages, planner_texts,
    score_all,
};
use crate::frontier::Rules;
use crate::index::Index;

/// The fixed seed of the fold shuffle.
pub(crate) const SEED: u64 = 20_261_201;

/// Row ratios tried, the default first.
pub(crate) const ROW_RATIOS: [f64; 3] = [0.8, 0.7, 0.9];

/// Page weights tried, the default first.
pub(crate) const PAGE_WEIGHTS: [f64; 3] = [0.7, 1.0, 0.5];

/// The settings tried: every row ratio and page weight with each rule on and off,
/// `base`'s limit; the defaults come first, so a tie keeps them.
pub fn grid(base: PlannerSettings) -> Vec<PlannerSettings> {
    let mut out = Vec::new();
    for answer_in_row in [true, false] {
        for named_page_identifies in [true, false] {
            for page_weight in PAGE_WEIGHTS {
                for row_ratio in ROW_RATIOS {
                    out.push(PlannerSettings {
                        row_ratio,
                        page_weight,
                        rules: Rules {
                            answer_in_row,
                            named_page_identifies,
                        },
                        ..base
                    });
                }
            }
        }
    }
    out
}

/// One setting's in-sample score (every instance).
#[derive(Debug, Clone, Serialize)]
pub struct GridPoint {
    pub settings: PlannerSettings,
    pub pages: Prf,
    pub rows: Prf,
}

/// One held-out fold.
#[derive(Debug, Clone, Serialize)]
pub struct Fold {
    pub fold: usize,
    pub instances: usize,
    /// The settings with the best page F1 on the other folds.
    pub chosen: PlannerSettings,
    pub train_f1: f64,
    pub pages: Prf,
    pub rows: Prf,
}

/// The k-fold estimate.
#[derive(Debug, Clone, Serialize)]
pub struct FoldReport {
    pub instances: usize,
    pub folds: usize,
    pub seed: u64,
    pub grid: Vec<GridPoint>,
    pub per_fold: Vec<Fold>,
    /// Macro scores over every instance, each scored under its fold's chosen settings.
    pub held_out_pages: Prf,
    pub held_out_rows: Prf,
}

/// Fold of each instance: a seeded shuffle dealt round-robin into `k` folds.
pub fn assign(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in (1..n).rev() {
        let j = uniform(&mut rng, i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut fold = vec![0; n];
    for (pos, &i) in order.iter().enumerate() {
        fold[i] = pos % k;
    }
    fold
}

/// Scores every setting of [`grid`] and, fold by fold, the setting chosen on the rest.
pub fn cross_validate(
    index: &Index,
    instances: &[Instance],
    k: usize,
    base: PlannerSettings,
) -> Result<FoldReport, EvalError> {
    if k < 2 || k > instances.len() {
        return Err(EvalError::Folds {
            folds: k,
            instances: instances.len(),
        });
    }
    let golds = all_gold_pages(index, instances);
    let texts = planner_texts(index, instances)?;
    let settings = grid(base);
    let scores: Vec<Vec<InstanceScore>> = settings
        .iter()
        .map(|s| score_all(index, instances, &golds, &texts, Config::Planner, *s))
        .collect::<Result<_, _>>()?;
    let fold = assign(instances.len(), k, SEED);
    let macro_of = |g: usize, pick: &dyn Fn(usize) -> bool, axis: fn(&InstanceScore) -> Prf| {
        let v: Vec<Prf> = scores[g]
            .iter()
            .enumerate()
            .filter(|(i, _)| pick(*i))
            .map(|(_, s)| axis(s))
            .collect();
        Prf::macro_average(&v)
    };
    let mut per_fold = Vec::new();
    let mut held_pages = vec![None; instances.len()];
    let mut held_rows = vec![None; instances.len()];
    for f in 0..k {
        let train = |i: usize| fold[i] != f;
        let test = |i: usize| fold[i] == f;
        // Best training F1; on a tie the earlier setting of the grid.
        let (g, train_f1) = (0..settings.len())
            .map(|g| (g, macro_of(g, &train, |s| s.prf).f1))
            .fold(None, |best: Option<(usize, f64)>, (g, f1)| match best {
                Some((_, b)) if b >= f1 => best,
                _ => Some((g, f1)),
            })
            .expect("the grid is not empty");
        for i in (0..instances.len()).filter(|&i| test(i)) {
            held_pages[i] = Some(scores[g][i].prf);
            held_rows[i] = Some(scores[g][i].rows);
        }
        per_fold.push(Fold {
            fold: f,
            instances: fold.iter().filter(|&&x| x == f).count(),
            chosen: settings[g],
            train_f1,
            pages: macro_of(g, &test, |s| s.prf),
            rows: macro_of(g, &test, |s| s.rows),
        });
    }
    let all =
        |v: Vec<Option<Prf>>| Prf::macro_average(&v.into_iter().flatten().collect::<Vec<_>>());
    Ok(FoldReport {
        instances: instances.len(),
        folds: k,
        seed: SEED,
        grid: settings
            .iter()
            .enumerate()
            .map(|(g, s)| GridPoint {
                settings: *s,
                pages: macro_of(g, &|_| true, |s| s.prf),
                rows: macro_of(g, &|_| true, |s| s.rows),
            })
            .collect(),
        per_fold,
        held_out_pages: all(held_pages),
        held_out_rows: all(held_rows),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_partition_evenly_and_deterministically() {
        let a = assign(103, 5, SEED);
        assert_eq!(a, assign(103, 5, SEED));
        let mut sizes = [0usize; 5];
        for &f in &a {
            sizes[f] += 1;
        }
        assert_eq!(sizes, [21, 21, 21, 20, 20]);
        // Shuffled: not simply i mod k.
        assert!((0..103).any(|i| a[i] != i % 5));
        assert_ne!(a, assign(103, 5, SEED + 1));
    }
}
