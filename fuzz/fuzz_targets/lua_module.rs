//! Fuzz target `lua_module`: Lua modules generated from the input (`../lua_gen.rs`) run
//! through `#invoke`; what it checks is `cases::lua_module` in `../cases.rs`, shared with
//! `tests/fuzz_regressions.rs`, which replays the inputs kept from fuzzing runs.
#![no_main]

#[allow(dead_code)]
#[path = "../cases.rs"]
mod cases;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cases::lua_module(data));
