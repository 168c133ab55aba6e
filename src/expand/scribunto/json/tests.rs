//! `mw.text.jsonEncode` / `jsonDecode` against the installed PHP's recorded results
//! (`tests/data/scribunto/json-php.jsonl`) and Scribunto's error messages.

use std::collections::BTreeMap;

use super::*;
use crate::expand::tests::config;
use crate::siteinfo::SiteInfo;
use crate::title::{InterwikiProfile, TitleCodec};

/// A Lua value in a form two of them can be compared in: tables by sorted keys,
/// numbers by their bits, so `-0` and `0` differ as they do for `tostring`.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Canon {
    Nil,
    Bool(bool),
    Num(u64),
    Str(Vec<u8>),
    Table(BTreeMap<Canon, Canon>),
}

fn num(n: f64) -> Canon {
    Canon::Num(if n == 0.0 {
        0.0f64.to_bits() ^ u64::from(n.is_sign_negative()) << 63
    } else {
        n.to_bits()
    })
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A value as `tools/json-fixture/gen.php` writes what Lua receives.
fn from_fixture(v: &serde_json::Value) -> Canon {
    use serde_json::Value as J;
    match v {
        J::Null => Canon::Nil,
        J::Bool(b) => Canon::Bool(*b),
        J::Object(o) if o.contains_key("n") => num(o["n"]
            .as_str()
            .and_then(|n| n.parse().ok())
            .expect("number")),
        J::Object(o) if o.contains_key("s") => Canon::Str(hex(o["s"].as_str().expect("hex"))),
        J::Object(o) => Canon::Table(
            o["a"]
                .as_array()
                .expect("entries")
                .iter()
                .map(|e| (from_fixture(&e[0]), from_fixture(&e[1])))
                .collect(),
        ),
        other => panic!("unexpected {other}"),
    }
}

fn from_lua(v: &Value) -> Canon {
    match v {
        Value::Nil => Canon::Nil,
        Value::Boolean(b) => Canon::Bool(*b),
        Value::Integer(i) => num(*i as f64),
        Value::Number(n) => num(*n),
        Value::String(s) => Canon::Str(s.as_bytes().to_vec()),
        Value::Table(t) => Canon::Table(
            t.clone()
                .pairs::<Value, Value>()
                .map(|p| p.expect("pair"))
                .map(|(k, v)| (from_lua(&k), from_lua(&v)))
                .collect(),
        ),
        other => panic!("unexpected {other:?}"),
    }
}

/// Every case of the fixture `tools/json-fixture/generate` recorded from PHP 8.2 with
/// MediaWiki 1.39's Scribunto and FormatJson: the same bytes or the same error.
#[test]
fn agrees_with_php() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/scribunto/json-php.jsonl"
    );
    let fixture = std::fs::read_to_string(path).expect("fixture");
    let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki);
    let page = super::super::PageLua::new(&config(), &codec).expect("Lua state");
    let lua = &page.lua;
    lua.load("function nest(n) local t = {} for _ = 2, n do t = { t } end return t end")
        .exec()
        .expect("helper");
    let mut failures = Vec::new();
    let mut cases = 0;
    for line in fixture.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("fixture line");
        let flags = case["flags"].as_i64().expect("flags");
        let (ok, got): (bool, Value) = if case["op"] == "encode" {
            let expr = case["expr"].as_str().expect("expr");
            let code = format!("return pcall(mw.text.jsonEncode, {expr}, {flags})");
            lua.load(code).eval().expect("encode case runs")
        } else {
            let text = lua
                .create_string(hex(case["text"].as_str().expect("text")))
                .expect("string");
            let f: Function = lua
                .load("return function(s, f) return pcall(mw.text.jsonDecode, s, f) end")
                .eval()
                .expect("decode case runs");
            f.call((text, flags)).expect("decode case runs")
        };
        let want = if let Some(e) = case.get("error") {
            Canon::Str(e.as_str().expect("error").as_bytes().to_vec())
        } else if let Some(j) = case.get("json") {
            Canon::Str(j.as_str().expect("json").as_bytes().to_vec())
        } else {
            from_fixture(&case["value"])
        };
        let got = from_lua(&got);
        let agrees = ok == case.get("error").is_none() && got == want;
        if !agrees {
            let short = |s: String| s.chars().take(300).collect::<String>();
            failures.push(format!(
                "{}\n  want {}\n  got  {}",
                short(line.to_string()),
                short(format!("{want:?}")),
                short(format!("{got:?}"))
            ));
        }
        cases += 1;
    }
    assert!(cases >= 140, "{cases} cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn floats_as_php_writes_them() {
    let cases = [
        (1.5, "1.5"),
        (1e25, "1.0e+25"),
        (0.1, "0.1"),
        (1e16, "10000000000000000"),
        (1e17, "1.0e+17"),
        (123456789012345678.0, "1.2345678901234568e+17"),
        (1e-5, "1.0e-5"),
        (0.0001, "0.0001"),
        (-0.0, "-0"),
        (-2.5e-7, "-2.5e-7"),
    ];
    for (f, want) in cases {
        assert_eq!(php_float(f).as_deref(), Some(want), "{f}");
    }
}

#[test]
fn keys_cast_as_php_casts_them() {
    assert_eq!(Key::from_bytes(b"12"), Key::Int(12));
    assert_eq!(Key::from_bytes(b"-3"), Key::Int(-3));
    for s in [
        &b"012"[..],
        b"-0",
        b"1.5",
        b"",
        b" 1",
        b"99999999999999999999",
    ] {
        assert_eq!(Key::from_bytes(s), Key::Str(s.to_vec()));
    }
}

/// What Scribunto refuses in Lua before PHP sees the value, and the flags check.
#[test]
fn lua_side_errors_with_scribuntos_messages() {
    let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki);
    let page = super::super::PageLua::new(&config(), &codec).expect("Lua state");
    let cases = [
        (
            "{ 1/0 }",
            "mw.text.jsonEncode: Cannot encode non-finite numbers",
        ),
        (
            "{ 0/0 }",
            "mw.text.jsonEncode: Cannot encode non-finite numbers",
        ),
        (
            "{ function() end }",
            "mw.text.jsonEncode: Cannot encode type 'function'",
        ),
        (
            "(function() local t = {} t[1] = { t } return t end)()",
            "mw.text.jsonEncode: Cannot use recursive tables",
        ),
        (
            "{ [true] = 1 }",
            "mw.text.jsonEncode: Cannot use type 'boolean' as a table key",
        ),
        (
            "{ [1/0] = 1 }",
            "mw.text.jsonEncode: Cannot use 'inf' as a table key",
        ),
        (
            "{}, 'x'",
            "bad argument #2 to 'mw.text.jsonEncode' (number expected, got string)",
        ),
    ];
    for (args, want) in cases {
        let code = format!("local ok, e = pcall(mw.text.jsonEncode, {args}) return e");
        let got: String = page.lua.load(code).eval().expect("runs");
        assert!(got.ends_with(want), "{args}: {got}");
    }
    let got: String = page
        .lua
        .load("local ok, e = pcall(mw.text.jsonDecode, nil) return e")
        .eval()
        .expect("runs");
    assert_eq!(
        got,
        "bad argument #1 to 'mw.text.jsonDecode' (string expected, got nil)"
    );
}

/// PHP 8.2: `json_decode` of 511 nested arrays succeeds, of 512 reports the depth
/// (the generated fixture cannot carry a 511-deep value: serde_json stops at 128).
#[test]
fn decode_depth_limit_as_php() {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(decode(nested(511).as_bytes(), false).is_ok());
    assert_eq!(decode(nested(512).as_bytes(), false), Err(JsonError::Depth));
}

#[test]
fn trailing_commas_dropped_where_formatjson_drops_them() {
    assert_eq!(
        drop_trailing_commas(b"{\"x\":1,}").as_deref(),
        Some(&b"{\"x\":1}"[..])
    );
    assert_eq!(
        drop_trailing_commas(b"[1,\n  ]").as_deref(),
        Some(&b"[1\n  ]"[..])
    );
    assert_eq!(drop_trailing_commas(b"[\",]\"]"), None);
}
