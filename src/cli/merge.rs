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
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Memory the merge's sorters may hold before spilling sorted runs to disk, as for
    /// `build` (default 512M).
    #[arg(long, value_name = "SIZE", value_parser = super::build::parse_size)]
    memory_budget: Option<u64>,
    /// Directory for temporary files (default: beside the new index).
    #[arg(long, value_name = "DIR")]
    tmp_dir: Option<PathBuf>,
    #[command(flatten)]
    out: super::JsonArg,
    /// No progress bar.
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let cancel = super::cancel_on_ctrl_c();
    let opts = MergeOptions {
        shards: args.shards,
        index_dir: args.index.clone(),
        threads: args.threads,
        memory_budget: args.memory_budget,
        tmp_dir: args.tmp_dir,
    };
    let bar = Bar::new(args.quiet);
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
