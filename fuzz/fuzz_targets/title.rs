//! Title parsing on arbitrary UTF-8: never panics; a valid title parses to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikiwit::siteinfo::SiteInfo;
use wikiwit::title::{InterwikiProfile, TitleCodec};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki);
    if let Ok(t) = codec.parse(text, 0)
        && t.interwiki.is_none()
        && !t.dbkey.is_empty()
    {
        let again = codec.parse(&codec.prefixed_dbkey(t.ns, &t.dbkey), 0).expect("a normalized title stays valid");
        assert_eq!((again.ns, again.dbkey), (t.ns, t.dbkey));
    }
});
