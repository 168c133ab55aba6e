//! Subcommands, one module each. Every `run` returns an [`Outcome`]; `main` maps it to
//! the exit code: 0 success, 1 "not found" (or blocking findings), 2 error.

mod audit;
mod build;
mod category;
mod cite;
mod demo;
mod eval;
mod expand;
mod export;
mod frontier;
mod html_arg;
mod info;
mod infobox;
mod links;
mod locate;
mod mcp;
mod merge;
mod page;
mod progress;
mod query_cmds;
mod resolve;
mod search;
mod sections;
mod serve;
mod siblings;
mod table;
mod text;
mod writer_args;

pub use html_arg::{HtmlArg, write_html};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Offline Wikipedia dump index and provenance checker.
#[derive(Debug, Parser)]
#[command(
    name = "wikiwit",
    version,
    about,
    long_about = None,
    after_help = "Numbering: sections and tables count from 1, as MediaWiki and a reader do (the \
                  lead is section 0); inside them data rows, columns and sentences count from 0.\n\
                  Exit codes: 0 success, 1 not found (or blocking findings), 2 error."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build an index from a MediaWiki XML dump (.xml, .xml.bz2, multistream .bz2).
    Build(build::Args),
    /// Join the shards of a build (`build --shard K/N`) into one index.
    Merge(merge::Args),
    /// Show an index's manifest: source, build parameters, counts.
    Info(info::Args),
    /// Resolve titles: normalization, page, redirect chain, final target.
    Resolve(resolve::Args),
    /// Export index tables as TSV / JSON lines (MediaWiki's columns first).
    Export(export::Args),
    /// A page's summary: sections, infobox, tables, categories, link counts.
    Page(page::Args),
    /// Expand wikitext in the context of a page, as MediaWiki's action=expandtemplates.
    Expand(expand::Args),
    /// Links of a page with their context and section, or (--in) the pages linking to it.
    Links(links::Args),
    /// Sections of a page: level, number, MediaWiki anchor, byte range.
    Sections(sections::Args),
    /// Infobox fields of a page, or one field's value.
    Infobox(infobox::Args),
    /// A table of a page (tables count from 1), or one data row of it (rows from 0).
    Table(table::Args),
    /// Members of a category.
    Category(category::Args),
    /// List pages linking to a page, and pages listed next to it.
    Siblings(siblings::Args),
    /// Plain text of a page or section, optionally sentence by sentence with offsets.
    Text(text::Args),
    /// Full-text search (BM25) with the best-matching sentence of each hit.
    Search(search::Args),
    /// Source frontier: the pages a question over the seed needs, each with its provenance.
    Frontier(frontier::Args),
    /// Evaluate frontier configurations on instances with gold pages.
    Eval(eval::Args),
    /// Citations of a markdown report: parse them, check them offline, evaluate support scoring.
    Cite(cite::Args),
    /// What a locator (page, section, infobox field, table cell, sentence, quote) points at.
    Locate(locate::Args),
    /// Audit a staged table (contract + rows) against the index; append findings to a log.
    Audit(audit::Args),
    /// Build the embedded sample wiki into a temporary index and show what it knows.
    Demo(demo::Args),
    /// Serve the index over HTTP: MediaWiki's Action API at /w/api.php, JSON at /v1/.
    Serve(serve::Args),
    /// Serve the index's tools to agents over the Model Context Protocol (stdio).
    Mcp(mcp::Args),
}

/// A flag Ctrl-C sets, for a command that stops cleanly (`build`, `merge`); a second
/// Ctrl-C while cleaning up falls through to the default handler.
fn cancel_on_ctrl_c() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = cancel.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, std::sync::atomic::Ordering::Relaxed));
    cancel
}

/// How a command ended, short of an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    NotFound,
}

/// The `--json` switch every command that prints results shares, so that it is spelled
/// and documented once.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct JsonArg {
    /// Print JSON instead of text: one object per line for a list (hits, links, titles,
    /// rows), one object for a single answer.
    #[arg(long)]
    json: bool,
}

/// A value parser for an option that takes one of a library enum's values: clap lists
/// the names in `--help` and refuses any other, as for the CLI's own `ValueEnum`s, while
/// the library's types stay free of clap.
fn one_of<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
) -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::TypedValueParser;
    let names: Vec<&'static str> = all.iter().map(|&v| name(v)).collect();
    clap::builder::PossibleValuesParser::new(names).try_map(move |s| {
        all.iter()
            .copied()
            .find(|&v| name(v) == s)
            .ok_or_else(|| format!("unknown value {s:?}"))
    })
}

/// The `--index DIR` option shared by query commands.
#[derive(Debug, clap::Args)]
pub struct IndexArg {
    /// Index directory (default: $WIKIWIT_INDEX, else the only index under ./index/).
    #[arg(long, value_name = "DIR", env = "WIKIWIT_INDEX")]
    index: Option<PathBuf>,
}

impl IndexArg {
    /// Opens a complete index: a `--pages-only` one is refused with the reason.
    fn open(&self) -> anyhow::Result<wikiwit::index::Index> {
        let index = self.open_pages()?;
        index.require_parsed()?;
        Ok(index)
    }

    /// Opens any index, `--pages-only` ones included: for commands that only read pages
    /// and titles (`info`, `resolve`, `export pages|redirects`).
    fn open_pages(&self) -> anyhow::Result<wikiwit::index::Index> {
        let dir = match &self.index {
            Some(d) => d.clone(),
            None => wikiwit::index::default_dir()?,
        };
        Ok(wikiwit::index::Index::open(&dir)?)
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Build(a) => build::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Info(a) => info::run(a),
        Command::Resolve(a) => resolve::run(a),
        Command::Export(a) => export::run(a),
        Command::Page(a) => page::run(a),
        Command::Expand(a) => expand::run(a),
        Command::Links(a) => links::run(a),
        Command::Sections(a) => sections::run(a),
        Command::Infobox(a) => infobox::run(a),
        Command::Table(a) => table::run(a),
        Command::Category(a) => category::run(a),
        Command::Siblings(a) => siblings::run(a),
        Command::Text(a) => text::run(a),
        Command::Search(a) => search::run(a),
        Command::Frontier(a) => frontier::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Cite(a) => cite::run(a),
        Command::Locate(a) => locate::run(a),
        Command::Audit(a) => audit::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Mcp(a) => mcp::run(a),
    };
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::NotFound) => ExitCode::from(1),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let mut msg = format!("wikiwit: error: {e}");
            for cause in e.chain().skip(1) {
                let c = cause.to_string();
                if !msg.contains(&c) {
                    msg.push_str(&format!("\n  caused by: {c}"));
                }
            }
            let _ = writeln!(std::io::stderr(), "{msg}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<wikiwit::export::ExportError>()
                .is_some_and(|x| matches!(x, wikiwit::export::ExportError::Write(io) if io.kind() == std::io::ErrorKind::BrokenPipe))
    })
}

/// Prints one JSON value per line.
pub fn print_json<T: serde::Serialize>(out: &mut dyn Write, value: &T) -> anyhow::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}
