//! List pages: `List of …` pages and pages that are mostly lists or tables of links.
//!
//! A list page is where a table's rows usually come from, so the frontier operators look
//! for them first; the flag is computed from the title (the wiki's own naming, where
//! known) and from the page's shape, so that unlabelled lists are found too. The build
//! computes it from a page's structure and stores it in the page record, so it sits here,
//! below the index, rather than with `siblings`, which reads the flag back.

use crate::title::{NS_MAIN, Title};
use crate::wikitext::{Context, PageStructure};

/// Title patterns of list pages by language: (prefixes, words anywhere in the title).
fn title_patterns(lang: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match lang {
        "ltg" => (&[], &["saroksts", "saroksti"]),
        "lv" => (&[], &["saraksts", "saraksti"]),
        "de" => (&["Liste_"], &[]),
        "fr" => (&["Liste_"], &[]),
        "es" => (&["Anexo:"], &[]),
        "it" => (&["Lista_", "Liste_"], &[]),
        _ => (&["List_of_", "Lists_of_"], &[]),
    }
}

/// Whether the title alone marks a list page.
pub(crate) fn is_list_title(dbkey: &str, lang: &str) -> bool {
    let (prefixes, words) = title_patterns(lang);
    // English prefixes apply everywhere (many wikis keep English-titled lists).
    let english = ["List_of_", "Lists_of_"];
    let lower = dbkey.to_lowercase();
    prefixes
        .iter()
        .chain(english.iter())
        .any(|p| dbkey.starts_with(p))
        || words.iter().any(|w| lower.split('_').any(|t| t == *w))
}

/// Minimum links in lists and tables before a page's shape makes it a list page.
const MIN_LISTED_LINKS: usize = 15;

/// A main-namespace page is a list page if its title says so, or if at least half of its
/// own (non-template) links sit in lists or tables and there are at least 15 of them.
pub(crate) fn is_list_page(title: &Title, s: &PageStructure, lang: &str) -> bool {
    if title.ns != NS_MAIN {
        return false;
    }
    if is_list_title(&title.dbkey, lang) {
        return true;
    }
    let own: Vec<_> = s
        .links
        .iter()
        .filter(|l| !l.in_template && l.ns == NS_MAIN)
        .collect();
    let listed = own
        .iter()
        .filter(|l| matches!(l.context, Context::List | Context::Table))
        .count();
    listed >= MIN_LISTED_LINKS && listed * 2 >= own.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_titles() {
        assert!(is_list_title("List_of_transboundary_rivers", "en"));
        assert!(is_list_title("Latgolys_azaru_saroksts", "ltg"));
        assert!(!is_list_title("Listeria", "en"));
        assert!(!is_list_title("Danube", "en"));
    }
}
