//! `wikiwit build DUMP`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use wikiwit::index::Manifest;
use wikiwit::indexer::{BuildOptions, build, build_shard, build_sources};
use wikiwit::title::InterwikiProfile;

use super::Outcome;
use super::progress::Bar;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The dump: .xml, .xml.bz2 or multistream .xml.bz2 (format detected from the bytes).
    dump: PathBuf,
    /// The multistream index (`…-multistream-index.txt.bz2`); checked against the dump.
    #[arg(long, value_name = "IDX", visible_alias = "index-file")]
    multistream_index: Option<PathBuf>,
    /// Output directory (default: index/<dbname>). Replaced atomically when complete.
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    /// Interwiki prefix table: auto (from the dump's host), mediawiki (a fresh
    /// MediaWiki's table) or wikimedia (Wikipedia's: languages and sister projects).
    #[arg(long, default_value = "auto",
          value_parser = super::one_of(&InterwikiProfile::ALL, InterwikiProfile::as_str))]
    interwiki: InterwikiProfile,
    /// Skip the plain-text store and the full-text index (faster; no `text`/`search`).
    #[arg(long)]
    no_text: bool,
    /// Only pages and titles: no wikitext parsing, so no structure, links or text. The
    /// fastest build; the index answers `info`, `resolve`, `export pages|redirects` and `page --wikitext`.
    #[arg(long)]
    pages_only: bool,
    /// Analyse pages as written, without expanding templates (no first pass, no
    /// `sources.rec`; links, categories and templates that templates make are missing).
    #[arg(long)]
    no_expand: bool,
    /// The date magic words and `#time` see, RFC 3339 or YYYY-MM-DD (UTC); default: the
    /// newest revision among the dump's templates, modules and messages.
    #[arg(long, value_name = "DATE", value_parser = wikiwit::indexer::parse_build_date)]
    build_date: Option<i64>,
    /// The content language's messages and date formats, recorded from a MediaWiki
    /// (`tools/mediawiki/record-messages`, see docs/expansion.md); default: English.
    #[arg(long, value_name = "FILE")]
    messages: Option<PathBuf>,
    /// Build shard K of N (e.g. 2/7) for `wikiwit merge`: the pages of the K-th of N
    /// equal byte ranges of a multistream dump's streams (templates, modules and other
    /// pages expansion reads come from the whole dump). The directory holds a shard, not
    /// an index.
    #[arg(long, value_name = "K/N")]
    shard: Option<wikiwit::indexer::Shard>,
    /// Only the first pass (the templates, modules and messages expansion reads) of a
    /// multistream dump with its index, into --index DIR: what each `--shard K/N` build
    /// then takes with `--sources DIR` instead of decoding them itself.
    #[arg(long, conflicts_with_all = ["shard", "no_expand", "pages_only", "cost_report", "sources", "messages", "build_date"])]
    sources_only: bool,
    /// Take the first pass from DIR, written by `--sources-only` from the same dump,
    /// instead of running it (checked: another dump's is refused).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["no_expand", "pages_only"])]
    sources: Option<PathBuf>,
    /// Also write, to FILE (JSON, outside the index), what each template and module cost
    /// the expansion with the time it took (monotonic, per thread, inclusive; differs in
    /// every build). The counts alone are in the index (`costs.json`, `wikiwit info`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["no_expand", "pages_only"])]
    cost_report: Option<PathBuf>,
    /// Refuse a dump in which two pages share a title (default: keep the newest
    /// revision and record the other page in warnings.jsonl).
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    writer: super::writer_args::WriterArgs,
    #[command(flatten)]
    out: super::JsonArg,
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let cancel = super::cancel_on_ctrl_c();
    let opts = BuildOptions {
        dump: args.dump.clone(),
        multistream_index: args.multistream_index.clone(),
        index_dir: args.index.clone(),
        threads: args.writer.threads,
        interwiki: args.interwiki,
        text: !args.no_text,
        pages_only: args.pages_only,
        memory_budget: args.writer.memory_budget,
        tmp_dir: args.writer.tmp_dir.clone(),
        expand: !args.no_expand,
        build_date: args.build_date,
        strict: args.strict,
        messages: args.messages.clone(),
        sources: args.sources.clone(),
    };
    let bar = Bar::new(args.writer.quiet);
    if args.sources_only {
        let report = build_sources(&opts, &bar, &cancel).with_context(|| {
            format!(
                "reading the templates and modules of {}",
                args.dump.display()
            )
        })?;
        let m = &report.manifest;
        let streams = m
            .sources
            .streams_read
            .map_or("all".into(), |n| n.to_string());
        print_report(
            args.out.json,
            m,
            format!(
                "wrote the first pass of {} to {}: {} templates, modules and messages from {streams} streams, {:.2} s on {} thread(s); give it to every shard with `--sources {}`",
                m.source.file_name,
                report.dir.display(),
                m.sources.pages,
                m.seconds,
                m.threads,
                report.dir.display()
            ),
        )?;
        return Ok(Outcome::Success);
    }
    if let Some(part) = args.shard {
        let report = build_shard(&opts, part, &bar, &cancel)
            .with_context(|| format!("building shard {part} from {}", args.dump.display()))?;
        write_cost_report(args.cost_report.as_deref(), report.costs.as_ref())?;
        let m = &report.manifest;
        print_report(
            args.out.json,
            m,
            format!(
                "built shard {} in {} from {}: {} pages of {} streams (bytes {}..{} of the dump), {:.2} s on {} thread(s); join the {} shards with `wikiwit merge`",
                m.shard,
                report.dir.display(),
                m.source.file_name,
                m.pages,
                m.streams,
                m.bytes[0],
                m.bytes[1],
                m.seconds,
                m.threads,
                m.shard.n
            ),
        )?;
        return Ok(Outcome::Success);
    }
    let report = build(&opts, &bar, &cancel)
        .with_context(|| format!("building an index from {}", args.dump.display()))?;
    write_cost_report(args.cost_report.as_deref(), report.costs.as_ref())?;
    let mut out = std::io::stdout().lock();
    if args.out.json {
        super::print_json(&mut out, &report.manifest)?;
    } else {
        summary(&mut out, &report.dir, &report.manifest)?;
    }
    Ok(Outcome::Success)
}

/// The manifest as JSON (`--json`), else the one-line summary `line`.
fn print_report(json: bool, manifest: &impl serde::Serialize, line: String) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        super::print_json(&mut out, manifest)?;
    } else {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// `--cost-report FILE`: the build's costs with their times, when asked for.
fn write_cost_report(
    path: Option<&std::path::Path>,
    costs: Option<&wikiwit::indexer::CostReport>,
) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    let Some(costs) = costs else {
        anyhow::bail!("--cost-report: the build expanded no pages, so it has no costs to report");
    };
    costs
        .write(path)
        .with_context(|| format!("writing the cost report {}", path.display()))
}

/// A size with an optional binary suffix: `4096`, `64K`, `512M`, `2G` (also `KiB`…).
pub(super) fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{text:?} is not a size (examples: 4096, 64K, 512M, 2G)"))?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "unknown size unit {other:?} in {text:?} (use K, M, G or T)"
            ));
        }
    };
    n.checked_mul(1u64 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("{text:?} is not a usable size"))
}

/// The human-readable build summary.
pub fn summary(out: &mut dyn Write, dir: &std::path::Path, m: &Manifest) -> anyhow::Result<()> {
    let c = &m.counts;
    let fmt = match &m.source.format {
        wikiwit::dump::DumpFormat::Xml => "plain XML".to_string(),
        wikiwit::dump::DumpFormat::Bz2 { streams } => {
            format!("bz2, {streams} stream(s), sequential")
        }
        wikiwit::dump::DumpFormat::Bz2Multistream {
            streams,
            with_index,
        } => format!(
            "bz2 multistream, {streams} streams{}",
            if *with_index {
                ", checked against its index"
            } else {
                ""
            }
        ),
    };
    writeln!(
        out,
        "built {} from {} ({fmt})",
        dir.display(),
        m.source.file_name
    )?;
    writeln!(
        out,
        "  wiki        {} ({}), interwiki profile {}",
        m.site.dbname, m.site.base, m.build.interwiki
    )?;
    let by_ns: Vec<String> = c
        .by_namespace
        .iter()
        .map(|(ns, n)| format!("{ns}:{n}"))
        .collect();
    writeln!(
        out,
        "  pages       {} (by namespace {})",
        c.pages,
        by_ns.join(" ")
    )?;
    writeln!(
        out,
        "  redirects   {} (broken {}, loops {}, double {}, interwiki {})",
        c.redirects,
        c.broken_redirects,
        c.redirect_loops,
        c.double_redirects,
        c.interwiki_redirects
    )?;
    writeln!(
        out,
        "  bytes       {} dump, {} XML, {} wikitext",
        m.source.size, c.xml_bytes, c.text_bytes
    )?;
    writeln!(out, "  warnings    {} (see warnings.jsonl)", c.warnings)?;
    if c.duplicate_titles > 0 {
        writeln!(
            out,
            "  duplicates  {} page(s) share a title with a newer revision and were left out of the title map (warnings.jsonl, kind duplicate-title)",
            c.duplicate_titles
        )?;
    }
    if m.build.pages_only {
        writeln!(
            out,
            "  stores      pages and titles only (--pages-only): no structure, links or text"
        )?;
    }
    let phases: Vec<String> = m
        .build
        .phases
        .iter()
        .map(|(p, s)| format!("{p} {s:.2}"))
        .collect();
    writeln!(
        out,
        "  time        {:.2} s on {} thread(s) ({})",
        m.build.seconds,
        m.build.threads,
        phases.join(", ")
    )?;
    Ok(())
}
