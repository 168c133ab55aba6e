//! What consecutive rows share, kept by the worker checking them.
//!
//! Staged rows cite their sources in runs: the rows of one table follow each other, and
//! a row's variants (respellings, a value or key from another row) repeat its locator,
//! its source page and most of its values. Checked one by one, each of those rows would
//! parse the same locator, resolve it to the same cells (copied out of the shared page
//! cache), look the same titles up in the shared title cache (a lock and a copy per
//! lookup) and fold the same cell texts to compare the same values. A `RowMemo` lives as
//! long as one chunk of rows on one worker and remembers those answers; they depend only
//! on the index and the row's own text, so what a row is found to say is the same with or
//! without it.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::Ctx;
use super::values::{self, Verdict};
use crate::index::IndexError;
use crate::locator::{Locator, LocatorError, Resolution, Resolved, Unresolved};

/// Locators remembered: a run's own locator and the few others its faulty variants name
/// between two of its rows (another row, another section).
const LOCATORS: usize = 4;
/// Titles remembered before the map is emptied (a chunk names a few hundred).
const TITLES: usize = 4096;

/// A row locator as its source page reads it, and what it resolves to.
pub(crate) struct MemoLocator {
    page: String,
    raw: String,
    pub parsed: Result<Rc<Locator>, LocatorError>,
    /// The page a full locator's page part names (`None` inside: no page).
    named_page: Option<Option<u32>>,
    resolved: Option<Result<Rc<Resolved>, Unresolved>>,
    /// Verdicts on the row locator's evidence, by column and staged value.
    verdicts: Vec<(usize, String, Rc<[Verdict]>)>,
    /// What the resolved content says, as findings quote it.
    excerpt: Option<String>,
}

/// Answers shared by the rows of one chunk (see the module's comment). Its two parts
/// are borrowed apart: matching a value against a locator's evidence looks titles up.
#[derive(Default)]
pub(crate) struct RowMemo {
    pub titles: TitleMemo,
    pub locators: LocatorMemo,
    pub folds: FoldMemo,
}

/// Key texts folded ([`values::fold`]): a table's rows repeat its name in their key, and
/// a name with a dash or an accent is folded through Unicode decomposition, which cost a
/// tenth of an audit's time when every row folded its key again.
#[derive(Default)]
pub(crate) struct FoldMemo(FxHashMap<String, String>);

impl FoldMemo {
    /// `values::fold(text)`, remembered for text that is not plain ASCII.
    pub fn fold(&mut self, text: &str) -> String {
        // Plain ASCII folds byte by byte, as fast as a lookup.
        if text.is_ascii() && !text.contains('[') {
            return values::fold(text);
        }
        if let Some(f) = self.0.get(text) {
            return f.clone();
        }
        let f = values::fold(text);
        if self.0.len() >= TITLES {
            self.0.clear();
        }
        self.0.insert(text.to_string(), f.clone());
        f
    }
}

/// The page a title names, redirects followed (`None`: no page).
#[derive(Default)]
pub(crate) struct TitleMemo(RefCell<FxHashMap<String, Option<u32>>>);

/// Row locators, the most recently used last.
#[derive(Default)]
pub(crate) struct LocatorMemo(Vec<MemoLocator>);

impl TitleMemo {
    /// The final page `title` names, as [`crate::locator::Resolver::find_page`] finds it.
    pub fn page_of(&self, ctx: &Ctx<'_>, title: &str) -> Result<Option<u32>, IndexError> {
        if let Some(&p) = self.0.borrow().get(title) {
            return Ok(p);
        }
        let p = ctx.resolver.find_page(title)?.ok().map(|x| x.0);
        let mut titles = self.0.borrow_mut();
        if titles.len() >= TITLES {
            titles.clear();
        }
        titles.insert(title.to_string(), p);
        Ok(p)
    }
}

impl LocatorMemo {
    /// The row locator `raw` of a row citing `page`, parsed (made the most recent).
    pub fn get(&mut self, raw: &str, page: &str) -> &mut MemoLocator {
        let at = self.0.iter().position(|l| l.raw == raw && l.page == page);
        match at {
            // Most rows repeat the last row's locator: nothing moves.
            Some(i) if i + 1 == self.0.len() => {}
            Some(i) => {
                let l = self.0.remove(i);
                self.0.push(l);
            }
            None => {
                if self.0.len() >= LOCATORS {
                    self.0.remove(0);
                }
                self.0.push(MemoLocator {
                    page: page.to_string(),
                    raw: raw.to_string(),
                    parsed: crate::locator::parse_relative(raw, page).map(Rc::new),
                    named_page: None,
                    resolved: None,
                    verdicts: Vec::new(),
                    excerpt: None,
                });
            }
        }
        self.0.last_mut().expect("just pushed")
    }
}

impl MemoLocator {
    /// The excerpt of `resolved` (what this locator resolved to), made once: a run's
    /// faulty rows quote the same row of cells.
    pub fn excerpt(&mut self, resolved: &Resolved) -> String {
        self.excerpt
            .get_or_insert_with(|| resolved.content.excerpt())
            .clone()
    }

    /// The final page the locator's page part names (it has one: a full locator).
    pub fn named_page(&mut self, ctx: &Ctx<'_>) -> Result<Option<u32>, IndexError> {
        if let Some(p) = self.named_page {
            return Ok(p);
        }
        let p = match &self.parsed {
            Ok(l) => match &l.page {
                Some(spec) => ctx.resolver.find_spec(spec)?.ok().map(|x| x.0),
                None => None,
            },
            Err(_) => None,
        };
        self.named_page = Some(p);
        Ok(p)
    }

    /// What `loc`, this locator parsed, resolves to.
    pub fn resolve(
        &mut self,
        ctx: &Ctx<'_>,
        loc: &Locator,
    ) -> Result<Result<Rc<Resolved>, Unresolved>, IndexError> {
        if let Some(r) = &self.resolved {
            return Ok(r.clone());
        }
        let r = match ctx.resolver.resolve(loc)? {
            Resolution::Found(r) => Ok(Rc::new(*r)),
            Resolution::Unresolved(u) => Err(u),
        };
        self.resolved = Some(r.clone());
        Ok(r)
    }
}

/// The verdicts on column `col`'s staged `value` against a locator's evidence: remembered
/// in the row locator's `entry`, computed by `judge` the first time; without an entry (a
/// cell locator's evidence), computed.
pub(crate) fn judged(
    entry: Option<&mut MemoLocator>,
    col: usize,
    value: &str,
    judge: impl FnOnce() -> Vec<Verdict>,
) -> Rc<[Verdict]> {
    let Some(entry) = entry else {
        return judge().into();
    };
    // A locator's rows stage a few values per column: a list is searched fastest.
    if let Some((_, _, v)) = entry
        .verdicts
        .iter()
        .find(|(c, v, _)| *c == col && v == value)
    {
        return v.clone();
    }
    let v: Rc<[Verdict]> = judge().into();
    entry.verdicts.push((col, value.to_string(), v.clone()));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys as staged rows spell them: the generator's "page — table N" (an em dash),
    /// the rivers fixture's accented names, a footnote mark, and plain ASCII.
    const KEYS: [&str; 7] = [
        "\"Weird Al\" Yankovic — table 1",
        "Paraná",
        "Amazon – Peru, Colombia and Brazil",
        "São Francisco[1]",
        "Rhine[a]",
        "  Danube  ",
        "1997",
    ];

    #[test]
    fn a_remembered_fold_is_the_fold() {
        let mut m = FoldMemo::default();
        // First sight, then remembered (in another order), then after the map was
        // emptied: always what `values::fold` says.
        for round in 0..3 {
            if round == 2 {
                for i in 0..TITLES {
                    m.fold(&format!("Zürich — table {i}"));
                }
            }
            let order: Vec<&str> = if round == 1 {
                KEYS.iter().rev().copied().collect()
            } else {
                KEYS.to_vec()
            };
            for k in order {
                assert_eq!(m.fold(k), values::fold(k), "{k:?} in round {round}");
            }
        }
        assert!(m.0.len() <= TITLES);
        // Non-ASCII and footnoted keys are remembered; ASCII ones are folded each time.
        assert!(m.0.contains_key("Paraná") && m.0.contains_key("Rhine[a]"));
        assert!(!m.0.contains_key("1997"));
    }
}
