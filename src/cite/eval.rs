//! Evaluation of the support scorer on WiCE (Kamoi et al., 2023): real Wikipedia claims
//! with the sentences of the web source they cite, labelled supported / partially
//! supported / not supported by annotators.
//!
//! The task is binary — supported against the rest — as in WiCE's own claim-level
//! baselines. A claim is predicted supported when the scorer labels it
//! [`SupportLabel::Supported`], i.e. at the threshold `SUPPORTED_AT` fixed before any
//! evaluation; ROC-AUC measures the ranking by score, independent of any threshold.

use std::io::BufRead;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::support::{Idf, SUPPORTED_AT, SupportLabel, SupportScorer};

/// One WiCE line (fields this evaluation reads).
#[derive(Debug, Clone, Deserialize)]
pub struct WiceClaim {
    pub label: String,
    pub claim: String,
    pub evidence: Vec<String>,
}

/// A dataset that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum WiceError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Line {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}: no claims")]
    Empty { path: String },
}

/// Reads a WiCE JSON-lines file; blank lines are skipped, a bad line is an error naming
/// it.
pub fn read_wice(path: &Path) -> Result<Vec<WiceClaim>, WiceError> {
    let p = path.display().to_string();
    let io = |source| WiceError::Io {
        path: p.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| WiceError::Line {
            path: p.clone(),
            line: i + 1,
            message: e.to_string(),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let claim: WiceClaim = serde_json::from_str(&line).map_err(|e| WiceError::Line {
            path: p.clone(),
            line: i + 1,
            message: e.to_string(),
        })?;
        if !matches!(
            claim.label.as_str(),
            "supported" | "partially_supported" | "not_supported"
        ) {
            return Err(WiceError::Line {
                path: p.clone(),
                line: i + 1,
                message: format!(
                    "label {:?} is not supported / partially_supported / not_supported",
                    claim.label
                ),
            });
        }
        out.push(claim);
    }
    if out.is_empty() {
        return Err(WiceError::Empty { path: p });
    }
    Ok(out)
}

/// Binary classification figures, supported = positive.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WiceReport {
    pub claims: usize,
    pub idf: IdfScope,
    /// Gold counts by WiCE label.
    pub supported: usize,
    pub partially_supported: usize,
    pub not_supported: usize,
    pub threshold: f64,
    pub true_positives: usize,
    pub false_positives: usize,
    pub false_negatives: usize,
    pub true_negatives: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub accuracy: f64,
    pub roc_auc: f64,
    /// Mean score by gold label: supported, partially supported, not supported.
    pub mean_score: [f64; 3],
}

/// Where word rarity (IDF) is counted. Either way each evidence sentence is a document
/// and no label is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdfScope {
    /// Over the evidence sentences of every claim: a background corpus, as the checker's
    /// page-wide IDF is for a cited section.
    #[default]
    Corpus,
    /// Over the claim's own evidence only (a few dozen sentences).
    Claim,
}

/// Scores every claim against its evidence and measures the result.
pub fn evaluate(claims: &[WiceClaim], idf: IdfScope) -> WiceReport {
    let scorer = match idf {
        IdfScope::Corpus => SupportScorer::new(Idf::from_documents(
            claims.iter().flat_map(|c| c.evidence.iter()),
        )),
        IdfScope::Claim => SupportScorer::default(),
    };
    let scored: Vec<(bool, bool, f64, &str)> = claims
        .iter()
        .map(|c| {
            let evidence: Vec<&str> = c.evidence.iter().map(String::as_str).collect();
            let r = scorer.score(&c.claim, &evidence);
            (
                c.label == "supported",
                r.label == SupportLabel::Supported,
                r.score,
                c.label.as_str(),
            )
        })
        .collect();
    let count = |gold: bool, pred: bool| {
        scored
            .iter()
            .filter(|(g, p, _, _)| *g == gold && *p == pred)
            .count()
    };
    let (tp, fp, fnn, tn) = (
        count(true, true),
        count(false, true),
        count(true, false),
        count(false, false),
    );
    let div = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    let precision = div(tp, tp + fp);
    let recall = div(tp, tp + fnn);
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    let labels = ["supported", "partially_supported", "not_supported"];
    let by_label = |l: &str| scored.iter().filter(|s| s.3 == l).count();
    let mean_of = |l: &str| {
        let v: Vec<f64> = scored.iter().filter(|s| s.3 == l).map(|s| s.2).collect();
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let pairs: Vec<(f64, bool)> = scored.iter().map(|s| (s.2, s.0)).collect();
    WiceReport {
        claims: claims.len(),
        idf,
        supported: by_label(labels[0]),
        partially_supported: by_label(labels[1]),
        not_supported: by_label(labels[2]),
        threshold: SUPPORTED_AT,
        true_positives: tp,
        false_positives: fp,
        false_negatives: fnn,
        true_negatives: tn,
        precision,
        recall,
        f1,
        accuracy: div(tp + tn, claims.len()),
        roc_auc: roc_auc(&pairs),
        mean_score: [mean_of(labels[0]), mean_of(labels[1]), mean_of(labels[2])],
    }
}

/// Area under the ROC curve: the probability that a random positive scores above a
/// random negative, ties counting one half (Mann–Whitney U with mid-ranks).
pub fn roc_auc(scored: &[(f64, bool)]) -> f64 {
    let mut v: Vec<(f64, bool)> = scored.to_vec();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let positives = v.iter().filter(|x| x.1).count();
    let negatives = v.len() - positives;
    if positives == 0 || negatives == 0 {
        return 0.5;
    }
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j < v.len() && v[j].0 == v[i].0 {
            j += 1;
        }
        // Ranks i+1 ..= j share their mean.
        let mid = (i + 1 + j) as f64 / 2.0;
        rank_sum += mid * v[i..j].iter().filter(|x| x.1).count() as f64;
        i = j;
    }
    let p = positives as f64;
    (rank_sum - p * (p + 1.0) / 2.0) / (p * negatives as f64)
}

#[cfg(test)]
mod tests {
    use super::roc_auc;

    #[test]
    fn auc_counts_ordered_pairs_and_half_ties() {
        assert_eq!(roc_auc(&[(0.9, true), (0.1, false)]), 1.0);
        assert_eq!(roc_auc(&[(0.1, true), (0.9, false)]), 0.0);
        assert_eq!(roc_auc(&[(0.5, true), (0.5, false)]), 0.5);
        // 2 positives × 2 negatives: pairs (0.8>0.3) (0.8>0.6) (0.4>0.3) (0.4<0.6) → 3/4.
        let v = [(0.8, true), (0.4, true), (0.3, false), (0.6, false)];
        assert_eq!(roc_auc(&v), 0.75);
    }
}
