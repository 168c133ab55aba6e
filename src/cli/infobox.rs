//! `wikiwit infobox TITLE [FIELD]`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    /// Print only this field's value (exit code 1 if the infobox has no such field).
    field: Option<String>,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
    /// Print the field's wikitext instead of its plain text.
    #[arg(long)]
    raw: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    if let Some(f) = &args.field {
        return query_cmds::run(
            || wikiwit::query::infobox_field(&index, &args.title, f),
            |out, f| {
                if args.out.json {
                    return super::print_json(out, &f);
                }
                writeln!(out, "{}", if args.raw { &f.raw } else { &f.text })?;
                Ok(())
            },
        );
    }
    query_cmds::run(
        || wikiwit::query::infobox_views(&index, &args.title),
        |out, boxes| {
            for b in &boxes {
                if args.out.json {
                    super::print_json(out, b)?;
                    continue;
                }
                writeln!(out, "{} ({})", b.page, b.template)?;
                for f in &b.fields {
                    writeln!(
                        out,
                        "  {:<20} {}",
                        f.name,
                        if args.raw { &f.raw } else { &f.text }
                    )?;
                }
            }
            Ok(())
        },
    )
}
