//! `wikiwit eval frontier INSTANCES.jsonl [--config planner|outlinks|seed-table …]`.

use std::io::Write;
use std::path::PathBuf;

use wikiwit::eval::folds::{FoldReport, cross_validate};
use wikiwit::eval::misses::{MissReport, misses};
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
    #[command(flatten)]
    planner: super::frontier::PlannerArgs,
    /// Print every instance's score in the table output.
    #[arg(long)]
    per_instance: bool,
    /// Instead of scoring configurations: choose the planner's settings (row ratio,
    /// rules) on K−1 folds and score them on the held-out fold, for each of K folds.
    #[arg(long, value_name = "K", conflicts_with = "misses")]
    folds: Option<usize>,
    /// Instead of scoring configurations: sort the planner's misses by kind (wrong row,
    /// another column's page, bridge page needed, empty gold, red link, …).
    #[arg(long)]
    misses: bool,
    #[command(flatten)]
    index: IndexArg,
    #[command(flatten)]
    out: super::JsonArg,
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
        limit: a.planner.limit,
        row_ratio: a.planner.row_ratio,
        page_weight: a.planner.page_weight,
        rules: a.planner.rules(),
    };
    let mut out = std::io::stdout().lock();
    if let Some(k) = a.folds {
        let report = cross_validate(&index, &instances, k, settings)?;
        if a.out.json {
            super::print_json(&mut out, &report)?;
        } else {
            print_folds(&mut out, &report)?;
        }
        return Ok(Outcome::Success);
    }
    if a.misses {
        let report = misses(&index, &instances, settings)?;
        if a.out.json {
            super::print_json(&mut out, &report)?;
        } else {
            print_misses(&mut out, &report, a.per_instance)?;
        }
        return Ok(Outcome::Success);
    }
    let report = evaluate(&index, &instances, &configs, settings)?;
    if a.out.json {
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
        "{:<12} {:>9} {:>9} {:>9} {:>10}  {:<24}  key P / R / F1",
        "config", "precision", "recall", "F1", "pages/inst", "rows P / R / F1"
    )?;
    for c in &r.configs {
        let keys = c
            .keys_macro
            .map(|k| format!("{:.4} / {:.4} / {:.4}", k.precision, k.recall, k.f1))
            .unwrap_or_else(|| "—".into());
        let rows = c.rows_macro;
        writeln!(
            out,
            "{:<12} {:>9.4} {:>9.4} {:>9.4} {:>10.2}  {:<24}  {keys}",
            c.config.name(),
            c.macro_avg.precision,
            c.macro_avg.recall,
            c.macro_avg.f1,
            c.mean_predicted,
            format!(
                "{:.4} / {:.4} / {:.4}",
                rows.precision, rows.recall, rows.f1
            )
        )?;
    }
    for (axis, cmp) in [("F1", &r.comparison), ("row F1", &r.rows_comparison)] {
        if let (Some(p), [a, b, ..]) = (cmp, &r.configs[..]) {
            print_paired(out, axis, a.config.name(), b.config.name(), p)?;
        }
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

fn print_paired(
    out: &mut dyn Write,
    axis: &str,
    a: &str,
    b: &str,
    p: &wikiwit::eval::bootstrap::Paired,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "{axis} {a} − {b}: {:+.4}, 95% CI [{:+.4}, {:+.4}] (paired bootstrap, {} resamples, seed {})",
        p.mean_difference, p.ci95.0, p.ci95.1, p.resamples, p.seed
    )?;
    writeln!(
        out,
        "  sign test: {a} better {}, {b} better {}, {} ties; two-sided p = {:.3e}",
        p.a_better, p.b_better, p.ties, p.sign_test_p
    )?;
    Ok(())
}

fn settings_text(s: &PlannerSettings) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    format!(
        "row ratio {}, page weight {}, answer-in-row {}, named page identifies {}",
        s.row_ratio,
        s.page_weight,
        on(s.rules.answer_in_row),
        on(s.rules.named_page_identifies)
    )
}

fn print_folds(out: &mut dyn Write, r: &FoldReport) -> anyhow::Result<()> {
    writeln!(
        out,
        "{} instances, {} folds (shuffle seed {})",
        r.instances, r.folds, r.seed
    )?;
    writeln!(out, "in-sample, every setting tried:")?;
    for g in &r.grid {
        writeln!(
            out,
            "  {:<62} page P {:.4} R {:.4} F1 {:.4}   row F1 {:.4}",
            settings_text(&g.settings),
            g.pages.precision,
            g.pages.recall,
            g.pages.f1,
            g.rows.f1
        )?;
    }
    for f in &r.per_fold {
        writeln!(
            out,
            "fold {} ({} instances): chose {} (train F1 {:.4}); held-out page F1 {:.4}, row F1 {:.4}",
            f.fold,
            f.instances,
            settings_text(&f.chosen),
            f.train_f1,
            f.pages.f1,
            f.rows.f1
        )?;
    }
    let (p, w) = (r.held_out_pages, r.held_out_rows);
    writeln!(
        out,
        "held-out: page P {:.4} R {:.4} F1 {:.4}; row P {:.4} R {:.4} F1 {:.4}",
        p.precision, p.recall, p.f1, w.precision, w.recall, w.f1
    )?;
    Ok(())
}

fn print_misses(out: &mut dyn Write, r: &MissReport, per_instance: bool) -> anyhow::Result<()> {
    writeln!(
        out,
        "{} instances, {} complete (every gold page proposed, or an empty frontier for empty gold)",
        r.instances, r.complete
    )?;
    writeln!(out, "{:<44} {:>8} {:>10}", "kind", "misses", "instances")?;
    for k in &r.kinds {
        writeln!(out, "{:<44} {:>8} {:>10}", k.name, k.misses, k.instances)?;
    }
    writeln!(
        out,
        "pages proposed but not gold: {} ({} linked from a gold row)",
        r.extra, r.extra_in_gold_rows
    )?;
    if per_instance {
        for m in r.per_instance.iter().filter(|m| !m.misses.is_empty()) {
            let kinds: Vec<String> = m
                .misses
                .iter()
                .map(|(p, k)| {
                    if p.is_empty() {
                        k.name().to_string()
                    } else {
                        format!("{p}: {}", k.name())
                    }
                })
                .collect();
            writeln!(out, "  {:<18} {}", m.id, kinds.join("; "))?;
        }
    }
    Ok(())
}
