//! `wikiwit links TITLE [--in] [--context C]`.

use wikiwit::query::Origin;
use wikiwit::wikitext::Context;

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    /// Pages linking here instead of links from here.
    #[arg(long = "in")]
    incoming: bool,
    /// With --in: only links to the page itself, not through its redirects.
    #[arg(long)]
    direct: bool,
    /// Only links in this context (where the link sits in the page).
    #[arg(long, value_parser = super::one_of(&Context::ALL, Context::as_str))]
    context: Option<Context>,
    /// Only links written in the page's own text (`own`) or made by its templates
    /// (`template`).
    #[arg(long, value_parser = super::one_of(&Origin::ALL, Origin::as_str))]
    origin: Option<Origin>,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    if args.incoming {
        return query_cmds::run(
            || wikiwit::query::inlinks(&index, &args.title, args.context, args.direct, args.origin),
            |out, links| {
                for l in links {
                    if args.out.json {
                        super::print_json(out, &l)?;
                    } else {
                        let ctx: Vec<&str> = l.contexts.iter().map(|c| c.as_str()).collect();
                        let via = l.via.map(|v| format!("\tvia {v}")).unwrap_or_default();
                        writeln!(
                            out,
                            "{}\t{}{}{via}",
                            l.source,
                            ctx.join(","),
                            if l.list_page { "\tlist page" } else { "" }
                        )?;
                    }
                }
                Ok(())
            },
        );
    }
    query_cmds::run(
        || wikiwit::query::outlinks(&index, &args.title, args.context, args.origin),
        |out, links| {
            for l in links {
                if args.out.json {
                    super::print_json(out, &l)?;
                } else {
                    let target = match (&l.resolved, l.status) {
                        (Some(r), "redirect") => format!("{} → {r}", l.target),
                        (_, "missing") => format!("{} (missing)", l.target),
                        (_, "broken-redirect") => format!("{} (broken redirect)", l.target),
                        _ => l.target.clone(),
                    };
                    let frag = l
                        .fragment
                        .as_ref()
                        .map(|f| format!("#{f}"))
                        .unwrap_or_default();
                    let from = l
                        .origin
                        .as_ref()
                        .map(|t| format!(" (from {t})"))
                        .unwrap_or_default();
                    writeln!(
                        out,
                        "{target}{frag}\t{}{}{from}\t{}\t{}",
                        l.context.as_str(),
                        if l.in_template { " (in template)" } else { "" },
                        l.section
                            .as_deref()
                            .map(|s| format!("#{s}"))
                            .unwrap_or_else(|| "lead".into()),
                        l.text
                    )?;
                }
            }
            Ok(())
        },
    )
}
