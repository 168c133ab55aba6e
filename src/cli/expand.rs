//! `wikiwit expand [--title T] [TEXT | -]`.

use std::io::Read;

use wikiwit::expand::Messages;

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
    #[command(flatten)]
    out: super::JsonArg,
    /// The content language's messages, recorded from a MediaWiki
    /// (`tools/mediawiki/record-messages`); default: the build's `--messages`, else
    /// English.
    #[arg(long, value_name = "FILE")]
    messages: Option<std::path::PathBuf>,
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
    let messages = match &args.messages {
        Some(path) => Some(std::sync::Arc::new(Messages::load(path)?)),
        None => None,
    };
    query_cmds::run(
        || wikiwit::query::expand_text_with(&index, args.title.as_deref(), &text, messages.clone()),
        |out, v| super::page::print_expansion(out, &v, args.out.json),
    )
}
