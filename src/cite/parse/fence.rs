//! Code fences that agents close wrongly.
//!
//! A closing fence may carry nothing but spaces after it; an agent that ends a code block
//! with ```` ``` [21]```` has, to CommonMark, left it open, and everything after it — the
//! rest of the report, its sources list included — becomes code, so every marker goes
//! unresolved. When a fenced block never closes and holds such a line, that line was meant
//! to close it: the space after the fence is made a line break (same length, so every
//! byte offset into the report stays valid) and a warning says so.

use std::borrow::Cow;

/// A fence line: indentation, the fence character, its run length and what follows.
fn fence(line: &str) -> Option<(u8, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = *rest.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.bytes().take_while(|&b| b == c).count();
    (n >= 3).then(|| (c, n, &rest[n..]))
}

/// A fenced block not closed yet: its fence character and length, and the first line
/// inside it that is a fence followed by text (the byte offset of the space after its
/// fence, its line number, the line).
type OpenFence = (u8, usize, Option<(usize, usize, String)>);

/// The report with wrongly closed fences repaired, and one warning per repair.
pub(crate) fn repair(src: &str) -> (Cow<'_, str>, Vec<String>) {
    let mut patched: Option<Vec<u8>> = None;
    let mut warnings = Vec::new();
    let mut open: Option<OpenFence> = None;
    let mut pos = 0;
    let mut line_no = 0;
    let text = src;
    loop {
        if pos > text.len() {
            break;
        }
        let end = text[pos..].find('\n').map_or(text.len(), |p| pos + p);
        let line = text[pos..end].trim_end_matches('\r');
        line_no += 1;
        let f = fence(line);
        match (&mut open, f) {
            // A backtick fence's info string cannot hold a backtick.
            (None, Some((c, n, info))) if !(c == b'`' && info.contains('`')) => {
                open = Some((c, n, None));
            }
            (Some((oc, on, cand)), Some((c, n, after))) if c == *oc && n >= *on => {
                if after.trim().is_empty() {
                    open = None;
                } else if cand.is_none() && after.starts_with([' ', '\t']) {
                    let indent = line.len() - line.trim_start_matches(' ').len();
                    *cand = Some((pos + indent + n, line_no, line.to_string()));
                }
            }
            _ => {}
        }
        if end >= text.len() {
            break;
        }
        pos = end + 1;
    }
    // Only the first unterminated block can swallow the rest; repair it, then look again
    // (a later block may be broken the same way).
    if let Some((_, _, Some((at, line_no, line)))) = open {
        let bytes = patched.get_or_insert_with(|| src.as_bytes().to_vec());
        bytes[at] = b'\n';
        warnings.push(format!(
            "line {line_no}: {:?} does not close its code block in CommonMark (text follows the fence), \
             so the rest of the report would be code; read as a closing fence followed by the text",
            line.trim()
        ));
    }
    match patched {
        None => (Cow::Borrowed(src), warnings),
        Some(bytes) => {
            // Only an ASCII space or tab was replaced by a newline: still UTF-8.
            let s = String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            let (again, more) = repair(&s);
            warnings.extend(more);
            (Cow::Owned(again.into_owned()), warnings)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_followed_by_text_is_read_as_closing_when_the_block_never_closes() {
        let src = "Intro [1].\n\n```python\nx = 1\n``` [2]\n\n## Sources\n[1] https://a.example\n";
        let (fixed, w) = repair(src);
        assert_eq!(fixed.len(), src.len());
        assert!(fixed.contains("```\n[2]"), "{fixed}");
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("line 5:"), "{w:?}");
        // Properly closed blocks, and text after a fence inside a block that closes later,
        // are left alone.
        for ok in [
            "```\ncode\n```\ntext [1]\n",
            "```\n``` not a close\n```\n",
            "no code at all",
        ] {
            let (same, w) = repair(ok);
            assert!(matches!(same, Cow::Borrowed(_)) && w.is_empty(), "{ok}");
        }
    }

    #[test]
    fn every_broken_block_is_repaired() {
        let src = "```\na\n``` [1]\ntext\n~~~~\nb\n~~~~ [2]\nmore\n";
        let (fixed, w) = repair(src);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(fixed.contains("```\n[1]") && fixed.contains("~~~~\n[2]"));
    }
}
