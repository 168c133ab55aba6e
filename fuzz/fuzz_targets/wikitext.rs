//! The wikitext scanner on arbitrary UTF-8: it must never panic, and its byte ranges
//! must stay inside the page.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikiwit::siteinfo::SiteInfo;
use wikiwit::title::{InterwikiProfile, TitleCodec};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Wikimedia);
    let s = wikiwit::wikitext::analyze(text, 0, "Fuzz", &codec, "en");
    let len = text.len() as u32;
    for l in &s.links {
        assert!(l.start <= l.end && l.end <= len, "link {}..{} of {len}", l.start, l.end);
    }
    for x in &s.sections {
        assert!(x.start <= x.body && x.body <= len && x.end <= len);
    }
    for t in &s.tables {
        assert!(t.start <= t.end && t.end <= len);
    }
});
