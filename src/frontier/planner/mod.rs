//! The planner: composes the operators for a question and ranks what they find.
//!
//! A question about a table names its rows by their content ("the player who only played
//! in 2011") and asks for something the row's linked pages say. So the planner
//! 1. gathers candidates with the chosen operators (by default the seed's tables and
//!    lists, with links followed through redirects, and key cells without a link
//!    resolved by `entity-page`);
//! 2. scores every row or list item against the question with BM25 (wiki-wide IDF,
//!    `crate::text::evidence::best_sentences`), adds its best linked page's score for
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

mod key_cells;
mod row_answer;
mod row_pages;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::operators::{self, CountSource, OperatorResult, Unresolved};
use super::question::{Superlative, superlative};
use super::rows::Unit;
use super::texts::{PageTexts, TextCache};
use super::{Candidate, FrontierError, LinkedFrom, Role, Seed, Step};
use crate::index::Index;
use crate::text::evidence::best_sentences;
use crate::text::search::TextSearcher;
use crate::text::{PageText, SectionText, Sentence, SentenceKind};

/// The operators the planner can run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
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
    /// The weight of a row's best page's score in the row's score ([`PAGE_WEIGHT`]).
    pub page_weight: f64,
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
/// A row's score is its own text's score plus this fraction of its best page's score
/// for the words the row leaves unexplained: both name the row, but a page's text says
/// much besides what the question means by the row, so a match there is weaker
/// evidence than the same match in the row's own cells (chosen by `eval frontier
/// --folds 5` on dev-1000, see docs/frontier.md).
pub const PAGE_WEIGHT: f64 = 0.7;
/// Pages whose row-plus-page score reaches this fraction of the best page are kept.
pub(crate) const PAGE_RATIO: f64 = 0.8;
/// Sibling, category and outlink candidates have no row; only their own text is scored.
pub(crate) const SENTENCES_PER_PAGE: usize = 1;

/// A row or list item and its score against the question.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct UnitScore {
    /// `Seed|table:2|row:5` or `Seed|item:3`.
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Rejected {
    pub title: String,
    pub operator: &'static str,
    pub locator: String,
    pub score: f64,
    pub why: String,
}

/// The planner's answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
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

/// Plans the frontier for `opts`, in phases: the operators gather candidates; rows are
/// scored and kept; each kept row's page is chosen; pages with no row compete on their
/// own text; the answer-in-row rule may empty the frontier; then pages are ranked.
pub fn plan(index: &Index, opts: &PlanOptions) -> Result<Frontier, FrontierError> {
    plan_with(index, opts, None)
}

/// [`plan`], reading page texts from `cache` where it holds them: for many plans over
/// the same tables (an evaluation), whose pages are best decoded once, in page order.
pub(crate) fn plan_cached(
    index: &Index,
    opts: &PlanOptions,
    cache: &TextCache,
) -> Result<Frontier, FrontierError> {
    plan_with(index, opts, Some(cache))
}

fn plan_with(
    index: &Index,
    opts: &PlanOptions,
    cache: Option<&TextCache>,
) -> Result<Frontier, FrontierError> {
    if !(opts.row_ratio > 0.0 && opts.row_ratio <= 1.0) {
        return Err(FrontierError::BadRequest(format!(
            "the row ratio must be in (0, 1], not {}",
            opts.row_ratio
        )));
    }
    if !(opts.page_weight >= 0.0 && opts.page_weight.is_finite()) {
        return Err(FrontierError::BadRequest(format!(
            "the page weight must be a finite number ≥ 0, not {}",
            opts.page_weight
        )));
    }
    let searcher = index.searcher()?;
    // The seed is decoded once; every operator below reads it.
    let seed = Seed::load(index, &opts.seed)?;
    let ops: BTreeSet<Op> = opts.ops.iter().copied().collect();
    let p = Planning {
        index,
        searcher,
        seed: &seed,
        opts,
    };
    let mut gathered = p.gather(&ops)?;
    let units = p.collect_units(&gathered.found, &ops);
    // A page linked from several rows is scored once per row; its text is decoded once.
    let mut texts = PageTexts::new(index, cache);
    let scored = p.score_units(&units, &gathered.found, &mut texts)?;
    let (mut sorted, mut rejected) = p.sort_candidates(&units, &scored, &gathered.found);
    if ops.contains(&Op::EntityPage) {
        let kept = |i: usize| scored.kept(i);
        let extra = key_cells::resolve_key_cells(index, &seed, opts, &units.unit_of, &kept)?;
        gathered.unresolved.extend(extra.1);
        for c in extra.0 {
            if let Some(i) = unit_of(&c).map(|u| units.unit_of[&u]) {
                sorted.by_unit.entry(i).or_default().push(c);
            }
        }
    }
    let mut ranked = p.choose_row_pages(&sorted.by_unit, &scored, &mut texts, &mut rejected)?;
    p.rank_loose(
        sorted.loose,
        &scored,
        &mut texts,
        &mut ranked,
        &mut rejected,
    )?;
    // The question asks for a column of the rows it picks: those cells answer it, and
    // every page is rejected saying so.
    let answer_in_row = p.answer_in_row(&units, &scored);
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
    let pages = p.best_pages(ranked, &mut rejected);
    // Unresolved links matter only in the rows the question is about.
    gathered.unresolved.retain(|u| match u.row {
        Some(unit) => units.unit_of.get(&unit).is_some_and(|&i| scored.kept(i)),
        None => true,
    });
    Ok(Frontier {
        seed_step: Step {
            operator: "seed",
            role: Role::Seed,
            from: seed.page.title.clone(),
            locator: seed.page.title.clone(),
            reason: "the page the question starts from".into(),
        },
        seed: seed.page.title.clone(),
        query: opts.query.clone(),
        table: opts.table,
        ops: ops.into_iter().collect(),
        units: units.report(&scored, &seed.page.title),
        pages,
        rejected,
        unresolved: gathered.unresolved,
        counts: gathered.counts,
        superlatives: scored.superlatives,
        answer_in_row,
    })
}

/// What one plan reads: the index, the seed and the request.
struct Planning<'a> {
    index: &'a Index,
    searcher: &'a TextSearcher,
    seed: &'a Seed,
    opts: &'a PlanOptions,
}

/// What the operators found.
struct Gathered {
    found: Vec<OperatorResult>,
    counts: Vec<CountSource>,
    unresolved: Vec<Unresolved>,
}

/// The rows and list items a plan scores, in the order first met.
struct Units {
    /// Unit → position.
    unit_of: BTreeMap<Unit, usize>,
    /// Each unit and its text.
    texts: Vec<(Unit, String)>,
}

impl Units {
    fn add(&mut self, unit: Unit, text: &str) {
        if !self.unit_of.contains_key(&unit) {
            self.unit_of.insert(unit, self.texts.len());
            self.texts.push((unit, text.to_string()));
        }
    }

    /// The units as the frontier reports them, best first.
    fn report(&self, scored: &UnitScores, seed: &str) -> Vec<UnitScore> {
        let mut units: Vec<UnitScore> = self
            .texts
            .iter()
            .enumerate()
            .map(|(i, (unit, text))| UnitScore {
                locator: unit.locator(seed),
                table: unit.group(),
                row: match unit {
                    Unit::Row { row, .. } => Some(*row),
                    Unit::Item(_) => None,
                },
                text: text.clone(),
                score: scored.scores[i],
                kept: scored.kept(i),
            })
            .collect();
        units.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.locator.cmp(&b.locator)));
        units
    }
}

/// How the units scored, and which are kept.
struct UnitScores {
    /// Each unit's own text score, over its table's floor.
    own: Vec<f64>,
    /// The question's words each unit leaves unexplained: what its pages must say.
    residuals: Vec<String>,
    /// Own score plus best page's, plus the superlative's lead: what rows are kept on.
    scores: Vec<f64>,
    best: f64,
    row_ratio: f64,
    seed_terms: BTreeSet<String>,
    /// Column labels of each table of the seed.
    labels: Vec<Vec<Option<String>>>,
    superlatives: Vec<Superlative>,
}

impl UnitScores {
    fn kept(&self, i: usize) -> bool {
        self.best > 0.0 && self.scores[i] >= self.row_ratio * self.best
    }
}

/// Candidates of kept units, by unit, and candidates that belong to no unit.
struct Sorted {
    by_unit: BTreeMap<usize, Vec<Candidate>>,
    loose: Vec<Candidate>,
}

impl Planning<'_> {
    /// Runs the chosen operators on the seed.
    fn gather(&self, ops: &BTreeSet<Op>) -> Result<Gathered, FrontierError> {
        let (index, seed, opts) = (self.index, self.seed, self.opts);
        let mut g = Gathered {
            found: Vec::new(),
            counts: Vec::new(),
            unresolved: Vec::new(),
        };
        for op in ops {
            let r = match op {
                Op::Outlinks => operators::outlinks_of(index, seed)?,
                Op::SeedTable => operators::seed_table_of(index, seed, opts.table, None)?,
                Op::SeedList if opts.table.is_none() => operators::seed_list_of(index, seed)?,
                Op::SiblingList => operators::sibling_list_of(index, seed, 50)?,
                Op::Count => {
                    let mut r = operators::count_of(seed, opts.table);
                    g.counts.append(&mut r.counts);
                    continue;
                }
                // Categories of the seed: members are peers of the seed's own subject.
                Op::Category => self.category_members()?,
                // Redirects are followed on every link (a `redirect` step in the chain)
                // and candidates are merged by final page; entity-page runs on the kept
                // rows.
                Op::SeedList | Op::Redirect | Op::EntityPage => continue,
            };
            g.unresolved.extend(r.unresolved.iter().cloned());
            g.found.push(r);
        }
        Ok(g)
    }

    /// Members of the seed's categories.
    fn category_members(&self) -> Result<OperatorResult, FrontierError> {
        let mut all = OperatorResult::default();
        for c in &self.seed.s.categories {
            let name = self
                .index
                .codec()
                .prefixed_text(crate::title::NS_CATEGORY, &c.dbkey);
            match operators::category(self.index, &name, 0) {
                Ok(mut r) => all.candidates.append(&mut r.candidates),
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e),
            }
        }
        Ok(all)
    }

    /// The rows and list items the candidates came from, and every row of the tables
    /// read.
    fn collect_units(&self, found: &[OperatorResult], ops: &BTreeSet<Op>) -> Units {
        let mut units = Units {
            unit_of: BTreeMap::new(),
            texts: Vec::new(),
        };
        for c in found.iter().flat_map(|r| &r.candidates) {
            if let Some(u) = unit_of(c) {
                units.add(u, &c.context);
            }
        }
        // A row that links no page is still a row the question may pick: its cells can
        // hold the answer ([`AnswerInRow`]), and it competes with the other rows.
        if ops.contains(&Op::SeedTable) {
            for ti in 0..self.seed.s.tables.len() {
                if self.opts.table.is_some_and(|n| n != ti + 1) {
                    continue;
                }
                for row in &self.seed.rows(ti).rows {
                    let table = ti + 1;
                    units.add(
                        Unit::Row {
                            table,
                            row: row.row,
                        },
                        &row.text,
                    );
                }
            }
        }
        units
    }

    /// Scores every unit: its own text, its best page's text for what the row leaves
    /// unexplained, and a superlative's lead.
    fn score_units(
        &self,
        units: &Units,
        found: &[OperatorResult],
        texts: &mut PageTexts,
    ) -> Result<UnitScores, FrontierError> {
        let (searcher, query) = (self.searcher, &self.opts.query);
        let own = score_units(searcher, &units.texts, query)?;
        // A question names its row by what the row says and by what the row's pages say
        // ("the club whose coach played for Malmö FF"): a unit's score adds its best
        // linked page's score for the terms the row leaves unexplained.
        let seed_terms: BTreeSet<String> =
            searcher.terms(&self.seed.page.title).into_iter().collect();
        let residuals: Vec<String> = units
            .texts
            .iter()
            .map(|(_, t)| residual_query(searcher, query, t, &seed_terms))
            .collect();
        let mut page_part = vec![0.0f64; units.texts.len()];
        for c in found.iter().flat_map(|r| &r.candidates) {
            if c.page == self.seed.page.number {
                continue;
            }
            if let Some(i) = unit_of(c).map(|u| units.unit_of[&u]) {
                let (p, _) = texts.score(searcher, c.page, &residuals[i])?;
                page_part[i] = page_part[i].max(p);
            }
        }
        // The row's own words name it more surely than its page's: a page says much
        // besides what the question means by the row, so its match counts for less.
        let w = self.opts.page_weight;
        let mut scores: Vec<f64> = own.iter().zip(&page_part).map(|(r, p)| r + w * p).collect();
        let labels: Vec<Vec<Option<String>>> = self
            .seed
            .s
            .tables
            .iter()
            .map(|t| t.column_labels())
            .collect();
        let superlatives = self.superlatives(&labels, units, &mut scores);
        let best = scores.iter().copied().fold(0.0, f64::max);
        Ok(UnitScores {
            own,
            residuals,
            scores,
            best,
            row_ratio: self.opts.row_ratio,
            seed_terms,
            labels,
            superlatives,
        })
    }

    /// A superlative ("the team with the least capacity") names its row by a column's
    /// extreme value, which no word of the row matches: that row goes ahead of every row
    /// matched by words alone.
    fn superlatives(
        &self,
        labels: &[Vec<Option<String>>],
        units: &Units,
        scores: &mut [f64],
    ) -> Vec<Superlative> {
        let mut superlatives = Vec::new();
        for (ti, l) in labels.iter().enumerate() {
            if self.opts.table.is_some_and(|n| n != ti + 1) {
                continue;
            }
            let rows = &self.seed.rows(ti).rows;
            if let Some(s) = superlative(&self.opts.query, ti + 1, l, rows) {
                superlatives.push(s);
            }
        }
        // Ahead by enough that the rows matched by words alone fall below the row ratio.
        let ahead = scores.iter().copied().fold(0.0, f64::max).max(1.0) / self.opts.row_ratio;
        for s in &superlatives {
            for r in &s.rows {
                let unit = Unit::Row {
                    table: s.table,
                    row: *r,
                };
                if let Some(&i) = units.unit_of.get(&unit) {
                    scores[i] += ahead;
                }
            }
        }
        superlatives
    }

    /// Candidates of kept units (all units when none matches), and unit-less ones; the
    /// candidates of rows not kept are rejected.
    fn sort_candidates(
        &self,
        units: &Units,
        scored: &UnitScores,
        found: &[OperatorResult],
    ) -> (Sorted, Vec<Rejected>) {
        let mut rejected: Vec<Rejected> = Vec::new();
        let mut sorted = Sorted {
            by_unit: BTreeMap::new(),
            loose: Vec::new(),
        };
        let best = scored.best;
        for c in found.iter().flat_map(|r| &r.candidates) {
            if c.page == self.seed.page.number {
                continue;
            }
            match unit_of(c).map(|u| units.unit_of[&u]) {
                Some(i) if best > 0.0 && !scored.kept(i) => rejected.push(reject(
                    c,
                    scored.scores[i],
                    format!(
                        "{} scores {:.2} (its text over the table's floor plus its best page), below {} × the best row's {best:.2}",
                        units.texts[i].0.locator(&self.seed.page.title),
                        scored.scores[i],
                        self.opts.row_ratio
                    ),
                )),
                Some(i) => sorted.by_unit.entry(i).or_default().push(c.clone()),
                None => sorted.loose.push(c.clone()),
            }
        }
        (sorted, rejected)
    }

    /// Pages with no row (siblings, category members, outlinks): their own text decides.
    fn rank_loose(
        &self,
        loose: Vec<Candidate>,
        scored: &UnitScores,
        texts: &mut PageTexts,
        ranked: &mut Vec<Ranked>,
        rejected: &mut Vec<Rejected>,
    ) -> Result<(), FrontierError> {
        let residual = residual_query(self.searcher, &self.opts.query, "", &scored.seed_terms);
        let mut loose_ranked = Vec::new();
        for c in loose {
            if loose_ranked
                .iter()
                .any(|r: &Ranked| r.candidate.page == c.page)
            {
                continue;
            }
            let (page_score, best) = texts.score(self.searcher, c.page, &residual)?;
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
        Ok(())
    }

    /// One entry per page, its best occurrence, best first, up to the limit; a page kept
    /// through one occurrence is not also rejected through another.
    fn best_pages(&self, mut ranked: Vec<Ranked>, rejected: &mut Vec<Rejected>) -> Vec<Ranked> {
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
            if pages.len() >= self.opts.limit {
                rejected.push(reject(
                    &r.candidate,
                    r.score,
                    format!("beyond the limit of {} pages", self.opts.limit),
                ));
            } else {
                pages.push(r);
            }
        }
        let titles: BTreeSet<String> = pages.iter().map(|r| r.candidate.title.clone()).collect();
        let mut seen = BTreeSet::new();
        rejected.retain(|r| !titles.contains(&r.title) && seen.insert(r.title.clone()));
        rejected.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.title.cmp(&b.title)));
        pages
    }
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

/// The row or list item of the seed a candidate came from.
fn unit_of(c: &Candidate) -> Option<Unit> {
    c.linked_from.map(LinkedFrom::unit)
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

/// BM25 scores of each unit's text against the question (0 when nothing matches).
fn score_units(
    searcher: &crate::text::search::TextSearcher,
    units: &[(Unit, String)],
    query: &str,
) -> Result<Vec<f64>, crate::text::search::SearchError> {
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
    for s in best_sentences(searcher, &text, None, query, units.len())? {
        scores[s.sentence] = s.score;
    }
    // Words every row of a table shares (its column labels, a repeated value) say
    // nothing about which row is meant: each table's lowest row score is its floor (the
    // list items together form one group).
    let mut floors: BTreeMap<Option<usize>, f64> = BTreeMap::new();
    let mut sizes: BTreeMap<Option<usize>, usize> = BTreeMap::new();
    for ((unit, _), s) in units.iter().zip(&scores) {
        let g = unit.group();
        let f = floors.entry(g).or_insert(*s);
        *f = f.min(*s);
        *sizes.entry(g).or_default() += 1;
    }
    Ok(units
        .iter()
        .zip(&scores)
        .map(|((unit, _), s)| {
            let g = unit.group();
            if sizes[&g] > 1 { s - floors[&g] } else { *s }
        })
        .collect())
}
