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

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
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
