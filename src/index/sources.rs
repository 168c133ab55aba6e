//! The template sources: the wikitext of every page of the namespaces that expansion
//! reads (Template, Module, MediaWiki), kept on disk so that an index can expand pages
//! after the build (`wikiwit expand`, `page --expanded`) and a build does not hold
//! enwiki's million templates in memory.
//!
//! `sources.rec` holds one [`SourcePage`] per page in dump order; `sources.fst` maps the
//! page's title-map key (namespace, DB key) to its record number.

use std::borrow::Cow;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::articles::OtherPages;
use super::{IndexError, Store, StoreWriter, TitleMap, files, kinds, titles};
use crate::expand::TemplateSource;

/// Namespaces whose pages are sources: Template (10), Module (828) and MediaWiki (8,
/// the messages `{{int:…}}` reads).
pub(crate) const SOURCE_NAMESPACES: [i32; 3] = [8, 10, 828];

/// One source page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePage {
    pub ns: i32,
    pub dbkey: String,
    /// The redirect target (namespace, DB key) when the page is a local redirect.
    pub redirect: Option<(i32, String)>,
    pub text: String,
}

/// Writes `sources.rec` and `sources.fst`.
pub(crate) struct SourcesWriter {
    store: StoreWriter<SourcePage>,
    /// (title key, record number): a few dozen bytes per template, sorted at the end.
    keys: Vec<(Vec<u8>, u64)>,
}

impl SourcesWriter {
    pub fn create(dir: &Path) -> Result<SourcesWriter, IndexError> {
        Ok(SourcesWriter {
            store: StoreWriter::create(&dir.join(files::SOURCES), kinds::SOURCES)?,
            keys: Vec::new(),
        })
    }

    pub fn push(&mut self, page: &SourcePage) -> Result<(), IndexError> {
        self.keys
            .push((titles::key(page.ns, &page.dbkey), self.store.len() as u64));
        self.store.push(page)
    }

    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Finishes both files; returns their sizes (records, map). A title listed twice
    /// (a broken dump, refused later by the build) keeps its first record.
    pub fn finish(mut self, dir: &Path) -> Result<(u64, u64), IndexError> {
        let records = self.store.finish()?;
        self.keys.sort();
        self.keys.dedup_by(|b, a| a.0 == b.0);
        let map = titles::write_kind(
            &dir.join(files::SOURCES_MAP),
            kinds::SOURCES_MAP,
            std::mem::take(&mut self.keys),
        )?;
        Ok((records, map))
    }
}

/// The sources of an index (or of a build in progress), readable from many threads.
pub struct Sources {
    store: Store<SourcePage>,
    map: TitleMap,
    /// Whether any source page is a template (see [`TemplateSource::holds_templates`]).
    holds_templates: bool,
}

impl Sources {
    pub fn open(dir: &Path) -> Result<Sources, IndexError> {
        let map = TitleMap::open_kind(&dir.join(files::SOURCES_MAP), kinds::SOURCES_MAP)?;
        let templates = titles::key(10, "");
        Ok(Sources {
            store: Store::open(&dir.join(files::SOURCES), kinds::SOURCES)?,
            holds_templates: !map.range_from(&templates, &templates, 1).is_empty(),
            map,
        })
    }

    pub fn len(&self) -> usize {
        self.store.len()
    }

    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// The source page (namespace, DB key), if it is one. A record that cannot be
    /// decoded reads as missing: expansion never fails on it (`info --verify` reports it).
    pub fn get(&self, ns: i32, dbkey: &str) -> Option<SourcePage> {
        let n = self.map.get(ns, dbkey)?;
        self.store.get(n as usize).ok()
    }

    pub fn verify(&self) -> Result<(), IndexError> {
        self.store.verify()?;
        self.map.verify()
    }
}

/// Whether a page exists, from the title map (shared by the threads that expand).
pub(crate) type TitleExists<'a> = &'a (dyn Fn(i32, &str) -> bool + Sync);

/// Sources answering for an expansion. Pages beyond the source namespaces come from
/// `articles` (the dump's pages, see [`OtherPages`]); whether they exist, from `titles`
/// (the index's title map) when there is one, as during a build there is not.
pub(crate) struct SourceLookup<'a> {
    pub sources: &'a Sources,
    pub titles: Option<TitleExists<'a>>,
    pub articles: Option<&'a dyn OtherPages>,
    /// Page ids both ways, when an index is there to answer (not during a build).
    pub ids: Option<&'a dyn PageIds>,
}

/// The dump's page ids of an index's pages.
pub(crate) trait PageIds: Sync {
    fn id_of(&self, ns: i32, dbkey: &str) -> Option<u64>;
    fn page_of(&self, id: u64) -> Option<(i32, String)>;
}

impl TemplateSource for SourceLookup<'_> {
    fn wikitext(&self, ns: i32, dbkey: &str) -> Option<Cow<'_, str>> {
        if SOURCE_NAMESPACES.contains(&ns) {
            return self.sources.get(ns, dbkey).map(|p| Cow::Owned(p.text));
        }
        let page = self.articles?.get(ns, dbkey)?;
        Some(Cow::Owned(page.text.clone()))
    }

    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        if SOURCE_NAMESPACES.contains(&ns) {
            return self.sources.map.get(ns, dbkey).is_some();
        }
        if let Some(f) = self.titles {
            return f(ns, dbkey);
        }
        self.articles.is_some_and(|a| a.exists(ns, dbkey))
    }

    fn redirect(&self, ns: i32, dbkey: &str) -> Option<(i32, String)> {
        if SOURCE_NAMESPACES.contains(&ns) {
            return self.sources.get(ns, dbkey).and_then(|p| p.redirect);
        }
        self.articles?.get(ns, dbkey)?.redirect.clone()
    }

    fn page_id(&self, ns: i32, dbkey: &str) -> Option<u64> {
        self.ids?.id_of(ns, dbkey)
    }

    fn page_of_id(&self, id: u64) -> Option<(i32, String)> {
        self.ids?.page_of(id)
    }

    fn holds_templates(&self) -> bool {
        self.sources.holds_templates
    }
}
