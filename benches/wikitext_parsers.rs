//! `parse_wiki_text` (the design card's wikitext parser) against wikiwit's own scanner
//! (`wikitext::analyze`, no template expansion) on the same real pages: time per MB of
//! wikitext, pages `parse_wiki_text` could not finish within a bound (or panicked on),
//! and agreement with MediaWiki's oracle on links, headings and categories.
//!
//! ```sh
//! cargo bench --bench wikitext_parsers [-- DUMP ORACLE_DIR ...] [--bound-ms 2000]
//! ```
//!
//! Defaults: `../shared/data/enwiki-2016-206pages.xml.bz2` with
//! `../shared/oracle/enwiki-2016-206pages`, and `ltgwiki-2017-complete` with
//! `ltgwiki-2017`. Compared: the namespace-0 pages that are no redirect and that the
//! oracle holds. What each parser finds is normalized by the same title rules (wikiwit's
//! `TitleCodec`), so the comparison measures what each recognizes, not how it spells it.
//! Both read the page's own wikitext without expanding templates: links are those written
//! outside template calls, which on a dump without templates (enwiki-2016) is all that
//! MediaWiki records; on ltgwiki MediaWiki also records what templates write, which
//! neither finds.
//!
//! `parse_wiki_text` runs on a thread of its own per page with a time bound (it is
//! exponential on some malformed pages); a page past the bound is counted and left
//! behind (its thread is abandoned, the process exits at the end).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use parse_wiki_text::{Configuration, ConfigurationSource, Node};
use wikiwit::dump::Dump;
use wikiwit::title::{InterwikiProfile, TitleCodec};

/// One page to compare.
struct Page {
    dbkey: String,
    text: String,
}

/// What a parser found on a page: link targets, headings (level, text) and categories,
/// each as `ns:dbkey` keys (headings as `level:text`).
#[derive(Default)]
struct Found {
    links: BTreeSet<String>,
    headings: Vec<u8>,
    categories: BTreeSet<String>,
}

/// The oracle: per page (dbkey), MediaWiki's links, heading levels and categories.
#[derive(Default)]
struct Oracle {
    pages: BTreeSet<String>,
    links: BTreeMap<String, BTreeSet<String>>,
    headings: BTreeMap<String, Vec<u8>>,
    categories: BTreeMap<String, BTreeSet<String>>,
}

fn read_oracle(dir: &Path) -> Result<Oracle> {
    let read = |f: &str| -> Result<String> {
        std::fs::read_to_string(dir.join(f)).with_context(|| dir.join(f).display().to_string())
    };
    let mut o = Oracle::default();
    let dropped: BTreeSet<String> = std::fs::read_to_string(dir.join("dropped.tsv"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split('\t').nth(1).map(str::to_string))
        .collect();
    for l in read("pages.tsv")?.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 4 && f[1] == "0" && f[3] == "0" && !dropped.contains(f[2]) {
            o.pages.insert(f[2].to_string());
        }
    }
    for l in read("pagelinks.tsv")?.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 4 && f[0] == "0" {
            let to = format!("{}:{}", f[2], f[3]);
            o.links.entry(f[1].to_string()).or_default().insert(to);
        }
    }
    for l in read("categorylinks.tsv")?.lines() {
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() >= 3 && f[0] == "0" {
            let c = f[2].to_string();
            o.categories.entry(f[1].to_string()).or_default().insert(c);
        }
    }
    for l in read("sections.jsonl")?.lines() {
        let v: serde_json::Value = serde_json::from_str(l)?;
        let title = v["title"].as_str().unwrap_or_default().replace(' ', "_");
        let levels = v["sections"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|s| !s["index"].as_str().unwrap_or("").starts_with('T'))
                    .filter_map(|s| s["level"].as_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        o.headings.insert(title, levels);
    }
    Ok(o)
}

/// What a dump says about itself: its title rules, language, and the names (localized,
/// canonical, aliases; lower case) of its file and category namespaces.
struct Wiki {
    codec: TitleCodec,
    lang: String,
    files: Vec<String>,
    categories: Vec<String>,
}

/// The pages of `dump` the oracle compares, and the dump's title rules.
fn read_pages(dump: &Path, oracle: &Oracle) -> Result<(Vec<Page>, Wiki)> {
    let d = Dump::open(dump, None)?;
    let codec = TitleCodec::new(d.siteinfo(), InterwikiProfile::Wikimedia);
    let names = |id: i32, canonical: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = d
            .siteinfo()
            .namespaces
            .iter()
            .filter(|n| n.id == id)
            .map(|n| n.name.clone())
            .chain(canonical.iter().map(|c| c.to_string()))
            .chain(
                codec
                    .namespaces()
                    .aliases()
                    .into_iter()
                    .filter(|(i, _)| *i == id)
                    .map(|(_, a)| a.to_string()),
            )
            .map(|n| n.to_lowercase().replace('_', " "))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let wiki = Wiki {
        files: names(6, &["File", "Image"]),
        categories: names(14, &["Category"]),
        lang: d.siteinfo().lang.clone(),
        codec,
    };
    let mut pages = Vec::new();
    d.pages(
        |raw, _| Ok((raw.ns, raw.title.replace(' ', "_"), raw.text.into_owned())),
        |(ns, dbkey, text)| {
            if ns == 0 && oracle.pages.contains(&dbkey) {
                pages.push(Page { dbkey, text });
            }
            Ok(())
        },
        |_| {},
        &AtomicBool::new(false),
    )?;
    Ok((pages, wiki))
}

/// `ns:dbkey` of a link target as MediaWiki reads it, or `None` for what is no page link
/// (interwiki, invalid).
fn key(codec: &TitleCodec, target: &str) -> Option<(i32, String)> {
    let t = codec.parse(target, 0).ok()?;
    t.interwiki.is_none().then_some((t.ns, t.dbkey))
}

fn wikiwit_found(p: &Page, codec: &TitleCodec, lang: &str) -> Found {
    let s = wikiwit::wikitext::analyze(&p.text, 0, &p.dbkey, codec, lang);
    Found {
        links: s
            .links
            .iter()
            .filter(|l| !l.in_template)
            .map(|l| format!("{}:{}", l.ns, l.dbkey))
            .collect(),
        headings: s.sections.iter().map(|x| x.level).collect(),
        categories: s.categories.iter().map(|c| c.dbkey.clone()).collect(),
    }
}

/// What `parse_wiki_text` found, walking every node but template calls (whose output
/// neither parser knows).
fn pwt_found(nodes: &[Node<'_>], codec: &TitleCodec, out: &mut Found) {
    for n in nodes {
        match n {
            Node::Link { target, text, .. } => {
                if let Some((ns, k)) = key(codec, target) {
                    out.links.insert(format!("{ns}:{k}"));
                }
                pwt_found(text, codec, out);
            }
            Node::Category { target, .. } => {
                if let Some((14, k)) = key(codec, target) {
                    out.categories.insert(k);
                }
            }
            Node::Heading { level, nodes, .. } => {
                out.headings.push(*level);
                pwt_found(nodes, codec, out);
            }
            Node::Image { text, .. } => pwt_found(text, codec, out),
            Node::Tag { nodes, .. }
            | Node::Preformatted { nodes, .. }
            | Node::ExternalLink { nodes, .. } => pwt_found(nodes, codec, out),
            Node::UnorderedList { items, .. } | Node::OrderedList { items, .. } => {
                for i in items {
                    pwt_found(&i.nodes, codec, out);
                }
            }
            Node::DefinitionList { items, .. } => {
                for i in items {
                    pwt_found(&i.nodes, codec, out);
                }
            }
            Node::Table { captions, rows, .. } => {
                for c in captions {
                    pwt_found(&c.content, codec, out);
                }
                for r in rows {
                    for c in &r.cells {
                        pwt_found(&c.content, codec, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// How `parse_wiki_text` ended on a page.
enum Outcome {
    Done(Box<Found>, Duration),
    Panicked,
    TimedOut,
}

/// `parse_wiki_text` on `text`, on a thread of its own, bounded by `bound`.
fn run_pwt(
    config: &'static Configuration,
    codec: &'static TitleCodec,
    text: String,
    bound: Duration,
) -> Outcome {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let t0 = Instant::now();
            let out = config.parse(&text);
            let took = t0.elapsed();
            let mut f = Found::default();
            pwt_found(&out.nodes, codec, &mut f);
            (f, took)
        }));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(bound) {
        Ok(Ok((f, took))) => Outcome::Done(Box::new(f), took),
        Ok(Err(_)) => Outcome::Panicked,
        Err(_) => Outcome::TimedOut,
    }
}

/// Micro-averaged agreement of found sets with the oracle's: (precision, recall).
#[derive(Default)]
struct Agreement {
    found: usize,
    right: usize,
    want: usize,
}

impl Agreement {
    fn add(&mut self, found: &BTreeSet<String>, want: &BTreeSet<String>) {
        self.found += found.len();
        self.want += want.len();
        self.right += found.intersection(want).count();
    }

    fn show(&self) -> String {
        let pct = |a: usize, b: usize| {
            if b == 0 {
                100.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        format!(
            "P {:.1} % R {:.1} %",
            pct(self.right, self.found),
            pct(self.right, self.want)
        )
    }
}

/// Per parser: time, bytes, and agreement on links, headings (pages whose heading levels
/// equal the oracle's, in order) and categories.
#[derive(Default)]
struct Score {
    seconds: f64,
    bytes: usize,
    pages: usize,
    links: Agreement,
    headings_equal: usize,
    categories: Agreement,
}

impl Score {
    fn add(&mut self, p: &Page, f: &Found, took: Duration, o: &Oracle) {
        self.seconds += took.as_secs_f64();
        self.bytes += p.text.len();
        self.pages += 1;
        let none = BTreeSet::new();
        self.links
            .add(&f.links, o.links.get(&p.dbkey).unwrap_or(&none));
        self.categories
            .add(&f.categories, o.categories.get(&p.dbkey).unwrap_or(&none));
        let want = o.headings.get(&p.dbkey).map(Vec::as_slice).unwrap_or(&[]);
        self.headings_equal += usize::from(f.headings == want);
    }

    fn row(&self, name: &str) -> String {
        let mb = self.bytes as f64 / 1e6;
        format!(
            "| {name} | {} | {:.2} MB | {:.3} s | {:.3} s/MB | links {} | headings {}/{} pages equal | categories {} |",
            self.pages,
            mb,
            self.seconds,
            self.seconds / mb.max(1e-9),
            self.links.show(),
            self.headings_equal,
            self.pages,
            self.categories.show()
        )
    }
}

fn bench(dump: &Path, oracle_dir: &Path, bound: Duration) -> Result<()> {
    let oracle = read_oracle(oracle_dir)?;
    let (pages, wiki) = read_pages(dump, &oracle)?;
    let config = pwt_config(&wiki);
    let wiki: &'static Wiki = Box::leak(Box::new(wiki));
    let (codec, lang) = (&wiki.codec, &wiki.lang);
    let (mut ours, mut theirs, mut ours_same) =
        (Score::default(), Score::default(), Score::default());
    let (mut timed_out, mut panicked) = (Vec::new(), Vec::new());
    for p in &pages {
        let t0 = Instant::now();
        let f = wikiwit_found(p, codec, lang);
        let took = t0.elapsed();
        ours.add(p, &f, took, &oracle);
        match run_pwt(config, codec, p.text.clone(), bound) {
            Outcome::Done(g, t) => {
                theirs.add(p, &g, t, &oracle);
                ours_same.add(p, &f, took, &oracle);
            }
            Outcome::Panicked => panicked.push(p.dbkey.clone()),
            Outcome::TimedOut => timed_out.push(p.dbkey.clone()),
        }
    }
    println!(
        "\n{} ({} pages, oracle {}), bound {} ms",
        dump.display(),
        pages.len(),
        oracle_dir.display(),
        bound.as_millis()
    );
    println!(
        "| parser | pages | wikitext | time | per MB | links vs oracle | headings | categories |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!("{}", ours.row("wikiwit, every page"));
    println!(
        "{}",
        ours_same.row("wikiwit, pages parse_wiki_text finished")
    );
    println!("{}", theirs.row("parse_wiki_text 0.1.5"));
    println!(
        "parse_wiki_text: {} page(s) past the bound {:?}, {} panic(s) {:?}",
        timed_out.len(),
        timed_out,
        panicked.len(),
        panicked
    );
    Ok(())
}

/// `parse_wiki_text`'s own defaults (English Wikipedia's extension tags, magic words
/// and URL protocols), which its `Configuration::default` does not expose for reuse.
const TAGS: &str = "categorytree ce charinsert chem gallery graph hiero imagemap indicator \
    inputbox mapframe maplink math nowiki poem pre ref references score section source \
    syntaxhighlight templatedata timeline";
const MAGIC_WORDS: &str = "DISAMBIG FORCETOC HIDDENCAT INDEX NEWSECTIONLINK NOCC \
    NOCOLLABORATIONHUBTOC NOCONTENTCONVERT NOEDITSECTION NOGALLERY NOGLOBAL NOINDEX \
    NONEWSECTIONLINK NOTC NOTITLECONVERT NOTOC STATICREDIRECT TOC";
const PROTOCOLS: &str = "// bitcoin: ftp:// ftps:// geo: git:// gopher:// http:// https:// \
    irc:// ircs:// magnet: mailto: mms:// news: nntp:// redis:// sftp:// sip: sips: sms: \
    ssh:// svn:// tel: telnet:// urn: worldwind:// xmpp:";

/// `parse_wiki_text`'s configuration for the dump: its own defaults with the dump's
/// names of the category and file namespaces and their aliases.
fn pwt_config(wiki: &Wiki) -> &'static Configuration {
    fn names(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let words = |s: &'static str| -> Vec<&'static str> { s.split_whitespace().collect() };
    let (categories, files) = (names(&wiki.categories), names(&wiki.files));
    let (tags, magic, protocols) = (words(TAGS), words(MAGIC_WORDS), words(PROTOCOLS));
    let source = ConfigurationSource {
        category_namespaces: &categories,
        extension_tags: &tags,
        file_namespaces: &files,
        link_trail: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
        magic_words: &magic,
        protocols: &protocols,
        redirect_magic_words: &["REDIRECT"],
    };
    Box::leak(Box::new(Configuration::new(&source)))
}

/// The hazard `../shared/MEDIAWIKI.md` names: `n` unclosed `{{` in a table cell, the
/// kind of damage a real dump holds (an unfinished edit). Time of each parser, or the
/// bound when `parse_wiki_text` did not finish.
fn hazard(bound: Duration) {
    let codec: &'static TitleCodec = Box::leak(Box::new(TitleCodec::new(
        &wikiwit::siteinfo::SiteInfo::synthesized("en"),
        InterwikiProfile::Wikimedia,
    )));
    let wiki = Wiki {
        codec: TitleCodec::new(
            &wikiwit::siteinfo::SiteInfo::synthesized("en"),
            InterwikiProfile::Wikimedia,
        ),
        lang: "en".into(),
        files: vec!["file".into(), "image".into()],
        categories: vec!["category".into()],
    };
    let config = pwt_config(&wiki);
    println!(
        "\nunclosed `{{{{` in a table cell, bound {} ms",
        bound.as_millis()
    );
    println!("| n | wikitext | wikiwit | parse_wiki_text |");
    println!("|---|---|---|---|");
    for n in [8, 12, 16, 20, 24, 28] {
        let text = format!("{{|\n|-\n| a {} [[B]] c\n|}}\n", "{{x|".repeat(n));
        let t0 = Instant::now();
        let s = wikiwit::wikitext::analyze(&text, 0, "Hazard", codec, "en");
        let ours = t0.elapsed();
        let theirs = match run_pwt(config, codec, text.clone(), bound) {
            Outcome::Done(_, t) => format!("{:.3} ms", t.as_secs_f64() * 1e3),
            Outcome::Panicked => "panicked".to_string(),
            Outcome::TimedOut => format!("past {} ms", bound.as_millis()),
        };
        println!(
            "| {n} | {} B | {:.3} ms ({} link) | {theirs} |",
            text.len(),
            ours.as_secs_f64() * 1e3,
            s.links.len()
        );
    }
}

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut bound = Duration::from_millis(2000);
    if let Some(i) = args.iter().position(|a| a == "--bound-ms") {
        let ms: u64 = args.get(i + 1).context("--bound-ms N")?.parse()?;
        bound = Duration::from_millis(ms);
        args.drain(i..i + 2);
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let pairs: Vec<(PathBuf, PathBuf)> = if args.is_empty() {
        [
            ("enwiki-2016-206pages.xml.bz2", "enwiki-2016-206pages"),
            ("ltgwiki-2017-complete.xml.bz2", "ltgwiki-2017"),
        ]
        .iter()
        .map(|(d, o)| (shared.join("data").join(d), shared.join("oracle").join(o)))
        .collect()
    } else {
        args.chunks(2)
            .map(|c| {
                (
                    PathBuf::from(&c[0]),
                    PathBuf::from(c.get(1).cloned().unwrap_or_default()),
                )
            })
            .collect()
    };
    for (dump, oracle) in &pairs {
        bench(dump, oracle, bound)?;
    }
    hazard(bound);
    // Threads past the bound may still run: end the process without waiting for them.
    std::process::exit(0)
}
