//! `wikiwit frontier --seed TITLE --query "…" [--table N] [--ops …] [--limit K]`.

use std::io::Write;

use wikiwit::frontier::{
    CountSource, Frontier, Op, PlanOptions, Rules, Unresolved, operators, plan,
};
use wikiwit::index::Index;

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The page the question starts from.
    #[arg(long)]
    seed: String,
    /// The question. Without one, the operators in --ops run alone and every page they
    /// find is listed with its provenance, unranked.
    #[arg(long)]
    query: Option<String>,
    /// Only this column (0-based) of the table, for `seed-table` without --query.
    #[arg(long)]
    column: Option<usize>,
    /// Names to resolve (`entity-page`) or canonicalize (`redirect`), comma-separated.
    #[arg(long, value_delimiter = ',')]
    keys: Vec<String>,
    /// Category for the `category` operator, and how deep to go into subcategories.
    #[arg(long)]
    category: Option<String>,
    #[arg(long, default_value_t = 0)]
    depth: usize,
    /// Only rows of this table of the seed (1-based).
    #[arg(long)]
    table: Option<usize>,
    /// Operators to run, comma-separated (outlinks, seed-table, seed-list, sibling-list,
    /// redirect, entity-page, category, count). Default: seed-table, seed-list,
    /// redirect, entity-page, count.
    #[arg(long, value_delimiter = ',')]
    ops: Vec<String>,
    #[command(flatten)]
    planner: PlannerArgs,
    /// Rejected candidates shown in text output (JSON has all).
    #[arg(long, default_value_t = 10)]
    show_rejected: usize,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
}

/// The planner's settings, shared by `frontier` and `eval frontier`.
#[derive(Debug, clap::Args)]
pub struct PlannerArgs {
    /// At most this many pages in the frontier.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Keep rows scoring at least this fraction of the best row.
    #[arg(long, default_value_t = wikiwit::frontier::planner::ROW_RATIO)]
    pub row_ratio: f64,
    /// Weight of a row's best page's score in the row's score (its own text counts 1).
    #[arg(long, default_value_t = wikiwit::frontier::planner::PAGE_WEIGHT)]
    pub page_weight: f64,
    /// Propose pages even when the question asks for a column of the row it picks (the
    /// row then already holds the answer and the frontier is empty).
    #[arg(long)]
    no_answer_in_row: bool,
    /// Keep a row's page even when the question names it by its title (by default it
    /// only identifies the row, and another page of the row is taken).
    #[arg(long)]
    keep_named_pages: bool,
}

impl PlannerArgs {
    /// The rules on by default; each flag turns one off.
    pub fn rules(&self) -> Rules {
        Rules {
            answer_in_row: !self.no_answer_in_row,
            named_page_identifies: !self.keep_named_pages,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let ops = if args.ops.is_empty() && args.query.is_none() {
        vec![Op::SeedTable, Op::SeedList, Op::Count]
    } else if args.ops.is_empty() {
        Op::DEFAULT.to_vec()
    } else {
        args.ops
            .iter()
            .map(|o| {
                Op::parse(o.trim()).ok_or_else(|| {
                    let names: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
                    anyhow::anyhow!("unknown operator {o:?}; known: {}", names.join(", "))
                })
            })
            .collect::<anyhow::Result<_>>()?
    };
    let index = args.index.open()?;
    let Some(query) = args.query.clone() else {
        return run_operators(&index, &args, &ops);
    };
    let opts = PlanOptions {
        seed: args.seed.clone(),
        query,
        table: args.table,
        ops,
        limit: args.planner.limit,
        row_ratio: args.planner.row_ratio,
        page_weight: args.planner.page_weight,
        rules: args.planner.rules(),
    };
    let f = match plan(&index, &opts) {
        Ok(f) => f,
        Err(e) if e.is_not_found() => {
            eprintln!("wikiwit: {e}");
            return Ok(Outcome::NotFound);
        }
        Err(e) => return Err(e.into()),
    };
    let mut out = std::io::stdout().lock();
    if args.out.json {
        super::print_json(&mut out, &f)?;
    } else {
        print_text(&mut out, &f, args.show_rejected)?;
    }
    // An empty frontier is an answer when the row itself holds it.
    Ok(if f.pages.is_empty() && f.answer_in_row.is_none() {
        Outcome::NotFound
    } else {
        Outcome::Success
    })
}

/// Runs each operator alone and lists what it found.
fn run_operators(index: &Index, args: &Args, ops: &[Op]) -> anyhow::Result<Outcome> {
    let mut results = Vec::new();
    for op in ops {
        let r = match op {
            Op::Outlinks => operators::outlinks(index, &args.seed),
            Op::SeedTable => operators::seed_table(index, &args.seed, args.table, args.column),
            Op::SeedList => operators::seed_list(index, &args.seed),
            Op::SiblingList => operators::sibling_list(index, &args.seed, args.planner.limit),
            Op::Redirect => operators::redirect(index, &args.keys),
            Op::EntityPage => operators::entity_page(index, &args.keys, Some(&args.seed)),
            Op::Category => match &args.category {
                Some(c) => operators::category(index, c, args.depth),
                None => anyhow::bail!("the category operator needs --category NAME"),
            },
            Op::Count => operators::count(index, &args.seed, args.table),
        };
        match r {
            Ok(r) => results.push(r),
            Err(e) if e.is_not_found() => {
                eprintln!("wikiwit: {e}");
                return Ok(Outcome::NotFound);
            }
            Err(e) => return Err(e.into()),
        }
    }
    let mut out = std::io::stdout().lock();
    for r in &results {
        if args.out.json {
            super::print_json(&mut out, r)?;
            continue;
        }
        writeln!(out, "{}: {} page(s)", r.operator, r.pages().len())?;
        for c in &r.candidates {
            let chain: Vec<String> = c
                .chain
                .iter()
                .map(|s| format!("{} at {}: {}", s.operator, s.locator, s.reason))
                .collect();
            writeln!(
                out,
                "  {} [{}]  {}",
                c.title,
                c.role.as_str(),
                chain.join(" → ")
            )?;
        }
        print_findings(&mut out, "  ", &r.counts, &r.unresolved, usize::MAX)?;
    }
    Ok(Outcome::Success)
}

/// Cardinalities and unresolved names (at most `max` of these).
fn print_findings(
    out: &mut dyn Write,
    indent: &str,
    counts: &[CountSource],
    unresolved: &[Unresolved],
    max: usize,
) -> anyhow::Result<()> {
    for n in counts {
        writeln!(
            out,
            "{indent}count {}: {} {} ({} linked)",
            n.locator, n.count, n.what, n.linked
        )?;
    }
    for u in unresolved.iter().take(max) {
        writeln!(
            out,
            "{indent}unresolved {:?} at {}: {}",
            u.key, u.locator, u.reason
        )?;
    }
    if unresolved.len() > max {
        writeln!(out, "{indent}… {} more unresolved", unresolved.len() - max)?;
    }
    Ok(())
}

/// The frontier as a reader wants it: pages with their chains, then what was left out.
pub fn print_text(out: &mut dyn Write, f: &Frontier, show_rejected: usize) -> anyhow::Result<()> {
    let ops: Vec<&str> = f.ops.iter().map(|o| o.name()).collect();
    writeln!(out, "seed {} [seed]; operators {}", f.seed, ops.join(", "))?;
    if let Some(a) = &f.answer_in_row {
        let rows: Vec<String> = a.rows.iter().map(usize::to_string).collect();
        writeln!(
            out,
            "  no page needed: the question asks for \"{}\" ({}), column {} of table {}, row {}: {}",
            a.label,
            a.asked,
            a.col,
            a.table,
            rows.join(", "),
            a.values.join(" | ")
        )?;
    }
    for s in &f.superlatives {
        let rows: Vec<String> = s.rows.iter().map(usize::to_string).collect();
        writeln!(
            out,
            "  superlative \"{}\": {} \"{}\" of table {} is {} in row {}",
            s.words,
            if s.max { "largest" } else { "smallest" },
            s.label,
            s.table,
            s.value,
            rows.join(", ")
        )?;
    }
    for u in f.units.iter().filter(|u| u.kept) {
        writeln!(out, "  row {:.2}  {}  {}", u.score, u.locator, u.text)?;
    }
    writeln!(out, "frontier ({} page(s)):", f.pages.len())?;
    for (i, r) in f.pages.iter().enumerate() {
        writeln!(
            out,
            "{:>3}. {:.2}  {} [{}]",
            i + 1,
            r.score,
            r.candidate.title,
            r.candidate.role.as_str()
        )?;
        for s in &r.candidate.chain {
            writeln!(
                out,
                "       {} ({}) at {}: {}",
                s.operator,
                s.role.as_str(),
                s.locator,
                s.reason
            )?;
        }
        if let Some(b) = &r.best_sentence {
            writeln!(out, "       best sentence: {b}")?;
        }
    }
    print_findings(out, "", &f.counts, &f.unresolved, show_rejected)?;
    writeln!(out, "rejected ({}):", f.rejected.len())?;
    for r in f.rejected.iter().take(show_rejected) {
        writeln!(
            out,
            "  {} ({} at {}): {}",
            r.title, r.operator, r.locator, r.why
        )?;
    }
    if f.rejected.len() > show_rejected {
        writeln!(
            out,
            "  … {} more (--json shows all)",
            f.rejected.len() - show_rejected
        )?;
    }
    Ok(())
}
