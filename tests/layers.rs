//! The layering rule of ARCHITECTURE.md ("Layers"), enforced: a module never names a
//! module of a higher layer. Reads every `.rs` file under `src/`, finds the `crate::…`
//! paths outside comments and string literals, and compares the layer of the file's
//! top-level module with the layer of the module it names.
//!
//! A source scan rather than a compiler query: it needs no extra tooling, runs in
//! milliseconds, and its failure names the file and line to fix.

use std::path::{Path, PathBuf};

/// Every top-level module and its layer, as listed in ARCHITECTURE.md. A module missing
/// here fails the test, so a new module has to be placed deliberately.
const LAYERS: &[(&str, u8)] = &[
    // 0: from dump bytes to pages, titles, wikitext syntax and evidence text.
    ("dump", 0),
    ("title", 0),
    ("siteinfo", 0),
    ("redirect", 0),
    ("url", 0),
    ("wikitext", 0),
    ("text", 0),
    ("json_file", 0),
    ("chunk_crc", 0),
    // 1: template expansion (parser functions, Scribunto), on the syntax of layer 0.
    ("expand", 1),
    // 2: a page analysed as written and after expansion, merged.
    ("analysis", 2),
    // 3: the on-disk index and its builder.
    ("index", 3),
    ("indexer", 3),
    // 4: reading the index.
    ("query", 4),
    ("locator", 4),
    ("resolve", 4),
    ("export", 4),
    ("siblings", 4),
    // 5: the checks built on reading.
    ("audit", 5),
    ("frontier", 5),
    ("eval", 5),
    ("cite", 5),
    // 6: the index served to clients (HTTP Action API, /v1/, MCP) and the pages for
    // people (HTML reports and page views), which render the checks' results.
    ("html", 6),
    ("serve", 6),
    // 7: the binary (`src/main.rs`, `src/cli/`), which may name anything.
    ("main", 7),
    ("cli", 7),
];

fn layer(module: &str) -> Option<u8> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|&(_, l)| l)
}

/// Replaces comments (line, doc, nested block) and the contents of string and char
/// literals by spaces, keeping newlines so that byte offsets still give line numbers.
/// A `crate::x` inside a doc link or an error message names nothing.
pub(crate) fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let prev_ident = i > 0 && ident(b[i - 1]);
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' | b'b' if !prev_ident && raw_string_start(&b[i..]).is_some() => {
                let (hashes, open) = raw_string_start(&b[i..]).unwrap_or_default();
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let body = i + open;
                let end = b[body..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |p| body + p + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, (j + 1).min(b.len()));
                i = j + 1;
            }
            b'\'' => {
                // A char or byte literal ('a', b'"', '\'', '\u{..}'), not a lifetime ('a).
                let end = if b.get(i + 1) == Some(&b'\\') {
                    b.get(i + 3..)
                        .and_then(|rest| rest.iter().position(|&c| c == b'\''))
                        .map(|p| i + 4 + p)
                } else {
                    let len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + len) == Some(&b'\'')).then_some(i + 2 + len)
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// For `r"`, `r#"`, `br##"` …: the number of `#` and the length of the opening.
fn raw_string_start(b: &[u8]) -> Option<(usize, usize)> {
    let r = usize::from(b.first() == Some(&b'b'));
    if b.get(r) != Some(&b'r') {
        return None;
    }
    let hashes = b[r + 1..].iter().take_while(|&&c| c == b'#').count();
    (b.get(r + 1 + hashes) == Some(&b'"')).then_some((hashes, r + 2 + hashes))
}

/// The top-level modules named by `crate::` paths in `code`, with their byte offsets:
/// `crate::a::b` names `a`; `crate::{a::x, b}` names `a` and `b`.
fn named_modules(code: &str) -> Vec<(usize, String)> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let word_at = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        let start = j;
        while j < b.len() && ident(b[j]) {
            j += 1;
        }
        (start, j)
    };
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("crate") {
        let at = from + p;
        from = at + 5;
        if at > 0 && ident(b[at - 1]) || b.get(at + 5).is_some_and(|&c| ident(c)) {
            continue;
        }
        let mut j = at + 5;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if !code[j..].starts_with("::") {
            continue;
        }
        j += 2;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if b.get(j) != Some(&b'{') {
            let (s, e) = word_at(j);
            found.push((at, code[s..e].to_string()));
            continue;
        }
        // A group: the first word of each item at depth 1.
        let (mut depth, mut item_start) = (0usize, true);
        while j < b.len() {
            match b[j] {
                b'{' => {
                    depth += 1;
                    if depth == 1 {
                        item_start = true;
                    }
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => item_start = true,
                c if depth == 1 && item_start && ident(c) => {
                    let (s, e) = word_at(j);
                    found.push((at, code[s..e].to_string()));
                    item_start = false;
                    j = e;
                    continue;
                }
                _ => {}
            }
            j += 1;
        }
    }
    found
}

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    files_with(dir, &["rs"], out);
}

/// Every file under `dir` whose extension is one of `extensions`, in path order.
pub(crate) fn files_with(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src/")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_with(&path, extensions, out);
        } else if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            out.push(path);
        }
    }
}

/// The violations in one file: `path:line: <module> (layer a) names crate::<m> (layer b)`.
fn violations(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src/");
    let top = rel
        .components()
        .next()
        .and_then(|c| c.as_os_str().to_str())
        .expect("UTF-8 path");
    let top = top.strip_suffix(".rs").unwrap_or(top);
    let text = std::fs::read_to_string(file).expect("read source file");
    let code = code_only(&text);
    let line = |at: usize| code[..at].matches('\n').count() + 1;
    let shown = Path::new("src").join(rel);
    if top == "lib" {
        // The crate root declares the modules; each must be placed in a layer.
        return code
            .lines()
            .enumerate()
            .filter_map(|(n, l)| {
                let m = l
                    .trim()
                    .strip_prefix("pub mod ")
                    .or(l.trim().strip_prefix("mod "))?;
                let m = m.trim_end_matches(';').trim();
                layer(m)
                    .is_none()
                    .then(|| format!("{}:{}: module `{m}` is in no layer", shown.display(), n + 1))
            })
            .collect();
    }
    let Some(own) = layer(top) else {
        return vec![format!(
            "{}: top-level module `{top}` is in no layer",
            shown.display()
        )];
    };
    named_modules(&code)
        .into_iter()
        .filter_map(|(at, m)| match layer(&m) {
            None => Some(format!(
                "{}:{}: `crate::{m}` names a module that is in no layer",
                shown.display(),
                line(at)
            )),
            Some(l) if l > own => Some(format!(
                "{}:{}: `{top}` (layer {own}) names `crate::{m}` (layer {l})",
                shown.display(),
                line(at)
            )),
            Some(_) => None,
        })
        .collect()
}

#[test]
fn no_module_names_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 50, "found only {} files in src/", files.len());
    let found: Vec<String> = files.iter().flat_map(|f| violations(&src, f)).collect();
    assert!(
        found.is_empty(),
        "layering violations (see ARCHITECTURE.md, Layers):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scanner_sees_paths_and_ignores_comments_and_strings() {
    let code = code_only(
        "use crate::{a::X, b, self_c::{d, e}};\n\
         // crate::hidden\n\
         /// [`crate::doc`]\n\
         /* crate::block /* nested */ crate::still */\n\
         let s = \"crate::string\"; let r = r#\"crate::raw\"#; let c = ('\"', b'\"', '\\'');\n\
         fn f<'a>(x: &'a str) { crate::f::g(x); crate :: spaced::h(); my_crate::no(); }\n",
    );
    let names: Vec<String> = named_modules(&code).into_iter().map(|(_, m)| m).collect();
    assert_eq!(names, ["a", "b", "self_c", "f", "spaced"]);
}
