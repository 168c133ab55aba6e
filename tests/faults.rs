//! Damaged indexes: `info --verify` finds a flipped byte in any file, and the query
//! commands refuse a damaged store with the file named.

use std::path::{Path, PathBuf};

use crate::util::*;

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Flips one bit of the byte in the middle of `path`; returns the original bytes.
fn flip(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let mut damaged = bytes.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x10;
    std::fs::write(path, damaged).unwrap();
    bytes
}

#[test]
fn verify_finds_a_flipped_byte_in_every_file() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    // A duplicate title, so that warnings.jsonl has a record to damage.
    let xml = std::fs::read_to_string(rivers()).unwrap();
    let dump = tmp.path().join("rivers-dup.xml");
    std::fs::write(
        &dump,
        xml.replacen("<title>Elbe</title>", "<title>Oder</title>", 1),
    )
    .unwrap();
    build(&dump, &index, &[]);
    ok(wikiwit().args(["info", "--verify", "--index"]).arg(&index));
    let all = files(&index);
    let mut checked = Vec::new();
    for rel in &all {
        let path = index.join(rel);
        let name = rel.file_name().unwrap().to_string_lossy().into_owned();
        // tantivy's lock files are empty and not part of the index's content.
        if name.ends_with(".lock") {
            continue;
        }
        assert!(
            std::fs::metadata(&path).unwrap().len() > 0,
            "{} is empty: nothing to flip",
            rel.display()
        );
        let original = flip(&path);
        let o = wikiwit()
            .args(["info", "--verify", "--index"])
            .arg(&index)
            .output()
            .unwrap();
        std::fs::write(&path, original).unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", rel.display());
        assert!(!err.contains("panicked"), "{}: {err}", rel.display());
        assert!(
            err.contains(&name),
            "{}: the message does not name the file: {err}",
            rel.display()
        );
        checked.push(rel.display().to_string());
    }
    assert!(checked.len() >= 15, "{checked:?}");
    for want in ["manifest.json", "pages.rec", "warnings.jsonl", "titles.fst"] {
        assert!(checked.iter().any(|c| c == want), "{want} not checked");
    }
    assert!(
        checked.iter().any(|c| c.starts_with("text/")),
        "{checked:?}"
    );
    ok(wikiwit().args(["info", "--verify", "--index"]).arg(&index));
}
