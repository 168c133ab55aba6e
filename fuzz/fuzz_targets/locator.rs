//! The locator grammar on arbitrary UTF-8: parses or refuses with a reason, never panics;
//! a locator relative to a page parses alike.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = wikiwit::locator::parse(text);
    let _ = wikiwit::locator::parse_relative(text, "Danube");
});
