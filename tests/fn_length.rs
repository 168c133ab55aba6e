//! The size rule of ARCHITECTURE.md ("Long functions"), enforced: no function under `src/`
//! is longer than [`MAX_LINES`] lines unless ARCHITECTURE.md lists it. The list is read
//! from ARCHITECTURE.md itself, so the document and the test cannot disagree; a listed
//! function that is no longer long fails too, so the list does not go stale.
//!
//! Orchestration (read, then decide, then write) reads best as named phases; parsers and
//! state machines are one loop over input and may stay long.

use std::collections::BTreeSet;
use std::path::Path;

use super::layers::{code_only, rust_files};

/// The longest a function may be, counted from its `fn` line to its closing brace.
const MAX_LINES: usize = 120;

/// A function: `path/from/repo.rs name`, and its length in lines.
#[derive(Debug)]
struct Function {
    key: String,
    lines: usize,
}

/// Every function in `code` (comments and literals already blanked), with its length.
/// A function's body runs from the first `{` after its name to the matching `}`; a
/// declaration ending in `;` (a trait method without body) has none.
fn functions(rel: &str, code: &str) -> Vec<Function> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = code[i..].find("fn ") {
        let at = i + p;
        i = at + 3;
        if at > 0 && ident(b[at - 1]) {
            continue;
        }
        let name: String = code[i..]
            .trim_start()
            .bytes()
            .take_while(|&c| ident(c))
            .map(char::from)
            .collect();
        if name.is_empty() {
            continue; // `fn(` in a type
        }
        let Some(open) = code[i..].find(['{', ';']).map(|q| i + q) else {
            break;
        };
        if b[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = open;
        for (j, &c) in b.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = |pos: usize| code[..pos].matches('\n').count();
        out.push(Function {
            key: format!("{rel} {name}"),
            lines: line(close) - line(at) + 1,
        });
    }
    out
}

/// The functions ARCHITECTURE.md allows to be long: lines of the form
/// ``- `src/file.rs` `name` — why`` under the heading "## Long functions".
fn allowed(doc: &str) -> BTreeSet<String> {
    section(doc, "Long functions")
        .lines()
        .filter_map(|l| {
            let mut parts = l.strip_prefix("- `")?.split('`');
            let file = parts.next()?;
            let name = parts.nth(1)?;
            Some(format!("{file} {name}"))
        })
        .collect()
}

/// The text of ARCHITECTURE.md's section `## {heading}`, up to the next `## ` heading.
pub(crate) fn section<'d>(doc: &'d str, heading: &str) -> &'d str {
    doc.split("\n## ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has a \"## {heading}\" section"))
}

#[test]
fn no_function_is_longer_than_the_limit_unless_architecture_lists_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let allowed = allowed(&doc);
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut long = BTreeSet::new();
    let mut problems = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(root).expect("under the root");
        let rel = rel.to_string_lossy().replace('\\', "/");
        let src = std::fs::read_to_string(file).expect("read source");
        for f in functions(&rel, &code_only(&src)) {
            if f.lines > MAX_LINES {
                if !allowed.contains(&f.key) {
                    problems.push(format!(
                        "{} is {} lines (limit {MAX_LINES})",
                        f.key, f.lines
                    ));
                }
                long.insert(f.key);
            }
        }
    }
    for a in allowed.difference(&long) {
        problems.push(format!(
            "ARCHITECTURE.md allows {a} to be long, but it is not (or does not exist): remove it from the list"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scanner_measures_bodies_and_skips_declarations() {
    let code = "trait T {\n    fn decl(&self);\n}\nfn short() {\n    let _ = 1;\n}\nfn outer(f: fn(u8) -> u8) -> u8 {\n    fn inner() {}\n    f(1)\n}\n";
    let found: Vec<(String, usize)> = functions("x.rs", code)
        .into_iter()
        .map(|f| (f.key, f.lines))
        .collect();
    assert_eq!(
        found,
        vec![
            ("x.rs short".to_string(), 3),
            ("x.rs outer".to_string(), 4),
            ("x.rs inner".to_string(), 1),
        ]
    );
}

#[test]
fn the_allowlist_is_read_from_its_section_only() {
    let doc = "# A\n- `src/a.rs` `not_here` — elsewhere\n## Long functions\n\nText.\n- `src/b.rs` `parse` — a parser\n## Next\n- `src/c.rs` `nor_here` — x\n";
    assert_eq!(allowed(doc), BTreeSet::from(["src/b.rs parse".to_string()]));
}
