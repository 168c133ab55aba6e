//! A page's wikitext, which the index does not keep, read back from the dump through
//! `dump-offsets.bin`: the dump's own text in every layout, from the page's stream or
//! XML slice alone (not a pass over the dump), and a clear error when the dump changed.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use wikiwit::dump::Dump;
use wikiwit::index::Index;

use crate::util::*;

/// The pages of `dump` that `page --wikitext` reads from it, as (number, title, text).
fn pages_of(dump: &Path) -> Vec<(u32, String, String)> {
    let dump = Dump::open(dump, None).expect("open dump");
    let mut out = Vec::new();
    dump.pages(
        |raw, _| {
            let kept = ![8, 10, 828].contains(&raw.ns) && raw.redirect_attr.is_none();
            Ok((kept, raw.title, raw.text.into_owned()))
        },
        |page| {
            out.push(page);
            Ok(())
        },
        |_| {},
        &AtomicBool::new(false),
    )
    .expect("read dump");
    // Templates and modules come from `sources.rec`: only other pages go to the dump;
    // and `page_source` follows redirects.
    out.into_iter()
        .enumerate()
        .filter(|(_, (kept, _, _))| *kept)
        .map(|(n, (_, title, text))| (n as u32, title, text))
        .collect()
}

fn wikitext(index: &Index, title: &str) -> String {
    wikiwit::query::page_source(index, title)
        .unwrap_or_else(|e| panic!("{title}: {e}"))
        .text
}

/// Numbers of the pages whose XML crosses one of the `cut` offsets of `xml`.
fn pages_across(xml: &[u8], cut: usize) -> Vec<u32> {
    let find = |from: usize, pat: &[u8]| {
        xml[from..]
            .windows(pat.len())
            .position(|w| w == pat)
            .map(|p| p + from)
    };
    let (mut out, mut n, mut at) = (Vec::new(), 0u32, 0);
    while let Some(open) = find(at, b"<page>") {
        let close = find(open, b"</page>").expect("closed page");
        if open / cut != close / cut {
            out.push(n);
        }
        n += 1;
        at = close;
    }
    out
}

#[test]
fn page_wikitext_is_the_dumps_in_every_layout() {
    let tmp = tempdir();
    let t = tmp.path();
    let single = data("ltgwiki-2017-complete.xml.bz2");
    let reference = pages_of(&single);
    let xml = decompress(&single);
    let plain = t.join("dump.xml");
    std::fs::write(&plain, &xml).unwrap();
    // Streams cut every 100 kB regardless of page boundaries, as pbzip2 does.
    const CUT: usize = 100_003;
    let mut cat = Vec::new();
    for chunk in xml.chunks(CUT) {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(chunk).unwrap();
        cat.extend(e.finish().unwrap());
    }
    let pbzip2 = t.join("pbzip2.xml.bz2");
    std::fs::write(&pbzip2, &cat).unwrap();
    let across = pages_across(&xml, CUT);
    assert!(across.len() >= 10, "{} pages cross a stream", across.len());
    let ms_index = data("ltgwiki-2017-multistream-index.txt.bz2");
    let layouts: [(&str, &Path, Vec<&str>, bool); 4] = [
        ("plain XML", &plain, vec![], true),
        ("pbzip2-style streams", &pbzip2, vec![], true),
        (
            "multistream with its index",
            &data("ltgwiki-2017-multistream.xml.bz2"),
            vec!["--multistream-index", ms_index.to_str().unwrap()],
            true,
        ),
        ("single-stream bz2", &single, vec![], false),
    ];
    for (i, (what, dump, extra, offsets)) in layouts.into_iter().enumerate() {
        let dir = t.join(format!("i{i}"));
        build(dump, &dir, &extra);
        let index = Index::open(&dir).unwrap();
        assert_eq!(
            dir.join("dump-offsets.bin").exists(),
            offsets,
            "{what}: dump-offsets.bin"
        );
        if offsets {
            // Pages are expanded: the first pass noted the entry points, and they are
            // the ones the main pass of a build without expansion notes.
            let plain = t.join(format!("i{i}-no-expand"));
            let mut args = extra.clone();
            args.push("--no-expand");
            build(dump, &plain, &args);
            let file = |d: &Path| std::fs::read(d.join("dump-offsets.bin")).unwrap();
            assert!(
                file(&dir) == file(&plain),
                "{what}: dump-offsets.bin differs"
            );
        } else {
            // A pass over the whole dump per page: one page is enough.
            let (_, title, text) = &reference[reference.len() / 2];
            assert_eq!(&wikitext(&index, title), text, "{what}: {title}");
            continue;
        }
        // Every 5th page, the first and last, and every page a stream boundary cuts.
        let picked = reference
            .iter()
            .enumerate()
            .filter(|(k, (n, _, _))| k % 5 == 0 || *k == reference.len() - 1 || across.contains(n));
        let mut read = 0;
        for (_, (_, title, text)) in picked {
            assert_eq!(&wikitext(&index, title), text, "{what}: {title}");
            read += 1;
        }
        assert!(read > 100, "{what}: {read} pages read");
    }
}

#[test]
fn a_page_is_read_from_its_own_stream_and_a_changed_dump_is_refused() {
    let tmp = tempdir();
    let t = tmp.path();
    let src = data("enwiki-2016-206pages-multistream.xml.bz2");
    let dump = t.join("enwiki-multistream.xml.bz2");
    std::fs::copy(&src, &dump).unwrap();
    let dir = t.join("index");
    build(&dump, &dir, &[]);
    let reference = pages_of(&src);
    let (first, last) = (&reference[0], &reference[reference.len() - 1]);
    // Damage the middle of the last stream, keeping the file's size: a pass over the
    // dump would now fail, a read of the first stream alone does not.
    let mut bytes = std::fs::read(&dump).unwrap();
    let magic = |w: &[u8]| w[..4] == *b"BZh9" && w[4..] == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
    let mut starts: Vec<usize> = (0..bytes.len() - 10)
        .filter(|&i| magic(&bytes[i..i + 10]))
        .collect();
    starts.push(bytes.len());
    // The last stream with pages (Wikimedia's dumps end on a stream of `</mediawiki>`).
    let (from, to) = starts
        .windows(2)
        .rev()
        .map(|w| (w[0], w[1]))
        .find(|(a, b)| b - a > 4096)
        .expect("a stream of pages");
    let mid = from + (to - from) / 2;
    for b in &mut bytes[mid..mid + 64] {
        *b = !*b;
    }
    std::fs::write(&dump, &bytes).unwrap();
    let index = Index::open(&dir).unwrap();
    assert_eq!(wikitext(&index, &first.1), first.2);
    let mut cmd = wikiwit();
    cmd.args(["page", "--wikitext", "--index"])
        .arg(&dir)
        .arg(&last.1);
    refused(&mut cmd, &["enwiki-multistream.xml.bz2", "bz2"]);
    // A dump of another size is not read at all.
    std::fs::write(&dump, &bytes[..bytes.len() - 1]).unwrap();
    let mut cmd = wikiwit();
    cmd.args(["page", "--wikitext", "--index"])
        .arg(&dir)
        .arg(&first.1);
    refused(&mut cmd, &["no longer there as it was (size differs)"]);
}
