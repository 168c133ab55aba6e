//! `wikiwit cite parse|check|eval-support`: citations of a markdown report, their offline
//! verification against an index, and the support scorer's evaluation on WiCE.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use wikiwit::cite::check::{self, CheckOptions, quality::AuthorityTiers};
use wikiwit::cite::parse::{ClaimScope, parse_report_with};

use super::{IndexArg, Outcome};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Extract every citation with its span, claim and structured source.
    Parse {
        report: PathBuf,
        #[command(flatten)]
        out: super::JsonArg,
        /// What a marker vouches for: its sentence, or every sentence since the previous
        /// marker of its paragraph (agents often cite once, at a paragraph's end).
        #[arg(long, value_enum, default_value = "sentence")]
        claim: ClaimArg,
    },
    /// Check every citation offline: existence, locator, support, quality.
    /// Exit code 1 when a citation is contradicted, unsupported, missing or unresolved.
    Check {
        report: PathBuf,
        #[command(flatten)]
        index: IndexArg,
        #[command(flatten)]
        out: super::JsonArg,
        /// A markdown report instead of the terminal summary.
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// Authority tiers (JSON: {"kinds": {"web": 0.3}, "domains": {"nature.com": 0.9}}).
        #[arg(long, value_name = "FILE")]
        tiers: Option<PathBuf>,
        /// Reference date for recency (YYYY-MM-DD; default: the newest revision in the index).
        #[arg(long, value_name = "DATE")]
        as_of: Option<String>,
        /// The claim a marker vouches for, scored for support (see `cite parse --claim`).
        #[arg(long, value_enum, default_value = "sentence")]
        claim: ClaimArg,
        #[command(flatten)]
        html: super::HtmlArg,
    },
    /// Score WiCE claims against their cited sentences; F1, precision, recall, accuracy, ROC-AUC.
    EvalSupport {
        claims: PathBuf,
        /// Where word rarity is counted: every claim's evidence, or each claim's own.
        #[arg(long, value_enum, default_value = "corpus")]
        idf: Idf,
        #[command(flatten)]
        out: super::JsonArg,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Idf {
    Corpus,
    Claim,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ClaimArg {
    Sentence,
    Paragraph,
}

impl From<ClaimArg> for ClaimScope {
    fn from(c: ClaimArg) -> ClaimScope {
        match c {
            ClaimArg::Sentence => ClaimScope::Sentence,
            ClaimArg::Paragraph => ClaimScope::Paragraph,
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<Outcome> {
    let mut out = std::io::stdout().lock();
    match args.command {
        Sub::Parse {
            report,
            out: j,
            claim,
        } => parse(&mut out, &report, j.json, claim.into()),
        Sub::Check {
            report,
            index,
            out: j,
            markdown,
            tiers,
            as_of,
            claim,
            html,
        } => {
            let options = CheckOptions {
                tiers: match tiers {
                    Some(p) => AuthorityTiers::load(&p)?,
                    None => AuthorityTiers::default(),
                },
                as_of: as_of.as_deref().map(parse_date).transpose()?,
            };
            let text = wikiwit::cite::read_report(&report)?;
            let parsed = parse_report_with(&text, claim.into());
            let index = index.open()?;
            let checked = check::check_report(&index, &text, &parsed, &options)?;
            let name = report.display().to_string();
            if let Some(file) = &html.file {
                let page = wikiwit::html::cite::report(&checked, &name, &html.links());
                super::write_html(file, &page)?;
            }
            if j.json {
                super::print_json(&mut out, &checked)?;
            } else if markdown {
                out.write_all(check::render_markdown(&checked, &name).as_bytes())?;
            } else {
                out.write_all(check::render_terminal(&checked, &name).as_bytes())?;
            }
            let findings = checked.citations.iter().any(|c| c.verdict.is_finding());
            Ok(if findings {
                Outcome::NotFound
            } else {
                Outcome::Success
            })
        }
        Sub::EvalSupport {
            claims,
            idf,
            out: j,
        } => {
            let data = wikiwit::cite::eval::read_wice(&claims)?;
            let (idf, idf_name) = match idf {
                Idf::Corpus => (wikiwit::cite::eval::IdfScope::Corpus, "corpus"),
                Idf::Claim => (wikiwit::cite::eval::IdfScope::Claim, "claim"),
            };
            let r = wikiwit::cite::eval::evaluate(&data, idf);
            if j.json {
                super::print_json(&mut out, &r)?;
            } else {
                writeln!(
                    out,
                    "{} claims ({} supported, {} partially, {} not supported); supported = positive, threshold {}, --idf {}",
                    r.claims,
                    r.supported,
                    r.partially_supported,
                    r.not_supported,
                    r.threshold,
                    idf_name
                )?;
                writeln!(
                    out,
                    "F1 {:.3}  precision {:.3}  recall {:.3}  accuracy {:.3}  ROC-AUC {:.3}",
                    r.f1, r.precision, r.recall, r.accuracy, r.roc_auc
                )?;
                writeln!(
                    out,
                    "TP {}  FP {}  FN {}  TN {}; mean score supported {:.3}, partially {:.3}, not {:.3}",
                    r.true_positives,
                    r.false_positives,
                    r.false_negatives,
                    r.true_negatives,
                    r.mean_score[0],
                    r.mean_score[1],
                    r.mean_score[2]
                )?;
            }
            Ok(Outcome::Success)
        }
    }
}

fn parse(
    out: &mut dyn Write,
    report: &std::path::Path,
    json: bool,
    scope: ClaimScope,
) -> anyhow::Result<Outcome> {
    let text = wikiwit::cite::read_report(report)?;
    let parsed = parse_report_with(&text, scope);
    if json {
        super::print_json(out, &parsed)?;
        return Ok(Outcome::Success);
    }
    let lines = wikiwit::cite::LineIndex::new(&text);
    let line = |offset: usize| lines.line(offset);
    for w in &parsed.warnings {
        eprintln!("warning: {}: {w}", report.display());
    }
    writeln!(out, "id\tline\tmarker\tkind\tsource\tclaim")?;
    for c in &parsed.citations {
        writeln!(
            out,
            "{}\tline {}\t{}\t{}\t{}\t{}",
            c.id,
            line(c.span.start),
            c.marker,
            check::target::SourceKind::of(&c.source).as_str(),
            check::report::describe(&c.source),
            c.claim
        )?;
    }
    for m in &parsed.unresolved_markers {
        writeln!(
            out,
            "unresolved\tline {}\t{}\t{:?}",
            line(m.span.start),
            m.text,
            m.reason
        )?;
    }
    for r in parsed.references.iter().filter(|r| r.cited_by.is_empty()) {
        writeln!(out, "never cited\tline {}\t{}", line(r.span.start), r.text)?;
    }
    Ok(Outcome::Success)
}

/// `YYYY-MM-DD` → seconds since the epoch (midnight UTC).
fn parse_date(s: &str) -> anyhow::Result<i64> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let date = time::Date::parse(s, format)
        .with_context(|| format!("--as-of {s:?}: expected a date as YYYY-MM-DD"))?;
    Ok(date.midnight().assume_utc().unix_timestamp())
}
