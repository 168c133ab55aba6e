//! The examples of README.md and docs/guide.md, run: every command block is executed on
//! the shipped data and its output compared with what the document shows, so a renamed
//! flag or a changed output fails `cargo test` instead of leaving the documentation
//! wrong. The format is described for writers in docs/guide.md ("How these examples are
//! tested"); in short:
//!
//! - A ```` ```console ```` block is a session: `$ COMMAND` lines (a trailing `\`
//!   continues one), each followed by its expected output. Commands run with `sh` in one
//!   working directory per document, in document order, so later blocks see the files and
//!   indexes earlier ones made; `wikiwit` is the binary under test. Standard error is
//!   merged into standard output. A command must exit 0, unless its output ends with
//!   `[exit N]`. `export NAME=VALUE` sets a variable for the commands after it.
//! - `<!-- file: NAME -->` on the line before any block writes the block's text to NAME
//!   in the working directory (a contract or rows shown in full, then used).
//! - `<!-- needs: REASON -->` on the line before a block exempts it: a real download,
//!   the network, a Python or Spark installation. `sh` and `python` blocks must carry it
//!   (or `file:`); a block of another language that is not data is an error, so no
//!   command can sit in the documents unchecked.
//! - Only what depends on the machine is normalized in the output before comparison:
//!   the working directory reads `[CWD]`, a temporary directory `[TMP]`, the time an
//!   index was built (`built by wikiwit 0.1.0 at …`) `[timestamp]`, and in a line
//!   that states a duration (a number followed by `s`, `ms` or `µs`) every decimal
//!   number reads `[t]` and every rate (`517 rows/s`) `[n] rows/s`.
//!
//! `WIKIWIT_BLESS_DOCS=1 cargo test --test tests doc_examples` writes the actual outputs
//! into the documents instead of comparing (then read the diff before committing it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use regex::Regex;

use crate::util::tempdir;

/// Languages whose blocks are data: shown, never run (unless `file:` writes them).
const DATA: &[&str] = &["json", "jsonl", "csv", "text", "markdown", "toml"];

#[derive(Debug)]
struct Block {
    /// 1-based line of the opening fence.
    line: usize,
    lang: String,
    /// Lines between the fences.
    body: Vec<String>,
    needs: Option<String>,
    file: Option<String>,
}

/// One `$ COMMAND` of a console block and the output the document shows for it.
#[derive(Debug)]
struct Step {
    /// 1-based line of the `$`.
    line: usize,
    command: String,
    expected: Vec<String>,
    exit: i32,
    /// 0-based lines of the document holding the expected output and `[exit N]`
    /// (replaced when blessing).
    output_lines: std::ops::Range<usize>,
}

/// The fenced blocks of a markdown document, with the marks on the lines before them.
fn blocks(doc: &str) -> Vec<Block> {
    let lines: Vec<&str> = doc.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```") else {
            assert!(
                !lines[i].trim_start().starts_with("```"),
                "line {}: an indented fence; the runner reads fences at the start of a line",
                i + 1
            );
            i += 1;
            continue;
        };
        let start = i;
        let end = (i + 1..lines.len())
            .find(|&j| lines[j] == "```")
            .unwrap_or_else(|| panic!("line {}: the block is never closed", start + 1));
        let mut block = Block {
            line: start + 1,
            lang: lang.trim().to_string(),
            body: lines[start + 1..end]
                .iter()
                .map(|l| l.to_string())
                .collect(),
            needs: None,
            file: None,
        };
        for mark in lines[..start]
            .iter()
            .rev()
            .take_while(|l| l.starts_with("<!--"))
        {
            let inner = mark
                .trim_start_matches("<!--")
                .trim_end_matches("-->")
                .trim();
            if let Some(reason) = inner.strip_prefix("needs:") {
                block.needs = Some(reason.trim().to_string());
            } else if let Some(name) = inner.strip_prefix("file:") {
                block.file = Some(name.trim().to_string());
            }
        }
        out.push(block);
        i = end + 1;
    }
    out
}

/// A console block's steps: commands with continuation lines, and their outputs.
fn steps(block: &Block) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut k = 0;
    while k < block.body.len() {
        let line = &block.body[k];
        if let Some(first) = line.strip_prefix("$ ") {
            let start = k;
            let mut command = first.to_string();
            while command.ends_with('\\') && k + 1 < block.body.len() {
                command.truncate(command.trim_end_matches('\\').trim_end().len());
                k += 1;
                command.push(' ');
                command.push_str(block.body[k].trim_start());
            }
            let at = block.line + 1 + k;
            out.push(Step {
                line: block.line + 1 + start,
                command,
                expected: Vec::new(),
                exit: 0,
                output_lines: at..at,
            });
        } else {
            let step = out.last_mut().unwrap_or_else(|| {
                panic!(
                    "line {}: output before any `$ ` command",
                    block.line + 1 + k
                )
            });
            step.expected.push(line.clone());
            step.output_lines.end = block.line + 1 + k;
        }
        k += 1;
    }
    for step in &mut out {
        let exit = step.expected.last().and_then(|l| {
            l.strip_prefix("[exit ")
                .and_then(|r| r.strip_suffix(']'))
                .and_then(|n| n.parse().ok())
        });
        if let Some(code) = exit {
            step.exit = code;
            step.expected.pop();
        }
    }
    out
}

static DURATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+(\.\d+)? ?(s|ms|µs)\b").unwrap());
static DECIMAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d+\.\d+\b").unwrap());
static RATE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b\d+(\.\d+)? ([a-z]+)/s\b").unwrap());
static BUILT_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(built by wikiwit \S+ at )\d{4}-\d\d-\d\dT[0-9:]+Z").unwrap());
static TEMP: LazyLock<Regex> = LazyLock::new(|| {
    let tmp = regex::escape(std::env::temp_dir().to_str().unwrap().trim_end_matches('/'));
    Regex::new(&format!(r"{tmp}/\.tmp[A-Za-z0-9]{{6}}")).unwrap()
});

/// What the module's doc comment promises, and nothing more.
fn normalize(output: &str, cwd: &Path) -> Vec<String> {
    let output = output.replace(cwd.to_str().unwrap(), "[CWD]");
    let output = TEMP.replace_all(&output, "[TMP]");
    let output = BUILT_AT.replace_all(&output, "${1}[timestamp]");
    let mut lines: Vec<String> = output
        .lines()
        .map(|line| {
            let line = line.trim_end();
            if !DURATION.is_match(line) {
                return line.to_string();
            }
            let line = RATE.replace_all(line, "[n] $2/s");
            DECIMAL.replace_all(&line, "[t]").into_owned()
        })
        .collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// The directory the binaries under test are in, first on the commands' PATH.
fn path_with_binaries() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_wikiwit")).parent().unwrap();
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// Runs a step; its exit code and normalized output.
fn run(step: &Step, cwd: &Path, env: &BTreeMap<String, String>) -> (i32, Vec<String>) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1\n{}", step.command))
        .current_dir(cwd)
        .env_remove("WIKIWIT_INDEX")
        .env("PATH", path_with_binaries())
        .envs(env)
        .output()
        .expect("run sh");
    let code = out.status.code().unwrap_or(-1);
    (code, normalize(&String::from_utf8_lossy(&out.stdout), cwd))
}

/// `export NAME=VALUE`, handled by the runner so that it outlives its `sh`.
fn export(command: &str) -> Option<(String, String)> {
    let (name, value) = command.strip_prefix("export ")?.split_once('=')?;
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    Some((name.to_string(), value.to_string()))
}

/// The files of a directory tree, to notice an example writing into the repository.
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What is wrong with a block that is not run, if anything.
fn unrun_block_problem(block: &Block) -> Option<String> {
    match (block.lang.as_str(), &block.needs) {
        (_, Some(reason)) if reason.is_empty() => Some("`needs:` without a reason".into()),
        (_, Some(_)) => None,
        ("sh" | "python", None) if block.file.is_some() => None,
        ("sh" | "python", None) => Some(format!(
            "a {} block is not run: make it a console session, or mark it \
             `<!-- needs: REASON -->`",
            block.lang
        )),
        (lang, None) if DATA.contains(&lang) => None,
        (lang, None) => Some(format!(
            "a block of language {lang:?}: the runner knows console, sh, python and the \
             data languages {DATA:?}"
        )),
    }
}

/// Runs every block of `doc` (relative to the repository) and fails listing every
/// difference; or, with `WIKIWIT_BLESS_DOCS` set, writes the outputs into the document.
fn check_document(doc: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join(doc);
    let text = std::fs::read_to_string(&path).unwrap();
    let work = tempdir();
    let cwd = work.path().canonicalize().unwrap();
    std::os::unix::fs::symlink(root.join("tests"), cwd.join("tests")).unwrap();
    let before = tree(&root.join("tests/data"));
    let bless = std::env::var_os("WIKIWIT_BLESS_DOCS").is_some();
    let mut env = BTreeMap::new();
    let mut problems = Vec::new();
    let mut blessed: Vec<(std::ops::Range<usize>, Vec<String>)> = Vec::new();
    let mut ran = 0;
    for block in blocks(&text) {
        if let Some(name) = &block.file {
            std::fs::write(cwd.join(name), block.body.join("\n") + "\n").unwrap();
        }
        if block.lang != "console" || block.needs.is_some() {
            if let Some(p) = unrun_block_problem(&block) {
                problems.push(format!("{doc}:{}: {p}", block.line));
            }
            continue;
        }
        for step in steps(&block) {
            ran += 1;
            if let Some((name, value)) = export(&step.command) {
                env.insert(name, value);
                continue;
            }
            let (code, actual) = run(&step, &cwd, &env);
            if bless {
                let mut shown = actual.clone();
                if code != 0 {
                    shown.push(format!("[exit {code}]"));
                }
                blessed.push((step.output_lines.clone(), shown));
            } else if code != step.exit || actual != step.expected {
                problems.push(difference(doc, &step, code, &actual));
            }
        }
    }
    assert_eq!(
        before,
        tree(&root.join("tests/data")),
        "{doc}: an example wrote into the repository's tests/data; copy the file first"
    );
    if bless {
        bless_document(&path, &text, blessed);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
    ran
}

fn difference(doc: &str, step: &Step, code: i32, actual: &[String]) -> String {
    let mut s = format!(
        "{doc}:{}: `{}` exited {code} (the document expects {})\n",
        step.line, step.command, step.exit
    );
    let n = step.expected.len().max(actual.len());
    for i in 0..n {
        let (e, a) = (step.expected.get(i), actual.get(i));
        if e != a {
            s.push_str(&format!(
                "  first difference at output line {}:\n    document: {:?}\n    actual:   {:?}\n",
                i + 1,
                e.map(String::as_str).unwrap_or("(no line)"),
                a.map(String::as_str).unwrap_or("(no line)")
            ));
            break;
        }
    }
    s.push_str("  actual output:\n");
    for l in actual {
        s.push_str(&format!("    {l}\n"));
    }
    s.push_str("  (WIKIWIT_BLESS_DOCS=1 writes actual outputs into the document)");
    s
}

/// Replaces each step's output lines in the document, last first so ranges stay valid.
fn bless_document(
    path: &Path,
    text: &str,
    mut outputs: Vec<(std::ops::Range<usize>, Vec<String>)>,
) {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    outputs.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (range, shown) in outputs {
        lines.splice(range, shown);
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
}

#[test]
fn readme_examples_run_and_show_their_actual_output() {
    assert!(check_document("README.md") >= 5);
}

#[test]
fn guide_examples_run_and_show_their_actual_output() {
    assert!(check_document("docs/guide.md") >= 20);
}

#[test]
fn the_runner_reads_sessions_marks_and_exit_codes() {
    let doc = "intro\n<!-- needs: a real dump (26 GB) -->\n```sh\nwget x\n```\n\
               <!-- file: c.json -->\n```json\n{}\n```\n```console\n$ wikiwit a \\\n  \
               --b\nout 1\nout 2\n[exit 1]\n$ true\n```\n";
    let bs = blocks(doc);
    assert_eq!(bs.len(), 3);
    assert_eq!(bs[0].needs.as_deref(), Some("a real dump (26 GB)"));
    assert_eq!(bs[1].file.as_deref(), Some("c.json"));
    assert_eq!(unrun_block_problem(&bs[0]), None);
    let st = steps(&bs[2]);
    assert_eq!(st.len(), 2);
    assert_eq!(st[0].command, "wikiwit a --b");
    assert_eq!(st[0].expected, ["out 1", "out 2"]);
    assert_eq!((st[0].exit, st[1].exit), (1, 0));
    assert!(st[1].expected.is_empty());
    let unmarked = blocks("```sh\nrm -rf x\n```\n");
    assert!(unrun_block_problem(&unmarked[0]).is_some());
    let cwd = Path::new("/w/x");
    assert_eq!(
        normalize(
            "audited 5 rows in 0.01 s (517 rows/s)\nlength 6.5 km\n/w/x/a\n\
             (built by wikiwit 0.1.0 at 2026-12-04T15:34:12Z)\nrevision 7 of 2016-03-06T21:03:34Z\n\n",
            cwd
        ),
        [
            "audited 5 rows in [t] s ([n] rows/s)",
            "length 6.5 km",
            "[CWD]/a",
            "(built by wikiwit 0.1.0 at [timestamp])",
            "revision 7 of 2016-03-06T21:03:34Z"
        ]
    );
}

/// The README is the front door: short, and naming every subcommand `wikiwit --help`
/// lists, so a new one cannot be left out of its command table.
#[test]
fn readme_names_every_subcommand_in_at_most_200_lines() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 200,
        "README.md has grown past 200 lines"
    );
    let help = crate::util::ok(crate::util::wikiwit().arg("--help"));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 20, "{help}");
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| *l != "## Commands")
        .take_while(|l| l.starts_with('|') || l.starts_with("## Commands") || l.is_empty())
        .collect();
    let table = table.join("\n");
    let missing: Vec<&&str> = commands
        .iter()
        .filter(|c| !table.contains(&format!("`{c}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md's command table lacks {missing:?}"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-` and `_`
/// dropped, spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(doc: &str) -> Vec<String> {
    let mut in_block = false;
    let mut out = Vec::new();
    for line in doc.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
        } else if !in_block && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The documents' links to files of the repository and to their headings lead
/// somewhere: a moved section or a renamed doc fails here, not in a reader's browser.
#[test]
fn front_door_links_lead_to_files_and_headings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let link = Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut broken = Vec::new();
    let mut checked = 0;
    for doc in [
        "README.md",
        "docs/guide.md",
        "docs/commands.md",
        "docs/conformance.md",
    ] {
        let path = root.join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            for m in link.captures_iter(line) {
                let target = &m[1];
                if target.contains("://") {
                    continue;
                }
                checked += 1;
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let file = if file.is_empty() {
                    path.clone()
                } else {
                    path.parent().unwrap().join(file)
                };
                let ok = match std::fs::read_to_string(&file) {
                    Err(_) => file.is_dir() && anchor.is_empty(),
                    Ok(t) => anchor.is_empty() || anchors(&t).iter().any(|a| a == anchor),
                };
                if !ok {
                    broken.push(format!("{doc}:{}: {target}", n + 1));
                }
            }
        }
    }
    assert!(checked >= 40, "only {checked} links read");
    assert!(
        broken.is_empty(),
        "links leading nowhere:\n{}",
        broken.join("\n")
    );
}

/// Blocks the tests cannot run (a download, a server, Python, Spark) still name things
/// the repository has: the files they mention exist, and the Python package has the
/// functions and `Index` methods they call, so a rename fails here.
#[test]
fn unrun_blocks_name_files_and_python_calls_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stub = std::fs::read_to_string(root.join("python/wikiwit/__init__.pyi")).unwrap();
    let init = std::fs::read_to_string(root.join("python/wikiwit/__init__.py")).unwrap();
    let file = Regex::new(r"\b(?:python|tests|tools|docs)/[\w./-]*\w").unwrap();
    let method = Regex::new(r"\bix\.(\w+)\(").unwrap();
    let function = Regex::new(r"\bwikiwit\.(\w+)\(").unwrap();
    let mut wrong = Vec::new();
    let mut names = 0;
    for doc in ["README.md", "docs/guide.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for block in blocks(&text).iter().filter(|b| b.needs.is_some()) {
            let body = block.body.join("\n");
            for m in file.find_iter(&body) {
                names += 1;
                if !root.join(m.as_str()).exists() {
                    wrong.push(format!("{doc}:{}: no file {}", block.line, m.as_str()));
                }
            }
            for c in method.captures_iter(&body) {
                names += 1;
                if !stub.contains(&format!("def {}(", &c[1])) {
                    wrong.push(format!("{doc}:{}: no method Index.{}", block.line, &c[1]));
                }
            }
            for c in function.captures_iter(&body) {
                names += 1;
                if !init.contains(&format!("\"{}\"", &c[1])) {
                    wrong.push(format!(
                        "{doc}:{}: wikiwit exports no {}",
                        block.line, &c[1]
                    ));
                }
            }
        }
    }
    assert!(names >= 8, "only {names} names read");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
