//! Pages for people: the HTML reports of `audit --html` and `cite check --html` (input
//! escaped, every finding and citation shown, locators linking into the page view), and
//! `serve`'s `/wiki/TITLE` page and reports loaded in a real headless browser (Debian's
//! Chromium) with no console errors and the elements a reader needs.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::serve::{Server, enwiki_index};
use crate::util;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/html")
        .join(name)
}

/// Staged rows for the Aruba regions contract: two right, one with a wrong name carrying
/// markup and quotes, one with quotes in its key; one number in a non-canonical form.
const ROWS: &str = r#"{"region": "Noord / Tanki Leendert", "population": "21495", "source_page": "Aruba", "locator": "Aruba#Regions|table:1|row:0"}
{"region": "Oranjestad West", "population": "13,976", "source_page": "Aruba", "locator": "Aruba#Regions|table:1|row:1"}
{"region": "Paradera <script>alert(\"row\")</script>", "population": "12024", "source_page": "Aruba", "locator": "Aruba#Regions|table:1|row:3"}
{"region": "Santa \"Cruz\"", "population": "12870", "source_page": "Aruba", "locator": "Aruba|table:1|row:6"}
"#;

/// A report whose claims carry markup (as entities and in a code span, which the
/// parser keeps as text) and quotes: a supported-in-part claim, an unsupported figure,
/// a page the index does not have.
const REPORT: &str = "# Aruba\n\n\
Aruba's capital is \"Oranjestad\" &lt;script&gt;alert(\"claim\")&lt;/script&gt; \
and `<img src=x onerror=alert(1)>`.[1] \
Aruba has a land area of 999 km2.[2] The Atlantis article says it sank.[3]\n\n\
[1]: https://en.wikipedia.org/wiki/Aruba\n\
[2]: https://en.wikipedia.org/wiki/Aruba#Geography\n\
[3]: https://en.wikipedia.org/wiki/Atlantis_(no_such_page)\n";

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Nothing from the input runs or loads: no script element, no external resource.
fn assert_inert(html: &str, what: &str) {
    let lower = html.to_ascii_lowercase();
    assert!(!lower.contains("<script"), "{what}: a script element");
    assert!(!lower.contains("<link"), "{what}: a linked resource");
    assert!(!lower.contains("<img"), "{what}: an image element");
    assert!(!lower.contains(" src=\""), "{what}: an embedded resource");
    assert!(!lower.contains("@import"), "{what}: an imported stylesheet");
}

fn audit_html(index: &Path, dir: &Path) -> (String, Vec<Value>) {
    let rows = dir.join("rows.jsonl");
    std::fs::write(&rows, ROWS).unwrap();
    let (html, log) = (dir.join("audit.html"), dir.join("findings.jsonl"));
    let o = util::wikiwit()
        .arg("audit")
        .arg(fixture("aruba-regions-contract.json"))
        .arg(&rows)
        .arg("--index")
        .arg(index)
        .arg("--findings")
        .arg(&log)
        .arg("--html")
        .arg(&html)
        .args(["--wiki-base", "http://127.0.0.1:9/"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", util::stderr(&o));
    let findings = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("check").is_some())
        .collect();
    (std::fs::read_to_string(&html).unwrap(), findings)
}

fn cite_html(index: &Path, dir: &Path) -> (String, Value) {
    let report = dir.join("report.md");
    std::fs::write(&report, REPORT).unwrap();
    let html = dir.join("cite.html");
    let run = |extra: &[&str]| {
        util::wikiwit()
            .args(["cite", "check"])
            .arg(&report)
            .arg("--index")
            .arg(index)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&[
        "--html",
        html.to_str().unwrap(),
        "--wiki-base",
        "http://127.0.0.1:9",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", util::stderr(&o));
    let json: Value = serde_json::from_slice(&run(&["--json"]).stdout).unwrap();
    (std::fs::read_to_string(&html).unwrap(), json)
}

#[test]
fn html_reports_escape_their_input_and_show_every_finding() {
    let tmp = enwiki_index();
    let index = tmp.path().join("idx");

    let (html, findings) = audit_html(&index, tmp.path());
    assert_inert(&html, "audit report");
    assert!(html.contains("Paradera &lt;script&gt;alert(&quot;row&quot;)&lt;/script&gt;"));
    assert!(html.contains("Santa &quot;Cruz&quot;"));
    assert_eq!(findings.len(), 3, "{findings:?}");
    assert_eq!(count(&html, "class=\"item f-"), findings.len());
    for sev in ["blocking", "hygiene", "advisory"] {
        let n = findings.iter().filter(|f| f["severity"] == sev).count();
        assert_eq!(count(&html, &format!("class=\"item f-{sev}\"")), n, "{sev}");
        assert!(
            html.contains(&format!("{sev} ({n})")),
            "filter label for {sev}"
        );
    }
    // A row locator links to its row in the page view; one in a named section to it.
    assert!(html.contains("href=\"http://127.0.0.1:9/wiki/Aruba#table-1-row-6\""));
    assert!(html.contains("href=\"http://127.0.0.1:9/wiki/Aruba#Regions\""));
    // What the locator resolved to: the row's cells.
    assert!(html.contains("<mark class=\"evidence\">Name: Santa Cruz;"));

    let (html, json) = cite_html(&index, tmp.path());
    assert_inert(&html, "citation report");
    assert!(html.contains(
        "&quot;Oranjestad&quot; &lt;script&gt;alert(&quot;claim&quot;)&lt;/script&gt; \
         and &lt;img src=x onerror=alert(1)&gt;"
    ));
    let citations = json["citations"].as_array().unwrap();
    assert_eq!(citations.len(), 3);
    assert_eq!(count(&html, "class=\"item f-"), citations.len());
    for c in citations {
        let verdict = c["verdict"].as_str().unwrap().replace('_', "-");
        let class = match verdict.as_str() {
            "unresolved" => "unresolved-marker".to_string(),
            "not-checkable" => "not-checkable-offline".to_string(),
            v => v.to_string(),
        };
        assert!(
            html.contains(&format!(
                "class=\"item f-{class}\" id=\"citation-{}\"",
                c["id"]
            )),
            "citation {} ({verdict})",
            c["id"]
        );
    }
    let verdicts: Vec<&str> = citations
        .iter()
        .map(|c| c["verdict"].as_str().unwrap())
        .collect();
    assert!(verdicts.contains(&"source_missing"), "{verdicts:?}");
    // The evidence the verdict rests on is highlighted, the cited section linked.
    assert!(html.contains("<mark class=\"support\">"));
    assert!(html.contains("href=\"http://127.0.0.1:9/wiki/Aruba#Geography\""));
}

/// Debian's Chromium, or `None` (skipping, saying so) when it is absent outside CI.
fn chromium(test: &str) -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
    });
    if found.is_none() {
        assert!(
            std::env::var_os("WIKIWIT_REQUIRE_PYTHON").is_none(),
            "{test}: CI requires Chromium (.ci/run installs the chromium package)"
        );
        eprintln!("{test}: skipped — install chromium (apt-get install chromium) to run it");
    }
    found
}

/// Loads `url` in headless Chromium; returns the DOM after load and the console
/// messages Chromium logged (our pages have no script, so any message is a fault).
fn load(chromium: &Path, profile: &Path, url: &str) -> (String, Vec<String>) {
    let o = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .output()
        .expect("run chromium");
    let console = util::stderr(&o)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    let dom = util::stdout(&o);
    assert!(
        dom.contains("</html>"),
        "{url}: no DOM: {}",
        util::stderr(&o)
    );
    (dom, console)
}

/// Percent-encodes a query-string value (every byte but the unreserved ones).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn pages_and_reports_load_in_headless_chromium() {
    let test = "html::pages_and_reports_load_in_headless_chromium";
    let Some(chromium) = chromium(test) else {
        return;
    };
    let tmp = enwiki_index();
    let index = tmp.path().join("idx");
    let profile = tmp.path().join("chromium-profile");

    // The console check can fail: a page that logs an error is caught.
    let probe = tmp.path().join("probe.html");
    std::fs::write(
        &probe,
        "<!DOCTYPE html><p>x</p><script>console.error('wikiwit probe')</script>",
    )
    .unwrap();
    let (_, console) = load(&chromium, &profile, &format!("file://{}", probe.display()));
    assert!(
        console.iter().any(|l| l.contains("wikiwit probe")),
        "Chromium's console log is not read: {console:?}"
    );

    let server = Server::start(&index, &[]);
    let base = format!("http://{}", server.addr);

    // The page view: a redirect shown, sections, the table with its row numbers as
    // locators count them, the infobox, links, categories.
    let (dom, console) = load(&chromium, &profile, &format!("{base}/wiki/Aruba"));
    assert!(console.is_empty(), "/wiki/Aruba: {console:?}");
    let table: Value = serde_json::from_str(&util::ok(
        util::wikiwit()
            .args(["table", "Aruba", "1", "--json", "--index"])
            .arg(&index),
    ))
    .unwrap();
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 9);
    for (r, cells) in rows.iter().enumerate() {
        let tr = format!(
            "<tr id=\"table-1-row-{r}\" data-row=\"{r}\"><td class=\"rownum\">{r}</td><td>"
        );
        let at = dom.find(&tr).unwrap_or_else(|| panic!("row {r} missing"));
        let first = cells[0].as_str().unwrap();
        assert!(dom[at + tr.len()..].starts_with(first), "row {r}: {first}");
    }
    assert!(dom.contains("<h3 id=\"Regions\">Regions</h3>"));
    assert!(dom.contains("<tr id=\"infobox-capital\"><th>capital</th>"));
    assert!(dom.contains("href=\"/wiki/Oranjestad"));
    assert!(dom.contains("href=\"/wiki/Category:Island_countries\""));

    let (dom, console) = load(&chromium, &profile, &format!("{base}/wiki/AynRand"));
    assert!(console.is_empty(), "/wiki/AynRand: {console:?}");
    assert!(
        dom.contains("(Redirected from AynRand)"),
        "{}",
        &dom[..dom.len().min(2000)]
    );

    // The audit report, shown at a URL from its inputs.
    let contract = std::fs::read_to_string(fixture("aruba-regions-contract.json")).unwrap();
    let url = format!(
        "{base}/report/audit?contract={}&rows={}",
        enc(&contract),
        enc(ROWS)
    );
    let (dom, console) = load(&chromium, &profile, &url);
    assert!(console.is_empty(), "audit report: {console:?}");
    assert_eq!(count(&dom, "class=\"item f-blocking\""), 2);
    assert_eq!(count(&dom, "class=\"item f-hygiene\""), 1);
    assert!(!dom.contains("<script>alert"));
    assert!(dom.contains("href=\"/wiki/Aruba#table-1-row-6\""));

    // The citation report, written by the CLI and opened as a file.
    let (_, json) = cite_html(&index, tmp.path());
    let file = tmp.path().join("cite.html");
    let (dom, console) = load(&chromium, &profile, &format!("file://{}", file.display()));
    assert!(console.is_empty(), "citation report: {console:?}");
    let n = json["citations"].as_array().unwrap().len();
    assert_eq!(count(&dom, "class=\"item f-"), n);
    assert!(dom.contains("<mark class=\"support\">"));

    // The search page: the page a title names, and sections by their words.
    let (dom, console) = load(&chromium, &profile, &format!("{base}/search?q=Aruba"));
    assert!(console.is_empty(), "search: {console:?}");
    assert!(dom.contains("Page: <a href=\"/wiki/Aruba\">Aruba</a>"));
    let (dom, _) = load(&chromium, &profile, &format!("{base}/search?q=Oranjestad"));
    assert!(dom.contains("href=\"/wiki/Aruba#Climate\""));
}

/// Whether `text` holds a parenthetical group with nothing in it but whitespace and
/// separators: what left-out templates leave (`Berlin ( , ) is`).
fn has_emptied_parentheses(text: &str) -> bool {
    text.match_indices('(').any(|(i, _)| {
        let rest = &text[i + 1..];
        rest.find(')').is_some_and(|j| {
            rest[..j]
                .chars()
                .all(|c| c.is_whitespace() || c == ',' || c == ';')
        })
    })
}

/// Every namespace-0 page of every shared dump answers `/wiki/TITLE` with 200 and its
/// page: the title as the heading, one sentence element per prose or list sentence of
/// `text`, each table; a redirect that leads to a page shows that page, one that leads
/// nowhere shows itself as a redirect page. No sentence keeps parentheses that
/// left-out templates emptied.
#[test]
fn every_page_of_the_shared_dumps_has_a_page_view() {
    for dump in [
        "enwiki-2016-206pages",
        "enwiki-2016-206pages-cs1",
        "enwiki-2020-27pages-infoboxes",
        "enwiki-table-markup-5pages",
        "ltgwiki-2017-complete",
    ] {
        let tmp = util::tempdir();
        let ix = tmp.path().join("idx");
        util::build(&util::data(&format!("{dump}.xml.bz2")), &ix, &[]);
        let index = wikiwit::index::Index::open(&ix).unwrap();
        let server = Server::start(&ix, &[]);
        let (mut pages, mut redirects, mut dead) = (0, 0, 0);
        for line in util::export(&ix, "pages").lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if f[1] != "0" {
                continue;
            }
            let title = f[2].replace('_', " ");
            let req = format!(
                "GET /wiki/{} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                enc(&title)
            );
            let (status, _, body) = server.raw(req.as_bytes());
            let body = String::from_utf8(body).unwrap();
            assert_eq!(status, 200, "{dump}: /wiki/{title}: {body}");
            assert_inert(&body, &title);
            let found = match wikiwit::query::find_page(&index, &title) {
                Ok(found) => found,
                Err(e) => {
                    assert!(e.is_not_found(), "{dump}: {title}: {e}");
                    assert!(body.contains("Redirect to: "), "{dump}: {title}");
                    dead += 1;
                    continue;
                }
            };
            if f[3] == "1" {
                assert!(body.contains("(Redirected from "), "{dump}: {title}");
                redirects += 1;
                continue;
            }
            let escaped = found
                .title
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;");
            let heading = format!("<h1 id=\"title\">{escaped}</h1>");
            assert!(body.contains(&heading), "{dump}: {heading}");
            let text = wikiwit::query::text::text(&index, &title, None).unwrap();
            let prose: Vec<&str> = text
                .sections
                .iter()
                .flat_map(|s| &s.sentences)
                .filter(|s| {
                    matches!(
                        s.kind,
                        wikiwit::text::SentenceKind::Prose | wikiwit::text::SentenceKind::List
                    )
                })
                .map(|s| s.text.as_str())
                .collect();
            assert_eq!(
                count(&body, "data-sentence="),
                prose.len(),
                "{dump}: {title}: sentences"
            );
            for s in &prose {
                assert!(!has_emptied_parentheses(s), "{dump}: {title}: {s}");
            }
            let tables = wikiwit::query::summary(&index, &title)
                .unwrap()
                .tables
                .len();
            assert_eq!(
                count(&body, "<table class=\"data\""),
                tables,
                "{dump}: {title}"
            );
            pages += 1;
        }
        eprintln!("{dump}: {pages} pages, {redirects} redirects, {dead} dead redirects");
        assert!(pages > 0, "{dump}");
        if dump == "enwiki-2020-27pages-infoboxes" {
            // The lead MediaWiki renders as "Berlin (/bɜːrˈlɪn/, German: …) is the capital".
            let (_, _, body) =
                server.raw(b"GET /wiki/Berlin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let body = String::from_utf8(body).unwrap();
            assert!(
                body.contains(">Berlin is the capital and largest city of Germany"),
                "{body}"
            );
        }
    }
}
