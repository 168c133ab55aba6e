//! `wikiwit expand [--title T] [TEXT | -]`.

use std::io::Read;

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The wikitext to expand; `-` or nothing reads standard input.
    text: Option<String>,
    /// The page the text is expanded as ({{PAGENAME}}, …); it need not exist.
    #[arg(long, value_name = "T")]
    title: Option<String>,
    #[command(flatten)]
    index: IndexArg,
    /// One JSON object: the text, templates and modules used, warnings, limit report.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    let text = match args.text.as_deref() {
        None | Some("-") => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s)?;
            s
        }
        Some(t) => t.to_string(),
    };
    query_cmds::run(
        || wikiwit::query::expand_text(&index, args.title.as_deref(), &text),
        |out, v| super::page::print_expansion(out, &v, args.json),
    )
}
