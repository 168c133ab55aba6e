//! Every title in key order with the page that keeps it: among pages sharing a title
//! one is kept as MediaWiki's importer keeps it, and each other one becomes a warning.

use std::path::Path;

use super::extsort::{self, KeyVal};
use super::{BuildError, Warning, rfc3339};
use crate::dump::DumpError;
use crate::index::manifest::Counts;
use crate::index::{self, KeySpool, PageRecord, Store, WarningsWriter};
use crate::title::TitleCodec;

/// The page a title keeps among pages sharing it, and a warning for each other one.
struct Kept {
    page: u32,
    dropped: Vec<Warning>,
}

/// Chooses among the pages (`group`, page numbers) that have one title, as MediaWiki's
/// importer does: the newest revision timestamp wins and, at equal timestamps, the
/// page met first in the dump (the importer skips a revision whose timestamp the page
/// already has). The choice depends on the pages alone, never on the order the sorter
/// returned them in, so it is the same at any thread count or memory budget. With
/// `strict`, a second page is an error.
fn choose_duplicate(
    group: &[u32],
    pages: &Store<PageRecord>,
    strict: bool,
    dump: &Path,
    codec: &TitleCodec,
) -> Result<Kept, BuildError> {
    if let [only] = group {
        return Ok(Kept {
            page: *only,
            dropped: Vec::new(),
        });
    }
    let mut recs = Vec::with_capacity(group.len());
    for &n in group {
        recs.push((n, pages.get(n as usize)?));
    }
    // Newest first; among equals, dump order.
    recs.sort_by(|(na, a), (nb, b)| b.timestamp.cmp(&a.timestamp).then(na.cmp(nb)));
    let (kept_n, kept) = &recs[0];
    if strict {
        let first = recs.iter().min_by_key(|(n, _)| *n).expect("two or more");
        let second = recs
            .iter()
            .filter(|(n, _)| *n != first.0)
            .min_by_key(|(n, _)| *n)
            .expect("two or more");
        return Err(DumpError::DuplicateTitle {
            path: dump.to_path_buf(),
            title: codec.prefixed_text(first.1.ns, &first.1.dbkey),
            first_id: first.1.id,
            second_id: second.1.id,
        }
        .into());
    }
    let title = codec.prefixed_text(kept.ns, &kept.dbkey);
    let dropped = recs[1..]
        .iter()
        .map(|(_, r)| Warning {
            page_id: r.id,
            title: title.clone(),
            kind: "duplicate-title".into(),
            message: format!(
                "page {} (revision {}, {}) has the same title as page {} (revision {}, {}), which is kept: {}",
                r.id,
                r.rev_id,
                rfc3339(r.timestamp),
                kept.id,
                kept.rev_id,
                rfc3339(kept.timestamp),
                if r.timestamp == kept.timestamp {
                    "same timestamp, first in the dump"
                } else {
                    "newer revision"
                }
            ),
        })
        .collect();
    Ok(Kept {
        page: *kept_n,
        dropped,
    })
}

/// Every title in key order with the page that keeps it: pages sharing a title are
/// grouped, one is kept ([`choose_duplicate`]) and the others recorded as warnings;
/// with `strict` (`--strict`), a shared title is an error naming `dump`.
#[allow(clippy::too_many_arguments)]
pub(super) fn title_map_keys(
    sorted_titles: extsort::Sorted<KeyVal>,
    tmp: &Path,
    pages_tmp: &Store<PageRecord>,
    (strict, dump): (bool, &Path),
    codec: &TitleCodec,
    warnings: &mut WarningsWriter,
    counts: &mut Counts,
) -> Result<KeySpool, BuildError> {
    let mut title_keys = KeySpool::create(&tmp.join("titles.spool"))?;
    let mut group: Vec<u32> = Vec::new();
    let mut group_key: Option<Box<[u8]>> = None;
    let mut flush = |key: &[u8], group: &mut Vec<u32>| -> Result<(), BuildError> {
        index::fault::point("titles");
        let kept = choose_duplicate(group, pages_tmp, strict, dump, codec)?;
        for dropped in kept.dropped {
            warnings.push(&dropped)?;
            counts.duplicate_titles += 1;
        }
        title_keys.push(key, u64::from(kept.page))?;
        group.clear();
        Ok(())
    };
    for kv in sorted_titles {
        let kv = kv?;
        if group_key.as_deref() != Some(&kv.key[..]) {
            if let Some(key) = group_key.take() {
                flush(&key, &mut group)?;
            }
            group_key = Some(kv.key);
        }
        group.push(kv.val);
    }
    if let Some(key) = group_key.take() {
        flush(&key, &mut group)?;
    }
    title_keys.close()?;
    Ok(title_keys)
}
