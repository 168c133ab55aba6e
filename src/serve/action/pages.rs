//! The page set of a query (`titles`, `pageids` or a generator's pages): titles
//! normalized and reported, redirects followed when asked, missing and invalid titles
//! kept with MediaWiki's negative ids.

use serde_json::{Map, Value, json};

use super::{ApiError, Ctx, Fv};
use crate::index::{Lookup, PageRecord};

/// What a title of the set is.
#[derive(Debug, Clone)]
pub enum Kind {
    /// An existing page: its number in the index and its record.
    Page(u32, Box<PageRecord>),
    Missing,
    /// Not a valid title, and why.
    Invalid(String),
}

#[derive(Debug, Clone)]
pub struct Item {
    pub ns: i32,
    /// Prefixed text (`Category:Rivers of Europe`), or the input of an invalid title.
    pub title: String,
    pub kind: Kind,
}

impl Item {
    pub fn page(&self) -> Option<(u32, &PageRecord)> {
        match &self.kind {
            Kind::Page(n, rec) => Some((*n, rec)),
            _ => None,
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct PageSet {
    pub items: Vec<Item>,
    pub normalized: Vec<(String, String)>,
    /// (from, to, fragment)
    pub redirects: Vec<(String, String, Option<String>)>,
    /// (title, prefix)
    pub interwiki: Vec<(String, String)>,
    pub bad_ids: Vec<String>,
}

impl PageSet {
    fn push(&mut self, item: Item) {
        let dup = self.items.iter().any(|i| match (&i.kind, &item.kind) {
            (Kind::Page(a, _), Kind::Page(b, _)) => a == b,
            (Kind::Invalid(_), _) | (_, Kind::Invalid(_)) => false,
            _ => i.title == item.title && i.ns == item.ns,
        });
        if !dup {
            self.items.push(item);
        }
    }

    fn push_page(&mut self, cx: &Ctx, n: u32) -> Result<(), ApiError> {
        let rec = cx.index().page(n)?;
        self.push(Item {
            ns: rec.ns,
            title: cx.index().display_title(&rec),
            kind: Kind::Page(n, Box::new(rec)),
        });
        Ok(())
    }

    /// Titles as a client wrote them.
    pub(crate) fn add_titles(&mut self, cx: &Ctx, titles: &[String]) -> Result<(), ApiError> {
        let index = cx.index();
        for t in titles {
            let (title, n) = match index.lookup(t) {
                Lookup::Invalid(e) => {
                    self.push(Item {
                        ns: 0,
                        title: t.clone(),
                        kind: Kind::Invalid(e.to_string()),
                    });
                    continue;
                }
                Lookup::Interwiki(title) => {
                    self.interwiki
                        .push((t.clone(), title.interwiki.unwrap_or_default()));
                    continue;
                }
                Lookup::Missing(title) => (title, None),
                Lookup::Page(title, n) => (title, Some(n)),
            };
            let text = index.codec().prefixed_text(title.ns, &title.dbkey);
            if &text != t && !self.normalized.iter().any(|(f, _)| f == t) {
                self.normalized.push((t.clone(), text.clone()));
            }
            match n {
                Some(n) => self.push_page(cx, n)?,
                None => self.push(Item {
                    ns: title.ns,
                    title: text,
                    kind: Kind::Missing,
                }),
            }
        }
        Ok(())
    }

    /// Page ids; unknown ones are reported in `badpageids`.
    pub(crate) fn add_ids(&mut self, cx: &Ctx, ids: &[String]) -> Result<(), ApiError> {
        for id in ids {
            let n = id
                .trim()
                .parse::<u64>()
                .map_err(|_| {
                    ApiError::new(
                        "badinteger",
                        format!("Invalid value \"{id}\" for integer parameter \"pageids\"."),
                    )
                })
                .map(|i| cx.state.page_by_id(i))?;
            match n {
                Some(n) => self.push_page(cx, n)?,
                None => self.bad_ids.push(id.trim().to_string()),
            }
        }
        Ok(())
    }

    /// Pages a generator produced, as (namespace, DB key).
    pub(crate) fn add_keys(&mut self, cx: &Ctx, keys: &[(i32, String)]) -> Result<(), ApiError> {
        for (ns, dbkey) in keys {
            match cx.index().find(*ns, dbkey) {
                Some(n) => self.push_page(cx, n)?,
                None => self.push(Item {
                    ns: *ns,
                    title: cx.index().codec().prefixed_text(*ns, dbkey),
                    kind: Kind::Missing,
                }),
            }
        }
        Ok(())
    }

    /// Replaces each redirect by the page its chain ends on, recording every hop.
    pub(crate) fn follow_redirects(&mut self, cx: &Ctx) -> Result<(), ApiError> {
        let index = cx.index();
        let items = std::mem::take(&mut self.items);
        for item in items {
            let Some((n, rec)) = item.page() else {
                self.push(item);
                continue;
            };
            if rec.redirect.is_none() {
                self.push(item.clone());
                continue;
            }
            let mut seen = vec![n];
            let mut cur = rec.clone();
            let mut cur_title = item.title.clone();
            let mut end = Item {
                kind: Kind::Page(n, Box::new(rec.clone())),
                ..item.clone()
            };
            while let Some(rd) = cur.redirect.clone() {
                if let Some(iw) = &rd.interwiki {
                    self.interwiki.push((cur_title.clone(), iw.clone()));
                    break;
                }
                let to = index.codec().prefixed_text(rd.ns, &rd.dbkey);
                self.redirects
                    .push((cur_title.clone(), to.clone(), rd.fragment.clone()));
                match index.find(rd.ns, &rd.dbkey) {
                    None => {
                        end = Item {
                            ns: rd.ns,
                            title: to,
                            kind: Kind::Missing,
                        };
                        break;
                    }
                    Some(m) if seen.contains(&m) => break,
                    Some(m) => {
                        seen.push(m);
                        cur = index.page(m)?;
                        cur_title = to.clone();
                        end = Item {
                            ns: cur.ns,
                            title: to,
                            kind: Kind::Page(m, Box::new(cur.clone())),
                        };
                    }
                }
            }
            self.push(end);
        }
        Ok(())
    }

    /// Existing pages first, by page id, then the others in input order with the
    /// negative ids MediaWiki gives them.
    pub fn ordered(&self) -> Vec<(i64, &Item)> {
        let mut pages: Vec<(i64, &Item)> = self
            .items
            .iter()
            .filter_map(|i| i.page().map(|(_, r)| (r.id as i64, i)))
            .collect();
        pages.sort_by_key(|(id, _)| *id);
        let others = self
            .items
            .iter()
            .filter(|i| i.page().is_none())
            .enumerate()
            .map(|(k, i)| (-(k as i64) - 1, i));
        pages.extend(others);
        pages
    }

    /// `normalized`, `redirects`, `interwiki` and `badpageids` into `query`.
    pub fn report(&self, fv: Fv, query: &mut Map<String, Value>) {
        if !self.normalized.is_empty() {
            let v: Vec<Value> = self
                .normalized
                .iter()
                .map(|(f, t)| match fv {
                    Fv::V1 => json!({"from": f, "to": t}),
                    Fv::V2 => json!({"fromencoded": false, "from": f, "to": t}),
                })
                .collect();
            query.insert("normalized".into(), Value::Array(v));
        }
        if !self.redirects.is_empty() {
            let v: Vec<Value> = self
                .redirects
                .iter()
                .map(|(f, t, frag)| {
                    let mut o = json!({"from": f, "to": t});
                    if let Some(fr) = frag {
                        o["tofragment"] = json!(fr);
                    }
                    o
                })
                .collect();
            query.insert("redirects".into(), Value::Array(v));
        }
        if !self.interwiki.is_empty() {
            let v: Vec<Value> = self
                .interwiki
                .iter()
                .map(|(t, iw)| json!({"title": t, "iw": iw}))
                .collect();
            query.insert("interwiki".into(), Value::Array(v));
        }
        if !self.bad_ids.is_empty() {
            query.insert("badpageids".into(), json!(self.bad_ids));
        }
    }

    /// The `pages` member: each item with what the props added to it.
    pub(crate) fn pages_json(
        &self,
        fv: Fv,
        extra: &mut std::collections::HashMap<usize, Map<String, Value>>,
    ) -> Value {
        let mut list = Vec::new();
        let pos = |item: &Item| {
            self.items
                .iter()
                .position(|i| std::ptr::eq(i, item))
                .unwrap_or(0)
        };
        for (id, item) in self.ordered() {
            let mut o = Map::new();
            match &item.kind {
                Kind::Page(_, rec) => {
                    o.insert("pageid".into(), json!(rec.id));
                    o.insert("ns".into(), json!(item.ns));
                    o.insert("title".into(), json!(item.title));
                }
                Kind::Missing => {
                    o.insert("ns".into(), json!(item.ns));
                    o.insert("title".into(), json!(item.title));
                    o.insert("missing".into(), fv.yes());
                }
                Kind::Invalid(reason) => {
                    o.insert("title".into(), json!(item.title));
                    o.insert("invalidreason".into(), json!(reason));
                    o.insert("invalid".into(), fv.yes());
                }
            }
            if let Some(e) = extra.remove(&pos(item)) {
                o.extend(e);
            }
            list.push((id, Value::Object(o)));
        }
        match fv {
            Fv::V1 => Value::Object(
                list.into_iter()
                    .map(|(id, v)| (id.to_string(), v))
                    .collect(),
            ),
            Fv::V2 => Value::Array(list.into_iter().map(|(_, v)| v).collect()),
        }
    }
}
