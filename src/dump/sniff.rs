//! Recognizing what a file holds from its first bytes, never from its name: a `.xml` that
//! is really bz2, a gzip file, a UTF-16 export or an HTML error page all get a precise
//! answer before any parsing starts.

/// The container around the XML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Container {
    PlainXml,
    Bzip2,
}

/// What the first bytes say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sniffed {
    Container(Container),
    Empty,
    Utf16(&'static str),
    Other(String),
}

/// Classifies raw file bytes (compressed or not).
pub(crate) fn sniff_file(head: &[u8]) -> Sniffed {
    if head.is_empty() {
        return Sniffed::Empty;
    }
    if head.len() >= 4 && &head[..3] == b"BZh" && (b'1'..=b'9').contains(&head[3]) {
        return Sniffed::Container(Container::Bzip2);
    }
    match sniff_xml(head) {
        Ok(()) => Sniffed::Container(Container::PlainXml),
        Err(s) => s,
    }
}

/// Checks that (decompressed) bytes look like UTF-8 XML with a `<mediawiki` root.
pub(crate) fn sniff_xml(head: &[u8]) -> Result<(), Sniffed> {
    if head.is_empty() {
        return Err(Sniffed::Empty);
    }
    if let Some(kind) = utf16_kind(head) {
        return Err(Sniffed::Utf16(kind));
    }
    let known: &[(&[u8], &str)] = &[
        (
            b"\x1f\x8b",
            "gzip-compressed data (decompress it, or recompress with bzip2)",
        ),
        (
            b"\x28\xb5\x2f\xfd",
            "zstd-compressed data (decompress it first)",
        ),
        (b"\xfd7zXZ\x00", "xz-compressed data (decompress it first)"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive (extract it first)"),
        (b"PK\x03\x04", "a ZIP archive (extract it first)"),
    ];
    for (magic, what) in known {
        if head.starts_with(magic) {
            return Err(Sniffed::Other(what.to_string()));
        }
    }
    let body = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut rest = skip_ws(body);
    // XML declaration, comments and doctype may precede the root element.
    loop {
        if rest.starts_with(b"<?") {
            match memchr::memmem::find(rest, b"?>") {
                Some(end) => rest = skip_ws(&rest[end + 2..]),
                None => break,
            }
        } else if rest.starts_with(b"<!--") {
            match memchr::memmem::find(rest, b"-->") {
                Some(end) => rest = skip_ws(&rest[end + 3..]),
                None => break,
            }
        } else {
            break;
        }
    }
    if rest.is_empty() {
        return Err(Sniffed::Other(
            "no XML element in the first bytes".to_string(),
        ));
    }
    if rest.starts_with(b"<mediawiki") {
        let after = rest.get(10).copied();
        if matches!(
            after,
            None | Some(b' ' | b'>' | b'\t' | b'\n' | b'\r' | b'/')
        ) {
            return Ok(());
        }
    }
    if rest.starts_with(b"<") {
        let name: String = String::from_utf8_lossy(
            &rest[1..]
                .iter()
                .copied()
                .take_while(|b| !b" \t\r\n>/".contains(b))
                .take(40)
                .collect::<Vec<u8>>(),
        )
        .into_owned();
        return Err(Sniffed::Other(format!(
            "the root element is <{name}>, not <mediawiki>"
        )));
    }
    Err(Sniffed::Other(
        "the data is neither XML nor bzip2-compressed XML".to_string(),
    ))
}

fn skip_ws(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .count();
    &b[n..]
}

/// Detects UTF-16 by BOM or by the zero bytes that ASCII markup has in UTF-16.
fn utf16_kind(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\xFF\xFE") {
        return Some("little-endian, with byte order mark");
    }
    if head.starts_with(b"\xFE\xFF") {
        return Some("big-endian, with byte order mark");
    }
    if head.len() >= 4 {
        if head[0] == b'<' && head[1] == 0 && head[3] == 0 {
            return Some("little-endian");
        }
        if head[0] == 0 && head[1] == b'<' && head[2] == 0 {
            return Some("big-endian");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies() {
        assert_eq!(sniff_file(b""), Sniffed::Empty);
        assert_eq!(
            sniff_file(b"BZh91AY&SY"),
            Sniffed::Container(Container::Bzip2)
        );
        assert_eq!(
            sniff_file(b"<?xml version=\"1.0\"?>\n<mediawiki xmlns=\"x\">"),
            Sniffed::Container(Container::PlainXml)
        );
        assert!(matches!(sniff_file(b"\xFF\xFE<\0m\0"), Sniffed::Utf16(_)));
        assert!(matches!(sniff_file(b"<\0m\0e\0"), Sniffed::Utf16(_)));
        assert!(matches!(sniff_file(b"<html><body>"), Sniffed::Other(m) if m.contains("<html>")));
        assert!(matches!(sniff_file(b"\x1f\x8b\x08"), Sniffed::Other(m) if m.contains("gzip")));
    }
}
