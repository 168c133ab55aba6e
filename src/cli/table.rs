//! `wikiwit table TITLE N [--row R]`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    /// Table number on the page, from 1 in document order.
    n: usize,
    /// Only this data row (0-based, header rows not counted).
    #[arg(long)]
    row: Option<usize>,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    if let Some(r) = args.row {
        return query_cmds::run(
            || wikiwit::query::table_row(&index, &args.title, args.n, r),
            |out, row| {
                if args.out.json {
                    return super::print_json(out, &row);
                }
                for (i, c) in row.cells.iter().enumerate() {
                    let label = row
                        .labels
                        .get(i)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| format!("col {i}"));
                    let links = if c.links.is_empty() {
                        String::new()
                    } else {
                        format!("\t→ {}", c.links.join(", "))
                    };
                    writeln!(out, "{label}\t{}{links}", c.text)?;
                }
                Ok(())
            },
        );
    }
    query_cmds::run(
        || wikiwit::query::table(&index, &args.title, args.n),
        |out, t| {
            if args.out.json {
                return super::print_json(out, &t);
            }
            if !t.caption.is_empty() {
                writeln!(out, "# {}", t.caption)?;
            }
            let labels: Vec<String> = t
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| l.clone().unwrap_or_else(|| format!("col {i}")))
                .collect();
            writeln!(out, "row\t{}", labels.join("\t"))?;
            for (i, r) in t.rows.iter().enumerate() {
                writeln!(out, "{i}\t{}", r.join("\t"))?;
            }
            Ok(())
        },
    )
}
