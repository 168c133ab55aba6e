//! One JSON lines record read straight into a [`StagedRow`]: the fields' strings are
//! moved (or copied once from the line) into the row, where reading the line into a
//! `serde_json::Value` first built a map of every field and copied each value again —
//! a fifth of the audit's time per row went there.
//!
//! The row is what reading it through a `Value` gave: a repeated key counts once, its
//! last occurrence (an earlier one's problems forgotten), and problems are listed in the
//! order of their keys (a `Value`'s map is sorted), so findings stay as they were.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::rows::{RowItem, StagedRow, Value};

/// One JSON lines record (also the audit in pieces' rows, [`super::pieces`]).
pub(crate) fn parse(line: &[u8], number: usize, lineno: u64) -> RowItem {
    let bad = |message: String| RowItem::Bad {
        number,
        line: lineno,
        message,
    };
    let visitor = RowVisitor { number, lineno };
    // A record checked as UTF-8 at once is read as text: serde_json then does not
    // check each of its strings again. Invalid UTF-8 is read as bytes, for
    // serde_json's own message and position.
    let read = match std::str::from_utf8(line) {
        Ok(text) => read_row(serde_json::Deserializer::from_str(text), visitor),
        Err(_) => read_row(serde_json::Deserializer::from_slice(line), visitor),
    };
    match read {
        Ok(Some(row)) => RowItem::Row(row),
        Ok(None) => bad(format!("line {lineno}: a row must be a JSON object")),
        Err(e) => bad(format!(
            "line {lineno}, column {}: not valid JSON: {e}",
            e.column()
        )),
    }
}

fn read_row<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    visitor: RowVisitor,
) -> serde_json::Result<Option<StagedRow>> {
    let row = de.deserialize_any(visitor)?;
    de.end()?;
    Ok(row)
}

/// The record: a row when it is an object, `None` for any other JSON value.
struct RowVisitor {
    number: usize,
    lineno: u64,
}

/// A value that is not an object, read whole (so a malformed one is reported as
/// malformed, as when the line was read into a `Value`).
fn not_an_object<E>(_: impl Sized) -> Result<Option<StagedRow>, E> {
    Ok(None)
}

impl<'de> Visitor<'de> for RowVisitor {
    type Value = Option<StagedRow>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut row = StagedRow {
            number: self.number,
            line: self.lineno,
            ..Default::default()
        };
        // Problems per key, so that a repeated key's earlier problems can be dropped.
        let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let k = key.as_str();
            let mut found = Vec::new();
            match k {
                "source_page" | "locator" | "as_of" => {
                    let v: serde_json::Value = map.next_value()?;
                    let t = metadata(k, v, &mut found);
                    match k {
                        "source_page" => row.source_page = t,
                        "locator" => row.locator = t,
                        _ => row.as_of = t,
                    }
                }
                "cell_locators" | "claims" => {
                    let v: serde_json::Value = map.next_value()?;
                    let target = if k == "claims" {
                        &mut row.claims
                    } else {
                        &mut row.cell_locators
                    };
                    target.clear();
                    named_strings(k, v, target, &mut found);
                }
                _ => {
                    let value = map.next_value_seed(Column {
                        name: k,
                        problems: &mut found,
                    })?;
                    row.values.insert(k.to_string(), value);
                }
            }
            if found.is_empty() {
                problems.remove(k);
            } else {
                problems.insert(k.to_string(), found);
            }
        }
        row.problems = problems.into_values().flatten().collect();
        Ok(Some(row))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<serde_json::Value>()?.is_some() {}
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        not_an_object(v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        not_an_object(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        not_an_object(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        not_an_object(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        not_an_object(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        not_an_object(())
    }
}

/// `source_page`, `locator`, `as_of`: a string (blank or null: absent).
fn metadata(k: &str, v: serde_json::Value, problems: &mut Vec<String>) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) if s.trim().is_empty() => None,
        serde_json::Value::String(s) => Some(s),
        other => {
            problems.push(format!("{k} must be a string, not {other}"));
            None
        }
    }
}

/// `cell_locators`, `claims`: an object of strings.
fn named_strings(
    k: &str,
    v: serde_json::Value,
    target: &mut BTreeMap<String, String>,
    problems: &mut Vec<String>,
) {
    let serde_json::Value::Object(m) = v else {
        problems.push(format!("{k} must be an object"));
        return;
    };
    for (c, x) in m {
        match x {
            serde_json::Value::String(s) => {
                target.insert(c, s);
            }
            other => problems.push(format!("{k}.{c} must be a string, not {other}")),
        }
    }
}

/// A key, borrowed from the line when it has no escapes.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Key::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Key::Owned(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Key::Owned(v))
    }
}

/// A scalar as a cell's text (numbers as JSON writes them), or `None` for anything else.
struct Scalar;

impl<'de> DeserializeSeed<'de> for Scalar {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scalar {
    type Value = Option<String>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        // As `serde_json::Value` writes a float; a JSON number is always finite.
        Ok(serde_json::Number::from_f64(v).map(|n| n.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        serde_json::Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        serde_json::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(None)
    }
}

/// A column's value: text, a list (array of scalars) or null.
struct Column<'p> {
    name: &'p str,
    problems: &'p mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Column<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Column<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a cell value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Text(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Text(v))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Text(Scalar.visit_bool(v)?.unwrap_or_default()))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Text(Scalar.visit_i64(v)?.unwrap_or_default()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Text(Scalar.visit_u64(v)?.unwrap_or_default()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Text(Scalar.visit_f64(v)?.unwrap_or_default()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Scalar)? {
            match item {
                Some(s) => items.push(s),
                None => self.problems.push(format!(
                    "column {}: list items must be strings or numbers",
                    self.name
                )),
            }
        }
        Ok(Value::Items(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        serde_json::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
        self.problems.push(format!(
            "column {}: an object is not a cell value",
            self.name
        ));
        Ok(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What reading the line into a `serde_json::Value` gave (the reader this module
    /// replaces), for comparison.
    fn through_value(line: &[u8], number: usize, lineno: u64) -> String {
        let v: serde_json::Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                return format!(
                    "Bad {{ number: {number}, line: {lineno}, message: \"line {lineno}, column {}: not valid JSON: {e}\" }}",
                    e.column()
                );
            }
        };
        let serde_json::Value::Object(map) = v else {
            return format!(
                "Bad {{ number: {number}, line: {lineno}, message: \"line {lineno}: a row must be a JSON object\" }}"
            );
        };
        let mut row = StagedRow {
            number,
            line: lineno,
            ..Default::default()
        };
        for (k, v) in map {
            let mut found = Vec::new();
            match k.as_str() {
                "source_page" | "locator" | "as_of" => {
                    let t = metadata(&k, v, &mut found);
                    match k.as_str() {
                        "source_page" => row.source_page = t,
                        "locator" => row.locator = t,
                        _ => row.as_of = t,
                    }
                }
                "cell_locators" => named_strings(&k, v, &mut row.cell_locators, &mut found),
                "claims" => named_strings(&k, v, &mut row.claims, &mut found),
                _ => {
                    let text = |x: &serde_json::Value| match x {
                        serde_json::Value::String(s) => Some(s.clone()),
                        serde_json::Value::Number(n) => Some(n.to_string()),
                        serde_json::Value::Bool(b) => Some(b.to_string()),
                        _ => None,
                    };
                    let value = match &v {
                        serde_json::Value::Null => Value::Null,
                        serde_json::Value::Array(items) => Value::Items(
                            items
                                .iter()
                                .filter_map(|x| {
                                    let t = text(x);
                                    if t.is_none() {
                                        found.push(format!(
                                            "column {k}: list items must be strings or numbers"
                                        ));
                                    }
                                    t
                                })
                                .collect(),
                        ),
                        serde_json::Value::Object(_) => {
                            found.push(format!("column {k}: an object is not a cell value"));
                            Value::Null
                        }
                        other => Value::Text(text(other).unwrap_or_default()),
                    };
                    row.values.insert(k.clone(), value);
                }
            }
            row.problems.extend(found);
        }
        format!("{:?}", RowItem::Row(row))
    }

    #[test]
    fn records_read_as_through_a_json_value() {
        let lines: &[&str] = &[
            r#"{"source_page":"Danube","length":2850,"x":null,"ok":true,"f":1.50,"e":1e3,"n":-7}"#,
            r#"{"countries":["Germany",3,null,{"a":1},[2],"Austria"],"c":{"x":[1]}}"#,
            r#"{"locator":5,"as_of":" ","source_page":["A"],"cell_locators":{"b":"x","a":1}}"#,
            r#"{"claims":"extracted","z":{"q":1},"claims":{"v":"derived"},"a\u0020b":"\u00e9"}"#,
            r#"{"v":{"a":1},"v":"fine","w":[{}],"w":[1],"locator":"t|row:1","locator":null}"#,
            r#"{"cell_locators":{"a":"1","b":2},"cell_locators":{"c":"3"},"s":"\ud83d\ude00"}"#,
            "[1, 2]",
            "\"text\"",
            "12",
            "null",
            "{\"a\": 1} x",
            "{\"a\": [1, 2}",
            "{\"a\": \"\\ud800x\"}",
            "[\"\\ud800\"]",
            "{\"a\": 01}",
            "",
            "{\"a\":1,}",
        ];
        for (i, l) in lines.iter().enumerate() {
            let got = format!("{:?}", parse(l.as_bytes(), i, i as u64 + 1));
            assert_eq!(got, through_value(l.as_bytes(), i, i as u64 + 1), "{l}");
        }
        // Not UTF-8: in a value, in a key, outside any string, cut in a character.
        let bytes: &[&[u8]] = &[
            b"{\"source_page\": \"Dan\xffube\"}",
            b"{\"a\xfe\": 1, \"b\": \"ok\"}",
            b"{\"a\": 1} \xff",
            b"{\"a\": \"\xc3\"}",
        ];
        for (i, l) in bytes.iter().enumerate() {
            let got = format!("{:?}", parse(l, i, 7));
            assert!(got.contains("not valid JSON"), "{got}");
            assert_eq!(got, through_value(l, i, 7), "{}", l.escape_ascii());
        }
    }
}
