//! The dump reader on small mutated dumps (plain XML, bz2 framing, multistream): every
//! page read, or an error naming where, never a panic or a hang.
#![no_main]

use std::sync::atomic::AtomicBool;

use libfuzzer_sys::fuzz_target;
use wikiwit::dump::Dump;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("wikiwit-fuzz-dump-{}", std::process::id()));
    std::fs::write(&path, data).expect("temp file");
    let Ok(dump) = Dump::open(&path, None) else { return };
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
});
