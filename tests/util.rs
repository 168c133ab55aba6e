//! Shared helpers: where the shared data is, how to run the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared real data (`../shared` next to the repository, or `$WIKIWIT_SHARED`).
/// Tests fail — they are not skipped — when it is missing: CI must see the real data.
pub fn shared() -> PathBuf {
    let dir = match std::env::var_os("WIKIWIT_SHARED") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    assert!(
        dir.join("data").is_dir() && dir.join("oracle").is_dir(),
        "the shared data is missing at {} (set WIKIWIT_SHARED); these tests need the real dumps",
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
    ok(wikiwit()
        .arg("build")
        .arg(dump)
        .arg("--index")
        .arg(index)
        .arg("-q")
        .args(extra))
}

/// Runs `wikiwit export TABLE --index DIR`.
pub fn export(index: &Path, table: &str) -> String {
    ok(wikiwit().args(["export", table, "--index"]).arg(index))
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}
