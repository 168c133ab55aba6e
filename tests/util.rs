//! Shared helpers: where the shared data is, how to run the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The real data: `$WIKIWIT_SHARED` when set, else the copy of its small files in
/// `tests/data/shared` (so the suite runs from a clone alone; see its README).
pub fn shared() -> PathBuf {
    let dir = match std::env::var_os("WIKIWIT_SHARED") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/shared"),
    };
    assert!(
        dir.join("data").is_dir() && dir.join("oracle").is_dir(),
        "the real data is missing at {} (WIKIWIT_SHARED); these tests need the real dumps",
        dir.display()
    );
    dir
}

/// The tables `wikiwit export` writes.
pub const TABLES: [&str; 7] = [
    "pages",
    "redirects",
    "links",
    "categories",
    "templates",
    "sections",
    "text",
];

pub fn data(name: &str) -> PathBuf {
    shared().join("data").join(name)
}

pub fn oracle(name: &str) -> PathBuf {
    shared().join("oracle").join(name)
}

/// The handwritten sample wiki.
pub fn rivers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rivers/rivers-wiki.xml")
}

/// The sample wiki with its first `from` replaced by `to`, written as `dir/name`: an
/// altered or damaged copy for one test.
pub fn rivers_edited(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let xml = std::fs::read_to_string(rivers()).expect("read the sample wiki");
    assert!(xml.contains(from), "the sample wiki has no {from:?}");
    write_dump(dir, name, &xml.replacen(from, to, 1))
}

pub fn wikiwit() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_wikiwit"));
    c.env_remove("WIKIWIT_INDEX");
    c
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and requires exit code 0.
pub fn ok(cmd: &mut Command) -> String {
    let o = cmd.output().expect("run wikiwit");
    assert!(
        o.status.success(),
        "{cmd:?} failed with {:?}\nstderr:\n{}",
        o.status.code(),
        stderr(&o)
    );
    stdout(&o)
}

/// Builds `dump` into `index` with extra arguments.
pub fn build(dump: &Path, index: &Path, extra: &[&str]) -> String {
    ok(&mut build_command(dump, index, extra))
}

/// `wikiwit build DUMP --index INDEX -q EXTRA…`, not yet run.
pub fn build_command(dump: &Path, index: &Path, extra: &[&str]) -> Command {
    let mut c = wikiwit();
    c.arg("build")
        .arg(dump)
        .arg("--index")
        .arg(index)
        .arg("-q")
        .args(extra);
    c
}

/// Runs `wikiwit export TABLE --index DIR`.
pub fn export(index: &Path, table: &str) -> String {
    ok(wikiwit().args(["export", table, "--index"]).arg(index))
}

/// Runs `cmd` expecting it to refuse its input as bad input must be refused: exit code 2,
/// no panic, and each of `expect` in its message on stderr. Returns the output for the
/// caller's further checks.
pub fn refused(cmd: &mut Command, expect: &[&str]) -> Output {
    let o = cmd.output().expect("run wikiwit");
    let err = stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{cmd:?}: exit code {:?}, stderr:\n{err}",
        o.status.code()
    );
    assert!(!err.contains("panicked"), "{cmd:?} panicked:\n{err}");
    for e in expect {
        assert!(err.contains(e), "{cmd:?}: stderr lacks {e:?}:\n{err}");
    }
    o
}

/// One page of a constructed dump.
pub struct P<'a> {
    pub id: u64,
    pub ns: i32,
    pub title: &'a str,
    pub timestamp: &'a str,
    pub text: &'a str,
}

/// A page for [`dump_xml`].
pub fn page<'a>(id: u64, ns: i32, title: &'a str, timestamp: &'a str, text: &'a str) -> P<'a> {
    P {
        id,
        ns,
        title,
        timestamp,
        text,
    }
}

/// `s` as XML text.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A dump in MediaWiki's export format: `lang` is `<mediawiki xml:lang>`, `namespaces`
/// (key, case, localized name) its `<siteinfo>` list, `site_case` the `<case>`.
pub fn dump_xml(
    lang: &str,
    dbname: &str,
    site_case: &str,
    namespaces: &[(i32, &str, &str)],
    pages: &[P<'_>],
) -> String {
    let mut x = format!(
        "<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.11/\" version=\"0.11\" xml:lang=\"{lang}\">\n  <siteinfo>\n    <sitename>Test</sitename>\n    <dbname>{dbname}</dbname>\n    <base>https://{lang}.example.org/wiki/Main</base>\n    <generator>MediaWiki 1.39.0</generator>\n    <case>{site_case}</case>\n    <namespaces>\n"
    );
    for (key, case, name) in namespaces {
        x.push_str(&format!(
            "      <namespace key=\"{key}\" case=\"{case}\">{}</namespace>\n",
            escape(name)
        ));
    }
    x.push_str("    </namespaces>\n  </siteinfo>\n");
    for p in pages {
        x.push_str(&format!(
            "  <page>\n    <title>{}</title>\n    <ns>{}</ns>\n    <id>{}</id>\n    <revision>\n      <id>{}</id>\n      <timestamp>{}</timestamp>\n      <model>wikitext</model>\n      <format>text/x-wiki</format>\n      <text bytes=\"{}\" xml:space=\"preserve\">{}</text>\n    </revision>\n  </page>\n",
            escape(p.title),
            p.ns,
            p.id,
            p.id * 100,
            p.timestamp,
            p.text.len(),
            escape(p.text)
        ));
    }
    x.push_str("</mediawiki>\n");
    x
}

/// English namespaces as a first-letter wiki lists them.
pub const EN_NS: &[(i32, &str, &str)] = &[
    (0, "first-letter", ""),
    (2, "first-letter", "User"),
    (6, "first-letter", "File"),
    (10, "first-letter", "Template"),
    (14, "first-letter", "Category"),
];

/// Writes `xml` as `dir/name` and returns its path.
pub fn write_dump(dir: &Path, name: &str, xml: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, xml).unwrap();
    path
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A fresh index of the sample wiki (`DIR/ix`, for a test that may damage it) and a
/// report `DIR/report.md` holding `markdown`: what a `cite check` test starts from.
pub fn rivers_and_report(markdown: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &[]);
    let report = tmp.path().join("report.md");
    std::fs::write(&report, markdown).expect("write the report");
    (tmp, index, report)
}

/// The Python interpreter of the test environment (`tools/python-env`), from
/// `$WIKIWIT_PYTHON`. `None` means the caller skips, saying so; CI sets
/// `WIKIWIT_REQUIRE_PYTHON=1`, which turns a missing interpreter into a failure.
#[allow(dead_code)]
pub fn python(test: &str) -> Option<PathBuf> {
    match std::env::var_os("WIKIWIT_PYTHON") {
        Some(p) if Path::new(&p).is_file() => Some(PathBuf::from(p)),
        _ => {
            assert!(
                std::env::var_os("WIKIWIT_REQUIRE_PYTHON").is_none(),
                "{test}: WIKIWIT_REQUIRE_PYTHON is set but WIKIWIT_PYTHON names no interpreter \
                 (run tools/python-env)"
            );
            eprintln!(
                "{test}: skipped — set WIKIWIT_PYTHON=$(tools/python-env) to run the Python clients"
            );
            None
        }
    }
}

/// The XML of a bz2 dump (every stream).
pub fn decompress(src: &Path) -> Vec<u8> {
    let f = std::fs::File::open(src).expect("dump");
    let mut out = Vec::new();
    std::io::copy(&mut bzip2::read::MultiBzDecoder::new(f), &mut out).expect("decode");
    out
}

/// Flips one bit of the byte in the middle of `path`; returns the original bytes.
pub fn flip(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let mut damaged = bytes.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x10;
    std::fs::write(path, damaged).unwrap();
    bytes
}

/// Runs `cmd` with `WIKIWIT_FAULT_POINT=point` (`src/index/fault.rs`), which must stop it
/// there as `kill -9` would: by SIGABRT, without a panic and without a core file.
pub fn killed_at(cmd: &mut Command, point: &str) {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    cmd.env("WIKIWIT_FAULT_POINT", point);
    // SAFETY: between fork and exec only setrlimit, async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let o = cmd.output().unwrap();
    let err = stderr(&o);
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGABRT),
        "{point}: {cmd:?} was not stopped there ({:?}): {err}",
        o.status
    );
    assert!(!err.contains("panicked"), "{point}: {err}");
}
