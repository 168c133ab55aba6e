//! `wikiwit mcp` on the wire: a minimal MCP client over stdio (JSON-RPC, one message a
//! line) lists the tools and calls each on the enwiki-2016-206pages index with questions
//! that reach every shape of answer (found and missing titles, redirects, whole tables
//! and rows, one field and every infobox, resolved and unresolved locators, audits with
//! findings, every citation verdict), and checks each structured result against the
//! output schema the server declares, with an independent validator (`jsonschema`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use serde_json::{Value, json};

use crate::util;

/// A running `wikiwit mcp`, stopped when dropped.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    /// Starts the server and completes the MCP handshake.
    fn start(index: &Path) -> Client {
        let mut child = util::wikiwit()
            .args(["mcp", "--index"])
            .arg(index)
            .env_remove("WIKIWIT_INDEX")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start wikiwit mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut c = Client {
            child,
            stdin,
            stdout,
            next: 0,
        };
        let init = c.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "wikiwit-tests", "version": "0"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "wikiwit", "{init}");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to wikiwit mcp");
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns the response with its id (notifications skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .expect("read from wikiwit mcp");
            assert!(n > 0, "wikiwit mcp closed stdout during {method}");
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, name: &str, arguments: &Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        assert!(r.get("error").is_none(), "{name} {arguments}: {r}");
        r["result"].clone()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A value of another JSON type than `v` (and not null where `v` is null), which no
/// schema that says anything about `v`'s place should accept.
fn wrong_type(v: &Value) -> Value {
    match v {
        Value::String(_) => json!(0.5),
        Value::Null => json!({"not": "null"}),
        _ => json!("not this type"),
    }
}

/// The questions: every tool, each answer shape at least once.
fn calls() -> Vec<(&'static str, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let contract: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("html/aruba-regions-contract.json")).unwrap(),
    )
    .unwrap();
    let rows = [
        r#"{"region": "Noord / Tanki Leendert", "population": "21495", "source_page": "Aruba", "locator": "Aruba#Regions|table:1|row:0"}"#,
        r#"{"region": "Oranjestad West", "population": "13,976", "source_page": "Aruba", "locator": "Aruba#Regions|table:1|row:1"}"#,
        r#"{"region": "Atlantis", "population": "1", "source_page": "Aruba", "locator": "Aruba#Regions|table:1|row:99"}"#,
    ]
    .join("\n");
    let csv =
        "region,population,source_page,locator\nParadera,12024,Aruba,Aruba#Regions|table:1|row:3\n";
    let report = std::fs::read_to_string(dir.join("reports/enwiki-2016.md")).unwrap();
    vec![
        ("resolve", json!({"title": "Aruba"})),
        ("resolve", json!({"title": "AynRand"})),
        ("resolve", json!({"title": "No such page xyz"})),
        ("resolve", json!({"title": "Bad [[title"})),
        ("search", json!({"query": "capital Oranjestad", "limit": 5})),
        ("search", json!({"query": "rainfall", "page": "Aruba"})),
        ("page_summary", json!({"title": "Aruba"})),
        ("links", json!({"title": "Aruba"})),
        ("links", json!({"title": "Aruba", "context": "table"})),
        ("links", json!({"title": "AynRand", "origin": "own"})),
        ("links", json!({"title": "Aruba", "incoming": true})),
        (
            "links",
            json!({"title": "Ayn Rand", "incoming": true, "direct": true, "context": "prose"}),
        ),
        ("section_text", json!({"title": "Aruba"})),
        (
            "section_text",
            json!({"title": "Aruba", "section": "Climate"}),
        ),
        ("table_row", json!({"title": "Aruba", "table": 1})),
        ("table_row", json!({"title": "Aruba", "table": 1, "row": 0})),
        (
            "infobox_field",
            json!({"title": "Aruba", "field": "capital"}),
        ),
        ("infobox_field", json!({"title": "Aruba"})),
        ("locate", json!({"locator": "Aruba|infobox:capital"})),
        ("locate", json!({"locator": "Aruba#Regions|table:1|row:0"})),
        (
            "locate",
            json!({"locator": "Aruba#Regions|table:1|row:0|col:Name"}),
        ),
        ("locate", json!({"locator": "Aruba#Climate"})),
        ("locate", json!({"locator": "Aruba#Climate|sentence:1"})),
        ("locate", json!({"locator": "Aruba|quote:Oranjestad"})),
        ("locate", json!({"locator": "Aruba#No such section"})),
        ("locate", json!({"locator": "No such page xyz|table:1"})),
        (
            "frontier",
            json!({"seed": "Aruba", "query": "population of Oranjestad"}),
        ),
        ("audit_rows", json!({"contract": contract, "rows": rows})),
        (
            "audit_rows",
            json!({"contract": contract, "rows": csv, "format": "csv"}),
        ),
        ("check_citations", json!({"markdown": report})),
        ("siblings", json!({"title": "Aruba"})),
    ]
}

#[test]
fn every_tool_result_validates_against_its_declared_output_schema() {
    let tmp = crate::serve::enwiki_index();
    let mut client = Client::start(&tmp.path().join("idx"));
    let listed = client.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 12, "{listed}");
    let mut validators = std::collections::BTreeMap::new();
    for t in tools {
        let name = t["name"].as_str().unwrap();
        for key in ["inputSchema", "outputSchema"] {
            assert_eq!(t[key]["type"], "object", "{name}: {key} root type");
        }
        let v = jsonschema::validator_for(&t["outputSchema"])
            .unwrap_or_else(|e| panic!("{name}: output schema is not a valid schema: {e}"));
        validators.insert(name.to_string(), v);
    }

    let calls = calls();
    let called: std::collections::BTreeSet<&str> = calls.iter().map(|(n, _)| *n).collect();
    assert_eq!(called.len(), validators.len(), "every tool is called");
    for (name, args) in &calls {
        let r = client.call(name, args);
        assert_eq!(r["isError"], false, "{name} {args}: {r}");
        let structured = &r["structuredContent"];
        let validator = &validators[*name];
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{name} {args}: {errors:#?}\n{structured}"
        );
        // The text content is the same JSON, for clients without structured content.
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            &text, structured,
            "{name}: text and structured content differ"
        );
        // The schema constrains every field: a value of the wrong type anywhere at the
        // top level is refused.
        for (key, v) in structured.as_object().expect("an object") {
            let mut bad = structured.clone();
            bad[key] = wrong_type(v);
            assert!(
                !validator.is_valid(&bad),
                "{name}: the schema accepts {key} = {}",
                bad[key]
            );
        }
    }

    // A question without an answer is a tool error, outside the output schema.
    let r = client.call("table_row", &json!({"title": "Aruba", "table": 99}));
    assert_eq!(r["isError"], true);
    assert!(
        r["structuredContent"]["error"]["info"]
            .as_str()
            .unwrap()
            .contains("no table 99"),
        "{r}"
    );
    // Arguments that do not fit the input schema are a protocol error.
    let r = client.request(
        "tools/call",
        json!({"name": "table_row", "arguments": {"title": "Aruba", "table": "one"}}),
    );
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

/// Lines that are not JSON-RPC, invalid UTF-8, and a 10 MB argument neither stop the
/// server nor leave a later call unanswered.
#[test]
fn bad_messages_do_not_stop_the_server() {
    let tmp = crate::serve::enwiki_index();
    let mut client = Client::start(&tmp.path().join("idx"));
    client.stdin.write_all(b"this is not JSON\n").unwrap();
    client
        .stdin
        .write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 900, \"method\": \"tools/call\", \"params\": {\"name\": \"resolve\", \"arguments\": {\"title\": \"Aruba\xff\"}}}\n")
        .unwrap();
    let huge = "A".repeat(10 << 20);
    let r = client.call("resolve", &json!({ "title": huge }));
    assert_eq!(r["structuredContent"]["status"], "invalid", "a 10 MB title");
    let r = client.call("resolve", &json!({"title": "Aruba"}));
    assert_eq!(r["structuredContent"]["status"], "page");
    assert_eq!(r["structuredContent"]["page"]["page_id"], 690);
}
