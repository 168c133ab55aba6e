//! `wikiwit sections TITLE`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    query_cmds::run(
        || {
            let p = wikiwit::query::find_page(&index, &args.title)?;
            let s = wikiwit::query::structure(&index, &p)?;
            Ok((p, s))
        },
        |out, (p, s)| {
            if args.out.json {
                return super::print_json(
                    out,
                    &serde_json::json!({ "title": p.title, "sections": s.sections }),
                );
            }
            for x in &s.sections {
                writeln!(
                    out,
                    "{}\t{}\t{}{}\t#{}\tbytes {}..{}",
                    x.number,
                    x.level,
                    "  ".repeat(x.level.saturating_sub(2) as usize),
                    x.heading,
                    x.anchor,
                    x.start,
                    x.end
                )?;
            }
            Ok(())
        },
    )
}
