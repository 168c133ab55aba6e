//! The report parser on arbitrary UTF-8: it must never panic, and every span it returns
//! must lie on character boundaries of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let r = wikiwit::cite::parse::parse_report(text);
    for c in &r.citations {
        assert!(text.get(c.span.clone()).is_some(), "citation span {:?}", c.span);
        assert!(text.get(c.claim_span.clone()).is_some(), "claim span {:?}", c.claim_span);
    }
    for m in &r.unresolved_markers {
        assert!(text.get(m.span.clone()).is_some(), "marker span {:?}", m.span);
    }
    for x in &r.references {
        assert!(text.get(x.span.clone()).is_some(), "reference span {:?}", x.span);
    }
});
