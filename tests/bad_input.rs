//! Bad input: every case gets a clear message naming the file and where, exit code 2, no
//! panic, and the index that was in place before stays exactly as it was.

use std::path::{Path, PathBuf};

use crate::util::*;

/// Builds `dump` (with `extra` args) into `index`, which already holds a good index, and
/// checks the failure and that the good index survived.
fn refuse(dump: &Path, extra: &[&str], index: &Path, expect: &[&str]) {
    let before = export(index, "pages");
    let before_files: Vec<PathBuf> = std::fs::read_dir(index.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    refused(&mut build_command(dump, index, extra), expect);
    assert_eq!(export(index, "pages"), before, "the previous index changed");
    let mut after: Vec<PathBuf> = std::fs::read_dir(index.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    after.retain(|p| !before_files.contains(p));
    assert!(after.is_empty(), "left behind: {after:?}");
}

fn good_index(tmp: &Path) -> PathBuf {
    let index = tmp.join("ix");
    build(&rivers(), &index, &[]);
    index
}

#[test]
fn truncated_bz2() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let src = std::fs::read(data("enwiki-2016-206pages.xml.bz2")).unwrap();
    let cut = tmp.path().join("truncated.xml.bz2");
    std::fs::write(&cut, &src[..src.len() * 6 / 10]).unwrap();
    refuse(
        &cut,
        &[],
        &index,
        &[
            "truncated.xml.bz2",
            "truncated bz2 data",
            "starting at byte 0",
        ],
    );
}

#[test]
fn corrupt_bz2_block() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let mut src = std::fs::read(data("ltgwiki-2017-multistream.xml.bz2")).unwrap();
    let mid = src.len() / 2;
    for b in &mut src[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let bad = tmp.path().join("corrupt.xml.bz2");
    std::fs::write(&bad, &src).unwrap();
    refuse(
        &bad,
        &[],
        &index,
        &[
            "corrupt.xml.bz2",
            "corrupt bz2 data in the stream starting at byte",
        ],
    );
}

#[test]
fn malformed_xml() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let bad = rivers_edited(
        tmp.path(),
        "malformed.xml",
        "<title>Danube</title>",
        "<title>Danube</titel>",
    );
    refuse(
        &bad,
        &[],
        &index,
        &["malformed.xml", "malformed XML at byte"],
    );
}

#[test]
fn utf16_dump_is_refused() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    refuse(
        &data("bgwiki-shortened.xml.bz2"),
        &[],
        &index,
        &["bgwiki-shortened.xml.bz2", "UTF-16"],
    );
}

#[test]
fn empty_file() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let empty = tmp.path().join("empty.xml.bz2");
    std::fs::write(&empty, b"").unwrap();
    refuse(&empty, &[], &index, &["empty.xml.bz2", "empty"]);
}

#[test]
fn index_file_from_another_dump() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let dump = data("enwiki-2016-206pages-multistream.xml.bz2");
    let other = data("ltgwiki-2017-multistream-index.txt.bz2");
    refuse(
        &dump,
        &["--multistream-index", other.to_str().unwrap()],
        &index,
        &[
            "does not match the dump",
            "ltgwiki-2017-multistream-index.txt.bz2",
        ],
    );
}

/// The enwiki-2016 multistream index, decoded, with `edit` applied to its lines; written
/// as plain text into `dir`.
fn edited_index(dir: &Path, edit: impl Fn(Vec<String>) -> Vec<String>) -> PathBuf {
    let f = std::fs::File::open(data("enwiki-2016-206pages-multistream-index.txt.bz2")).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut bzip2::read::MultiBzDecoder::new(f), &mut text).unwrap();
    let lines = edit(text.lines().map(str::to_string).collect());
    let idx = dir.join("edited-index.txt");
    std::fs::write(&idx, lines.join("\n")).unwrap();
    idx
}

/// Builds the enwiki-2016 multistream dump with an edited copy of its index and checks
/// the refusal.
fn refuse_edited_index(edit: impl Fn(Vec<String>) -> Vec<String>, expect: &[&str]) {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let idx = edited_index(tmp.path(), edit);
    refuse(
        &data("enwiki-2016-206pages-multistream.xml.bz2"),
        &["--multistream-index", idx.to_str().unwrap()],
        &index,
        expect,
    );
}

#[test]
fn index_file_with_a_wrong_page_id() {
    // Line 3 is `offset:13:AfghanistanHistory`; give it another page id.
    refuse_edited_index(
        |mut lines| {
            let mut p: Vec<String> = lines[2].splitn(3, ':').map(str::to_string).collect();
            p[1] = "999999".into();
            lines[2] = p.join(":");
            lines
        },
        &["index line 3 lists page id 999999", "holds page id 13"],
    );
}

/// The index is read while the streams decode and checked afterwards: a page it lists
/// that the dump lacks must still be caught, at the end of its stream group.
#[test]
fn index_file_listing_a_page_the_dump_lacks() {
    // A line for a page that does not exist, after the last page of the first stream.
    refuse_edited_index(
        |mut lines| {
            let off = |l: &str| l.split(':').next().unwrap().to_string();
            let last_of_first = lines
                .iter()
                .rposition(|l| off(l) == off(&lines[0]))
                .unwrap();
            let extra = format!("{}:99999999:Nowhere", off(&lines[0]));
            lines.insert(last_of_first + 1, extra);
            lines
        },
        &["lists page id 99999999", "hold no such page"],
    );
}

/// An offset inside a stream (here: one byte past a real stream start).
#[test]
fn index_file_with_an_offset_that_is_not_a_stream() {
    refuse_edited_index(
        |lines| {
            let last = lines.last().unwrap().split(':').next().unwrap().to_string();
            let moved: u64 = last.parse::<u64>().unwrap() + 1;
            lines
                .into_iter()
                .map(|l| match l.strip_prefix(&format!("{last}:")) {
                    Some(rest) => format!("{moved}:{rest}"),
                    None => l,
                })
                .collect()
        },
        &["which is not the start of a bz2 stream"],
    );
}

#[test]
fn missing_index_file() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    refuse(
        &data("enwiki-2016-206pages-multistream.xml.bz2"),
        &["--index-file", "/nonexistent/dir/index.txt.bz2"],
        &index,
        &["/nonexistent/dir/index.txt.bz2", "No such file"],
    );
}

#[test]
fn xml_that_is_not_a_dump() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let rss = tmp.path().join("feed.xml");
    std::fs::write(
        &rss,
        "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel/></rss>\n",
    )
    .unwrap();
    refuse(
        &rss,
        &[],
        &index,
        &["feed.xml", "not a MediaWiki XML dump", "<rss>"],
    );
}

#[test]
fn page_with_an_invalid_title() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let bad = rivers_edited(
        tmp.path(),
        "badtitle.xml",
        "<title>Elbe</title>",
        "<title>Elbe [river]</title>",
    );
    refuse(
        &bad,
        &[],
        &index,
        &[
            "badtitle.xml",
            "\"Elbe [river]\"",
            "invalid title",
            "illegal character '['",
        ],
    );
}

#[test]
fn duplicate_titles_are_refused_with_strict() {
    let tmp = tempdir();
    let index = good_index(tmp.path());
    let bad = rivers_edited(
        tmp.path(),
        "dup.xml",
        "<title>Elbe</title>",
        "<title>Oder</title>",
    );
    refuse(
        &bad,
        &["--strict"],
        &index,
        &["dup.xml", "both have the title \"Oder\""],
    );
}

#[test]
fn refuses_to_replace_a_directory_that_is_not_an_index() {
    let tmp = tempdir();
    let dir = tmp.path().join("precious");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("thesis.tex"), "do not delete").unwrap();
    refused(
        wikiwit()
            .arg("build")
            .arg(rivers())
            .arg("--index")
            .arg(&dir),
        &["not a wikiwit index"],
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("thesis.tex")).unwrap(),
        "do not delete"
    );
}

/// `kill -9` at any moment of a build that spills sorted runs leaves the previous index
/// intact, and the next build removes what the killed one left, in the index's parent
/// and in `--tmp-dir`.
#[test]
fn a_killed_spilling_build_leaves_the_previous_index_and_is_cleaned_up() {
    let tmp = tempdir();
    let parent = tmp.path().join("indexes");
    let spill = tmp.path().join("spill");
    let index = parent.join("ltg");
    let dump = data("ltgwiki-2017-complete.xml.bz2");
    let args = |cmd: &mut std::process::Command| {
        cmd.arg("build")
            .arg(&dump)
            .arg("--index")
            .arg(&index)
            .args(["-q", "--memory-budget", "4K", "--tmp-dir"])
            .arg(&spill);
    };
    let mut first = wikiwit();
    args(&mut first);
    ok(&mut first);
    let before = export(&index, "pages");
    let mut interrupted = 0;
    for delay_ms in [20u64, 60, 120, 200, 300, 450] {
        let mut cmd = wikiwit();
        args(&mut cmd);
        let mut child = cmd
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            interrupted += 1;
        }
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            export(&index, "pages"),
            before,
            "killed after {delay_ms} ms"
        );
        ok(wikiwit().args(["info", "--verify", "--index"]).arg(&index));
    }
    assert!(interrupted > 0, "every build finished before it was killed");
    let mut again = wikiwit();
    args(&mut again);
    ok(&mut again);
    assert_eq!(export(&index, "pages"), before);
    let names = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".wikiwit-"))
            .collect()
    };
    assert!(
        names(&spill).is_empty(),
        "left in --tmp-dir: {:?}",
        names(&spill)
    );
    assert!(
        names(&parent).is_empty(),
        "left beside the index: {:?}",
        names(&parent)
    );
}
