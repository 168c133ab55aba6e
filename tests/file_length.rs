//! The file-size rule of ARCHITECTURE.md ("Long files"), enforced: no `.rs` or `.lua`
//! file under `src/` is longer than [`MAX_LINES`] lines unless ARCHITECTURE.md lists it.
//! The list is read from ARCHITECTURE.md itself, so the document and the test cannot
//! disagree; a listed file that is no longer long (or no longer exists) fails too, so the
//! list does not go stale.
//!
//! A reader looks for one concern in one file; past this size a file holds several, and
//! its tests or a group of its functions belong in a submodule named for what they do.

use std::collections::BTreeSet;
use std::path::Path;

use super::fn_length::section;
use super::layers::files_with;

/// The longest a source file may be, in lines.
const MAX_LINES: usize = 1000;

/// The files ARCHITECTURE.md allows to be long: lines of the form
/// ``- `src/file.rs` — why`` under the heading "## Long files".
fn allowed(doc: &str) -> BTreeSet<String> {
    section(doc, "Long files")
        .lines()
        .filter_map(|l| Some(l.strip_prefix("- `")?.split('`').next()?.to_string()))
        .collect()
}

/// The problems with `files` (path from the repository root, line count) against the
/// allowed list: a long file not listed, and a listed file that is not long.
fn problems(files: &[(String, usize)], allowed: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut long = BTreeSet::new();
    for (rel, lines) in files {
        if *lines > MAX_LINES {
            if !allowed.contains(rel) {
                out.push(format!(
                    "{rel} is {lines} lines (limit {MAX_LINES}): split it where a reader would look for one concern"
                ));
            }
            long.insert(rel.clone());
        }
    }
    for a in allowed.difference(&long) {
        out.push(format!(
            "ARCHITECTURE.md allows {a} to be long, but it is not (or does not exist): remove it from the list"
        ));
    }
    out
}

#[test]
fn no_source_file_is_longer_than_the_limit_unless_architecture_lists_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut paths = Vec::new();
    files_with(&root.join("src"), &["rs", "lua"], &mut paths);
    assert!(
        paths
            .iter()
            .any(|p| p.extension().is_some_and(|e| e == "lua")),
        "the walk finds the Lua sources under src/"
    );
    let files: Vec<(String, usize)> = paths
        .iter()
        .map(|file| {
            let rel = file.strip_prefix(root).expect("under the root");
            let rel = rel.to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(file).expect("read source");
            (rel, text.lines().count())
        })
        .collect();
    let problems = problems(&files, &allowed(&doc));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_long_file_fails_unless_listed_and_a_stale_entry_fails() {
    let files = vec![
        ("src/a.rs".to_string(), MAX_LINES + 1),
        ("src/b.lua".to_string(), MAX_LINES + 1),
        ("src/c.rs".to_string(), MAX_LINES),
    ];
    let listed = BTreeSet::from(["src/b.lua".to_string(), "src/c.rs".to_string()]);
    assert_eq!(
        problems(&files, &listed),
        vec![
            format!(
                "src/a.rs is {} lines (limit {MAX_LINES}): split it where a reader would look for one concern",
                MAX_LINES + 1
            ),
            "ARCHITECTURE.md allows src/c.rs to be long, but it is not (or does not exist): remove it from the list"
                .to_string(),
        ]
    );
}

#[test]
fn the_file_allowlist_is_read_from_its_section_only() {
    let doc = "# A\n- `src/a.rs` — elsewhere\n## Long files\n\nText.\n- `src/b.rs` — a parser\n## Long functions\n- `src/c.rs` `f` — x\n";
    assert_eq!(allowed(doc), BTreeSet::from(["src/b.rs".to_string()]));
}
