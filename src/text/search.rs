//! The full-text index: one tantivy document per section (title, redirect titles,
//! heading, text), BM25 over the whole wiki, one page, or one section.
//!
//! Tantivy assigns segment names at random and its two indexing threads split documents
//! between segments as they come, so this directory is the one part of an index that is
//! not byte-identical between builds. Results are deterministic nonetheless: BM25
//! statistics (document frequencies, average field lengths) are taken over the whole
//! index, not per segment, so a document's score does not depend on its segment, and
//! hits are ordered on (score, page, section).

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::tokenizer::TokenStream;
use tantivy::{
    DocAddress, DocId, Index, IndexReader, IndexWriter, ReloadPolicy, Score, SegmentReader,
    TantivyDocument, Term,
};

use super::PageText;

/// Directory of the text index inside an index directory.
pub const DIR: &str = "text";

/// Errors of the text index.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SearchError {
    /// Tantivy's, with the operation that failed.
    #[error("text index: {what}: {source}")]
    Tantivy {
        what: &'static str,
        #[source]
        source: tantivy::TantivyError,
    },
    /// A file of the text index failed its check (`super::checked`).
    #[error("{}: corrupt index data: {comment}", path.display())]
    Damaged {
        path: std::path::PathBuf,
        comment: String,
    },
    /// The merge could not join a shard's index (`join.rs`): where, and why.
    #[error("{}: {message}", path.display())]
    Join {
        path: std::path::PathBuf,
        message: String,
    },
}

pub(super) fn err(what: &'static str) -> impl FnOnce(tantivy::TantivyError) -> SearchError {
    move |source| SearchError::Tantivy { what, source }
}

impl From<super::checked::Damage> for SearchError {
    fn from(d: super::checked::Damage) -> SearchError {
        SearchError::Damaged {
            path: d.path,
            comment: d.comment,
        }
    }
}

impl SearchError {
    /// This error, or the damage behind it when a chunk check failed: tantivy reports a
    /// failed read as an opaque I/O error several layers up.
    pub(super) fn or_damage(self, damage: &super::checked::DamageLog) -> SearchError {
        match (self, damage.first()) {
            (SearchError::Tantivy { .. }, Some(d)) => d.into(),
            (other, _) => other,
        }
    }
}

/// The schema's fields.
#[derive(Clone, Copy)]
pub(super) struct Fields {
    page: Field,
    section: Field,
    title: Field,
    heading: Field,
    body: Field,
}

/// The analyzer: tantivy's `default` analysis (split on non-alphanumeric characters,
/// lower-case, drop tokens of 40 bytes or more), done in one pass by
/// [`super::tokenizer::WordTokenizer`]. No stemming: it is language-neutral (the index
/// serves every wiki language alike) and evidence matching is exact about word forms;
/// the citation scorer does its own, documented normalization on the candidates search
/// returns.
const TOKENIZER: &str = super::tokenizer::NAME;

/// Registers the analyzer with `index`, which the indexing threads look it up in.
fn register_tokenizer(index: &Index) {
    index
        .tokenizers()
        .register(TOKENIZER, super::tokenizer::WordTokenizer::default());
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let options = |record| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(record),
        )
    };
    // Page and section numbers are columnar (fast) fields only: nothing goes to the
    // document store, and they are not inverted either — a restriction to one page is a
    // range over the column, and inverting them would add a term per page to the term
    // dictionary that every build sorts and writes.
    let page = b.add_u64_field("page", FAST);
    let section = b.add_u64_field("section", FAST);
    let title = b.add_text_field("title", options(IndexRecordOption::Basic));
    let heading = b.add_text_field("heading", options(IndexRecordOption::Basic));
    let body = b.add_text_field("body", options(IndexRecordOption::WithFreqs));
    (
        b.build(),
        Fields {
            page,
            section,
            title,
            heading,
            body,
        },
    )
}

/// An empty text index in `dir/text` (returned too), with the schema and settings every
/// build uses: the merge of shards creates its index here, so that the segments it joins
/// fit it.
pub(super) fn create_index(dir: &Path) -> Result<(Index, Fields, std::path::PathBuf), SearchError> {
    let path = dir.join(DIR);
    std::fs::create_dir_all(&path).map_err(|e| SearchError::Tantivy {
        what: "creating the directory",
        source: tantivy::TantivyError::from(
            tantivy::directory::error::OpenDirectoryError::wrap_io_error(e, path.clone()),
        ),
    })?;
    let (schema, fields) = schema();
    let settings = tantivy::IndexSettings {
        // Nothing is stored, but tantivy writes an (empty) stored document per
        // document: compressed, that file shrinks from 1 MB to a few KB on the
        // OTT-QA dump.
        docstore_compression: tantivy::store::Compressor::Lz4,
        ..Default::default()
    };
    let index = Index::builder()
        .schema(schema)
        .settings(settings)
        .create_in_dir(&path)
        .map_err(err("creating"))?;
    Ok((index, fields, path))
}

/// Builds the text index while pages stream in.
pub(crate) struct TextIndexWriter {
    writer: IndexWriter,
    fields: Fields,
    /// The tantivy directory, where [`TextIndexWriter::finish`] writes the chunk table.
    path: std::path::PathBuf,
}

/// Makes a page's documents; cheap to copy to worker threads, so that documents are
/// assembled in parallel and only handed to the writer in order.
#[derive(Clone, Copy)]
pub(crate) struct DocMaker {
    fields: Fields,
}

impl DocMaker {
    /// One document per section; a redirect page (`text` = `None`) is one document with
    /// only its title, which search maps to the redirect's target.
    pub fn docs(
        &self,
        title: &str,
        headings: &[String],
        text: Option<&PageText>,
    ) -> Vec<TantivyDocument> {
        let f = self.fields;
        let Some(text) = text else {
            let mut doc = TantivyDocument::default();
            doc.add_u64(f.section, 0);
            doc.add_text(f.title, title);
            return vec![doc];
        };
        let mut out = Vec::with_capacity(text.sections.len());
        for (s, sec) in text.sections.iter().enumerate() {
            let heading = if s == 0 {
                ""
            } else {
                headings.get(s - 1).map(String::as_str).unwrap_or("")
            };
            if sec.sentences.is_empty() && heading.is_empty() && s > 0 {
                continue;
            }
            let mut doc = TantivyDocument::default();
            doc.add_u64(f.section, s as u64);
            doc.add_text(f.title, title);
            doc.add_text(f.heading, heading);
            // One value per sentence rather than the joined section: the same terms
            // and field length (positions are not indexed), without a copy of the text.
            for sentence in &sec.sentences {
                doc.add_text(f.body, &sentence.text);
            }
            out.push(doc);
        }
        out
    }
}

impl TextIndexWriter {
    /// Creates the index in `dir/text`.
    pub fn create(dir: &Path, memory_mb: usize) -> Result<TextIndexWriter, SearchError> {
        let (index, fields, path) = create_index(dir)?;
        register_tokenizer(&index);
        let writer: IndexWriter = index
            .writer_with_num_threads(2, memory_mb.max(40) << 20)
            .map_err(err("opening the writer"))?;
        // Segments are flushed only when a thread's memory budget is full, so a wiki gives
        // few segments; merging them would cost more build time than it saves in queries.
        // (One thread would write each term's dictionary entry once instead of twice —
        // 1.6 MB less on the OTT-QA dump — but became the build's critical path: 17 s
        // of wall time instead of 13 for the same CPU time.)
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        Ok(TextIndexWriter {
            writer,
            fields,
            path,
        })
    }

    pub(crate) fn doc_maker(&self) -> DocMaker {
        DocMaker {
            fields: self.fields,
        }
    }

    /// Adds page number `page`'s documents (made by [`DocMaker::docs`]), in page order.
    pub(crate) fn add_docs(
        &self,
        page: u32,
        docs: Vec<TantivyDocument>,
    ) -> Result<(), SearchError> {
        for mut doc in docs {
            doc.add_u64(self.fields.page, page.into());
            self.writer
                .add_document(doc)
                .map_err(err("adding a document"))?;
        }
        Ok(())
    }

    /// Commits, waits for merges, and writes the chunk table readers check reads
    /// against ([`super::checked`]); the index is complete when this returns.
    /// Returns the CRC-32 of each file, by path relative to the index (`text/NAME`).
    pub fn finish(mut self) -> Result<BTreeMap<String, u32>, SearchError> {
        self.writer.commit().map_err(err("committing"))?;
        self.writer.wait_merging_threads().map_err(err("merging"))?;
        let crcs = super::checked::write(&self.path).map_err(|e| SearchError::Tantivy {
            what: "writing the chunk table",
            source: tantivy::TantivyError::from(e),
        })?;
        Ok(crcs
            .into_iter()
            .map(|(name, crc)| (format!("{DIR}/{name}"), crc))
            .collect())
    }
}

/// A segment's page and section columns: what a hit is reported as and ties are broken by.
pub(super) fn key_columns(
    seg: &SegmentReader,
) -> Result<
    (
        tantivy::columnar::Column<u64>,
        tantivy::columnar::Column<u64>,
    ),
    SearchError,
> {
    let column = |name: &str| {
        seg.fast_fields()
            .u64(name)
            .map_err(err("reading a fast field"))
    };
    Ok((column("page")?, column("section")?))
}

/// One search hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub page: u32,
    pub section: u32,
    pub score: f32,
}

/// Reads the text index.
pub struct TextSearcher {
    reader: IndexReader,
    fields: Fields,
    /// Where reads of damaged files are recorded, to name them in errors.
    damage: super::checked::DamageLog,
}

impl TextSearcher {
    /// Opens the text index of the index in `dir`, its files checked as they are read.
    pub fn open(dir: &Path) -> Result<TextSearcher, SearchError> {
        // Queries are analysed by `terms`, not by the index's tokenizer manager, so
        // nothing needs registering here.
        let directory = super::checked::CheckedDirectory::open(&dir.join(DIR))?;
        let damage = directory.damage();
        let open = || {
            let index = Index::open(directory).map_err(err("opening"))?;
            index
                .reader_builder()
                .reload_policy(ReloadPolicy::Manual)
                .try_into()
                .map_err(err("opening a reader"))
        };
        let reader = open().map_err(|e| e.or_damage(&damage))?;
        let (_, fields) = schema();
        Ok(TextSearcher {
            reader,
            fields,
            damage,
        })
    }

    /// The query for `text`: each of its words, as the index analyses them, looked up in
    /// the title (boost 3), the heading (1.5) and the text; a section matching any word
    /// is a hit. Punctuation is never query syntax: a sentence or a claim pasted as a
    /// query (`[citation needed]`, `Year: 2013`, `Teach-In`) means its words, as it
    /// does for the checkers' own term lookups.
    fn words_query(&self, text: &str) -> BooleanQuery {
        let f = self.fields;
        let fields = [
            (f.title, 3.0, IndexRecordOption::Basic),
            (f.heading, 1.5, IndexRecordOption::Basic),
            (f.body, 1.0, IndexRecordOption::WithFreqs),
        ];
        let words = self.terms(text).into_iter().map(|word| {
            let per_field = fields
                .iter()
                .map(|&(field, boost, record)| {
                    let term =
                        Box::new(TermQuery::new(Term::from_field_text(field, &word), record));
                    let q: Box<dyn Query> = if boost == 1.0 {
                        term
                    } else {
                        Box::new(BoostQuery::new(term, boost))
                    };
                    (Occur::Should, q)
                })
                .collect();
            let q: Box<dyn Query> = Box::new(BooleanQuery::new(per_field));
            (Occur::Should, q)
        });
        BooleanQuery::new(words.collect())
    }

    /// BM25 search; `page`/`section` restrict to one page or one section of it. Hits
    /// are ordered by score, then page and section number (deterministic ties).
    pub fn search(
        &self,
        query: &str,
        page: Option<u32>,
        section: Option<u32>,
        limit: usize,
    ) -> Result<Vec<Hit>, SearchError> {
        self.ranked(query, page, section, limit)
            .map_err(|e| e.or_damage(&self.damage))
    }

    fn ranked(
        &self,
        query: &str,
        page: Option<u32>,
        section: Option<u32>,
        limit: usize,
    ) -> Result<Vec<Hit>, SearchError> {
        let f = self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(self.words_query(query)))];
        let equal = |field: Field, value: u32| -> (Occur, Box<dyn Query>) {
            let term = Term::from_field_u64(field, value.into());
            let range = RangeQuery::new(Bound::Included(term.clone()), Bound::Included(term));
            (Occur::Must, Box::new(range))
        };
        if let Some(p) = page {
            clauses.push(equal(f.page, p));
        }
        if let Some(s) = section {
            clauses.push(equal(f.section, s));
        }
        let q = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        // Tantivy breaks ties by document address, which depends on how its indexing
        // threads cut segments. The top hits by score alone (pruned, fast) are exact
        // unless a tie at the cut runs past the window; then the search is repeated
        // with the page and section numbers in the sort key.
        let window = limit.saturating_mul(2) + 16;
        let top: Vec<(f32, DocAddress)> = searcher
            .search(&q, &TopDocs::with_limit(window).order_by_score())
            .map_err(err("searching"))?;
        let mut hits = Vec::with_capacity(top.len());
        let tie_at_cut = top.len() == window
            && limit > 0
            && top.get(limit - 1).map(|h| h.0) == top.last().map(|h| h.0);
        if tie_at_cut {
            // The sort key below cannot report errors: the columns are checked first.
            for seg in searcher.segment_readers() {
                key_columns(seg)?;
            }
            let by_key = TopDocs::with_limit(limit).tweak_score(|seg: &SegmentReader| {
                let columns = key_columns(seg)
                    .ok()
                    .map(|(p, s)| (p.first_or_default_col(0), s.first_or_default_col(0)));
                move |doc: DocId, score: Score| {
                    let key = match &columns {
                        Some((p, s)) => (p.get_val(doc) << 32) | s.get_val(doc),
                        None => 0, // checked above
                    };
                    // Larger is better: the score, then the smaller (page, section).
                    (score, u64::MAX - key)
                }
            });
            for ((score, key), _) in searcher.search(&q, &by_key).map_err(err("searching"))? {
                let key = u64::MAX - key;
                hits.push(Hit {
                    page: (key >> 32) as u32,
                    section: key as u32,
                    score,
                });
            }
            return Ok(hits);
        }
        for (score, addr) in top {
            let (pages, sections) = key_columns(searcher.segment_reader(addr.segment_ord))?;
            hits.push(Hit {
                page: pages.first(addr.doc_id).unwrap_or(0) as u32,
                section: sections.first(addr.doc_id).unwrap_or(0) as u32,
                score,
            });
        }
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.page.cmp(&b.page))
                .then(a.section.cmp(&b.section))
        });
        hits.truncate(limit);
        Ok(hits)
    }

    /// Terms of `text` as the body field indexes them (split and lower-cased).
    ///
    /// The analyzer is built here rather than fetched from the index's tokenizer manager
    /// (a lock and a boxed clone per call): evidence ranking calls this once per
    /// candidate sentence.
    pub(crate) fn terms(&self, text: &str) -> Vec<String> {
        let mut tokenizer = super::tokenizer::WordTokenizer::default();
        let mut stream = tantivy::tokenizer::Tokenizer::token_stream(&mut tokenizer, text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    /// Number of sections containing `term` (an analysed term), and of all sections.
    pub(crate) fn doc_freq(&self, term: &str) -> Result<(u64, u64), SearchError> {
        let searcher = self.reader.searcher();
        let t = Term::from_field_text(self.fields.body, term);
        let df = searcher
            .doc_freq(&t)
            .map_err(|e| err("reading a term")(e).or_damage(&self.damage))?;
        Ok((df, searcher.num_docs()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{SectionText, Sentence, SentenceKind};

    fn page_text(sentence: &str) -> PageText {
        PageText {
            sections: vec![SectionText {
                sentences: vec![Sentence {
                    text: sentence.into(),
                    kind: SentenceKind::Prose,
                    start: 0,
                    end: sentence.len() as u32,
                }],
            }],
        }
    }

    /// Forty pages say the same thing, so they tie on every query. Added last page first,
    /// they sit in tantivy's segments in the reverse of page order, and a window of the
    /// first documents by address would hold the wrong pages. Hits must still be the
    /// smallest page numbers, in order.
    #[test]
    fn ties_beyond_the_window_go_to_the_smallest_pages() {
        let dir = tempfile::tempdir().unwrap();
        let writer = TextIndexWriter::create(dir.path(), 40).unwrap();
        let maker = writer.doc_maker();
        let same = page_text("The Iron Gates gorge lies on the Danube.");
        for page in (0..40u32).rev() {
            let docs = maker.docs(&format!("Gorge {page}"), &[], Some(&same));
            writer.add_docs(page, docs).unwrap();
        }
        writer.finish().unwrap();
        let searcher = TextSearcher::open(dir.path()).unwrap();
        for limit in [1, 3, 10] {
            let hits = searcher.search("iron gates", None, None, limit).unwrap();
            let pages: Vec<u32> = hits.iter().map(|h| h.page).collect();
            assert_eq!(
                pages,
                (0..limit as u32).collect::<Vec<_>>(),
                "limit {limit}"
            );
        }
        // Within one page, and with the title's distinct word deciding.
        let hits = searcher.search("gorge 17 danube", None, None, 2).unwrap();
        assert_eq!(hits[0].page, 17);
        let hits = searcher.search("danube", Some(33), Some(0), 5).unwrap();
        assert_eq!(hits.iter().map(|h| h.page).collect::<Vec<_>>(), [33]);
    }

    /// Punctuation in a query is not syntax: brackets, colons, quotes and dashes from a
    /// pasted sentence leave its words.
    #[test]
    fn punctuation_is_not_query_syntax() {
        let dir = tempfile::tempdir().unwrap();
        let writer = TextIndexWriter::create(dir.path(), 40).unwrap();
        let maker = writer.doc_maker();
        let texts = [
            "The Danube flows into the Black Sea.",
            "The Volga flows into the Caspian Sea.",
            "Lake Baikal is the deepest lake.",
        ];
        for (page, t) in texts.iter().enumerate() {
            let docs = maker.docs(&format!("Page {page}"), &[], Some(&page_text(t)));
            writer.add_docs(page as u32, docs).unwrap();
        }
        writer.finish().unwrap();
        let searcher = TextSearcher::open(dir.path()).unwrap();
        // Each query with the pages its words reach, best first: as syntax, `[…]` would be
        // a range, `"…"` a phrase (refused: positions are not indexed), `Title:` a field,
        // `^5` a boost and `-volga` an exclusion of the very page sought.
        for (q, want) in [
            ("[ Caspian ]", vec![1]),
            ("\"flows into the Caspian\"", vec![1, 0, 2]),
            ("Year: Volga; Title: Caspian", vec![1]),
            ("Volga-Caspian (sea)", vec![1, 0]),
            ("caspian^5 OR -volga", vec![1]),
        ] {
            let hits = searcher.search(q, None, None, 3).unwrap();
            let pages: Vec<u32> = hits.iter().map(|h| h.page).collect();
            assert_eq!(pages, want, "{q}");
        }
        assert!(
            searcher
                .search("[ ]: \"\"", None, None, 3)
                .unwrap()
                .is_empty()
        );
    }
}
