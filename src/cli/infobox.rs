//! `wikiwit infobox TITLE [FIELD]`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    /// Print only this field's value (exit code 1 if the infobox has no such field).
    field: Option<String>,
    #[command(flatten)]
    index: IndexArg,
    #[arg(long)]
    json: bool,
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
                if args.json {
                    return super::print_json(out, &f);
                }
                writeln!(out, "{}", if args.raw { &f.raw } else { &f.text })?;
                Ok(())
            },
        );
    }
    query_cmds::run(
        || wikiwit::query::infobox(&index, &args.title),
        |out, (p, boxes, s)| {
            let links = |ids: &[u32]| -> Vec<String> {
                ids.iter()
                    .filter_map(|&i| s.links.get(i as usize))
                    .map(|l| index.codec().prefixed_text(l.ns, &l.dbkey))
                    .collect()
            };
            for b in &boxes {
                if args.json {
                    let fields: Vec<serde_json::Value> = b
                        .fields
                        .iter()
                        .map(|f| serde_json::json!({"name": f.name, "text": f.text, "raw": f.raw, "links": links(&f.links)}))
                        .collect();
                    super::print_json(
                        out,
                        &serde_json::json!({"page": p.title, "template": b.template.replace('_', " "), "fields": fields}),
                    )?;
                    continue;
                }
                writeln!(out, "{} ({})", p.title, b.template.replace('_', " "))?;
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
