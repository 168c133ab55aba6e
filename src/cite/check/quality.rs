//! Attribution quality: how much a reader can rely on a citation beyond "does it support
//! the claim" — how precisely it points, how fresh and authoritative the source is, and
//! whether the paragraph rests on more than one independent source.
//!
//! # The combined score
//!
//! Each component is in 0..1; the quality score is their weighted mean over the
//! components that apply to the citation (weights renormalized):
//!
//! | component | weight | value |
//! |---|---|---|
//! | relevance | 0.40 | the support score; 0 when the cited page does not exist or the marker resolves to nothing; n/a for sources not checkable offline |
//! | locator | 0.20 | none 0, page 0.4, section 0.7, sentence span 0.9, quote 1.0; −0.2 when a part the citation carries does not resolve (or the claim is found only outside the cited section); n/a for non-Wikipedia sources |
//! | recency | 0.10 | `0.5^(age / 2 years)`, age of the checked revision before the reference time (the newest revision in the index unless given); n/a without a revision |
//! | authority | 0.20 | the source type's tier (configurable, [`AuthorityTiers`]) |
//! | diversity | 0.10 | independent sources cited in the same paragraph: `min(n, 3) / 3` |

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::target::{Precision, SourceKind};
use crate::cite::parse::Source;

pub(crate) const W_RELEVANCE: f64 = 0.40;
pub(crate) const W_LOCATOR: f64 = 0.20;
pub(crate) const W_RECENCY: f64 = 0.10;
pub(crate) const W_AUTHORITY: f64 = 0.20;
pub(crate) const W_DIVERSITY: f64 = 0.10;

/// Years after which a revision's recency score halves.
pub(crate) const RECENCY_HALF_LIFE_YEARS: f64 = 2.0;

/// Independent sources in a paragraph at which diversity is full.
pub(crate) const DIVERSITY_FULL_AT: usize = 3;

/// Authority tiers: a score per source kind, overridden by host suffix for web sources
/// (`"gov": 0.8` matches `www.epa.gov`, `"who.int": 0.9` matches `www.who.int`). Loaded
/// from JSON (`{"kinds": {"web": 0.3}, "domains": {"nature.com": 0.9}}`); entries not
/// given keep their defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuthorityTiers {
    pub kinds: BTreeMap<SourceKind, f64>,
    pub domains: BTreeMap<String, f64>,
}

impl Default for AuthorityTiers {
    /// Scholarly identifiers above books and preprints, encyclopedias above the open web;
    /// a marker without a source has no authority.
    fn default() -> Self {
        let kinds = [
            (SourceKind::Doi, 0.9),
            (SourceKind::Isbn, 0.7),
            (SourceKind::Arxiv, 0.7),
            (SourceKind::Wikipedia, 0.6),
            (SourceKind::AuthorYear, 0.5),
            (SourceKind::Bibliographic, 0.5),
            (SourceKind::Web, 0.4),
            (SourceKind::Unresolved, 0.0),
        ]
        .into_iter()
        .collect();
        let domains = [("gov", 0.8), ("int", 0.8), ("edu", 0.7), ("ac.uk", 0.7)]
            .into_iter()
            .map(|(d, s)| (d.to_string(), s))
            .collect();
        AuthorityTiers { kinds, domains }
    }
}

/// A tiers file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TiersError {
    #[error(transparent)]
    File(#[from] crate::json_file::JsonFileError),
    #[error("{path}: tier {name:?} is {value}, outside 0..1")]
    Range {
        path: String,
        name: String,
        value: f64,
    },
}

impl AuthorityTiers {
    /// Reads a tiers file over the defaults.
    pub fn load(path: &Path) -> Result<AuthorityTiers, TiersError> {
        let p = path.display().to_string();
        let (given, _): (AuthorityTiers, _) = crate::json_file::read(path)?;
        let mut tiers = AuthorityTiers::default();
        for (k, v) in given.kinds {
            check_range(&p, k.as_str(), v)?;
            tiers.kinds.insert(k, v);
        }
        for (d, v) in given.domains {
            check_range(&p, &d, v)?;
            tiers
                .domains
                .insert(d.trim_start_matches('.').to_lowercase(), v);
        }
        Ok(tiers)
    }

    /// The tier of a source: its host's longest matching suffix for web sources, else
    /// its kind's.
    pub fn score(&self, source: &Source) -> f64 {
        let kind = SourceKind::of(source);
        if let Source::Url(url) = source
            && let Some(host) = host(url)
        {
            let best = self
                .domains
                .iter()
                .filter(|(d, _)| host == **d || host.ends_with(&format!(".{d}")))
                .max_by_key(|(d, _)| d.len());
            if let Some((_, s)) = best {
                return *s;
            }
        }
        self.kinds.get(&kind).copied().unwrap_or(0.0)
    }
}

fn check_range(path: &str, name: &str, value: f64) -> Result<(), TiersError> {
    if (0.0..=1.0).contains(&value) {
        Ok(())
    } else {
        Err(TiersError::Range {
            path: path.to_string(),
            name: name.to_string(),
            value,
        })
    }
}

/// The lowercased host of a URL, without `www.` and port.
pub fn host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.to_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    (!host.is_empty()).then_some(host)
}

/// Who stands behind a source, so that two citations of one publisher count once in a
/// paragraph's diversity: the site (last two host labels, three under a two-letter
/// second-level label such as `co.uk`), the DOI registrant prefix, the first author.
/// All of one Wikipedia counts as one source.
pub(crate) fn independence_key(source: &Source) -> Option<String> {
    match source {
        Source::Wikipedia { lang, .. } => {
            Some(format!("wikipedia:{}", lang.as_deref().unwrap_or("local")))
        }
        Source::WikiLink { .. } => Some("wikipedia:local".to_string()),
        Source::Doi(doi) => Some(format!("doi:{}", doi.split('/').next().unwrap_or(doi))),
        Source::Arxiv(id) => Some(format!("arxiv:{id}")),
        Source::Isbn(isbn) => Some(format!("isbn:{isbn}")),
        Source::Url(url) => host(url).map(|h| {
            let labels: Vec<&str> = h.split('.').collect();
            let keep = match labels.as_slice() {
                [.., second, _] if second.len() <= 3 && labels.len() > 2 => 3,
                _ => 2,
            };
            labels[labels.len().saturating_sub(keep)..].join(".")
        }),
        Source::AuthorYear { authors, .. } => {
            let first = authors
                .split([' ', ','])
                .find(|w| !w.is_empty())
                .unwrap_or(authors);
            Some(format!("author:{}", first.to_lowercase()))
        }
        Source::Bibliographic { text } => Some(format!(
            "ref:{}",
            text.chars().take(40).collect::<String>().to_lowercase()
        )),
        Source::Unresolved => None,
    }
}

/// The quality components of one citation and their combination.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Quality {
    pub relevance: Option<f64>,
    pub locator: Option<f64>,
    pub recency: Option<f64>,
    pub authority: f64,
    pub diversity: f64,
    /// The weighted mean of the components that apply.
    pub score: f64,
}

impl Quality {
    pub(crate) fn combine(
        relevance: Option<f64>,
        locator: Option<f64>,
        recency: Option<f64>,
        authority: f64,
        diversity: f64,
    ) -> Quality {
        let parts = [
            (relevance, W_RELEVANCE),
            (locator, W_LOCATOR),
            (recency, W_RECENCY),
            (Some(authority), W_AUTHORITY),
            (Some(diversity), W_DIVERSITY),
        ];
        let (sum, weight) = parts
            .iter()
            .filter_map(|(v, w)| v.map(|v| (v * w, *w)))
            .fold((0.0, 0.0), |(s, t), (v, w)| (s + v, t + w));
        Quality {
            relevance,
            locator,
            recency,
            authority,
            diversity,
            score: if weight > 0.0 { sum / weight } else { 0.0 },
        }
    }
}

/// The locator component: how precisely the citation points, less when a part of it
/// does not resolve.
pub(crate) fn locator_score(precision: Precision, fully_resolved: bool) -> f64 {
    let base: f64 = match precision {
        Precision::None => 0.0,
        Precision::Page => 0.4,
        Precision::Section => 0.7,
        Precision::Sentence => 0.9,
        Precision::Quote => 1.0,
    };
    if fully_resolved {
        base
    } else {
        (base - 0.2).max(0.0)
    }
}

/// The recency component for a revision `age_seconds` older than the reference time.
pub(crate) fn recency_score(age_seconds: i64) -> f64 {
    let years = age_seconds.max(0) as f64 / (365.25 * 86_400.0);
    0.5f64.powf(years / RECENCY_HALF_LIFE_YEARS)
}

/// The diversity component for `n` independent sources in a paragraph.
pub(crate) fn diversity_score(n: usize) -> f64 {
    n.min(DIVERSITY_FULL_AT) as f64 / DIVERSITY_FULL_AT as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_tiers_use_the_longest_matching_host_suffix() {
        let mut t = AuthorityTiers::default();
        t.domains.insert("noaa.gov".into(), 0.95);
        assert_eq!(t.score(&Source::Url("https://www.epa.gov/x".into())), 0.8);
        assert_eq!(
            t.score(&Source::Url("https://coralreefwatch.noaa.gov/p".into())),
            0.95
        );
        assert_eq!(t.score(&Source::Url("https://example.com/gov".into())), 0.4);
        assert_eq!(t.score(&Source::Doi("10.1038/x".into())), 0.9);
    }

    #[test]
    fn independence_is_by_publisher() {
        let k = |u: &str| independence_key(&Source::Url(u.into())).unwrap();
        assert_eq!(k("https://www.aims.gov.au/a?b"), "aims.gov.au");
        assert_eq!(k("https://reports.aims.gov.au/c"), "aims.gov.au");
        assert_eq!(k("https://news.bbc.co.uk/x"), "bbc.co.uk");
        assert_eq!(k("https://blog.example.com/x"), "example.com");
        assert_eq!(
            independence_key(&Source::Doi("10.1038/nature21707".into())).unwrap(),
            "doi:10.1038"
        );
    }

    #[test]
    fn quality_renormalizes_over_the_components_that_apply() {
        let q = Quality::combine(None, None, None, 0.9, 1.0);
        assert!((q.score - (0.9 * 0.2 + 0.1) / 0.3).abs() < 1e-12);
        let full = Quality::combine(Some(1.0), Some(1.0), Some(1.0), 1.0, 1.0);
        assert!((full.score - 1.0).abs() < 1e-12);
        assert!(recency_score(0) == 1.0 && (recency_score(63_115_200) - 0.5).abs() < 1e-9);
        assert!((locator_score(Precision::Section, false) - 0.5).abs() < 1e-12);
    }
}
