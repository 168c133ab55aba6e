//! The link graph and category membership, gathered page by page while the dump is read
//! and written once all titles are known.
//!
//! Nothing here grows with the dump in memory: link targets and category names go to
//! external sorters as `(key, source page)`; at the end the sorted links are merge-joined
//! with the sorted titles (a link whose key has no title is a red link, and falls out of
//! the same pass), the resolved edges are sorted again by source and by target, and every
//! adjacency list is written row by row.

use std::collections::BTreeMap;
use std::path::Path;

use super::Budget;
use super::extsort::{KeyVal, Sorter, pair, unpair};
use crate::index::csr::CsrWriter;
use crate::index::{self, IndexError, KeySpool};

pub(super) struct GraphBuilder {
    links: Sorter<KeyVal>,
    cats: Sorter<KeyVal>,
}

/// What writing the graph produced: file sizes, counts, sort runs.
#[derive(Default)]
pub(super) struct GraphOut {
    pub files: BTreeMap<String, u64>,
    pub links: u64,
    pub red_titles: u64,
    pub categories: u64,
    pub spills: BTreeMap<String, u64>,
}

impl GraphBuilder {
    pub fn new(tmp: &Path, budget: &Budget) -> GraphBuilder {
        GraphBuilder {
            links: Sorter::new("links", tmp, budget.share(0.45)),
            cats: Sorter::new("categories", tmp, budget.share(0.15)),
        }
    }

    /// Adds page number `page`'s link targets (title-map keys) and category names, each
    /// sorted and without duplicates.
    pub(crate) fn add_page(
        &mut self,
        page: u32,
        link_keys: Vec<Vec<u8>>,
        categories: Vec<String>,
    ) -> Result<(), IndexError> {
        for key in link_keys {
            self.links.push(KeyVal {
                key: key.into_boxed_slice(),
                val: page,
            })?;
        }
        for c in categories {
            self.cats.push(KeyVal {
                key: c.into_bytes().into_boxed_slice(),
                val: page,
            })?;
        }
        Ok(())
    }

    /// Writes the link and category files for `pages` pages, resolving link targets
    /// against `titles` (every page's title-map key, sorted).
    pub fn write(
        self,
        dir: &Path,
        tmp: &Path,
        titles: &KeySpool,
        pages: u64,
        budget: &Budget,
    ) -> Result<GraphOut, IndexError> {
        let GraphBuilder { links, cats } = self;
        let (links, cats) = rayon::join(
            || write_links(links, dir, tmp, titles, pages, budget),
            || write_categories(cats, dir, tmp),
        );
        let mut out = links?;
        let cats = cats?;
        out.files.extend(cats.files);
        out.spills.extend(cats.spills);
        out.categories = cats.categories;
        Ok(out)
    }
}

fn write_links(
    links: Sorter<KeyVal>,
    dir: &Path,
    tmp: &Path,
    titles: &KeySpool,
    pages: u64,
    budget: &Budget,
) -> Result<GraphOut, IndexError> {
    let mut out = GraphOut::default();
    let sorted = links.finish()?;
    out.spills.insert("links".into(), sorted.spilled);
    let mut out_edges: Sorter<u64> = Sorter::new("links-out", tmp, budget.share(0.35));
    let mut in_edges: Sorter<u64> = Sorter::new("links-in", tmp, budget.share(0.35));
    let mut red = KeySpool::create(&tmp.join("red-titles.spool"))?;
    let mut red_in = CsrWriter::create(&dir.join(index::files::RED_IN), index::kinds::RED_IN, tmp)?;
    let mut titles = titles.iter()?.peekable();
    // The key being joined, the page it names (`None`: a red link) and, for a red link,
    // its sources so far.
    let mut current: Option<(Box<[u8]>, Option<u32>)> = None;
    let mut red_row: Vec<u32> = Vec::new();
    let mut end_red = |key: &[u8], row: &mut Vec<u32>| -> Result<(), IndexError> {
        red.push(key, red_in.rows())?;
        red_in.push_row(row)?;
        row.clear();
        Ok(())
    };
    for link in sorted {
        let KeyVal { key, val: source } = link?;
        if current.as_ref().is_none_or(|(k, _)| *k != key) {
            if let Some((k, None)) = &current {
                end_red(k, &mut red_row)?;
            }
            // Titles before this key have no (more) links to them.
            let mut page = None;
            while let Some(t) = titles.peek() {
                match t {
                    Err(_) => return Err(titles.next().expect("peeked").unwrap_err()),
                    Ok((k, _)) if k.as_slice() < &key[..] => {
                        titles.next();
                    }
                    Ok((k, p)) => {
                        if k.as_slice() == &key[..] {
                            page = Some(*p as u32);
                        }
                        break;
                    }
                }
            }
            current = Some((key, page));
        }
        match current.as_ref().and_then(|c| c.1) {
            Some(target) => {
                out_edges.push(pair(source, target))?;
                in_edges.push(pair(target, source))?;
            }
            None if red_row.last() == Some(&source) => {}
            None => red_row.push(source),
        }
    }
    if let Some((k, None)) = &current {
        end_red(k, &mut red_row)?;
    }
    red.close()?;
    out.red_titles = red.len();
    let (red_map, red_in_file) = rayon::join(
        || {
            red.write_map(
                &dir.join(index::files::RED_TITLES),
                index::kinds::RED_TITLES,
                tmp,
            )
        },
        || red_in.finish(),
    );
    out.files.insert(index::files::RED_TITLES.into(), red_map?);
    out.files.insert(index::files::RED_IN.into(), red_in_file?);
    let (o, i) = rayon::join(
        || {
            write_pairs(
                out_edges,
                &dir.join(index::files::LINKS_OUT),
                index::kinds::LINKS_OUT,
                pages,
                tmp,
            )
        },
        || {
            write_pairs(
                in_edges,
                &dir.join(index::files::LINKS_IN),
                index::kinds::LINKS_IN,
                pages,
                tmp,
            )
        },
    );
    let (o, i) = (o?, i?);
    out.links = o.values;
    for (name, w) in [(index::files::LINKS_OUT, o), (index::files::LINKS_IN, i)] {
        out.files.insert(name.into(), w.size);
        out.spills
            .insert(name.trim_end_matches(".csr").into(), w.spilled);
    }
    Ok(out)
}

fn write_categories(cats: Sorter<KeyVal>, dir: &Path, tmp: &Path) -> Result<GraphOut, IndexError> {
    let mut out = GraphOut::default();
    let sorted = cats.finish()?;
    out.spills.insert("categories".into(), sorted.spilled);
    let mut names = KeySpool::create(&tmp.join("categories.spool"))?;
    let mut members = CsrWriter::create(
        &dir.join(index::files::CATEGORY_MEMBERS),
        index::kinds::CATEGORY_MEMBERS,
        tmp,
    )?;
    let mut current: Option<Box<[u8]>> = None;
    let mut row: Vec<u32> = Vec::new();
    for c in sorted {
        let KeyVal { key, val: page } = c?;
        if current.as_ref() != Some(&key) {
            if let Some(k) = current.take() {
                names.push(&k, members.rows())?;
                members.push_row(&row)?;
                row.clear();
            }
            current = Some(key);
        }
        if row.last() != Some(&page) {
            row.push(page);
        }
    }
    if let Some(k) = current {
        names.push(&k, members.rows())?;
        members.push_row(&row)?;
    }
    names.close()?;
    out.categories = names.len();
    out.files.insert(
        index::files::CATEGORIES.into(),
        names.write_map(
            &dir.join(index::files::CATEGORIES),
            index::kinds::CATEGORIES,
            tmp,
        )?,
    );
    out.files
        .insert(index::files::CATEGORY_MEMBERS.into(), members.finish()?);
    Ok(out)
}

/// An adjacency file written from sorted pairs.
pub(super) struct PairsWritten {
    pub size: u64,
    /// Values written (pairs without duplicates).
    pub values: u64,
    pub spilled: u64,
}

/// Writes `rows` rows of an adjacency file from `(row, value)` pairs: duplicates dropped,
/// rows without pairs empty.
pub(super) fn write_pairs(
    pairs: Sorter<u64>,
    path: &Path,
    kind: u32,
    rows: u64,
    tmp: &Path,
) -> Result<PairsWritten, IndexError> {
    let sorted = pairs.finish()?;
    let spilled = sorted.spilled;
    let mut w = CsrWriter::create(path, kind, tmp)?;
    let mut row: Vec<u32> = Vec::new();
    let mut current: Option<u32> = None;
    let mut last = None;
    let mut values = 0u64;
    for x in sorted {
        let x = x?;
        if last == Some(x) {
            continue;
        }
        last = Some(x);
        let (r, v) = unpair(x);
        if current != Some(r) {
            if let Some(c) = current {
                w.pad_to(c as u64)?;
                w.push_row(&row)?;
                row.clear();
            }
            current = Some(r);
        }
        row.push(v);
        values += 1;
    }
    if let Some(c) = current {
        w.pad_to(c as u64)?;
        w.push_row(&row)?;
    }
    w.pad_to(rows)?;
    Ok(PairsWritten {
        size: w.finish()?,
        values,
        spilled,
    })
}
