//! The audit contract reader (JSON) on arbitrary bytes: a contract or a `ContractError`,
//! and a read contract's filters compile or are refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wikiwit::audit::Contract;

fuzz_target!(|data: &[u8]| {
    if let Ok(c) = Contract::from_slice(data, "fuzz.json") {
        let _ = c.filters();
    }
});
