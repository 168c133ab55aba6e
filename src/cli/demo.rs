//! `wikiwit demo`: the embedded rivers wiki, built into a temporary index and queried.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use wikiwit::build::{BuildOptions, NoProgress, build};
use wikiwit::index::Index;
use wikiwit::resolve::resolve;
use wikiwit::title::InterwikiProfile;

use super::Outcome;

/// The sample wiki (a handwritten dump in `tests/data/rivers/`), compiled into the binary
/// so the demo runs from anywhere.
const SAMPLE: &[u8] = include_bytes!("../../tests/data/rivers/rivers-wiki.xml");

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Keep the demo index in this directory instead of a temporary one.
    #[arg(long, value_name = "DIR")]
    keep: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let tmp = tempfile::tempdir()?;
    let dump = tmp.path().join("rivers-wiki.xml");
    std::fs::write(&dump, SAMPLE)?;
    let dir = args
        .keep
        .clone()
        .unwrap_or_else(|| tmp.path().join("index"));
    let opts = BuildOptions {
        dump,
        multistream_index: None,
        index_dir: Some(dir),
        threads: 0,
        interwiki: InterwikiProfile::Auto,
    };
    let report = build(&opts, &NoProgress, &AtomicBool::new(false))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "== 1. Build the embedded sample wiki ==")?;
    super::build::summary(&mut out, &report.dir, &report.manifest)?;
    let index = Index::open(&report.dir)?;

    writeln!(out, "\n== 2. Resolve titles as MediaWiki would ==")?;
    for q in [
        "Ural River",
        "ural River",
        "ural river",
        "River Ural",
        "Iron Gates",
        "Salween River",
        "danube",
        "Category:rivers of Europe",
        "wikt:river",
        "Ural [river]",
    ] {
        let r = resolve(&index, q)?;
        let what = match (&r.target, r.status) {
            (Some(t), _) => format!(
                "{}{} (page {})",
                t.title,
                r.fragment
                    .as_deref()
                    .map(|f| format!("#{f}"))
                    .unwrap_or_default(),
                t.page_id
            ),
            (None, _) => r.reason.clone().or(r.title.clone()).unwrap_or_default(),
        };
        let via = if r.chain.len() > 1 {
            format!("  via {}", r.chain.join(" → "))
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {q:<28} {:<16} {what}{via}",
            serde_json::to_value(r.status)?
                .as_str()
                .unwrap_or_default()
                .to_string()
        )?;
    }
    if args.keep.is_some() {
        writeln!(out, "\nindex kept in {}", report.dir.display())?;
    }
    Ok(Outcome::Success)
}
