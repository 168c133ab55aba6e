//! Step 3 of the plan: in each kept row, the page the question asks about — the one
//! linked from the first column the question names, else from the key column, else the
//! page whose text best matches what the row leaves unexplained — and why the row's
//! other pages are rejected.

use std::collections::BTreeMap;

use super::{PAGE_RATIO, Planning, Ranked, Rejected, UnitScores, reject};
use crate::frontier::question::{NamedColumn, named_columns, names_title};
use crate::frontier::texts::PageTexts;
use crate::frontier::{Candidate, FrontierError, LinkedFrom};

impl Planning<'_> {
    /// Per kept row, page scores against what the row leaves unexplained, and the pages
    /// the question asks about ([`Planning::choose_in_row`]).
    pub(super) fn choose_row_pages(
        &self,
        by_unit: &BTreeMap<usize, Vec<Candidate>>,
        scored: &UnitScores,
        texts: &mut PageTexts,
        rejected: &mut Vec<Rejected>,
    ) -> Result<Vec<Ranked>, FrontierError> {
        // The columns the question names, per table: in a row, the first of them that
        // links a page is what the question asks about.
        let named: Vec<Vec<NamedColumn>> = scored
            .labels
            .iter()
            .map(|l| named_columns(&self.opts.query, l, &self.seed.page.title))
            .collect();
        let mut ranked: Vec<Ranked> = Vec::new();
        for (i, cands) in by_unit {
            let row_score = scored.own[*i];
            let mut row: Vec<Ranked> = Vec::new();
            for c in cands {
                if row.iter().any(|r| r.candidate.page == c.page) {
                    continue;
                }
                let (page_score, best) =
                    texts.score(self.searcher, c.page, &scored.residuals[*i])?;
                row.push(Ranked {
                    score: row_score + page_score,
                    row_score,
                    page_score,
                    best_sentence: best,
                    candidate: c.clone(),
                });
            }
            if self.opts.rules.named_page_identifies {
                row = self.drop_named_pages(row, rejected);
            }
            self.choose_in_row(row, &named, &mut ranked, rejected);
        }
        Ok(ranked)
    }

    /// A page the question names by its title ("the airport in the city of **Lviv**")
    /// is where the question starts from: it tells which row is meant, and the answer is
    /// on another page of the row. Kept when the row has no other page.
    fn drop_named_pages(&self, row: Vec<Ranked>, rejected: &mut Vec<Rejected>) -> Vec<Ranked> {
        let (named_pages, mut rest): (Vec<Ranked>, Vec<Ranked>) = row
            .into_iter()
            .partition(|r| names_title(&self.opts.query, &r.candidate.title));
        for r in named_pages {
            if rest.is_empty() {
                rest.push(r);
                continue;
            }
            rejected.push(reject(
                &r.candidate,
                r.score,
                "the question names this page: it identifies the row, and another page of the row holds the answer".into(),
            ));
        }
        rest
    }

    /// The page the question asks about: in the first column it names, else in the key
    /// column. Without a named column, another page of the row that matches the rest of
    /// the question better is kept too; with one, such a page only told which row was
    /// meant (the club "nicknamed Raposa" whose manager is asked for).
    fn choose_in_row(
        &self,
        row: Vec<Ranked>,
        named: &[Vec<NamedColumn>],
        ranked: &mut Vec<Ranked>,
        rejected: &mut Vec<Rejected>,
    ) {
        let asked = self.asked_in_row(&row, named);
        let primary = |r: &Ranked| match asked {
            Some(n) => r.candidate.linked_from.and_then(LinkedFrom::col) == Some(n.col),
            None => r.candidate.in_key_column,
        };
        let primary_best = row
            .iter()
            .filter(|r| primary(r))
            .map(|r| r.page_score)
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        let top = row.iter().map(|r| r.page_score).fold(0.0, f64::max);
        for r in row {
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

    /// The first column the question names that links one of the row's pages and whose
    /// cell is not itself what the question names it by.
    fn asked_in_row<'n>(
        &self,
        row: &[Ranked],
        named: &'n [Vec<NamedColumn>],
    ) -> Option<&'n NamedColumn> {
        let (tn, r) = row.iter().find_map(|r| match r.candidate.linked_from {
            Some(LinkedFrom::Cell { table, row, .. }) => Some((table, row)),
            _ => None,
        })?;
        let cells = &self.seed.rows(tn - 1).rows.get(r)?.cells;
        named.get(tn - 1)?.iter().find(|n| {
            let linked = row
                .iter()
                .any(|r| r.candidate.linked_from.and_then(LinkedFrom::col) == Some(n.col));
            let cell = cells.iter().find(|c| c.col == n.col);
            linked && cell.is_some_and(|c| n.named_in(&c.text))
        })
    }
}
