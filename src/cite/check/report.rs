//! The metrics a reader of a checked report needs, and two renderings of the check:
//! a terminal summary and a markdown report, both listing the worst citations first.
//!
//! Rates are `None` (JSON `null`) when nothing could be measured: a report without
//! Wikipedia citations has no existence rate, not a rate of 0.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use serde::Serialize;

use super::target::{Precision, SourceKind};
use super::{CheckReport, CitationCheck, Verdict};
use crate::cite::parse::{ParsedReport, Source};

/// Aggregate metrics of one check.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// Citations extracted (one per marker and source).
    pub citations: usize,
    pub by_kind: BTreeMap<SourceKind, usize>,
    pub by_verdict: BTreeMap<Verdict, usize>,
    pub unresolved_markers: usize,
    pub references: usize,
    /// Reference entries no marker cites.
    pub uncited_references: usize,
    /// Wikipedia citations (URLs and wikilinks) whose wiki is this index's.
    pub wikipedia_citations: usize,
    /// Of those, the cited page exists (directly or through a redirect).
    pub existing: usize,
    pub existence_rate: Option<f64>,
    /// Existing pages cited with an `oldid` the dump does not hold.
    pub other_revision: usize,
    /// Existing-page citations whose every locator part (anchor, quote) resolves.
    pub locator_resolved: usize,
    pub locator_resolve_rate: Option<f64>,
    /// Existing-page citations carrying a section anchor or a quote.
    pub precise_locators: usize,
    /// Citations whose support was judged (the cited page exists).
    pub support_checked: usize,
    pub support_rate: Option<f64>,
    pub contradiction_rate: Option<f64>,
    pub overstatements: usize,
    /// Mean support score over judged citations.
    pub mean_evidence_score: Option<f64>,
    /// Mean combined quality score over all citations.
    pub quality_score: Option<f64>,
    /// Paragraphs holding at least one citation.
    pub cited_paragraphs: usize,
    /// Mean number of independent sources per cited paragraph.
    pub diversity: Option<f64>,
    /// Cited paragraphs resting on a single independent source.
    pub single_source_paragraphs: usize,
}

fn rate(n: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| n as f64 / of as f64)
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    rate(0, n).map(|_| sum / n as f64)
}

impl Summary {
    pub fn new(
        parsed: &ParsedReport,
        checks: &[CitationCheck],
        diversity: &HashMap<usize, usize>,
    ) -> Summary {
        let mut by_kind = BTreeMap::new();
        let mut by_verdict = BTreeMap::new();
        for c in checks {
            *by_kind.entry(c.kind).or_insert(0) += 1;
            *by_verdict.entry(c.verdict).or_insert(0) += 1;
        }
        let wikipedia: Vec<&CitationCheck> = checks
            .iter()
            .filter(|c| {
                c.kind == SourceKind::Wikipedia
                    && !matches!(c.existence, super::Existence::OtherWiki { .. })
            })
            .collect();
        let existing: Vec<&&CitationCheck> =
            wikipedia.iter().filter(|c| c.existence.exists()).collect();
        let locator_resolved = existing.iter().filter(|c| c.locator.resolved).count();
        let judged: Vec<&CitationCheck> = checks.iter().filter(|c| c.support.is_some()).collect();
        let count = |v: Verdict| judged.iter().filter(|c| c.verdict == v).count();
        let single = diversity.values().filter(|&&n| n <= 1).count();
        Summary {
            citations: checks.len(),
            by_kind,
            by_verdict,
            unresolved_markers: parsed.unresolved_markers.len(),
            references: parsed.references.len(),
            uncited_references: parsed
                .references
                .iter()
                .filter(|r| r.cited_by.is_empty())
                .count(),
            wikipedia_citations: wikipedia.len(),
            existing: existing.len(),
            existence_rate: rate(existing.len(), wikipedia.len()),
            other_revision: existing
                .iter()
                .filter(|c| c.revision.as_ref().is_some_and(|r| !r.same))
                .count(),
            locator_resolved,
            locator_resolve_rate: rate(locator_resolved, existing.len()),
            precise_locators: existing
                .iter()
                .filter(|c| c.locator.requested > Precision::Page)
                .count(),
            support_checked: judged.len(),
            support_rate: rate(count(Verdict::Supported), judged.len()),
            contradiction_rate: rate(count(Verdict::Contradicted), judged.len()),
            overstatements: judged
                .iter()
                .filter(|c| c.support.as_ref().is_some_and(|s| s.overstatement))
                .count(),
            mean_evidence_score: mean(
                judged
                    .iter()
                    .filter_map(|c| c.support.as_ref().map(|s| s.score)),
            ),
            quality_score: mean(checks.iter().map(|c| c.quality.score)),
            cited_paragraphs: diversity.len(),
            diversity: mean(diversity.values().map(|&n| n as f64)),
            single_source_paragraphs: single,
        }
    }
}

fn pct(r: Option<f64>) -> String {
    r.map_or("n/a".to_string(), |r| format!("{:.1}%", r * 100.0))
}

fn num(r: Option<f64>) -> String {
    r.map_or("n/a".to_string(), |r| format!("{r:.2}"))
}

/// The metric lines shared by both renderings: (name, value).
pub(crate) fn metric_rows(s: &Summary) -> Vec<(&'static str, String)> {
    let kinds: Vec<String> = s
        .by_kind
        .iter()
        .map(|(k, n)| format!("{} {n}", k.as_str()))
        .collect();
    let verdicts: Vec<String> = s
        .by_verdict
        .iter()
        .map(|(v, n)| format!("{} {n}", v.as_str()))
        .collect();
    vec![
        (
            "citations",
            format!("{} ({})", s.citations, kinds.join(", ")),
        ),
        ("verdicts", verdicts.join(", ")),
        (
            "markers resolving to nothing",
            s.unresolved_markers.to_string(),
        ),
        (
            "references never cited",
            format!("{} of {}", s.uncited_references, s.references),
        ),
        (
            "existence rate",
            format!(
                "{} ({} of {} Wikipedia citations; {} cite another revision)",
                pct(s.existence_rate),
                s.existing,
                s.wikipedia_citations,
                s.other_revision
            ),
        ),
        (
            "locator-resolve rate",
            format!(
                "{} ({} of {}; {} with an anchor or quote)",
                pct(s.locator_resolve_rate),
                s.locator_resolved,
                s.existing,
                s.precise_locators
            ),
        ),
        (
            "support rate",
            format!("{} of {} judged", pct(s.support_rate), s.support_checked),
        ),
        ("contradiction rate", pct(s.contradiction_rate)),
        ("overstatements", s.overstatements.to_string()),
        ("mean evidence score", num(s.mean_evidence_score)),
        ("quality score", num(s.quality_score)),
        (
            "diversity",
            format!(
                "{} independent sources per cited paragraph ({} of {} paragraphs rest on one)",
                num(s.diversity),
                s.single_source_paragraphs,
                s.cited_paragraphs
            ),
        ),
    ]
}

/// A short description of a citation's source.
pub(crate) fn describe_source(c: &CitationCheck) -> String {
    if let Some(p) = &c.page {
        let anchor = c
            .locator
            .anchor
            .as_ref()
            .map(|a| format!("#{a}"))
            .unwrap_or_default();
        return format!("{}{anchor} (rev {})", p.title, p.rev_id);
    }
    describe(&c.source)
}

/// A short description of a source as the report gives it.
pub fn describe(source: &Source) -> String {
    match source {
        Source::Wikipedia { title, url, .. } => title
            .clone()
            .or_else(|| url.clone())
            .unwrap_or_else(|| "Wikipedia".into()),
        Source::WikiLink { target, .. } => format!("[[{target}]]"),
        Source::Doi(d) => format!("doi:{d}"),
        Source::Arxiv(a) => format!("arXiv:{a}"),
        Source::Isbn(i) => format!("ISBN {i}"),
        Source::Url(u) => u.clone(),
        Source::AuthorYear { authors, year } => format!("{authors} ({year})"),
        Source::Bibliographic { text } => text.clone(),
        Source::Unresolved => "nothing".into(),
    }
}

/// Why the verdict is what it is, in a few words.
fn reason(c: &CitationCheck) -> String {
    use super::Existence::*;
    let mut parts = Vec::new();
    match &c.existence {
        Missing { title } => parts.push(format!("no page {title:?} in the index")),
        BrokenRedirect { title } => parts.push(format!("{title:?} redirects nowhere")),
        InvalidTitle { title, reason } => parts.push(format!("{title:?}: {reason}")),
        OtherWiki { wiki } => parts.push(format!("on {wiki}, not in this index")),
        NotCheckableOffline { kind } => {
            parts.push(format!("{} source: not checkable offline", kind.as_str()))
        }
        Unresolved => parts.push("the marker matches no reference".into()),
        Page | Redirect { .. } => {}
    }
    if let Some(r) = c.revision.as_ref().filter(|r| !r.same) {
        parts.push(format!(
            "cites revision {}, the dump holds {}",
            r.cited, r.dump
        ));
    }
    parts.extend(c.locator.problems.iter().cloned());
    if let Some(s) = &c.support {
        if s.outside_cited_section {
            parts.push("supported only outside the cited section".into());
        }
        if s.overstatement {
            parts.push("overstates hedged evidence".into());
        }
        parts.push(s.explanation.clone());
    }
    parts.join("; ")
}

fn ordered(check: &CheckReport) -> impl Iterator<Item = &CitationCheck> {
    check.worst_first.iter().map(|&id| {
        check
            .citations
            .iter()
            .find(|c| c.id == id)
            .expect("worst_first holds citation ids")
    })
}

fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// A plain-text report for a terminal: metrics, then every citation worst first.
pub fn render_terminal(check: &CheckReport, report_name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "citation check of {report_name} against {}",
        check.wiki
    );
    for (name, value) in metric_rows(&check.summary) {
        let _ = writeln!(out, "  {name:<30} {value}");
    }
    let _ = writeln!(out);
    for c in ordered(check) {
        let _ = writeln!(
            out,
            "{:<22} q={:.2} line {:<4} {}  → {}",
            c.verdict.as_str(),
            c.quality.score,
            c.line,
            c.marker,
            describe_source(c)
        );
        let _ = writeln!(out, "    claim: {}", one_line(&c.claim, 160));
        let why = reason(c);
        if !why.is_empty() {
            let _ = writeln!(out, "    why:   {}", one_line(&why, 240));
        }
        if let Some(s) = &c.support {
            for e in s.evidence.iter().take(2) {
                let _ = writeln!(
                    out,
                    "    evidence §{} s{} [{}..{}]: {}",
                    e.section,
                    e.sentence,
                    e.start,
                    e.end,
                    one_line(&e.text, 160)
                );
            }
        }
    }
    out
}

fn cell(s: &str) -> String {
    one_line(s, 200).replace('|', "\\|")
}

/// A markdown report: a metrics table, then a table of citations worst first with the
/// evidence chain of each.
pub fn render_markdown(check: &CheckReport, report_name: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Citation check: {}\n\nIndex: `{}`\n",
        cell(report_name),
        check.wiki
    );
    let _ = writeln!(out, "| metric | value |\n|---|---|");
    for (name, value) in metric_rows(&check.summary) {
        let _ = writeln!(out, "| {name} | {} |", cell(&value));
    }
    let _ = writeln!(out, "\n## Citations, worst first\n");
    let _ = writeln!(
        out,
        "| # | line | verdict | quality | marker | source | claim |\n|---|---|---|---|---|---|---|"
    );
    for c in ordered(check) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.2} | `{}` | {} | {} |",
            c.id,
            c.line,
            c.verdict.as_str(),
            c.quality.score,
            c.marker.replace('`', "'"),
            cell(&describe_source(c)),
            cell(&c.claim)
        );
    }
    let _ = writeln!(out, "\n## Evidence\n");
    for c in ordered(check) {
        let _ = writeln!(
            out,
            "### {} — {} (line {})\n\n> {}\n",
            c.id,
            c.verdict.as_str(),
            c.line,
            one_line(&c.claim, 400)
        );
        let why = reason(c);
        if !why.is_empty() {
            let _ = writeln!(out, "{}\n", one_line(&why, 600));
        }
        if let Some(s) = &c.support {
            for e in &s.evidence {
                let anchor = e
                    .anchor
                    .as_deref()
                    .map(|a| format!("#{a}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "- `{}{anchor}` section {}, sentence {}, bytes {}..{} (covers {:.0}%): {}",
                    c.page.as_ref().map_or("", |p| p.title.as_str()),
                    e.section,
                    e.sentence,
                    e.start,
                    e.end,
                    e.coverage * 100.0,
                    one_line(&e.text, 400)
                );
            }
            if !s.evidence.is_empty() {
                let _ = writeln!(out);
            }
        }
    }
    out
}
