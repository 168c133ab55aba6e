//! `wikiwit merge SHARD… --index DIR`.

use std::path::PathBuf;

use anyhow::Context;
use wikiwit::indexer::{MergeOptions, merge};

use super::Outcome;
use super::progress::Bar;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shard directories (`build --shard K/N`), all N of one build, in any order.
    #[arg(required = true, value_name = "SHARD")]
    shards: Vec<PathBuf>,
    /// Output directory. Replaced atomically when complete.
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    #[command(flatten)]
    writer: super::writer_args::WriterArgs,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let cancel = super::cancel_on_ctrl_c();
    let opts = MergeOptions {
        shards: args.shards,
        index_dir: args.index.clone(),
        threads: args.writer.threads,
        memory_budget: args.writer.memory_budget,
        tmp_dir: args.writer.tmp_dir,
    };
    let bar = Bar::new(args.writer.quiet);
    let report = merge(&opts, &bar, &cancel)
        .with_context(|| format!("merging shards into {}", args.index.display()))?;
    let mut out = std::io::stdout().lock();
    if args.out.json {
        super::print_json(&mut out, &report.manifest)?;
    } else {
        super::build::summary(&mut out, &report.dir, &report.manifest)?;
    }
    Ok(Outcome::Success)
}
