//! Why the planner misses: each gold page it did not propose (and each instance whose
//! gold is empty but whose frontier is not) sorted into one kind, so the next change to
//! the planner is chosen from counts rather than from anecdotes.
//!
//! Kinds are decided in a fixed order, from what no planner over the seed's table could
//! get (the seed or the page missing, the page not linked from the table) to what the
//! planner decided (the row it kept, the column it took).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde::Serialize;

use super::{Config, EvalError, Instance, PlannerSettings, all_gold_pages, planner_texts, predict};
use crate::frontier::{self, FrontierError};
use crate::index::Index;
use crate::query::find_page;

/// Why a gold page was missed, or why an instance scored 0 without missing one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MissKind {
    /// The seed page is not in the index: nothing could be predicted.
    SeedMissing,
    /// The gold page is not in the index (a red link, or a title the dump lacks).
    RedLink,
    /// The gold is empty (the row answers) but the planner proposed pages.
    EmptyGold,
    /// The planner decided the row answers (empty frontier) but the gold needs pages.
    WronglyEmpty,
    /// The table links the gold page only from rows the planner did not keep.
    WrongRow,
    /// A kept row links the gold page, but the planner took another column's page.
    WrongColumn,
    /// The seed links the gold page, but not from the instance's table.
    NotFromTable,
    /// Not linked from the seed; a page the table links does link it (a second hop).
    BridgePage,
    /// Neither the seed nor any page its table links links the gold page.
    NotLinked,
}

impl MissKind {
    pub fn name(self) -> &'static str {
        match self {
            MissKind::SeedMissing => "seed missing",
            MissKind::RedLink => "red link (gold page not in the index)",
            MissKind::EmptyGold => "empty gold, pages proposed",
            MissKind::WronglyEmpty => "empty frontier, gold needs pages",
            MissKind::WrongRow => "wrong row",
            MissKind::WrongColumn => "right row, another column's page",
            MissKind::NotFromTable => "linked from the seed, not from its table",
            MissKind::BridgePage => "bridge page needed (two hops)",
            MissKind::NotLinked => "not linked from the table or its pages",
        }
    }
}

/// One instance's misses.
#[derive(Debug, Clone, Serialize)]
pub struct InstanceMisses {
    pub id: String,
    /// (gold page, kind); the page is empty for instance-wide kinds (empty gold).
    pub misses: Vec<(String, MissKind)>,
    /// Proposed pages not in the gold (of an instance with gold pages).
    pub extra: usize,
    /// Of those, pages linked from a gold row.
    pub extra_in_gold_rows: usize,
}

/// A count per kind.
#[derive(Debug, Clone, Serialize)]
pub struct KindCount {
    pub kind: MissKind,
    pub name: &'static str,
    /// Gold pages missed for this reason (1 per instance for instance-wide kinds).
    pub misses: usize,
    /// Instances with at least one such miss.
    pub instances: usize,
}

/// The breakdown over a set of instances.
#[derive(Debug, Clone, Serialize)]
pub struct MissReport {
    pub instances: usize,
    /// Instances with every gold page proposed (or an empty frontier for empty gold).
    pub complete: usize,
    pub kinds: Vec<KindCount>,
    /// Proposed pages not in the gold, and how many came from a gold row.
    pub extra: usize,
    pub extra_in_gold_rows: usize,
    pub per_instance: Vec<InstanceMisses>,
}

/// Classifies the planner's misses on every instance.
pub fn misses(
    index: &Index,
    instances: &[Instance],
    settings: PlannerSettings,
) -> Result<MissReport, EvalError> {
    let golds = all_gold_pages(index, instances);
    let texts = planner_texts(index, instances)?;
    let per_instance: Vec<InstanceMisses> = instances
        .par_iter()
        .zip(&golds)
        .map(|(inst, gold)| classify(index, inst, gold, &texts, settings))
        .collect::<Result<_, _>>()?;
    let mut counts: BTreeMap<MissKind, (usize, BTreeSet<&str>)> = BTreeMap::new();
    for m in &per_instance {
        for (_, k) in &m.misses {
            let e = counts.entry(*k).or_default();
            e.0 += 1;
            e.1.insert(&m.id);
        }
    }
    Ok(MissReport {
        instances: instances.len(),
        complete: per_instance.iter().filter(|m| m.misses.is_empty()).count(),
        kinds: counts
            .into_iter()
            .map(|(kind, (misses, ids))| KindCount {
                kind,
                name: kind.name(),
                misses,
                instances: ids.len(),
            })
            .collect(),
        extra: per_instance.iter().map(|m| m.extra).sum(),
        extra_in_gold_rows: per_instance.iter().map(|m| m.extra_in_gold_rows).sum(),
        per_instance,
    })
}

fn classify(
    index: &Index,
    inst: &Instance,
    gold: &BTreeSet<String>,
    texts: &crate::frontier::TextCache,
    settings: PlannerSettings,
) -> Result<InstanceMisses, EvalError> {
    let mut out = InstanceMisses {
        id: inst.id.clone(),
        misses: Vec::new(),
        extra: 0,
        extra_in_gold_rows: 0,
    };
    let p = match predict(index, inst, texts, Config::Planner, settings) {
        Ok(p) => p,
        Err(e) if e.is_not_found() => {
            out.misses.push((String::new(), MissKind::SeedMissing));
            return Ok(out);
        }
        Err(e) => return Err(e.into()),
    };
    if gold.is_empty() {
        if !p.titles.is_empty() {
            out.misses.push((String::new(), MissKind::EmptyGold));
        }
        return Ok(out);
    }
    let predicted: BTreeSet<&str> = p.titles.iter().map(String::as_str).collect();
    // Where the table links each page: (title, data row).
    let table = frontier::seed_table(index, &inst.seed, inst.seed_table, None)?;
    let linked_rows = |title: &str| -> BTreeSet<usize> {
        table
            .candidates
            .iter()
            .filter(|c| c.title == title)
            .filter_map(|c| match c.linked_from {
                Some(frontier::LinkedFrom::Cell { row, .. }) => Some(row),
                _ => None,
            })
            .collect()
    };
    let gold_rows: BTreeSet<usize> = inst.gold_rows.iter().copied().collect();
    for t in p.titles.iter().filter(|t| !gold.contains(*t)) {
        out.extra += 1;
        if !linked_rows(t).is_disjoint(&gold_rows) {
            out.extra_in_gold_rows += 1;
        }
    }
    let kept: BTreeSet<usize> = p.rows.iter().copied().collect();
    let empty_by_rule = p
        .frontier
        .as_ref()
        .is_some_and(|f| f.answer_in_row.is_some());
    // The seed's links and the second hop are read only for a gold page the table
    // does not link, and then once per instance.
    let mut seed_links: Option<BTreeSet<String>> = None;
    let mut second_hop: Option<BTreeSet<String>> = None;
    for g in gold.iter().filter(|g| !predicted.contains(g.as_str())) {
        let rows = linked_rows(g);
        let kind = if find_page(index, g).is_err() {
            MissKind::RedLink
        } else if empty_by_rule {
            MissKind::WronglyEmpty
        } else if !rows.is_empty() {
            if rows.is_disjoint(&kept) {
                MissKind::WrongRow
            } else {
                MissKind::WrongColumn
            }
        } else {
            if seed_links.is_none() {
                seed_links = Some(titles(frontier::outlinks(index, &inst.seed)?));
            }
            if seed_links.as_ref().is_some_and(|l| l.contains(g)) {
                MissKind::NotFromTable
            } else {
                if second_hop.is_none() {
                    second_hop = Some(hop(index, &table)?);
                }
                if second_hop.as_ref().is_some_and(|h| h.contains(g)) {
                    MissKind::BridgePage
                } else {
                    MissKind::NotLinked
                }
            }
        };
        out.misses.push((g.clone(), kind));
    }
    Ok(out)
}

fn titles(r: frontier::OperatorResult) -> BTreeSet<String> {
    r.candidates.into_iter().map(|c| c.title).collect()
}

/// Every page linked from a page the table links.
fn hop(index: &Index, table: &frontier::OperatorResult) -> Result<BTreeSet<String>, EvalError> {
    let mut out = BTreeSet::new();
    for c in table.pages() {
        match frontier::outlinks(index, &c.title) {
            Ok(r) => out.extend(titles(r)),
            Err(FrontierError::NotFound(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(out)
}
