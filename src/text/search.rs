//! The full-text index: one tantivy document per section (title, redirect titles,
//! heading, text), BM25 over the whole wiki, one page, or one section.
//!
//! Tantivy assigns segment names at random and its two indexing threads split documents
//! between segments as they come, so this directory is the one part of an index that is
//! not byte-identical between builds. Results are deterministic nonetheless: BM25
//! statistics (document frequencies, average field lengths) are taken over the whole
//! index, not per segment, so a document's score does not depend on its segment, and
//! hits are ordered on (score, page, section).

use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::TokenStream;
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::PageText;

/// Directory of the text index inside an index directory.
pub const DIR: &str = "text";

/// Errors of the text index (tantivy's, with the operation that failed).
#[derive(Debug, thiserror::Error)]
#[error("text index: {what}: {source}")]
pub struct SearchError {
    what: &'static str,
    #[source]
    source: tantivy::TantivyError,
}

fn err(what: &'static str) -> impl FnOnce(tantivy::TantivyError) -> SearchError {
    move |source| SearchError { what, source }
}

/// The schema's fields.
#[derive(Clone, Copy)]
struct Fields {
    page: Field,
    section: Field,
    title: Field,
    heading: Field,
    body: Field,
}

/// Tantivy's `default` tokenizer: split on non-alphanumeric characters, lower-case, drop
/// tokens over 40 bytes. No stemming: it is language-neutral (the index serves every
/// wiki language alike) and evidence matching is exact about word forms; the citation
/// scorer does its own, documented normalization on the candidates search returns.
const TOKENIZER: &str = "default";

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let options = |record| {
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(record),
        )
    };
    // Page and section numbers are columnar (fast) fields: nothing goes to the document
    // store. Title and heading need no term frequencies; the text does (BM25).
    let page = b.add_u64_field("page", INDEXED | FAST);
    let section = b.add_u64_field("section", INDEXED | FAST);
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

/// Builds the text index while pages stream in.
pub struct TextIndexWriter {
    writer: IndexWriter,
    fields: Fields,
}

/// Makes a page's documents; cheap to copy to worker threads, so that documents are
/// assembled in parallel and only handed to the writer in order.
#[derive(Clone, Copy)]
pub struct DocMaker {
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
            doc.add_text(f.body, text.section_string(s));
            out.push(doc);
        }
        out
    }
}

impl TextIndexWriter {
    /// Creates the index in `dir/text`.
    pub fn create(dir: &Path, memory_mb: usize) -> Result<TextIndexWriter, SearchError> {
        let path = dir.join(DIR);
        std::fs::create_dir_all(&path).map_err(|e| SearchError {
            what: "creating the directory",
            source: tantivy::TantivyError::from(
                tantivy::directory::error::OpenDirectoryError::wrap_io_error(e, path.clone()),
            ),
        })?;
        let (schema, fields) = schema();
        let settings = tantivy::IndexSettings {
            docstore_compression: tantivy::store::Compressor::None,
            ..Default::default()
        };
        let index = Index::builder()
            .schema(schema)
            .settings(settings)
            .create_in_dir(&path)
            .map_err(err("creating"))?;
        let writer: IndexWriter = index
            .writer_with_num_threads(2, memory_mb.max(40) << 20)
            .map_err(err("opening the writer"))?;
        // Segments are flushed only when a thread's memory budget is full, so a wiki gives
        // few segments; merging them would cost more build time than it saves in queries.
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        Ok(TextIndexWriter { writer, fields })
    }

    pub fn doc_maker(&self) -> DocMaker {
        DocMaker {
            fields: self.fields,
        }
    }

    /// Adds page number `page`'s documents (made by [`DocMaker::docs`]), in page order.
    pub fn add_docs(&self, page: u32, docs: Vec<TantivyDocument>) -> Result<(), SearchError> {
        for mut doc in docs {
            doc.add_u64(self.fields.page, page.into());
            self.writer
                .add_document(doc)
                .map_err(err("adding a document"))?;
        }
        Ok(())
    }

    /// Commits and waits for merges; the index is complete when this returns.
    pub fn finish(mut self) -> Result<(), SearchError> {
        self.writer.commit().map_err(err("committing"))?;
        self.writer.wait_merging_threads().map_err(err("merging"))?;
        Ok(())
    }
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
    index: Index,
    reader: IndexReader,
    fields: Fields,
}

impl TextSearcher {
    pub fn open(dir: &Path) -> Result<TextSearcher, SearchError> {
        let index = Index::open_in_dir(dir.join(DIR)).map_err(err("opening"))?;
        let (_, fields) = schema();
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(err("opening a reader"))?;
        Ok(TextSearcher {
            index,
            reader,
            fields,
        })
    }

    fn parser(&self) -> QueryParser {
        let f = self.fields;
        let mut p = QueryParser::for_index(&self.index, vec![f.title, f.heading, f.body]);
        // Title and heading words count more than words of the text.
        p.set_field_boost(f.title, 3.0);
        p.set_field_boost(f.heading, 1.5);
        p
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
        let f = self.fields;
        let (q, _errors) = self.parser().parse_query_lenient(query);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, q)];
        if let Some(p) = page {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.page, p.into()),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        if let Some(s) = section {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.section, s.into()),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        let q = BooleanQuery::new(clauses);
        let searcher = self.reader.searcher();
        let extra = limit.saturating_mul(2) + 16;
        let top: Vec<(f32, DocAddress)> = searcher
            .search(&q, &TopDocs::with_limit(extra).order_by_score())
            .map_err(err("searching"))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let seg = searcher.segment_reader(addr.segment_ord);
            let column = |name: &str| -> Result<u32, SearchError> {
                let col = seg
                    .fast_fields()
                    .u64(name)
                    .map_err(err("reading a fast field"))?;
                Ok(col.first(addr.doc_id).unwrap_or(0) as u32)
            };
            hits.push(Hit {
                page: column("page")?,
                section: column("section")?,
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
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut analyzer = self
            .index
            .tokenizers()
            .get(TOKENIZER)
            .expect("built-in tokenizer");
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            out.push(stream.token().text.clone());
        }
        out
    }

    /// Number of sections containing `term` (an analysed term), and of all sections.
    pub fn doc_freq(&self, term: &str) -> (u64, u64) {
        let searcher = self.reader.searcher();
        let t = Term::from_field_text(self.fields.body, term);
        (searcher.doc_freq(&t).unwrap_or(0), searcher.num_docs())
    }
}
