//! The edge of the Lua budgets does not depend on what a worker expanded before: pages
//! whose `#invoke`s end around the 50 M instruction budget, and one that fills the 50 MiB
//! heap, build to the same index at one and two threads, with the expansion caches on and
//! off, and with the pages in the opposite order.
//!
//! The modules are real: two of English Wikipedia's large data modules from the CS1 dump
//! (`Module:Language/data/…`, 210 KB of source each, compiled by a worker's state once for
//! all its pages), loaded by `Module:Edge`, whose `burn` then runs a loop of a given
//! length. The loop lengths are set from a fresh state's count of `burn` with no loop, so
//! that the pages end from a few thousand instructions under the budget to tens of
//! thousands over it: where a worker's history changes what a page is charged (compiling
//! the data modules or not), some page ends on the other side of the budget.

use std::path::{Path, PathBuf};

use super::expansion_cache::{files, manifest_without_times};
use crate::util::*;

/// The real modules the edge pages load, as the CS1 dump has them.
const DATA_MODULES: [&str; 2] = [
    "Module:Language/data/iana languages",
    "Module:Language/data/ISO 639-3",
];

const EDGE_MODULE: &str = r#"local p = {}
local function data()
	return mw.loadData('Module:Language/data/iana languages'),
		mw.loadData('Module:Language/data/ISO 639-3')
end
function p.warm()
	local iana = data()
	return '[[Warmed]] ' .. (iana.active and 'data' or 'none')
end
function p.burn(frame)
	data()
	for _ = 1, tonumber(frame.args[1]) do end
	return '[[Category:Finished]]'
end
function p.fill()
	local iana, iso = data()
	local n = 0
	for _, v in pairs(iso) do n = n + (type(v) == 'table' and 1 or 0) end
	local kept = {}
	pcall(function()
		for i = 1, 1e6 do kept[i] = string.rep(tostring(i), 4096) end
	end)
	return '[[Category:Kept ' .. #kept .. ' strings]]'
end
return p
"#;

/// The `<page>` elements of the CS1 dump titled `titles`, as written there.
fn real_pages(titles: &[&str]) -> Vec<String> {
    use std::io::Read;
    let file = std::fs::File::open(data("enwiki-2016-206pages-cs1.xml.bz2")).expect("open dump");
    let mut xml = String::new();
    bzip2::read::MultiBzDecoder::new(file)
        .read_to_string(&mut xml)
        .expect("decode dump");
    let mut out = Vec::new();
    for title in titles {
        let tag = format!("<title>{}</title>", escape(title));
        let at = xml
            .find(&tag)
            .unwrap_or_else(|| panic!("{title} not in the dump"));
        let start = xml[..at].rfind("<page>").expect("page start");
        let end = at + xml[at..].find("</page>").expect("page end") + "</page>".len();
        out.push(format!("  {}\n", &xml[start..end]));
    }
    out
}

const NAMESPACES: &[(i32, &str, &str)] = &[
    (0, "first-letter", ""),
    (14, "first-letter", "Category"),
    (828, "first-letter", "Module"),
];

/// A dump of the real data modules, `Module:Edge` and `pages` (id, title, text) in that
/// order.
fn dump(dir: &Path, name: &str, real: &[String], pages: &[(u64, String, String)]) -> PathBuf {
    let mut own = vec![page(
        900_000,
        828,
        "Module:Edge",
        "2024-01-01T00:00:00Z",
        EDGE_MODULE,
    )];
    for (id, title, text) in pages {
        own.push(page(*id, 0, title, "2024-01-01T00:00:00Z", text));
    }
    let xml = dump_xml("en", "enwiki", "first-letter", NAMESPACES, &own);
    let body_at = xml.find("  <page>").expect("a page");
    let xml = format!("{}{}{}", &xml[..body_at], real.concat(), &xml[body_at..]);
    write_dump(dir, name, &xml)
}

/// The Lua instructions a fresh state spends on `text` (`wikiwit expand`'s limit report).
fn fresh_count(index: &Path, text: &str) -> u64 {
    let out = ok(wikiwit()
        .args(["expand", "--json", "--title", "Probe", "--index"])
        .arg(index)
        .arg(text));
    let v: serde_json::Value = serde_json::from_str(&out).expect("expand JSON");
    v["limits"]["lua_instructions"]
        .as_u64()
        .unwrap_or_else(|| panic!("no count in {out}"))
}

/// Every line of `table`'s export, sorted (the page order differs between the dumps).
fn sorted_export(index: &Path, table: &str) -> Vec<String> {
    let mut lines: Vec<String> = export(index, table).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn pages_at_the_lua_budgets_edge_build_the_same_whatever_the_history() {
    let tmp = tempdir();
    let dir = tmp.path();
    let real = real_pages(&DATA_MODULES);
    let warm = (
        900_001,
        "Warm".to_string(),
        "{{#invoke:Edge|warm}}".to_string(),
    );
    // What `burn` costs without its loop, in a fresh state.
    let probe_dump = dump(dir, "probe.xml", &real, std::slice::from_ref(&warm));
    let probe = dir.join("probe");
    build(&probe_dump, &probe, &["--no-text"]);
    let base = fresh_count(&probe, "{{#invoke:Edge|burn|0}}");
    let budget = wikiwit::expand::Limits::default().lua_instructions;
    assert!(
        base > 0 && base < budget / 10,
        "burn costs {base} without its loop"
    );
    // Each loop iteration is one instruction: the pages end from 3,000 under the budget
    // to 60,000 over it in a fresh state.
    let mut pages = vec![warm];
    for (k, over) in [-3_000i64, 1_500, 4_000, 9_000, 20_000, 60_000]
        .into_iter()
        .enumerate()
    {
        let n = (budget as i64 + over - base as i64).max(0);
        pages.push((
            900_002 + k as u64,
            format!("Burn {over}"),
            format!("{{{{#invoke:Edge|burn|{n}}}}}"),
        ));
    }
    // A page that fills the 50 MiB heap with strings until the limit refuses one (the
    // refusal caught): first in the backward dump, where a worker starts with it.
    pages.push((
        900_010,
        "Fill".to_string(),
        "{{#invoke:Edge|fill}}".to_string(),
    ));
    let forward = dump(dir, "forward.xml", &real, &pages);
    pages.reverse();
    let backward = dump(dir, "backward.xml", &real, &pages);

    let built = |dump: &Path, name: &str, threads: &str, caches: bool| {
        let index = dir.join(name);
        let mut cmd = build_command(dump, &index, &["-j", threads, "--no-text"]);
        if caches {
            cmd.env_remove(wikiwit::expand::NO_CACHE_ENV);
        } else {
            cmd.env(wikiwit::expand::NO_CACHE_ENV, "1");
        }
        ok(&mut cmd);
        index
    };
    // Every page from a fresh state: the outcome that does not depend on history.
    let reference = built(&forward, "reference", "1", false);
    let categories = sorted_export(&reference, "categories");
    let has = |c: &str| categories.iter().any(|l| l.contains(c));
    assert!(has("Finished"), "no page finished: {categories:?}");
    let finished = categories.iter().filter(|l| l.contains("Finished")).count();
    assert!(finished < 6, "every burn finished: {categories:?}");
    assert!(has("Kept"), "the heap page kept nothing: {categories:?}");

    let want = files(&reference);
    for (name, threads) in [("one", "1"), ("two", "2")] {
        let got = files(&built(&forward, name, threads, true));
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (file, bytes) in &got {
            if file == "manifest.json" {
                assert_eq!(
                    manifest_without_times(bytes),
                    manifest_without_times(&want[file]),
                    "-j {threads}: the manifests differ"
                );
            } else {
                assert!(
                    bytes == &want[file],
                    "-j {threads}: {file} differs from the fresh-state build"
                );
            }
        }
    }
    let back = built(&backward, "backward", "1", true);
    for table in ["categories", "links", "templates", "pages"] {
        assert_eq!(
            sorted_export(&back, table),
            sorted_export(&reference, table),
            "{table}: the pages in the opposite order build differently"
        );
    }
}
