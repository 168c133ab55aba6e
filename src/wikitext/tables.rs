//! Tables as `Parser::doTableStuff` reads them: line-based, `{|` opens (after optional
//! `:` indentation), `|-` starts a row, `|` / `!` start cells (`||`, and `!!` on header
//! lines, separate cells on one line), `|+` a caption, `|}` closes; other lines continue
//! the open cell. Runs on flattened text, where template calls are markers, so a `|`
//! inside a template never splits a cell — as in MediaWiki, which expands templates first.

use std::ops::Range;

/// A table in flat-text offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTable {
    pub start: u32,
    pub end: u32,
    pub attrs: Range<u32>,
    pub caption: Option<Range<u32>>,
    pub rows: Vec<RawRow>,
    /// Index of the enclosing table (for tables inside cells).
    pub parent: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RawRow {
    pub attrs: Option<Range<u32>>,
    pub cells: Vec<RawCell>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCell {
    pub header: bool,
    pub attrs: Option<Range<u32>>,
    pub content: Range<u32>,
    /// Nested tables inside this cell (indices into the result).
    pub nested: Vec<usize>,
}

fn trim_range(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead == s.len() {
        return r.start..r.start;
    }
    r.start + lead..r.end - trail
}

/// Splits `line` at `sep` outside `<…>` (`StringUtils::replaceMarkup` for `!!`).
fn split_cells(text: &str, r: Range<usize>, header: bool) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = r.start;
    let mut i = r.start;
    let mut in_tag = false;
    while i + 1 < r.end {
        match b[i] {
            b'<' => in_tag = true,
            b'>' => in_tag = false,
            _ => {}
        }
        if b[i] == b'|' && b[i + 1] == b'|' {
            out.push(start..i);
            i += 2;
            start = i;
            continue;
        }
        if header && !in_tag && b[i] == b'!' && b[i + 1] == b'!' {
            out.push(start..i);
            i += 2;
            start = i;
            continue;
        }
        i += 1;
    }
    out.push(start..r.end);
    out
}

/// Finds every table in `text` (flat text of one page or argument).
pub fn parse(text: &str) -> Vec<RawTable> {
    let mut tables: Vec<RawTable> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let mut line_start = 0usize;
    let bytes = text.as_bytes();
    while line_start <= text.len() {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..])
            .map(|p| line_start + p)
            .unwrap_or(text.len());
        let t = trim_range(text, line_start..line_end);
        let line = &text[t.clone()];
        let next = line_end + 1;
        if line.is_empty() {
            line_start = next;
            continue;
        }
        // `{|` after optional `:` indentation and whitespace.
        let after_colons = line.trim_start_matches(':').trim_start();
        if after_colons.starts_with("{|") {
            let open = t.end - after_colons.len();
            let parent = stack.last().copied();
            let idx = tables.len();
            if let Some(p) = parent
                && let Some(cell) = tables[p].rows.last_mut().and_then(|r| r.cells.last_mut())
            {
                cell.nested.push(idx);
            }
            tables.push(RawTable {
                start: open as u32,
                end: t.end as u32,
                attrs: (open + 2) as u32..t.end as u32,
                caption: None,
                rows: Vec::new(),
                parent,
            });
            stack.push(idx);
            line_start = next;
            continue;
        }
        let Some(&top) = stack.last() else {
            line_start = next;
            continue;
        };
        let table = &mut tables[top];
        if line.starts_with("|}") {
            table.end = (t.start + 2) as u32;
            stack.pop();
            // The enclosing cell continues past the nested table.
            if let Some(&p) = stack.last()
                && let Some(cell) = tables[p].rows.last_mut().and_then(|r| r.cells.last_mut())
            {
                cell.content.end = cell.content.end.max((t.start + 2) as u32);
            }
        } else if line.starts_with("|-") {
            let dashes = line[1..].bytes().take_while(|&b| b == b'-').count();
            let a = trim_range(text, t.start + 1 + dashes..t.end);
            table.rows.push(RawRow {
                attrs: (!a.is_empty()).then_some(a.start as u32..a.end as u32),
                cells: Vec::new(),
            });
        } else if line.starts_with("|+") {
            let c = trim_range(text, t.start + 2..t.end);
            table.caption = Some(c.start as u32..c.end as u32);
        } else if line.starts_with('|') || line.starts_with('!') {
            let header = line.starts_with('!');
            if table.rows.is_empty() {
                table.rows.push(RawRow::default());
            }
            let row = table.rows.last_mut().expect("a row exists");
            for cell in split_cells(text, t.start + 1..t.end, header) {
                let raw = &text[cell.clone()];
                let (attrs, content) = match raw.find('|') {
                    Some(p)
                        if memchr::memmem::find(&raw.as_bytes()[..p], b"[[").is_none()
                            && memchr::memmem::find(&raw.as_bytes()[..p], b"-{").is_none() =>
                    {
                        let a = trim_range(text, cell.start..cell.start + p);
                        (
                            Some(a.start as u32..a.end as u32),
                            trim_range(text, cell.start + p + 1..cell.end),
                        )
                    }
                    _ => match attrs_before_marker(raw) {
                        // `| colspan="5" {{CMain}}`: the template supplies `attrs |` itself.
                        Some(n) => {
                            let a = trim_range(text, cell.start..cell.start + n);
                            (
                                Some(a.start as u32..a.end as u32),
                                trim_range(text, cell.start + n..cell.end),
                            )
                        }
                        None => (None, trim_range(text, cell.clone())),
                    },
                };
                row.cells.push(RawCell {
                    header,
                    attrs,
                    content: content.start as u32..content.end as u32,
                    nested: Vec::new(),
                });
            }
        } else {
            // A continuation line: part of the open cell (or caption).
            if let Some(cell) = table.rows.last_mut().and_then(|r| r.cells.last_mut()) {
                cell.content.end = t.end as u32;
            } else if let Some(c) = &mut table.caption {
                c.end = t.end as u32;
            }
        }
        line_start = next;
    }
    // Unclosed tables end where the text ends.
    for idx in stack {
        tables[idx].end = text.len() as u32;
    }
    tables
}

/// Length of `name="value" …` attributes directly followed by a template marker: the
/// idiom of cell templates that emit their own `style=… |` (`{{Yes}}`, `{{CMain}}`).
fn attrs_before_marker(raw: &str) -> Option<usize> {
    let b = raw.as_bytes();
    let mut i = 0;
    let mut attrs = 0;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&0x7f) {
            return (attrs > 0).then_some(i);
        }
        let name = b[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
            .count();
        if name == 0 {
            return None;
        }
        i += name;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if b.get(i) != Some(&b'=') {
            return None;
        }
        i += 1;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        match b.get(i) {
            Some(&q @ (b'"' | b'\'')) => {
                let close = memchr::memchr(q, &b[i + 1..])?;
                i += close + 2;
            }
            Some(_) => {
                i += b[i..]
                    .iter()
                    .take_while(|c| !c.is_ascii_whitespace() && **c != 0x7f)
                    .count();
            }
            None => return None,
        }
        attrs += 1;
    }
}

/// `rowspan=2` / `colspan="3"` from cell attributes (1 when absent or invalid).
///
/// When an attribute is repeated, the last one counts, as in MediaWiki's sanitizer.
pub(crate) fn span_attr(attrs: &str, name: &str) -> u16 {
    if attrs.len() < name.len() {
        return 1;
    }
    let lower = attrs.to_ascii_lowercase();
    let Some(p) = lower.rfind(name) else { return 1 };
    let rest = lower[p + name.len()..].trim_start();
    let Some(rest) = rest.strip_prefix('=') else {
        return 1;
    };
    let rest = rest.trim_start().trim_start_matches(['"', '\'']);
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits
        .parse::<u16>()
        .ok()
        .filter(|&n| n >= 1)
        .map(|n| n.min(1000))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_cells_captions() {
        let t = "{| class=\"wikitable\"\n|+ Rivers\n! River !! Length\n|-\n| [[Danube|The Danube]] || 2,850\n|-\n| style=\"x\" | Rhine\n| 1,230\nmore\n|}";
        let tables = parse(t);
        assert_eq!(tables.len(), 1);
        let tb = &tables[0];
        let s = |r: &Range<u32>| &t[r.start as usize..r.end as usize];
        assert_eq!(s(tb.caption.as_ref().unwrap()), "Rivers");
        assert_eq!(tb.rows.len(), 3);
        assert_eq!(s(&tb.rows[0].cells[1].content), "Length");
        assert!(tb.rows[0].cells[0].header);
        assert_eq!(s(&tb.rows[1].cells[0].content), "[[Danube|The Danube]]");
        assert_eq!(s(&tb.rows[2].cells[0].content), "Rhine");
        assert_eq!(s(&tb.rows[2].cells[1].content), "1,230\nmore");
    }

    #[test]
    fn nested_tables_and_spans() {
        let t = "{|\n| a\n{|\n| inner\n|}\n| b\n|}";
        let tables = parse(t);
        assert_eq!(tables.len(), 2);
        assert_eq!(tables[1].parent, Some(0));
        assert_eq!(tables[0].rows[0].cells[0].nested, vec![1]);
        assert_eq!(tables[0].rows[0].cells.len(), 2);
        assert_eq!(span_attr(" rowspan=\"2\" style=x", "rowspan"), 2);
        assert_eq!(span_attr("colspan = 3", "colspan"), 3);
        assert_eq!(span_attr("style=x", "colspan"), 1);
        assert_eq!(
            span_attr(" colspan=\"2\" ! colspan=\"1\" rowspan=\"2\"", "colspan"),
            1
        );
        assert_eq!(attrs_before_marker(" colspan=\"5\" \x7f"), Some(13));
        assert_eq!(attrs_before_marker("text \x7f"), None);
    }
}
