//! The merge's full-text index: the shards' tantivy segments joined as they are.
//!
//! Tokenizing and indexing every page's text again on the one machine that merges was
//! most of the merge's cost (docs/scale.md). Each shard writes its own index instead,
//! numbering its pages from 0; the merge copies each segment's files unchanged but one:
//! the fast fields, rewritten with every page number moved by the pages of the shards
//! before it. Answers do not move with the segmentation: BM25's statistics are taken
//! over the whole index (`search.rs`), and hits are ordered on (score, page, section).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tantivy::directory::{Directory, TerminatingWrite};
use tantivy::fastfield::FastFieldsWriter;
use tantivy::index::{SegmentComponent, SegmentId};
use tantivy::schema::{Field, Schema};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{Index, IndexMeta, SegmentMeta, SegmentReader, TantivyDocument};

use super::checked::{CheckedDirectory, Copied};
use super::search::{self, SearchError, err};
use crate::chunk_crc::CopyError;

/// One shard's full-text index.
pub(crate) struct Part<'a> {
    /// The shard's directory; its index is in `text/`.
    pub dir: &'a Path,
    /// The pages of the shards before it, added to each of its page numbers.
    pub base: u64,
    /// The CRC-32 (hex) of each file of its index, by path in the shard (`text/NAME`),
    /// as its manifest records them: the files copied unread are checked against them.
    pub checksums: &'a BTreeMap<String, String>,
}

fn join_error(path: &Path, message: String) -> SearchError {
    SearchError::Join {
        path: path.to_path_buf(),
        message,
    }
}

/// Writes into `dir/text` the index of the `parts` (in page order) joined, and returns
/// the CRC-32 of each of its files by path relative to `dir`, as
/// [`search::TextIndexWriter::finish`] does.
pub(crate) fn join(dir: &Path, parts: &[Part<'_>]) -> Result<BTreeMap<String, u32>, SearchError> {
    let (out, _, path) = search::create_index(dir)?;
    let schema = out.schema();
    let fields = (key_field(&schema, "page")?, key_field(&schema, "section")?);
    let (mut segments, mut seen, mut opstamp) = (Vec::new(), BTreeSet::new(), 0);
    let mut copied = Copied::default();
    for part in parts {
        let from = part.dir.join(search::DIR);
        let directory = CheckedDirectory::open(&from)?;
        let damage = directory.damage();
        let open = || -> Result<(Index, IndexMeta), SearchError> {
            let index = Index::open(directory).map_err(err("opening a shard's index"))?;
            let metas = index
                .load_metas()
                .map_err(err("reading a shard's segments"))?;
            Ok((index, metas))
        };
        let (index, metas) = open().map_err(|e| e.or_damage(&damage))?;
        opstamp = opstamp.max(metas.opstamp);
        for meta in metas.segments {
            let id = meta.id();
            if meta.has_deletes() {
                return Err(join_error(
                    &from,
                    format!(
                        "segment {} has deleted documents, which no shard writes",
                        id.uuid_string()
                    ),
                ));
            }
            if !seen.insert(id) {
                return Err(join_error(
                    &from,
                    format!(
                        "segment {} is in another shard too: the same shard given twice under two names?",
                        id.uuid_string()
                    ),
                ));
            }
            copy_files(&from, &path, id, part.checksums, &mut copied)?;
            let joined = out.new_segment_meta(id, meta.max_doc());
            let rewrite = || {
                shifted_fast_fields(
                    &index,
                    meta,
                    &out,
                    joined.clone(),
                    &schema,
                    fields,
                    part.base,
                )
            };
            rewrite().map_err(|e| e.or_damage(&damage))?;
            segments.push(joined);
        }
    }
    let mut metas = out.load_metas().map_err(err("reading the joined index"))?;
    metas.segments = segments;
    metas.opstamp = opstamp;
    let mut meta_json = serde_json::to_vec_pretty(&metas)
        .map_err(|e| join_error(&path, format!("meta.json: {e}")))?;
    meta_json.push(b'\n');
    out.directory()
        .atomic_write(Path::new("meta.json"), &meta_json)
        .map_err(|e| join_error(&path.join("meta.json"), e.to_string()))?;
    drop(out);
    let crcs = super::checked::write_with(&path, copied)
        .map_err(|e| join_error(&path, format!("writing the chunk table: {e}")))?;
    Ok(crcs
        .into_iter()
        .map(|(name, crc)| (format!("{}/{name}", search::DIR), crc))
        .collect())
}

fn key_field(schema: &Schema, name: &str) -> Result<Field, SearchError> {
    schema.get_field(name).map_err(err("finding a key field"))
}

/// Copies segment `id`'s files from `from` to `to`, all but its fast fields, each checked
/// against the CRC-32 its shard's manifest records as it is copied (and its chunk
/// checksums kept in `copied` for the joined directory's table).
fn copy_files(
    from: &Path,
    to: &Path,
    id: SegmentId,
    checksums: &BTreeMap<String, String>,
    copied: &mut Copied,
) -> Result<(), SearchError> {
    let prefix = format!("{}.", id.uuid_string());
    let fast = format!("{prefix}{}", SegmentComponent::FastFields);
    let mut names = Vec::new();
    for entry in std::fs::read_dir(from).map_err(|e| join_error(from, e.to_string()))? {
        let name = entry
            .map_err(|e| join_error(from, e.to_string()))?
            .file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name != fast {
            names.push(name.into_owned());
        }
    }
    names.sort();
    for name in names {
        let source = from.join(&name);
        let expected = checksums
            .get(&format!("{}/{name}", search::DIR))
            .ok_or_else(|| {
                join_error(
                    &source,
                    "not among the files of its shard's manifest".into(),
                )
            })?;
        let crc = copied.copy(&source, to, &name).map_err(|e| match e {
            CopyError::Read(e) => join_error(&source, e.to_string()),
            CopyError::Write(e) => join_error(&to.join(&name), e.to_string()),
        })?;
        if format!("{crc:08x}") != *expected {
            return Err(SearchError::Damaged {
                path: source,
                comment: format!("CRC-32 {crc:08x}, but its shard's manifest says {expected}"),
            });
        }
    }
    Ok(())
}

/// Writes segment `joined`'s fast fields in `out`: those of `meta` in `index` with every
/// page number moved by `base`.
fn shifted_fast_fields(
    index: &Index,
    meta: SegmentMeta,
    out: &Index,
    joined: SegmentMeta,
    schema: &Schema,
    (page, section): (Field, Field),
    base: u64,
) -> Result<(), SearchError> {
    let max_doc = meta.max_doc();
    let reader =
        SegmentReader::open(&index.segment(meta)).map_err(err("opening a shard's segment"))?;
    let (pages, sections) = search::key_columns(&reader)?;
    let mut writer =
        FastFieldsWriter::from_schema_and_tokenizer_manager(schema, TokenizerManager::new())
            .map_err(err("writing fast fields"))?;
    for doc in 0..max_doc {
        let (Some(p), Some(s)) = (pages.first(doc), sections.first(doc)) else {
            return Err(SearchError::Damaged {
                path: PathBuf::from(reader.segment_id().uuid_string()),
                comment: format!("document {doc} has no page or section number"),
            });
        };
        let mut d = TantivyDocument::default();
        d.add_u64(page, p + base);
        d.add_u64(section, s);
        writer
            .add_document(&d)
            .map_err(err("writing fast fields"))?;
    }
    let segment = out.segment(joined);
    let mut file = segment
        .open_write(SegmentComponent::FastFields)
        .map_err(|e| err("writing fast fields")(e.into()))?;
    let write = |e: std::io::Error| err("writing fast fields")(e.into());
    writer.serialize(&mut file, None).map_err(write)?;
    file.terminate().map_err(write)?;
    Ok(())
}
