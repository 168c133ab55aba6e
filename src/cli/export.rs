//! `wikiwit export TABLE [--format tsv|parquet] [--output FILE]`.

use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::Context;
use wikiwit::export::Table as Rows;

use super::{IndexArg, Outcome};

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Table {
    /// page_id, namespace, title, is_redirect
    Pages,
    /// from_ns, from_title, to_ns, to_title, fragment
    Redirects,
    /// from_ns, from_title, to_ns, to_title, context, in_template, origin
    Links,
    /// from_ns, from_title, category, in_template, origin
    Categories,
    /// from_ns, from_title, template_ns, template_title, direct, origin
    Templates,
    /// JSON lines: title and sections (level, anchor, number, index, byteoffset)
    Sections,
    /// JSON lines: one per sentence (title, section, anchor, kind, byte range, text)
    Text,
}

#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
enum Format {
    /// TSV, or JSON lines for sections and text
    #[default]
    Tsv,
    /// Parquet (schema in docs/parquet.md; needs --output)
    Parquet,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which table.
    table: Table,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Write to FILE instead of standard output (required for Parquet).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    index: IndexArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let table = match args.table {
        Table::Pages => Rows::Pages,
        Table::Redirects => Rows::Redirects,
        Table::Links => Rows::Links,
        Table::Categories => Rows::Categories,
        Table::Templates => Rows::Templates,
        Table::Sections => Rows::Sections,
        Table::Text => Rows::Text,
    };
    // Tables beyond pages and redirects fail on a pages-only index in the library, with
    // the reason, before anything is written.
    let index = args.index.open_pages()?;
    match (args.format, &args.output) {
        (Format::Parquet, None) => anyhow::bail!("--format parquet needs --output FILE"),
        (Format::Parquet, Some(path)) => {
            wikiwit::export::arrow::write_parquet(&index, table, path)
                .with_context(|| format!("exporting {} to {}", table.name(), path.display()))?;
        }
        (Format::Tsv, Some(path)) => {
            let file = std::fs::File::create(path)
                .with_context(|| format!("creating {}", path.display()))?;
            let mut out = BufWriter::new(file);
            wikiwit::export::write_text(&index, table, &mut out)?;
            out.flush()
                .with_context(|| format!("writing {}", path.display()))?;
        }
        (Format::Tsv, None) => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            wikiwit::export::write_text(&index, table, &mut out)?;
            out.flush()?;
        }
    }
    Ok(Outcome::Success)
}
