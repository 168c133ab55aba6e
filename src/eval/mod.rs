//! `wikiwit eval`: scores frontier configurations on question instances with gold pages.
//!
//! An instance (one JSON object per line, the format of
//! `ottqa-frontier-sample-100.jsonl`) names a question, its seed page and table, and the
//! gold pages whose text holds the answer. Each configuration predicts a set of pages;
//! titles on both sides are normalized and followed through redirects before they are
//! compared, so an alias is not a miss. With two configurations the per-instance F1s are
//! compared pairwise ([`bootstrap`]).

pub mod bootstrap;
pub mod folds;
pub mod keys;
pub mod metrics;
pub mod misses;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::frontier::{self, FrontierError, Op, PlanOptions, Rules};
use crate::index::{Index, IndexError, Lookup};
use crate::query::find_page;
use metrics::Prf;

/// Errors reading instances or scoring them.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    BadInstance {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: no instances")]
    Empty { path: PathBuf },
    #[error("{folds} folds need at least 2 folds and no more folds than the {instances} instances")]
    Folds { folds: usize, instances: usize },
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Frontier(#[from] FrontierError),
}

/// One question with its gold pages.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Instance {
    pub id: String,
    pub query: String,
    pub seed: String,
    /// 1-based table of the seed the question is about.
    #[serde(default)]
    pub seed_table: Option<usize>,
    pub gold_pages: Vec<String>,
    #[serde(default)]
    pub gold_rows: Vec<usize>,
    #[serde(default)]
    pub answer: serde_json::Value,
    /// Primary keys of the rows the answer needs (for key scoring).
    #[serde(default)]
    pub gold_keys: Option<Vec<String>>,
}

/// Reads instances, one JSON object per non-blank line.
pub fn read_instances(path: &Path) -> Result<Vec<Instance>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|source| EvalError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let inst: Instance = serde_json::from_str(line).map_err(|e| EvalError::BadInstance {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        if inst.seed_table == Some(0) {
            return Err(EvalError::BadInstance {
                path: path.to_path_buf(),
                line: i + 1,
                message: "seed_table is 1-based; 0 is not a table".into(),
            });
        }
        out.push(inst);
    }
    if out.is_empty() {
        return Err(EvalError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// A way of predicting an instance's pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Config {
    /// The planner with its default operators, on the instance's table.
    Planner,
    /// Every outlink of the seed.
    Outlinks,
    /// Every page linked from the instance's table.
    SeedTable,
}

impl Config {
    pub fn name(self) -> &'static str {
        match self {
            Config::Planner => "planner",
            Config::Outlinks => "outlinks",
            Config::SeedTable => "seed-table",
        }
    }

    pub fn parse(s: &str) -> Option<Config> {
        [Config::Planner, Config::Outlinks, Config::SeedTable]
            .into_iter()
            .find(|c| c.name() == s)
    }
}

/// How one instance scored under one configuration.
#[derive(Debug, Clone, Serialize)]
pub struct InstanceScore {
    pub id: String,
    pub predicted: Vec<String>,
    pub gold: Vec<String>,
    #[serde(flatten)]
    pub prf: Prf,
    /// Data rows (0-based) of the instance's table the configuration keeps.
    pub predicted_rows: Vec<usize>,
    /// The row axis: kept rows against `gold_rows`.
    pub rows: Prf,
    /// Key precision / recall / F1, when the instance has `gold_keys`.
    pub keys: Option<Prf>,
    /// Why nothing could be predicted (e.g. the seed is not in the index).
    pub error: Option<String>,
}

/// One configuration's results.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigReport {
    pub config: Config,
    #[serde(rename = "macro")]
    pub macro_avg: Prf,
    /// Macro row-axis scores.
    pub rows_macro: Prf,
    /// Macro key scores over the instances that have gold keys.
    pub keys_macro: Option<Prf>,
    pub mean_predicted: f64,
    pub instances: Vec<InstanceScore>,
}

/// The whole evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub instances: usize,
    pub configs: Vec<ConfigReport>,
    /// F1 of the first configuration minus the second's, paired.
    pub comparison: Option<bootstrap::Paired>,
    /// The same comparison on the row axis.
    pub rows_comparison: Option<bootstrap::Paired>,
}

/// The canonical title of `t`: normalized, redirects followed; a title with no page is
/// kept in its normalized form (it can still match a prediction that names it).
pub(crate) fn canonical_title(index: &Index, t: &str) -> String {
    match find_page(index, t) {
        Ok(f) => f.title,
        Err(_) => match index.lookup(t) {
            Lookup::Missing(x) | Lookup::Page(x, _) | Lookup::Interwiki(x) => {
                index.codec().prefixed_text(x.ns, &x.dbkey)
            }
            Lookup::Invalid(_) => t.trim().to_string(),
        },
    }
}

/// The planner's settings in an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlannerSettings {
    pub limit: usize,
    pub row_ratio: f64,
    pub page_weight: f64,
    pub rules: Rules,
}

impl Default for PlannerSettings {
    fn default() -> Self {
        PlannerSettings {
            limit: 10,
            row_ratio: frontier::planner::ROW_RATIO,
            page_weight: frontier::planner::PAGE_WEIGHT,
            rules: Rules::default(),
        }
    }
}

/// The instance's gold pages, as canonical titles.
fn gold_pages(index: &Index, inst: &Instance) -> BTreeSet<String> {
    inst.gold_pages
        .iter()
        .map(|t| canonical_title(index, t))
        .collect()
}

/// Every instance's gold pages, canonicalized once whatever the number of
/// configurations scored against them.
pub(crate) fn all_gold_pages(index: &Index, instances: &[Instance]) -> Vec<BTreeSet<String>> {
    instances
        .par_iter()
        .map(|inst| gold_pages(index, inst))
        .collect()
}

/// The texts of every page the instances' tables link, prepared once for all the plans
/// ([`frontier::TextCache`]); instances whose seed is not in the index add none.
pub(crate) fn planner_texts(
    index: &Index,
    instances: &[Instance],
) -> Result<frontier::TextCache, EvalError> {
    let tables: BTreeSet<(&str, Option<usize>)> = instances
        .iter()
        .map(|i| (i.seed.as_str(), i.seed_table))
        .collect();
    let tables: Vec<_> = tables.into_iter().collect();
    let pages: Vec<Vec<u32>> = tables
        .par_iter()
        .map(
            |&(seed, table)| match frontier::seed_table(index, seed, table, None) {
                Ok(r) => Ok(r.candidates.iter().map(|c| c.page).collect()),
                Err(e) if e.is_not_found() => Ok(Vec::new()),
                Err(e) => Err(e),
            },
        )
        .collect::<Result<_, _>>()?;
    Ok(frontier::TextCache::prefetch(
        index,
        pages.into_iter().flatten().collect(),
    )?)
}

/// Scores one configuration on every instance; instances run in parallel, results keep
/// the input order.
pub(crate) fn score_all(
    index: &Index,
    instances: &[Instance],
    golds: &[BTreeSet<String>],
    texts: &frontier::TextCache,
    config: Config,
    settings: PlannerSettings,
) -> Result<Vec<InstanceScore>, EvalError> {
    instances
        .par_iter()
        .zip(golds)
        .map(|(inst, gold)| score_instance(index, inst, gold, texts, config, settings))
        .collect()
}

/// What a configuration predicts for one instance.
pub(crate) struct Prediction {
    pub titles: Vec<String>,
    pub keys: Vec<String>,
    /// Data rows of the instance's table it keeps, ascending.
    pub rows: Vec<usize>,
    /// The planner's frontier, for the planner configuration.
    pub frontier: Option<frontier::Frontier>,
}

/// The planner's options for an instance.
pub(crate) fn plan_options(inst: &Instance, settings: PlannerSettings) -> PlanOptions {
    PlanOptions {
        seed: inst.seed.clone(),
        query: inst.query.clone(),
        table: inst.seed_table,
        ops: Op::DEFAULT.to_vec(),
        limit: settings.limit,
        row_ratio: settings.row_ratio,
        page_weight: settings.page_weight,
        rules: settings.rules,
    }
}

/// Predicted pages (titles), keys and rows of one instance. The baselines read whole
/// tables, so they keep every data row of the instance's table; the planner keeps the
/// rows it scored close to the best.
pub(crate) fn predict(
    index: &Index,
    inst: &Instance,
    texts: &frontier::TextCache,
    config: Config,
    settings: PlannerSettings,
) -> Result<Prediction, FrontierError> {
    let table = inst.seed_table.unwrap_or(1);
    let all_rows = || -> Result<Vec<usize>, FrontierError> {
        let n = frontier::count(index, &inst.seed, Some(table))?
            .counts
            .first()
            .map_or(0, |c| c.count);
        Ok((0..n).collect())
    };
    let (cands, rows, f) = match config {
        Config::Outlinks => (
            frontier::outlinks(index, &inst.seed)?
                .pages()
                .into_iter()
                .cloned()
                .collect::<Vec<_>>(),
            all_rows()?,
            None,
        ),
        Config::SeedTable => (
            frontier::seed_table(index, &inst.seed, inst.seed_table, None)?
                .pages()
                .into_iter()
                .cloned()
                .collect(),
            all_rows()?,
            None,
        ),
        Config::Planner => {
            let f = frontier::plan_cached(index, &plan_options(inst, settings), texts)?;
            let mut rows: Vec<usize> = f
                .units
                .iter()
                .filter(|u| u.kept && u.table == Some(table))
                .filter_map(|u| u.row)
                .collect();
            rows.sort_unstable();
            rows.dedup();
            let cands = f.pages.iter().map(|r| r.candidate.clone()).collect();
            (cands, rows, Some(f))
        }
    };
    let keys = cands
        .iter()
        .map(|c| c.key.clone().unwrap_or_else(|| c.title.clone()))
        .collect();
    Ok(Prediction {
        titles: cands.into_iter().map(|c| c.title).collect(),
        keys,
        rows,
        frontier: f,
    })
}

/// Scores one instance against its gold pages (canonical titles, [`gold_pages`]).
fn score_instance(
    index: &Index,
    inst: &Instance,
    gold: &BTreeSet<String>,
    texts: &frontier::TextCache,
    config: Config,
    settings: PlannerSettings,
) -> Result<InstanceScore, EvalError> {
    let (predicted, keys, rows, error) = match predict(index, inst, texts, config, settings) {
        Ok(p) => (p.titles, p.keys, p.rows, None),
        Err(e) if e.is_not_found() => (Vec::new(), Vec::new(), Vec::new(), Some(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    let pset: BTreeSet<String> = predicted.iter().cloned().collect();
    let gold_rows: BTreeSet<usize> = inst.gold_rows.iter().copied().collect();
    // A configuration that could not run decided nothing: it scores 0 even where the
    // gold is empty, so a missing seed is never mistaken for "no page needed".
    let zero_if_failed = |p: Prf| if error.is_some() { Prf::ZERO } else { p };
    Ok(InstanceScore {
        id: inst.id.clone(),
        prf: zero_if_failed(Prf::score(&pset, gold)),
        rows: zero_if_failed(Prf::score(&rows.iter().copied().collect(), &gold_rows)),
        predicted_rows: rows,
        keys: inst.gold_keys.as_ref().map(|g| {
            keys::key_scores(
                keys.iter().map(String::as_str),
                g.iter().map(String::as_str),
            )
        }),
        predicted,
        gold: gold.iter().cloned().collect(),
        error,
    })
}

/// Scores every configuration on every instance; instances run in parallel, results
/// keep the input order.
pub fn evaluate(
    index: &Index,
    instances: &[Instance],
    configs: &[Config],
    settings: PlannerSettings,
) -> Result<EvalReport, EvalError> {
    let golds = all_gold_pages(index, instances);
    let texts = match configs.contains(&Config::Planner) {
        true => planner_texts(index, instances)?,
        false => frontier::TextCache::default(),
    };
    let mut reports = Vec::new();
    for &config in configs {
        let scores = score_all(index, instances, &golds, &texts, config, settings)?;
        let prfs: Vec<Prf> = scores.iter().map(|s| s.prf).collect();
        let row_prfs: Vec<Prf> = scores.iter().map(|s| s.rows).collect();
        let key_prfs: Vec<Prf> = scores.iter().filter_map(|s| s.keys).collect();
        reports.push(ConfigReport {
            config,
            macro_avg: Prf::macro_average(&prfs),
            rows_macro: Prf::macro_average(&row_prfs),
            keys_macro: (!key_prfs.is_empty()).then(|| Prf::macro_average(&key_prfs)),
            mean_predicted: scores.iter().map(|s| s.predicted.len()).sum::<usize>() as f64
                / scores.len().max(1) as f64,
            instances: scores,
        });
    }
    let compare = |axis: fn(&InstanceScore) -> f64| match &reports[..] {
        [a, b, ..] => {
            let f = |r: &ConfigReport| r.instances.iter().map(axis).collect::<Vec<_>>();
            Some(bootstrap::paired(
                &f(a),
                &f(b),
                bootstrap::RESAMPLES,
                bootstrap::SEED,
            ))
        }
        _ => None,
    };
    let comparison = compare(|s| s.prf.f1);
    let rows_comparison = compare(|s| s.rows.f1);
    Ok(EvalReport {
        instances: instances.len(),
        configs: reports,
        comparison,
        rows_comparison,
    })
}
