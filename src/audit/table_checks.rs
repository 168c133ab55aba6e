//! The table-level checks: 5 key uniqueness, 9 cardinality, 10 source-role coverage,
//! 11 operator provenance, 12 exhaustiveness. They see the whole table through what the
//! rows left behind, plus the contract's sources: a single audit streams it from its
//! spilled summaries (`super::summaries`) and marks the count source's items in a
//! [`Coverage`]; the audit in pieces folds each group's rows into a [`TableState`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};

use super::checks::{Check, Severity};
use super::count::{Item, ItemCount};
use super::row_checks::RowSummary;
use super::{Ctx, Finding, values};
use crate::index::IndexError;
use crate::locator::{Content, Resolution, Target};

/// A duplicate key: the row, and the earlier row with the same key.
pub(crate) struct Duplicate {
    pub row: usize,
    pub line: u64,
    pub key: Option<String>,
    pub first_row: usize,
    pub first_line: u64,
}

/// The key identity's hash: uniqueness is decided on it, and an audit in pieces groups
/// rows by it, so that equal keys always meet in one group.
pub(crate) fn identity_hash(identity: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    identity.hash(&mut h);
    h.finish()
}

#[derive(Default)]
pub(crate) struct TableState {
    /// Key identity hash → first row. A 64-bit SipHash (fixed keys, deterministic):
    /// a collision among a million keys has probability ~3·10⁻⁸.
    keys: HashMap<u64, (usize, u64)>,
    duplicates: Vec<Duplicate>,
    first_keys: HashSet<String>,
    first_pages: HashSet<u32>,
    /// Source page (final page number, or title without a page) → first row citing it.
    sources: BTreeMap<Result<u32, String>, usize>,
}

impl TableState {
    pub fn add(&mut self, s: RowSummary) {
        if let Some(id) = &s.identity {
            match self.keys.entry(identity_hash(id)) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    let (first_row, first_line) = *e.get();
                    self.duplicates.push(Duplicate {
                        row: s.number,
                        line: s.line,
                        key: s.key.clone(),
                        first_row,
                        first_line,
                    });
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert((s.number, s.line));
                }
            }
        }
        if let Some(k) = s.first_key {
            self.first_keys.insert(k);
        }
        if let Some(p) = s.first_key_page {
            self.first_pages.insert(p);
        }
        if let Some(src) = s.source {
            self.sources.entry(src).or_insert(s.number);
        }
    }
}

/// What the whole-table checks (cardinality, provenance) need from one group of rows:
/// sets that merge by union whatever the grouping, so duplicate detection can run per key
/// group while these are folded once ([`super::pieces`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TablePart {
    pub first_keys: Vec<String>,
    pub first_pages: Vec<u32>,
    /// Source page → first row of the group citing it.
    pub sources: Vec<(Result<u32, String>, usize)>,
}

impl TableState {
    /// The group's sets for the whole-table checks; the first keys and pages only when
    /// the cardinality check has a count source to compare them with.
    pub fn part(&self, ctx: &Ctx<'_>) -> TablePart {
        let counted = count_locator(ctx).is_some();
        let mut first_keys: Vec<String> = Vec::new();
        let mut first_pages: Vec<u32> = Vec::new();
        if counted {
            first_keys = self.first_keys.iter().cloned().collect();
            first_keys.sort_unstable();
            first_pages = self.first_pages.iter().copied().collect();
            first_pages.sort_unstable();
        }
        TablePart {
            first_keys,
            first_pages,
            sources: self.sources.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        }
    }

    /// Folds in another group's sets (a source keeps its earliest citing row).
    pub(crate) fn absorb(&mut self, part: TablePart) {
        self.first_keys.extend(part.first_keys);
        self.first_pages.extend(part.first_pages);
        for (src, row) in part.sources {
            let first = self.sources.entry(src).or_insert(row);
            *first = (*first).min(row);
        }
    }
}

/// Runs the table-level checks; `rows` is the number of records read.
pub fn run(ctx: &Ctx<'_>, state: &TableState, rows: usize) -> Result<Vec<Finding>, IndexError> {
    let mut out = key_findings(ctx, state);
    out.extend(whole_table_of(ctx, state, rows)?);
    Ok(out)
}

/// Check 5's finding for row `d.row`, whose key row `d.first_row` holds.
pub(crate) fn duplicate_finding(ctx: &Ctx<'_>, d: Duplicate) -> Finding {
    let mut f = ctx.finding(
        Check::KeyIntegrity,
        format!(
            "duplicate primary key (after normalization and redirects): same as row {} (line {})",
            d.first_row, d.first_line
        ),
    );
    f.row = Some(d.row);
    f.line = Some(d.line);
    f.key = d.key;
    f
}

/// Check 5 over the rows folded into `state`: complete for every key whose rows were all
/// folded there.
pub(crate) fn key_findings(ctx: &Ctx<'_>, state: &TableState) -> Vec<Finding> {
    state
        .duplicates
        .iter()
        .map(|d| {
            duplicate_finding(
                ctx,
                Duplicate {
                    key: d.key.clone(),
                    ..*d
                },
            )
        })
        .collect()
}

/// Checks 9–12 over `state`'s sets (and the contract).
pub(crate) fn whole_table_of(
    ctx: &Ctx<'_>,
    state: &TableState,
    rows: usize,
) -> Result<Vec<Finding>, IndexError> {
    let count = CountSource::read(ctx)?;
    let covered = |it: &Item| {
        state.first_keys.contains(&values::fold(&it.key))
            || it.pages.iter().any(|p| state.first_pages.contains(p))
    };
    let sources = state.sources.iter().map(|(s, &row)| {
        Ok(Cited {
            source: s.clone(),
            row,
            blocked: false,
        })
    });
    let mut out = Vec::new();
    let table = Table {
        rows,
        count: count.as_ref(),
        covered: &|_, it| covered(it),
    };
    whole_table(ctx, &table, sources, &mut |f, _| {
        out.push(f);
        Ok::<(), IndexError>(())
    })?;
    Ok(out)
}

/// The whole table as checks 9–12 see it.
pub(crate) struct Table<'t> {
    /// Records read.
    pub rows: usize,
    pub count: Option<&'t CountSource>,
    /// Whether the rows stage the count source's item (its index, the item).
    pub covered: &'t dyn Fn(usize, &Item) -> bool,
}

/// A source page with the first row citing it (`blocked`: that row has a blocking
/// finding already).
pub(crate) struct Cited {
    pub source: Result<u32, String>,
    pub row: usize,
    pub blocked: bool,
}

/// Checks 9–12: each finding goes to `emit` as it is found, in the order the audit has
/// always written them (cardinality, coverage, provenance, exhaustiveness), with whether
/// its row was blocked already. `sources` are the cited pages in order.
pub(crate) fn whole_table<E: From<IndexError>>(
    ctx: &Ctx<'_>,
    table: &Table<'_>,
    sources: impl Iterator<Item = Result<Cited, E>>,
    emit: &mut dyn FnMut(Finding, bool) -> Result<(), E>,
) -> Result<(), E> {
    let mut out = Vec::new();
    cardinality(ctx, table, &mut out);
    let resolved_sources = self::sources(ctx, &mut out)?;
    for f in out {
        emit(f, false)?;
    }
    provenance(ctx, sources, &resolved_sources, emit)?;
    let mut out = Vec::new();
    exhaustiveness(ctx, &resolved_sources, &mut out);
    for f in out {
        emit(f, false)?;
    }
    Ok(())
}

/// A contract source, resolved.
struct Source {
    index: usize,
    /// Final page number.
    page: Option<u32>,
    content: Option<Content>,
    list_page: bool,
}

/// The count source (the scope's `count_source`, else the first `count` or `list` source
/// citing a table) and its items, counted once: what check 9 compares the rows with.
pub(crate) struct CountSource {
    locator: String,
    counted: Result<ItemCount, String>,
}

impl CountSource {
    pub fn read(ctx: &Ctx<'_>) -> Result<Option<CountSource>, IndexError> {
        let Some(src) = count_locator(ctx) else {
            return Ok(None);
        };
        let Ok(loc) = crate::locator::parse(&src) else {
            return Ok(None); // validated with the contract
        };
        let key_col = ctx
            .contract
            .primary_key
            .first()
            .and_then(|k| ctx.contract.column(k))
            .and_then(|c| c.source_col.clone());
        Ok(Some(CountSource {
            counted: super::count_items(&ctx.resolver, &loc, key_col.as_ref())?,
            locator: src,
        }))
    }

    /// The counted items (none when the source cannot be counted).
    pub fn items(&self) -> &[Item] {
        self.counted.as_ref().map_or(&[], |c| &c.items)
    }
}

/// The count source's items by what a row stages them with (its first key, folded, or
/// the page that key names), so that a streaming audit can mark the items it sees row
/// by row: memory grows with the count source, never with the rows.
pub(crate) struct Coverage {
    by_key: HashMap<String, Vec<u32>>,
    by_page: HashMap<u32, Vec<u32>>,
}

impl Coverage {
    pub fn new(items: &[Item]) -> Coverage {
        let mut by_key: HashMap<String, Vec<u32>> = HashMap::new();
        let mut by_page: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, it) in items.iter().enumerate() {
            by_key
                .entry(values::fold(&it.key))
                .or_default()
                .push(i as u32);
            for &p in &it.pages {
                by_page.entry(p).or_default().push(i as u32);
            }
        }
        Coverage { by_key, by_page }
    }

    /// The items a row with this first key (folded) and key page stages.
    pub fn staged_by<'c>(
        &'c self,
        first_key: Option<&str>,
        first_page: Option<u32>,
    ) -> impl Iterator<Item = u32> + 'c {
        let by_key = first_key.and_then(|k| self.by_key.get(k));
        let by_page = first_page.and_then(|p| self.by_page.get(&p));
        by_key.into_iter().chain(by_page).flatten().copied()
    }
}

/// Check 9: the row count against the declared count or the count source's items
/// (filtered by the scope filters the source's columns allow).
fn cardinality(ctx: &Ctx<'_>, table: &Table<'_>, out: &mut Vec<Finding>) {
    let scope = &ctx.contract.scope;
    let rows = table.rows;
    let sample_note = |f: &mut Finding| {
        if !scope.exhaustive {
            f.severity = Severity::Advisory;
        }
    };
    if let Some(n) = scope.count {
        let n = n as usize;
        if (scope.exhaustive && rows != n) || rows > n {
            let mut f = ctx.finding(
                Check::Cardinality,
                format!("{rows} row(s), but the contract declares {n} answer(s)"),
            );
            sample_note(&mut f);
            out.push(f);
        }
    }
    let Some(source) = table.count else {
        return;
    };
    let src = &source.locator;
    let counted = match &source.counted {
        Ok(c) => c,
        Err(why) => {
            let mut f = ctx.finding(
                Check::Cardinality,
                format!("the count source {src:?} cannot be counted: {why}"),
            );
            f.locator = Some(src.clone());
            out.push(f);
            return;
        }
    };
    let (items, unapplied) = scope_filtered(ctx, &counted.items);
    let expected = items.len();
    let filtered = if ctx.filters.is_empty() || unapplied.len() == ctx.filters.len() {
        String::new()
    } else {
        format!(" ({} before the scope filters)", counted.items.len())
    };
    let missing: Vec<&str> = items
        .iter()
        .filter(|(i, it)| !(table.covered)(*i, it))
        .map(|(_, it)| it.key.as_str())
        .collect();
    let wrong = if scope.exhaustive {
        rows != expected || !missing.is_empty()
    } else {
        rows > expected
    };
    if wrong {
        let mut msg = format!(
            "{rows} row(s), but {} of {:?} has {expected} item(s){filtered}",
            counted.what, counted.page
        );
        if !missing.is_empty() {
            const SHOWN: usize = 10;
            msg.push_str(&format!(
                "; not staged: {}{}",
                missing[..missing.len().min(SHOWN)].join(", "),
                if missing.len() > SHOWN {
                    format!(" and {} more", missing.len() - SHOWN)
                } else {
                    String::new()
                }
            ));
        }
        if !unapplied.is_empty() {
            msg.push_str(&format!(
                "; filters not applied to the source (no source_col): {}",
                unapplied.join(", ")
            ));
        }
        let mut f = ctx.finding(Check::Cardinality, msg);
        f.locator = Some(src.clone());
        sample_note(&mut f);
        out.push(f);
    }
}

/// The locator whose items the row count is compared with: the scope's count source, else
/// the first `count` or `list` source that cites a table.
fn count_locator(ctx: &Ctx<'_>) -> Option<String> {
    ctx.contract.scope.count_source.clone().or_else(|| {
        ctx.contract
            .sources
            .iter()
            .find(|s| {
                matches!(s.role.as_deref(), Some("count" | "list"))
                    && s.locator.as_ref().is_some_and(|l| l.contains("table:"))
            })
            .and_then(|s| {
                crate::locator::parse_relative(s.locator.as_deref()?, &s.page)
                    .ok()
                    .map(|l| l.to_string())
            })
    })
}

/// The count source's items that pass the scope filters whose column maps to a source
/// column, and the filters that could not be applied (no `source_col`).
fn scope_filtered<'i>(ctx: &Ctx<'_>, all: &'i [Item]) -> (Vec<(usize, &'i Item)>, Vec<String>) {
    let mut unapplied = Vec::new();
    let mut items = Vec::new();
    'item: for (i, it) in all.iter().enumerate() {
        for flt in &ctx.filters {
            let Some(sc) = ctx
                .contract
                .column(&flt.column)
                .and_then(|c| c.source_col.as_ref())
            else {
                if !unapplied.contains(&flt.text) {
                    unapplied.push(flt.text.clone());
                }
                continue;
            };
            let cell = sc
                .position(it.cells.iter().map(|c| c.0.as_deref()))
                .ok()
                .and_then(|i| it.cells.get(i))
                .map(|c| c.1.as_str());
            let Some(cell) = cell else { continue };
            if flt.test(cell, false) == Some(false) {
                continue 'item;
            }
        }
        items.push((i, it));
    }
    (items, unapplied)
}

/// Check 10: every required role is present, every source has a role and resolves.
fn sources(ctx: &Ctx<'_>, out: &mut Vec<Finding>) -> Result<Vec<Source>, IndexError> {
    let c = ctx.contract;
    let mut resolved = Vec::new();
    for (i, s) in c.sources.iter().enumerate() {
        let page = ctx.resolver.find_page(&s.page)?;
        let mut src = Source {
            index: i,
            page: page.as_ref().ok().map(|x| x.0),
            content: None,
            list_page: false,
        };
        match &page {
            Err(u) => {
                let mut f = ctx.finding(Check::SourceRoles, format!("sources[{i}]: {u}"));
                f.locator = Some(s.page.clone());
                out.push(f);
            }
            Ok((n, _, _)) => {
                src.list_page = ctx.resolver.index().page(*n)?.list_page;
                if let Some(l) = &s.locator
                    && let Ok(loc) = crate::locator::parse_relative(l, &s.page)
                {
                    match ctx.resolver.resolve(&loc)? {
                        Resolution::Found(r) => src.content = Some(r.content),
                        Resolution::Unresolved(u) => {
                            let mut f = ctx.finding(
                                Check::SourceRoles,
                                format!("sources[{i}]: the locator does not resolve: {u}"),
                            );
                            f.locator = Some(l.clone());
                            out.push(f);
                        }
                    }
                }
            }
        }
        if s.role.as_deref().is_none_or(|r| r.trim().is_empty()) {
            out.push(ctx.finding(
                Check::SourceRoles,
                format!("sources[{i}] ({:?}) has no role", s.page),
            ));
        }
        resolved.push(src);
    }
    let required = c.required_roles.clone().unwrap_or_else(|| {
        if c.scope.exhaustive {
            vec!["list".to_string()]
        } else {
            Vec::new()
        }
    });
    for role in required {
        if !c
            .sources
            .iter()
            .any(|s| s.role.as_deref() == Some(role.as_str()))
        {
            out.push(ctx.finding(
                Check::SourceRoles,
                format!("no source has the required role {role:?}"),
            ));
        }
    }
    Ok(resolved)
}

/// Check 11: every page the rows cite is a declared source with an operator, or is
/// linked from a declared `list` source with an operator (the operator expanded it).
fn provenance<E: From<IndexError>>(
    ctx: &Ctx<'_>,
    cited: impl Iterator<Item = Result<Cited, E>>,
    sources: &[Source],
    emit: &mut dyn FnMut(Finding, bool) -> Result<(), E>,
) -> Result<(), E> {
    let c = ctx.contract;
    let has_op = |i: usize| {
        c.sources[i]
            .operator
            .as_deref()
            .is_some_and(|o| !o.trim().is_empty())
    };
    for s in sources {
        if !has_op(s.index) {
            let f = ctx.finding(
                Check::Provenance,
                format!(
                    "sources[{}] ({:?}) does not say which operator brought it",
                    s.index, c.sources[s.index].page
                ),
            );
            emit(f, false)?;
        }
    }
    let declared: HashSet<u32> = sources
        .iter()
        .filter(|s| has_op(s.index))
        .filter_map(|s| s.page)
        .collect();
    let mut expanded: HashSet<u32> = HashSet::new();
    for s in sources {
        if has_op(s.index)
            && c.sources[s.index].role.as_deref() == Some("list")
            && let Some(p) = s.page
        {
            for l in ctx.resolver.index().outlinks(p)? {
                expanded.insert(crate::locator::final_page(ctx.resolver.index(), l)?);
            }
        }
    }
    for cite in cited {
        let Cited {
            source,
            row: first_row,
            blocked,
        } = cite?;
        let (ok, name) = match source {
            Ok(p) => (declared.contains(&p) || expanded.contains(&p), {
                let rec = ctx.resolver.index().page(p)?;
                ctx.resolver.index().display_title(&rec)
            }),
            Err(title) => (false, title),
        };
        if !ok {
            let mut f = ctx.finding(
                Check::Provenance,
                format!(
                    "source page {name:?} (first cited by row {first_row}) is neither a declared source nor linked from a declared list source"
                ),
            );
            f.row = Some(first_row);
            emit(f, blocked)?;
        }
    }
    Ok(())
}

/// Check 12: an exhaustive claim needs a complete enumeration among the sources: a
/// table, or a list page / section with list items, cited with role `list`.
fn exhaustiveness(ctx: &Ctx<'_>, sources: &[Source], out: &mut Vec<Finding>) {
    let c = ctx.contract;
    if !c.scope.exhaustive {
        return;
    }
    let backed = sources.iter().any(|s| {
        c.sources[s.index].role.as_deref() == Some("list")
            && match &s.content {
                Some(Content::Table { .. }) => true,
                Some(Content::Text { .. }) => s.list_page,
                None => s.list_page && c.sources[s.index].locator.is_none(),
                _ => false,
            }
    }) || c.scope.count_source.as_deref().is_some_and(|l| {
        crate::locator::parse(l).is_ok_and(|l| matches!(l.target, Target::Table { .. }))
    });
    if !backed {
        out.push(ctx.finding(
            Check::Exhaustiveness,
            "the table claims to be exhaustive, but no source with role \"list\" is a complete table or list (cite it as Page|table:N, or a list page)".into(),
        ));
    }
}
