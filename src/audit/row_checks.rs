//! The row-level checks (1 citation gate, 2 row evidence, 3 claim type, 4 temporal
//! knowability, 6 schema, 7 normalization, 8 scope match, and the null part of 5), run
//! on one row at a time; rows are independent, so batches run in parallel.

use std::rc::Rc;

use super::checks::{Check, Severity};
use super::contract::{ColumnSpec, ColumnType, SourceCol};
use super::memo::{RowMemo, judged};
use super::numbers::DecimalMark;
use super::rows::{Format, RowItem, StagedRow, Value};
use super::values::{self, Evidence};
use super::{Ctx, Finding};
use crate::index::IndexError;
use crate::locator::{CellContent, Content, Locator, Resolution, Resolved};

/// What a row leaves for the table-level checks; serializable so that an audit in
/// pieces can ship it to the stage that runs them ([`super::pieces`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RowSummary {
    pub number: usize,
    pub line: u64,
    pub key: Option<String>,
    /// Identity for uniqueness: folded key values, names merged through redirects; `None`
    /// when a key value is missing.
    pub identity: Option<String>,
    /// The first key column, folded, and the page it names (for cardinality).
    pub first_key: Option<String>,
    pub first_key_page: Option<u32>,
    /// The row's source page: its final page number, or the title when it has none.
    pub source: Option<Result<u32, String>>,
    pub blocked: bool,
}

/// (uniqueness identity, first key folded, the page the first key names).
type KeyIdentity = (Option<String>, Option<String>, Option<u32>);

pub(crate) struct RowOutcome {
    pub findings: Vec<Finding>,
    pub summary: RowSummary,
}

/// Findings about the CSV header itself (declared columns it lacks), reported once.
pub(crate) fn header_findings(ctx: &Ctx<'_>, header: &[String], format: Format) -> Vec<Finding> {
    if format != Format::Csv {
        return Vec::new();
    }
    let mut out = Vec::new();
    for want in ["source_page", "locator"] {
        if !header.iter().any(|h| h == want) {
            let mut f = ctx.finding(
                Check::Schema,
                format!("the CSV header has no {want:?} column"),
            );
            f.line = Some(1);
            out.push(f);
        }
    }
    for c in &ctx.contract.columns {
        if !header.contains(&c.name) {
            let mut f = ctx.finding(
                Check::Schema,
                format!("the CSV header has no column {:?}", c.name),
            );
            f.line = Some(1);
            out.push(f);
        }
    }
    out
}

/// Runs the row-level checks on one record; `memo` holds what the rows checked before it
/// by the same worker share with it.
pub(crate) fn check(
    ctx: &Ctx<'_>,
    item: &RowItem,
    format: Format,
    memo: &mut RowMemo,
) -> Result<RowOutcome, IndexError> {
    let row = match item {
        RowItem::Row(r) => r,
        RowItem::Bad {
            number,
            line,
            message,
        } => {
            let mut f = ctx.finding(Check::Schema, message.clone());
            f.row = Some(*number);
            f.line = Some(*line);
            return Ok(RowOutcome {
                findings: vec![f],
                summary: RowSummary {
                    number: *number,
                    line: *line,
                    blocked: true,
                    ..Default::default()
                },
            });
        }
    };
    let mut rc = RowCheck {
        ctx,
        row,
        values: ctx.values_of(row),
        key: key_display(ctx, row),
        findings: Vec::new(),
    };
    let summary = rc.run(format, memo)?;
    let mut findings = rc.findings;
    findings.sort_by_key(|f| f.check);
    let blocked = findings.iter().any(|f| f.severity == Severity::Blocking);
    Ok(RowOutcome {
        findings,
        summary: RowSummary { blocked, ..summary },
    })
}

fn key_display(ctx: &Ctx<'_>, row: &StagedRow) -> Option<String> {
    let parts: Vec<String> = ctx
        .contract
        .primary_key
        .iter()
        .map(|k| {
            let sep = ctx.column(k).map_or("; ", ColumnSpec::separator);
            row.values.get(k).map(|v| v.joined(sep)).unwrap_or_default()
        })
        .collect();
    parts
        .iter()
        .any(|p| !p.is_empty())
        .then(|| parts.join(" | "))
}

struct RowCheck<'c, 'a> {
    ctx: &'c Ctx<'a>,
    row: &'c StagedRow,
    /// The row's value of each contract column ([`Ctx::values_of`]).
    values: Vec<Option<&'c Value>>,
    key: Option<String>,
    findings: Vec<Finding>,
}

impl RowCheck<'_, '_> {
    fn add(&mut self, check: Check, message: String) -> &mut Finding {
        let mut f = self.ctx.finding(check, message);
        f.row = Some(self.row.number);
        f.line = Some(self.row.line);
        f.key = self.key.clone();
        f.locator = self.row.locator.clone();
        self.findings.push(f);
        self.findings.last_mut().expect("just pushed")
    }

    fn run(&mut self, format: Format, memo: &mut RowMemo) -> Result<RowSummary, IndexError> {
        let ctx = self.ctx;
        let row = self.row;
        self.schema(format);
        self.normalization();
        self.claim_types();
        let (identity, first_key, first_key_page) = self.key_identity(memo)?;
        let source = match &row.source_page {
            Some(p) => Some(match memo.titles.page_of(ctx, p)? {
                Some(n) => Ok(n),
                None => Err(p.clone()),
            }),
            None => None,
        };
        let loc = self.citation_gate(&source, memo)?;
        // A parsed locator means the row has both.
        let resolved = match (&loc, &row.locator, &row.source_page) {
            (Some(l), Some(raw), Some(page)) => self.row_evidence(l, (raw, page), memo)?,
            _ => None,
        };
        if let Some(r) = &resolved {
            self.temporal(r, loc.as_deref());
        }
        self.scope(resolved.as_deref());
        Ok(RowSummary {
            number: row.number,
            line: row.line,
            key: self.key.clone(),
            identity,
            first_key,
            first_key_page,
            source,
            blocked: false,
        })
    }

    /// Check 6: declared columns present, values of their type, no undeclared columns.
    fn schema(&mut self, format: Format) {
        let row = self.row;
        for p in &row.problems {
            self.add(Check::Schema, p.clone());
        }
        let ctx = self.ctx;
        for (ci, c) in ctx.contract.columns.iter().enumerate() {
            match self.values[ci] {
                None if format == Format::Csv => {} // reported once, from the header
                // A missing key is reported once, by the key check.
                None if !c.optional && !self.ctx.is_key(&c.name) => {
                    self.add(Check::Schema, format!("missing column {:?}", c.name));
                }
                Some(v) if v.is_empty() && !c.optional && !self.ctx.is_key(&c.name) => {
                    self.add(Check::Schema, format!("column {:?} is empty", c.name));
                }
                Some(v) if v.is_empty() => {}
                Some(v) => {
                    if let Some(why) = type_error(c, v, self.ctx.mark) {
                        self.add(Check::Schema, why);
                    }
                }
                None => {}
            }
        }
        for name in row.values.keys() {
            if self.ctx.column(name).is_none() {
                self.add(Check::Schema, format!("undeclared column {name:?}"))
                    .severity = Severity::Hygiene;
            }
        }
        for name in row.cell_locators.keys() {
            if self.ctx.column(name).is_none() {
                self.add(
                    Check::Schema,
                    format!("a cell locator for undeclared column {name:?}"),
                );
            }
        }
    }

    /// Check 7: canonical spellings (numbers without separators and in the column's
    /// unit, ISO dates, the declared list separator, trimmed text).
    fn normalization(&mut self) {
        let ctx = self.ctx;
        for (ci, c) in ctx.contract.columns.iter().enumerate() {
            let Some(v) = self.values[ci] else {
                continue;
            };
            let why = match (c.kind, v) {
                (_, Value::Null) => None,
                (ColumnType::Number, Value::Text(t)) => (!t.trim().is_empty()
                    && values::parse_number_unit_in(t, self.ctx.mark).is_some()
                    && !values::is_canonical_number(t, c.unit.as_deref()))
                .then(|| {
                    format!(
                        "{}: {t:?} is not canonical (write digits with '.' for decimals{})",
                        c.name,
                        c.unit
                            .as_deref()
                            .map(|u| format!(", optionally followed by \" {u}\""))
                            .unwrap_or_default()
                    )
                }),
                (ColumnType::Date, Value::Text(t)) => (values::parse_date(t).is_some()
                    && values::parse_date_strict(t).is_none())
                .then(|| format!("{}: {t:?} is not an ISO date (YYYY-MM-DD)", c.name)),
                (ColumnType::List, Value::Text(t)) => {
                    let sep = c.separator();
                    let parts: Vec<&str> = t.split(sep.trim()).collect();
                    let canonical = parts.join(sep.trim()) == t.as_str()
                        && t.split(sep.trim())
                            .skip(1)
                            .all(|p| p.starts_with(&sep[sep.trim_end().len()..]))
                        && parts
                            .iter()
                            .all(|p| !p.trim().is_empty() && p.trim() == p.trim_matches(' '));
                    let other = [",", ";", "/", "\n"]
                        .iter()
                        .find(|s| **s != sep.trim() && t.contains(**s));
                    match other {
                        Some(s) => Some(format!(
                            "{}: {t:?} separates items with {s:?}; the declared separator is {sep:?}",
                            c.name
                        )),
                        None => (!canonical).then(|| {
                            format!("{}: {t:?} does not join its items with {sep:?}", c.name)
                        }),
                    }
                }
                (_, Value::Text(t)) => (t.trim() != t
                    || t.contains("  ")
                    || t.contains('\n')
                    || (t.contains(['[', ']', '{', '}', '\''])
                        && ["[[", "]]", "{{", "}}", "''"].iter().any(|m| t.contains(m))))
                .then(|| format!("{}: {t:?} has stray whitespace or wiki markup", c.name)),
                (_, Value::Items(items)) => items
                    .iter()
                    .any(|i| i.trim() != i || i.is_empty())
                    .then(|| {
                        format!(
                            "{}: list items with stray whitespace or empty items",
                            c.name
                        )
                    }),
            };
            if let Some(why) = why {
                self.add(Check::Normalization, why);
            }
        }
    }

    /// Check 3: per-row claim types name declared columns and valid kinds, and do not
    /// turn a derived or inferred column into an extracted one without a cell locator.
    fn claim_types(&mut self) {
        use super::contract::Claim;
        for (col, kind) in &self.row.claims {
            let Some(spec) = self.ctx.column(col) else {
                self.add(
                    Check::ClaimType,
                    format!("claim type for undeclared column {col:?}"),
                );
                continue;
            };
            match Claim::parse(kind) {
                None => {
                    self.add(
                        Check::ClaimType,
                        format!("{col}: claim type {kind:?} is not extracted, derived or inferred"),
                    );
                }
                Some(Claim::Extracted)
                    if spec.claim != Claim::Extracted
                        && !self.row.cell_locators.contains_key(col) =>
                {
                    self.add(
                        Check::ClaimType,
                        format!(
                            "{col}: marked extracted in this row but {:?} in the contract, without a cell locator to extract it from",
                            spec.claim
                        ),
                    );
                }
                Some(_) => {}
            }
        }
    }

    /// The claim type of a column in this row.
    fn claim_of(&self, c: &ColumnSpec) -> super::contract::Claim {
        self.row
            .claims
            .get(&c.name)
            .and_then(|k| super::contract::Claim::parse(k))
            .unwrap_or(c.claim)
    }

    /// Key identity (check 5's null part here; uniqueness is table-level).
    fn key_identity(&mut self, memo: &mut RowMemo) -> Result<KeyIdentity, IndexError> {
        let mut parts = Vec::new();
        let mut first = None;
        let mut first_page = None;
        for (i, k) in self.ctx.contract.primary_key.iter().enumerate() {
            let spec = self.ctx.column(k);
            let v = self.row.values.get(k).cloned().unwrap_or(Value::Null);
            if v.is_empty() {
                self.add(
                    Check::KeyIntegrity,
                    format!("primary key column {k:?} is null"),
                );
                return Ok((None, None, None));
            }
            let sep = spec.map_or("; ", ColumnSpec::separator);
            let text = v.joined(sep);
            let folded = memo.folds.fold(&text);
            let page = if spec.is_some_and(|s| s.kind == ColumnType::Text) {
                memo.titles.page_of(self.ctx, text.trim())?
            } else {
                None
            };
            if i == 0 {
                first = Some(folded.clone());
                first_page = page;
            }
            parts.push(match page {
                Some(n) => format!("page:{n}"),
                None => format!("text:{folded}"),
            });
        }
        Ok((Some(parts.join("\u{1f}")), first, first_page))
    }

    /// Check 1: a source page and a locator below page level, naming that page.
    fn citation_gate(
        &mut self,
        source: &Option<Result<u32, String>>,
        memo: &mut RowMemo,
    ) -> Result<Option<Rc<Locator>>, IndexError> {
        let row = self.row;
        let Some(page) = &row.source_page else {
            self.add(Check::CitationGate, "no source_page".into());
            return Ok(None);
        };
        let Some(raw) = &row.locator else {
            self.add(
                Check::CitationGate,
                format!("no locator: the row cites {page:?} but not where in it"),
            );
            return Ok(None);
        };
        let memo = memo.locators.get(raw, page);
        let loc = match &memo.parsed {
            Ok(l) => l.clone(),
            Err(e) => {
                self.add(Check::CitationGate, format!("unparseable locator: {e}"));
                return Ok(None);
            }
        };
        if !loc.is_below_page() {
            self.add(
                Check::CitationGate,
                "the locator names only a page; name a section, table row, field, sentence or quote"
                    .into(),
            );
            return Ok(None);
        }
        // A full locator must cite the row's source page (possibly through a redirect).
        if let Some(spec) = &loc.page
            && spec.title.as_deref() != Some(page)
        {
            let theirs = memo.named_page(self.ctx)?;
            if let (Some(Ok(mine)), Some(theirs)) = (source, theirs)
                && *mine != theirs
            {
                self.add(
                    Check::CitationGate,
                    format!(
                        "the locator names page {:?}, not the row's source_page {page:?}",
                        spec.title.clone().unwrap_or_else(|| {
                            crate::index::Index::ids_label(spec.curid, spec.oldid)
                        })
                    ),
                );
            }
        }
        for (col, l) in &row.cell_locators {
            if let Err(e) = crate::locator::parse_relative(l, page) {
                self.add(
                    Check::CitationGate,
                    format!("unparseable cell locator for {col:?}: {e}"),
                );
            }
        }
        Ok(Some(loc))
    }

    /// Check 2: the locator resolves, and its content alone states every extracted cell.
    /// `loc` is the row's locator `raw` parsed against its source page `page`.
    fn row_evidence(
        &mut self,
        loc: &Locator,
        (raw, page): (&str, &str),
        memo: &mut RowMemo,
    ) -> Result<Option<Rc<Resolved>>, IndexError> {
        let ctx = self.ctx;
        let row = self.row;
        let RowMemo {
            titles, locators, ..
        } = memo;
        let entry = locators.get(raw, page);
        let resolved = match entry.resolve(ctx, loc)? {
            Ok(r) => r,
            Err(u) => {
                self.add(
                    Check::RowEvidence,
                    format!("the locator does not resolve: {u}"),
                );
                return Ok(None);
            }
        };
        if let Content::Table { .. } = &resolved.content {
            self.add(
                Check::RowEvidence,
                "the locator names a whole table; name the row (row:R)".into(),
            );
            return Ok(Some(resolved));
        }
        let resolve_name = |name: &str| -> Option<u32> { titles.page_of(ctx, name).ok().flatten() };
        // Values the row's own locator does not support: one finding for the row.
        let mut unsupported = Vec::new();
        for (ci, c) in ctx.contract.columns.iter().enumerate() {
            if self.claim_of(c) != super::contract::Claim::Extracted {
                continue;
            }
            let Some(v) = self.values[ci] else {
                continue;
            };
            if v.is_empty() {
                continue;
            }
            let value = v.joined(c.separator());
            // A per-cell locator overrides the row's.
            let cell_res;
            let own = !row.cell_locators.contains_key(&c.name);
            // Excerpts are made only for findings: most rows have none.
            let content = match row.cell_locators.get(&c.name) {
                Some(l) => {
                    let Ok(cl) =
                        crate::locator::parse_relative(l, row.source_page.as_deref().unwrap_or(""))
                    else {
                        continue; // reported by the citation gate
                    };
                    match ctx.resolver.resolve(&cl)? {
                        Resolution::Found(r) => {
                            cell_res = r;
                            &cell_res.content
                        }
                        Resolution::Unresolved(u) => {
                            self.add(
                                Check::RowEvidence,
                                format!("{}: the cell locator does not resolve: {u}", c.name),
                            )
                            .locator = Some(l.clone());
                            continue;
                        }
                    }
                }
                None => &resolved.content,
            };
            let candidates = match evidence_for(c, content) {
                Ok(x) => x,
                Err(why) => {
                    self.add(Check::RowEvidence, why).evidence = Some(content.excerpt());
                    continue;
                }
            };
            let spelling = values::Spelling {
                separator: c.separator(),
                mark: ctx.mark,
            };
            // The row locator's rows share its evidence: each staged value is judged once.
            let verdicts = judged(own.then_some(&mut *entry), ci, &value, || {
                candidates
                    .iter()
                    .map(|e| values::supports(c.kind, &value, &spelling, e, &resolve_name))
                    .collect()
            });
            if !verdicts.iter().any(|v| v.stated) {
                let shown = cell_says(&candidates, &verdicts);
                let what = format!("{} = {value:?}{shown}", c.name);
                if own {
                    unsupported.push(what);
                } else {
                    let l = row.cell_locators.get(&c.name).cloned();
                    let f = self.add(
                        Check::RowEvidence,
                        format!("{what} is not stated by the cell locator's evidence"),
                    );
                    f.evidence = Some(content.excerpt());
                    f.locator = l;
                }
            }
        }
        if !unsupported.is_empty() {
            let verb = if unsupported.len() == 1 { "is" } else { "are" };
            self.add(
                Check::RowEvidence,
                format!(
                    "{} {verb} not stated by the evidence",
                    unsupported.join("; ")
                ),
            )
            .evidence = Some(entry.excerpt(&resolved));
        }
        Ok(Some(resolved))
    }

    /// Check 4: the evidence revision is not after the as-of date; time-varying values
    /// are pinned to a revision or date.
    fn temporal(&mut self, r: &Resolved, loc: Option<&Locator>) {
        let as_of = self
            .row
            .as_of
            .as_deref()
            .and_then(values::parse_date_strict)
            .or(self.ctx.as_of);
        if let Some(d) = as_of
            && let Some(end) = end_of(d)
            && r.timestamp > end
        {
            let when = time::OffsetDateTime::from_unix_timestamp(r.timestamp)
                .map(|t| t.date().to_string())
                .unwrap_or_default();
            self.add(
                Check::Temporal,
                format!(
                    "the evidence is revision {} of {when}, after the as-of date {}",
                    r.rev_id,
                    fmt_date(d)
                ),
            );
        }
        if let Some(o) = r.other_revision {
            self.add(
                Check::Temporal,
                format!(
                    "the locator names revision {o}; the index holds revision {}, which was checked instead",
                    r.rev_id
                ),
            )
            .severity = Severity::Advisory;
        }
        let pinned = self.row.as_of.is_some()
            || loc.is_some_and(|l| l.page.as_ref().is_some_and(|p| p.oldid.is_some()));
        if !pinned {
            let unpinned: Vec<&str> = self
                .ctx
                .contract
                .columns
                .iter()
                .filter(|c| {
                    c.time_varying && self.row.values.get(&c.name).is_some_and(|v| !v.is_empty())
                })
                .map(|c| c.name.as_str())
                .collect();
            if !unpinned.is_empty() {
                self.add(
                    Check::Temporal,
                    format!(
                        "time-varying value(s) {} not pinned: give the locator an oldid or the row an as_of date",
                        unpinned.join(", ")
                    ),
                );
            }
        }
    }

    /// Check 8: the row satisfies the scope filters, and its partition labels are
    /// declared and unambiguous given the evidence.
    fn scope(&mut self, resolved: Option<&Resolved>) {
        let ctx = self.ctx;
        for f in &ctx.filters {
            let Some(v) = self.row.values.get(&f.column).filter(|v| !v.is_empty()) else {
                continue;
            };
            let text = v.joined("; ");
            match f.test(&text, true) {
                Some(true) => {}
                Some(false) => {
                    self.add(
                        Check::ScopeMatch,
                        format!(
                            "{} = {text:?} is outside the scope filter {:?}",
                            f.column, f.text
                        ),
                    );
                }
                None => {
                    self.add(
                        Check::ScopeMatch,
                        format!(
                            "{} = {text:?} cannot be compared with the filter {:?}",
                            f.column, f.text
                        ),
                    );
                }
            }
        }
        for p in &ctx.contract.scope.partitions {
            let Some(v) = self.row.values.get(&p.column).filter(|v| !v.is_empty()) else {
                continue;
            };
            let label = v.joined("; ");
            let folded = values::fold(&label);
            if !p.labels.iter().any(|l| values::fold(l) == folded) {
                self.add(
                    Check::ScopeMatch,
                    format!(
                        "{} = {label:?} is not one of the partition labels ({})",
                        p.column,
                        p.labels.join(", ")
                    ),
                );
                continue;
            }
            let Some(r) = resolved else { continue };
            let Some(spec) = ctx.column(&p.column) else {
                continue;
            };
            let ev_text: Vec<String> = match evidence_for(spec, &r.content) {
                Ok(c) if c.len() == 1 || !c.iter().any(|e| e.cell) => {
                    c.iter().map(|e| e.text.to_string()).collect()
                }
                _ => continue,
            };
            let named: Vec<&str> = ev_text
                .iter()
                .flat_map(|t| values::labels_named(t, &p.labels))
                .collect();
            if named.len() > 1 {
                // A label the row marks as an inferred choice is a judgement the curator
                // owns: still reported, as advisory.
                let inferred = self.claim_of(spec) == super::contract::Claim::Inferred;
                let f = self.add(
                    Check::ScopeMatch,
                    format!(
                        "{} = {label:?}, but the evidence places the row in {} partitions ({}): the label is ambiguous",
                        p.column,
                        named.len(),
                        named.join(", ")
                    ),
                );
                f.evidence = Some(r.content.excerpt());
                if inferred {
                    f.severity = Severity::Advisory;
                }
            }
        }
    }
}
/// What a single cell said, and why it does not state the value, for a finding.
fn cell_says(candidates: &[Evidence<'_>], verdicts: &[values::Verdict]) -> String {
    match (candidates, verdicts) {
        ([one], [v]) if one.cell => format!(
            " (the cell says {:?}{})",
            one.text,
            v.rule
                .refusal()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
        _ => String::new(),
    }
}

/// The evidence a column is checked against, from the located content.
fn evidence_for<'c>(c: &ColumnSpec, content: &'c Content) -> Result<Vec<Evidence<'c>>, String> {
    let cell_ev = |x: &'c CellContent| Evidence {
        text: &x.text,
        links: &x.link_pages,
        cell: true,
    };
    let pick = |cells: &'c [CellContent], sc: &SourceCol| -> Result<&'c CellContent, String> {
        let p = sc.position(cells.iter().map(|x| x.label.as_deref()));
        match p {
            Ok(i) if i < cells.len() => Ok(&cells[i]),
            other => Err(other.err().map(|m| m.describe()).unwrap_or_default()),
        }
    };
    Ok(match content {
        Content::Row { cells, .. } => match &c.source_col {
            Some(sc) => match pick(cells, sc) {
                Ok(x) => vec![cell_ev(x)],
                Err(why) => {
                    return Err(format!(
                        "{}: the located table has no column {}{why}",
                        c.name,
                        match sc {
                            SourceCol::Index(i) => i.to_string(),
                            SourceCol::Header(h) => format!("{h:?}"),
                        }
                    ));
                }
            },
            None => cells.iter().map(cell_ev).collect(),
        },
        Content::Cell {
            cell, row_cells, ..
        } => match c.source_col.as_ref().map(|sc| pick(row_cells, sc)) {
            Some(Ok(x)) => vec![cell_ev(x)],
            _ => vec![cell_ev(cell)],
        },
        Content::Field { value, .. } => vec![Evidence {
            text: value,
            links: &[],
            cell: false,
        }],
        Content::Item {
            text, link_pages, ..
        } => vec![Evidence {
            text,
            links: link_pages,
            cell: false,
        }],
        Content::Text { text } | Content::Sentence { text, .. } => vec![Evidence {
            text,
            links: &[],
            cell: false,
        }],
        Content::Table { .. } => Vec::new(),
    })
}

fn type_error(c: &ColumnSpec, v: &Value, mark: DecimalMark) -> Option<String> {
    match (c.kind, v) {
        (ColumnType::List, _) | (_, Value::Null) => None,
        (_, Value::Items(_)) => Some(format!(
            "{}: a list where a single {:?} value is declared",
            c.name, c.kind
        )),
        // A currency or percent sign is part of the figure; a unit word is not.
        (ColumnType::Number, Value::Text(t)) => match super::numbers::parse_amount(t, mark) {
            None => Some(format!("{}: {t:?} is not a number", c.name)),
            Some(a) if a.unit.is_some() && c.unit.is_none() => Some(format!(
                "{}: {t:?} has a unit, but the column declares none",
                c.name
            )),
            _ => None,
        },
        (ColumnType::Date, Value::Text(t)) => values::parse_date(t)
            .is_none()
            .then(|| format!("{}: {t:?} is not a date", c.name)),
        (ColumnType::Text, _) => None,
    }
}

/// Unix seconds at the end of a (possibly partial) date, UTC.
fn end_of(d: values::Date) -> Option<i64> {
    let month = d.month.unwrap_or(12);
    let m = time::Month::try_from(month).ok()?;
    let day = match d.day {
        Some(x) => x,
        None => m.length(d.year),
    };
    let date = time::Date::from_calendar_date(d.year, m, day).ok()?;
    Some(
        date.with_hms(23, 59, 59)
            .ok()?
            .assume_utc()
            .unix_timestamp(),
    )
}

fn fmt_date(d: values::Date) -> String {
    match (d.month, d.day) {
        (Some(m), Some(x)) => format!("{:04}-{m:02}-{x:02}", d.year),
        (Some(m), None) => format!("{:04}-{m:02}", d.year),
        _ => format!("{:04}", d.year),
    }
}
