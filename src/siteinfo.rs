//! The `<siteinfo>` header of a dump: which wiki it is and how its titles work.
//!
//! Everything title-related (namespace prefixes, first-letter capitalization) depends on
//! these values, so they are read before any page and stored in the index manifest.

use serde::{Deserialize, Serialize};

/// How the first letter of titles in a namespace is treated (`<case>` in the dump).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseRule {
    /// `first-letter`: the first character is upper-cased (`$wgCapitalLinks`).
    FirstLetter,
    /// `case-sensitive`: titles are stored exactly as written.
    CaseSensitive,
}

impl CaseRule {
    /// Parses the dump's spelling; unknown values fall back to MediaWiki's default.
    pub(crate) fn from_dump(s: &str) -> CaseRule {
        match s.trim() {
            "case-sensitive" => CaseRule::CaseSensitive,
            _ => CaseRule::FirstLetter,
        }
    }
}

/// One namespace as the dump declares it: number, localized name, case rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Namespace {
    pub id: i32,
    /// Localized name with spaces (`""` for the main namespace).
    pub name: String,
    pub case: CaseRule,
}

/// The parsed `<siteinfo>` element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteInfo {
    pub sitename: String,
    pub dbname: String,
    pub base: String,
    pub generator: String,
    pub case: CaseRule,
    /// Content language from `<mediawiki xml:lang="…">`, when present.
    pub lang: String,
    pub namespaces: Vec<Namespace>,
    /// The dump had no `<siteinfo>` (allowed by the export schema, and what some
    /// `Special:Export` files look like); MediaWiki's default English namespaces are
    /// assumed.
    #[serde(default)]
    pub synthesized: bool,
}

/// MediaWiki's built-in namespaces with their canonical English names.
const DEFAULT_NAMESPACES: &[(i32, &str)] = &[
    (-2, "Media"),
    (-1, "Special"),
    (0, ""),
    (1, "Talk"),
    (2, "User"),
    (3, "User talk"),
    (4, "Project"),
    (5, "Project talk"),
    (6, "File"),
    (7, "File talk"),
    (8, "MediaWiki"),
    (9, "MediaWiki talk"),
    (10, "Template"),
    (11, "Template talk"),
    (12, "Help"),
    (13, "Help talk"),
    (14, "Category"),
    (15, "Category talk"),
    (828, "Module"),
    (829, "Module talk"),
];

impl SiteInfo {
    /// The site assumed for a dump without `<siteinfo>`: default namespaces, first-letter
    /// case, and a database name derived from the content language.
    pub fn synthesized(lang: &str) -> SiteInfo {
        let lang_ok =
            !lang.is_empty() && lang.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        SiteInfo {
            sitename: String::new(),
            dbname: if lang_ok {
                format!("{}wiki", lang.replace('-', "_"))
            } else {
                "wiki".to_string()
            },
            base: String::new(),
            generator: String::new(),
            case: CaseRule::FirstLetter,
            lang: lang.to_string(),
            namespaces: DEFAULT_NAMESPACES
                .iter()
                .map(|&(id, name)| Namespace {
                    id,
                    name: name.to_string(),
                    case: CaseRule::FirstLetter,
                })
                .collect(),
            synthesized: true,
        }
    }

    /// The host part of `<base>` (`en.wikipedia.org`), used to pick defaults such as the
    /// interwiki profile.
    pub fn host(&self) -> &str {
        let rest = self
            .base
            .split_once("://")
            .map(|(_, r)| r)
            .unwrap_or(&self.base);
        rest.split('/').next().unwrap_or("")
    }
}
