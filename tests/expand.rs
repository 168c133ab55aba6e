//! Template expansion against MediaWiki 1.39 on the complete Latgalian Wikipedia: every
//! page of the dump is a template source, every namespace-0 page is expanded, and the
//! templates it records and the links and categories of its expanded text are compared
//! with `templatelinks`, `pagelinks` and `categorylinks` of `../shared/oracle`.
//!
//! Pages whose rendering runs Lua (in the oracle: pages with a `Module:` row in
//! templatelinks) are also scored on their own, so that a regression in the Lua
//! library shows even though they are a small share of all rows.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::AtomicBool;

use wikiwit::dump::Dump;
use wikiwit::expand::{ExpandConfig, Expander, PageRevision, TemplateSource};
use wikiwit::redirect::{self, RedirectSyntax};
use wikiwit::title::{InterwikiProfile, TitleCodec};
use wikiwit::wikitext::analyze;

use crate::util::*;

/// Categories MediaWiki adds on its own for errors of that installation (missing files,
/// script errors, reference errors); no page writes them.
const TRACKING: &[&str] = &[
    "Lapas,_kurās_ir_bojātas_failu_saites",
    "Lapas_ar_skriptu_kļūdām",
    "Lapas_ar_atsauču_kļūdām",
];

pub(crate) struct Wiki {
    pub(crate) pages: HashMap<(i32, String), String>,
    pub(crate) redirects: HashMap<(i32, String), (i32, String)>,
    /// Namespace-0 pages in dump order.
    pub(crate) articles: Vec<String>,
    /// Newest revision time (Unix seconds): the pinned "now".
    pub(crate) newest: i64,
    /// Each page's revision, for the `REVISION…` variables.
    pub(crate) revisions: HashMap<(i32, String), PageRevision>,
}

impl TemplateSource for Wiki {
    fn wikitext(&self, ns: i32, dbkey: &str) -> Option<Cow<'_, str>> {
        self.pages
            .get(&(ns, dbkey.to_string()))
            .map(|t| Cow::Borrowed(t.as_str()))
    }

    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        self.pages.contains_key(&(ns, dbkey.to_string()))
    }

    fn redirect(&self, ns: i32, dbkey: &str) -> Option<(i32, String)> {
        self.redirects.get(&(ns, dbkey.to_string())).cloned()
    }

    fn holds_templates(&self) -> bool {
        self.pages.keys().any(|(ns, _)| *ns == 10)
    }
}

pub(crate) fn load(dump: &Dump, codec: &TitleCodec, lang: &str) -> Wiki {
    let mut wiki = Wiki {
        pages: HashMap::new(),
        redirects: HashMap::new(),
        articles: Vec::new(),
        newest: 0,
        revisions: HashMap::new(),
    };
    let cancel = AtomicBool::new(false);
    dump.pages(
        |raw, _| {
            let t = codec.parse_page_title(&raw.title).ok();
            let target = match redirect::parse(&raw.text, lang, raw.redirect_attr.is_some(), codec)
            {
                RedirectSyntax::Target(r) if r.interwiki.is_none() => Some((r.ns, r.dbkey)),
                _ => None,
            };
            let time = time::OffsetDateTime::parse(
                &raw.timestamp,
                &time::format_description::well_known::Rfc3339,
            )
            .map(|t| t.unix_timestamp())
            .unwrap_or(0);
            let revision = PageRevision {
                page_id: raw.id,
                rev_id: Some(raw.rev_id),
                timestamp: time,
                size: Some(raw.text.len() as u64),
            };
            Ok((
                t.map(|t| (t.ns, t.dbkey)),
                target,
                raw.text.into_owned(),
                (time, revision),
            ))
        },
        |(title, target, text, (time, revision))| {
            wiki.newest = wiki.newest.max(time);
            if let Some(key) = title {
                wiki.revisions.insert(key.clone(), revision);
                if key.0 == 0 {
                    wiki.articles.push(key.1.clone());
                }
                if let Some(t) = target {
                    wiki.redirects.insert(key.clone(), t);
                }
                wiki.pages.insert(key, text);
            }
            Ok(())
        },
        |_| {},
        &cancel,
    )
    .expect("read the dump");
    wiki
}

fn tsv(name: &str) -> Vec<Vec<String>> {
    std::fs::read_to_string(oracle("ltgwiki-2017").join(name))
        .expect("oracle file")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// (page, namespace, title) rows.
type Rows = BTreeSet<(String, i32, String)>;

struct Score {
    name: &'static str,
    precision: f64,
    recall: f64,
    ours: usize,
    theirs: usize,
}

fn score(name: &'static str, ours: &Rows, theirs: &Rows, keep: &dyn Fn(&str) -> bool) -> Score {
    let o: BTreeSet<_> = ours.iter().filter(|r| keep(&r.0)).collect();
    let t: BTreeSet<_> = theirs.iter().filter(|r| keep(&r.0)).collect();
    let shared = o.intersection(&t).count() as f64;
    Score {
        name,
        precision: shared / o.len().max(1) as f64,
        recall: shared / t.len().max(1) as f64,
        ours: o.len(),
        theirs: t.len(),
    }
}

#[test]
fn ltgwiki_expansion_agrees_with_mediawiki() {
    let dump = Dump::open(&data("ltgwiki-2017-complete.xml.bz2"), None).expect("open dump");
    let site = dump.siteinfo().clone();
    let codec = TitleCodec::new(&site, InterwikiProfile::Mediawiki);
    let wiki = load(&dump, &codec, &site.lang);
    let dropped: HashSet<String> = tsv("dropped.tsv")
        .into_iter()
        .filter(|r| r[0] == "0")
        .map(|r| r[1].clone())
        .collect();

    let expander = Expander::new(&wiki, &codec, ExpandConfig::from_site(&site, wiki.newest));
    let started = std::time::Instant::now();
    let (mut templates, mut links, mut categories) = (Rows::new(), Rows::new(), Rows::new());
    let mut warnings: std::collections::BTreeMap<String, usize> = Default::default();
    for page in &wiki.articles {
        if dropped.contains(page) {
            continue;
        }
        let text = &wiki.pages[&(0, page.clone())];
        let e = expander.expand_page(0, page, text);
        for w in &e.warnings {
            let kind = serde_json::to_value(w)
                .ok()
                .and_then(|v| v["kind"].as_str().map(str::to_string))
                .unwrap_or_default();
            *warnings.entry(kind).or_insert(0usize) += 1;
        }
        for (ns, k) in &e.templates {
            templates.insert((page.clone(), *ns, k.clone()));
        }
        for (ns, k) in &e.existence_links {
            links.insert((page.clone(), *ns, k.clone()));
        }
        let s = analyze(&e.text, 0, page, &codec, &site.lang);
        for l in s.links {
            links.insert((page.clone(), l.ns, l.dbkey));
        }
        for c in s.categories {
            categories.insert((page.clone(), 14, c.dbkey));
        }
    }
    let elapsed = started.elapsed();

    let from_main = |r: &Vec<String>| r[0] == "0" && !dropped.contains(&r[1]);
    let oracle_templates: Rows = tsv("templatelinks.tsv")
        .iter()
        .filter(|r| from_main(r))
        .map(|r| (r[1].clone(), r[2].parse().unwrap_or(-99), r[3].clone()))
        .collect();
    let oracle_links: Rows = tsv("pagelinks.tsv")
        .iter()
        .filter(|r| from_main(r))
        .map(|r| (r[1].clone(), r[2].parse().unwrap_or(-99), r[3].clone()))
        .collect();
    let oracle_categories: Rows = tsv("categorylinks.tsv")
        .iter()
        .filter(|r| from_main(r) && !TRACKING.contains(&r[2].as_str()))
        .map(|r| (r[1].clone(), 14, r[2].clone()))
        .collect();
    // Pages whose rendering needs Lua: MediaWiki recorded a module for them.
    let lua_pages: HashSet<String> = oracle_templates
        .iter()
        .filter(|r| r.1 == 828)
        .map(|r| r.0.clone())
        .collect();
    // Links to templates are mostly the navigation bars' "view this template" links.
    let not_template =
        |rows: &Rows| -> Rows { rows.iter().filter(|r| r.1 != 10).cloned().collect() };

    let all = |_: &str| true;
    let no_lua = |p: &str| !lua_pages.contains(p);
    let lua = |p: &str| lua_pages.contains(p);
    let report = [
        score("templates", &templates, &oracle_templates, &all),
        score("categories", &categories, &oracle_categories, &all),
        score(
            "links",
            &not_template(&links),
            &not_template(&oracle_links),
            &all,
        ),
        score("links (incl. Template:)", &links, &oracle_links, &all),
    ];
    let report_no_lua = [
        score("templates", &templates, &oracle_templates, &no_lua),
        score("categories", &categories, &oracle_categories, &no_lua),
        score(
            "links",
            &not_template(&links),
            &not_template(&oracle_links),
            &no_lua,
        ),
        score("links (incl. Template:)", &links, &oracle_links, &no_lua),
    ];
    let report_lua = [
        score("templates", &templates, &oracle_templates, &lua),
        score("categories", &categories, &oracle_categories, &lua),
        score(
            "links",
            &not_template(&links),
            &not_template(&oracle_links),
            &lua,
        ),
        score("links (incl. Template:)", &links, &oracle_links, &lua),
    ];
    eprintln!(
        "ltgwiki: {} articles expanded in {:.2?} (warnings: {:?}); {} use Lua in MediaWiki",
        wiki.articles.len(),
        elapsed,
        warnings,
        lua_pages.len()
    );
    for (label, rows) in [
        ("all pages", &report),
        ("pages without Lua", &report_no_lua),
        ("pages using Lua", &report_lua),
    ] {
        for s in rows.iter() {
            eprintln!(
                "  {label:18} {:24} precision {:.4} recall {:.4} ({} ours, {} MediaWiki)",
                s.name, s.precision, s.recall, s.ours, s.theirs
            );
        }
    }
    for (name, rows) in [
        ("templatelinks", &oracle_templates),
        ("categorylinks", &oracle_categories),
        ("pagelinks", &oracle_links),
    ] {
        let lua = rows.iter().filter(|r| lua_pages.contains(&r.0)).count();
        eprintln!(
            "  oracle {name}: {lua} of {} rows come from pages using #invoke",
            rows.len()
        );
    }

    // The rows MediaWiki records that we miss, to show where the gap is.
    let missed: Vec<_> = not_template(&oracle_links)
        .difference(&not_template(&links))
        .cloned()
        .collect();
    for r in &missed {
        eprintln!("  missed link: {r:?}");
    }

    // Floors just below what is measured: with the dump's modules run, every row of
    // templatelinks, categorylinks and pagelinks agrees, on the pages using Lua too
    // (before Lua ran: templates recall 0.9429, links recall 0.9981 over all pages).
    let floors = [
        (0.999, 0.999),
        (0.999, 0.999),
        (0.999, 0.999),
        (0.999, 0.999),
    ];
    for (label, report) in [
        ("all pages", &report),
        ("without Lua", &report_no_lua),
        ("using Lua", &report_lua),
    ] {
        for ((p, r), s) in floors.iter().zip(report.iter()) {
            assert!(
                s.precision >= *p && s.recall >= *r,
                "ltgwiki {} ({label}): precision {:.4} (floor {p}), recall {:.4} (floor {r})",
                s.name,
                s.precision,
                s.recall
            );
        }
    }
    assert!(
        warnings.is_empty(),
        "no module of ltgwiki fails or hits a limit: {warnings:?}"
    );
}

/// The build expands pages: its exports against the oracle, the origin column, the
/// commands that expand from the index, and `--no-expand` keeping the pages as written.
#[test]
fn ltgwiki_build_with_expansion_agrees_with_mediawiki() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ix = tmp.path().join("ix");
    // ltg's messages, recorded from the oracle's MediaWiki (docs/expansion.md).
    let messages = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/expand-mw/messages-ltg.json");
    let messages = messages.to_str().expect("UTF-8 path");
    build(
        &data("ltgwiki-2017-complete.xml.bz2"),
        &ix,
        &[
            "--interwiki",
            "mediawiki",
            "--no-text",
            "--messages",
            messages,
        ],
    );
    let dropped: HashSet<String> = tsv("dropped.tsv")
        .into_iter()
        .filter(|r| r[0] == "0")
        .map(|r| r[1].clone())
        .collect();
    let rows = |text: String| -> Vec<Vec<String>> {
        text.lines()
            .map(|l| l.split('\t').map(str::to_string).collect::<Vec<_>>())
            .filter(|r: &Vec<String>| r[0] == "0" && !dropped.contains(&r[1]))
            .collect()
    };
    let triples = |rows: &[Vec<String>]| -> Rows {
        rows.iter()
            .map(|r| (r[1].clone(), r[2].parse().unwrap_or(-99), r[3].clone()))
            .collect()
    };
    let links = rows(export(&ix, "links"));
    let ours_links: Rows = triples(&links).into_iter().filter(|r| r.1 != 10).collect();
    let ours_templates = triples(&rows(export(&ix, "templates")));
    let ours_categories: Rows = rows(export(&ix, "categories"))
        .iter()
        .map(|r| (r[1].clone(), 14, r[2].clone()))
        .collect();
    let keep = |r: &Vec<String>| r[0] == "0" && !dropped.contains(&r[1]);
    let oracle_templates: Rows = triples(
        &tsv("templatelinks.tsv")
            .into_iter()
            .filter(keep)
            .collect::<Vec<_>>(),
    );
    let oracle_links: Rows = triples(
        &tsv("pagelinks.tsv")
            .into_iter()
            .filter(keep)
            .collect::<Vec<_>>(),
    )
    .into_iter()
    .filter(|r| r.1 != 10)
    .collect();
    let oracle_categories: Rows = tsv("categorylinks.tsv")
        .into_iter()
        .filter(|r| keep(r) && !TRACKING.contains(&r[2].as_str()))
        .map(|r| (r[1].clone(), 14, r[2].clone()))
        .collect();
    let lua: HashSet<String> = oracle_templates
        .iter()
        .filter(|r| r.1 == 828)
        .map(|r| r.0.clone())
        .collect();
    let no_lua = |p: &str| !lua.contains(p);
    for (s, floor_p, floor_r) in [
        (
            score("links", &ours_links, &oracle_links, &no_lua),
            0.999,
            0.999,
        ),
        (
            score("categories", &ours_categories, &oracle_categories, &no_lua),
            0.999,
            0.999,
        ),
        (
            score("templates", &ours_templates, &oracle_templates, &no_lua),
            0.999,
            0.999,
        ),
        (
            score("links, all", &ours_links, &oracle_links, &|_| true),
            0.999,
            0.99,
        ),
        (
            score(
                "templates, all",
                &ours_templates,
                &oracle_templates,
                &|_| true,
            ),
            0.999,
            0.94,
        ),
    ] {
        eprintln!(
            "build {}: precision {:.4} recall {:.4} ({} ours, {} MediaWiki)",
            s.name, s.precision, s.recall, s.ours, s.theirs
        );
        assert!(
            s.precision >= floor_p && s.recall >= floor_r,
            "{}: precision {:.4}, recall {:.4}",
            s.name,
            s.precision,
            s.recall
        );
    }
    // The origin column: own text or the template that made the row.
    assert!(links.iter().all(|r| r.len() == 7));
    assert!(links.iter().any(|r| r[6] == "own"));
    assert!(
        links.iter().any(|r| r[6].starts_with("Taiss:")),
        "no template-made link"
    );
    let own = ok(wikiwit()
        .args(["links", "Rēzekne", "--origin", "own", "--json", "--index"])
        .arg(&ix));
    let made = ok(wikiwit()
        .args([
            "links", "Rēzekne", "--origin", "template", "--json", "--index",
        ])
        .arg(&ix));
    assert!(own.lines().all(|l| l.contains("\"origin\":null")));
    assert!(!made.is_empty() && made.lines().all(|l| !l.contains("\"origin\":null")));

    // `expand` and `page --expanded` from the index; the manifest's build date.
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ix.join("manifest.json")).expect("manifest"))
            .expect("JSON");
    assert_eq!(m["build"]["expand"], true);
    assert_eq!(m["build"]["build_date"], "2017-08-13T03:12:18Z");
    let out = ok(wikiwit()
        .args(["expand", "--title", "Rēzekne", "--index"])
        .arg(&ix)
        .arg("{{PAGENAME}}/{{CURRENTYEAR}}/{{#expr:2*3}}"));
    assert_eq!(out, "Rēzekne/2017/6\n");
    // The build's messages are the index's: ltg month names, time format, errors; an
    // `expand --messages` file overrides them, and a bad one is an error naming it.
    assert!(ix.join("messages.json").exists());
    let out = ok(wikiwit()
        .args(["expand", "--index"])
        .arg(&ix)
        .arg("{{CURRENTMONTHNAME}} {{CURRENTTIME}} {{#expr: 1 + }}"));
    assert_eq!(
        out,
        "labeibys mieness 03.12 <strong class=\"error\">Izteiksmes kļūda: trūkst + operands.</strong>\n"
    );
    let english = tmp.path().join("english.json");
    std::fs::write(&english, "{\"lang\": \"en\"}").expect("write");
    let out = ok(wikiwit()
        .args(["expand", "--messages"])
        .arg(&english)
        .arg("--index")
        .arg(&ix)
        .arg("{{CURRENTMONTHNAME}} {{CURRENTTIME}}"));
    assert_eq!(out, "August 03:12\n");
    std::fs::write(&english, "{\"messages\": [").expect("write");
    refused(
        wikiwit()
            .args(["expand", "--messages"])
            .arg(&english)
            .arg("--index")
            .arg(&ix)
            .arg("x"),
        &["english.json"],
    );
    let json = ok(wikiwit()
        .args(["expand", "--json", "--index"])
        .arg(&ix)
        .arg("{{Cytys zeimeibys}}"));
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(v["templates"][0], "Taiss:Cytys zeimeibys", "{json}");
    let page = ok(wikiwit()
        .args(["page", "Rēzekne", "--expanded", "--index"])
        .arg(&ix));
    assert!(page.contains("class=\"infobox\"") && !page.contains("{{Infoskreine"));
    // Infobox values show what their templates expand to (`{{vol-de|Dagden}}`, a
    // language-label template of the dump that no hand-written table knows).
    let field = |ix: &std::path::Path, page: &str, name: &str| {
        ok(wikiwit().args(["infobox", page, name, "--index"]).arg(ix))
    };
    assert_eq!(
        field(&ix, "Dagda", "viesturiskuos_pasaukys").trim(),
        "vuocīšu: Dagden"
    );
    assert_eq!(
        field(&ix, "Jākubmīsts", "cytys_pasaukys").trim(),
        "latvīšu: Jēkabpils; vuocīšu: Jakobstadt"
    );

    // `--no-expand`: no sources, no template-made rows, and `expand` says why.
    let plain = tmp.path().join("plain");
    build(
        &data("ltgwiki-2017-complete.xml.bz2"),
        &plain,
        &[
            "--interwiki",
            "mediawiki",
            "--no-text",
            "--no-expand",
            "--build-date",
            "2020-01-01",
        ],
    );
    assert!(!plain.join("sources.rec").exists());
    assert_eq!(field(&plain, "Dagda", "viesturiskuos_pasaukys").trim(), "");
    assert!(
        export(&plain, "links")
            .lines()
            .all(|l| l.ends_with("\town"))
    );
    refused(
        wikiwit().args(["expand", "--index"]).arg(&plain).arg("x"),
        &["--no-expand"],
    );
}
