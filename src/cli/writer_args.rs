//! The options of the commands that write an index (`build`, `merge`): threads, the
//! sorters' memory, where temporary files go and the progress bar, spelled and
//! documented once.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct WriterArgs {
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    pub threads: usize,
    /// Memory the sorters may hold before spilling sorted runs to disk, e.g. 512M, 2G
    /// (default 512M). More memory only saves merge passes; the index is the same byte
    /// for byte whatever the budget.
    #[arg(long, value_name = "SIZE", value_parser = super::build::parse_size)]
    pub memory_budget: Option<u64>,
    /// Directory for temporary files (sort runs, spools); default: beside the new
    /// index. Removed when the command ends; after a kill, by the next build.
    #[arg(long, value_name = "DIR")]
    pub tmp_dir: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}
