//! `wikiwit eval frontier INSTANCES.jsonl [--config planner|outlinks|seed-table …]`.

use std::io::Write;
use std::path::PathBuf;

use wikiwit::eval::{Config, EvalReport, PlannerSettings, evaluate, read_instances};

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, clap::Subcommand)]
enum What {
    /// Score frontier configurations against gold pages (and gold keys).
    Frontier(FrontierArgs),
}

#[derive(Debug, clap::Args)]
pub struct FrontierArgs {
    /// JSON lines: {id, query, seed, seed_table, gold_pages, gold_rows, answer[, gold_keys]}.
    instances: PathBuf,
    /// Configurations (planner, outlinks, seed-table); with two, the first is compared
    /// with the second (paired bootstrap CI of the F1 difference, sign test).
    #[arg(long, value_delimiter = ',', default_values_t = ["planner".to_string()])]
    config: Vec<String>,
    /// The planner's page limit.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// The planner's row ratio (see `wikiwit frontier --row-ratio`).
    #[arg(long, default_value_t = wikiwit::frontier::planner::ROW_RATIO)]
    row_ratio: f64,
    /// Print every instance's score in the table output.
    #[arg(long)]
    per_instance: bool,
    #[command(flatten)]
    index: IndexArg,
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let What::Frontier(a) = args.what;
    let configs: Vec<Config> = a
        .config
        .iter()
        .map(|c| {
            Config::parse(c.trim()).ok_or_else(|| {
                anyhow::anyhow!("unknown config {c:?}; known: planner, outlinks, seed-table")
            })
        })
        .collect::<anyhow::Result<_>>()?;
    let instances = read_instances(&a.instances)?;
    let index = a.index.open()?;
    let settings = PlannerSettings {
        limit: a.limit,
        row_ratio: a.row_ratio,
    };
    let report = evaluate(&index, &instances, &configs, settings)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        super::print_json(&mut out, &report)?;
    } else {
        print_table(&mut out, &report, a.per_instance)?;
    }
    Ok(Outcome::Success)
}

fn print_table(out: &mut dyn Write, r: &EvalReport, per_instance: bool) -> anyhow::Result<()> {
    writeln!(out, "{} instances", r.instances)?;
    writeln!(
        out,
        "{:<12} {:>9} {:>9} {:>9} {:>10}  key P / R / F1",
        "config", "precision", "recall", "F1", "pages/inst"
    )?;
    for c in &r.configs {
        let keys = c
            .keys_macro
            .map(|k| format!("{:.4} / {:.4} / {:.4}", k.precision, k.recall, k.f1))
            .unwrap_or_else(|| "—".into());
        writeln!(
            out,
            "{:<12} {:>9.4} {:>9.4} {:>9.4} {:>10.2}  {keys}",
            c.config.name(),
            c.macro_avg.precision,
            c.macro_avg.recall,
            c.macro_avg.f1,
            c.mean_predicted
        )?;
    }
    if let (Some(p), [a, b, ..]) = (&r.comparison, &r.configs[..]) {
        writeln!(
            out,
            "F1 {} − {}: {:+.4}, 95% CI [{:+.4}, {:+.4}] (paired bootstrap, {} resamples, seed {})",
            a.config.name(),
            b.config.name(),
            p.mean_difference,
            p.ci95.0,
            p.ci95.1,
            p.resamples,
            p.seed
        )?;
        writeln!(
            out,
            "sign test: {} better {}, {} better {}, {} ties; two-sided p = {:.3e}",
            a.config.name(),
            p.a_better,
            b.config.name(),
            p.b_better,
            p.ties,
            p.sign_test_p
        )?;
    }
    if per_instance {
        for c in &r.configs {
            writeln!(out, "\n{}:", c.config.name())?;
            for s in &c.instances {
                writeln!(
                    out,
                    "  {:<18} P {:.2} R {:.2} F1 {:.2}  predicted {}  gold {}{}",
                    s.id,
                    s.prf.precision,
                    s.prf.recall,
                    s.prf.f1,
                    s.predicted.len(),
                    s.gold.len(),
                    s.error
                        .as_ref()
                        .map(|e| format!("  ({e})"))
                        .unwrap_or_default()
                )?;
            }
        }
    }
    Ok(())
}
