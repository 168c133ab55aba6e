//! `action=query`: props of a page set, lists, generators, meta, and continuation.

mod lists;

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value, json};

use super::pages::{Item, PageSet};
use super::{ApiError, Ctx};
use crate::index::PageRecord;

const PROPS: &[&str] = &[
    "info",
    "revisions",
    "links",
    "categories",
    "templates",
    "extracts",
    "pageprops",
    "imageinfo",
];
const LISTS: &[&str] = &[
    "search",
    "backlinks",
    "categorymembers",
    "allpages",
    "prefixsearch",
];
const METAS: &[&str] = &["siteinfo", "userinfo"];
/// Props that can generate pages (their targets).
const PROP_GENERATORS: &[&str] = &["links", "categories", "templates"];

/// The parameter prefix of a module (`pl` for links).
fn prefix(module: &str) -> &'static str {
    match module {
        "info" => "in",
        "revisions" => "rv",
        "links" => "pl",
        "categories" => "cl",
        "templates" => "tl",
        "extracts" => "ex",
        "pageprops" => "pp",
        "imageinfo" => "ii",
        "search" => "sr",
        "backlinks" => "bl",
        "categorymembers" => "cm",
        "allpages" => "ap",
        "prefixsearch" => "ps",
        _ => "",
    }
}

/// A list's or generator's items, with the continuation parameters it sets.
#[derive(Default)]
struct Listed {
    items: Vec<Value>,
    keys: Vec<(i32, String)>,
    cont: Map<String, Value>,
    /// Extra members of `query` (`searchinfo`).
    extra: Map<String, Value>,
}

impl Listed {
    /// Adds page `n` as an item and as a generator key.
    fn push_page(&mut self, cx: &Ctx, n: u32) -> Result<(), ApiError> {
        let (v, k) = page_item(cx, n)?;
        self.items.push(v);
        self.keys.push(k);
        Ok(())
    }
}

pub fn run(cx: &mut Ctx) -> Result<Map<String, Value>, ApiError> {
    let p = cx.p;
    let props = p.choices("prop", PROPS)?;
    let lists = p.choices("list", LISTS)?;
    let metas = p.choices("meta", METAS)?;
    let done = already_done(p.get("continue"));
    let mut query = Map::new();
    let generator = p.get("generator");
    let (set, gen_cont) = page_set(cx, generator)?;
    let mut done_now: BTreeSet<String> = done.clone();
    let mut prop_cont = Map::new();
    if let Some(mut s) = set {
        if p.flag("redirects") && !generator.is_some_and(|g| PROP_GENERATORS.contains(&g)) {
            s.follow_redirects(cx)?;
        }
        let mut extra: HashMap<usize, Map<String, Value>> = HashMap::new();
        for prop in props.iter().filter(|x| !done.contains(*x)) {
            let c = add_prop(cx, prop, &s, &mut extra)?;
            if c.is_empty() && generator.is_none() {
                done_now.insert(prop.clone());
            }
            prop_cont.extend(c);
        }
        s.report(cx.fv, &mut query);
        if !s.items.is_empty() {
            query.insert("pages".into(), s.pages_json(cx.fv, &mut extra));
        }
    }
    let mut list_cont = Map::new();
    for l in lists.iter().filter(|x| !done.contains(*x)) {
        let listed = lists::list(cx, l, "")?;
        if listed.cont.is_empty() {
            done_now.insert(l.clone());
        }
        list_cont.extend(listed.cont);
        query.insert(l.clone(), Value::Array(listed.items));
        query.extend(listed.extra);
    }
    for m in &metas {
        match m.as_str() {
            "siteinfo" => super::siteinfo::siteinfo(cx, &mut query)?,
            _ => super::siteinfo::userinfo(cx, &mut query)?,
        }
    }
    let continuation = Continuation {
        generator,
        gen_cont,
        list_cont,
        prop_cont,
        done_now,
    };
    Ok(continuation.finish(cx, query))
}

/// The modules a `continue` value says are complete: `continue=gapcontinue||links|search`.
fn already_done(cont: Option<&str>) -> BTreeSet<String> {
    cont.and_then(|c| c.split_once("||"))
        .map(|(_, d)| {
            d.split('|')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The pages the request is about — a generator's output (with its continuation), or
/// `titles`/`pageids` — or `None` when it names none.
fn page_set(
    cx: &mut Ctx,
    generator: Option<&str>,
) -> Result<(Option<PageSet>, Map<String, Value>), ApiError> {
    let p = cx.p;
    if let Some(g) = generator {
        let mut s = PageSet::default();
        let listed = if LISTS.contains(&g) {
            lists::list(cx, g, "g")?
        } else if PROP_GENERATORS.contains(&g) {
            let mut base = PageSet::default();
            base.add_titles(cx, &p.multi("titles")?)?;
            base.add_ids(cx, &p.multi("pageids")?)?;
            if p.flag("redirects") {
                base.follow_redirects(cx)?;
            }
            prop_generator(cx, g, &base)?
        } else {
            return Err(ApiError::bad_value("generator", g));
        };
        s.add_keys(cx, &listed.keys)?;
        return Ok((Some(s), listed.cont));
    }
    if p.get("titles").is_none() && p.get("pageids").is_none() {
        return Ok((None, Map::new()));
    }
    if p.get("titles").is_some() && p.get("pageids").is_some() {
        return Err(ApiError::new(
            "invalidparammix",
            "The parameters \"titles\" and \"pageids\" can not be used together.",
        ));
    }
    let mut s = PageSet::default();
    s.add_titles(cx, &p.multi("titles")?)?;
    s.add_ids(cx, &p.multi("pageids")?)?;
    Ok((Some(s), Map::new()))
}

/// What the modules of one request left to continue, gathered for the response.
struct Continuation<'a> {
    generator: Option<&'a str>,
    gen_cont: Map<String, Value>,
    list_cont: Map<String, Value>,
    prop_cont: Map<String, Value>,
    /// Modules complete after this batch.
    done_now: BTreeSet<String>,
}

impl Continuation<'_> {
    /// The response: `batchcomplete` when no prop has more, `continue` as MediaWiki
    /// writes it (the generator's part, then the completed modules), and `query`.
    fn finish(self, cx: &Ctx, query: Map<String, Value>) -> Map<String, Value> {
        let mut out = Map::new();
        let mut cont = Map::new();
        cont.extend(self.list_cont);
        let gen_part = match self.generator {
            Some(g) if !self.prop_cont.is_empty() => {
                // The generator's batch is not finished: it is asked for again as it was.
                let key = format!("g{}continue", prefix(g));
                if let Some(v) = cx.p.get(&key) {
                    cont.insert(key.clone(), json!(v));
                }
                key
            }
            Some(g) if !self.gen_cont.is_empty() => {
                cont.extend(self.gen_cont);
                format!("g{}continue", prefix(g))
            }
            _ => "-".to_string(),
        };
        let batch_complete = self.prop_cont.is_empty();
        cont.extend(self.prop_cont);
        if batch_complete {
            out.insert("batchcomplete".into(), cx.fv.yes());
        }
        if !cont.is_empty() {
            let done: Vec<String> = self.done_now.into_iter().collect();
            cont.insert(
                "continue".into(),
                json!(format!("{gen_part}||{}", done.join("|"))),
            );
            out.insert("continue".into(), Value::Object(cont));
        }
        if !query.is_empty() {
            out.insert("query".into(), Value::Object(query));
        }
        out
    }
}

/// Adds one prop's output to the pages of `set`; returns its continuation.
fn add_prop(
    cx: &mut Ctx,
    prop: &str,
    set: &PageSet,
    extra: &mut HashMap<usize, Map<String, Value>>,
) -> Result<Map<String, Value>, ApiError> {
    let pages: Vec<(usize, u32, &PageRecord)> = set
        .ordered()
        .into_iter()
        .filter_map(|(_, item)| {
            let i = set.items.iter().position(|x| std::ptr::eq(x, item))?;
            item.page().map(|(n, r)| (i, n, r))
        })
        .collect();
    let mut cont = Map::new();
    match prop {
        "info" => {
            let inprop = cx.p.multi("inprop")?;
            for (i, item) in set.items.iter().enumerate() {
                let o = info(cx, item, &inprop);
                extra.entry(i).or_default().extend(o);
            }
        }
        "revisions" => {
            for &(i, _, rec) in &pages {
                let rev = revision(cx, rec)?;
                extra
                    .entry(i)
                    .or_default()
                    .insert("revisions".into(), json!([rev]));
            }
        }
        "links" | "categories" | "templates" => {
            let pre = prefix(prop);
            let limit = cx.p.limit(&format!("{pre}limit"), 10, 500)?;
            let from = cx.p.get(&format!("{pre}continue"));
            let (per_page, next) = targets_paged(cx, prop, pre, &pages, limit, from)?;
            for (i, targets) in per_page {
                let v: Vec<Value> = targets
                    .iter()
                    .map(|(ns, k)| json!({"ns": ns, "title": cx.index().codec().prefixed_text(*ns, k)}))
                    .collect();
                extra
                    .entry(i)
                    .or_default()
                    .insert(prop.into(), Value::Array(v));
            }
            if let Some(n) = next {
                cont.insert(format!("{pre}continue"), json!(n));
            }
        }
        "extracts" => {
            let limit = cx.p.limit("exlimit", 20, 20)?;
            let start = cx.p.int("excontinue")?.unwrap_or(0).max(0) as usize;
            for (k, &(i, n, _)) in pages.iter().enumerate().skip(start) {
                if k >= start + limit {
                    cont.insert("excontinue".into(), json!(k));
                    break;
                }
                let text = extract(cx, n)?;
                extra
                    .entry(i)
                    .or_default()
                    .insert("extract".into(), json!(text));
            }
        }
        "pageprops" => {
            let wanted = cx.p.multi("ppprop")?;
            for &(i, n, _) in &pages {
                if (wanted.is_empty() || wanted.iter().any(|w| w == "disambiguation"))
                    && crate::frontier::operators::is_disambiguation(cx.index(), n)
                        .map_err(ApiError::internal)?
                {
                    extra
                        .entry(i)
                        .or_default()
                        .insert("pageprops".into(), json!({"disambiguation": ""}));
                }
            }
        }
        // Images are not in the index; asking (as mwclient's generators always do)
        // adds nothing, as it does for pages that are not files.
        _ => {}
    }
    Ok(cont)
}

/// The position a list's `continue` value resumes from: its last `|`-separated field (0
/// without one); anything else is MediaWiki's `badcontinue`.
fn continue_from<T: std::str::FromStr + Default>(value: Option<&str>) -> Result<T, ApiError> {
    match value {
        Some(c) => c
            .rsplit('|')
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| ApiError::new("badcontinue", "Invalid continue param.")),
        None => Ok(T::default()),
    }
}

fn timestamp(secs: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(secs)
        .ok()
        .and_then(|t| {
            t.format(time::macros::format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second]Z"
            ))
            .ok()
        })
        .unwrap_or_default()
}

fn info(cx: &Ctx, item: &Item, inprop: &[String]) -> Map<String, Value> {
    let fv = cx.fv;
    let lang = lang(cx);
    let mut o = Map::new();
    let model = item
        .page()
        .map_or("wikitext".to_string(), |(_, r)| r.model.clone());
    o.insert("contentmodel".into(), json!(model));
    o.insert("pagelanguage".into(), json!(lang));
    o.insert("pagelanguagehtmlcode".into(), json!(lang));
    o.insert("pagelanguagedir".into(), json!("ltr"));
    if let Some((_, rec)) = item.page() {
        o.insert("touched".into(), json!(timestamp(rec.timestamp)));
        o.insert("lastrevid".into(), json!(rec.rev_id));
        o.insert("length".into(), json!(rec.len));
        if rec.redirect.is_some() {
            o.insert("redirect".into(), fv.yes());
        }
    }
    for p in inprop {
        match p.as_str() {
            "url" => {
                let url = cx.url_of(&item.title);
                o.insert("fullurl".into(), json!(url));
                o.insert(
                    "editurl".into(),
                    json!(
                        format!("{url}?action=edit")
                            .replace("/wiki/", "/w/index.php?title=")
                            .replacen("?action", "&action", 1)
                    ),
                );
                o.insert("canonicalurl".into(), json!(url));
            }
            "protection" => {
                o.insert("protection".into(), json!([]));
                o.insert("restrictiontypes".into(), json!(["edit", "move"]));
            }
            "displaytitle" => {
                o.insert("displaytitle".into(), json!(item.title));
            }
            _ => {}
        }
    }
    o
}

pub fn lang(cx: &Ctx) -> String {
    let l = &cx.index().manifest().site.lang;
    if l.is_empty() { "en".into() } else { l.clone() }
}

fn revision(cx: &Ctx, rec: &PageRecord) -> Result<Value, ApiError> {
    let fv = cx.fv;
    let rvprop = match cx.p.get("rvprop") {
        Some(_) => cx.p.multi("rvprop")?,
        None => vec![
            "ids".into(),
            "timestamp".into(),
            "flags".into(),
            "comment".into(),
            "user".into(),
        ],
    };
    let mut rev = Map::new();
    for p in &rvprop {
        match p.as_str() {
            "ids" => {
                rev.insert("revid".into(), json!(rec.rev_id));
                rev.insert("parentid".into(), json!(0));
            }
            "timestamp" => {
                rev.insert("timestamp".into(), json!(timestamp(rec.timestamp)));
            }
            "size" => {
                rev.insert("size".into(), json!(rec.len));
            }
            "content" => {
                let text = crate::query::page_wikitext(cx.index(), rec)?;
                let mut slot = Map::new();
                slot.insert("contentmodel".into(), json!(rec.model));
                slot.insert("contentformat".into(), json!("text/x-wiki"));
                slot.insert(fv.content_key().into(), json!(text));
                if cx.p.get("rvslots").is_some() {
                    rev.insert("slots".into(), json!({"main": slot}));
                } else {
                    rev.extend(slot);
                }
            }
            _ => {}
        }
    }
    Ok(Value::Object(rev))
}

/// The distinct targets of a page's links, categories or templates, sorted as
/// MediaWiki's link tables are (namespace, then DB key), filtered by `{pre}namespace`
/// and `{pre}titles`/`clcategories`.
fn targets(cx: &Ctx, prop: &str, pre: &str, n: u32) -> Result<Vec<(i32, String)>, ApiError> {
    let s = cx.index().structure(n)?;
    let mut t: Vec<(i32, String)> = match prop {
        "links" => s.links.iter().map(|l| (l.ns, l.dbkey.clone())).collect(),
        "categories" => s
            .categories
            .iter()
            .map(|c| (crate::title::NS_CATEGORY, c.dbkey.clone()))
            .collect(),
        _ => s
            .templates
            .iter()
            .map(|t| (t.ns, t.dbkey.clone()))
            .collect(),
    };
    t.sort();
    t.dedup();
    let namespaces = cx.p.multi(&format!("{pre}namespace"))?;
    if !namespaces.is_empty() && namespaces.iter().all(|x| x != "*") {
        let ns: Vec<i32> = namespaces.iter().filter_map(|x| x.parse().ok()).collect();
        t.retain(|(n, _)| ns.contains(n));
    }
    let only_key = if prop == "categories" {
        "clcategories".to_string()
    } else {
        format!("{pre}titles")
    };
    let only = cx.p.multi(&only_key)?;
    if !only.is_empty() {
        let keys: Vec<(i32, String)> = only
            .iter()
            .filter_map(|o| cx.index().codec().parse(o, 0).ok())
            .map(|t| (t.ns, t.dbkey))
            .collect();
        t.retain(|k| keys.contains(k));
    }
    Ok(t)
}

type PerPage = Vec<(usize, Vec<(i32, String)>)>;

/// Targets across pages in page-id order, at most `limit`, from the continuation
/// `pageid|ns|dbkey` on; the next continuation when more remain.
fn targets_paged(
    cx: &Ctx,
    prop: &str,
    pre: &str,
    pages: &[(usize, u32, &PageRecord)],
    limit: usize,
    from: Option<&str>,
) -> Result<(PerPage, Option<String>), ApiError> {
    let start = match from {
        None => None,
        Some(c) => {
            let mut parts = c.splitn(3, '|');
            let bad = || {
                ApiError::new(
                    "badcontinue",
                    "Invalid continue param. You should pass the original value returned by the previous query.",
                )
            };
            let id: u64 = parts.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
            let ns: i32 = parts.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
            let key = parts.next().ok_or_else(bad)?.to_string();
            Some((id, ns, key))
        }
    };
    let mut out = Vec::new();
    let mut count = 0;
    for &(i, n, rec) in pages {
        if start.as_ref().is_some_and(|(id, _, _)| rec.id < *id) {
            continue;
        }
        let mut mine = Vec::new();
        for t in targets(cx, prop, pre, n)? {
            if let Some((id, ns, key)) = &start
                && rec.id == *id
                && (t.0, t.1.as_str()) < (*ns, key.as_str())
            {
                continue;
            }
            if count == limit {
                out.push((i, mine));
                return Ok((out, Some(format!("{}|{}|{}", rec.id, t.0, t.1))));
            }
            mine.push(t);
            count += 1;
        }
        out.push((i, mine));
    }
    Ok((out, None))
}

/// `generator=links|categories|templates`: the targets of the base pages.
fn prop_generator(cx: &Ctx, prop: &str, base: &PageSet) -> Result<Listed, ApiError> {
    let pre = format!("g{}", prefix(prop));
    let pages: Vec<(usize, u32, &PageRecord)> = base
        .ordered()
        .into_iter()
        .enumerate()
        .filter_map(|(i, (_, item))| item.page().map(|(n, r)| (i, n, r)))
        .collect();
    let limit = cx.p.limit(&format!("{pre}limit"), 10, 500)?;
    let from = cx.p.get(&format!("{pre}continue"));
    let (per_page, next) = targets_paged(cx, prop, &pre, &pages, limit, from)?;
    let mut cont = Map::new();
    if let Some(n) = next {
        cont.insert(format!("{pre}continue"), json!(n));
    }
    Ok(Listed {
        items: Vec::new(),
        keys: per_page.into_iter().flat_map(|(_, t)| t).collect(),
        cont,
        extra: Map::new(),
    })
}

/// The plain-text extract of a page (TextExtracts' `explaintext`), from the evidence
/// text: the lead, then each section under its heading.
fn extract(cx: &Ctx, n: u32) -> Result<String, ApiError> {
    let p = cx.p;
    let index = cx.index();
    let s = index.structure(n)?;
    let Some(t) = index.page_text(n)? else {
        return Ok(String::new());
    };
    let plain = p.flag("explaintext");
    let format = p.get("exsectionformat").unwrap_or("wiki");
    if !["plain", "wiki", "raw"].contains(&format) {
        return Err(ApiError::bad_value("exsectionformat", format));
    }
    let para = |text: &str| -> String {
        if plain {
            text.to_string()
        } else {
            text.lines()
                .map(|l| format!("<p>{}</p>", html_escape::encode_text(l)))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    let mut lead = t.section_string(0);
    if let Some(k) = p.int("exsentences")? {
        let k = k.clamp(1, 10) as usize;
        let sentences: Vec<&str> = t
            .sections
            .first()
            .map(|x| {
                x.sentences
                    .iter()
                    .take(k)
                    .map(|s| s.text.as_str())
                    .collect()
            })
            .unwrap_or_default();
        lead = sentences.join(" ");
    }
    let mut out = para(&lead);
    if !p.flag("exintro") && p.int("exsentences")?.is_none() {
        for (i, sec) in s.sections.iter().enumerate() {
            let body = t.section_string(i + 1);
            let level = sec.level.clamp(1, 6) as usize;
            if plain {
                let eq = "=".repeat(level);
                match format {
                    "plain" => out.push_str(&format!("\n\n\n{}\n", sec.heading)),
                    "raw" => {
                        out.push_str(&format!("\n\n\u{1}\u{2}{level}\u{2}\u{1}{}\n", sec.heading))
                    }
                    _ => out.push_str(&format!("\n\n{eq} {} {eq}\n", sec.heading)),
                }
            } else {
                out.push_str(&format!(
                    "\n<h{level}><span id=\"{}\">{}</span></h{level}>\n",
                    html_escape::encode_double_quoted_attribute(&sec.anchor),
                    html_escape::encode_text(&sec.heading)
                ));
            }
            out.push_str(&para(&body));
        }
    }
    if let Some(c) = p.int("exchars")? {
        let c = c.clamp(1, 1200) as usize;
        if out.chars().count() > c {
            out = out.chars().take(c).collect::<String>() + "…";
        }
    }
    Ok(out)
}

fn page_item(cx: &Ctx, n: u32) -> Result<(Value, (i32, String)), ApiError> {
    let rec = cx.index().page(n)?;
    let mut v = json!({"pageid": rec.id, "ns": rec.ns, "title": cx.index().display_title(&rec)});
    if rec.redirect.is_some() {
        v["redirect"] = cx.fv.yes();
    }
    Ok((v, (rec.ns, rec.dbkey)))
}
