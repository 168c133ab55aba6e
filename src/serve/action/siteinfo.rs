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
    let index = cx.index();
    let site = &index.manifest().site;
    let codec = index.codec();
    let table = codec.namespaces();
    let fv = cx.fv;
    let case = |capitalized: bool| {
        if capitalized {
            "first-letter"
        } else {
            "case-sensitive"
        }
    };
    for p in props {
        match p.as_str() {
            "general" => {
                let lang = super::query::lang(cx);
                let main = cx.url_of("Main Page");
                query.insert(
                    "general".into(),
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
                        "readonly": fv.yes(),
                        "readonlyreason": "wikiwit serves a read-only index of a dump",
                        "dumpbase": site.base,
                        "dumpgenerator": site.generator,
                    }),
                );
            }
            "namespaces" => {
                let mut all = Vec::new();
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
                    all.push((id, Value::Object(o)));
                }
                let v = match fv {
                    Fv::V1 => {
                        Value::Object(all.into_iter().map(|(id, v)| (id.to_string(), v)).collect())
                    }
                    Fv::V2 => {
                        Value::Object(all.into_iter().map(|(id, v)| (id.to_string(), v)).collect())
                    }
                };
                query.insert("namespaces".into(), v);
            }
            "namespacealiases" => {
                let v: Vec<Value> = table
                    .aliases()
                    .into_iter()
                    .map(|(id, name)| {
                        let name = name.replace('_', " ");
                        match fv {
                            Fv::V1 => json!({"id": id, "*": name}),
                            Fv::V2 => json!({"id": id, "alias": name}),
                        }
                    })
                    .collect();
                query.insert("namespacealiases".into(), Value::Array(v));
            }
            "interwikimap" => {
                let v: Vec<Value> = codec
                    .interwiki()
                    .prefixes()
                    .into_iter()
                    .map(|(prefix, language)| {
                        let mut o = json!({"prefix": prefix});
                        if language {
                            o["language"] = fv.yes();
                        }
                        o
                    })
                    .collect();
                query.insert("interwikimap".into(), Value::Array(v));
            }
            _ => {
                let m = &index.manifest().counts;
                query.insert("statistics".into(), json!({"pages": m.pages}));
            }
        }
    }
    Ok(())
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
