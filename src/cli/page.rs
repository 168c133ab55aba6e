//! `wikiwit page TITLE`.

use super::{IndexArg, Outcome, query_cmds};

#[derive(Debug, clap::Args)]
pub struct Args {
    title: String,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
    /// Print the page's wikitext after template expansion instead (with --json: and
    /// the templates, modules and warnings of the expansion).
    #[arg(long)]
    expanded: bool,
    /// Print the page's wikitext as the dump gives it (read from the dump the index was
    /// built from; with --json: with its title, page id and revision).
    #[arg(long, conflicts_with = "expanded")]
    wikitext: bool,
}

/// Prints an expansion: the text alone, or everything as JSON.
pub fn print_expansion(
    out: &mut dyn std::io::Write,
    v: &wikiwit::query::ExpandView,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        return super::print_json(out, v);
    }
    out.write_all(v.text.as_bytes())?;
    if !v.text.ends_with('\n') {
        writeln!(out)?;
    }
    for w in &v.warnings {
        eprintln!("wikiwit: warning: {}", w.message);
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    if args.wikitext {
        // Pages, titles and the dump's offsets are enough: a `--pages-only` index too.
        let index = args.index.open_pages()?;
        return query_cmds::run(
            || wikiwit::query::page_source(&index, &args.title),
            |out, v| {
                if args.out.json {
                    return super::print_json(out, &v);
                }
                out.write_all(v.text.as_bytes())?;
                if !v.text.ends_with('\n') {
                    writeln!(out)?;
                }
                Ok(())
            },
        );
    }
    let index = args.index.open()?;
    if args.expanded {
        return query_cmds::run(
            || wikiwit::query::expand_page(&index, &args.title),
            |out, v| print_expansion(out, &v, args.out.json),
        );
    }
    query_cmds::run(
        || wikiwit::query::summary(&index, &args.title),
        |out, p| {
            if args.out.json {
                return super::print_json(out, &p);
            }
            let via = if p.page.via.is_empty() {
                String::new()
            } else {
                format!(" (via {})", p.page.via.join(" → "))
            };
            writeln!(out, "{}{via}", p.page.title)?;
            writeln!(
                out,
                "  page id {}, revision {} of {}, {} bytes{}",
                p.page.page_id,
                p.rev_id,
                p.timestamp,
                p.bytes,
                if p.list_page { ", list page" } else { "" }
            )?;
            writeln!(
                out,
                "  links: {} in its text, {} in template arguments; {} pages link here",
                p.links, p.template_links, p.inlinks
            )?;
            let ctx: Vec<String> = p
                .links_by_context
                .iter()
                .map(|(c, n)| format!("{c} {n}"))
                .collect();
            writeln!(out, "  links by context: {}", ctx.join(", "))?;
            if !p.redirects.is_empty() {
                writeln!(out, "  redirects here: {}", p.redirects.join(", "))?;
            }
            for (t, n) in &p.infoboxes {
                writeln!(out, "  infobox: {t} ({n} fields)")?;
            }
            writeln!(out, "  sections ({}):", p.sections.len())?;
            for s in &p.sections {
                writeln!(
                    out,
                    "    {:<8}{}{}  #{}",
                    s.number,
                    "  ".repeat(s.level.saturating_sub(2) as usize),
                    s.heading,
                    s.anchor
                )?;
            }
            for t in &p.tables {
                let labels: Vec<String> = t
                    .labels
                    .iter()
                    .map(|l| l.clone().unwrap_or_else(|| "-".into()))
                    .collect();
                writeln!(
                    out,
                    "  table {}: {} data rows × {} columns{}{} [{}]",
                    t.table,
                    t.rows,
                    t.columns,
                    if t.caption.is_empty() {
                        String::new()
                    } else {
                        format!(", caption {:?}", t.caption)
                    },
                    t.section
                        .as_ref()
                        .map(|s| format!(", in #{s}"))
                        .unwrap_or_default(),
                    labels.join(" | ")
                )?;
            }
            writeln!(
                out,
                "  list items: {}, templates: {}",
                p.list_items, p.templates
            )?;
            writeln!(out, "  categories: {}", p.categories.join(", "))?;
            for w in &p.warnings {
                writeln!(out, "  warning: {w}")?;
            }
            Ok(())
        },
    )
}
