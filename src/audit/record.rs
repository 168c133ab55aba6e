//! Findings written as log records: the bytes `serde_json` writes for a [`Finding`],
//! without going through its serializer.
//!
//! An audit writes more findings than rows, and `serde_json` escapes every string byte
//! by byte though almost none needs an escape (the audit id, check names, locators,
//! cell texts). Here a string is copied as is once a scan finds nothing to escape, and
//! handed to `serde_json` when it has something, so the record is the same to the byte
//! (a test compares both on every kind of string).

use super::Finding;

/// Appends `f` and a newline to `out`: what `serde_json::to_writer(out, f)` then `\n`
/// would append.
pub(crate) fn write(out: &mut Vec<u8>, f: &Finding) {
    out.extend_from_slice(b"{\"audit\":");
    string(out, &f.audit);
    out.extend_from_slice(b",\"check\":");
    out.extend_from_slice(itoa::Buffer::new().format(f.check).as_bytes());
    out.extend_from_slice(b",\"name\":");
    string(out, f.name);
    out.extend_from_slice(b",\"category\":");
    string(out, f.category.as_str());
    out.extend_from_slice(b",\"severity\":");
    string(out, f.severity.as_str());
    out.extend_from_slice(b",\"row\":");
    match f.row {
        Some(r) => out.extend_from_slice(itoa::Buffer::new().format(r).as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"line\":");
    match f.line {
        Some(l) => out.extend_from_slice(itoa::Buffer::new().format(l).as_bytes()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"key\":");
    optional(out, f.key.as_deref());
    out.extend_from_slice(b",\"locator\":");
    optional(out, f.locator.as_deref());
    out.extend_from_slice(b",\"evidence\":");
    optional(out, f.evidence.as_deref());
    out.extend_from_slice(b",\"message\":");
    string(out, &f.message);
    out.extend_from_slice(b"}\n");
}

fn optional(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// `s` as a JSON string. JSON escapes only `"`, `\` and the control characters; the
/// scan is written without an early exit so that it compiles to vector compares.
fn string(out: &mut Vec<u8>, s: &str) {
    let plain = s
        .bytes()
        .fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    if plain {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // Writing a string into a vector cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Category, Check, Severity};

    fn finding(text: &str, with_options: bool) -> Finding {
        let check = Check::RowEvidence;
        Finding {
            audit: "78f12e6bed87a2d6".into(),
            check: check.id(),
            name: check.name(),
            category: Category::Factual,
            severity: Severity::Advisory,
            row: with_options.then_some(1_234_567),
            line: with_options.then_some(u64::MAX),
            key: with_options.then(|| format!("{text} | 1997")),
            locator: with_options.then(|| format!("{text}#Filmography|table:1|row:0")),
            evidence: with_options.then(|| format!("Year: 1997; Title: {text}")),
            message: format!("c3 = {text:?} (the cell says {text:?})"),
        }
    }

    /// Every kind of string a row can carry, escaped or not: the record is what
    /// `serde_json` writes, byte for byte.
    #[test]
    fn records_are_serde_json_s() {
        let texts = [
            "",
            "\"Weird Al\" Yankovic",
            "back\\slash",
            "tab\there, newline\nthere, bell\u{7}, escape\u{1b}, delete\u{7f}",
            "Paraná — São Francisco – 6,650 km",
            "日本語 🦀 \u{2028}\u{2029} </script>",
            "plain ASCII, long enough to cross a vector's width: 0123456789abcdefghijklmnop",
        ];
        for &t in &texts {
            for with_options in [false, true] {
                let f = finding(t, with_options);
                let mut ours = Vec::new();
                write(&mut ours, &f);
                let mut theirs = serde_json::to_vec(&f).unwrap();
                theirs.push(b'\n');
                assert_eq!(
                    String::from_utf8_lossy(&ours),
                    String::from_utf8_lossy(&theirs),
                    "{t:?}"
                );
            }
        }
        for c in [Category::Factual, Category::Structural, Category::Scope] {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("{:?}", c.as_str())
            );
        }
        for s in [Severity::Blocking, Severity::Hygiene, Severity::Advisory] {
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("{:?}", s.as_str())
            );
        }
    }
}
