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

#[test]
fn verify_finds_a_flipped_byte_in_every_file() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    // A duplicate title, so that warnings.jsonl has a record to damage.
    let dump = rivers_edited(
        tmp.path(),
        "rivers-dup.xml",
        "<title>Elbe</title>",
        "<title>Oder</title>",
    );
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
        // The message names the damaged file.
        refused(
            wikiwit().args(["info", "--verify", "--index"]).arg(&index),
            &[&name],
        );
        std::fs::write(&path, original).unwrap();
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

/// A build that runs out of space (a file-size limit, `RLIMIT_FSIZE`, on the child): a
/// clear error naming the file that could not be written, exit 2, the previous index
/// intact and no temporary files left beside it.
#[test]
fn a_build_out_of_disk_space_fails_cleanly() {
    use std::os::unix::process::CommandExt;
    let tmp = tempdir();
    let parent = tmp.path().join("indexes");
    std::fs::create_dir(&parent).unwrap();
    let index = parent.join("ix");
    build(&rivers(), &index, &[]);
    let before = export(&index, "pages");
    let listing = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let parent_before = listing(&parent);
    let mut cmd = wikiwit();
    cmd.arg("build")
        .arg(data("enwiki-2016-206pages.xml.bz2"))
        .arg("--index")
        .arg(&index)
        .arg("-q");
    // SAFETY: between fork and exec only async-signal-safe calls (signal, setrlimit).
    unsafe {
        cmd.pre_exec(|| {
            // Writes past the limit fail with EFBIG instead of killing the process.
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: 256 << 10,
                rlim_max: 256 << 10,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let err = stderr(&refused(&mut cmd, &["File too large"]));
    assert!(
        err.contains(".wikiwit-building-") || err.contains(&*index.to_string_lossy()),
        "the message names no file: {err}"
    );
    assert_eq!(
        export(&index, "pages"),
        before,
        "the previous index changed"
    );
    assert_eq!(listing(&parent), parent_before, "left behind");
    ok(wikiwit().args(["info", "--verify", "--index"]).arg(&index));
}

/// A reader of an index while new builds publish over it sees the old or the new index,
/// never a mix of the two.
#[test]
fn a_reader_during_publish_sees_the_old_or_the_new_index() {
    let tmp = tempdir();
    let other = rivers_edited(
        tmp.path(),
        "rivers-b.xml",
        "<title>Elbe</title>",
        "<title>Labe</title>",
    );
    let (a_ix, b_ix) = (tmp.path().join("a"), tmp.path().join("b"));
    build(&rivers(), &a_ix, &["--no-text"]);
    build(&other, &b_ix, &["--no-text"]);
    let (a, b) = (export(&a_ix, "pages"), export(&b_ix, "pages"));
    assert_ne!(a, b);
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &["--no-text"]);
    let done = std::sync::atomic::AtomicBool::new(false);
    let (mut seen_a, mut seen_b) = (0, 0);
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..6 {
                let dump = if i % 2 == 0 { &other } else { &rivers() };
                build(dump, &index, &["--no-text"]);
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            let o = wikiwit()
                .args(["export", "pages", "--index"])
                .arg(&index)
                .output()
                .unwrap();
            let out = stdout(&o);
            if o.status.success() {
                if out == a {
                    seen_a += 1;
                } else if out == b {
                    seen_b += 1;
                } else {
                    panic!("a mix of two indexes:\n{out}");
                }
            } else {
                assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
            }
        }
    });
    assert!(seen_a + seen_b > 0);
    assert_eq!(
        export(&index, "pages"),
        a,
        "the last build was the first dump"
    );
}

/// Where the kill harness aborts a build (`WIKIWIT_FAULT_POINT`, see
/// `src/index/fault.rs`): the n-th passage (0-based) through the named point, spread
/// over the phases — pages read, the text index fed, titles sorted, redirects
/// resolved, store blocks and adjacency files written, the text index committed, the
/// new index published (after the manifest, after syncing, after the swap). The dump
/// has 206 pages, 100 of them redirects.
const KILL_POINTS: [&str; 20] = [
    "read:0",
    "read:50",
    "read:120",
    "read:205",
    "text:0",
    "text:100",
    "titles:0",
    "titles:150",
    "redirects:0",
    "redirects:99",
    "store:0",
    "store:3",
    "store:8",
    "csr:0",
    "csr:4",
    "text-commit:0",
    "text-commit:1",
    "publish:0",
    "publish:1",
    "publish:2",
];

/// Names in `dir` other than the index and its lock file: what killed builds left.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "ix" && n != ".ix.lock")
        .collect();
    v.sort();
    v
}

/// The kill harness: a build of a real dump over an existing index dies at each of 20
/// points across its phases, as `kill -9` would leave it. After each death the index in
/// place verifies and answers as the previous one did (the new one once the swap is
/// done), the next build removes what the dead one left, and a last build succeeds with
/// nothing left beside the index.
#[test]
fn a_build_killed_at_any_phase_leaves_the_previous_index_intact() {
    let tmp = tempdir();
    let parent = tmp.path().join("indexes");
    std::fs::create_dir(&parent).unwrap();
    let index = parent.join("ix");
    let dump = data("enwiki-2016-206pages.xml.bz2");
    build(&data("enwiki-2020-27pages-infoboxes.xml.bz2"), &index, &[]);
    let old = export(&index, "pages");
    let fresh = tmp.path().join("fresh");
    build(&dump, &fresh, &["-j", "2"]);
    let new = export(&fresh, "pages");
    assert_ne!(old, new);
    let mut left_before: Vec<String> = Vec::new();
    for point in KILL_POINTS {
        killed_at(&mut build_command(&dump, &index, &["-j", "2"]), point);
        ok(wikiwit().args(["info", "--verify", "--index"]).arg(&index));
        let after_swap = point == "publish:2";
        let want = if after_swap { &new } else { &old };
        assert_eq!(
            &export(&index, "pages"),
            want,
            "{point}: the index in place changed"
        );
        let left = leftovers(&parent);
        assert!(left.len() <= 1, "{point}: {left:?}");
        assert!(
            left.iter().all(|n| !left_before.contains(n)),
            "{point}: the build did not remove {left_before:?}"
        );
        left_before = left;
    }
    assert!(
        !left_before.is_empty(),
        "the last kill left its staging directory"
    );
    build(&dump, &index, &["-j", "2"]);
    assert_eq!(leftovers(&parent), Vec::<String>::new());
    ok(wikiwit().args(["info", "--verify", "--index"]).arg(&index));
    assert_eq!(export(&index, "pages"), new);
}

/// Runs `args` on `index` (it must succeed), then again with one bit of `file` flipped
/// in its middle: the command must refuse with exit 2, no panic, and a message naming
/// the file and holding each of `wants`. The file is restored afterwards.
fn refused_when_damaged(index: &Path, file: &str, args: &[&str], wants: &[&str]) {
    let path = index.join(file);
    ok(wikiwit().args(args).arg("--index").arg(index));
    let original = flip(&path);
    let wants: Vec<&str> = [file].into_iter().chain(wants.iter().copied()).collect();
    refused(wikiwit().args(args).arg("--index").arg(index), &wants);
    std::fs::write(&path, original).unwrap();
}

/// A flipped byte inside a block of a record store, which queries read without the
/// whole-file check of `info --verify`: every command reading that block refuses with
/// exit 2 and a message naming the file, the block and its bytes.
#[test]
fn query_commands_refuse_a_damaged_block() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &[]);
    let cases: [(&str, &[&str]); 6] = [
        ("pages.rec", &["resolve", "Danube"]),
        ("pages.rec", &["page", "Danube"]),
        ("structure.rec", &["sections", "Danube"]),
        ("structure.rec", &["links", "Danube"]),
        ("structure.rec", &["infobox", "Danube"]),
        ("text.rec", &["text", "Danube"]),
    ];
    // The file's middle is inside its one block (the table and trailer are short).
    for (file, args) in cases {
        refused_when_damaged(&index, file, args, &["block 0", "bytes ", "CRC-32"]);
    }
}

/// A flipped byte in the title maps and adjacency files, which queries read a few bytes
/// at a time: the title maps are checked whole when opened, the adjacency files chunk
/// by chunk as rows are read; either way the command refuses with exit 2 and names the
/// file instead of answering from damaged bytes.
#[test]
fn query_commands_refuse_damaged_title_maps_and_adjacency_files() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &[]);
    let europe = "Category:Rivers of Europe";
    let cases: [(&str, &[&str], &[&str]); 6] = [
        ("titles.fst", &["resolve", "Danube"], &["CRC-32"]),
        ("categories.fst", &["category", europe], &["CRC-32"]),
        (
            "links-in.csr",
            &["links", "--in", "Danube"],
            &["chunk 0", "CRC-32"],
        ),
        (
            "redirects-to.csr",
            &["page", "Danube"],
            &["chunk 0", "CRC-32"],
        ),
        (
            "category-members.csr",
            &["category", europe],
            &["chunk 0", "CRC-32"],
        ),
        ("links-out.csr", &["siblings", "Danube"], &["CRC-32"]),
    ];
    for (file, args, wants) in cases {
        refused_when_damaged(&index, file, args, wants);
    }
}

/// A flipped byte in any file of the full-text index (`text/`), which tantivy itself
/// checks only when asked to read every byte: `search` checks each 64 KiB chunk it reads
/// against `text/chunks.crc32` and refuses with exit 2 and the file named. The sample
/// wiki's files are one chunk each, so one search reads a chunk of every file.
#[test]
fn search_refuses_a_damaged_full_text_index_file() {
    let tmp = tempdir();
    let index = tmp.path().join("ix");
    build(&rivers(), &index, &[]);
    let mut checked = Vec::new();
    for rel in files(&index.join("text")) {
        let name = rel.display().to_string();
        if name.ends_with(".lock") {
            continue;
        }
        let file = format!("text/{name}");
        refused_when_damaged(&index, &file, &["search", "river"], &["corrupt index data"]);
        checked.push(name);
    }
    for suffix in [
        "chunks.crc32",
        "meta.json",
        ".idx",
        ".term",
        ".fast",
        ".fieldnorm",
    ] {
        assert!(
            checked.iter().any(|c| c.ends_with(suffix)),
            "no {suffix} in {checked:?}"
        );
    }
    ok(wikiwit().args(["search", "river", "--index"]).arg(&index));
}

/// A citation by page id (`?curid=`) is looked up in a map of every page record: a
/// damaged `pages.rec` makes `cite check` refuse with the file named, where it used to
/// leave the unreadable records out of the map and report the cited page as missing.
#[test]
fn cite_check_by_page_id_refuses_a_damaged_page_store() {
    let (_tmp, index, report) = rivers_and_report(
        "# Rivers\n\nThe Danube begins at Donaueschingen [1].\n\n## References\n\n\
         1. https://en.wikipedia.org/?curid=3\n",
    );
    let check = || {
        let mut c = wikiwit();
        c.args([
            "cite",
            "check",
            "--json",
            "--as-of",
            "2020-01-01",
            "--index",
        ])
        .arg(&index)
        .arg(&report);
        c
    };
    let v: serde_json::Value = serde_json::from_str(&ok(&mut check())).unwrap();
    assert_eq!(v["citations"][0]["page"]["title"], "Danube");
    let path = index.join("pages.rec");
    let original = flip(&path);
    refused(&mut check(), &["pages.rec", "CRC-32"]);
    std::fs::write(&path, original).unwrap();
}
