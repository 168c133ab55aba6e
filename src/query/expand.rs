//! `wikiwit expand` and `page --expanded`: wikitext expanded in the context of a page,
//! as MediaWiki's `action=expandtemplates` does, with the build's expander and the
//! templates the build stored (`sources.rec`).

use serde::Serialize;

use std::sync::Arc;

use super::{QueryError, find_page};
use crate::dump::{Dump, RawPage};
use crate::index::articles::{OtherPages, PageCache, page_of};
use crate::index::sources::{PageIds, SourceLookup, SourcePage};
use crate::index::{DumpOffsets, Index, IndexError};

use crate::expand::{ExpandConfig, Expander, ExpansionStats, Messages, Warning};
use crate::index::files;

/// An expansion and what it used.
#[derive(Debug, Clone, Serialize)]
pub struct ExpandView {
    /// The page the text was expanded as (prefixed text).
    pub title: String,
    pub text: String,
    /// Every page recorded in templatelinks (prefixed text), in order of first use.
    pub templates: Vec<String>,
    pub modules: Vec<String>,
    /// Titles `{{#ifexist:…}}` checked (recorded as links by MediaWiki).
    pub existence_links: Vec<String>,
    pub warnings: Vec<WarningView>,
    /// MediaWiki's limit report for this expansion.
    pub limits: ExpansionStats,
}

#[derive(Debug, Clone, Serialize)]
pub struct WarningView {
    pub kind: String,
    pub message: String,
}

fn warning_view(w: &Warning) -> WarningView {
    let kind = serde_json::to_value(w)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
        .unwrap_or_default();
    WarningView {
        kind,
        message: w.to_string(),
    }
}

/// The date the build pinned for date magic words (Unix seconds).
fn build_date(index: &Index) -> i64 {
    index
        .manifest()
        .build
        .build_date
        .as_deref()
        .and_then(|d| {
            time::OffsetDateTime::parse(d, &time::format_description::well_known::Rfc3339).ok()
        })
        .map_or(0, |t| t.unix_timestamp())
}

/// The messages the build was given (`messages.json` in the index), if any.
pub(crate) fn index_messages(index: &Index) -> Result<Option<Arc<Messages>>, QueryError> {
    if !index.manifest().files.contains_key(files::MESSAGES) {
        return Ok(None);
    }
    let path = index.dir().join(files::MESSAGES);
    let m = Messages::load(&path).map_err(|e| IndexError::DataCorruption {
        path,
        comment: e.to_string(),
    })?;
    Ok(Some(Arc::new(m)))
}

/// Expands `text` as the content of page `title` (default: the main page title `API`, as
/// Special:ExpandTemplates; the page need not exist) with the content language's messages
/// (`--messages`); `None`: the index's own (the build's `--messages`), else English.
pub fn expand_text_with(
    index: &Index,
    title: Option<&str>,
    text: &str,
    messages: Option<Arc<Messages>>,
) -> Result<ExpandView, QueryError> {
    expand_as(index, title, text, messages, false)
}

/// Expands `text` as page `title`; `stored`: `text` is the page's own wikitext (which a
/// module reading the current page then gets without reading the dump again).
fn expand_as(
    index: &Index,
    title: Option<&str>,
    text: &str,
    messages: Option<Arc<Messages>>,
    stored: bool,
) -> Result<ExpandView, QueryError> {
    let sources = index.sources()?;
    let codec = index.codec();
    let t = codec
        .parse(title.unwrap_or("API"), crate::title::NS_MAIN)
        .map_err(|e| QueryError::NotFound(format!("{:?} is not a valid title: {e}", title)))?;
    let titles = |ns: i32, k: &str| index.find(ns, k).is_some();
    let articles = IndexPages {
        index,
        cache: PageCache::default(),
    };
    let lookup = SourceLookup {
        sources: &sources,
        titles: Some(&titles),
        articles: Some(&articles),
        ids: Some(&articles),
    };
    let mut config = ExpandConfig::from_site(&index.manifest().site, build_date(index));
    if let Some(m) = messages.map_or_else(|| index_messages(index), |m| Ok(Some(m)))? {
        config.messages = m;
    }
    let expander = Expander::new(&lookup, codec, config);
    // As MediaWiki's expandtemplates: a preview of the titled page, which has its page
    // id but no revision yet, at the pinned current time.
    if let Some(n) = index.find(t.ns, &t.dbkey) {
        expander.set_revision(Some(crate::expand::PageRevision {
            page_id: index.page(n)?.id,
            rev_id: None,
            timestamp: build_date(index),
            size: None,
        }));
        if stored {
            expander.set_content(Arc::from(text));
        }
    }
    let e = expander.expand_page(t.ns, &t.dbkey, text);
    let name = |(ns, k): &(i32, String)| codec.prefixed_text(*ns, k);
    Ok(ExpandView {
        title: codec.prefixed_text(t.ns, &t.dbkey),
        text: e.text,
        templates: e.templates.iter().map(name).collect(),
        modules: e.invoked_modules,
        existence_links: e.existence_links.iter().map(name).collect(),
        warnings: e.warnings.iter().map(warning_view).collect(),
        limits: e.stats,
    })
}

/// The expanded wikitext of page `title`. The index does not keep pages' wikitext (it
/// would double its size): source pages come from `sources.rec`, other pages from the
/// dump the index was built from ([`page_wikitext`]).
pub fn expand_page(index: &Index, title: &str) -> Result<ExpandView, QueryError> {
    let page = find_page(index, title)?;
    let rec = &page.record;
    let text = page_wikitext(index, rec)?;
    let display = index.display_title(rec);
    expand_as(index, Some(&display), &text, None, true)
}

/// A page's wikitext as the dump gives it (`page --wikitext`).
#[derive(Debug, Clone, Serialize)]
pub struct WikitextView {
    /// The page's title (prefixed text), after redirects.
    pub title: String,
    pub page_id: u64,
    pub rev_id: u64,
    pub text: String,
}

/// The wikitext of page `title` (redirects followed), read as [`page_wikitext`] does.
pub fn page_source(index: &Index, title: &str) -> Result<WikitextView, QueryError> {
    let page = find_page(index, title)?;
    let rec = &page.record;
    Ok(WikitextView {
        title: index.display_title(rec),
        page_id: rec.id,
        rev_id: rec.rev_id,
        text: page_wikitext(index, rec)?,
    })
}

/// The index's other pages (an article transcluded with `{{:Page}}`), read from the dump
/// the index was built from when it is still there (as [`page_wikitext`]). A page the
/// dump no longer gives expands as a missing page.
struct IndexPages<'i> {
    index: &'i Index,
    cache: PageCache,
}

impl IndexPages<'_> {
    fn read(&self, ns: i32, dbkey: &str, n: u32) -> Option<SourcePage> {
        let offsets = self.index.dump_offsets().ok().flatten();
        let id = self.index.page(n).ok()?.id;
        let at = Some(n).zip(offsets);
        let text = text_from_dump(self.index, at, ns, dbkey, id).ok()?;
        let codec = self.index.codec();
        let lang = &self.index.manifest().site.lang;
        Some(page_of(
            ns,
            dbkey.to_string(),
            text,
            true,
            false,
            codec,
            lang,
        ))
    }
}

impl PageIds for IndexPages<'_> {
    fn id_of(&self, ns: i32, dbkey: &str) -> Option<u64> {
        let n = self.index.find(ns, dbkey)?;
        self.index.page(n).ok().map(|r| r.id)
    }

    fn page_of(&self, id: u64) -> Option<(i32, String)> {
        let n = self.index.page_by_ids(Some(id), None).ok()??;
        self.index.page(n).ok().map(|r| (r.ns, r.dbkey))
    }
}

impl OtherPages for IndexPages<'_> {
    fn get(&self, ns: i32, dbkey: &str) -> Option<Arc<SourcePage>> {
        let n = self.index.find(ns, dbkey)?;
        self.cache.get(ns, dbkey, || self.read(ns, dbkey, n))
    }

    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        self.index.find(ns, dbkey).is_some()
    }
}

/// The wikitext of a page: from `sources.rec` for templates and modules, else from the
/// dump the index was built from (see [`text_from_dump`]).
pub(crate) fn page_wikitext(
    index: &Index,
    rec: &crate::index::PageRecord,
) -> Result<String, QueryError> {
    let stored = if index.manifest().build.expand {
        index.sources()?.get(rec.ns, &rec.dbkey).map(|p| p.text)
    } else {
        None
    };
    if let Some(t) = stored {
        return Ok(t);
    }
    // The page's number: the one its title maps to (a duplicate title's dropped page
    // has none, and is read by a pass).
    let n = index
        .find(rec.ns, &rec.dbkey)
        .filter(|&n| index.page(n).is_ok_and(|r| r.id == rec.id));
    let offsets = index.dump_offsets()?;
    text_from_dump(index, n.zip(offsets), rec.ns, &rec.dbkey, rec.id)
}

/// Reads one page's wikitext from the index's dump (checked by size against the
/// manifest): with the dump's offsets (`at`: the page's number and `dump-offsets.bin`),
/// one bz2 stream or a few hundred KiB of XML; without them (a single-stream bz2 dump),
/// a pass over the whole dump.
fn text_from_dump(
    index: &Index,
    at: Option<(u32, &DumpOffsets)>,
    ns: i32,
    dbkey: &str,
    id: u64,
) -> Result<String, QueryError> {
    let m = index.manifest();
    let path = std::path::Path::new(&m.source.path);
    let changed = |why: &str| QueryError::DumpChanged {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    let size = std::fs::metadata(path)
        .map_err(|_| changed("missing"))?
        .len();
    if size != m.source.size {
        return Err(changed("size differs"));
    }
    let codec = index.codec();
    let wanted = |raw: &RawPage<'_>| {
        raw.id == id
            && codec
                .parse_page_title(&raw.title)
                .is_ok_and(|t| t.ns == ns && t.dbkey == dbkey)
    };
    if let Some((n, offsets)) = at {
        let read = offsets.read_page(path, n, wanted, |raw| raw.text.into_owned());
        return match read.map_err(QueryError::Dump)? {
            Some(text) => Ok(text),
            None => Err(changed(&format!(
                "page {:?} is not at byte {} where the build found it",
                codec.prefixed_text(ns, dbkey),
                offsets.span(n).map_or(0, |s| s.start)
            ))),
        };
    }
    let dump = Dump::open(path, None).map_err(QueryError::Dump)?;
    let mut found = None;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    dump.pages_in_namespaces(
        &[ns],
        (true, false),
        &|_| None,
        |raw, _| Ok(wanted(&raw).then(|| raw.text.into_owned())),
        |text| {
            found.get_or_insert(text);
            Ok(())
        },
        |_| {},
        &cancel,
    )
    .map_err(QueryError::Dump)?;
    found.ok_or_else(|| QueryError::NotFound(format!("page {dbkey:?} is not in the dump")))
}
