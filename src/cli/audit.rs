//! `wikiwit audit CONTRACT ROWS [--index DIR] [--findings FILE] [--threads N]
//! [--memory-budget SIZE] [--checkpoint-every ROWS] [--restart]`.

use std::io::Write;
use std::path::PathBuf;

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The contract (JSON): query, key, typed columns, scope, sources.
    contract: PathBuf,
    /// The staged rows (JSON lines or CSV); opened read-only.
    rows: PathBuf,
    #[command(flatten)]
    index: IndexArg,
    /// Findings log to append to (default: ROWS with `.findings.jsonl` appended).
    #[arg(long, value_name = "FILE")]
    findings: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, short = 'j', default_value_t = 0)]
    threads: usize,
    /// Memory the per-row summaries (keys, sources) may hold before spilling sorted runs
    /// beside the findings log, e.g. 256M, 1G (default 512M, as for `build`). The
    /// findings are the same byte for byte whatever the budget.
    #[arg(long, value_name = "SIZE", value_parser = super::build::parse_size)]
    memory_budget: Option<u64>,
    /// Rows between two checkpoints in the findings log: an interrupted audit of the
    /// same inputs into the same log goes on from the last one.
    #[arg(long, value_name = "ROWS", default_value_t = 1 << 20,
          value_parser = clap::value_parser!(u64).range(1..))]
    checkpoint_every: u64,
    /// Start over even when the log holds an interrupted audit of these inputs.
    #[arg(long)]
    restart: bool,
    #[command(flatten)]
    out: super::JsonArg,
    #[command(flatten)]
    html: super::HtmlArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let index = args.index.open()?;
    let log = args.findings.clone().unwrap_or_else(|| {
        let mut s = args.rows.clone().into_os_string();
        s.push(".findings.jsonl");
        PathBuf::from(s)
    });
    let opts = wikiwit::audit::Options {
        threads: args.threads,
        keep_findings: args.html.file.is_some(),
        memory_budget: args.memory_budget,
        checkpoint_rows: usize::try_from(args.checkpoint_every).unwrap_or(usize::MAX),
        resume: !args.restart,
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let s = wikiwit::audit::audit(&index, &args.contract, &args.rows, &log, &opts)?;
    let secs = start.elapsed().as_secs_f64();
    if let Some(file) = &args.html.file {
        let inputs = wikiwit::html::audit::Inputs {
            contract: &args.contract.display().to_string(),
            rows: &args.rows.display().to_string(),
        };
        let page = wikiwit::html::audit::report(&s, &s.kept, &inputs, &args.html.links());
        super::write_html(file, &page)?;
    }
    let mut out = std::io::stdout().lock();
    if args.out.json {
        super::print_json(&mut out, &s)?;
    } else {
        writeln!(
            out,
            "audit {}: {} row(s) of {} (sha256 {})",
            s.audit,
            s.rows,
            args.rows.display(),
            &s.rows_sha256[..16]
        )?;
        writeln!(
            out,
            "{} finding(s): {} blocking, {} hygiene, {} advisory; {} row(s) blocked",
            s.findings, s.blocking, s.hygiene, s.advisory, s.rows_blocked
        )?;
        for c in wikiwit::audit::checks::ALL {
            if let Some(n) = s.by_check.get(&c.id()) {
                writeln!(
                    out,
                    "  {:>2} {:<22} {:<10} {n}",
                    c.id(),
                    c.name(),
                    format!("{:?}", c.category()).to_lowercase()
                )?;
            }
        }
        writeln!(
            out,
            "states: {}; findings appended to {}",
            s.states.join(", "),
            s.findings_log.display()
        )?;
    }
    if let Some(n) = s.resumed_from {
        eprintln!(
            "wikiwit: resumed an interrupted audit of these rows at row {n} (its last checkpoint)"
        );
    }
    let done = s.rows - s.resumed_from.unwrap_or(0);
    eprintln!(
        "wikiwit: audited {done} rows in {secs:.2} s ({:.0} rows/s); summaries spilled to {} run(s)",
        done as f64 / secs.max(1e-9),
        s.spilled_runs
    );
    Ok(if s.blocking > 0 {
        Outcome::NotFound
    } else {
        Outcome::Success
    })
}
