//! Namespace names → numbers, as MediaWiki's `Language::getNsIndex` resolves them.
//!
//! A dump lists each namespace once, under its localized name; wikitext may also use the
//! canonical English names (`Category:` on a Latgalian wiki) and the historic aliases
//! (`Image:`), which the dump does not list. All are matched case-insensitively.

use std::collections::HashMap;

use crate::siteinfo::{CaseRule, SiteInfo};

/// Canonical (English, language-independent) namespace names that every MediaWiki accepts,
/// plus those registered by the extensions Wikimedia wikis run (Scribunto's `Module`).
const CANONICAL: &[(i32, &str)] = &[
    (-2, "Media"),
    (-1, "Special"),
    (1, "Talk"),
    (2, "User"),
    (3, "User_talk"),
    (4, "Project"),
    (5, "Project_talk"),
    (6, "File"),
    (7, "File_talk"),
    (8, "MediaWiki"),
    (9, "MediaWiki_talk"),
    (10, "Template"),
    (11, "Template_talk"),
    (12, "Help"),
    (13, "Help_talk"),
    (14, "Category"),
    (15, "Category_talk"),
    (828, "Module"),
    (829, "Module_talk"),
];

/// Aliases kept for backwards compatibility in every language (`Image:` predates `File:`).
const ALIASES: &[(i32, &str)] = &[(6, "Image"), (7, "Image_talk")];

pub(crate) const NS_MEDIA: i32 = -2;
pub(crate) const NS_SPECIAL: i32 = -1;
pub(crate) const NS_MAIN: i32 = 0;
pub(crate) const NS_TALK: i32 = 1;
pub(crate) const NS_USER: i32 = 2;
pub(crate) const NS_USER_TALK: i32 = 3;
pub(crate) const NS_FILE: i32 = 6;
pub(crate) const NS_TEMPLATE: i32 = 10;
pub(crate) const NS_CATEGORY: i32 = 14;

/// Folds a namespace name the way MediaWiki compares them: underscores for spaces, lower case.
fn fold(name: &str) -> String {
    name.replace(' ', "_").to_lowercase()
}

/// The namespace table of one wiki.
#[derive(Debug, Clone)]
pub struct NamespaceTable {
    /// id → (localized name with underscores, case rule)
    names: HashMap<i32, (String, CaseRule)>,
    /// folded name (localized, canonical or alias) → id
    lookup: HashMap<String, i32>,
    site_case: CaseRule,
}

impl NamespaceTable {
    pub fn new(site: &SiteInfo) -> NamespaceTable {
        let mut names = HashMap::new();
        let mut lookup = HashMap::new();
        // Canonical names and aliases first, so that a localized name wins if a wiki
        // reuses one of them for a different namespace.
        for &(id, name) in CANONICAL.iter().chain(ALIASES) {
            lookup.insert(fold(name), id);
        }
        // The content language's own aliases, which MediaWiki accepts on top of what
        // the dump lists; a localized name below still wins a clash.
        let project = site
            .namespaces
            .iter()
            .find(|n| n.id == 4)
            .map(|n| n.name.as_str())
            .unwrap_or("Project");
        let lang = super::aliases::content_language(&site.lang, &site.dbname);
        for (id, alias) in super::aliases::for_language(&lang, project) {
            lookup.insert(fold(&alias), id);
        }
        for ns in &site.namespaces {
            let underscored = ns.name.replace(' ', "_");
            if !underscored.is_empty() {
                lookup.insert(fold(&underscored), ns.id);
            }
            names.insert(ns.id, (underscored, ns.case));
        }
        for &(id, name) in CANONICAL {
            names
                .entry(id)
                .or_insert_with(|| (name.to_string(), site.case));
        }
        NamespaceTable {
            names,
            lookup,
            site_case: site.case,
        }
    }

    /// The namespace a prefix (`"Category"`, `"kategoreja"`, `"Image"`) names, if any.
    pub(crate) fn id_of(&self, prefix: &str) -> Option<i32> {
        self.lookup.get(&fold(prefix)).copied()
    }

    /// The localized name with underscores (`"User_talk"`); `""` for the main namespace.
    pub(crate) fn name_of(&self, id: i32) -> Option<&str> {
        self.names.get(&id).map(|(n, _)| n.as_str())
    }

    /// Whether titles in namespace `id` get their first letter upper-cased.
    pub(crate) fn is_capitalized(&self, id: i32) -> bool {
        let case = self
            .names
            .get(&id)
            .map(|(_, c)| *c)
            .unwrap_or(self.site_case);
        case == CaseRule::FirstLetter
    }

    /// The canonical (English) name of namespace `id`, with underscores.
    pub(crate) fn canonical_of(&self, id: i32) -> Option<&'static str> {
        CANONICAL.iter().find(|(i, _)| *i == id).map(|&(_, n)| n)
    }

    /// Other names that still lead to a namespace (canonical names where the wiki
    /// localizes them, and `Image`), as `meta=siteinfo&siprop=namespacealiases` lists
    /// them: (id, name with underscores).
    pub fn aliases(&self) -> Vec<(i32, &'static str)> {
        CANONICAL
            .iter()
            .chain(ALIASES)
            .filter(|&&(id, name)| {
                self.lookup.get(&fold(name)) == Some(&id)
                    && self
                        .name_of(id)
                        .is_some_and(|local| fold(local) != fold(name))
            })
            .copied()
            .collect()
    }

    /// All namespace ids the wiki declares, in ascending order.
    pub fn ids(&self) -> Vec<i32> {
        let mut ids: Vec<i32> = self.names.keys().copied().collect();
        ids.sort_unstable();
        ids
    }
}
