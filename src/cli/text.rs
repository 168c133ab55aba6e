//! `wikiwit text TITLE [--section ANCHOR] [--sentences]`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    /// Only this section (its anchor, with or without `#`; spaces or underscores).
    #[arg(long)]
    section: Option<String>,
    /// One sentence per line with its number, kind and byte range.
    #[arg(long)]
    sentences: bool,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    query_cmds::run(
        || wikiwit::query::text::text(&index, &args.title, args.section.as_deref()),
        |out, t| {
            if args.out.json {
                return super::print_json(out, &t);
            }
            for s in &t.sections {
                match (&s.heading, &s.anchor) {
                    (Some(h), Some(a)) => writeln!(out, "== {h} ==  #{a}")?,
                    _ => writeln!(out, "== (lead) ==")?,
                }
                if args.sentences {
                    for x in &s.sentences {
                        writeln!(
                            out,
                            "{}\t{:?}\t{}..{}\t{}",
                            x.sentence, x.kind, x.start, x.end, x.text
                        )?;
                    }
                } else {
                    let mut prev = None;
                    for x in &s.sentences {
                        let sep = match (prev, x.kind) {
                            (None, _) => "",
                            (
                                Some(wikiwit::text::SentenceKind::Prose),
                                wikiwit::text::SentenceKind::Prose,
                            ) => " ",
                            _ => "\n",
                        };
                        write!(out, "{sep}{}", x.text)?;
                        prev = Some(x.kind);
                    }
                    writeln!(out)?;
                }
            }
            Ok(())
        },
    )
}
