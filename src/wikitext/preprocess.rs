//! The MediaWiki preprocessor: wikitext → a tree of templates, template arguments,
//! extension tags, comments and headings (`Preprocessor_Hash::buildDomTreeArrayFromText`),
//! for rendering a page itself ([`preprocess`]) or for transcluding it into another page
//! ([`preprocess_for_inclusion`]: `<noinclude>` content dropped, `<includeonly>` tags
//! ignored, `<onlyinclude>` restricting what is transcluded).
//!
//! This decides what is a template call, what is literal text and where a `|` separates
//! arguments, exactly as MediaWiki does — unclosed `{{` become text, `[[…|…]]` protects
//! its pipe from the enclosing template, `<ref>` without `</ref>` is text. It is linear:
//! each byte is looked at a bounded number of times; the only superlinear spots of the
//! original (unclosed tags, deep unclosed braces) are cut off by caches and a depth limit.

use std::ops::Range;

/// Byte range in the page's wikitext.
pub(crate) type Span = Range<u32>;

/// Deepest nesting of open brackets kept on the stack; deeper openings are literal text.
/// MediaWiki itself gives up far earlier on real pages (expansion depth 40).
pub(crate) const MAX_DEPTH: usize = 64;

/// A preprocessor node. Every node maps back to source bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// Literal text.
    Text(Span),
    /// `<!-- … -->` (with the whitespace and newline it eats when alone on a line).
    Comment(Span),
    /// Dropped markup: `<noinclude>` tags, `<includeonly>…</includeonly>` elements.
    Ignore(Span),
    /// An extension tag such as `<ref name=x>…</ref>` or `<nowiki/>`.
    Ext(Ext),
    /// `== … ==` at the start of a line: level and 1-based index in document order.
    Heading {
        level: u8,
        index: u32,
        span: Span,
        children: Vec<Node>,
    },
    /// `{{title|part|name=value}}`.
    Template(Call),
    /// `{{{name|default}}}`.
    Argument(Call),
    /// The `=` separating a part's name from its value while the part is being built;
    /// [`preprocess`] never returns it (it becomes text).
    Equals(u32),
}

/// An extension tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ext {
    /// Lower-cased tag name.
    pub name: String,
    pub span: Span,
    pub attrs: Span,
    /// Content between the tags; `None` for `<tag/>`.
    pub inner: Option<Span>,
}

/// A template call or template argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Call {
    pub span: Span,
    pub title: Vec<Node>,
    pub parts: Vec<Part>,
    /// The call starts a line (matters for list/table syntax in its expansion).
    pub line_start: bool,
}

/// One `|`-separated part of a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// `name` of `name=value`; `None` for positional parts.
    pub name: Option<Vec<Node>>,
    /// 1-based position for positional parts.
    pub index: u32,
    pub value: Vec<Node>,
    pub span: Span,
}

/// Extension tags whose content is not wikitext (or is handled by the tag's own parser).
/// The set Wikipedia registers, so that `<math>` content is never mistaken for links.
pub(crate) const EXTENSION_TAGS: &[&str] = &[
    "nowiki",
    "pre",
    "gallery",
    "ref",
    "references",
    "indicator",
    "math",
    "chem",
    "ce",
    "syntaxhighlight",
    "source",
    "score",
    "timeline",
    "graph",
    "templatedata",
    "templatestyles",
    "hiero",
    "mapframe",
    "maplink",
    "inputbox",
    "charinsert",
    "categorytree",
    "section",
    "poem",
    "imagemap",
    "langconvert",
    "phonos",
];

#[derive(Debug, Default)]
struct PartBuf {
    out: Vec<Node>,
    eqpos: Option<usize>,
    start: u32,
    /// Where the part ends (the `|` of the next part), once known.
    end: Option<u32>,
    /// Last byte of a comment that ends the part so far (heading close detection).
    comment_end: Option<u32>,
    visual_end: Option<u32>,
}

#[derive(Debug)]
enum Open {
    Brace,
    Bracket,
    Heading,
}

#[derive(Debug)]
struct Piece {
    open: Open,
    count: usize,
    start: u32,
    parts: Vec<PartBuf>,
    line_start: bool,
}

impl Piece {
    fn close_char(&self) -> u8 {
        match self.open {
            Open::Brace => b'}',
            Open::Bracket => b']',
            Open::Heading => b'\n',
        }
    }

    /// `PPDStackElement::breakSyntax`: the piece as literal text plus its nodes.
    fn break_syntax(self, opening: Option<usize>, out: &mut Vec<Node>) {
        match self.open {
            Open::Heading => {
                for p in self.parts {
                    out.extend(p.out);
                }
            }
            _ => {
                let n = opening.unwrap_or(self.count) as u32;
                out.push(Node::Text(self.start..self.start + n));
                for (k, p) in self.parts.into_iter().enumerate() {
                    if k > 0 {
                        // The `|` that started this part.
                        out.push(Node::Text(p.start - 1..p.start));
                    }
                    out.extend(p.out);
                }
            }
        }
    }
}

fn push_text(out: &mut Vec<Node>, span: Span) {
    if span.start >= span.end {
        return;
    }
    if let Some(Node::Text(last)) = out.last_mut()
        && last.end == span.start
    {
        last.end = span.end;
        return;
    }
    out.push(Node::Text(span));
}

/// Whether what follows an element's name lets it be a tag: a space, `>`, or `/>`, as
/// MediaWiki's element pattern looks ahead. `<nowiki/x>` and `<pre/ >` stay text, and
/// so does a name at the end of the text.
fn is_tag_name_end(after: &[u8]) -> bool {
    match after {
        [b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'>', ..] => true,
        [b'/', rest @ ..] => rest.first() == Some(&b'>'),
        _ => false,
    }
}

/// Finds `</name\s*>` (ASCII case-insensitive) at or after `from`.
fn find_close_tag(text: &[u8], name: &str, from: usize) -> Option<(usize, usize)> {
    let n = name.len();
    let mut at = from;
    while let Some(p) = memchr::memmem::find(&text[at..], b"</") {
        let s = at + p;
        let name_end = s + 2 + n;
        if name_end <= text.len() && text[s + 2..name_end].eq_ignore_ascii_case(name.as_bytes()) {
            let mut e = name_end;
            while e < text.len() && matches!(text[e], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
                e += 1;
            }
            if text.get(e) == Some(&b'>') {
                return Some((s, e + 1));
            }
        }
        at = s + 2;
    }
    None
}

/// Whether the text is rendered as a page of its own or transcluded into another one:
/// the two modes differ only in which of `<noinclude>`, `<includeonly>` and
/// `<onlyinclude>` hide content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The page itself: `<includeonly>…</includeonly>` is dropped, the other two tags are
    /// ignored (their content stays).
    Page,
    /// A transclusion: `<noinclude>…</noinclude>` is dropped, `<includeonly>` tags are
    /// ignored, and when the text has both `<onlyinclude>` and `</onlyinclude>`, only
    /// what lies between such pairs is kept.
    Inclusion,
}

/// How many nodes a tree holds, counting each part of a call as one: the preprocessor's
/// output size, which a page's generated-node limit bounds.
pub(crate) fn node_count(nodes: &[Node]) -> u64 {
    let calls = |c: &Call| {
        node_count(&c.title)
            + c.parts
                .iter()
                .map(|p| 1 + p.name.as_deref().map_or(0, node_count) + node_count(&p.value))
                .sum::<u64>()
    };
    nodes
        .iter()
        .map(|n| {
            1 + match n {
                Node::Heading { children, .. } => node_count(children),
                Node::Template(c) | Node::Argument(c) => calls(c),
                _ => 0,
            }
        })
        .sum()
}

/// Preprocesses a page's wikitext.
pub(crate) fn preprocess(text: &str) -> Vec<Node> {
    Preprocessor::new(text, Mode::Page).run()
}

/// Preprocesses a template's wikitext as MediaWiki does when transcluding it.
pub(crate) fn preprocess_for_inclusion(text: &str) -> Vec<Node> {
    Preprocessor::new(text, Mode::Inclusion).run()
}

struct Preprocessor<'a> {
    text: &'a [u8],
    stack: Vec<Piece>,
    root: Vec<Node>,
    heading_index: u32,
    no_more_gt: bool,
    no_more_closing: Vec<String>,
    mode: Mode,
    /// Inclusion mode with both `<onlyinclude>` and `</onlyinclude>` in the text.
    only_include: bool,
}

const ONLYINCLUDE_OPEN: &[u8] = b"<onlyinclude>";
const ONLYINCLUDE_CLOSE: &[u8] = b"</onlyinclude>";

impl<'a> Preprocessor<'a> {
    fn new(text: &'a str, mode: Mode) -> Self {
        let bytes = text.as_bytes();
        let only_include = mode == Mode::Inclusion
            && memchr::memmem::find(bytes, ONLYINCLUDE_OPEN).is_some()
            && memchr::memmem::find(bytes, ONLYINCLUDE_CLOSE).is_some();
        Preprocessor {
            text: bytes,
            stack: Vec::new(),
            root: Vec::new(),
            heading_index: 1,
            no_more_gt: false,
            no_more_closing: Vec::new(),
            mode,
            only_include,
        }
    }

    /// The element whose whole content this mode drops.
    fn ignored_element(&self) -> &'static str {
        match self.mode {
            Mode::Page => "includeonly",
            Mode::Inclusion => "noinclude",
        }
    }

    /// Tags this mode drops while keeping what lies between them.
    fn is_ignored_tag(&self, lower: &str) -> bool {
        match self.mode {
            Mode::Page => matches!(
                lower,
                "noinclude" | "/noinclude" | "onlyinclude" | "/onlyinclude"
            ),
            Mode::Inclusion => matches!(lower, "includeonly" | "/includeonly"),
        }
    }

    fn accum(&mut self) -> &mut Vec<Node> {
        match self.stack.last_mut() {
            Some(p) => &mut p.parts.last_mut().expect("a piece has a part").out,
            None => &mut self.root,
        }
    }

    fn current_part(&mut self) -> Option<&mut PartBuf> {
        self.stack.last_mut().and_then(|p| p.parts.last_mut())
    }

    fn find_pipe(&self) -> bool {
        matches!(self.stack.last(), Some(p) if matches!(p.open, Open::Brace))
    }

    fn find_equals(&self) -> bool {
        match self.stack.last() {
            Some(p) if matches!(p.open, Open::Brace) => {
                p.parts.len() > 1 && p.parts.last().is_some_and(|x| x.eqpos.is_none())
            }
            _ => false,
        }
    }

    fn in_heading(&self) -> bool {
        matches!(self.stack.last(), Some(p) if matches!(p.open, Open::Heading))
    }

    fn run(mut self) -> Vec<Node> {
        let text = self.text;
        let len = text.len();
        let mut i = 0usize;
        let mut fake_line_start = true;
        let mut find_only_include = self.only_include;
        loop {
            if find_only_include {
                // Everything up to the next `<onlyinclude>` is not transcluded.
                match memchr::memmem::find(&text[i..], ONLYINCLUDE_OPEN) {
                    Some(p) => {
                        let end = i + p + ONLYINCLUDE_OPEN.len();
                        self.accum().push(Node::Ignore(i as u32..end as u32));
                        i = end;
                        find_only_include = false;
                    }
                    None => {
                        if i < len {
                            self.accum().push(Node::Ignore(i as u32..len as u32));
                        }
                        break;
                    }
                }
            }
            let found;
            if fake_line_start {
                found = Found::LineStart;
            } else {
                let closing = self.stack.last().map(|p| p.close_char());
                let find_pipe = self.find_pipe();
                let find_equals = self.find_equals();
                let start = i;
                while i < len {
                    let c = text[i];
                    let stop = matches!(c, b'[' | b'{' | b'<' | b'\n')
                        || Some(c) == closing
                        || (find_pipe && c == b'|')
                        || (find_equals && c == b'=');
                    if stop {
                        break;
                    }
                    i += 1;
                }
                push_text(self.accum(), start as u32..i as u32);
                if i >= len {
                    if self.in_heading() {
                        found = Found::LineEnd;
                    } else {
                        break;
                    }
                } else {
                    let c = text[i];
                    found = if c == b'|' && find_pipe {
                        Found::Pipe
                    } else if c == b'=' && find_equals {
                        Found::Equals
                    } else if c == b'<' {
                        Found::Angle
                    } else if c == b'\n' {
                        if self.in_heading() {
                            Found::LineEnd
                        } else {
                            Found::LineStart
                        }
                    } else if Some(c) == closing {
                        Found::Close
                    } else if (c == b'{' || c == b'[') && text.get(i + 1) == Some(&c) {
                        Found::Open
                    } else {
                        // A lone `{` or `[` (or a closing char of no open piece): literal.
                        push_text(self.accum(), i as u32..i as u32 + 1);
                        i += 1;
                        continue;
                    }
                }
            }
            match found {
                Found::Angle if self.only_include && text[i..].starts_with(ONLYINCLUDE_CLOSE) => {
                    find_only_include = true;
                }
                Found::Angle => i = self.angle(i, &mut fake_line_start),
                Found::LineStart => {
                    if fake_line_start {
                        fake_line_start = false;
                    } else {
                        push_text(self.accum(), i as u32..i as u32 + 1);
                        i += 1;
                    }
                    let count = text[i..].iter().take(6).take_while(|&&b| b == b'=').count();
                    if count == 1 && self.find_equals() {
                        // A name=value separator, not a heading.
                    } else if count > 0 && self.stack.len() < MAX_DEPTH {
                        self.stack.push(Piece {
                            open: Open::Heading,
                            count,
                            start: i as u32,
                            parts: vec![PartBuf {
                                out: vec![Node::Text(i as u32..(i + count) as u32)],
                                start: i as u32,
                                ..Default::default()
                            }],
                            line_start: true,
                        });
                        i += count;
                    }
                }
                Found::LineEnd => self.line_end(i),
                Found::Open => i = self.open(i),
                Found::Close => i = self.close(i),
                Found::Pipe => {
                    if let Some(part) = self.current_part() {
                        part.end = Some(i as u32);
                    }
                    i += 1;
                    if let Some(p) = self.stack.last_mut() {
                        p.parts.push(PartBuf {
                            start: i as u32,
                            ..Default::default()
                        });
                    }
                }
                Found::Equals => {
                    let acc = self.accum();
                    let pos = acc.len();
                    // A separate node, so that following text does not merge into it.
                    acc.push(Node::Equals(i as u32));
                    if let Some(p) = self.current_part() {
                        p.eqpos = Some(pos);
                    }
                    i += 1;
                }
            }
        }
        // Unclosed brackets become text.
        let stack = std::mem::take(&mut self.stack);
        let mut out = std::mem::take(&mut self.root);
        for piece in stack {
            piece.break_syntax(None, &mut out);
        }
        merge_text(out)
    }

    fn angle(&mut self, i: usize, fake_line_start: &mut bool) -> usize {
        let text = self.text;
        let len = text.len();
        let rest = &text[i + 1..];
        if rest.starts_with(b"!--") {
            return self.comment(i, fake_line_start);
        }
        // Element name: an extension tag, the element this mode drops, or a tag it ignores.
        // A `/` only opens a closing tag (`</includeonly>`); after the name it may only
        // close the tag (`<nowiki/>`, `<references/>`): `is_tag_name_end`.
        let slash = usize::from(rest.first() == Some(&b'/'));
        let name_len = slash
            + rest[slash..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric())
                .count();
        let raw = &rest[..name_len];
        let lower = String::from_utf8_lossy(raw).to_ascii_lowercase();
        let ignored_tag = self.is_ignored_tag(&lower);
        let ignored_element = self.ignored_element();
        let element = lower == ignored_element || EXTENSION_TAGS.contains(&lower.as_str());
        if name_len == 0 || !(ignored_tag || element) || !is_tag_name_end(&rest[name_len..]) {
            push_text(self.accum(), i as u32..i as u32 + 1);
            return i + 1;
        }
        let attr_start = i + 1 + name_len;
        let tag_end = if self.no_more_gt {
            None
        } else {
            memchr::memchr(b'>', &text[attr_start..]).map(|p| attr_start + p)
        };
        let Some(tag_end) = tag_end else {
            self.no_more_gt = true;
            push_text(self.accum(), i as u32..i as u32 + 1);
            return i + 1;
        };
        if ignored_tag {
            self.accum()
                .push(Node::Ignore(i as u32..tag_end as u32 + 1));
            return tag_end + 1;
        }
        let (attr_end, inner, next) = if text[tag_end - 1] == b'/' {
            (tag_end - 1, None, tag_end + 1)
        } else if !self.no_more_closing.contains(&lower)
            && let Some((cs, ce)) = find_close_tag(text, &lower, tag_end + 1)
        {
            (tag_end, Some(tag_end as u32 + 1..cs as u32), ce)
        } else if lower == ignored_element {
            // Allowed to run to the end of the text without its closing tag.
            (tag_end, Some(tag_end as u32 + 1..len as u32), len)
        } else {
            self.no_more_closing.push(lower);
            push_text(self.accum(), i as u32..tag_end as u32 + 1);
            return tag_end + 1;
        };
        if lower == ignored_element {
            self.accum().push(Node::Ignore(i as u32..next as u32));
            return next;
        }
        self.accum().push(Node::Ext(Ext {
            name: lower,
            span: i as u32..next as u32,
            attrs: attr_start as u32..attr_end as u32,
            inner,
        }));
        next
    }

    fn comment(&mut self, i: usize, fake_line_start: &mut bool) -> usize {
        let text = self.text;
        let len = text.len();
        let Some(end_rel) = memchr::memmem::find(&text[i + 4..], b"-->") else {
            self.accum().push(Node::Comment(i as u32..len as u32));
            return len;
        };
        let end_pos = i + 4 + end_rel; // index of "-->"
        let ws_before = text[..i]
            .iter()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let ws_start = i - ws_before;
        let ws_after = |p: usize| {
            text[p..]
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count()
        };
        // Position of the last space after the comment (or of its '>').
        let mut ws_end = end_pos + 2 + ws_after((end_pos + 3).min(len));
        let mut comments = vec![(ws_start, ws_end)];
        while text.get(ws_end + 1..ws_end + 5) == Some(b"<!--") {
            let Some(c) = memchr::memmem::find(&text[ws_end + 5..], b"-->") else {
                break;
            };
            let c = ws_end + 5 + c;
            let c = c + 2 + ws_after((c + 3).min(len));
            comments.push((ws_end + 1, c));
            ws_end = c;
        }
        let (start, end);
        if ws_start > 0 && text[ws_start - 1] == b'\n' && text.get(ws_end + 1) == Some(&b'\n') {
            // The comments fill their line: eat the leading whitespace and the newline.
            let ws_len = (i - ws_start) as u32;
            if ws_len > 0
                && let Some(Node::Text(last)) = self.accum().last_mut()
                && last.end == i as u32
                && last.end - last.start >= ws_len
            {
                last.end -= ws_len;
                if last.start == last.end {
                    self.accum().pop();
                }
            }
            for &(s, e) in &comments[..comments.len() - 1] {
                self.accum().push(Node::Comment(s as u32..e as u32 + 1));
            }
            let last = comments[comments.len() - 1];
            start = last.0;
            end = last.1 + 1; // includes the newline
            *fake_line_start = true;
        } else {
            start = i;
            end = end_pos + 2;
        }
        if let Some(part) = self.current_part() {
            if part.comment_end.map(|c| c + 1) != Some(ws_start as u32) {
                part.visual_end = Some(ws_start as u32);
            }
            part.comment_end = Some(end as u32);
        }
        self.accum()
            .push(Node::Comment(start as u32..end as u32 + 1));
        end + 1
    }

    fn line_end(&mut self, i: usize) {
        let text = self.text;
        let piece = self.stack.pop().expect("a heading is open");
        let part = piece.parts.last().expect("a heading has a part");
        let mut search_start = i - text[..i]
            .iter()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if let (Some(ce), Some(ve)) = (part.comment_end, part.visual_end)
            && search_start as u32 == ce + 1
        {
            search_start = ve as usize;
            search_start -= text[..search_start]
                .iter()
                .rev()
                .take_while(|b| matches!(b, b' ' | b'\t'))
                .count();
        }
        let eq_len = text[..search_start]
            .iter()
            .rev()
            .take_while(|&&b| b == b'=')
            .count();
        let mut count = piece.count;
        let mut element = Vec::new();
        if eq_len > 0 {
            if search_start - eq_len == piece.start as usize {
                // A line of only `=`: `/={n}(.+)={n}/` needs at least 3.
                count = if eq_len < 3 {
                    0
                } else {
                    6.min((eq_len - 1) / 2)
                };
            } else {
                count = count.min(eq_len);
            }
            if count > 0 {
                let index = self.heading_index;
                self.heading_index += 1;
                let children: Vec<Node> = piece.parts.into_iter().flat_map(|p| p.out).collect();
                element.push(Node::Heading {
                    level: count as u8,
                    index,
                    span: piece.start..i as u32,
                    children: merge_text(children),
                });
            } else {
                piece.break_syntax(None, &mut element);
            }
        } else {
            piece.break_syntax(None, &mut element);
        }
        let acc = self.accum();
        for n in element {
            match n {
                Node::Text(s) => push_text(acc, s),
                other => acc.push(other),
            }
        }
    }

    fn open(&mut self, i: usize) -> usize {
        let text = self.text;
        let c = text[i];
        let count = text[i..].iter().take_while(|&&b| b == c).count();
        let line_start = i > 0 && text[i - 1] == b'\n';
        if self.stack.len() >= MAX_DEPTH {
            push_text(self.accum(), i as u32..(i + count) as u32);
            return i + count;
        }
        self.stack.push(Piece {
            open: if c == b'{' {
                Open::Brace
            } else {
                Open::Bracket
            },
            count,
            start: i as u32,
            parts: vec![PartBuf {
                start: (i + count) as u32,
                ..Default::default()
            }],
            line_start,
        });
        i + count
    }

    fn close(&mut self, i: usize) -> usize {
        let text = self.text;
        let piece = self.stack.last().expect("close needs an open piece");
        let c = piece.close_char();
        let max_count = piece.count;
        let count = text[i..]
            .iter()
            .take(max_count)
            .take_while(|&&b| b == c)
            .count();
        let (max, names): (usize, &[usize]) = match piece.open {
            Open::Brace => (3, &[2, 3]),
            _ => (2, &[2]),
        };
        let mut matching = count.min(max);
        while matching > 0 && !names.contains(&matching) {
            matching -= 1;
        }
        if matching == 0 {
            push_text(self.accum(), i as u32..(i + count) as u32);
            return i + count;
        }
        let mut piece = self.stack.pop().expect("checked above");
        let mut element = Vec::new();
        let end = (i + matching) as u32;
        if matches!(piece.open, Open::Bracket) {
            // `[[…]]` only groups its content (so its pipes stay in place).
            let start = piece.start + (piece.count - matching) as u32;
            element.push(Node::Text(start..start + 2));
            for p in std::mem::take(&mut piece.parts) {
                element.extend(p.out);
            }
            element.push(Node::Text(i as u32..end));
        } else {
            let start = piece.start + (piece.count - matching) as u32;
            let mut parts = std::mem::take(&mut piece.parts).into_iter();
            let title = parts.next().map(|p| merge_text(p.out)).unwrap_or_default();
            let mut out_parts = Vec::new();
            let mut index = 1;
            for p in parts {
                let span = p.start..p.end.unwrap_or(i as u32);
                match p.eqpos {
                    Some(eq) => {
                        let mut out = p.out;
                        let value = out.split_off(eq + 1);
                        out.pop();
                        out_parts.push(Part {
                            name: Some(merge_text(out)),
                            index: 0,
                            value: merge_text(value),
                            span,
                        });
                    }
                    None => {
                        out_parts.push(Part {
                            name: None,
                            index,
                            value: merge_text(p.out),
                            span,
                        });
                        index += 1;
                    }
                }
            }
            let call = Call {
                span: start..end,
                title,
                parts: out_parts,
                line_start: piece.line_start && matching == piece.count,
            };
            element.push(if matching == 3 {
                Node::Argument(call)
            } else {
                Node::Template(call)
            });
        }
        // Unmatched opening characters stay open (or become text).
        if matching < piece.count {
            piece.count -= matching;
            piece.parts = vec![PartBuf {
                start: piece.start + piece.count as u32,
                ..Default::default()
            }];
            if piece.count >= 2 {
                self.stack.push(piece);
            } else {
                push_text(self.accum(), piece.start..piece.start + piece.count as u32);
            }
        }
        let acc = self.accum();
        for n in element {
            match n {
                Node::Text(s) => push_text(acc, s),
                other => acc.push(other),
            }
        }
        end as usize
    }
}

#[derive(Debug, Clone, Copy)]
enum Found {
    LineStart,
    LineEnd,
    Angle,
    Open,
    Close,
    Pipe,
    Equals,
}

/// Merges adjacent text nodes (and turns leftover `=` markers into text).
fn merge_text(nodes: Vec<Node>) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        match n {
            Node::Text(s) => push_text(&mut out, s),
            Node::Equals(p) => push_text(&mut out, p..p + 1),
            other => out.push(other),
        }
    }
    out
}
