//! `meta=siteinfo` (general, namespaces, namespacealiases, interwikimap) and
//! `meta=userinfo` (always the anonymous reader).

use serde_json::{Map, Value, json};

use super::{ApiError, Ctx, Fv};

pub fn siteinfo(cx: &Ctx, query: &mut Map<String, Value>) -> Result<(), ApiError> {
    let props = match cx.p.get("siprop") {
        Some(_) => cx.p.choices(
            "siprop",
            &[
                "general",
                "namespaces",
                "namespacealiases",
                "interwikimap",
                "statistics",
            ],
        )?,
        None => vec!["general".into()],
    };
    for p in props {
        let (key, v) = match p.as_str() {
            "general" => ("general", general(cx)),
            "namespaces" => ("namespaces", namespaces(cx)),
            "namespacealiases" => ("namespacealiases", namespace_aliases(cx)),
            "interwikimap" => ("interwikimap", interwiki_map(cx)),
            _ => {
                let m = &cx.index().manifest().counts;
                ("statistics", json!({"pages": m.pages}))
            }
        };
        query.insert(key.into(), v);
    }
    Ok(())
}

/// MediaWiki's name for a case rule: the first letter folded, or none.
fn case(capitalized: bool) -> &'static str {
    if capitalized {
        "first-letter"
    } else {
        "case-sensitive"
    }
}

/// `siprop=general`: the wiki's identity, with the dump's own in `dumpbase`/`dumpgenerator`.
fn general(cx: &Ctx) -> Value {
    let site = &cx.index().manifest().site;
    let lang = super::query::lang(cx);
    let main = cx.url_of("Main Page");
    json!({
        "mainpage": "Main Page",
        "base": main,
        "sitename": site.sitename,
        "generator": format!("MediaWiki 1.39 API subset (wikiwit {})", env!("CARGO_PKG_VERSION")),
        "case": case(site.case == crate::siteinfo::CaseRule::FirstLetter),
        "lang": lang,
        "dbname": site.dbname,
        "wikiid": site.dbname,
        "server": cx.base,
        "servername": cx.base.trim_start_matches("http://"),
        "articlepath": "/wiki/$1",
        "scriptpath": "/w",
        "script": "/w/index.php",
        "readonly": cx.fv.yes(),
        "readonlyreason": "wikiwit serves a read-only index of a dump",
        "dumpbase": site.base,
        "dumpgenerator": site.generator,
    })
}

/// `siprop=namespaces`: an object keyed by namespace number.
fn namespaces(cx: &Ctx) -> Value {
    let codec = cx.index().codec();
    let table = codec.namespaces();
    let fv = cx.fv;
    let mut all = Map::new();
    for id in table.ids() {
        let name = table.name_of(id).unwrap_or("").replace('_', " ");
        let mut o = Map::new();
        o.insert("id".into(), json!(id));
        o.insert("case".into(), json!(case(table.is_capitalized(id))));
        match fv {
            Fv::V1 => o.insert("*".into(), json!(name)),
            Fv::V2 => o.insert("name".into(), json!(name)),
        };
        if let Some(c) = table.canonical_of(id) {
            o.insert("canonical".into(), json!(c.replace('_', " ")));
        }
        if id == 0 {
            o.insert("content".into(), fv.yes());
        } else if fv == Fv::V2 {
            o.insert("content".into(), json!(false));
        }
        all.insert(id.to_string(), Value::Object(o));
    }
    Value::Object(all)
}

/// `siprop=namespacealiases`: every other name a namespace answers to.
fn namespace_aliases(cx: &Ctx) -> Value {
    let codec = cx.index().codec();
    let v: Vec<Value> = codec
        .namespaces()
        .aliases()
        .into_iter()
        .map(|(id, name)| {
            let name = name.replace('_', " ");
            match cx.fv {
                Fv::V1 => json!({"id": id, "*": name}),
                Fv::V2 => json!({"id": id, "alias": name}),
            }
        })
        .collect();
    Value::Array(v)
}

/// `siprop=interwikimap`: the interwiki prefixes of the index's profile.
fn interwiki_map(cx: &Ctx) -> Value {
    let v: Vec<Value> = cx
        .index()
        .codec()
        .interwiki()
        .prefixes()
        .into_iter()
        .map(|(prefix, language)| {
            let mut o = json!({"prefix": prefix});
            if language {
                o["language"] = cx.fv.yes();
            }
            o
        })
        .collect();
    Value::Array(v)
}

pub fn userinfo(cx: &Ctx, query: &mut Map<String, Value>) -> Result<(), ApiError> {
    let mut o = json!({"id": 0, "name": "127.0.0.1", "anon": cx.fv.yes()});
    for p in cx.p.multi("uiprop")? {
        match p.as_str() {
            "groups" => o["groups"] = json!(["*"]),
            "rights" => o["rights"] = json!(["read"]),
            _ => {}
        }
    }
    query.insert("userinfo".into(), o);
    Ok(())
}
