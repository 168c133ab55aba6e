//! `wikiwit serve`: real PyPI clients of MediaWiki's Action API against the server,
//! answers compared with the CLI's; the Action API's shapes; the native `/v1/`
//! endpoints; and the request limits (huge query, invalid UTF-8, too many titles,
//! slowloris).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::util;

/// A running `wikiwit serve`, stopped when dropped.
pub struct Server {
    child: Child,
    pub addr: String,
}

impl Server {
    pub fn start(index: &Path, extra: &[&str]) -> Server {
        let mut child = util::wikiwit()
            .args(["serve", "--addr", "127.0.0.1:0", "--index"])
            .arg(index)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start wikiwit serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the listening line");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server { child, addr }
    }

    pub fn port(&self) -> u16 {
        self.addr.rsplit(':').next().unwrap().parse().unwrap()
    }

    /// Sends raw request bytes; returns (status, headers, body). Status 0: the server
    /// closed the connection without an answer.
    pub fn raw(&self, request: &[u8]) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        // The server may answer (and close) before it has read everything.
        let _ = s.write_all(request);
        let mut buf = Vec::new();
        let _ = s.read_to_end(&mut buf);
        parse_response(&buf)
    }

    pub fn get(&self, path_and_query: &str) -> (u16, Value) {
        let req = format!(
            "GET {path_and_query} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
            self.addr
        );
        let (status, _, body) = self.raw(req.as_bytes());
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    pub fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        let b = serde_json::to_vec(body).unwrap();
        let mut req = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            b.len()
        )
        .into_bytes();
        req.extend_from_slice(&b);
        let (status, _, body) = self.raw(&req);
        (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_response(buf: &[u8]) -> (u16, String, Vec<u8>) {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return (0, String::new(), Vec::new());
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut body = buf[end + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
            let n = usize::from_str_radix(std::str::from_utf8(&rest[..i]).unwrap().trim(), 16)
                .unwrap_or(0);
            if n == 0 {
                break;
            }
            out.extend_from_slice(&rest[i + 2..i + 2 + n]);
            rest = &rest[i + 4 + n..];
        }
        body = out;
    }
    (status, head, body)
}

/// The index of the 206-page enwiki sample, built once per test.
pub fn enwiki_index() -> tempfile::TempDir {
    let dir = util::tempdir();
    util::build(
        &util::data("enwiki-2016-206pages.xml.bz2"),
        &dir.path().join("idx"),
        &[],
    );
    dir
}

fn cli_json(index: &Path, args: &[&str]) -> Value {
    let out = util::ok(
        util::wikiwit()
            .args(args)
            .arg("--index")
            .arg(index)
            .arg("--json"),
    );
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

fn cli_lines(index: &Path, args: &[&str]) -> Vec<Value> {
    let out = util::ok(
        util::wikiwit()
            .args(args)
            .arg("--index")
            .arg(index)
            .arg("--json"),
    );
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn set(v: Vec<String>) -> BTreeSet<String> {
    v.into_iter().collect()
}

/// The first `n` distinct pages of the CLI's section-level search.
fn cli_search_pages(index: &Path, q: &str, n: usize) -> Vec<String> {
    let mut pages = Vec::new();
    for h in cli_lines(index, &["search", q, "--limit", "200"]) {
        let p = h["page"].as_str().unwrap().to_string();
        if !pages.contains(&p) && pages.len() < n {
            pages.push(p);
        }
    }
    pages
}

#[test]
fn python_clients_agree_with_the_cli() {
    let Some(python) = util::python("serve::python_clients_agree_with_the_cli") else {
        return;
    };
    let tmp = enwiki_index();
    let index = tmp.path().join("idx");
    let server = Server::start(&index, &[]);
    let (page, redirect, category, query) = (
        "Anarchism",
        "AynRand",
        "Member states of the United Nations",
        "anarchism",
    );
    let spec = serde_json::json!({"page": page, "redirect": redirect, "category": category, "search": query});
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/serve_clients.py");
    let out = Command::new(python)
        .arg(script)
        .arg(server.port().to_string())
        .arg(spec.to_string())
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "serve_clients.py failed:\n{}",
        util::stderr(&out)
    );
    let got: Value = serde_json::from_slice(&out.stdout).expect("the script prints JSON");
    let (mw, wp, wa) = (&got["mwclient"], &got["wikipedia"], &got["wikipediaapi"]);

    // The CLI's answers to the same questions.
    let summary = cli_json(&index, &["page", page]);
    let links: Vec<Value> = cli_lines(&index, &["links", page]);
    let all_links = set(links
        .iter()
        .map(|l| l["target"].as_str().unwrap().to_string())
        .collect());
    let categories = set(strings(&summary["categories"])
        .into_iter()
        .map(|c| format!("Category:{c}"))
        .collect());
    let backlinks = set(cli_lines(&index, &["links", page, "--in", "--direct"])
        .iter()
        .map(|l| l["source"].as_str().unwrap().to_string())
        .collect());
    let cat = cli_json(&index, &["category", category]);
    let members: BTreeSet<String> = strings(&cat["subcategories"])
        .into_iter()
        .chain(strings(&cat["pages"]))
        .collect();
    let search = cli_search_pages(&index, query, 10);
    let resolved = cli_json(&index, &["resolve", redirect]);
    let sections = cli_json(&index, &["sections", page]);
    let headings: Vec<String> = sections["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["heading"].as_str().unwrap().to_string())
        .collect();
    let text = cli_json(&index, &["text", page]);
    let lead: Vec<String> = text["sections"][0]["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap().to_string())
        .collect();
    assert!(!lead.is_empty() && headings.len() > 5 && all_links.len() > 500);

    // mwclient: page text, links, categories, backlinks, category members, search, a redirect.
    assert_eq!(mw["exists"], true);
    let wikitext = mw["text"].as_str().unwrap();
    assert_eq!(wikitext.len() as u64, summary["bytes"].as_u64().unwrap());
    for s in sections["sections"].as_array().unwrap() {
        let (a, b) = (
            s["start"].as_u64().unwrap() as usize,
            s["body"].as_u64().unwrap() as usize,
        );
        let heading_line = &wikitext[a..b];
        assert!(
            heading_line.starts_with("==") && heading_line.contains(s["heading"].as_str().unwrap()),
            "section {s} is not at its byte range in mwclient's text: {heading_line:?}"
        );
    }
    assert_eq!(set(strings(&mw["links"])), all_links, "mwclient links");
    assert_eq!(
        set(strings(&mw["categories"])),
        categories,
        "mwclient categories"
    );
    assert_eq!(
        set(strings(&mw["backlinks"])),
        backlinks,
        "mwclient backlinks"
    );
    assert_eq!(
        set(strings(&mw["categorymembers"])),
        members,
        "mwclient category members"
    );
    assert!(members.len() >= 5);
    assert_eq!(strings(&mw["search"]), search, "mwclient search");
    assert_eq!(mw["redirect"], true);
    assert_eq!(mw["redirect_target"], resolved["target"]["title"]);

    // wikipedia: search, summary (the lead), links (main namespace), sections.
    assert_eq!(strings(&wp["search"]), search, "wikipedia search");
    let summary_text = wp["summary"].as_str().unwrap();
    let mut at = 0;
    for s in &lead {
        let i = summary_text[at..]
            .find(s.as_str())
            .unwrap_or_else(|| panic!("lead sentence {s:?} missing from the summary"));
        at += i + s.len();
    }
    assert!(
        !summary_text.contains(&headings[0]),
        "the summary is the lead only"
    );
    let wp_links = set(strings(&wp["links"]));
    assert!(wp_links.is_subset(&all_links));
    for l in all_links.difference(&wp_links) {
        assert!(
            l.contains(':'),
            "{l:?} is in the main namespace but not in wikipedia's links"
        );
    }
    assert_eq!(strings(&wp["sections"]), headings, "wikipedia sections");

    // Wikipedia-API: summary, sections, links, backlinks, categories.
    assert_eq!(wa["exists"], true);
    assert_eq!(wa["summary"].as_str().unwrap(), summary_text.trim());
    assert_eq!(strings(&wa["sections"]), headings, "Wikipedia-API sections");
    assert_eq!(set(strings(&wa["links"])), all_links, "Wikipedia-API links");
    assert_eq!(
        set(strings(&wa["backlinks"])),
        backlinks,
        "Wikipedia-API backlinks"
    );
    assert_eq!(
        set(strings(&wa["categories"])),
        categories,
        "Wikipedia-API categories"
    );
}

/// Follows `continue` until the end, collecting `pages[*].links` titles.
fn all_links_by_continuation(server: &Server, base: &str) -> (Vec<String>, usize) {
    let mut titles = Vec::new();
    let mut cont = String::new();
    let mut requests = 0;
    loop {
        requests += 1;
        let (status, v) = server.get(&format!("{base}{cont}"));
        assert_eq!(status, 200);
        for p in v["query"]["pages"].as_array().unwrap() {
            for l in p["links"].as_array().into_iter().flatten() {
                titles.push(l["title"].as_str().unwrap().to_string());
            }
        }
        let Some(c) = v["continue"].as_object() else {
            break;
        };
        cont = c
            .iter()
            .map(|(k, v)| format!("&{k}={}", enc(v.as_str().unwrap())))
            .collect();
        assert!(requests < 100, "continuation does not end");
    }
    (titles, requests)
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn action_api_shapes_continuation_and_errors() {
    let tmp = enwiki_index();
    let index = tmp.path().join("idx");
    let server = Server::start(&index, &[]);
    let api = "/w/api.php?format=json";

    // formatversion 1: pages keyed by id, "" for true, negative ids for missing pages.
    let (_, v) = server.get(&format!(
        "{api}&action=query&titles=anarchism|AynRand|No_such_page_xyz&redirects&prop=info"
    ));
    let q = &v["query"];
    assert_eq!(q["normalized"][0]["from"], "anarchism");
    assert_eq!(q["normalized"][0]["to"], "Anarchism");
    assert_eq!(q["redirects"][0]["from"], "AynRand");
    assert_eq!(q["redirects"][0]["to"], "Ayn Rand");
    assert_eq!(q["pages"]["12"]["title"], "Anarchism");
    assert_eq!(q["pages"]["339"]["title"], "Ayn Rand");
    assert_eq!(q["pages"]["-1"]["missing"], "");
    // formatversion 2: an array and booleans; without `redirects` the redirect itself.
    let (_, v) = server.get(&format!(
        "{api}&formatversion=2&action=query&titles=AynRand&prop=info|revisions&rvprop=ids|content&rvslots=main"
    ));
    let p = &v["query"]["pages"][0];
    assert_eq!(p["title"], "AynRand");
    assert_eq!(p["redirect"], true);
    let content = p["revisions"][0]["slots"]["main"]["content"]
        .as_str()
        .unwrap();
    assert!(content.starts_with("#REDIRECT"), "{content}");

    // Continuation: 50 links per answer; all of them equal the CLI's distinct targets.
    let (titles, requests) = all_links_by_continuation(
        &server,
        &format!("{api}&formatversion=2&action=query&titles=Anarchism&prop=links&pllimit=50"),
    );
    let cli: BTreeSet<String> = cli_lines(&index, &["links", "Anarchism"])
        .iter()
        .map(|l| l["target"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(titles.len(), cli.len(), "no link twice, none missing");
    assert_eq!(titles.iter().cloned().collect::<BTreeSet<_>>(), cli);
    assert_eq!(requests, cli.len().div_ceil(50));

    // A generator with its own continuation: every page of the wiki, 40 at a time.
    let mut seen = 0;
    let mut cont = String::new();
    loop {
        let (_, v) = server.get(&format!(
            "{api}&formatversion=2&action=query&generator=allpages&gaplimit=40&gapfilterredir=nonredirects{cont}"
        ));
        seen += v["query"]["pages"].as_array().map_or(0, |a| a.len());
        match v["continue"]["gapcontinue"].as_str() {
            Some(c) => cont = format!("&gapcontinue={}", enc(c)),
            None => break,
        }
    }
    let pages = util::export(&index, "pages");
    let articles = pages
        .lines()
        .filter(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            f[1] == "0" && f[3] == "0"
        })
        .count();
    assert_eq!(seen, articles);

    // action=parse sections match the CLI; opensearch is a prefix search.
    let (_, v) = server.get(&format!("{api}&action=parse&page=Anarchism&prop=sections"));
    let cli = cli_json(&index, &["sections", "Anarchism"]);
    assert_eq!(
        v["parse"]["sections"].as_array().unwrap().len(),
        cli["sections"].as_array().unwrap().len()
    );
    assert_eq!(
        v["parse"]["sections"][0]["anchor"],
        cli["sections"][0]["anchor"]
    );
    let (_, v) = server.get(&format!("{api}&action=opensearch&search=Ayn"));
    assert_eq!(v[0], "Ayn");
    assert!(strings(&v[1]).iter().all(|t| t.starts_with("Ayn")));
    assert!(strings(&v[1]).contains(&"Ayn Rand".to_string()));

    // meta=siteinfo for the clients that read it first.
    let (_, v) = server.get(&format!(
        "{api}&action=query&meta=siteinfo|userinfo&siprop=general|namespaces|namespacealiases|interwikimap"
    ));
    assert!(
        v["query"]["general"]["generator"]
            .as_str()
            .unwrap()
            .starts_with("MediaWiki 1.")
    );
    assert_eq!(v["query"]["namespaces"]["14"]["*"], "Category");
    assert!(
        v["query"]["namespacealiases"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["*"] == "Image")
    );
    assert_eq!(v["query"]["userinfo"]["anon"], "");

    // MediaWiki-shaped errors: status 200, the error object, the header.
    let req =
        format!("GET {api}&action=frobnicate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let (status, head, body) = server.raw(req.as_bytes());
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 200);
    assert_eq!(v["error"]["code"], "badvalue");
    assert!(
        head.to_ascii_lowercase()
            .contains("mediawiki-api-error: badvalue")
    );
    let (_, v) = server.get(&format!("{api}&action=query&list=search"));
    assert_eq!(v["error"]["code"], "missingparam");
    let (_, v) = server.get(&format!(
        "{api}&action=query&titles=Anarchism&prop=links&plcontinue=bogus"
    ));
    assert_eq!(v["error"]["code"], "badcontinue");
}

/// `wikiwit` turns transparent huge pages off for itself (the kernel zeroing 2 MiB pages
/// again and again had cost an audit 15 % of its time): a running server's
/// `/proc/PID/status` says so, on kernels that report it.
#[test]
fn wikiwit_runs_without_transparent_huge_pages() {
    let own = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if !own.contains("THP_enabled:") {
        eprintln!("this kernel does not report THP_enabled: nothing to check");
        return;
    }
    let tmp = enwiki_index();
    let server = Server::start(&tmp.path().join("idx"), &[]);
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    let thp = status.lines().find(|l| l.starts_with("THP_enabled:"));
    assert_eq!(
        thp.map(|l| l.split_whitespace().nth(1)),
        Some(Some("0")),
        "{status}"
    );
}

#[test]
fn native_endpoints_answer_as_the_cli() {
    let tmp = enwiki_index();
    let index = tmp.path().join("idx");
    let server = Server::start(&index, &[]);
    let (s, v) = server.get("/v1/resolve?title=AynRand");
    assert_eq!(s, 200);
    assert_eq!(v, cli_json(&index, &["resolve", "AynRand"]));
    let (_, v) = server.get("/v1/table?title=Aruba&table=1&row=0");
    assert_eq!(v, cli_json(&index, &["table", "Aruba", "1", "--row", "0"]));
    let (_, v) = server.get("/v1/infobox?title=Aruba&field=capital");
    assert_eq!(v, cli_json(&index, &["infobox", "Aruba", "capital"]));
    let (_, v) = server.get("/v1/locate?locator=Aruba%7Cinfobox%3Acapital");
    assert_eq!(v, cli_json(&index, &["locate", "Aruba|infobox:capital"]));
    let (_, v) = server.get("/v1/siblings?title=Aruba");
    assert_eq!(v, cli_json(&index, &["siblings", "Aruba"]));
    let (_, v) = server.get("/v1/links?title=Aruba&context=table");
    assert_eq!(
        v,
        cli_any(&index, &["links", "Aruba", "--context", "table"])
    );
    let (_, v) = server.get("/v1/links?title=Aruba&incoming=true");
    assert_eq!(v, cli_any(&index, &["links", "Aruba", "--in"]));
    let (s, v) = server.get("/v1/links?title=Aruba&context=nowhere");
    assert_eq!(s, 400, "{v}");
    let (s, v) = server.get("/v1/resolve?title=No%20such%20page%20xyz");
    assert_eq!((s, v["status"].as_str()), (200, Some("missing")));
    let (s, v) = server.get("/v1/table?title=Aruba&table=99");
    assert_eq!(s, 404);
    assert!(v["error"]["info"].as_str().unwrap().contains("no table 99"));
    let (s, _) = server.get("/v1/table?title=Aruba");
    assert_eq!(s, 400, "a missing parameter is a bad request");
    let (s, v) = server.post_json(
        "/v1/frontier",
        &serde_json::json!({"seed": "Aruba", "query": "population of Oranjestad"}),
    );
    assert_eq!(s, 200);
    // No linked row answers this one (exit code 1), but the plan is printed all the same.
    let o = util::wikiwit()
        .args([
            "frontier",
            "--seed",
            "Aruba",
            "--query",
            "population of Oranjestad",
            "--json",
        ])
        .arg("--index")
        .arg(&index)
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v, cli);
    assert_eq!(v["counts"][0]["count"], 9, "{v}");
    let report = "Aruba's capital is Oranjestad.[1]\n\n[1]: https://en.wikipedia.org/wiki/Aruba\n";
    let (s, v) = server.post_json("/v1/cite/check", &serde_json::json!({"markdown": report}));
    assert_eq!(s, 200);
    let file = tmp.path().join("report.md");
    std::fs::write(&file, report).unwrap();
    let o = util::wikiwit()
        .args(["cite", "check"])
        .arg(&file)
        .arg("--index")
        .arg(&index)
        .arg("--json")
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["citations"], cli["citations"]);
    assert_eq!(v["summary"], cli["summary"]);
}

#[test]
fn bad_input_gets_clear_http_errors_and_the_server_survives() {
    let tmp = enwiki_index();
    let index = tmp.path().join("idx");
    let server = Server::start(&index, &["--header-timeout", "1"]);
    let alive = |server: &Server| {
        let (s, v) = server.get("/w/api.php?action=query&titles=Aruba&format=json");
        assert_eq!(s, 200);
        assert_eq!(v["query"]["pages"]["690"]["title"], "Aruba");
    };

    // A 10 MB query string: refused before it is read whole.
    let long = format!(
        "GET /w/api.php?action=query&titles={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "A".repeat(10 << 20)
    );
    let (s, _, _) = server.raw(long.as_bytes());
    assert!(
        s == 431 || s == 414 || s == 400,
        "status {s} for a 10 MB query"
    );
    alive(&server);

    // Invalid UTF-8, percent-encoded and raw.
    let (s, v) = server.get("/w/api.php?action=query&titles=%FF%FE&format=json");
    assert_eq!(s, 400);
    assert_eq!(v["error"]["code"], "badutf8");
    let mut raw = b"GET /w/api.php?action=query&titles=".to_vec();
    raw.extend_from_slice(&[0xff, 0xfe]);
    raw.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let (s, _, _) = server.raw(&raw);
    assert!((400..500).contains(&s), "status {s} for raw invalid UTF-8");
    alive(&server);

    // 5,000 titles in one request (POSTed, as a client would).
    let body = format!(
        "action=query&format=json&titles={}",
        vec!["Aruba"; 5000].join("|")
    );
    let req = format!(
        "POST /w/api.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (s, head, body) = server.raw(req.as_bytes());
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(s, 400);
    assert_eq!(v["error"]["code"], "toomanyvalues");
    assert!(
        v["error"]["info"]
            .as_str()
            .unwrap()
            .contains("The limit is 50")
    );
    assert!(
        head.to_ascii_lowercase()
            .contains("mediawiki-api-error: toomanyvalues")
    );

    // A body larger than the limit.
    let big = "x".repeat(9 << 20);
    let (s, _) = server.post_json("/v1/cite/check", &serde_json::json!({ "markdown": big }));
    assert_eq!(s, 413);

    // Slowloris: connections that never finish their headers are closed after the
    // header timeout, and do not keep others out.
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut c = TcpStream::connect(&server.addr).unwrap();
            c.write_all(b"GET /w/api.php?action=query HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .unwrap();
            c
        })
        .collect();
    alive(&server);
    std::thread::sleep(Duration::from_millis(2500));
    for c in &mut slow {
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = Vec::new();
        let n = c.read_to_end(&mut buf);
        assert!(
            n.is_ok(),
            "a slow connection was not closed by the server: {n:?}"
        );
        let (s, _, _) = parse_response(&buf);
        assert!(s == 0 || s == 408, "status {s} for a slow client");
    }
    alive(&server);
}

/// A form-encoded POST of `body` to the Action API.
fn post_form(server: &Server, body: &[u8]) -> (u16, String, Vec<u8>) {
    let mut req = format!(
        "POST /w/api.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    server.raw(&req)
}

/// The same limits by the other ways in: a 10 MB query string as a form body, invalid
/// UTF-8 in a form body, in a `/v1/` query string and in a `/v1/` JSON body, 5,000
/// titles or page ids in a GET query string, a 10 MB `/v1/` query string.
#[test]
fn bad_input_by_every_route_gets_a_clear_error() {
    let tmp = enwiki_index();
    let server = Server::start(&tmp.path().join("idx"), &[]);
    let alive = |server: &Server| {
        let (s, v) = server.get("/v1/resolve?title=Aruba");
        assert_eq!((s, &v["status"]), (200, &Value::from("page")));
    };
    let error = |(s, head, body): (u16, String, Vec<u8>)| -> (u16, String, Value) {
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        (s, head.to_ascii_lowercase(), v["error"]["code"].clone())
    };

    let mut big = b"action=query&format=json&titles=".to_vec();
    big.resize(big.len() + (10 << 20), b'A');
    let (s, _, _) = error(post_form(&server, &big));
    assert_eq!(s, 413, "a 10 MB form body");
    alive(&server);

    let (s, head, code) = error(post_form(
        &server,
        b"action=query&format=json&titles=Aruba\xff\xfe",
    ));
    assert_eq!((s, code.as_str()), (400, Some("badutf8")));
    assert!(head.contains("mediawiki-api-error: badutf8"));

    let titles = vec!["Aruba"; 5000].join("%7C");
    let (s, v) = server.get(&format!(
        "/w/api.php?action=query&format=json&titles={titles}"
    ));
    assert_eq!(
        (s, &v["error"]["code"]),
        (400, &Value::from("toomanyvalues"))
    );
    let ids: Vec<String> = (1..=5000).map(|i| i.to_string()).collect();
    let (s, v) = server.get(&format!(
        "/w/api.php?action=query&format=json&pageids={}",
        ids.join("%7C")
    ));
    assert_eq!(
        (s, &v["error"]["code"]),
        (400, &Value::from("toomanyvalues"))
    );
    alive(&server);

    let (s, v) = server.get("/v1/search?query=%FF%FE");
    assert_eq!(
        (s, &v["error"]["code"]),
        (400, &Value::from("badutf8")),
        "{v}"
    );
    let body = b"{\"seed\": \"Aruba\xff\", \"query\": \"population\"}";
    let mut req = format!(
        "POST /v1/frontier HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    req.extend_from_slice(body);
    let (s, _, code) = error(server.raw(&req));
    assert_eq!((s, code.as_str()), (400, Some("badbody")));

    let mut long = b"GET /v1/resolve?title=".to_vec();
    long.resize(long.len() + (10 << 20), b'A');
    long.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\n\r\n");
    let (s, _, _) = server.raw(&long);
    assert_eq!(s, 431, "a 10 MB /v1/ query string");
    alive(&server);
}

/// Runs the CLI with `--json` and reads its stdout whatever the exit code (1 is an
/// answer too: "not found", blocking findings).
fn cli_any(index: &Path, args: &[&str]) -> Value {
    let o = util::wikiwit()
        .args(args)
        .arg("--index")
        .arg(index)
        .arg("--json")
        .output()
        .unwrap();
    let text = util::stdout(&o);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: {e}: {l}")))
        .collect();
    // Commands printing one line per answer (hits, links) answer with a list.
    if lines.len() == 1 && !matches!(args.first(), Some(&"search" | &"links")) {
        lines.into_iter().next().unwrap()
    } else {
        Value::Array(lines)
    }
}

#[test]
fn mcp_python_client_calls_every_tool_and_agrees_with_the_cli() {
    let Some(python) = util::python("serve::mcp_python_client_calls_every_tool") else {
        return;
    };
    let index = crate::locator::rivers_index();
    let dir = util::rivers();
    let contract: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.with_file_name("transboundary-contract.json")).unwrap(),
    )
    .unwrap();
    let rows_path = dir.with_file_name("transboundary-rows.jsonl");
    let rows = std::fs::read_to_string(&rows_path).unwrap();
    let list = "List of transboundary rivers";
    let report =
        "The Danube flows through ten countries.[1]\n\n[1]: https://en.wikipedia.org/wiki/Danube\n";
    let calls = serde_json::json!([
        ["resolve", {"title": "Danube"}],
        ["search", {"query": "Danube length", "limit": 5}],
        ["page_summary", {"title": "Danube"}],
        ["section_text", {"title": list, "section": "Rivers"}],
        ["table_row", {"title": list, "table": 1, "row": 0}],
        ["infobox_field", {"title": "Danube", "field": "length"}],
        ["locate", {"locator": "List of transboundary rivers#Rivers|table:1|row:0"}],
        ["frontier", {"seed": list, "query": "length of the Nile", "table": 1}],
        ["audit_rows", {"contract": contract, "rows": rows}],
        ["check_citations", {"markdown": report}],
        ["siblings", {"title": "Danube"}],
        ["table_row", {"title": list, "table": 99}],
        ["links", {"title": list, "context": "table"}],
        ["links", {"title": "Danube", "incoming": true}],
    ]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_wikiwit"))
        .arg(index)
        .arg(calls.to_string())
        .env_remove("WIKIWIT_INDEX")
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "mcp_client.py failed:\n{}",
        util::stderr(&out)
    );
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["server"], "wikiwit");
    let tools = got["tools"].as_object().unwrap();
    assert_eq!(tools.len(), 12);
    assert_eq!(
        tools["table_row"]["required"],
        serde_json::json!(["title", "table"]),
        "input schemas come from the typed inputs"
    );
    for (name, schema) in got["output_schemas"].as_object().unwrap() {
        assert_eq!(schema["type"], "object", "{name}: output schema root");
    }
    let r: Vec<&Value> = got["results"].as_array().unwrap().iter().collect();
    // Every answer fits its tool's declared output schema (checked by the Python
    // `jsonschema` package), and its text content is the same JSON.
    let ok = |i: usize| {
        assert_eq!(r[i]["is_error"], false, "{}", r[i]);
        assert_eq!(
            r[i]["schema_errors"],
            serde_json::json!([]),
            "{}",
            r[i]["name"]
        );
        assert_eq!(r[i]["text_is_structured"], true, "{}", r[i]["name"]);
        r[i]["structured"].clone()
    };
    assert_eq!(ok(0), cli_json(index, &["resolve", "Danube"]));
    assert_eq!(
        ok(1)["result"],
        cli_any(index, &["search", "Danube length", "--limit", "5"])
    );
    assert_eq!(ok(2), cli_json(index, &["page", "Danube"]));
    assert_eq!(
        ok(3),
        cli_json(index, &["text", list, "--section", "Rivers"])
    );
    assert_eq!(ok(4), cli_json(index, &["table", list, "1", "--row", "0"]));
    assert_eq!(ok(5), cli_json(index, &["infobox", "Danube", "length"]));
    assert_eq!(
        ok(6),
        cli_any(
            index,
            &[
                "locate",
                "List of transboundary rivers#Rivers|table:1|row:0"
            ]
        )
    );
    let frontier = cli_any(
        index,
        &[
            "frontier",
            "--seed",
            list,
            "--query",
            "length of the Nile",
            "--table",
            "1",
        ],
    );
    assert_eq!(ok(7), frontier);
    assert!(!frontier["pages"].as_array().unwrap().is_empty());
    let log = util::tempdir();
    let audit = cli_any(
        index,
        &[
            "audit",
            dir.with_file_name("transboundary-contract.json")
                .to_str()
                .unwrap(),
            rows_path.to_str().unwrap(),
            "--findings",
            log.path().join("f.jsonl").to_str().unwrap(),
        ],
    );
    let a = ok(8);
    for k in [
        "rows",
        "findings",
        "blocking",
        "hygiene",
        "advisory",
        "by_check",
        "rows_sha256",
    ] {
        assert_eq!(a[k], audit[k], "audit {k}");
    }
    // The audit id hashes the contract's bytes, which the tool gets as JSON, not as the
    // CLI's file: the findings are compared without it.
    let unaudited = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("audit");
        v
    };
    let logged: Vec<Value> = std::fs::read_to_string(log.path().join("f.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("check").is_some())
        .map(|v| unaudited(&v))
        .collect();
    let listed: Vec<Value> = a["findings_list"]
        .as_array()
        .unwrap()
        .iter()
        .map(unaudited)
        .collect();
    assert_eq!(listed, logged, "the CLI's findings log");
    assert!(a.get("findings_log").is_none(), "no log is kept");
    assert!(audit["findings"].as_u64().unwrap() > 0);
    let file = log.path().join("report.md");
    std::fs::write(&file, report).unwrap();
    let cite = cli_any(index, &["cite", "check", file.to_str().unwrap()]);
    assert_eq!(ok(9)["citations"], cite["citations"]);
    assert_eq!(ok(10), cli_json(index, &["siblings", "Danube"]));
    assert_eq!(
        ok(12)["result"],
        cli_any(index, &["links", list, "--context", "table"])
    );
    assert!(!ok(12)["result"].as_array().unwrap().is_empty());
    assert_eq!(
        ok(13)["result"],
        cli_any(index, &["links", "Danube", "--in"])
    );
    // Not found: a tool error with the CLI's reason, not a protocol failure.
    assert_eq!(r[11]["is_error"], true);
    assert!(
        r[11]["structured"]["error"]["info"]
            .as_str()
            .unwrap()
            .contains("no table 99")
    );
}
