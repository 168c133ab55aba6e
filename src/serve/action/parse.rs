//! `action=parse` for a stored page (sections, wikitext, links, categories, templates,
//! and `text` as a plain rendering of the evidence text) and `action=opensearch`.

use serde_json::{Map, Value, json};

use super::{ApiError, Ctx, Fv};
use crate::index::Lookup;

const PROPS: &[&str] = &[
    "text",
    "sections",
    "wikitext",
    "links",
    "categories",
    "templates",
    "revid",
    "displaytitle",
];

pub fn run(cx: &mut Ctx) -> Result<Map<String, Value>, ApiError> {
    let index = &cx.state.index;
    let mut n = target_page(cx)?;
    let mut rec = index.page(n)?;
    let mut out = Map::new();
    if cx.p.flag("redirects")
        && let Some(rd) = &rec.redirect
        && let crate::index::Resolution::Page { page, .. } = rd.resolution
    {
        let from = index.display_title(&rec);
        n = page;
        rec = index.page(n)?;
        out.insert(
            "redirects".into(),
            json!([{"from": from, "to": index.display_title(&rec)}]),
        );
    }
    let props = requested_props(cx)?;
    let title = index.display_title(&rec);
    out.insert("title".into(), json!(title));
    out.insert("pageid".into(), json!(rec.id));
    let s = index.structure(n)?;
    for prop in &props {
        let value = match prop.as_str() {
            "revid" => json!(rec.rev_id),
            "displaytitle" => json!(title),
            "wikitext" => wrap(cx.fv, crate::query::page_wikitext(index, &rec)?),
            "sections" => sections(&s, &rec.dbkey),
            "links" => linked(cx, s.links.iter().map(|l| (l.ns, l.dbkey.clone()))),
            "templates" => linked(cx, s.templates.iter().map(|l| (l.ns, l.dbkey.clone()))),
            "categories" => categories(cx.fv, &s),
            "text" => wrap(cx.fv, plain_html(cx, n, &s)?),
            _ => continue,
        };
        out.insert(prop.clone(), value);
    }
    let mut top = Map::new();
    top.insert("parse".into(), Value::Object(out));
    Ok(top)
}

/// The page the request names: `page` or `pageid`, or the one value of `titles` or
/// `pageids`, which MediaWiki ignores here but the `wikipedia` package sends for its
/// `sections` (a reader means the page).
fn target_page(cx: &Ctx) -> Result<u32, ApiError> {
    let p = cx.p;
    let titles = p.multi("titles")?;
    let ids = p.multi("pageids")?;
    let page = p.get("page").or(titles.first().map(String::as_str));
    let pageid = match p.int("pageid")? {
        Some(i) => Some(i),
        None => ids.first().and_then(|i| i.trim().parse().ok()),
    };
    match (page, pageid) {
        (Some(t), _) => match cx.state.index.lookup(t) {
            Lookup::Page(_, n) => Ok(n),
            Lookup::Invalid(e) => Err(ApiError::new(
                "invalidtitle",
                format!("Bad title \"{t}\": {e}."),
            )),
            _ => Err(ApiError::new(
                "missingtitle",
                "The page you specified doesn't exist.",
            )),
        },
        (None, Some(id)) => cx.state.page_by_id(id as u64).ok_or_else(|| {
            ApiError::new("nosuchpageid", format!("There is no page with ID {id}."))
        }),
        (None, None) => Err(ApiError::new(
            "notarget",
            "The \"page\" or \"pageid\" parameter must be set (wikiwit parses stored pages only).",
        )),
    }
}

/// The props asked for (MediaWiki's default set without `prop`); a warning names those
/// wikiwit does not answer.
fn requested_props(cx: &mut Ctx) -> Result<Vec<String>, ApiError> {
    let props = match cx.p.get("prop") {
        Some(_) => cx.p.multi("prop")?,
        None => [
            "text",
            "sections",
            "links",
            "categories",
            "templates",
            "revid",
            "displaytitle",
        ]
        .map(String::from)
        .to_vec(),
    };
    let unsupported: Vec<&str> = props
        .iter()
        .map(String::as_str)
        .filter(|x| !PROPS.contains(x))
        .collect();
    if !unsupported.is_empty() {
        let message = format!(
            "wikiwit does not answer prop={} (see docs/serve.md).",
            unsupported.join("|")
        );
        cx.warn("parse", message);
    }
    Ok(props)
}

/// A text value as the format version writes it: `{"*": …}` in version 1.
fn wrap(fv: Fv, text: String) -> Value {
    match fv {
        Fv::V1 => json!({"*": text}),
        Fv::V2 => json!(text),
    }
}

/// `prop=sections`: MediaWiki's fields for each section.
fn sections(s: &crate::wikitext::PageStructure, dbkey: &str) -> Value {
    s.sections
        .iter()
        .map(|x| {
            json!({
                "toclevel": x.toclevel,
                "level": x.level.to_string(),
                "line": x.heading,
                "number": x.number,
                "index": x.index.to_string(),
                "fromtitle": dbkey,
                "byteoffset": x.byteoffset,
                "anchor": x.anchor,
                "linkanchor": x.anchor,
            })
        })
        .collect()
}

/// `prop=links|templates`: distinct targets in (namespace, key) order, each with
/// whether it exists.
fn linked(cx: &Ctx, targets: impl Iterator<Item = (i32, String)>) -> Value {
    let index = &cx.state.index;
    let codec = index.codec();
    let targets: std::collections::BTreeSet<(i32, String)> = targets.collect();
    targets
        .into_iter()
        .map(|(ns, k)| {
            let t = codec.prefixed_text(ns, &k);
            let exists = index.find(ns, &k).is_some();
            let mut o = match cx.fv {
                Fv::V1 => json!({"ns": ns, "*": t}),
                Fv::V2 => json!({"ns": ns, "title": t, "exists": exists}),
            };
            if exists && cx.fv == Fv::V1 {
                o["exists"] = json!("");
            }
            o
        })
        .collect()
}

/// `prop=categories`: each category once, in page order, with its sort key.
fn categories(fv: Fv, s: &crate::wikitext::PageStructure) -> Value {
    let mut seen = std::collections::BTreeSet::new();
    s.categories
        .iter()
        .filter(|c| seen.insert(c.dbkey.clone()))
        .map(|c| match fv {
            Fv::V1 => json!({"sortkey": c.sortkey, "*": c.dbkey}),
            Fv::V2 => json!({"sortkey": c.sortkey, "category": c.dbkey}),
        })
        .collect()
}

/// The page as HTML built from its evidence text: headings with MediaWiki's anchors,
/// one paragraph per line of text. Not MediaWiki's rendering (no templates' markup, no
/// images), but the same words.
fn plain_html(cx: &Ctx, n: u32, s: &crate::wikitext::PageStructure) -> Result<String, ApiError> {
    let Some(t) = cx.index().page_text(n)? else {
        return Ok(String::new());
    };
    let mut out = String::from("<div class=\"mw-parser-output\">");
    let para = |out: &mut String, text: String| {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            out.push_str(&format!("<p>{}</p>\n", html_escape::encode_text(line)));
        }
    };
    para(&mut out, t.section_string(0));
    for (i, sec) in s.sections.iter().enumerate() {
        let level = sec.level.clamp(1, 6);
        out.push_str(&format!(
            "<h{level}><span class=\"mw-headline\" id=\"{}\">{}</span></h{level}>\n",
            html_escape::encode_double_quoted_attribute(&sec.anchor),
            html_escape::encode_text(&sec.heading)
        ));
        para(&mut out, t.section_string(i + 1));
    }
    out.push_str("</div>");
    Ok(out)
}

/// `action=opensearch`: titles starting with the search text, as the search box asks.
pub fn opensearch(cx: &mut Ctx) -> Result<Value, ApiError> {
    let p = cx.p;
    let index = cx.index();
    let search = p.get("search").ok_or_else(|| ApiError::missing("search"))?;
    let limit = p.limit("limit", 10, 100)?;
    let ns: i32 = p
        .multi("namespace")?
        .first()
        .map(|x| x.parse().map_err(|_| ApiError::bad_value("namespace", x)))
        .transpose()?
        .unwrap_or(0);
    let resolve = p.get("redirects") == Some("resolve");
    let prefix = match index.codec().parse(search, ns) {
        Ok(t) if t.ns == ns => {
            if search.ends_with(' ') {
                t.dbkey + "_"
            } else {
                t.dbkey
            }
        }
        _ if search.trim().is_empty() => String::new(),
        _ => search.replace(' ', "_"),
    };
    let mut titles = Vec::new();
    for (_, n) in index.titles_from(ns, "", &prefix, limit * 2 + 10) {
        if titles.len() == limit {
            break;
        }
        let mut rec = index.page(n)?;
        if resolve
            && let Some(rd) = &rec.redirect
            && let crate::index::Resolution::Page { page, .. } = rd.resolution
        {
            rec = index.page(page)?;
        }
        let t = index.display_title(&rec);
        if !titles.contains(&t) {
            titles.push(t);
        }
    }
    let urls: Vec<String> = titles.iter().map(|t| cx.url_of(t)).collect();
    let descriptions = vec![String::new(); titles.len()];
    Ok(json!([search, titles, descriptions, urls]))
}
