//! Where a cited Wikipedia source points in the index: which page (through redirects),
//! which revision, which section, which sentences a quoted passage is in.
//!
//! This is the only place the citation checker interprets what a citation carries (a
//! title or URL, an `#anchor`, a `#:~:text=` quote). The page is found by the locator's
//! [`Resolver`] (the one title → page path, page and revision ids included); anchors and
//! quotes are resolved by the rules locators use (`section_number`, [`crate::text::quote`]),
//! reported at the precision a citation reaches.

use schemars::JsonSchema;
use serde::Serialize;

use crate::cite::parse::Source;
use crate::index::{Index, IndexError};
use crate::locator::{PageSpec, Resolver, Unresolved, subsections_end};
use crate::query::section_anchor;
use crate::query::text::section_number;
use crate::text::{PageText, fold_quote};
use crate::url::TextQuote;
use crate::wikitext::PageStructure;

/// Whether the cited source exists where the citation says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Existence {
    /// A page of the index, not a redirect.
    Page,
    /// A redirect whose chain ends on a page.
    Redirect { via: Vec<String> },
    /// A valid title (or page/revision id) with no page in the index.
    Missing { title: String },
    /// A redirect that ends nowhere (missing target, loop, other wiki).
    BrokenRedirect { title: String },
    /// The cited title is not a valid title.
    InvalidTitle { title: String, reason: String },
    /// A Wikipedia in another language than the index's, or an interwiki title.
    OtherWiki { wiki: String },
    /// Not a Wikipedia source: DOI, arXiv, ISBN, web page, author–year, bibliography
    /// entry. Nothing is guessed about it.
    NotCheckableOffline { kind: SourceKind },
    /// A marker that leads to no source in the report.
    Unresolved,
}

impl Existence {
    /// The page exists in the index (directly or through a redirect).
    pub fn exists(&self) -> bool {
        matches!(self, Existence::Page | Existence::Redirect { .. })
    }
}

/// What kind of source a citation names (for counts, tiers and diversity).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    serde::Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Wikipedia,
    Doi,
    Arxiv,
    Isbn,
    Web,
    AuthorYear,
    Bibliographic,
    Unresolved,
}

impl SourceKind {
    pub fn of(source: &Source) -> SourceKind {
        match source {
            Source::Wikipedia { .. } | Source::WikiLink { .. } => SourceKind::Wikipedia,
            Source::Doi(_) => SourceKind::Doi,
            Source::Arxiv(_) => SourceKind::Arxiv,
            Source::Isbn(_) => SourceKind::Isbn,
            Source::Url(_) => SourceKind::Web,
            Source::AuthorYear { .. } => SourceKind::AuthorYear,
            Source::Bibliographic { .. } => SourceKind::Bibliographic,
            Source::Unresolved => SourceKind::Unresolved,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Wikipedia => "wikipedia",
            SourceKind::Doi => "doi",
            SourceKind::Arxiv => "arxiv",
            SourceKind::Isbn => "isbn",
            SourceKind::Web => "web",
            SourceKind::AuthorYear => "author_year",
            SourceKind::Bibliographic => "bibliographic",
            SourceKind::Unresolved => "unresolved",
        }
    }
}

/// The cited revision (`oldid=`) against the dump's revision of the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RevisionCheck {
    pub cited: u64,
    pub dump: u64,
    /// The dump holds exactly the cited revision; otherwise the text checked is the
    /// dump's, which may differ from what the author read.
    pub same: bool,
}

/// How narrowly a locator pins the passage, from none to a quoted span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    None,
    Page,
    Section,
    /// A quote that runs over several sentences (`text=start,end`).
    Sentence,
    /// A quote found inside one sentence.
    Quote,
}

/// What became of the citation's locator.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LocatorCheck {
    /// The precision the citation asks for.
    pub requested: Precision,
    /// The precision reached: the requested one when everything resolves, less when a
    /// part (anchor, quote) does not.
    pub precision: Precision,
    /// Every part the citation carries resolves.
    pub resolved: bool,
    /// The section the anchor (or the redirect's fragment) names; 0 is the lead.
    pub section: Option<u32>,
    pub anchor: Option<String>,
    /// (section, sentence) of the sentences holding the quote, in order.
    pub quote_sentences: Vec<(u32, usize)>,
    /// Why a part did not resolve.
    pub problems: Vec<String>,
}

impl LocatorCheck {
    fn none() -> LocatorCheck {
        LocatorCheck {
            requested: Precision::None,
            precision: Precision::None,
            resolved: false,
            section: None,
            anchor: None,
            quote_sentences: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// A cited page found in the index.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CitedPage {
    pub title: String,
    pub page_id: u64,
    #[serde(skip)]
    pub number: u32,
    pub rev_id: u64,
    /// Revision time, seconds since the Unix epoch.
    pub timestamp: i64,
}

/// Everything resolution finds for one citation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Target {
    pub existence: Existence,
    pub page: Option<CitedPage>,
    pub revision: Option<RevisionCheck>,
    pub locator: LocatorCheck,
}

/// What a Wikipedia citation carries, whatever its spelling.
struct Wanted<'a> {
    page: PageSpec,
    anchor: Option<&'a str>,
    quote: Option<&'a TextQuote>,
}

/// Resolves sources against one index.
pub(crate) struct TargetResolver<'i> {
    index: &'i Index,
    pages: Resolver<'i>,
}

impl<'i> TargetResolver<'i> {
    pub fn new(index: &'i Index) -> TargetResolver<'i> {
        TargetResolver {
            index,
            pages: Resolver::new(index),
        }
    }

    /// Resolves a source to a page of the index. The locator is left unresolved
    /// ([`Precision::None`]); when a page is found, the returned request says what to
    /// resolve on it with [`locate`] (the caller holds the page's text).
    pub fn resolve(&self, source: &Source) -> Result<(Target, Option<LocatorRequest>), IndexError> {
        let wanted = match source {
            Source::Wikipedia {
                lang,
                title,
                oldid,
                curid,
                anchor,
                quote,
                ..
            } => Wanted {
                page: PageSpec {
                    title: title.clone(),
                    oldid: *oldid,
                    curid: *curid,
                    lang: lang.clone(),
                },
                anchor: anchor.as_deref(),
                quote: quote.as_ref(),
            },
            Source::WikiLink { target, anchor } => Wanted {
                page: PageSpec::titled(target),
                anchor: anchor.as_deref(),
                quote: None,
            },
            Source::Unresolved => return Ok((no_page(Existence::Unresolved), None)),
            other => {
                let kind = SourceKind::of(other);
                return Ok((no_page(Existence::NotCheckableOffline { kind }), None));
            }
        };
        let (existence, found) = self.find(&wanted.page)?;
        let Some((number, fragment)) = found else {
            return Ok((no_page(existence), None));
        };
        let rec = self.index.page(number)?;
        let revision = wanted.page.oldid.map(|cited| RevisionCheck {
            cited,
            dump: rec.rev_id,
            same: cited == rec.rev_id,
        });
        let request = LocatorRequest {
            anchor: wanted.anchor.map(str::to_string).or(fragment),
            quote: wanted.quote.cloned(),
        };
        let target = Target {
            existence,
            page: Some(CitedPage {
                title: self.index.display_title(&rec),
                page_id: rec.id,
                number,
                rev_id: rec.rev_id,
                timestamp: rec.timestamp,
            }),
            revision,
            locator: LocatorCheck::none(),
        };
        Ok((target, Some(request)))
    }

    /// The page a citation names, with the fragment a redirect adds.
    #[allow(clippy::type_complexity)]
    fn find(
        &self,
        page: &PageSpec,
    ) -> Result<(Existence, Option<(u32, Option<String>)>), IndexError> {
        Ok(match self.pages.find_spec(page)? {
            Ok((n, via, fragment)) if via.is_empty() => (Existence::Page, Some((n, fragment))),
            // The chain's fragment: the redirect's own when no later hop sets one.
            Ok((n, via, fragment)) => (Existence::Redirect { via }, Some((n, fragment))),
            Err(Unresolved::OtherWiki { wiki, .. }) => (Existence::OtherWiki { wiki }, None),
            Err(Unresolved::InvalidTitle { title, why }) => {
                (Existence::InvalidTitle { title, reason: why }, None)
            }
            Err(Unresolved::RedirectElsewhere { from, .. }) => {
                (Existence::BrokenRedirect { title: from }, None)
            }
            // A page lookup fails only in the ways above or for want of a page.
            Err(Unresolved::NoSuchPage { title }) => (Existence::Missing { title }, None),
            Err(other) => (
                Existence::Missing {
                    title: other.to_string(),
                },
                None,
            ),
        })
    }
}

fn no_page(existence: Existence) -> Target {
    Target {
        existence,
        page: None,
        revision: None,
        locator: LocatorCheck::none(),
    }
}

/// The sections a section citation covers: the section and its subsections, as the
/// shared locator grammar scopes a section ([`subsections_end`]).
pub(crate) fn section_scope(s: &PageStructure, section: u32) -> std::ops::Range<u32> {
    section..subsections_end(s, section) + 1
}

/// The locator parts a citation carries, to resolve on its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocatorRequest {
    /// The citation's anchor, else the fragment of the redirect it went through.
    pub anchor: Option<String>,
    pub quote: Option<TextQuote>,
}

/// Resolves a citation's anchor and quote on its page.
pub fn locate(request: &LocatorRequest, s: &PageStructure, text: &PageText) -> LocatorCheck {
    let anchor = request.anchor.as_deref();
    let quote = request.quote.as_ref();
    let mut out = LocatorCheck {
        requested: Precision::Page,
        precision: Precision::Page,
        resolved: true,
        ..LocatorCheck::none()
    };
    if let Some(a) = anchor.filter(|a| !a.trim().is_empty()) {
        out.requested = Precision::Section;
        match section_number(s, a) {
            Some(n) => {
                out.precision = Precision::Section;
                out.section = Some(n);
                out.anchor = section_anchor(s, n);
            }
            None => {
                out.resolved = false;
                out.problems.push(format!("no section with anchor {a:?}"));
            }
        }
    }
    if let Some(q) = quote {
        let (requested, found) = find_quote(text, q, out.section.map(|n| section_scope(s, n)));
        out.requested = requested;
        if found.is_empty() {
            out.resolved = false;
            out.problems.push(format!(
                "quoted text {:?} not found in the dump's text",
                q.start
            ));
        } else {
            out.precision = requested;
            if out.section.is_none() {
                out.section = Some(found[0].0);
                out.anchor = section_anchor(s, found[0].0);
            }
            out.quote_sentences = found;
        }
    }
    out
}

/// The sentences holding a text fragment (the shared rule of [`crate::text::quote`]), and
/// the precision it reaches: a quote within one sentence is quote-precise; a fragment
/// with an end in a later sentence names those sentences.
fn find_quote(
    text: &PageText,
    q: &TextQuote,
    within: Option<std::ops::Range<u32>>,
) -> (Precision, Vec<(u32, usize)>) {
    let has_end = q.end.as_deref().is_some_and(|e| !fold_quote(e).is_empty());
    let requested = if has_end {
        Precision::Sentence
    } else {
        Precision::Quote
    };
    match crate::text::quote::find(text, &q.start, q.end.as_deref(), within) {
        Some(found) if found.len() == 1 => (Precision::Quote, found),
        Some(found) => (requested, found),
        None => (requested, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(sections: &[&[&str]]) -> PageText {
        crate::text::prose_page(sections)
    }

    fn quote(start: &str, end: Option<&str>) -> TextQuote {
        TextQuote {
            prefix: None,
            start: start.to_string(),
            end: end.map(str::to_string),
            suffix: None,
        }
    }

    #[test]
    fn quotes_are_found_whatever_the_typography() {
        let t = page(&[
            &["Intro sentence."],
            &[
                "The river\u{2019}s source lies at 1,200 m.",
                "It flows north.",
                "Then it turns east.",
            ],
        ]);
        assert_eq!(
            find_quote(&t, &quote("river's  SOURCE", None), None),
            (Precision::Quote, vec![(1, 0)])
        );
        assert_eq!(
            find_quote(&t, &quote("source lies", Some("turns east")), None),
            (Precision::Sentence, vec![(1, 0), (1, 1), (1, 2)])
        );
        assert_eq!(
            find_quote(&t, &quote("flows", Some("north")), None),
            (Precision::Quote, vec![(1, 1)])
        );
        assert!(
            find_quote(&t, &quote("flows south", None), None)
                .1
                .is_empty()
        );
        // Restricted to the lead, the quote is not there.
        assert!(
            find_quote(&t, &quote("flows", None), Some(0..1))
                .1
                .is_empty()
        );
    }
}
