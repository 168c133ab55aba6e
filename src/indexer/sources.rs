//! The build's first pass: the pages expansion reads (templates, modules, messages)
//! written to `sources.rec` / `sources.fst` before any page is expanded.
//!
//! With a multistream index only the streams whose index lines name such a page are
//! decoded (on enwiki, a few percent of the dump); otherwise the dump is decoded once
//! more and pages of other namespaces are stepped over without being parsed.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use super::{BuildError, Progress};
use crate::dump::{Dump, DumpError};
use crate::index::sources::{SOURCE_NAMESPACES, SourcePage, SourcesWriter};
use crate::redirect::{self, RedirectSyntax};
use crate::title::TitleCodec;

/// What the first pass read, for the manifest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcesInfo {
    /// Source pages stored.
    pub pages: u64,
    /// Streams decoded, when the multistream index chose them; `None`: every piece.
    pub streams_read: Option<usize>,
    /// Newest revision time of the source pages (Unix seconds), the default build date.
    pub newest_revision: i64,
}

/// Reads the source pages of `dump` into `dir` and returns what was read; `sizes` are
/// the two files' sizes.
pub(super) fn first_pass(
    dump: &Dump,
    codec: &TitleCodec,
    lang: &str,
    dir: &Path,
    progress: &dyn Progress,
    cancel: &AtomicBool,
) -> Result<(SourcesInfo, (u64, u64)), BuildError> {
    let prefix_ns = |p: &str| codec.namespaces().id_of(p);
    let map = |raw: crate::dump::RawPage<'_>, _| -> Result<Option<(SourcePage, i64)>, DumpError> {
        // Titles that do not parse are reported by the main pass.
        let Ok(t) = codec.parse_page_title(&raw.title) else {
            return Ok(None);
        };
        let redirect = match redirect::parse(&raw.text, lang, raw.redirect_attr.is_some(), codec) {
            RedirectSyntax::Target(r) if r.interwiki.is_none() && raw.model == "wikitext" => {
                Some((r.ns, r.dbkey))
            }
            _ => None,
        };
        let time = time::OffsetDateTime::parse(
            raw.timestamp.trim(),
            &time::format_description::well_known::Rfc3339,
        )
        .map(|t| t.unix_timestamp())
        .unwrap_or(0);
        Ok(Some((
            SourcePage {
                ns: t.ns,
                dbkey: t.dbkey,
                redirect,
                text: raw.text.into_owned(),
            },
            time,
        )))
    };
    progress.phase("reading templates and modules", dump.bytes().len() as u64);
    let mut every_stream = false;
    let result = loop {
        let mut writer = SourcesWriter::create(dir)?;
        let mut newest = 0i64;
        let pass = dump.pages_in_namespaces(
            &SOURCE_NAMESPACES,
            every_stream,
            &prefix_ns,
            map,
            |(page, time): (SourcePage, i64)| {
                crate::index::fault::point("sources");
                newest = newest.max(time);
                writer
                    .push(&page)
                    .map_err(|e| DumpError::Consumer(Box::new(e)))
            },
            |done| progress.advance(done),
            cancel,
        );
        match pass {
            Ok(pass) => {
                let pages = writer.len() as u64;
                let sizes = writer.finish(dir)?;
                break Ok((
                    SourcesInfo {
                        pages,
                        streams_read: pass.streams_read,
                        newest_revision: newest,
                    },
                    sizes,
                ));
            }
            // A page cut across streams: read them all.
            Err(DumpError::StreamFragment { .. }) if !every_stream => every_stream = true,
            Err(DumpError::Consumer(e)) => {
                break Err(match e.downcast::<crate::index::IndexError>() {
                    Ok(ie) => BuildError::Index(*ie),
                    Err(other) => BuildError::Dump(DumpError::Internal {
                        message: other.to_string(),
                    }),
                });
            }
            Err(e) => break Err(e.into()),
        }
    };
    progress.finish();
    result
}
