//! `wikiwit export pages|redirects`.

use std::io::{BufWriter, Write};

use super::{IndexArg, Outcome};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Table {
    /// page_id, namespace, title, is_redirect
    Pages,
    /// from_ns, from_title, to_ns, to_title, fragment
    Redirects,
    /// from_ns, from_title, to_ns, to_title, context, in_template
    Links,
    /// from_ns, from_title, category, in_template
    Categories,
    /// from_ns, from_title, template_ns, template_title, direct
    Templates,
    /// JSON lines: title and sections (level, anchor, number, index, byteoffset)
    Sections,
    /// JSON lines: one per sentence (title, section, anchor, kind, byte range, text)
    Text,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which table.
    table: Table,
    #[command(flatten)]
    index: IndexArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    // Tables beyond pages and redirects fail on a pages-only index in the library, with
    // the reason, before anything is written.
    let index = args.index.open_pages()?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    match args.table {
        Table::Pages => wikiwit::export::pages(&index, &mut out)?,
        Table::Redirects => wikiwit::export::redirects(&index, &mut out)?,
        Table::Links => wikiwit::export::links(&index, &mut out)?,
        Table::Categories => wikiwit::export::categories(&index, &mut out)?,
        Table::Templates => wikiwit::export::templates(&index, &mut out)?,
        Table::Sections => wikiwit::export::sections(&index, &mut out)?,
        Table::Text => wikiwit::export::text(&index, &mut out)?,
    }
    out.flush()?;
    Ok(Outcome::Success)
}
