//! The on-disk index: a directory of versioned, memory-mapped stores plus a manifest.
//!
//! `index/FORMAT.md` is the contract for these files. Every store has a writer (used by
//! [`crate::indexer`]) and a reader (used by queries); readers check the format version and
//! refuse anything else.

pub(crate) mod articles;
pub mod costs;
pub mod csr;
mod dump_offsets;
pub mod fault;
mod file;
pub mod manifest;
mod page_for;
pub mod pages;
mod publish;
pub mod sources;
mod store;
mod structure_store;
mod text_store;
mod titles;
pub(crate) mod varint;

use std::path::{Path, PathBuf};

pub(crate) use dump_offsets::DumpOffsetsWriter;
pub use dump_offsets::{DumpOffsets, PageSpan};
pub use manifest::Manifest;
pub(crate) use page_for::Landing;
pub use page_for::{DeadEnd, DeadRedirect, Named, NotFound};
pub(crate) use pages::NO_PAGE;
pub(crate) use pages::PageRecord;
pub use pages::{Redirect, Resolution};
pub(crate) use publish::Staging;
pub use store::{Records, Store, encode};
pub(crate) use store::{StoreWriter, join as join_stores};
pub(crate) use structure_store::StoredStructure;
pub(crate) use text_store::StoredText;
pub(crate) use titles::{KeySpool, TitleMap};
pub use titles::{key as titles_key, write as write_titles};

use crate::title::{InterwikiProfile, Title, TitleCodec};
use crate::wikitext::PageStructure;
use csr::Csr;

/// The on-disk format version this build of wikiwit reads and writes.
pub const FORMAT_VERSION: u32 = 15;

/// File names inside an index directory.
pub mod files {
    pub(crate) const PAGES: &str = "pages.rec";
    pub(crate) const TITLES: &str = "titles.fst";
    pub(crate) const WARNINGS: &str = "warnings.jsonl";
    pub(crate) const STRUCTURE: &str = "structure.rec";
    pub(crate) const LINKS_OUT: &str = "links-out.csr";
    pub(crate) const LINKS_IN: &str = "links-in.csr";
    pub(crate) const RED_TITLES: &str = "red-titles.fst";
    pub(crate) const RED_IN: &str = "red-in.csr";
    pub(crate) const CATEGORIES: &str = "categories.fst";
    pub(crate) const CATEGORY_MEMBERS: &str = "category-members.csr";
    pub(crate) const REDIRECTS_TO: &str = "redirects-to.csr";
    pub const TEXT: &str = "text.rec";
    pub(crate) const SOURCES: &str = "sources.rec";
    pub(crate) const SOURCES_MAP: &str = "sources.fst";
    /// The build's `--messages` file, as given.
    pub(crate) const MESSAGES: &str = "messages.json";
    /// Where pages start in the dump (absent for a single-stream bz2 dump).
    pub(crate) const DUMP_OFFSETS: &str = "dump-offsets.bin";
    /// What each template and module cost the expansion (absent without expansion).
    pub(crate) const COSTS: &str = "costs.json";
}

/// File kinds, written in each file's header (see `index/FORMAT.md`).
pub mod kinds {
    pub(crate) const PAGES: u32 = 1;
    pub(crate) const TITLES: u32 = 2;
    pub(crate) const STRUCTURE: u32 = 3;
    pub(crate) const LINKS_OUT: u32 = 4;
    pub(crate) const LINKS_IN: u32 = 5;
    pub(crate) const RED_TITLES: u32 = 6;
    pub(crate) const RED_IN: u32 = 7;
    pub(crate) const CATEGORIES: u32 = 8;
    pub(crate) const CATEGORY_MEMBERS: u32 = 9;
    pub(crate) const REDIRECTS_TO: u32 = 10;
    pub const TEXT: u32 = 11;
    pub(crate) const SOURCES: u32 = 12;
    pub(crate) const SOURCES_MAP: u32 = 13;
    pub(crate) const DUMP_OFFSETS: u32 = 14;
    /// A build's temporary store of redirect targets (never part of an index).
    pub(crate) const TEMP_REDIRECT_TARGETS: u32 = 0x7fff_0001;
    /// A build's temporary store of the pages outside the source namespaces.
    pub(crate) const TEMP_ARTICLES: u32 = 0x7fff_0002;
    /// A shard's page records (`build --shard`; never part of an index).
    pub(crate) const SHARD_PAGES: u32 = 0x7ffe_0001;
}

/// Errors opening, reading or writing an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is not a wikiwit index (no manifest.json); build one with `wikiwit build DUMP`"
    )]
    NotAnIndex { path: PathBuf },
    #[error(
        "{path} is shard {shard} of a build (`build --shard`), not an index: join all the shards with `wikiwit merge SHARD… --index DIR` and query that"
    )]
    Shard { path: PathBuf, shard: String },
    #[error(
        "{path} holds the first pass of a build (`build --sources-only`: templates, modules and messages), not an index: give it to `build --shard K/N --sources DIR`"
    )]
    SourcesDir { path: PathBuf },
    #[error(
        "{path} has index format version {found}, but this wikiwit reads version {expected}; rebuild it with `wikiwit build`"
    )]
    Version {
        path: PathBuf,
        expected: u32,
        found: u32,
    },
    #[error("{path}: corrupt index data: {comment}")]
    DataCorruption { path: PathBuf, comment: String },
    #[error("cannot encode the {what}: {message}")]
    Encode { what: &'static str, message: String },
    #[error("cannot build into {path}: {reason}")]
    BadTarget { path: PathBuf, reason: String },
    #[error("another wikiwit build is writing {path}")]
    Busy { path: PathBuf },
    #[error("no index found: {hint}")]
    NoIndex { hint: String },
    #[error(
        "{path} was built with --no-text: it has no plain text or full-text index; rebuild without --no-text"
    )]
    NoText { path: PathBuf },
    #[error(
        "{path} was built with --pages-only: it answers `info`, `resolve`, `export pages|redirects` and `page --wikitext` only (no structure, links or text); rebuild without --pages-only"
    )]
    PagesOnly { path: PathBuf },
    #[error(
        "{path} was built with --no-expand (or --pages-only): it holds no templates to expand with; rebuild without --no-expand"
    )]
    NotExpanded { path: PathBuf },
    /// The full-text index failed, or one of its files failed its check.
    #[error(transparent)]
    Text(#[from] crate::text::search::SearchError),
}

impl IndexError {
    pub fn io(path: &Path, source: std::io::Error) -> IndexError {
        IndexError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// An opened index.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    codec: TitleCodec,
    pages: Store<PageRecord>,
    titles: TitleMap,
    /// Structure and link graph (absent for `--pages-only` builds).
    parsed: Option<Parsed>,
    /// Plain text per page (absent for `--no-text` builds).
    text: Option<Store<StoredText>>,
    /// Page numbers by page id and revision id, built on first use.
    ids: std::sync::OnceLock<page_for::IdMaps>,
    /// `dump-offsets.bin`, read at the first page whose wikitext is asked for.
    offsets: std::sync::OnceLock<Option<DumpOffsets>>,
    /// The full-text searcher, opened on first use.
    searcher: std::sync::OnceLock<
        Result<crate::text::search::TextSearcher, crate::text::search::SearchError>,
    >,
}

/// The stores a build writes from parsed wikitext: everything but pages and titles.
struct Parsed {
    structure: Store<StoredStructure>,
    links_out: Csr,
    links_in: Csr,
    red_titles: TitleMap,
    red_in: Csr,
    categories: TitleMap,
    category_members: Csr,
    redirects_to: Csr,
}

impl Parsed {
    fn open(dir: &Path, pages: usize) -> Result<Parsed, IndexError> {
        let csr = |name: &str, kind: u32| Csr::open(&dir.join(name), kind);
        let p = Parsed {
            structure: Store::open(&dir.join(files::STRUCTURE), kinds::STRUCTURE)?,
            links_out: csr(files::LINKS_OUT, kinds::LINKS_OUT)?,
            links_in: csr(files::LINKS_IN, kinds::LINKS_IN)?,
            red_titles: TitleMap::open_kind(&dir.join(files::RED_TITLES), kinds::RED_TITLES)?,
            red_in: csr(files::RED_IN, kinds::RED_IN)?,
            categories: TitleMap::open_kind(&dir.join(files::CATEGORIES), kinds::CATEGORIES)?,
            category_members: csr(files::CATEGORY_MEMBERS, kinds::CATEGORY_MEMBERS)?,
            redirects_to: csr(files::REDIRECTS_TO, kinds::REDIRECTS_TO)?,
        };
        for (name, n) in [
            (files::STRUCTURE, p.structure.len()),
            (files::LINKS_OUT, p.links_out.rows()),
            (files::LINKS_IN, p.links_in.rows()),
            (files::REDIRECTS_TO, p.redirects_to.rows()),
        ] {
            if n != pages {
                return Err(IndexError::DataCorruption {
                    path: dir.join(name),
                    comment: format!("{n} rows for {pages} pages"),
                });
            }
        }
        Ok(p)
    }

    fn verify(&self) -> Result<(), IndexError> {
        self.structure.verify()?;
        for c in [
            &self.links_out,
            &self.links_in,
            &self.red_in,
            &self.category_members,
            &self.redirects_to,
        ] {
            c.verify()?;
        }
        self.red_titles.verify()?;
        self.categories.verify()
    }
}

/// How a title looked up in the index resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// The text is not a valid title.
    Invalid(crate::title::InvalidTitle),
    /// A valid title that points to another wiki.
    Interwiki(Title),
    /// A valid local title without a page.
    Missing(Title),
    /// A page (possibly a redirect — see its record).
    Page(Title, u32),
}

impl Index {
    /// Opens the index in `dir`, checking the format version first.
    pub fn open(dir: &Path) -> Result<Index, IndexError> {
        let manifest = Manifest::read(dir)?;
        let profile: InterwikiProfile =
            manifest
                .build
                .interwiki
                .parse()
                .map_err(|e: String| IndexError::DataCorruption {
                    path: dir.join(manifest::FILE),
                    comment: e,
                })?;
        let codec = TitleCodec::new(&manifest.site, profile);
        let pages = Store::open(&dir.join(files::PAGES), kinds::PAGES)?;
        let titles = TitleMap::open(&dir.join(files::TITLES))?;
        let parsed = if manifest.build.pages_only {
            None
        } else {
            Some(Parsed::open(dir, pages.len())?)
        };
        let text = if manifest.build.text {
            Some(Store::open(&dir.join(files::TEXT), kinds::TEXT)?)
        } else {
            None
        };
        if pages.len() as u64 != manifest.counts.pages {
            return Err(IndexError::DataCorruption {
                path: dir.join(files::PAGES),
                comment: format!(
                    "{} pages, but the manifest says {}",
                    pages.len(),
                    manifest.counts.pages
                ),
            });
        }
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            codec,
            pages,
            titles,
            parsed,
            text,
            ids: std::sync::OnceLock::new(),
            offsets: std::sync::OnceLock::new(),
            searcher: std::sync::OnceLock::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    pub fn codec(&self) -> &TitleCodec {
        &self.codec
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The record of page number `n` (dump order).
    pub fn page(&self, n: u32) -> Result<PageRecord, IndexError> {
        self.pages.get(n as usize)
    }

    /// Every page's record in dump order, each block of the store decoded once: for
    /// walks over the whole index.
    pub fn pages(&self) -> Records<'_, PageRecord> {
        self.pages.iter()
    }

    /// Whether page number `n` (with record `rec`) lost its title to another page of
    /// the dump with a newer revision (the build's duplicate-title choice): it stays in
    /// the stores at its dump position, but no title leads to it and walks skip it.
    pub(crate) fn is_shadowed(&self, n: u32, rec: &PageRecord) -> bool {
        self.manifest.counts.duplicate_titles > 0 && self.find(rec.ns, &rec.dbkey) != Some(n)
    }

    /// `pages` without the shadowed ones (see [`Index::is_shadowed`]): the adjacency
    /// files hold every page of the dump, a shadowed one too (its links and categories
    /// were recorded as it passed), but for MediaWiki it does not exist. A page whose
    /// record does not read stays, for the caller reading it to report.
    fn without_shadowed(&self, mut pages: Vec<u32>) -> Vec<u32> {
        if self.manifest.counts.duplicate_titles > 0 {
            pages.retain(|&n| self.page(n).map_or(true, |rec| !self.is_shadowed(n, &rec)));
        }
        pages
    }

    /// The page number of (namespace, DB key), if the page exists.
    pub fn find(&self, ns: i32, dbkey: &str) -> Option<u32> {
        self.titles.get(ns, dbkey).map(|v| v as u32)
    }

    /// Parses `text` as a title (as a link target would be) and looks it up.
    pub(crate) fn lookup(&self, text: &str) -> Lookup {
        match self.codec.parse_link_target(text, crate::title::NS_MAIN) {
            Err(e) => Lookup::Invalid(e),
            Ok(t) if t.interwiki.is_some() => Lookup::Interwiki(t),
            Ok(t) => match self.find(t.ns, &t.dbkey) {
                Some(n) => Lookup::Page(t, n),
                None => Lookup::Missing(t),
            },
        }
    }

    /// Pages of namespace `ns` in title order, from DB key `from` on (inclusive), whose
    /// DB key starts with `prefix`: at most `limit` (DB key, page number) pairs.
    pub(crate) fn titles_from(
        &self,
        ns: i32,
        from: &str,
        prefix: &str,
        limit: usize,
    ) -> Vec<(String, u32)> {
        let start = titles::key(ns, from);
        let prefix = titles::key(ns, prefix);
        self.titles
            .range_from(&start, &prefix, limit)
            .into_iter()
            .map(|(k, v)| (String::from_utf8_lossy(&k[4..]).into_owned(), v as u32))
            .collect()
    }

    /// Prefixed text (`Category:Rivers of Europe`) of page number `n`'s record.
    pub fn display_title(&self, rec: &PageRecord) -> String {
        self.codec.prefixed_text(rec.ns, &rec.dbkey)
    }

    /// The template sources the build stored (`sources.rec`); an index built without
    /// expansion has none.
    pub fn sources(&self) -> Result<sources::Sources, IndexError> {
        if !self.manifest.build.expand {
            return Err(IndexError::NotExpanded {
                path: self.dir.clone(),
            });
        }
        sources::Sources::open(&self.dir)
    }

    /// The structure of page number `n` (links, sections, tables, …), with section
    /// anchors finalized against this wiki's titles.
    pub fn structure(&self, n: u32) -> Result<PageStructure, IndexError> {
        let stored = self.parsed()?.structure.get(n as usize)?;
        Ok(self.finalized(self.decoded(n as usize, stored)?))
    }

    /// Every page's structure in dump order, as [`Index::structure`] gives it, each
    /// block of the store decoded once: for walks over the whole index.
    pub fn structures(
        &self,
    ) -> Result<impl ExactSizeIterator<Item = Result<PageStructure, IndexError>> + '_, IndexError>
    {
        Ok(self
            .parsed()?
            .structure
            .iter()
            .enumerate()
            .map(|(n, s)| Ok(self.finalized(self.decoded(n, s?)?))))
    }

    /// A record of `structure.rec` as the page's structure.
    fn decoded(&self, n: usize, stored: StoredStructure) -> Result<PageStructure, IndexError> {
        stored.decode().map_err(|e| IndexError::DataCorruption {
            path: self.dir.join(files::STRUCTURE),
            comment: format!("record {n}: {e}"),
        })
    }

    /// Finalizes the anchors of headings that call templates against this wiki's titles.
    fn finalized(&self, mut s: PageStructure) -> PageStructure {
        if s.sections.iter().any(|x| !x.heading_templates.is_empty()) {
            crate::wikitext::finalize_anchors(&mut s.sections, &|ns, k| self.find(ns, k).is_some());
        }
        s
    }

    /// Whether the index was built with `--pages-only` (pages and titles, nothing parsed).
    pub fn pages_only(&self) -> bool {
        self.parsed.is_none()
    }

    /// The parsed stores, or the error a pages-only index gives for everything that
    /// needs them. Commands beyond `info`/`resolve`/`export` check this when opening, so
    /// the graph accessors below (empty on a pages-only index) are never silently empty
    /// for them.
    pub fn require_parsed(&self) -> Result<(), IndexError> {
        self.parsed().map(|_| ())
    }

    fn parsed(&self) -> Result<&Parsed, IndexError> {
        self.parsed.as_ref().ok_or_else(|| IndexError::PagesOnly {
            path: self.dir.clone(),
        })
    }

    /// Row `n` of one of the adjacency files (empty on a `--pages-only` index, see
    /// [`Index::require_parsed`]), or the damage found in the bytes it is read from.
    fn adjacency(&self, file: fn(&Parsed) -> &Csr, n: u32) -> Result<Vec<u32>, IndexError> {
        self.parsed
            .as_ref()
            .map_or(Ok(Vec::new()), |p| file(p).try_row(n as usize))
    }

    /// Pages page `n` links to (direct targets; a redirect page counts as itself).
    pub fn outlinks(&self, n: u32) -> Result<Vec<u32>, IndexError> {
        self.adjacency(|p| &p.links_out, n)
    }

    /// Pages linking to page `n` directly.
    pub fn inlinks(&self, n: u32) -> Result<Vec<u32>, IndexError> {
        Ok(self.without_shadowed(self.adjacency(|p| &p.links_in, n)?))
    }

    /// Redirect pages whose chain ends on page `n`.
    pub(crate) fn redirects_to(&self, n: u32) -> Result<Vec<u32>, IndexError> {
        Ok(self.without_shadowed(self.adjacency(|p| &p.redirects_to, n)?))
    }

    /// Pages linking to page `n` directly or through one of its redirects.
    pub(crate) fn inlinks_with_redirects(&self, n: u32) -> Result<Vec<u32>, IndexError> {
        let mut all = self.inlinks(n)?;
        for r in self.redirects_to(n)? {
            all.extend(self.inlinks(r)?);
        }
        all.sort_unstable();
        all.dedup();
        Ok(all)
    }

    /// Pages linking to a title that has no page.
    pub(crate) fn red_inlinks(&self, ns: i32, dbkey: &str) -> Result<Vec<u32>, IndexError> {
        let Some(p) = &self.parsed else {
            return Ok(Vec::new());
        };
        match p.red_titles.get(ns, dbkey) {
            Some(r) => Ok(self.without_shadowed(p.red_in.try_row(r as usize)?)),
            None => Ok(Vec::new()),
        }
    }

    /// Members of the category `dbkey` (no namespace prefix); `None` if no page is in it.
    pub(crate) fn category_members(&self, dbkey: &str) -> Result<Option<Vec<u32>>, IndexError> {
        let Some(p) = &self.parsed else {
            return Ok(None);
        };
        let Some(c) = p.categories.get_raw(dbkey.as_bytes()) else {
            return Ok(None);
        };
        let members = self.without_shadowed(p.category_members.try_row(c as usize)?);
        Ok((!members.is_empty()).then_some(members))
    }

    /// The plain text of page number `n` (`None` if the index was built with
    /// `--no-text`).
    pub fn page_text(&self, n: u32) -> Result<Option<crate::text::PageText>, IndexError> {
        // A pages-only index says so, rather than passing for a `--no-text` one.
        let parsed = self.parsed()?;
        let Some(t) = &self.text else {
            return Ok(None);
        };
        let stored = t.get(n as usize)?;
        let structure = match stored.needs_structure() {
            true => Some(self.decoded(n as usize, parsed.structure.get(n as usize)?)?),
            false => None,
        };
        self.unstored(n, &stored, structure.as_ref()).map(Some)
    }

    /// Every page's plain text in dump order, each block of the stores decoded once
    /// (`None` if the index was built with `--no-text`).
    pub(crate) fn page_texts(
        &self,
    ) -> Result<
        Option<impl Iterator<Item = Result<crate::text::PageText, IndexError>> + '_>,
        IndexError,
    > {
        let parsed = self.parsed()?;
        let Some(t) = &self.text else {
            return Ok(None);
        };
        Ok(Some(t.iter().zip(parsed.structure.iter()).enumerate().map(
            |(n, (stored, structure))| {
                let structure = self.decoded(n, structure?)?;
                self.unstored(n as u32, &stored?, Some(&structure))
            },
        )))
    }

    /// A stored text made whole again with its page's structure.
    fn unstored(
        &self,
        n: u32,
        stored: &StoredText,
        structure: Option<&PageStructure>,
    ) -> Result<crate::text::PageText, IndexError> {
        stored
            .decode(structure)
            .map_err(|e| IndexError::DataCorruption {
                path: self.dir.join(files::TEXT),
                comment: format!("record {n}: {e}"),
            })
    }

    /// The full-text searcher, or why there is none.
    pub fn searcher(&self) -> Result<&crate::text::search::TextSearcher, IndexError> {
        self.parsed()?;
        if self.text.is_none() {
            return Err(IndexError::NoText {
                path: self.dir.clone(),
            });
        }
        match self
            .searcher
            .get_or_init(|| crate::text::search::TextSearcher::open(&self.dir))
        {
            Ok(s) => Ok(s),
            Err(e) => Err(IndexError::Text(e.clone())),
        }
    }

    /// What each template and module cost the build's expansion (`costs.json`, checked
    /// against its checksum); `None` when the build expanded nothing.
    pub fn costs(&self) -> Result<Option<costs::Costs>, IndexError> {
        let m = &self.manifest;
        if !m.files.contains_key(files::COSTS) {
            return Ok(None);
        }
        let expected = m.checksums.get(files::COSTS).map(String::as_str);
        costs::Costs::read(&self.dir, expected).map(Some)
    }

    /// Recomputes the checksum of every file.
    pub fn verify(&self) -> Result<(), IndexError> {
        self.manifest.verify_files(&self.dir)?;
        self.pages.verify()?;
        self.titles.verify()?;
        if let Some(p) = &self.parsed {
            p.verify()?;
        }
        if let Some(t) = &self.text {
            t.verify()?;
        }
        if self.manifest.build.expand {
            self.sources()?.verify()?;
        }
        self.dump_offsets()?;
        Ok(())
    }

    /// Where pages start in the dump the index was built from, read and checked in
    /// full (`None`: the build could not record them; see `index::dump_offsets`).
    /// Read once per opened index: a server asks for many pages' wikitext.
    pub fn dump_offsets(&self) -> Result<Option<&DumpOffsets>, IndexError> {
        if let Some(o) = self.offsets.get() {
            return Ok(o.as_ref());
        }
        let o = DumpOffsets::open(&self.dir)?;
        Ok(self.offsets.get_or_init(|| o).as_ref())
    }
}

/// A non-fatal finding about one page, kept in the index (`warnings.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Warning {
    pub page_id: u64,
    pub title: String,
    pub kind: String,
    pub message: String,
}

/// Writes `warnings.jsonl` as the build finds warnings (one JSON object per line, in
/// page order), so none are held until the end.
pub(crate) struct WarningsWriter {
    path: PathBuf,
    out: std::io::BufWriter<std::fs::File>,
    count: u64,
    bytes: u64,
}

impl WarningsWriter {
    pub fn create(path: &Path) -> Result<WarningsWriter, IndexError> {
        let file = std::fs::File::create(path).map_err(|e| IndexError::io(path, e))?;
        Ok(WarningsWriter {
            path: path.to_path_buf(),
            out: std::io::BufWriter::new(file),
            count: 0,
            bytes: 0,
        })
    }

    pub fn push(&mut self, w: &Warning) -> Result<(), IndexError> {
        let mut line = serde_json::to_vec(w).map_err(|e| IndexError::Encode {
            what: "warning",
            message: e.to_string(),
        })?;
        line.push(b'\n');
        std::io::Write::write_all(&mut self.out, &line)
            .map_err(|e| IndexError::io(&self.path, e))?;
        self.count += 1;
        self.bytes += line.len() as u64;
        Ok(())
    }

    /// Flushes and syncs the file: (warnings written, file size).
    pub fn finish(self) -> Result<(u64, u64), IndexError> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| IndexError::io(&self.path, e.into_error()))?;
        file.sync_all().map_err(|e| IndexError::io(&self.path, e))?;
        Ok((self.count, self.bytes))
    }
}

/// Where queries look when no index directory is named: the only index under
/// `./index/`. (Naming one, by option or environment, is the caller's policy.)
pub fn default_dir() -> Result<PathBuf, IndexError> {
    let root = Path::new("index");
    let mut found = Vec::new();
    if let Ok(entries) = std::fs::read_dir(root) {
        for e in entries.flatten() {
            let p = e.path();
            if p.join(manifest::FILE).exists() {
                found.push(p);
            }
        }
    }
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(IndexError::NoIndex {
            hint:
                "no index under ./index/; build one with `wikiwit build DUMP` or pass --index DIR"
                    .into(),
        }),
        _ => Err(IndexError::NoIndex {
            hint: format!(
                "several indexes under ./index/ ({}); choose one with --index DIR",
                found
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
    }
}

/// The title codec and the (namespace, title, wikitext) of every page of `name`, a dump
/// in `tests/data/shared/data`: the records' tests run on real pages.
#[cfg(test)]
pub(crate) fn real_pages(name: &str) -> (crate::title::TitleCodec, Vec<(i32, String, String)>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shared/data")
        .join(name);
    let dump = crate::dump::Dump::open(&path, None).unwrap();
    let codec =
        crate::title::TitleCodec::new(dump.siteinfo(), crate::title::InterwikiProfile::Mediawiki);
    let mut pages = Vec::new();
    let never = std::sync::atomic::AtomicBool::new(false);
    dump.pages(
        |raw, _| Ok((raw.ns, raw.title, raw.text.into_owned())),
        |p| {
            pages.push(p);
            Ok(())
        },
        |_| {},
        &never,
    )
    .unwrap();
    (codec, pages)
}
