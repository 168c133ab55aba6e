//! What each fuzz target checks, one function per target, shared by the fuzz targets
//! (`fuzz_targets/*.rs`, each a one-line `fuzz_target!`) and by the integration test that
//! replays the inputs kept from fuzzing runs (`tests/fuzz_regressions.rs`), so a kept
//! input is checked against exactly what found it.
//!
//! Readers that take a path (dumps, multistream indexes) get the input written to
//! `scratch`, a file the caller owns.

use std::borrow::Cow;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use wikiwit::audit::Contract;
use wikiwit::audit::rows::{Format, RowItem, RowReader};
use wikiwit::dump::{Dump, MultistreamIndex};
use wikiwit::expand::{ExpandConfig, Expander, TemplateSource};
use wikiwit::siteinfo::SiteInfo;
use wikiwit::title::{InterwikiProfile, TitleCodec};

#[path = "lua_gen.rs"]
mod lua_gen;

/// The report parser on arbitrary UTF-8: it must never panic, and every span it returns
/// must lie on character boundaries of the input.
pub fn cite_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let r = wikiwit::cite::parse::parse_report(text);
    for c in &r.citations {
        assert!(
            text.get(c.span.clone()).is_some(),
            "citation span {:?}",
            c.span
        );
        assert!(
            text.get(c.claim_span.clone()).is_some(),
            "claim span {:?}",
            c.claim_span
        );
    }
    for m in &r.unresolved_markers {
        assert!(
            text.get(m.span.clone()).is_some(),
            "marker span {:?}",
            m.span
        );
    }
    for x in &r.references {
        assert!(
            text.get(x.span.clone()).is_some(),
            "reference span {:?}",
            x.span
        );
    }
}

/// The audit contract reader (JSON) on arbitrary bytes: a contract or a `ContractError`,
/// and a read contract's filters compile or are refused, never a panic.
pub fn contract(data: &[u8]) {
    if let Ok(c) = Contract::from_slice(data, "fuzz.json") {
        let _ = c.filters();
    }
}

/// The dump reader on small mutated dumps (plain XML, bz2 framing, multistream): every
/// page read, or an error naming where, never a panic or a hang.
pub fn dump(data: &[u8], scratch: &Path) {
    std::fs::write(scratch, data).expect("scratch file");
    let Ok(dump) = Dump::open(scratch, None) else {
        return;
    };
    let cancel = AtomicBool::new(false);
    let mut n = 0usize;
    let _ = dump.pages(
        |raw, _loc| Ok(raw.title.len() + raw.text.len()),
        |_| {
            n += 1;
            Ok(())
        },
        |_| {},
        &cancel,
    );
}

/// `Module:F` and `Template:T` for [`expand`]; no other page exists.
struct ExpandSource<'a> {
    module: &'a str,
    template: &'a str,
}

impl TemplateSource for ExpandSource<'_> {
    fn wikitext(&self, ns: i32, dbkey: &str) -> Option<Cow<'_, str>> {
        match (ns, dbkey) {
            (828, "F") => Some(Cow::Borrowed(self.module)),
            (10, "T") => Some(Cow::Borrowed(self.template)),
            _ => None,
        }
    }

    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        self.wikitext(ns, dbkey).is_some()
    }

    fn redirect(&self, _: i32, _: &str) -> Option<(i32, String)> {
        None
    }

    fn holds_templates(&self) -> bool {
        true
    }
}

/// The template expander with Lua on arbitrary input: the input is split at NUL bytes
/// into the page's text, the source of `Module:F` and the text of `Template:T`, so the
/// fuzzer reaches both wikitext and module code. Nothing may panic, hang or exhaust
/// memory: the per-page limits (small here, to keep iterations fast) must hold.
pub fn expand(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = input.splitn(3, '\0');
    let page = parts.next().unwrap_or("");
    let module = parts
        .next()
        .unwrap_or("return { f = function(frame) return frame.args[1] end }");
    let template = parts.next().unwrap_or("{{#invoke:F|f|{{{1|}}}}}");
    let site = SiteInfo::synthesized("en");
    let codec = TitleCodec::new(&site, InterwikiProfile::Wikimedia);
    let mut config = ExpandConfig::from_site(&site, 1_500_000_000);
    config.limits.work = 200_000;
    config.limits.lua_instructions = 1_000_000;
    config.limits.lua_memory = 8 * 1024 * 1024;
    let source = ExpandSource { module, template };
    let expander = Expander::new(&source, &codec, config);
    let e = expander.expand_page(0, "Fuzz", page);
    assert!(e.stats.lua_instructions <= 1_000_000 + 1_000);
}

/// A generated Lua module (`lua_gen.rs`: the sandbox's dangerous calls with edge values,
/// recursion through every way back into C) run by `{{#invoke:F|main}}` twice, under the
/// limits of a real build (Wikimedia's: 50 M instructions, 50 MiB of heap; the test's
/// process runs on the main thread's stack, a build's on 2 MiB workers, which the
/// sandbox's own stack growth covers). Nothing may crash the process, panic or hang;
/// the count stays within its limit (one charge or hook interval past it at most); an
/// error is a script error with its warning; and the two runs give the same text.
pub fn lua_module(data: &[u8]) {
    let first = lua_module_text(data);
    assert_eq!(
        first,
        lua_module_text(data),
        "two runs differ\n{}",
        lua_module_source(data)
    );
}

/// The module `lua_module` runs for `data`.
pub fn lua_module_source(data: &[u8]) -> String {
    lua_gen::module(data)
}

/// One run of `lua_module`'s check: the page's expanded text.
pub fn lua_module_text(data: &[u8]) -> String {
    let module = lua_gen::module(data);
    let site = SiteInfo::synthesized("en");
    let codec = TitleCodec::new(&site, InterwikiProfile::Wikimedia);
    let config = ExpandConfig::from_site(&site, 1_500_000_000);
    let limit = config.limits.lua_instructions;
    let source = ExpandSource {
        module: &module,
        template: "{{{1|}}}",
    };
    let e = Expander::new(&source, &codec, config).expand_page(0, "Fuzz", "{{#invoke:F|main}}");
    assert!(
        e.stats.lua_instructions <= limit + 1_000,
        "{} instructions\n{module}",
        e.stats.lua_instructions
    );
    if e.text.contains("scribunto-error") {
        assert!(
            !e.warnings.is_empty(),
            "script error without a warning\n{module}"
        );
    }
    e.text
}

/// The locator grammar on arbitrary UTF-8: parses or refuses with a reason, never panics;
/// a locator relative to a page parses alike.
pub fn locator(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = wikiwit::locator::parse(text);
    let _ = wikiwit::locator::parse_relative(text, "Danube");
}

/// The multistream index parser (`offset:page_id:title` lines, plain or bz2) on arbitrary
/// bytes: an index or an error naming the line, never a panic.
pub fn multistream_index(data: &[u8], scratch: &Path) {
    std::fs::write(scratch, data).expect("scratch file");
    let file = std::fs::File::open(scratch).expect("scratch file");
    let _ = MultistreamIndex::read(scratch, file);
}

/// The staged-rows reader (CSV and JSON lines) on arbitrary bytes: rows or per-row
/// errors, never a panic or an endless loop.
pub fn rows(data: &[u8]) {
    for format in [Format::Csv, Format::Jsonl] {
        let Ok(mut r) = RowReader::new(data, format) else {
            continue;
        };
        let mut batches = 0;
        loop {
            match r.batch(64) {
                Ok(items) if items.is_empty() => break,
                Ok(items) => {
                    for item in items {
                        if let RowItem::Row(row) = item {
                            for v in row.values.values() {
                                let _ = v.joined(" | ");
                            }
                        }
                    }
                }
                Err(_) => break,
            }
            batches += 1;
            assert!(batches <= data.len() + 1, "the reader does not advance");
        }
    }
}

/// The `<siteinfo>` reader: arbitrary bytes as the content of a dump's `<siteinfo>`
/// (namespaces, case rules, names); the dump opens or is refused, and an opened one
/// gives a title codec that parses titles, never a panic.
pub fn siteinfo(data: &[u8], scratch: &Path) {
    let mut xml = b"<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\" xml:lang=\"en\">\n<siteinfo>".to_vec();
    xml.extend_from_slice(data);
    xml.extend_from_slice(b"</siteinfo>\n<page><title>A</title><ns>0</ns><id>1</id><revision><id>1</id><timestamp>2020-01-01T00:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format><text>[[Category:x]]</text></revision></page>\n</mediawiki>\n");
    std::fs::write(scratch, &xml).expect("scratch file");
    if let Ok(dump) = Dump::open(scratch, None) {
        let codec = TitleCodec::new(dump.siteinfo(), InterwikiProfile::Auto);
        let _ = codec.parse("Category:x", 0);
        let _ = codec.parse("talk:İi", 0);
    }
}

/// Title parsing on arbitrary UTF-8: never panics; a valid title parses to itself.
pub fn title(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki);
    if let Ok(t) = codec.parse(text, 0)
        && t.interwiki.is_none()
        && !t.dbkey.is_empty()
    {
        let again = codec
            .parse(&codec.prefixed_dbkey(t.ns, &t.dbkey), 0)
            .expect("a normalized title stays valid");
        assert_eq!((again.ns, again.dbkey), (t.ns, t.dbkey));
    }
}

/// The wikitext scanner on arbitrary UTF-8: it must never panic, and its byte ranges
/// must stay inside the page.
pub fn wikitext(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Wikimedia);
    let s = wikiwit::wikitext::analyze(text, 0, "Fuzz", &codec, "en");
    let len = text.len() as u32;
    for l in &s.links {
        assert!(
            l.start <= l.end && l.end <= len,
            "link {}..{} of {len}",
            l.start,
            l.end
        );
    }
    for x in &s.sections {
        assert!(x.start <= x.body && x.body <= len && x.end <= len);
    }
    for t in &s.tables {
        assert!(t.start <= t.end && t.end <= len);
    }
}

/// A scratch file for one process, for the targets that read from a path.
pub fn scratch(target: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("wikiwit-fuzz-{target}-{}", std::process::id()))
}
