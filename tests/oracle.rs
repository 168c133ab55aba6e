//! Conformance with real MediaWiki 1.39 (`../shared/oracle`): pages and redirects must
//! match exactly on all four oracle dumps.

use std::collections::BTreeSet;
use std::path::Path;

use crate::util::*;

/// Pages the oracle left out on purpose (`dropped.tsv`: ns, title, why).
fn dropped(oracle: &Path) -> BTreeSet<(String, String)> {
    std::fs::read_to_string(oracle.join("dropped.tsv"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() >= 2).then(|| (f[0].to_string(), f[1].to_string()))
        })
        .collect()
}

/// Rows without dropped pages; the first column is cut when `skip_id` (MediaWiki assigned
/// its own page ids on import, so pages compare by namespace and title).
fn rows(text: &str, skip_id: bool, dropped: &BTreeSet<(String, String)>) -> Vec<String> {
    text.lines()
        .map(|l| {
            if skip_id {
                l.split_once('\t').map(|x| x.1).unwrap_or("")
            } else {
                l
            }
        })
        .filter(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            f.len() < 2 || !dropped.contains(&(f[0].to_string(), f[1].to_string()))
        })
        .map(str::to_string)
        .collect()
}

/// Builds `dump` twice, complete and `--pages-only`: both exports must match the oracle
/// (and so each other).
fn check(dump: &str, oracle_name: &str) {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&data(dump), &index, &["--interwiki", "mediawiki"]);
    let pages_only = tmp.path().join("pages-only");
    build(
        &data(dump),
        &pages_only,
        &["--interwiki", "mediawiki", "--pages-only"],
    );
    let oracle = oracle(oracle_name);
    let dropped = dropped(&oracle);
    for (table, file, skip_id) in [
        ("pages", "pages.tsv", true),
        ("redirects", "redirects.tsv", false),
    ] {
        let full = export(&index, table);
        assert_eq!(
            export(&pages_only, table),
            full,
            "{dump}: --pages-only export {table} differs"
        );
        let ours = rows(&full, skip_id, &dropped);
        let theirs = rows(
            &std::fs::read_to_string(oracle.join(file)).expect("oracle file"),
            skip_id,
            &dropped,
        );
        assert!(
            !theirs.is_empty() || table == "redirects",
            "{file} is empty"
        );
        assert_eq!(
            ours, theirs,
            "{dump}: {table} differ from MediaWiki's {file}"
        );
    }
}

#[test]
fn enwiki_2016_pages_and_redirects_match_mediawiki() {
    check("enwiki-2016-206pages.xml.bz2", "enwiki-2016-206pages");
}

#[test]
fn enwiki_2020_infobox_pages_match_mediawiki() {
    check(
        "enwiki-2020-27pages-infoboxes.xml.bz2",
        "enwiki-2020-27pages-infoboxes",
    );
}

#[test]
fn enwiki_table_pages_without_siteinfo_match_mediawiki() {
    check(
        "enwiki-table-markup-5pages.xml.bz2",
        "enwiki-table-markup-5pages",
    );
}

#[test]
fn ltgwiki_localized_namespaces_and_interwiki_redirect_match_mediawiki() {
    check("ltgwiki-2017-complete.xml.bz2", "ltgwiki-2017");
}
