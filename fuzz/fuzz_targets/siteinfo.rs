//! Fuzz target `siteinfo`: what it checks is `cases::siteinfo` in `../cases.rs`, shared with
//! `tests/fuzz_regressions.rs`, which replays the inputs kept from fuzzing runs.
#![no_main]

#[allow(dead_code)]
#[path = "../cases.rs"]
mod cases;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    cases::siteinfo(data, &cases::scratch("siteinfo"));
});
