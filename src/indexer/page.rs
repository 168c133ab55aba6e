//! One page on a worker: its title checked, its redirect target read, its wikitext
//! analysed (after expansion when templates are expanded), and everything the consumer
//! stores encoded here, in parallel, so the consumer only forwards bytes in dump order.

use std::path::Path;

use super::Warning;
use crate::dump::{DumpError, Location, RawPage};
use crate::expand::{CallCost, ExpandConfig, Expander};
use crate::index::sources::SourceLookup;
use crate::index::{self, PageRecord};
use crate::redirect::{self, RedirectSyntax};
use crate::title::{Title, TitleCodec};
use crate::wikitext::{self, Assembled, PageStructure};

/// One page as the workers hand it over.
pub(super) struct PageOut {
    pub(super) rec: PageRecord,
    pub(super) target: Option<Title>,
    pub(super) warnings: Vec<Warning>,
    /// The page's [`PageStructure`], encoded by the worker.
    pub(super) structure: Vec<u8>,
    /// Title-map keys of the link targets and the category names, for the graph.
    pub(super) link_keys: Vec<Vec<u8>>,
    pub(super) categories: Vec<String>,
    /// The page's [`PageText`], encoded, and its full-text documents.
    pub(super) text: Vec<u8>,
    pub(super) docs: Vec<tantivy::TantivyDocument>,
    /// Where a reader can start in the dump to reach this page.
    pub(super) entry: Option<(crate::dump::OffsetKind, u64)>,
    /// What each template and module the page's expansion called cost.
    pub(super) costs: Vec<CallCost>,
}

/// What the workers need besides the page.
pub(super) struct Ctx<'a> {
    pub(super) path: &'a Path,
    pub(super) codec: &'a TitleCodec,
    pub(super) lang: &'a str,
    /// The full-text index's document maker, when text is built.
    pub(super) docs: Option<&'a crate::text::search::DocMaker>,
    /// Parse wikitext (false for `--pages-only`).
    pub(super) parse: bool,
    /// Template sources and the wiki's configuration, when pages are expanded.
    pub(super) expand: Option<(&'a SourceLookup<'a>, &'a ExpandConfig)>,
}

pub(super) fn to_page(
    raw: RawPage<'_>,
    loc: Location,
    ctx: &Ctx<'_>,
    expander: Option<&Expander<'_>>,
) -> Result<PageOut, DumpError> {
    let bad = |message: String| DumpError::BadPage {
        path: ctx.path.to_path_buf(),
        location: loc,
        title: raw.title.clone(),
        id: raw.id,
        message,
    };
    let (title, timestamp) = checked_title(&raw, loc, ctx)?;
    let mut warnings = Vec::new();
    let target = redirect_target(&raw, ctx, &mut warnings);
    let (structure, text, costs) =
        analyzed(&raw, (&title, timestamp), ctx, expander, &mut warnings);
    let (text_bytes, docs) = text_out(&title, target.is_some(), text, &structure, ctx)
        .map_err(|e| bad(e.to_string()))?;
    for w in &structure.warnings {
        warnings.push(page_warning(&raw, "parse", w.clone()));
    }
    // List pages are recognized from their structure; not at all without it.
    let list_page = ctx.parse && crate::wikitext::is_list_page(&title, &structure, ctx.lang);
    let (link_keys, categories) = graph_keys(&structure);
    let encoded = if ctx.parse {
        index::encode(&index::StoredStructure::encode(structure)).map_err(|e| bad(e.to_string()))?
    } else {
        Vec::new()
    };
    Ok(PageOut {
        rec: PageRecord {
            id: raw.id,
            ns: title.ns,
            dbkey: title.dbkey,
            rev_id: raw.rev_id,
            timestamp,
            len: raw.text.len() as u64,
            model: raw.model.clone().into_owned(),
            redirect: None,
            list_page,
        },
        target,
        warnings,
        structure: encoded,
        link_keys,
        categories,
        text: text_bytes,
        docs,
        entry: loc.entry_point(),
        costs,
    })
}

/// A page's stored text (encoded) and its full-text documents.
type TextOut = (Vec<u8>, Vec<tantivy::TantivyDocument>);

/// The page's stored text, encoded, and its full-text documents, when text is built.
fn text_out(
    title: &Title,
    redirect: bool,
    text: Option<Assembled>,
    structure: &PageStructure,
    ctx: &Ctx<'_>,
) -> Result<TextOut, index::IndexError> {
    let Some(maker) = ctx.docs else {
        return Ok((Vec::new(), Vec::new()));
    };
    let headings: Vec<String> = structure
        .sections
        .iter()
        .map(|x| x.heading.clone())
        .collect();
    let stored = match &text {
        Some(t) => index::StoredText::encode_assembled(t),
        None => index::StoredText::encode(&crate::text::PageText::default(), structure),
    };
    let bytes = index::encode(&stored)?;
    // A redirect's only document is its title.
    let text = text.map(Assembled::into_text).filter(|_| !redirect);
    let display = ctx.codec.prefixed_text(title.ns, &title.dbkey);
    let docs = maker.docs(&display, &headings, text.as_ref());
    Ok((bytes, docs))
}

/// A warning about the page being read.
fn page_warning(raw: &RawPage<'_>, kind: &str, message: String) -> Warning {
    Warning {
        page_id: raw.id,
        title: raw.title.clone(),
        kind: kind.into(),
        message,
    }
}

/// The page's title, checked against the namespace the dump declares, and its revision
/// time in Unix seconds: a dump that disagrees with itself is refused, not guessed at.
fn checked_title(
    raw: &RawPage<'_>,
    loc: Location,
    ctx: &Ctx<'_>,
) -> Result<(Title, i64), DumpError> {
    let path = ctx.path;
    let title =
        ctx.codec
            .parse_page_title(&raw.title)
            .map_err(|reason| DumpError::InvalidTitle {
                path: path.to_path_buf(),
                location: loc,
                title: raw.title.clone(),
                id: raw.id,
                reason,
            })?;
    let bad = |message: String| DumpError::BadPage {
        path: path.to_path_buf(),
        location: loc,
        title: raw.title.clone(),
        id: raw.id,
        message,
    };
    if title.fragment.is_some() || title.dbkey.is_empty() {
        return Err(bad("a page title cannot contain `#` or be empty".into()));
    }
    if title.ns != raw.ns {
        return Err(DumpError::NamespaceMismatch {
            path: path.to_path_buf(),
            location: loc,
            title: raw.title.clone(),
            id: raw.id,
            declared: raw.ns,
            parsed: title.ns,
        });
    }
    let timestamp = time::OffsetDateTime::parse(
        raw.timestamp.trim(),
        &time::format_description::well_known::Rfc3339,
    )
    .map_err(|e| {
        bad(format!(
            "revision timestamp {:?} is not RFC 3339: {e}",
            raw.timestamp
        ))
    })?
    .unix_timestamp();
    Ok((title, timestamp))
}

/// The redirect target a wikitext page's text names; a target that is not a title, or a
/// dump's redirect flag on a text that is not a redirect, is a warning and an ordinary
/// page.
fn redirect_target(raw: &RawPage<'_>, ctx: &Ctx<'_>, warnings: &mut Vec<Warning>) -> Option<Title> {
    if raw.model != "wikitext" {
        return None;
    }
    match redirect::parse(&raw.text, ctx.lang, raw.redirect_attr.is_some(), ctx.codec) {
        RedirectSyntax::Target(t) => return Some(t),
        RedirectSyntax::Invalid(text, reason) => warnings.push(page_warning(
            raw,
            "invalid-redirect-target",
            format!(
                "redirect to {text:?} is not a valid title ({reason}); treated as an ordinary page"
            ),
        )),
        RedirectSyntax::None if raw.redirect_attr.is_some() => warnings.push(page_warning(
            raw,
            "redirect-mismatch",
            "the dump marks the page as a redirect but its text is not redirect syntax".into(),
        )),
        RedirectSyntax::None => {}
    }
    None
}

/// The page's structure and, when text is built, its plain text: from the expansion when
/// templates are expanded, from the text as written otherwise; nothing for a page of
/// another content model or a `--pages-only` build. With them, what its expansion's
/// calls cost.
fn analyzed(
    raw: &RawPage<'_>,
    (title, timestamp): (&Title, i64),
    ctx: &Ctx<'_>,
    expander: Option<&Expander<'_>>,
    warnings: &mut Vec<Warning>,
) -> (PageStructure, Option<Assembled>, Vec<CallCost>) {
    let (codec, lang) = (ctx.codec, ctx.lang);
    match (raw.model == "wikitext" && ctx.parse, ctx.docs.is_some()) {
        (true, with_text) if expander.is_some() => {
            let ex = expander.expect("checked by the guard");
            ex.set_revision(Some(crate::expand::PageRevision {
                page_id: raw.id,
                rev_id: Some(raw.rev_id),
                timestamp,
                size: Some(raw.text.len() as u64),
            }));
            ex.set_content(std::sync::Arc::from(&*raw.text));
            let a = crate::analysis::analyze_expanded(
                &raw.text,
                title.ns,
                &title.dbkey,
                codec,
                lang,
                ex,
                with_text,
            );
            for w in a.expansion.iter().flat_map(|e| &e.warnings) {
                warnings.push(page_warning(raw, "expand", w.to_string()));
            }
            let costs = a.expansion.map(|e| e.costs).unwrap_or_default();
            (a.structure, a.text, costs)
        }
        (true, true) => {
            let (s, t) =
                wikitext::analyze_assembled(&raw.text, title.ns, &title.dbkey, codec, lang);
            (s, Some(t), Vec::new())
        }
        // Without text (`--no-text`) the plain text is not rendered at all.
        (true, false) => (
            wikitext::analyze(&raw.text, title.ns, &title.dbkey, codec, lang),
            None,
            Vec::new(),
        ),
        (false, _) => (PageStructure::default(), None, Vec::new()),
    }
}

/// The title-map keys of the page's link targets and its category names, sorted and
/// unique here, on the workers, so the consumer only forwards them.
fn graph_keys(structure: &PageStructure) -> (Vec<Vec<u8>>, Vec<String>) {
    let mut link_keys: Vec<Vec<u8>> = structure
        .links
        .iter()
        .map(|l| index::titles_key(l.ns, &l.dbkey))
        .collect();
    link_keys.sort_unstable();
    link_keys.dedup();
    let mut categories: Vec<String> = structure
        .categories
        .iter()
        .map(|c| c.dbkey.clone())
        .collect();
    categories.sort_unstable();
    categories.dedup();
    (link_keys, categories)
}
