//! The one integration-test binary: runs the real `wikiwit` executable on real dumps from
//! `../shared` and on handwritten fixtures under `tests/data`.

mod util;

mod audit;
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
mod serve;
mod structure;
mod text;
