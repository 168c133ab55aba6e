//! The one integration-test binary: runs the real `wikiwit` executable on real dumps from
//! `../shared` and on handwritten fixtures under `tests/data`.

mod util;

mod audit;
mod audit_values;
mod bad_input;
mod cite;
mod cli;
mod expand;
mod formats;
mod frontier;
mod hostile;
mod layers;
mod locator;
mod oracle;
mod structure;
mod text;
