//! `wikiwit locate LOCATOR [--json]`: what a locator points at, or why it points nowhere.

use std::io::Write;

use wikiwit::locator::{Content, Resolution};

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// `Page#Section|table:1|row:3|col:Length`, `Page|infobox:length`, a Wikipedia URL, …
    locator: String,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let loc = wikiwit::locator::parse(&args.locator)
        .map_err(|e| anyhow::anyhow!("{:?}: {e}", args.locator))?;
    let index = args.index.open()?;
    let res = wikiwit::locator::resolve(&index, &loc)?;
    let mut out = std::io::stdout().lock();
    if args.out.json {
        #[derive(serde::Serialize)]
        struct View<'a> {
            locator: &'a wikiwit::locator::Locator,
            #[serde(flatten)]
            resolution: &'a Resolution,
        }
        super::print_json(
            &mut out,
            &View {
                locator: &loc,
                resolution: &res,
            },
        )?;
    }
    match res {
        Resolution::Unresolved(u) => {
            if !args.out.json {
                eprintln!("wikiwit: {loc}: {u}");
            }
            Ok(Outcome::NotFound)
        }
        Resolution::Found(r) => {
            if args.out.json {
                return Ok(Outcome::Success);
            }
            let via = if r.via.is_empty() {
                String::new()
            } else {
                format!(" (via {})", r.via.join(" → "))
            };
            let sec = r
                .section
                .as_ref()
                .and_then(|s| s.anchor.as_deref())
                .map(|a| format!("#{a}"))
                .unwrap_or_default();
            writeln!(
                out,
                "{}{sec}{via}\tpage {} rev {}",
                r.page, r.page_id, r.rev_id
            )?;
            if let Some(o) = r.other_revision {
                writeln!(
                    out,
                    "note: the locator names revision {o}; the index holds {}",
                    r.rev_id
                )?;
            }
            match &r.content {
                Content::Row { cells, .. }
                | Content::Cell {
                    row_cells: cells, ..
                } => {
                    let only = match &r.content {
                        Content::Cell { cell, .. } => Some(cell.col),
                        _ => None,
                    };
                    for c in cells.iter().filter(|c| only.is_none_or(|o| o == c.col)) {
                        let label = c.label.clone().unwrap_or_else(|| format!("col {}", c.col));
                        writeln!(out, "{label}\t{}", c.text)?;
                    }
                }
                other => writeln!(out, "{}", other.excerpt())?,
            }
            Ok(Outcome::Success)
        }
    }
}
