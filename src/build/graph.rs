//! The link graph, category membership and redirect targets, gathered page by page while
//! the dump is read and written once all titles are known.
//!
//! While reading, link targets and category names are interned (each distinct title is
//! kept once); at the end they are resolved against the title map, and the adjacency
//! lists are written as [`crate::index::csr`] files.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use std::path::Path;

use super::PageOut;
use crate::index::manifest::Counts;
use crate::index::{self, IndexError, Resolution, csr};

#[derive(Default)]
pub(super) struct GraphBuilder {
    titles: FxHashMap<Vec<u8>, u32>,
    title_keys: Vec<Vec<u8>>,
    /// Per page: interned link targets, sorted and unique.
    out: Vec<Vec<u32>>,
    cats: FxHashMap<String, u32>,
    cat_names: Vec<String>,
    /// Per page: interned categories.
    page_cats: Vec<Vec<u32>>,
}

impl GraphBuilder {
    /// Adds one page's link targets (title-map keys) and category names, in page order.
    pub fn add_page(&mut self, link_keys: Vec<Vec<u8>>, categories: Vec<String>) {
        let mut ids: Vec<u32> = link_keys
            .into_iter()
            .map(|key| match self.titles.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.title_keys.len() as u32;
                    self.titles.insert(key.clone(), id);
                    self.title_keys.push(key);
                    id
                }
            })
            .collect();
        ids.sort_unstable();
        ids.dedup();
        self.out.push(ids);
        let mut cats: Vec<u32> = categories
            .into_iter()
            .map(|c| match self.cats.get(&c) {
                Some(&id) => id,
                None => {
                    let id = self.cat_names.len() as u32;
                    self.cats.insert(c.clone(), id);
                    self.cat_names.push(c);
                    id
                }
            })
            .collect();
        cats.sort_unstable();
        cats.dedup();
        self.page_cats.push(cats);
    }

    pub fn write(
        self,
        dir: &Path,
        pages: &[PageOut],
        page_keys: &[(Vec<u8>, u64)],
        files: &mut BTreeMap<String, u64>,
        counts: &mut Counts,
    ) -> Result<(), IndexError> {
        let n = pages.len();
        // Resolve interned targets by looking each page's title up in the intern table
        // (one hash lookup per page, instead of a search per distinct target).
        let mut resolved: Vec<Option<u32>> = vec![None; self.title_keys.len()];
        for (key, page) in page_keys {
            if let Some(&id) = self.titles.get(key.as_slice()) {
                resolved[id as usize] = Some(*page as u32);
            }
        }

        // Out- and in-links between existing pages.
        let out: Vec<Vec<u32>> = self
            .out
            .iter()
            .map(|ids| {
                let mut v: Vec<u32> = ids.iter().filter_map(|&i| resolved[i as usize]).collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        counts.links = out.iter().map(|r| r.len() as u64).sum();
        let inl = csr::transpose(&out, n);
        put(
            files,
            index::files::LINKS_OUT,
            csr::write(
                &dir.join(index::files::LINKS_OUT),
                index::kinds::LINKS_OUT,
                &out,
            )?,
        );
        put(
            files,
            index::files::LINKS_IN,
            csr::write(
                &dir.join(index::files::LINKS_IN),
                index::kinds::LINKS_IN,
                &inl,
            )?,
        );
        drop(out);
        drop(inl);

        // Red links: titles linked to that have no page, with who links to them.
        let mut red: Vec<(Vec<u8>, u32)> = self
            .title_keys
            .iter()
            .enumerate()
            .filter(|(i, _)| resolved[*i].is_none())
            .map(|(i, k)| (k.clone(), i as u32))
            .collect();
        red.sort_unstable();
        let mut red_index = vec![u32::MAX; self.title_keys.len()];
        for (r, (_, id)) in red.iter().enumerate() {
            red_index[*id as usize] = r as u32;
        }
        let mut red_in: Vec<Vec<u32>> = vec![Vec::new(); red.len()];
        for (page, ids) in self.out.iter().enumerate() {
            for &i in ids {
                let r = red_index[i as usize];
                if r != u32::MAX {
                    red_in[r as usize].push(page as u32);
                }
            }
        }
        counts.red_titles = red.len() as u64;
        let red_keys: Vec<(Vec<u8>, u64)> = red
            .into_iter()
            .enumerate()
            .map(|(r, (k, _))| (k, r as u64))
            .collect();
        put(
            files,
            index::files::RED_TITLES,
            index::write_titles_kind(
                &dir.join(index::files::RED_TITLES),
                index::kinds::RED_TITLES,
                red_keys,
            )?,
        );
        put(
            files,
            index::files::RED_IN,
            csr::write(
                &dir.join(index::files::RED_IN),
                index::kinds::RED_IN,
                &red_in,
            )?,
        );
        drop(red_in);

        // Categories → members.
        let mut order: Vec<u32> = (0..self.cat_names.len() as u32).collect();
        order
            .sort_unstable_by(|&a, &b| self.cat_names[a as usize].cmp(&self.cat_names[b as usize]));
        let mut rank = vec![0u32; order.len()];
        for (r, &c) in order.iter().enumerate() {
            rank[c as usize] = r as u32;
        }
        let ranked: Vec<Vec<u32>> = self
            .page_cats
            .iter()
            .map(|cs| cs.iter().map(|&c| rank[c as usize]).collect())
            .collect();
        let members = csr::transpose(&ranked, order.len());
        counts.categories = order.len() as u64;
        let cat_keys: Vec<(Vec<u8>, u64)> = order
            .iter()
            .enumerate()
            .map(|(r, &c)| (self.cat_names[c as usize].as_bytes().to_vec(), r as u64))
            .collect();
        put(
            files,
            index::files::CATEGORIES,
            index::write_titles_kind(
                &dir.join(index::files::CATEGORIES),
                index::kinds::CATEGORIES,
                cat_keys,
            )?,
        );
        put(
            files,
            index::files::CATEGORY_MEMBERS,
            csr::write(
                &dir.join(index::files::CATEGORY_MEMBERS),
                index::kinds::CATEGORY_MEMBERS,
                &members,
            )?,
        );

        // Redirects that end on each page.
        let mut redirects: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, p) in pages.iter().enumerate() {
            if let Some(rd) = &p.rec.redirect
                && let Resolution::Page { page, .. } = rd.resolution
            {
                redirects[page as usize].push(i as u32);
            }
        }
        put(
            files,
            index::files::REDIRECTS_TO,
            csr::write(
                &dir.join(index::files::REDIRECTS_TO),
                index::kinds::REDIRECTS_TO,
                &redirects,
            )?,
        );
        Ok(())
    }
}

fn put(files: &mut BTreeMap<String, u64>, name: &str, size: u64) {
    files.insert(name.to_string(), size);
}
