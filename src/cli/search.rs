//! `wikiwit search QUERY [--page TITLE [--section ANCHOR]] [--limit N]`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    query: String,
    /// Search within this page only.
    #[arg(long)]
    page: Option<String>,
    /// Search within this section of `--page` only (its anchor; empty for the lead).
    #[arg(long, requires = "page")]
    section: Option<String>,
    #[arg(long, default_value_t = 10)]
    limit: usize,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    query_cmds::run(
        || {
            let scope = wikiwit::query::text::Scope {
                page: args.page.as_deref(),
                section: args.section.as_deref(),
            };
            wikiwit::query::text::search(&index, &args.query, scope, args.limit)
        },
        |out, hits| {
            for h in &hits {
                if args.out.json {
                    super::print_json(out, h)?;
                    continue;
                }
                let place = h
                    .anchor
                    .as_ref()
                    .map(|a| format!("#{a}"))
                    .unwrap_or_default();
                let via = h
                    .via
                    .as_ref()
                    .map(|v| format!(" (via {v})"))
                    .unwrap_or_default();
                writeln!(out, "{:.3}\t{}{place}{via}", h.score, h.page)?;
                if let Some(b) = &h.best {
                    writeln!(
                        out,
                        "\t[{}:{} bytes {}..{}] {}",
                        h.section, b.sentence, b.start, b.end, b.text
                    )?;
                }
            }
            Ok(())
        },
    )
}
