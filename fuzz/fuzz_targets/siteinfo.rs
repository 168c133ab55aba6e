//! The `<siteinfo>` reader: arbitrary bytes as the content of a dump's `<siteinfo>`
//! (namespaces, case rules, names); the dump opens or is refused, and an opened one
//! gives a title codec that parses titles, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikiwit::dump::Dump;
use wikiwit::title::{InterwikiProfile, TitleCodec};

fuzz_target!(|data: &[u8]| {
    let mut xml = b"<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\" xml:lang=\"en\">\n<siteinfo>".to_vec();
    xml.extend_from_slice(data);
    xml.extend_from_slice(b"</siteinfo>\n<page><title>A</title><ns>0</ns><id>1</id><revision><id>1</id><timestamp>2020-01-01T00:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format><text>[[Category:x]]</text></revision></page>\n</mediawiki>\n");
    let path = std::env::temp_dir().join(format!("wikiwit-fuzz-site-{}.xml", std::process::id()));
    std::fs::write(&path, &xml).expect("temp file");
    if let Ok(dump) = Dump::open(&path, None) {
        let codec = TitleCodec::new(dump.siteinfo(), InterwikiProfile::Auto);
        let _ = codec.parse("Category:x", 0);
        let _ = codec.parse("talk:İi", 0);
    }
});
