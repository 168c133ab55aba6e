//! `wikiwit mcp [--index DIR]`: the index's tools over the Model Context Protocol on stdio.

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    index: IndexArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    wikiwit::serve::mcp::run(args.index.open()?)?;
    Ok(Outcome::Success)
}
