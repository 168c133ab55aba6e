//! `wikiwit demo`: the embedded rivers wiki, built into a temporary index and queried.

use std::io::Write;
use std::sync::atomic::AtomicBool;

use wikiwit::index::Index;
use wikiwit::indexer::{BuildOptions, NoProgress, build};
use wikiwit::resolve::resolve;
use wikiwit::title::InterwikiProfile;

use super::Outcome;

/// The sample wiki (a handwritten dump in `tests/data/rivers/`), compiled into the binary
/// so the demo runs from anywhere.
const SAMPLE: &[u8] = include_bytes!("../../tests/data/rivers/rivers-wiki.xml");
/// A staged table of the sample wiki's rivers, with realistic faults, and its contract.
const STAGED_CONTRACT: &[u8] =
    include_bytes!("../../tests/data/rivers/transboundary-contract.json");
const STAGED_ROWS: &[u8] = include_bytes!("../../tests/data/rivers/transboundary-rows.jsonl");

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Keep the demo index in this directory instead of a temporary one.
    #[arg(long, value_name = "DIR")]
    keep: Option<std::path::PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let tmp = tempfile::tempdir()?;
    let report = build_sample(tmp.path(), args.keep.clone())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "== 1. Build the embedded sample wiki ==")?;
    super::build::summary(&mut out, &report.dir, &report.manifest)?;
    let index = Index::open(&report.dir)?;
    resolve_titles(&mut out, &index)?;
    structure(&mut out, &index)?;
    evidence_text(&mut out, &index)?;
    source_frontier(&mut out, &index)?;
    stage_and_audit(&mut out, &index, tmp.path())?;
    if args.keep.is_some() {
        writeln!(out, "\nindex kept in {}", report.dir.display())?;
    }
    Ok(Outcome::Success)
}

/// Section 1's work: the sample wiki written to `tmp` and built (into `keep` when given).
fn build_sample(
    tmp: &std::path::Path,
    keep: Option<std::path::PathBuf>,
) -> anyhow::Result<wikiwit::indexer::BuildReport> {
    let dump = tmp.join("rivers-wiki.xml");
    std::fs::write(&dump, SAMPLE)?;
    let dir = keep.unwrap_or_else(|| tmp.join("index"));
    let opts = BuildOptions {
        dump,
        multistream_index: None,
        index_dir: Some(dir),
        threads: 0,
        interwiki: InterwikiProfile::Auto,
        text: true,
        pages_only: false,
        memory_budget: None,
        tmp_dir: None,
        expand: true,
        build_date: None,
        strict: false,
        messages: None,
        sources: None,
    };
    Ok(build(&opts, &NoProgress, &AtomicBool::new(false))?)
}

/// Section 2: titles written the ways people write them, resolved as MediaWiki would.
fn resolve_titles(out: &mut dyn Write, index: &Index) -> anyhow::Result<()> {
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
        let r = resolve(index, q)?;
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
    Ok(())
}

/// Section 3: tables, a row, an infobox field, section anchors and siblings.
fn structure(out: &mut dyn Write, index: &Index) -> anyhow::Result<()> {
    writeln!(out, "\n== 3. Structure: where every fact sits ==")?;
    let list = wikiwit::query::summary(index, "List of transboundary rivers")?;
    for t in &list.tables {
        let labels: Vec<String> = t
            .labels
            .iter()
            .map(|l| l.clone().unwrap_or_default())
            .collect();
        writeln!(
            out,
            "  List of transboundary rivers, table {}: {} rows [{}] in #{}",
            t.table,
            t.rows,
            labels.join(" | "),
            t.section.clone().unwrap_or_else(|| "lead".into())
        )?;
    }
    let table = wikiwit::query::table(index, "List of transboundary rivers", 1)?;
    let ural = table
        .rows
        .iter()
        .position(|r| r.first().is_some_and(|c| c == "Ural"))
        .unwrap_or(0);
    let row = wikiwit::query::table_row(index, "List of transboundary rivers", 1, ural)?;
    let cells: Vec<String> = row
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{}={}",
                row.labels.get(i).cloned().flatten().unwrap_or_default(),
                c.text
            )
        })
        .collect();
    writeln!(out, "  table 1, row {ural}: {}", cells.join("; "))?;
    let (_, boxes, _) = wikiwit::query::infobox(index, "Ural River")?;
    if let Some(f) = boxes
        .iter()
        .flat_map(|b| b.fields.iter())
        .find(|f| f.name == "length")
    {
        writeln!(
            out,
            "  infobox of Ural (river), field length: {:?} (written {:?})",
            f.text, f.raw
        )?;
    }
    sections_and_siblings(out, index)
}

/// Section 3, continued: MediaWiki's anchors for repeated headings, and a page's siblings.
fn sections_and_siblings(out: &mut dyn Write, index: &Index) -> anyhow::Result<()> {
    let danube = wikiwit::query::summary(index, "Danube")?;
    let anchors: Vec<&str> = danube
        .sections
        .iter()
        .map(|s| s.anchor.as_str())
        .filter(|a| a.starts_with("Navigation"))
        .collect();
    writeln!(
        out,
        "  Danube has two \"Navigation\" sections; MediaWiki's anchors: {}",
        anchors.join(", ")
    )?;
    let sib = wikiwit::siblings::siblings(index, "Ural (river)", 3)?;
    writeln!(
        out,
        "  list pages linking to Ural (river): {}",
        sib.list_pages.join(", ")
    )?;
    for s in &sib.siblings {
        let why: Vec<String> = s
            .together
            .iter()
            .map(|t| format!("{} ({})", t.source, t.place))
            .collect();
        writeln!(out, "  sibling {:<18} {}", s.title, why.join("; "))?;
    }
    Ok(())
}

/// Section 4: a text search, then the exact sentence and where it sits in the wikitext.
fn evidence_text(out: &mut dyn Write, index: &Index) -> anyhow::Result<()> {
    writeln!(
        out,
        "\n== 4. Evidence text: search, then the exact sentence =="
    )?;
    let q = "which river forms the border between Europe and Asia";
    writeln!(out, "  search {q:?}:")?;
    let hits = wikiwit::query::text::search(index, q, Default::default(), 3)?;
    for h in &hits {
        let place = h
            .anchor
            .as_ref()
            .map(|a| format!("#{a}"))
            .unwrap_or_default();
        writeln!(out, "  {:>7.3}  {}{place}", h.score, h.page)?;
        if let Some(b) = &h.best {
            writeln!(
                out,
                "           sentence {} (wikitext bytes {}..{}): {}",
                b.sentence, b.start, b.end, b.text
            )?;
        }
    }
    if let Some(top) = hits.first() {
        let view = wikiwit::query::text::text(index, &top.page, top.anchor.as_deref())?;
        let n: usize = view.sections.iter().map(|s| s.sentences.len()).sum();
        writeln!(
            out,
            "  locator {}#{} has {n} sentence(s); each resolves to a byte range of the wikitext",
            top.page,
            top.anchor.clone().unwrap_or_default()
        )?;
    }
    Ok(())
}

/// Section 5: the pages a question needs from a seed table, and why.
fn source_frontier(out: &mut dyn Write, index: &Index) -> anyhow::Result<()> {
    writeln!(
        out,
        "\n== 5. Source frontier: which pages a question needs, and why =="
    )?;
    let question = "Which river that flows into the Caspian Sea crosses Russia and Kazakhstan?";
    writeln!(
        out,
        "  seed List of transboundary rivers, table 1; question: {question}"
    )?;
    let f = wikiwit::frontier::plan(
        index,
        &wikiwit::frontier::PlanOptions {
            seed: "List of transboundary rivers".into(),
            query: question.into(),
            table: Some(1),
            ops: wikiwit::frontier::Op::DEFAULT.to_vec(),
            limit: 3,
            row_ratio: wikiwit::frontier::planner::ROW_RATIO,
            page_weight: wikiwit::frontier::planner::PAGE_WEIGHT,
            rules: Default::default(),
        },
    )?;
    let mut text = Vec::new();
    super::frontier::print_text(&mut text, &f, 2)?;
    for line in String::from_utf8_lossy(&text).lines() {
        writeln!(out, "  {line}")?;
    }
    Ok(())
}

/// Section 6: a curator stages the rivers table (17 rows, each citing a table row of
/// `List of transboundary rivers`); the auditor appends its findings to a log.
fn stage_and_audit(
    out: &mut dyn Write,
    index: &Index,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    writeln!(out, "\n== 6. Stage a table, audit it ==")?;
    let contract = dir.join("transboundary-contract.json");
    let rows = dir.join("transboundary-rows.jsonl");
    let log = dir.join("findings.jsonl");
    std::fs::write(&contract, STAGED_CONTRACT)?;
    std::fs::write(&rows, STAGED_ROWS)?;
    let loc = "List of transboundary rivers#Rivers|table:1|row:16|col:Length (km)";
    if let wikiwit::locator::Resolution::Found(r) =
        wikiwit::locator::resolve(index, &wikiwit::locator::parse(loc)?)?
    {
        writeln!(out, "  locate {loc:?}\n    → {}", r.content.excerpt())?;
    }
    let s = wikiwit::audit::audit(index, &contract, &rows, &log, &Default::default())?;
    writeln!(
        out,
        "  audit: {} rows, {} findings ({} blocking); states {}",
        s.rows,
        s.findings,
        s.blocking,
        s.states.join(" → ")
    )?;
    for line in std::fs::read_to_string(&log)?.lines() {
        let v: serde_json::Value = serde_json::from_str(line)?;
        if v.get("check").is_none() {
            continue;
        }
        let row = match v["row"].as_u64() {
            Some(r) => format!("row {r} ({})", v["key"].as_str().unwrap_or("")),
            None => "table".to_string(),
        };
        writeln!(
            out,
            "  [{} {} {}] {row}: {}",
            v["check"],
            v["name"].as_str().unwrap_or(""),
            v["severity"].as_str().unwrap_or(""),
            v["message"].as_str().unwrap_or("")
        )?;
    }
    Ok(())
}
