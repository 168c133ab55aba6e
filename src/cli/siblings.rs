//! `wikiwit siblings TITLE`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    /// At most this many siblings.
    #[arg(long, default_value_t = 50)]
    limit: usize,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    query_cmds::run(
        || wikiwit::siblings::siblings(&index, &args.title, args.limit),
        |out, s| {
            if args.out.json {
                return super::print_json(out, &s);
            }
            writeln!(
                out,
                "{}: {} list page(s) link here: {}",
                s.page,
                s.list_pages.len(),
                s.list_pages.join(", ")
            )?;
            for sib in &s.siblings {
                let why: Vec<String> = sib
                    .together
                    .iter()
                    .map(|t| format!("{} ({})", t.source, t.place))
                    .collect();
                writeln!(out, "{}\t{}", sib.title, why.join("; "))?;
            }
            Ok(())
        },
    )
}
