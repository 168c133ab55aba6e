//! `wikiwit info`.

use std::io::Write;

use super::{IndexArg, Outcome};
use wikiwit::expand::CostKind;
use wikiwit::index::costs::Costs;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
    /// Also recompute every file's checksum.
    #[arg(long)]
    verify: bool,
    /// How many of the most called templates and modules to show.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open_pages()?;
    if args.verify {
        index.verify()?;
    }
    let costs = index.costs()?.map(|c| c.top(args.top));
    let mut out = std::io::stdout().lock();
    let m = index.manifest();
    if args.out.json {
        // The manifest, with the most called templates and modules beside it.
        let mut v = serde_json::to_value(m)?;
        v["costs"] = serde_json::to_value(&costs)?;
        super::print_json(&mut out, &v)?;
    } else {
        super::build::summary(&mut out, index.dir(), m)?;
        // Before the source and format lines, which stay last (what `tail -n 2` shows).
        if let Some(c) = &costs {
            print_costs(&mut out, c)?;
        }
        writeln!(
            out,
            "  source      {} ({} bytes, sha256 {})",
            m.source.path, m.source.size, m.source.sha256
        )?;
        writeln!(
            out,
            "  format      wikiwit index v{} (built by wikiwit {} at {})",
            m.format_version, m.wikiwit_version, m.built_at
        )?;
        if args.verify {
            writeln!(out, "  checksums   ok")?;
        }
    }
    Ok(Outcome::Success)
}

/// The most called templates and modules, a table per kind.
fn print_costs(out: &mut dyn std::io::Write, c: &Costs) -> anyhow::Result<()> {
    writeln!(
        out,
        "  costs       {} page(s) called templates or modules; most called (inclusive counts; costs.json has all, `build --cost-report` adds Lua instructions and time)",
        c.pages_with_calls
    )?;
    for (kind, name) in [
        (CostKind::Module, "modules"),
        (CostKind::Template, "templates"),
    ] {
        let rows = c.rows(kind);
        if rows.is_empty() {
            continue;
        }
        writeln!(
            out,
            "    {name:<9} {:>9} {:>7} {:>12} {:>14} {:>12}  title",
            "calls", "pages", "nodes", "post-expand B", "work"
        )?;
        for r in rows {
            writeln!(
                out,
                "    {:<9} {:>9} {:>7} {:>12} {:>14} {:>12}  {}",
                "", r.calls, r.pages, r.nodes, r.post_expand_size, r.work, r.title
            )?;
        }
    }
    Ok(())
}
