//! The frontier operators: deterministic moves from a page (or names, or a category) to
//! the pages a table needs. Each returns every occurrence it found, in document order,
//! with a [`Step`] naming the operator, the page's role, the locator it came from and
//! why; what it could not resolve is reported, not dropped.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::rows::{Unit, cell_locator, key_of, locator};
use super::{
    Candidate, FrontierError, LinkedFrom, Role, Seed, Step, Target, redirect_step, role_of,
    target_for, target_of,
};
use crate::index::{Index, Lookup};
use crate::query::{find_page, section_anchor};
use crate::title::{NS_CATEGORY, NS_MAIN, NS_TEMPLATE};
use crate::wikitext::PageStructure;

/// What one operator found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct OperatorResult {
    pub operator: &'static str,
    /// Every page occurrence, in the order found (a page may occur more than once, e.g.
    /// in several rows).
    pub candidates: Vec<Candidate>,
    /// Names or links that lead to no page, with why.
    pub unresolved: Vec<Unresolved>,
    /// Cardinalities (the `count` operator).
    pub counts: Vec<CountSource>,
}

impl OperatorResult {
    pub(crate) fn new(operator: &'static str) -> OperatorResult {
        OperatorResult {
            operator,
            ..Default::default()
        }
    }

    /// Distinct pages, first occurrence first.
    pub fn pages(&self) -> Vec<&Candidate> {
        let mut seen = BTreeSet::new();
        self.candidates
            .iter()
            .filter(|c| seen.insert(c.page))
            .collect()
    }
}

/// A name or link that leads to no page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Unresolved {
    pub key: String,
    pub locator: String,
    pub reason: String,
    /// The meanings offered, for an ambiguous name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The seed's table row the name or link is in.
    #[serde(skip)]
    pub(crate) row: Option<Unit>,
}

/// An expected cardinality: how many rows or items a table or list has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CountSource {
    pub page: String,
    /// The table (`Seed|table:2`), or a list's first item (`Seed|item:4`; the list is
    /// the run of `count` items from there at that item's section, depth and table-ness).
    pub locator: String,
    /// `table rows` or `list items`.
    pub what: &'static str,
    pub count: usize,
    /// How many of them link to a page.
    pub linked: usize,
}

/// Locator of a place on a page: `Title#Anchor`, or `Title` in the lead.
fn at(page: &str, s: &PageStructure, section: u32) -> String {
    match section_anchor(s, section) {
        Some(a) => format!("{page}#{a}"),
        None => page.to_string(),
    }
}

/// Where and how a link (or a name) was found: what its candidate will carry.
struct LinkFinding {
    step: Step,
    context: String,
    key: Option<String>,
    in_key_column: bool,
    linked_from: Option<LinkedFrom>,
}

/// A candidate for the seed's link `li`, or the unresolved entry when it leads nowhere.
fn push_link(
    index: &Index,
    out: &mut OperatorResult,
    seed: &Seed,
    li: usize,
    f: LinkFinding,
) -> Result<(), FrontierError> {
    match seed.target(index, li)? {
        Some(t) => push_target(index, out, t, f)?,
        None => {
            let l = &seed.s.links[li];
            let written = index.codec().prefixed_text(l.ns, &l.dbkey);
            out.unresolved.push(Unresolved {
                reason: format!("[[{written}]] is a red link or a broken redirect"),
                key: written,
                locator: f.step.locator,
                options: Vec::new(),
                row: f.linked_from.map(LinkedFrom::unit),
            })
        }
    }
    Ok(())
}

/// The seed's main-namespace link number `li` of a table cell or list item, if it is one.
fn main_link(s: &PageStructure, li: u32) -> Option<(usize, &crate::wikitext::Link)> {
    s.links
        .get(li as usize)
        .filter(|l| l.ns == NS_MAIN)
        .map(|l| (li as usize, l))
}

fn push_target(
    index: &Index,
    out: &mut OperatorResult,
    t: &Target,
    f: LinkFinding,
) -> Result<(), FrontierError> {
    let role = role_of(index, t.page)?;
    let mut step = f.step;
    step.role = role;
    let mut chain = vec![step];
    chain.extend(redirect_step(t));
    out.candidates.push(Candidate {
        title: t.title.clone(),
        page: t.page,
        role,
        chain,
        context: f.context,
        key: f.key,
        in_key_column: f.in_key_column,
        linked_from: f.linked_from,
    });
    Ok(())
}

/// `outlinks`: every main-namespace link of the seed, in document order — the baseline
/// a curator must beat.
pub fn outlinks(index: &Index, seed: &str) -> Result<OperatorResult, FrontierError> {
    outlinks_of(index, &Seed::load(index, seed)?)
}

pub(crate) fn outlinks_of(index: &Index, seed: &Seed) -> Result<OperatorResult, FrontierError> {
    let (page, s) = (&seed.page, &seed.s);
    let mut out = OperatorResult::new("outlinks");
    for (li, l) in s.links.iter().enumerate().filter(|(_, l)| l.ns == NS_MAIN) {
        let step = Step {
            operator: "outlinks",
            role: Role::Entity,
            from: page.title.clone(),
            locator: at(&page.title, s, l.section),
            reason: format!(
                "{} link [[{}|{}]]",
                l.context.as_str(),
                l.dbkey.replace('_', " "),
                l.text
            ),
        };
        let f = LinkFinding {
            step,
            context: l.text.clone(),
            key: None,
            in_key_column: false,
            linked_from: None,
        };
        push_link(index, &mut out, seed, li, f)?;
    }
    out.candidates.retain(|c| c.page != page.number);
    Ok(out)
}

/// `seed-table`: pages linked from the seed's tables (or table `table`, 1-based, and
/// within it column `column`, 0-based), each with its row and column.
pub fn seed_table(
    index: &Index,
    seed: &str,
    table: Option<usize>,
    column: Option<usize>,
) -> Result<OperatorResult, FrontierError> {
    seed_table_of(index, &Seed::load(index, seed)?, table, column)
}

pub(crate) fn seed_table_of(
    index: &Index,
    seed: &Seed,
    table: Option<usize>,
    column: Option<usize>,
) -> Result<OperatorResult, FrontierError> {
    let (page, s) = (&seed.page, &seed.s);
    if let Some(n) = table
        && (n == 0 || n > s.tables.len())
    {
        return Err(FrontierError::NotFound(format!(
            "{:?} has {} table(s); there is no table {n}",
            page.title,
            s.tables.len()
        )));
    }
    let mut out = OperatorResult::new("seed-table");
    for ti in 0..s.tables.len() {
        let tn = ti + 1;
        if table.is_some_and(|n| n != tn) {
            continue;
        }
        let super::TableRows { rows, key } = seed.rows(ti);
        let key = *key;
        for row in rows {
            for cell in &row.cells {
                if column.is_some_and(|c| c != cell.col) {
                    continue;
                }
                for &li in &cell.links {
                    let Some((li, l)) = main_link(s, li) else {
                        continue;
                    };
                    let under = cell
                        .label
                        .as_ref()
                        .map(|x| format!(" under {x:?}"))
                        .unwrap_or_default();
                    let step = Step {
                        operator: "seed-table",
                        role: Role::Entity,
                        from: page.title.clone(),
                        locator: cell_locator(&page.title, tn, row.row, cell.col),
                        reason: format!(
                            "cell {:?}{under} links [[{}]]",
                            cell.text,
                            l.dbkey.replace('_', " ")
                        ),
                    };
                    let f = LinkFinding {
                        step,
                        context: row.text.clone(),
                        key: key_of(row, key),
                        in_key_column: key == Some(cell.col),
                        linked_from: Some(LinkedFrom::Cell {
                            table: tn,
                            row: row.row,
                            col: cell.col,
                        }),
                    };
                    push_link(index, &mut out, seed, li, f)?;
                }
            }
        }
    }
    Ok(out)
}

/// `seed-list`: pages linked from the seed's list items.
pub fn seed_list(index: &Index, seed: &str) -> Result<OperatorResult, FrontierError> {
    seed_list_of(index, &Seed::load(index, seed)?)
}

pub(crate) fn seed_list_of(index: &Index, seed: &Seed) -> Result<OperatorResult, FrontierError> {
    let (page, s) = (&seed.page, &seed.s);
    let mut out = OperatorResult::new("seed-list");
    for (i, item) in s.lists.iter().enumerate() {
        for &li in &item.links {
            let Some((li, l)) = main_link(s, li) else {
                continue;
            };
            let step = Step {
                operator: "seed-list",
                role: Role::Entity,
                from: page.title.clone(),
                locator: Unit::Item(i).locator(&page.title),
                reason: format!(
                    "list item {:?} in {} links [[{}]]",
                    item.text,
                    section_anchor(s, item.section).unwrap_or_else(|| "the lead".into()),
                    l.dbkey.replace('_', " ")
                ),
            };
            let f = LinkFinding {
                step,
                context: item.text.clone(),
                key: Some(l.text.clone()),
                in_key_column: false,
                linked_from: Some(LinkedFrom::Item(i)),
            };
            push_link(index, &mut out, seed, li, f)?;
        }
    }
    Ok(out)
}

/// `sibling-list`: list and overview pages around the seed — linking to it, linked from
/// it, sharing one of its categories — and the pages listed next to it in them.
pub fn sibling_list(
    index: &Index,
    seed: &str,
    limit: usize,
) -> Result<OperatorResult, FrontierError> {
    sibling_list_of(index, &Seed::load(index, seed)?, limit)
}

pub(crate) fn sibling_list_of(
    index: &Index,
    seed: &Seed,
    limit: usize,
) -> Result<OperatorResult, FrontierError> {
    let (page, s) = (&seed.page, &seed.s);
    let mut out = OperatorResult::new("sibling-list");
    let mut seen = BTreeSet::from([page.number]);
    let mut list = |out: &mut OperatorResult, n: u32, locator: String, reason: String| {
        if !seen.insert(n) {
            return Ok::<_, FrontierError>(());
        }
        let rec = index.page(n)?;
        if !rec.list_page {
            return Ok(());
        }
        let title = index.display_title(&rec);
        out.candidates.push(Candidate {
            title,
            page: n,
            role: Role::ListOverview,
            chain: vec![Step {
                operator: "sibling-list",
                role: Role::ListOverview,
                from: page.title.clone(),
                locator,
                reason,
            }],
            context: String::new(),
            key: None,
            in_key_column: false,
            linked_from: None,
        });
        Ok(())
    };
    for src in index.inlinks_with_redirects(page.number)? {
        let title = index.display_title(&index.page(src)?);
        list(
            &mut out,
            src,
            title,
            format!("list page linking to {:?}", page.title),
        )?;
    }
    for (li, l) in s.links.iter().enumerate().filter(|(_, l)| l.ns == NS_MAIN) {
        if let Some(t) = seed.target(index, li)? {
            list(
                &mut out,
                t.page,
                at(&page.title, s, l.section),
                format!("list page linked from {:?}", page.title),
            )?;
        }
    }
    for c in &s.categories {
        let name = index.codec().prefixed_text(NS_CATEGORY, &c.dbkey);
        for m in index.category_members(&c.dbkey)?.unwrap_or_default() {
            list(
                &mut out,
                m,
                name.clone(),
                format!("list page in {name}, as {:?} is", page.title),
            )?;
        }
    }
    let sib = crate::siblings::siblings(index, &page.title, limit)?;
    for x in sib.siblings {
        let Some(first) = x.together.first() else {
            continue;
        };
        let Lookup::Page(_, n) = index.lookup(&x.title) else {
            continue;
        };
        let role = role_of(index, n)?;
        let places: Vec<String> = x
            .together
            .iter()
            .map(|t| format!("{} ({})", t.source, t.place))
            .collect();
        out.candidates.push(Candidate {
            title: x.title.clone(),
            page: n,
            role,
            chain: vec![Step {
                operator: "sibling-list",
                role,
                from: first.source.clone(),
                locator: first.source.clone(),
                reason: format!("listed next to {:?} in {}", page.title, places.join("; ")),
            }],
            context: String::new(),
            key: None,
            in_key_column: false,
            linked_from: None,
        });
    }
    Ok(out)
}

/// `redirect`: the canonical page of each title, aliases merged — one candidate per
/// final page, naming every alias that leads there.
pub fn redirect(index: &Index, titles: &[String]) -> Result<OperatorResult, FrontierError> {
    let mut out = OperatorResult::new("redirect");
    let mut groups: BTreeMap<u32, (String, Vec<String>)> = BTreeMap::new();
    let mut order = Vec::new();
    for t in titles {
        match find_page(index, t) {
            Ok(f) => {
                let e = groups.entry(f.number).or_insert_with(|| {
                    order.push(f.number);
                    (f.title.clone(), Vec::new())
                });
                if !e.1.contains(t) {
                    e.1.push(t.clone());
                }
            }
            Err(e) if e.is_not_found() => out.unresolved.push(Unresolved {
                key: t.clone(),
                locator: t.clone(),
                reason: e.to_string(),
                options: Vec::new(),
                row: None,
            }),
            Err(e) => return Err(e.into()),
        }
    }
    for n in order {
        let (title, aliases) = &groups[&n];
        out.candidates.push(Candidate {
            title: title.clone(),
            page: n,
            role: Role::RedirectCanonical,
            chain: vec![Step {
                operator: "redirect",
                role: Role::RedirectCanonical,
                from: aliases[0].clone(),
                locator: aliases[0].clone(),
                reason: format!(
                    "{} lead(s) to {title:?}: {}",
                    aliases.len(),
                    aliases.join(", ")
                ),
            }],
            context: String::new(),
            key: Some(aliases[0].clone()),
            in_key_column: false,
            linked_from: None,
        });
    }
    Ok(out)
}

/// Whether page `n` is a disambiguation page: its title says so, or a category or
/// template of it does (English names; other wikis' equivalents contain the same stem).
pub(crate) fn is_disambiguation(index: &Index, n: u32) -> Result<bool, FrontierError> {
    let rec = index.page(n)?;
    if rec.dbkey.to_lowercase().ends_with("(disambiguation)") {
        return Ok(true);
    }
    let s = index.structure(n)?;
    let dab = |k: &str| {
        let k = k.to_lowercase();
        k.contains("disambig") || matches!(k.as_str(), "dab" | "hndis" | "geodis" | "disamb")
    };
    Ok(s.categories.iter().any(|c| dab(&c.dbkey))
        || s.templates
            .iter()
            .any(|t| t.ns == NS_TEMPLATE && dab(&t.dbkey)))
}

/// `entity-page`: resolves names (cell texts, keys) to pages, in this order: a link with
/// that text in the seed's tables (the author's own choice), the exact title, a
/// redirect. A disambiguation page is resolved only when exactly one of its meanings is
/// linked from the seed; otherwise the name is reported unresolved with the meanings.
pub fn entity_page(
    index: &Index,
    keys: &[String],
    seed: Option<&str>,
) -> Result<OperatorResult, FrontierError> {
    let seed = seed.map(|t| Seed::load(index, t)).transpose()?;
    let names = EntityNames::new(index, seed.as_ref())?;
    let mut out = OperatorResult::new("entity-page");
    for key in keys {
        names.resolve(key, &mut out)?;
    }
    Ok(out)
}

/// What `entity-page` needs from the seed, worked out once for any number of names: the
/// link texts of its table cells and the pages it links to.
pub(crate) struct EntityNames<'a> {
    index: &'a Index,
    /// Link texts of the seed's table cells (lower-cased) → (target, locator).
    linked: BTreeMap<String, (&'a Target, String)>,
    seed_links: BTreeSet<u32>,
    seed_title: String,
}

impl<'a> EntityNames<'a> {
    pub(crate) fn new(index: &'a Index, seed: Option<&'a Seed>) -> Result<Self, FrontierError> {
        let mut linked = BTreeMap::new();
        let mut seed_links = BTreeSet::new();
        let mut seed_title = String::new();
        if let Some(seed) = seed {
            let (page, s) = (&seed.page, &seed.s);
            seed_title = page.title.clone();
            for (li, _) in s.links.iter().enumerate().filter(|(_, l)| l.ns == NS_MAIN) {
                if let Some(t) = seed.target(index, li)? {
                    seed_links.insert(t.page);
                }
            }
            for ti in 0..s.tables.len() {
                for row in &seed.rows(ti).rows {
                    for cell in &row.cells {
                        let [li] = cell.links[..] else { continue };
                        let Some((li, _)) = main_link(s, li) else {
                            continue;
                        };
                        if let Some(tg) = seed.target(index, li)? {
                            let loc = cell_locator(&page.title, ti + 1, row.row, cell.col);
                            linked
                                .entry(cell.text.trim().to_lowercase())
                                .or_insert((tg, loc));
                        }
                    }
                }
            }
        }
        Ok(EntityNames {
            index,
            linked,
            seed_links,
            seed_title,
        })
    }

    /// Resolves one name into `out` (a candidate, or an unresolved entry; nothing for a
    /// blank name).
    pub(crate) fn resolve(&self, key: &str, out: &mut OperatorResult) -> Result<(), FrontierError> {
        let index = self.index;
        let k = key.trim();
        if k.is_empty() {
            return Ok(());
        }
        let step = |locator: String, reason: String| Step {
            operator: "entity-page",
            role: Role::Entity,
            from: if self.seed_title.is_empty() {
                k.to_string()
            } else {
                self.seed_title.clone()
            },
            locator,
            reason,
        };
        if let Some((t, loc)) = self.linked.get(&k.to_lowercase()) {
            let f = LinkFinding {
                step: step(
                    loc.clone(),
                    format!("{k:?} is linked to [[{}]] in the seed's table", t.title),
                ),
                context: k.to_string(),
                key: Some(k.to_string()),
                in_key_column: false,
                linked_from: None,
            };
            return push_target(index, out, t, f);
        }
        let found = target_for(index, k)?;
        let Some(t) = found else {
            out.unresolved.push(Unresolved {
                key: k.to_string(),
                locator: k.to_string(),
                reason: "no page, redirect or table link has this name".into(),
                options: Vec::new(),
                row: None,
            });
            return Ok(());
        };
        if is_disambiguation(index, t.page)? {
            let mut options: Vec<(u32, String)> = Vec::new();
            for o in index.outlinks(t.page)? {
                let rec = index.page(o)?;
                if rec.ns == NS_MAIN
                    && let Some(ot) = target_of(index, o, &rec)?
                    && !options.iter().any(|(p, _)| *p == ot.page)
                {
                    options.push((ot.page, ot.title));
                }
            }
            let chosen: Vec<&(u32, String)> = options
                .iter()
                .filter(|(p, _)| self.seed_links.contains(p))
                .collect();
            if let [(p, title)] = chosen[..] {
                let tg = Target {
                    page: *p,
                    title: title.clone(),
                    via: None,
                };
                let f = LinkFinding {
                    step: step(
                        t.title.clone(),
                        format!(
                            "{k:?} is ambiguous ({:?}); {title:?} is the meaning the seed links",
                            t.title
                        ),
                    ),
                    context: k.to_string(),
                    key: Some(k.to_string()),
                    in_key_column: false,
                    linked_from: None,
                };
                push_target(index, out, &tg, f)?;
            } else {
                out.unresolved.push(Unresolved {
                    key: k.to_string(),
                    locator: t.title.clone(),
                    reason: format!(
                        "ambiguous: {:?} is a disambiguation page with {} meanings",
                        t.title,
                        options.len()
                    ),
                    options: options.into_iter().map(|(_, x)| x).collect(),
                    row: None,
                });
            }
            return Ok(());
        }
        let reason = match &t.via {
            Some(v) => format!("{k:?} names the redirect {v:?}"),
            None => format!("{k:?} is the title of the page"),
        };
        let f = LinkFinding {
            step: step(k.to_string(), reason),
            context: k.to_string(),
            key: Some(k.to_string()),
            in_key_column: false,
            linked_from: None,
        };
        push_target(index, out, &t, f)
    }
}

/// `category`: members of a category, and of its subcategories down to `depth` levels
/// (0 = the category only), breadth first; each category is visited once.
pub fn category(index: &Index, name: &str, depth: usize) -> Result<OperatorResult, FrontierError> {
    let view = crate::query::category(index, name)?;
    let root = view.category.clone();
    let mut out = OperatorResult::new("category");
    let mut visited = BTreeSet::from([root.clone()]);
    let mut level = vec![(root, view)];
    for d in 0..=depth {
        let mut next = Vec::new();
        for (cat, v) in &level {
            for p in &v.pages {
                let Lookup::Page(_, n) = index.lookup(p) else {
                    continue;
                };
                let role = role_of(index, n)?;
                out.candidates.push(Candidate {
                    title: p.clone(),
                    page: n,
                    role,
                    chain: vec![Step {
                        operator: "category",
                        role,
                        from: cat.clone(),
                        locator: cat.clone(),
                        reason: format!("member of {cat} (depth {d})"),
                    }],
                    context: String::new(),
                    key: Some(p.clone()),
                    in_key_column: false,
                    linked_from: None,
                });
            }
            if d < depth {
                for sub in &v.subcategories {
                    if visited.insert(sub.clone()) {
                        match crate::query::category(index, sub) {
                            Ok(sv) => next.push((sub.clone(), sv)),
                            Err(e) if e.is_not_found() => {}
                            Err(e) => return Err(e.into()),
                        }
                    }
                }
            }
        }
        level = next;
    }
    Ok(out)
}

/// `count`: how many rows each table (or table `table`) of the page has, and how many
/// items each of its lists has — the cardinality a table built from it should match.
/// The page itself is the candidate, in the count-source role.
pub fn count(
    index: &Index,
    seed: &str,
    table: Option<usize>,
) -> Result<OperatorResult, FrontierError> {
    Ok(count_of(&Seed::load(index, seed)?, table))
}

pub(crate) fn count_of(seed: &Seed, table: Option<usize>) -> OperatorResult {
    let (page, s) = (&seed.page, &seed.s);
    let mut out = OperatorResult::new("count");
    for ti in 0..s.tables.len() {
        if table.is_some_and(|n| n != ti + 1) {
            continue;
        }
        let super::TableRows { rows, key } = seed.rows(ti);
        let key = *key;
        let linked = rows
            .iter()
            .filter(|r| {
                r.cells
                    .iter()
                    .any(|c| Some(c.col) == key && !c.links.is_empty())
            })
            .count();
        out.counts.push(CountSource {
            page: page.title.clone(),
            locator: locator(&page.title, crate::locator::Target::Table { table: ti + 1 }),
            what: "table rows",
            count: rows.len(),
            linked,
        });
    }
    if table.is_none() {
        // A list is a run of consecutive items of one section, depth and table-ness.
        let mut i = 0;
        while i < s.lists.len() {
            let first = &s.lists[i];
            let mut j = i;
            while j + 1 < s.lists.len() && {
                let x = &s.lists[j + 1];
                x.section == first.section && x.depth == first.depth && x.in_table == first.in_table
            } {
                j += 1;
            }
            let linked = s.lists[i..=j]
                .iter()
                .filter(|x| !x.links.is_empty())
                .count();
            out.counts.push(CountSource {
                page: page.title.clone(),
                locator: Unit::Item(i).locator(&page.title),
                what: "list items",
                count: j - i + 1,
                linked,
            });
            i = j + 1;
        }
    }
    let summary: Vec<String> = out
        .counts
        .iter()
        .map(|c| format!("{} {}", c.count, c.what))
        .collect();
    out.candidates.push(Candidate {
        title: page.title.clone(),
        page: page.number,
        role: Role::CountSource,
        chain: vec![Step {
            operator: "count",
            role: Role::CountSource,
            from: page.title.clone(),
            locator: page.title.clone(),
            reason: if summary.is_empty() {
                "no table or list to count".into()
            } else {
                format!("expected cardinality: {}", summary.join(", "))
            },
        }],
        context: String::new(),
        key: None,
        in_key_column: false,
        linked_from: None,
    });
    out
}
