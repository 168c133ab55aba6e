//! Shared plumbing of the page query commands: running a query, mapping "not found" to
//! exit code 1, printing JSON or text.

use std::io::Write;

use wikiwit::query::QueryError;

use super::Outcome;

/// Runs `f`; a `NotFound` answer prints its reason on stderr and gives exit code 1.
pub fn run<T>(
    f: impl FnOnce() -> Result<T, QueryError>,
    print: impl FnOnce(&mut dyn Write, T) -> anyhow::Result<()>,
) -> anyhow::Result<Outcome> {
    match f() {
        Ok(v) => {
            let mut out = std::io::stdout().lock();
            print(&mut out, v)?;
            Ok(Outcome::Success)
        }
        Err(e) if e.is_not_found() => {
            eprintln!("wikiwit: {e}");
            Ok(Outcome::NotFound)
        }
        Err(e) => Err(e.into()),
    }
}
