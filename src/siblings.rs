//! List pages and siblings: pages that appear together in a table column, a list or a
//! navigation template.
//!
//! Whether a page is a list page is decided at build time
//! (`crate::wikitext::is_list_page`) and stored in its page record; this
//! module reads that flag from the index.

use crate::wikitext::PageStructure;

/// Where a page and its sibling appear together.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Together {
    /// The page holding the shared structure.
    pub source: String,
    pub source_is_list: bool,
    /// `table`, `list` or `template`.
    pub kind: &'static str,
    /// Human-readable place: `table 2, column "River"`, `list in section Examples`,
    /// `template Navbox rivers`.
    pub place: String,
}

/// A page listed next to the queried one.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Sibling {
    pub title: String,
    pub together: Vec<Together>,
}

/// The list pages linking to a page, and the pages listed next to it.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct Siblings {
    pub page: String,
    /// List pages that link to the page (directly or through a redirect).
    pub list_pages: Vec<String>,
    pub siblings: Vec<Sibling>,
}

/// Finds the siblings of `title`: pages that share a table column, a list, or a
/// navigation template with it on some page linking to it. Siblings appearing together
/// with the page in more structures come first.
pub fn siblings(
    index: &crate::index::Index,
    title: &str,
    limit: usize,
) -> Result<Siblings, crate::query::QueryError> {
    use std::collections::BTreeMap;

    let page = crate::query::find_page(index, title)?;
    let mut targets = vec![page.number];
    targets.extend(index.redirects_to(page.number)?);
    let keys: Vec<(i32, String)> = targets
        .iter()
        .map(|&t| index.page(t).map(|r| (r.ns, r.dbkey)))
        .collect::<Result<_, _>>()?;
    let final_page = |ns: i32, dbkey: &str| -> Option<u32> {
        let n = index.find(ns, dbkey)?;
        let landing = index.follow(n, index.page(n).ok()?).ok()?;
        Some(landing.number)
    };
    let mut list_pages = Vec::new();
    let mut found: BTreeMap<u32, Vec<Together>> = BTreeMap::new();
    for src in index.inlinks_with_redirects(page.number)? {
        let srec = index.page(src)?;
        let source = index.display_title(&srec);
        if srec.list_page {
            list_pages.push(source.clone());
        }
        let s = index.structure(src)?;
        let mine: Vec<usize> = s
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| keys.iter().any(|(ns, k)| l.ns == *ns && &l.dbkey == k))
            .map(|(i, _)| i)
            .collect();
        let mut add = |link: u32, kind: &'static str, place: String| {
            if let Some(l) = s.links.get(link as usize)
                && let Some(n) = final_page(l.ns, &l.dbkey)
                && n != page.number
            {
                let t = Together {
                    source: source.clone(),
                    source_is_list: srec.list_page,
                    kind,
                    place,
                };
                let e = found.entry(n).or_default();
                if !e.contains(&t) {
                    e.push(t);
                }
            }
        };
        table_neighbours(&s, &mine, &mut add);
        list_neighbours(&s, &mine, &mut add);
        template_neighbours(&s, &mine, &mut add);
    }
    let mut siblings: Vec<Sibling> = found
        .into_iter()
        .map(|(n, together)| {
            let title = index
                .page(n)
                .map(|r| index.display_title(&r))
                .unwrap_or_default();
            Sibling { title, together }
        })
        .collect();
    siblings.sort_by(|a, b| {
        b.together
            .len()
            .cmp(&a.together.len())
            .then(a.title.cmp(&b.title))
    });
    siblings.truncate(limit);
    list_pages.sort();
    list_pages.dedup();
    Ok(Siblings {
        page: page.title,
        list_pages,
        siblings,
    })
}

/// Links in the same column of the same table as one of the page's links.
fn table_neighbours(
    s: &PageStructure,
    mine: &[usize],
    add: &mut dyn FnMut(u32, &'static str, String),
) {
    for (ti, t) in s.tables.iter().enumerate() {
        let labels = t.column_labels();
        for (ri, row) in t.rows.iter().enumerate() {
            for cell in &row.cells {
                if !cell.links.iter().any(|&i| mine.contains(&(i as usize))) {
                    continue;
                }
                let col = cell.col as usize;
                let place = match labels.get(col).cloned().flatten() {
                    Some(l) => format!("table {}, column {l:?}", ti + 1),
                    None => format!("table {}, column {col}", ti + 1),
                };
                for (rj, other) in t.rows.iter().enumerate() {
                    if rj == ri {
                        continue;
                    }
                    if let Some(c) = other.cells.iter().find(|c| c.col as usize == col)
                        && let Some(&first) = c.links.first()
                    {
                        add(first, "table", place.clone());
                    }
                }
            }
        }
    }
}

/// Neighbouring items of the same list as one of the page's links (same section and
/// depth, consecutive).
fn list_neighbours(
    s: &PageStructure,
    mine: &[usize],
    add: &mut dyn FnMut(u32, &'static str, String),
) {
    for (ii, item) in s.lists.iter().enumerate() {
        if !item.links.iter().any(|&i| mine.contains(&(i as usize))) {
            continue;
        }
        let same = |j: usize| {
            s.lists.get(j).is_some_and(|x| {
                x.section == item.section && x.depth == item.depth && x.in_table == item.in_table
            })
        };
        let mut lo = ii;
        while lo > 0 && same(lo - 1) {
            lo -= 1;
        }
        let mut hi = ii;
        while same(hi + 1) {
            hi += 1;
        }
        let place = match crate::query::section_anchor(s, item.section) {
            Some(a) => format!("list in section {}", a.replace('_', " ")),
            None => "list in the lead".to_string(),
        };
        for j in lo..=hi {
            if j != ii
                && let Some(&first) = s.lists[j].links.first()
            {
                add(first, "list", place.clone());
            }
        }
    }
}

/// Other links in the same template call (navigation boxes, lists in templates) as one
/// of the page's links; infoboxes excluded.
fn template_neighbours(
    s: &PageStructure,
    mine: &[usize],
    add: &mut dyn FnMut(u32, &'static str, String),
) {
    for &m in mine {
        let l = &s.links[m];
        if !l.in_template {
            continue;
        }
        let Some(call) = s
            .templates
            .iter()
            .filter(|t| t.start <= l.start && l.end <= t.end)
            .min_by_key(|t| t.end - t.start)
        else {
            continue;
        };
        if s.infoboxes.iter().any(|ib| ib.start == call.start) {
            continue;
        }
        let place = format!("template {}", call.dbkey.replace('_', " "));
        for (j, other) in s.links.iter().enumerate() {
            if j != m && other.in_template && call.start <= other.start && other.end <= call.end {
                add(j as u32, "template", place.clone());
            }
        }
    }
}
