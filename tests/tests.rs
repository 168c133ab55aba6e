//! The one integration-test binary: runs the real `wikiwit` executable on real dumps from
//! `../shared` and on handwritten fixtures under `tests/data`.

mod util;

mod audit;
mod audit_values;
mod bad_input;
mod cite;
mod cli;
mod costs;
mod doc_examples;
mod dump_offsets;
mod dumps;
mod expand;
mod expand_cs1;
mod expand_mw;
mod expansion_cache;
mod expansion_edge;
mod faults;
mod file_length;
mod fn_length;
mod formats;
mod frontier;
mod fuzz_regressions;
mod hostile;
mod html;
mod layers;
mod locator;
mod mcp;
mod oracle;
mod parquet;
mod serve;
mod shard_checks;
mod shards;
mod shared_sources;
mod structure;
mod text;
