//! Resolution: from a marker candidate to the source(s) it cites.
//!
//! Numbered and footnote markers go through the reference entries; links, URLs and
//! identifiers carry their source themselves; author–year citations are matched to a
//! bibliography entry when one names the same first author and year, so that an entry's DOI
//! is used instead of just a name.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::LinkType;
use regex::Regex;

use super::markdown::Layout;
use super::markers::{Candidate, Found};
use super::refs::normalize_label;
use super::{Reference, ReferenceKind, Source, UnresolvedReason, urls};

/// How a marker sits in its sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Removed from the visible text; it closes the sentence before it (`… grew.[3]`).
    Closes,
    /// Part of the sentence (`[the report](url) says …`, `Smith (2021) found …`).
    Inline,
}

/// What happens to the marker's text in the claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shown {
    Removed,
    Kept,
    As(String),
}

/// One (marker, source) pair before its claim is known.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub span: Range<usize>,
    pub block: usize,
    pub label: Option<String>,
    pub source: Source,
    pub reference: Option<usize>,
    pub mode: Mode,
    pub shown: Shown,
    pub problem: Option<UnresolvedReason>,
    /// False for a problem that is reported only as a marker (a bad range whose endpoints
    /// are cited separately).
    pub is_citation: bool,
}

static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(1[5-9]\d\d|20\d\d)\b").expect("regex"));

/// Words that may be a surname: `De'ath`, `Hoegh-Guldberg`.
fn name_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'' && c != '’')
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
}

pub(crate) struct MarkerResolver<'r> {
    references: &'r [Reference],
    footnotes: HashMap<String, usize>,
    numbers: HashMap<String, usize>,
    labels: HashMap<String, usize>,
    /// (word, year) → first entry whose opening has both: author–year lookup in O(1).
    by_name_year: HashMap<(String, u16), usize>,
}

impl<'r> MarkerResolver<'r> {
    /// Indexes the references; the first entry wins when a key is defined twice, as in
    /// CommonMark.
    pub fn new(references: &'r [Reference]) -> Self {
        let mut r = MarkerResolver {
            references,
            footnotes: HashMap::new(),
            numbers: HashMap::new(),
            labels: HashMap::new(),
            by_name_year: HashMap::new(),
        };
        for (i, reference) in references.iter().enumerate() {
            if let Some(key) = &reference.key {
                let map = match reference.kind {
                    ReferenceKind::Footnote => &mut r.footnotes,
                    ReferenceKind::Numbered => &mut r.numbers,
                    ReferenceKind::LinkDefinition => &mut r.labels,
                    ReferenceKind::Listed => continue,
                };
                map.entry(key.to_lowercase()).or_insert(i);
            }
            let head: String = reference.text.chars().take(300).collect();
            let mut years: Vec<u16> = YEAR
                .find_iter(&head)
                .filter_map(|m| m.as_str().parse().ok())
                .collect();
            years.sort_unstable();
            years.dedup();
            let opening: String = reference.text.chars().take(100).collect();
            for word in name_words(&opening) {
                for &y in &years {
                    r.by_name_year.entry((word.to_string(), y)).or_insert(i);
                }
            }
        }
        r
    }

    pub fn resolve(&self, src: &str, layout: &Layout<'_>, c: &Candidate) -> Vec<Pending> {
        let base = Pending {
            span: c.span.clone(),
            block: c.block,
            label: None,
            source: Source::Unresolved,
            reference: None,
            mode: Mode::Closes,
            shown: Shown::Removed,
            problem: None,
            is_citation: true,
        };
        match &c.found {
            Found::Link(i) => {
                let Some(link) = layout.links.get(*i) else {
                    return Vec::new();
                };
                let by_label = matches!(
                    link.link_type,
                    LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut
                );
                let reference = by_label
                    .then(|| self.labels.get(&normalize_label(&link.label)).copied())
                    .flatten();
                vec![Pending {
                    label: reference.map(|_| link.label.clone()),
                    source: urls::classify_url(&link.dest),
                    reference,
                    mode: Mode::Inline,
                    shown: Shown::Kept,
                    ..base
                }]
            }
            Found::LabelRef { text, label } => {
                let found = self.labels.get(&normalize_label(label)).copied();
                let mut p = self.through(base, found, label.clone());
                // The link text stays in the claim; the brackets and label go.
                p.mode = Mode::Inline;
                p.shown = Shown::As(text.clone());
                vec![p]
            }
            Found::Footnote(label) => {
                let found = self.footnotes.get(&label.to_lowercase()).copied();
                vec![self.through(base, found, label.clone())]
            }
            Found::Numeric { numbers, bad_range } => {
                let mut out: Vec<Pending> = numbers
                    .iter()
                    .map(|n| {
                        let key = n.to_string();
                        let found = self.numbers.get(&key).copied();
                        self.through(base.clone(), found, key)
                    })
                    .collect();
                if *bad_range {
                    out.push(Pending {
                        problem: Some(UnresolvedReason::BadRange),
                        is_citation: false,
                        ..base
                    });
                }
                out
            }
            Found::WikiLink {
                target,
                anchor,
                display,
            } => vec![Pending {
                source: Source::WikiLink {
                    target: target.clone(),
                    anchor: anchor.clone(),
                },
                mode: Mode::Inline,
                shown: Shown::As(display.clone()),
                ..base
            }],
            Found::Url => vec![Pending {
                source: urls::classify_url(src.get(c.span.clone()).unwrap_or("")),
                ..base
            }],
            Found::Doi(d) => vec![Pending {
                source: Source::Doi(d.clone()),
                ..base
            }],
            Found::Arxiv(a) => vec![Pending {
                source: Source::Arxiv(a.clone()),
                ..base
            }],
            Found::Isbn(Ok(i)) => vec![Pending {
                source: Source::Isbn(i.clone()),
                ..base
            }],
            Found::Isbn(Err(_)) => vec![Pending {
                problem: Some(UnresolvedReason::InvalidIsbn),
                ..base
            }],
            Found::AuthorYear {
                authors,
                year,
                narrative,
            } => {
                let reference = self.match_author_year(authors, *year);
                let named = Source::AuthorYear {
                    authors: authors.clone(),
                    year: *year,
                };
                let source = match reference.map(|r| &self.references[r].source) {
                    Some(
                        s @ (Source::Wikipedia { .. }
                        | Source::Doi(_)
                        | Source::Arxiv(_)
                        | Source::Isbn(_)
                        | Source::Url(_)),
                    ) => s.clone(),
                    _ => named,
                };
                let (mode, shown) = if *narrative {
                    (Mode::Inline, Shown::Kept)
                } else {
                    (Mode::Closes, Shown::Removed)
                };
                // A mention no entry of the sources list backs is cited but unresolved: the
                // reader cannot tell which work is meant.
                let problem = reference.is_none().then_some(UnresolvedReason::NoEntry);
                vec![Pending {
                    source,
                    reference,
                    mode,
                    shown,
                    problem,
                    ..base
                }]
            }
        }
    }

    /// A marker resolved through a reference entry (or not).
    fn through(&self, base: Pending, found: Option<usize>, label: String) -> Pending {
        match found {
            Some(r) => {
                let source = self.references[r].source.clone();
                let problem =
                    (source == Source::Unresolved).then_some(UnresolvedReason::EmptyReference);
                Pending {
                    label: Some(label),
                    source,
                    reference: Some(r),
                    problem,
                    ..base
                }
            }
            None => Pending {
                label: Some(label),
                problem: Some(UnresolvedReason::NoSuchReference),
                ..base
            },
        }
    }

    /// A bibliography entry from `year` whose opening names the first author.
    fn match_author_year(&self, authors: &str, year: u16) -> Option<usize> {
        let surname = name_words(authors).next()?;
        self.by_name_year.get(&(surname.to_string(), year)).copied()
    }
}
