//! The template expander with Lua on arbitrary input: the input is split at NUL bytes
//! into the page's text, the source of `Module:F` and the text of `Template:T`, so the
//! fuzzer reaches both wikitext and module code. Nothing may panic, hang or exhaust
//! memory: the per-page limits (small here, to keep iterations fast) must hold.
#![no_main]

use std::borrow::Cow;

use libfuzzer_sys::fuzz_target;
use wikiwit::siteinfo::SiteInfo;
use wikiwit::title::{InterwikiProfile, TitleCodec};
use wikiwit::wikitext::expand::{ExpandConfig, Expander, TemplateSource};

struct Source<'a> {
    module: &'a str,
    template: &'a str,
}

impl TemplateSource for Source<'_> {
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
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else { return };
    let mut parts = input.splitn(3, '\0');
    let page = parts.next().unwrap_or("");
    let module = parts.next().unwrap_or("return { f = function(frame) return frame.args[1] end }");
    let template = parts.next().unwrap_or("{{#invoke:F|f|{{{1|}}}}}");
    let site = SiteInfo::synthesized("en");
    let codec = TitleCodec::new(&site, InterwikiProfile::Wikimedia);
    let mut config = ExpandConfig::from_site(&site, 1_500_000_000);
    config.limits.work = 200_000;
    config.limits.lua_instructions = 1_000_000;
    config.limits.lua_memory = 8 * 1024 * 1024;
    let source = Source { module, template };
    let expander = Expander::new(&source, &codec, config);
    let e = expander.expand_page(0, "Fuzz", page);
    assert!(e.stats.lua_instructions <= 1_000_000 + 1_000);
});
