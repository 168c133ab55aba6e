//! Offline verification of a report's citations against a Wikipedia index.
//!
//! For each citation [`check_report`] answers, in order: does the source exist
//! ([`target`]: page / redirect / missing, cited revision against the dump's; other
//! sources are classified and marked not checkable offline, never guessed), does its
//! locator resolve and how precisely (page / section / sentence span / quote), does the
//! cited text support the claim ([`judge`]: evidence sentences with their locators, the
//! support label, overstatement), and how good the attribution is ([`quality`]). The
//! [`report`] module aggregates the metrics and renders the worst citations first.
//!
//! Pages are loaded once per check, however many citations point at them; citations are
//! checked in report order, so the output is the same bytes on every run.

pub mod judge;
pub mod quality;
pub mod report;
pub mod target;

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::cite::LineIndex;
use crate::cite::parse::{Citation, ParsedReport, Source};
use crate::cite::support::SupportLabel;
use crate::index::{Index, IndexError};
use judge::{PageData, SupportCheck};
use quality::{AuthorityTiers, Quality};
use target::{Existence, SourceKind, Target, TargetResolver};

pub(crate) use report::Summary;
pub use report::{render_markdown, render_terminal};

/// The verdict on one citation, from worst to best.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The cited text gives a different value for a quantity of the claim.
    Contradicted,
    /// The cited page does not exist in the index (or its redirect leads nowhere, or the
    /// title is invalid).
    SourceMissing,
    /// The cited text does not state the claim (or a figure of it).
    Unsupported,
    /// The marker leads to no source in the report.
    Unresolved,
    PartiallySupported,
    /// Not a Wikipedia page of this index: nothing can be said offline.
    NotCheckable,
    Supported,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Contradicted => "contradicted",
            Verdict::SourceMissing => "source missing",
            Verdict::Unsupported => "unsupported",
            Verdict::Unresolved => "unresolved marker",
            Verdict::PartiallySupported => "partially supported",
            Verdict::NotCheckable => "not checkable offline",
            Verdict::Supported => "supported",
        }
    }

    /// Whether the verdict is a finding a reader must act on.
    pub fn is_finding(self) -> bool {
        matches!(
            self,
            Verdict::Contradicted
                | Verdict::SourceMissing
                | Verdict::Unsupported
                | Verdict::Unresolved
        )
    }
}

/// Everything checked about one citation.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CitationCheck {
    /// The citation's id in the parsed report.
    pub id: usize,
    pub marker: String,
    /// Byte span of the marker in the report, and 1-based line.
    pub span: std::ops::Range<usize>,
    pub line: usize,
    pub paragraph: usize,
    pub claim: String,
    pub source: Source,
    pub kind: SourceKind,
    pub verdict: Verdict,
    pub existence: Existence,
    /// The cited page as found in the index (after redirects).
    pub page: Option<target::CitedPage>,
    pub revision: Option<target::RevisionCheck>,
    pub locator: target::LocatorCheck,
    pub support: Option<SupportCheck>,
    pub quality: Quality,
}

/// Settings of a check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub tiers: AuthorityTiers,
    /// Reference time for recency, seconds since the epoch; default: the newest revision
    /// in the index (the dump's date).
    pub as_of: Option<i64>,
}

/// The result of checking a report.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CheckReport {
    /// The index's wiki (`enwiki`).
    pub wiki: String,
    /// Reference time used for recency (seconds since the epoch).
    pub as_of: i64,
    pub summary: Summary,
    /// In report order.
    pub citations: Vec<CitationCheck>,
    /// Citation ids, worst first: by verdict, then quality, then report order.
    pub worst_first: Vec<usize>,
}

/// Checks every citation of `parsed` (parsed from `markdown`) against `index`.
pub fn check_report(
    index: &Index,
    markdown: &str,
    parsed: &ParsedReport,
    options: &CheckOptions,
) -> Result<CheckReport, IndexError> {
    let resolver = TargetResolver::new(index);
    let wikipedia = parsed
        .citations
        .iter()
        .any(|c| SourceKind::of(&c.source) == SourceKind::Wikipedia);
    let searcher = if wikipedia {
        Some(index.searcher()?)
    } else {
        None
    };
    let as_of = match options.as_of {
        Some(t) => t,
        None if wikipedia => newest_revision(index)?,
        None => 0,
    };
    let diversity = paragraph_diversity(&parsed.citations);
    let lines = LineIndex::new(markdown);
    let mut pages: HashMap<u32, PageData> = HashMap::new();
    let mut out = Vec::with_capacity(parsed.citations.len());
    for c in &parsed.citations {
        let (mut target, request) = resolver.resolve(&c.source)?;
        let support = match (&target.page, request, searcher) {
            (Some(p), Some(request), Some(searcher)) => {
                let data = load(index, &mut pages, p.number)?;
                target.locator = target::locate(&request, &data.structure, &data.text);
                Some(judge::judge(searcher, data, &target.locator, &c.claim)?)
            }
            _ => None,
        };
        out.push(assemble(
            c,
            target,
            support,
            as_of,
            &options.tiers,
            &diversity,
            &lines,
        ));
    }
    let mut worst_first: Vec<usize> = (0..out.len()).collect();
    worst_first.sort_by(|&a, &b| {
        let (x, y) = (&out[a], &out[b]);
        x.verdict
            .cmp(&y.verdict)
            .then(x.quality.score.total_cmp(&y.quality.score))
            .then(a.cmp(&b))
    });
    let worst_first = worst_first.into_iter().map(|i| out[i].id).collect();
    Ok(CheckReport {
        wiki: index.manifest().site.dbname.clone(),
        as_of,
        summary: Summary::new(parsed, &out, &diversity),
        citations: out,
        worst_first,
    })
}

fn load<'a>(
    index: &Index,
    pages: &'a mut HashMap<u32, PageData>,
    n: u32,
) -> Result<&'a PageData, IndexError> {
    match pages.entry(n) {
        std::collections::hash_map::Entry::Occupied(e) => Ok(e.into_mut()),
        std::collections::hash_map::Entry::Vacant(e) => {
            let structure = index.structure(n)?;
            let text = index.page_text(n)?.ok_or_else(|| IndexError::NoText {
                path: index.dir().to_path_buf(),
            })?;
            Ok(e.insert(PageData::new(structure, text)))
        }
    }
}

/// The newest revision time in the index: the dump's date, as far as the dump tells.
fn newest_revision(index: &Index) -> Result<i64, IndexError> {
    index
        .pages()
        .try_fold(0, |newest, p| Ok(p?.timestamp.max(newest)))
}

/// Independent sources cited per paragraph (by [`quality::independence_key`]).
pub(crate) fn paragraph_diversity(citations: &[Citation]) -> HashMap<usize, usize> {
    let mut keys: HashMap<usize, BTreeSet<String>> = HashMap::new();
    for c in citations {
        let entry = keys.entry(c.paragraph).or_default();
        if let Some(k) = quality::independence_key(&c.source) {
            entry.insert(k);
        }
    }
    keys.into_iter().map(|(p, k)| (p, k.len())).collect()
}

fn verdict(existence: &Existence, support: Option<&SupportCheck>) -> Verdict {
    match existence {
        Existence::Unresolved => Verdict::Unresolved,
        Existence::NotCheckableOffline { .. } | Existence::OtherWiki { .. } => {
            Verdict::NotCheckable
        }
        Existence::Missing { .. }
        | Existence::BrokenRedirect { .. }
        | Existence::InvalidTitle { .. } => Verdict::SourceMissing,
        Existence::Page | Existence::Redirect { .. } => match support.map(|s| s.label) {
            // The source says it with a hedge, the claim without: only part of it holds.
            Some(SupportLabel::Supported) if support.is_some_and(|s| s.overstatement) => {
                Verdict::PartiallySupported
            }
            Some(SupportLabel::Supported) => Verdict::Supported,
            Some(SupportLabel::PartiallySupported) => Verdict::PartiallySupported,
            Some(SupportLabel::Contradicted) => Verdict::Contradicted,
            Some(SupportLabel::Unsupported) | None => Verdict::Unsupported,
        },
    }
}

fn assemble(
    c: &Citation,
    target: Target,
    support: Option<SupportCheck>,
    as_of: i64,
    tiers: &AuthorityTiers,
    diversity: &HashMap<usize, usize>,
    lines: &LineIndex,
) -> CitationCheck {
    let verdict = verdict(&target.existence, support.as_ref());
    let relevance = match verdict {
        Verdict::NotCheckable => None,
        _ => Some(support.as_ref().map_or(0.0, |s| s.score)),
    };
    let locator = match &target.existence {
        Existence::NotCheckableOffline { .. } | Existence::OtherWiki { .. } => None,
        _ => {
            let resolved = target.locator.resolved
                && !support.as_ref().is_some_and(|s| s.outside_cited_section);
            Some(quality::locator_score(target.locator.precision, resolved))
        }
    };
    let recency = target
        .page
        .as_ref()
        .map(|p| quality::recency_score(as_of - p.timestamp));
    let quality = Quality::combine(
        relevance,
        locator,
        recency,
        tiers.score(&c.source),
        quality::diversity_score(diversity.get(&c.paragraph).copied().unwrap_or(0)),
    );
    CitationCheck {
        id: c.id,
        marker: c.marker.clone(),
        span: c.span.clone(),
        line: lines.line(c.span.start),
        paragraph: c.paragraph,
        claim: c.claim.clone(),
        source: c.source.clone(),
        kind: SourceKind::of(&c.source),
        verdict,
        existence: target.existence,
        page: target.page,
        revision: target.revision,
        locator: target.locator,
        support,
        quality,
    }
}
