//! The multistream index parser (`offset:page_id:title` lines, plain or bz2) on arbitrary
//! bytes: an index or an error naming the line, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikiwit::dump::MultistreamIndex;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("wikiwit-fuzz-index-{}", std::process::id()));
    std::fs::write(&path, data).expect("temp file");
    let file = std::fs::File::open(&path).expect("temp file");
    let _ = MultistreamIndex::read(&path, file);
});
