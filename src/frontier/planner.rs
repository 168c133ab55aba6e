//! The planner: composes the operators for a question and ranks what they find.
//!
//! A question about a table names its rows by their content ("the player who only played
//! in 2011") and asks for something the row's linked pages say. So the planner
//! 1. gathers candidates with the chosen operators (by default the seed's tables and
//!    lists, with links followed through redirects, and key cells without a link
//!    resolved by `entity-page`);
//! 2. scores every row or list item against the question with BM25 (wiki-wide IDF,
//!    [`crate::text::evidence::best_sentences`]), adds its best linked page's score for
//!    the words the row leaves unexplained (questions pick a row by what its pages say
//!    as often as by its cells), puts the row a superlative picks ahead ("the team with
//!    the least capacity": a column's extreme value, which no word matches), and keeps
//!    the rows close to the best one — a question rarely names more than a few rows;
//! 3. in each kept row, keeps the page the question asks about: the one linked from the
//!    first column the question names ("what town was the **manager** born in"), else
//!    from the key column, else the page whose text best matches the question. Without
//!    a named column, another page of the row that matches the rest of the question
//!    better is kept too; with one, such a page only identified the row and is
//!    rejected with that reason.
//!
//! Everything not kept is returned as rejected, with the reason. Ties break on page
//! title, so the same question gives the same frontier byte for byte.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::operators::{self, CountSource, EntityNames, OperatorResult, Unresolved};
use super::question::{
    AskedFor, NamedColumn, Superlative, asked_column, asked_for, named_columns, names_title,
    superlative,
};
use super::rows::{cell_locator, row_locator};
use super::{Candidate, FrontierError, Role, Seed, Step};
use crate::index::Index;
use crate::text::evidence::best_sentences;
use crate::text::{PageText, SectionText, Sentence, SentenceKind};

/// The operators the planner can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    Outlinks,
    SeedTable,
    SeedList,
    SiblingList,
    Redirect,
    EntityPage,
    Category,
    Count,
}

impl Op {
    pub const ALL: [Op; 8] = [
        Op::Outlinks,
        Op::SeedTable,
        Op::SeedList,
        Op::SiblingList,
        Op::Redirect,
        Op::EntityPage,
        Op::Category,
        Op::Count,
    ];

    /// What the planner runs unless told otherwise: the seed's own rows and items, their
    /// aliases merged, unlinked key cells resolved, and the expected cardinality.
    pub const DEFAULT: [Op; 5] = [
        Op::SeedTable,
        Op::SeedList,
        Op::Redirect,
        Op::EntityPage,
        Op::Count,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Outlinks => "outlinks",
            Op::SeedTable => "seed-table",
            Op::SeedList => "seed-list",
            Op::SiblingList => "sibling-list",
            Op::Redirect => "redirect",
            Op::EntityPage => "entity-page",
            Op::Category => "category",
            Op::Count => "count",
        }
    }

    pub fn parse(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.name() == s)
    }
}

/// What to plan.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    pub seed: String,
    pub query: String,
    /// Only rows of this table (1-based) answer the question.
    pub table: Option<usize>,
    pub ops: Vec<Op>,
    /// At most this many pages in the frontier.
    pub limit: usize,
    /// Rows scoring at least this fraction of the best row are kept ([`ROW_RATIO`]).
    pub row_ratio: f64,
    /// Which of the planner's rules apply.
    pub rules: Rules,
}

/// The planner's switchable rules: each is a general principle that an evaluation can
/// turn off to measure what it is worth (`wikiwit eval frontier --folds` chooses them
/// on training folds only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rules {
    /// When the question asks for a column of the row it picks, the row already holds
    /// the answer and the frontier is empty ([`AnswerInRow`]).
    pub answer_in_row: bool,
    /// A page the question names by its title identifies the row; the frontier takes
    /// another page of that row.
    pub named_page_identifies: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            answer_in_row: true,
            named_page_identifies: true,
        }
    }
}

/// Rows (or items) scoring at least this fraction of the best row (over the table's
/// floor) are kept by default: a question singles out one row, but a comparison ("the
/// older of …") or a near tie names a few.
pub const ROW_RATIO: f64 = 0.8;
/// Pages whose row-plus-page score reaches this fraction of the best page are kept.
pub const PAGE_RATIO: f64 = 0.8;
/// Sibling, category and outlink candidates have no row; only their own text is scored.
const SENTENCES_PER_PAGE: usize = 1;

/// A row or list item and its score against the question.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnitScore {
    /// `Seed#Table 2 row 5` or `Seed#List item 3`.
    pub locator: String,
    /// The table (1-based) and data row (0-based) of a table row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<usize>,
    pub text: String,
    /// The row's own score (over its table's floor) plus its best linked page's score
    /// for what the row leaves unexplained: what rows are kept on.
    pub score: f64,
    pub kept: bool,
}

/// A page in the frontier.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    #[serde(flatten)]
    pub candidate: Candidate,
    /// Row score + page score.
    pub score: f64,
    /// The row's own score, over its table's floor (without page evidence).
    pub row_score: f64,
    pub page_score: f64,
    /// The page's sentence that best matches the question.
    pub best_sentence: Option<String>,
}

/// A candidate left out, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rejected {
    pub title: String,
    pub operator: &'static str,
    pub locator: String,
    pub score: f64,
    pub why: String,
}

/// The planner's answer.
#[derive(Debug, Clone, Serialize)]
pub struct Frontier {
    pub seed: String,
    pub query: String,
    pub table: Option<usize>,
    pub ops: Vec<Op>,
    /// The seed itself, in the seed role.
    pub seed_step: Step,
    /// Rows and items, best first.
    pub units: Vec<UnitScore>,
    pub pages: Vec<Ranked>,
    pub rejected: Vec<Rejected>,
    pub unresolved: Vec<Unresolved>,
    pub counts: Vec<CountSource>,
    /// Superlatives of the question over the seed's tables, and the rows they pick.
    pub superlatives: Vec<Superlative>,
    /// Set when the rows the question picks already hold its answer: the frontier is
    /// then empty, and this says which column of which rows answers.
    pub answer_in_row: Option<AnswerInRow>,
}

/// The question asks for a column of the row it picks, so the row answers it and no
/// other page is needed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnswerInRow {
    /// The table (1-based) and its kept data rows (0-based).
    pub table: usize,
    pub rows: Vec<usize>,
    /// The column asked for (0-based) and its label.
    pub col: usize,
    pub label: String,
    /// The question's words that ask for it ("what … capacity").
    pub asked: String,
    /// The kept rows' cells in that column: where the answer is.
    pub values: Vec<String>,
}

/// Plans the frontier for `opts`.
pub fn plan(index: &Index, opts: &PlanOptions) -> Result<Frontier, FrontierError> {
    if !(opts.row_ratio > 0.0 && opts.row_ratio <= 1.0) {
        return Err(FrontierError::BadRequest(format!(
            "the row ratio must be in (0, 1], not {}",
            opts.row_ratio
        )));
    }
    let searcher = index.searcher()?;
    // The seed is decoded once; every operator below reads it.
    let seed_page = Seed::load(index, &opts.seed)?;
    let seed = &seed_page.page;
    let ops: BTreeSet<Op> = opts.ops.iter().copied().collect();
    let mut found: Vec<OperatorResult> = Vec::new();
    let mut counts = Vec::new();
    let mut unresolved = Vec::new();
    for op in &ops {
        let r = match op {
            Op::Outlinks => operators::outlinks_of(index, &seed_page)?,
            Op::SeedTable => operators::seed_table_of(index, &seed_page, opts.table, None)?,
            Op::SeedList if opts.table.is_none() => operators::seed_list_of(index, &seed_page)?,
            Op::SiblingList => operators::sibling_list_of(index, &seed_page, 50)?,
            Op::Count => {
                let mut r = operators::count_of(&seed_page, opts.table);
                counts.append(&mut r.counts);
                continue;
            }
            // Categories of the seed: members are peers of the seed's own subject.
            Op::Category => {
                let mut all = OperatorResult::default();
                for c in &seed_page.s.categories {
                    let name = index
                        .codec()
                        .prefixed_text(crate::title::NS_CATEGORY, &c.dbkey);
                    match operators::category(index, &name, 0) {
                        Ok(mut r) => all.candidates.append(&mut r.candidates),
                        Err(e) if e.is_not_found() => {}
                        Err(e) => return Err(e),
                    }
                }
                all
            }
            // Redirects are followed on every link (a `redirect` step in the chain) and
            // candidates are merged by final page; entity-page runs on the kept rows.
            Op::SeedList | Op::Redirect | Op::EntityPage => continue,
        };
        unresolved.extend(r.unresolved.iter().cloned());
        found.push(r);
    }

    // 1. Units: rows and list items, scored against the question.
    let mut unit_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut unit_texts: Vec<(String, String)> = Vec::new();
    let mut unit_rows: Vec<Option<(usize, usize)>> = Vec::new();
    for c in found.iter().flat_map(|r| &r.candidates) {
        if let Some(u) = unit_locator(c) {
            unit_of.entry(u.clone()).or_insert_with(|| {
                unit_texts.push((u, c.context.clone()));
                unit_rows.push(c.cell.map(|(t, r, _)| (t, r)));
                unit_texts.len() - 1
            });
        }
    }
    // A row that links no page is still a row the question may pick: its cells can hold
    // the answer ([`AnswerInRow`]), and it competes with the other rows.
    if ops.contains(&Op::SeedTable) {
        for ti in 0..seed_page.s.tables.len() {
            if opts.table.is_some_and(|n| n != ti + 1) {
                continue;
            }
            for row in &seed_page.rows(ti).rows {
                let u = row_locator(&seed.title, ti + 1, row.row);
                unit_of.entry(u.clone()).or_insert_with(|| {
                    unit_texts.push((u, row.text.clone()));
                    unit_rows.push(Some((ti + 1, row.row)));
                    unit_texts.len() - 1
                });
            }
        }
    }
    let row_scores = score_units(searcher, &unit_texts, &opts.query);
    // A question names its row by what the row says and by what the row's pages say
    // ("the club whose coach played for Malmö FF"): a unit's score adds its best linked
    // page's score for the terms the row leaves unexplained.
    let seed_terms: BTreeSet<String> = searcher.terms(&seed.title).into_iter().collect();
    // A page linked from several rows is scored once per row; its text is decoded once.
    let mut texts = PageTexts::new(index);
    let residuals: Vec<String> = unit_texts
        .iter()
        .map(|(_, t)| residual_query(searcher, &opts.query, t, &seed_terms))
        .collect();
    let mut page_part = vec![0.0f64; unit_texts.len()];
    for c in found.iter().flat_map(|r| &r.candidates) {
        if c.page == seed.number {
            continue;
        }
        if let Some(i) = unit_locator(c).map(|u| unit_of[&u]) {
            let (p, _) = texts.score(searcher, c.page, &residuals[i])?;
            page_part[i] = page_part[i].max(p);
        }
    }
    let mut unit_scores: Vec<f64> = row_scores
        .iter()
        .zip(&page_part)
        .map(|(r, p)| r + p)
        .collect();
    // A superlative ("the team with the least capacity") names its row by a column's
    // extreme value, which no word of the row matches: that row goes ahead of every
    // row matched by words alone.
    let labels: Vec<Vec<Option<String>>> = seed_page
        .s
        .tables
        .iter()
        .map(|t| t.column_labels())
        .collect();
    let mut superlatives = Vec::new();
    for (ti, l) in labels.iter().enumerate() {
        if opts.table.is_some_and(|n| n != ti + 1) {
            continue;
        }
        let rows = &seed_page.rows(ti).rows;
        if let Some(s) = superlative(&opts.query, ti + 1, l, rows) {
            superlatives.push(s);
        }
    }
    // Ahead by enough that the rows matched by words alone fall below the row ratio.
    let ahead = unit_scores.iter().copied().fold(0.0, f64::max).max(1.0) / opts.row_ratio;
    for s in &superlatives {
        for r in &s.rows {
            let unit = row_locator(&seed.title, s.table, *r);
            if let Some(&i) = unit_of.get(&unit) {
                unit_scores[i] += ahead;
            }
        }
    }
    let best_unit = unit_scores.iter().copied().fold(0.0, f64::max);
    let kept_unit = |i: usize| best_unit > 0.0 && unit_scores[i] >= opts.row_ratio * best_unit;

    // 2. Candidates of kept units (all units when none matches), and unit-less ones.
    let mut rejected: Vec<Rejected> = Vec::new();
    let mut by_unit: BTreeMap<usize, Vec<Candidate>> = BTreeMap::new();
    let mut loose: Vec<Candidate> = Vec::new();
    for c in found.iter().flat_map(|r| &r.candidates) {
        if c.page == seed.number {
            continue;
        }
        match unit_locator(c).map(|u| unit_of[&u]) {
            Some(i) if best_unit > 0.0 && !kept_unit(i) => rejected.push(reject(
                c,
                unit_scores[i],
                format!(
                    "{} scores {:.2} (its text over the table's floor plus its best page), below {} × the best row's {best_unit:.2}",
                    unit_texts[i].0, unit_scores[i], opts.row_ratio
                ),
            )),
            Some(i) => by_unit.entry(i).or_default().push(c.clone()),
            None => loose.push(c.clone()),
        }
    }
    if ops.contains(&Op::EntityPage) {
        let extra = resolve_key_cells(index, &seed_page, opts, &unit_of, &kept_unit)?;
        unresolved.extend(extra.1);
        for c in extra.0 {
            if let Some(i) = unit_locator(&c).map(|u| unit_of[&u]) {
                by_unit.entry(i).or_default().push(c);
            }
        }
    }

    // 3. Page scores against what the row leaves unexplained; per row, the page about
    // the row's entity (key column) unless another linked page matches better.
    // The columns the question names, per table: in a row, the first of them that links
    // a page is what the question asks about.
    let named: Vec<Vec<NamedColumn>> = labels
        .iter()
        .map(|l| named_columns(&opts.query, l, &seed.title))
        .collect();
    let mut ranked: Vec<Ranked> = Vec::new();
    for (i, cands) in &by_unit {
        let row_score = row_scores[*i];
        let residual = &residuals[*i];
        let mut scored: Vec<Ranked> = Vec::new();
        for c in cands {
            if scored.iter().any(|r| r.candidate.page == c.page) {
                continue;
            }
            let (page_score, best) = texts.score(searcher, c.page, residual)?;
            scored.push(Ranked {
                score: row_score + page_score,
                row_score,
                page_score,
                best_sentence: best,
                candidate: c.clone(),
            });
        }
        // A page the question names by its title ("the airport in the city of
        // **Lviv**") is where the question starts from: it tells which row is meant,
        // and the answer is on another page of the row.
        if opts.rules.named_page_identifies {
            let (named_pages, rest): (Vec<Ranked>, Vec<Ranked>) = scored
                .into_iter()
                .partition(|r| names_title(&opts.query, &r.candidate.title));
            scored = rest;
            for r in named_pages {
                if scored.is_empty() {
                    scored.push(r);
                    continue;
                }
                rejected.push(reject(
                    &r.candidate,
                    r.score,
                    "the question names this page: it identifies the row, and another page of the row holds the answer".into(),
                ));
            }
        }
        // The page the question asks about: in the first column it names, else in the
        // key column. Without a named column, another page of the row that matches the
        // rest of the question better is kept too; with one, such a page only told
        // which row was meant (the club "nicknamed Raposa" whose manager is asked for).
        let asked: Option<&NamedColumn> =
            scored
                .iter()
                .find_map(|r| r.candidate.cell)
                .and_then(|(tn, row, _)| {
                    let cells = &seed_page.rows(tn - 1).rows.get(row)?.cells;
                    named.get(tn - 1)?.iter().find(|n| {
                        let linked = scored
                            .iter()
                            .any(|r| r.candidate.cell.is_some_and(|c| c.2 == n.col));
                        let cell = cells.iter().find(|c| c.col == n.col);
                        linked && cell.is_some_and(|c| n.named_in(&c.text))
                    })
                });
        let primary = |r: &Ranked| match asked {
            Some(n) => r.candidate.cell.is_some_and(|c| c.2 == n.col),
            None => r.candidate.in_key_column,
        };
        let primary_best = scored
            .iter()
            .filter(|r| primary(r))
            .map(|r| r.page_score)
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        let top = scored.iter().map(|r| r.page_score).fold(0.0, f64::max);
        for r in scored {
            let why = match (asked, primary_best) {
                // A cell linking several pages ("Track listing", a pair of names):
                // those that match the question about as well as the best.
                (_, Some(k)) if primary(&r) && r.page_score < PAGE_RATIO * k => Some(format!(
                    "another page of the same column matches the rest of the question better ({:.2} < {PAGE_RATIO} × {k:.2})",
                    r.page_score
                )),
                _ if primary(&r) => None,
                (Some(n), _) => Some(format!(
                    "the question asks about the row's \"{}\" column; this page matches the rest of the question ({:.2}) but only identifies the row",
                    n.label, r.page_score
                )),
                (None, Some(k)) => (r.page_score <= k).then(|| {
                    format!(
                        "its text matches the rest of the question ({:.2}) no better than the row's key-column page ({k:.2})",
                        r.page_score
                    )
                }),
                (None, None) => (r.page_score < top).then(|| {
                    format!(
                        "its text matches the rest of the question ({:.2}) less than another page of the row ({top:.2})",
                        r.page_score
                    )
                }),
            };
            match why {
                None => ranked.push(r),
                Some(why) => rejected.push(reject(&r.candidate, r.score, why)),
            }
        }
    }
    // Pages with no row (siblings, category members, outlinks): their own text decides.
    let residual = residual_query(searcher, &opts.query, "", &seed_terms);
    let mut loose_ranked = Vec::new();
    for c in loose {
        if loose_ranked
            .iter()
            .any(|r: &Ranked| r.candidate.page == c.page)
        {
            continue;
        }
        let (page_score, best) = texts.score(searcher, c.page, &residual)?;
        loose_ranked.push(Ranked {
            score: page_score,
            row_score: 0.0,
            page_score,
            best_sentence: best,
            candidate: c,
        });
    }
    let loose_best = loose_ranked.iter().map(|r| r.score).fold(0.0, f64::max);
    for r in loose_ranked {
        if loose_best > 0.0 && r.score >= PAGE_RATIO * loose_best {
            ranked.push(r);
        } else {
            rejected.push(reject(
                &r.candidate,
                r.score,
                format!(
                    "its text scores {:.2}, below {PAGE_RATIO} × the best of its kind ({loose_best:.2})",
                    r.score
                ),
            ));
        }
    }
    // The question asks for a column of the rows it picks: those cells answer it, and
    // every page is rejected saying so.
    let answer_in_row = if opts.rules.answer_in_row {
        let kept_rows: Vec<(usize, usize)> = (0..unit_texts.len())
            .filter(|&i| kept_unit(i))
            .map(|i| unit_rows[i])
            .collect::<Option<_>>()
            .unwrap_or_default();
        asked_for(&opts.query, &seed.title)
            .filter(AskedFor::names_a_thing)
            .and_then(|a| answered_by_row(&seed_page, &labels, &kept_rows, &a))
    } else {
        None
    };
    if let Some(a) = &answer_in_row {
        let why = format!(
            "the question asks for the \"{}\" column ({}) of the row it picks, which holds the answer: {}",
            a.label,
            a.asked,
            a.values.join(" | ")
        );
        for r in ranked.drain(..) {
            rejected.push(reject(&r.candidate, r.score, why.clone()));
        }
    }
    // One entry per page: its best occurrence.
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.candidate.title.cmp(&b.candidate.title))
    });
    let mut pages: Vec<Ranked> = Vec::new();
    for r in ranked {
        if pages.iter().any(|p| p.candidate.page == r.candidate.page) {
            continue;
        }
        if pages.len() >= opts.limit {
            rejected.push(reject(
                &r.candidate,
                r.score,
                format!("beyond the limit of {} pages", opts.limit),
            ));
        } else {
            pages.push(r);
        }
    }
    // A page kept through one occurrence is not also rejected through another.
    let kept: BTreeSet<u32> = pages.iter().map(|r| r.candidate.page).collect();
    let titles: BTreeSet<String> = kept
        .iter()
        .filter_map(|&p| pages.iter().find(|r| r.candidate.page == p))
        .map(|r| r.candidate.title.clone())
        .collect();
    let mut seen = BTreeSet::new();
    rejected.retain(|r| !titles.contains(&r.title) && seen.insert(r.title.clone()));
    rejected.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.title.cmp(&b.title)));

    // Unresolved links matter only in the rows the question is about.
    unresolved.retain(|u| match u.locator.rsplit_once(" col ") {
        Some((unit, _)) => unit_of.get(unit).is_some_and(|&i| kept_unit(i)),
        None => true,
    });
    let mut units: Vec<UnitScore> = unit_texts
        .iter()
        .enumerate()
        .map(|(i, (loc, text))| UnitScore {
            locator: loc.clone(),
            table: unit_rows[i].map(|(t, _)| t),
            row: unit_rows[i].map(|(_, r)| r),
            text: text.clone(),
            score: unit_scores[i],
            kept: kept_unit(i),
        })
        .collect();
    units.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.locator.cmp(&b.locator)));
    Ok(Frontier {
        seed_step: Step {
            operator: "seed",
            role: Role::Seed,
            from: seed.title.clone(),
            locator: seed.title.clone(),
            reason: "the page the question starts from".into(),
        },
        seed: seed.title.clone(),
        query: opts.query.clone(),
        table: opts.table,
        ops: ops.into_iter().collect(),
        units,
        pages,
        rejected,
        unresolved,
        counts,
        superlatives,
        answer_in_row,
    })
}

/// Whether the kept rows answer the question themselves: they are rows of one table
/// (a list item has no columns), the question's wh-phrase names a column of that table,
/// and every kept row has a value there.
fn answered_by_row(
    seed: &Seed,
    labels: &[Vec<Option<String>>],
    kept_rows: &[(usize, usize)],
    asked: &AskedFor,
) -> Option<AnswerInRow> {
    let table = kept_rows.first()?.0;
    if kept_rows.iter().any(|&(t, _)| t != table) {
        return None;
    }
    let col = asked_column(asked, labels.get(table - 1)?, &seed.page.title)?;
    let rows = &seed.rows(table - 1).rows;
    let values = kept_rows
        .iter()
        .map(|&(_, r)| {
            let cell = rows.get(r)?.cells.iter().find(|c| c.col == col.col)?;
            let v = cell.text.trim();
            (!v.is_empty()).then(|| v.to_string())
        })
        .collect::<Option<Vec<String>>>()?;
    let head: Vec<&str> = asked.head.iter().map(|t| t.folded.as_str()).collect();
    Some(AnswerInRow {
        table,
        rows: kept_rows.iter().map(|&(_, r)| r).collect(),
        col: col.col,
        label: col.label,
        asked: format!("{} … {}", asked.wh, head.join(" ")),
        values,
    })
}

fn reject(c: &Candidate, score: f64, why: String) -> Rejected {
    Rejected {
        title: c.title.clone(),
        operator: c.operator(),
        locator: c
            .chain
            .first()
            .map(|s| s.locator.clone())
            .unwrap_or_default(),
        score,
        why,
    }
}

/// The row or list item a candidate came from: its locator without the column.
fn unit_locator(c: &Candidate) -> Option<String> {
    let first = c.chain.first()?;
    match first.operator {
        "seed-table" | "entity-page" if c.cell.is_some() => first
            .locator
            .rsplit_once(" col ")
            .map(|(row, _)| row.to_string()),
        "seed-list" => Some(first.locator.clone()),
        _ => None,
    }
}

/// The question's terms that neither the row nor the seed's title already accounts
/// for: what the linked page must say. The whole question when nothing is left.
fn residual_query(
    searcher: &crate::text::search::TextSearcher,
    query: &str,
    row: &str,
    seed_terms: &BTreeSet<String>,
) -> String {
    let used: BTreeSet<String> = searcher.terms(row).into_iter().collect();
    let rest: Vec<String> = searcher
        .terms(query)
        .into_iter()
        .filter(|t| !used.contains(t) && !seed_terms.contains(t))
        .collect();
    if rest.is_empty() {
        query.to_string()
    } else {
        rest.join(" ")
    }
}

/// The texts of the pages a plan scores, each decoded on first use.
struct PageTexts<'a> {
    index: &'a Index,
    texts: BTreeMap<u32, Option<PageText>>,
}

impl<'a> PageTexts<'a> {
    fn new(index: &'a Index) -> Self {
        PageTexts {
            index,
            texts: BTreeMap::new(),
        }
    }

    /// The best sentence of page `n` for `query`, and its BM25 score.
    fn score(
        &mut self,
        searcher: &crate::text::search::TextSearcher,
        n: u32,
        query: &str,
    ) -> Result<(f64, Option<String>), FrontierError> {
        let text = match self.texts.entry(n) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(self.index.page_text(n)?),
        };
        Ok(match text {
            Some(t) => match best_sentences(searcher, t, None, query, SENTENCES_PER_PAGE)
                .into_iter()
                .next()
            {
                Some(b) => (b.score, Some(b.text)),
                None => (0.0, None),
            },
            None => (0.0, None),
        })
    }
}

/// BM25 scores of each unit's text against the question (0 when nothing matches).
fn score_units(
    searcher: &crate::text::search::TextSearcher,
    units: &[(String, String)],
    query: &str,
) -> Vec<f64> {
    let text = PageText {
        sections: vec![SectionText {
            sentences: units
                .iter()
                .map(|(_, t)| Sentence {
                    text: t.clone(),
                    kind: SentenceKind::Table,
                    start: 0,
                    end: 0,
                })
                .collect(),
        }],
    };
    let mut scores = vec![0.0; units.len()];
    for s in best_sentences(searcher, &text, None, query, units.len()) {
        scores[s.sentence] = s.score;
    }
    // Words every row of a table shares (its column labels, a repeated value) say
    // nothing about which row is meant: each table's lowest row score is its floor.
    let mut floors: BTreeMap<&str, f64> = BTreeMap::new();
    let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
    for ((loc, _), s) in units.iter().zip(&scores) {
        let g = group_of(loc);
        let f = floors.entry(g).or_insert(*s);
        *f = f.min(*s);
        *sizes.entry(g).or_default() += 1;
    }
    units
        .iter()
        .zip(&scores)
        .map(|((loc, _), s)| {
            let g = group_of(loc);
            if sizes[g] > 1 { s - floors[g] } else { *s }
        })
        .collect()
}

/// The table (`Seed#Table 2`) or list set a unit belongs to.
fn group_of(locator: &str) -> &str {
    locator
        .rsplit_once(" row ")
        .or_else(|| locator.rsplit_once("#List item "))
        .map(|(g, _)| g)
        .unwrap_or(locator)
}

/// Key cells of kept rows that have no link: their text may still name a page.
type KeyCells = (Vec<Candidate>, Vec<Unresolved>);

fn resolve_key_cells(
    index: &Index,
    seed: &Seed,
    opts: &PlanOptions,
    unit_of: &BTreeMap<String, usize>,
    kept: &dyn Fn(usize) -> bool,
) -> Result<KeyCells, FrontierError> {
    let page = &seed.page;
    // Built once from the seed, whatever the number of key cells to resolve.
    let names = EntityNames::new(index, Some(seed))?;
    let mut out = (Vec::new(), Vec::new());
    for ti in 0..seed.s.tables.len() {
        let tn = ti + 1;
        if opts.table.is_some_and(|n| n != tn) {
            continue;
        }
        let super::TableRows { rows, key } = seed.rows(ti);
        let Some(key) = *key else {
            continue;
        };
        for row in rows {
            let unit = row_locator(&page.title, tn, row.row);
            if !unit_of.get(&unit).is_some_and(|&i| kept(i)) {
                continue;
            }
            let Some(cell) = row.cells.iter().find(|c| c.col == key) else {
                continue;
            };
            if !cell.links.is_empty() || cell.text.trim().is_empty() {
                continue;
            }
            let mut r = OperatorResult::new("entity-page");
            names.resolve(&cell.text, &mut r)?;
            let locator = cell_locator(&page.title, tn, row.row, key);
            for mut c in r.candidates {
                if let Some(first) = c.chain.first_mut() {
                    first.locator = locator.clone();
                }
                c.context = row.text.clone();
                c.in_key_column = true;
                c.cell = Some((tn, row.row, key));
                out.0.push(c);
            }
            for mut u in r.unresolved {
                u.locator = locator.clone();
                out.1.push(u);
            }
        }
    }
    Ok(out)
}
