//! `action=query`'s lists — `search`, `backlinks`, `categorymembers`, `allpages`,
//! `prefixsearch` — each with its parameters, limits and continuation, alone or as a
//! generator (parameters prefixed `g`).

use std::collections::BTreeSet;

use serde_json::json;

use super::{Listed, continue_from, prefix, timestamp};
use crate::serve::action::{ApiError, Ctx, Fv};

/// Namespaces of a `{pre}namespace` parameter (`default` when absent, none for `*`).
fn namespaces(cx: &Ctx, key: &str, default: Option<i32>) -> Result<Option<Vec<i32>>, ApiError> {
    let v = cx.p.multi(key)?;
    if v.iter().any(|x| x == "*") {
        return Ok(None);
    }
    if v.is_empty() {
        return Ok(default.map(|d| vec![d]));
    }
    v.iter()
        .map(|x| {
            x.trim()
                .parse::<i32>()
                .map_err(|_| ApiError::bad_value(key, x))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Runs list `name` with parameter prefix `g` (as a generator) or none.
pub(super) fn list(cx: &Ctx, name: &str, g: &str) -> Result<Listed, ApiError> {
    let pre = format!("{g}{}", prefix(name));
    let key = |k: &str| format!("{pre}{k}");
    let mut out = Listed::default();
    match name {
        "search" => search(cx, &key, g, &mut out)?,
        "backlinks" => backlinks(cx, &key, &mut out)?,
        "categorymembers" => category_members(cx, &key, &mut out)?,
        "allpages" => titles_from(cx, &key, true, &mut out)?,
        "prefixsearch" => titles_from(cx, &key, false, &mut out)?,
        _ => return Err(ApiError::bad_value("list", name)),
    }
    if name == "prefixsearch" && cx.fv == Fv::V1 {
        // MediaWiki's prefixsearch items have no `redirect` member.
        for i in &mut out.items {
            if let Some(o) = i.as_object_mut() {
                o.remove("redirect");
            }
        }
    }
    Ok(out)
}

/// A list module's parameter name from its unprefixed one (`limit` → `gbllimit`).
type Key<'a> = &'a dyn Fn(&str) -> String;

/// `list=search`: pages whose sections match, best first, with `searchinfo` unless a
/// generator asked.
fn search(cx: &Ctx, key: Key, g: &str, out: &mut Listed) -> Result<(), ApiError> {
    let p = cx.p;
    let index = cx.index();
    let q = p
        .get(&key("search"))
        .ok_or_else(|| ApiError::missing(&key("search")))?;
    let limit = p.limit(&key("limit"), 10, 500)?;
    let offset = p.int(&key("offset"))?.unwrap_or(0).max(0) as usize;
    let ns = namespaces(cx, &key("namespace"), Some(0))?;
    let want = offset + limit;
    // Section hits, several per page: ask for enough to fill the page list.
    let hits = crate::query::text::search(index, q, Default::default(), want * 4 + 20)?;
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    for h in hits {
        if seen.insert(h.page_id) {
            found.push(h);
        }
    }
    let mut kept = Vec::new();
    for h in found {
        let Some(n) = cx.state.page_by_id(h.page_id) else {
            continue;
        };
        let rec = index.page(n)?;
        if ns.as_ref().is_some_and(|ns| !ns.contains(&rec.ns)) {
            continue;
        }
        kept.push((n, rec, h));
    }
    let total = kept.len();
    let srprop = match p.get(&key("prop")) {
        Some(_) => p.multi(&key("prop"))?,
        None => vec![
            "size".into(),
            "wordcount".into(),
            "timestamp".into(),
            "snippet".into(),
        ],
    };
    for (n, rec, h) in kept.into_iter().skip(offset).take(limit) {
        let mut v = json!({"ns": rec.ns, "title": index.display_title(&rec), "pageid": rec.id});
        for sp in &srprop {
            match sp.as_str() {
                "size" => v["size"] = json!(rec.len),
                "wordcount" => {
                    let words = index.page_text(n)?.map_or(0, |t| {
                        t.sentences()
                            .map(|(_, _, s)| s.text.split_whitespace().count())
                            .sum::<usize>()
                    });
                    v["wordcount"] = json!(words);
                }
                "timestamp" => v["timestamp"] = json!(timestamp(rec.timestamp)),
                "snippet" => {
                    v["snippet"] = json!(
                        h.best
                            .as_ref()
                            .map(|b| html_escape::encode_text(&b.text).into_owned())
                            .unwrap_or_default()
                    )
                }
                _ => {}
            }
        }
        out.keys.push((rec.ns, rec.dbkey.clone()));
        out.items.push(v);
    }
    if total > want {
        out.cont.insert(key("offset"), json!(want));
    }
    let info = match p.get(&key("info")) {
        Some(_) => p.multi(&key("info"))?,
        None => vec!["totalhits".into()],
    };
    if g.is_empty() && info.iter().any(|i| i == "totalhits") {
        out.extra
            .insert("searchinfo".into(), json!({"totalhits": total}));
    }
    Ok(())
}

/// `list=backlinks`: the pages linking to a title (or a red link), by page id.
fn backlinks(cx: &Ctx, key: Key, out: &mut Listed) -> Result<(), ApiError> {
    let p = cx.p;
    let index = cx.index();
    let (ns_t, dbkey, target) = match (p.get(&key("title")), p.int(&key("pageid"))?) {
        (Some(t), _) => {
            let t = index
                .codec()
                .parse(t, 0)
                .map_err(|e| ApiError::new("invalidtitle", format!("Bad title \"{t}\": {e}.")))?;
            let n = index.find(t.ns, &t.dbkey);
            (t.ns, t.dbkey, n)
        }
        (None, Some(id)) => {
            let n = cx.state.page_by_id(id as u64).ok_or_else(|| {
                ApiError::new("nosuchpageid", format!("There is no page with ID {id}."))
            })?;
            let rec = index.page(n)?;
            (rec.ns, rec.dbkey, Some(n))
        }
        (None, None) => return Err(ApiError::missing(&key("title"))),
    };
    let mut sources = match target {
        Some(n) => index.inlinks(n)?,
        None => index.red_inlinks(ns_t, &dbkey)?,
    };
    let mut recs = Vec::with_capacity(sources.len());
    for s in sources.drain(..) {
        recs.push((s, index.page(s)?));
    }
    recs.sort_by_key(|(_, r)| r.id);
    let ns = namespaces(cx, &key("namespace"), None)?;
    let filter = p.get(&key("filterredir")).unwrap_or("all");
    let limit = p.limit(&key("limit"), 10, 500)?;
    let from: u64 = continue_from(p.get(&key("continue")))?;
    let mut count = 0;
    for (s, r) in recs {
        if r.id < from
            || ns.as_ref().is_some_and(|ns| !ns.contains(&r.ns))
            || (filter == "redirects" && r.redirect.is_none())
            || (filter == "nonredirects" && r.redirect.is_some())
        {
            continue;
        }
        if count == limit {
            out.cont
                .insert(key("continue"), json!(format!("{ns_t}|{dbkey}|{}", r.id)));
            break;
        }
        out.push_page(cx, s)?;
        count += 1;
    }
    Ok(())
}

/// `list=categorymembers`: a category's members in the index's order, by type.
fn category_members(cx: &Ctx, key: Key, out: &mut Listed) -> Result<(), ApiError> {
    let p = cx.p;
    let index = cx.index();
    let t = match (p.get(&key("title")), p.int(&key("pageid"))?) {
        (Some(t), _) => index
            .codec()
            .parse(t, 0)
            .map_err(|e| ApiError::new("invalidtitle", format!("Bad title \"{t}\": {e}.")))?,
        (None, Some(id)) => {
            let n = cx.state.page_by_id(id as u64).ok_or_else(|| {
                ApiError::new("nosuchpageid", format!("There is no page with ID {id}."))
            })?;
            let rec = index.page(n)?;
            index
                .codec()
                .parse(&index.display_title(&rec), 0)
                .map_err(ApiError::internal)?
        }
        (None, None) => return Err(ApiError::missing(&key("title"))),
    };
    if t.ns != crate::title::NS_CATEGORY {
        return Err(ApiError::new(
            "invalidcategory",
            "The category name you entered is not valid.",
        ));
    }
    let members = index.category_members(&t.dbkey)?.unwrap_or_default();
    let ns = namespaces(cx, &key("namespace"), None)?;
    let types = match p.get(&key("type")) {
        Some(_) => p.choices(&key("type"), &["page", "subcat", "file"])?,
        None => vec!["page".into(), "subcat".into(), "file".into()],
    };
    let limit = p.limit(&key("limit"), 10, 500)?;
    let from: usize = continue_from(p.get(&key("continue")))?;
    let mut count = 0;
    for (i, m) in members.iter().enumerate().skip(from) {
        let rec = index.page(*m)?;
        let ty = match rec.ns {
            crate::title::NS_CATEGORY => "subcat",
            crate::title::NS_FILE => "file",
            _ => "page",
        };
        if ns.as_ref().is_some_and(|ns| !ns.contains(&rec.ns)) || !types.iter().any(|t| t == ty) {
            continue;
        }
        if count == limit {
            out.cont.insert(key("continue"), json!(format!("page|{i}")));
            break;
        }
        out.push_page(cx, *m)?;
        count += 1;
    }
    Ok(())
}

/// `list=allpages` (`all`) and `list=prefixsearch`: titles of one namespace in key order
/// from a prefix, continued by key or by offset.
fn titles_from(cx: &Ctx, key: Key, all: bool, out: &mut Listed) -> Result<(), ApiError> {
    let p = cx.p;
    let index = cx.index();
    let ns = if all {
        p.int(&key("namespace"))?.unwrap_or(0) as i32
    } else {
        namespaces(cx, &key("namespace"), Some(0))?
            .and_then(|v| v.first().copied())
            .unwrap_or(0)
    };
    let dbkey = |text: &str| -> String {
        if text.trim().is_empty() {
            return String::new();
        }
        // A prefix may end in a space; only the part a title keeps is compared.
        let under = text.replace(' ', "_");
        match index.codec().parse(text, ns) {
            Ok(t) if t.ns == ns => {
                if under.ends_with('_') {
                    t.dbkey + "_"
                } else {
                    t.dbkey
                }
            }
            _ => under,
        }
    };
    let prefix_key = if all {
        dbkey(p.get(&key("prefix")).unwrap_or(""))
    } else {
        dbkey(
            p.get(&key("search"))
                .ok_or_else(|| ApiError::missing(&key("search")))?,
        )
    };
    let limit = p.limit(&key("limit"), 10, if all { 500 } else { 100 })?;
    let filter = p.get(&key("filterredir")).unwrap_or("all");
    let offset = if all {
        0
    } else {
        p.int(&key("offset"))?.unwrap_or(0).max(0) as usize
    };
    let mut from = if all {
        p.get(&key("continue"))
            .or(p.get(&key("from")))
            .map(dbkey)
            .unwrap_or_default()
    } else {
        String::new()
    };
    let mut skipped = 0;
    let mut count = 0;
    'walk: loop {
        let batch = index.titles_from(ns, &from, &prefix_key, 256);
        if batch.is_empty() {
            break;
        }
        let last = batch.len() < 256;
        for (k, n) in &batch {
            if *k < from {
                continue;
            }
            let rec = index.page(*n)?;
            if (filter == "redirects" && rec.redirect.is_none())
                || (filter == "nonredirects" && rec.redirect.is_some())
            {
                continue;
            }
            if skipped < offset {
                skipped += 1;
                continue;
            }
            if count == limit {
                if all {
                    out.cont.insert(key("continue"), json!(k));
                } else {
                    out.cont.insert(key("offset"), json!(offset + count));
                }
                break 'walk;
            }
            out.push_page(cx, *n)?;
            count += 1;
        }
        if last {
            break;
        }
        from = batch
            .last()
            .map(|(k, _)| format!("{k}\u{0}"))
            .unwrap_or_default();
    }
    Ok(())
}
