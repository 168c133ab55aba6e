//! `wikiwit category NAME`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Category name, with or without the namespace prefix.
    name: String,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    query_cmds::run(
        || wikiwit::query::category(&index, &args.name),
        |out, c| {
            if args.out.json {
                return super::print_json(out, &c);
            }
            writeln!(
                out,
                "{}{} — {} subcategories, {} pages",
                c.category,
                if c.page_exists {
                    ""
                } else {
                    " (no category page)"
                },
                c.subcategories.len(),
                c.pages.len()
            )?;
            for s in &c.subcategories {
                writeln!(out, "  {s}")?;
            }
            for p in &c.pages {
                writeln!(out, "  {p}")?;
            }
            Ok(())
        },
    )
}
