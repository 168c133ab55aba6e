//! The page walker: runs the scanners over the page and over template arguments and
//! extension-tag contents, and assembles a [`PageStructure`].

use std::cell::RefCell;
use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::ops::Range;

use super::flat::{Flat, Marker, call_kind, static_text};
use super::links::{self, LinkMatch, TargetKind};
use super::magic::CallKind;
use super::plaintext::{self, is_redirect_line};
use super::preprocess::{Call, Ext, Node, preprocess};
use super::render::{LinkRender, Rendered, Renderer, squeeze, squeeze_lines};
use super::tables::{self, RawTable, span_attr};
use super::{
    CategoryLink, Cell, Context, Field, Infobox, Link, ListItem, PageStructure, Row, Section,
    Table, TemplateUse, anchors,
};
use crate::text::PageText;
use crate::title::{
    NS_CATEGORY, NS_FILE, NS_MAIN, NS_MEDIA, NS_SPECIAL, NS_TEMPLATE, Title, TitleCodec,
};

/// Module namespace (Scribunto).
const NS_MODULE: i32 = 828;

/// Nesting depth of template arguments and tags analysed; deeper content is skipped with
/// a warning (MediaWiki stops expanding at 40).
const MAX_NESTING: usize = 40;

/// What a link target turned out to be.
enum Target {
    Page(Title),
    Category(Title),
    Image(Title),
    Hidden,
    Shown,
}

/// Where links of the text being scanned go.
#[derive(Clone, Copy)]
struct Scope {
    /// `None` at the page's top level (context from position), else fixed.
    context: Option<Context>,
    in_template: bool,
    /// Section of everything in this scope (when not at top level).
    section: u32,
    depth: usize,
}

struct Walker<'a> {
    src: &'a str,
    codec: &'a TitleCodec,
    lang: &'a str,
    page_ns: i32,
    page_dbkey: &'a str,
    out: PageStructure,
    defaultsort: Option<String>,
    /// Ref numbers by the ref's start offset (for headings, which show `[n]`).
    ref_numbers: HashMap<u32, u32>,
    deep_warned: bool,
    /// Parsed link targets of this page (a target is often classified several times:
    /// while scanning, recording and rendering): text → index into `parsed`.
    targets: RefCell<FxHashMap<String, u32>>,
    parsed: RefCell<Vec<Option<Title>>>,
    /// The links of the page's top-level text, sorted by position (reused to render
    /// cells, list items and captions without scanning again).
    top_found: Vec<LinkMatch>,
    /// Nesting of template rendering (bounded: a value inside a value inside …).
    render_depth: std::cell::Cell<u32>,
    /// Renders a call in a table cell or an infobox value by expanding it (see
    /// [`ValueExpander`]); `None` renders only the templates [`super::known`] knows.
    expand_value: Option<&'a ValueExpander<'a>>,
    /// A table cell or an infobox value is being rendered.
    in_value: std::cell::Cell<bool>,
}

/// The plain text of a call's expansion, given the call's byte range and the page it
/// needs (the template or module called; `None` for a parser function): `None` when the
/// dump lacks that page, so the call renders as [`super::known`] says. Table cells and
/// infobox values are what an auditor compares with a claimed value, and on a wiki whose
/// templates are in the dump (`{{flag|…}}`, `{{dts|…}}`, `{{#invoke:…}}`) they are what a
/// reader sees only after expansion. Prose keeps the known-template rendering: a
/// top-level call there is often a whole box (an infobox, a navbox) that is not prose.
pub(crate) type ValueExpander<'a> = dyn Fn(Range<u32>, Option<(i32, &str)>) -> Option<String> + 'a;

/// How deep known-template rendering may nest.
const MAX_RENDER_DEPTH: u32 = 8;

/// Whether the text has a character reference (`&amp;`, `&#124;`): a `&` followed by
/// a name or number and `;`. A bare `&` ("AT&T") needs no rendering.
fn has_entity(b: &[u8]) -> bool {
    memchr::memchr_iter(b'&', b).any(|i| {
        let rest = &b[i + 1..b.len().min(i + 34)];
        let body = rest
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'#')
            .count();
        body > 0 && rest.get(body) == Some(&b';')
    })
}

/// Whether the text has any syntax to interpret: brackets, braces, tags, entities, bold or
/// italic quotes, behaviour switches, or a line starting with heading, list or table
/// syntax. Most pages of a plain-text dump do
/// not, and skip the parser entirely.
fn has_markup(text: &str) -> bool {
    let b = text.as_bytes();
    if memchr::memchr3(b'[', b'{', b'<', b).is_some()
        || has_entity(b)
        || memchr::memmem::find(b, b"''").is_some()
        || memchr::memmem::find(b, b"__").is_some()
    {
        return true;
    }
    let line_syntax = |c: u8| matches!(c, b'=' | b'*' | b'#' | b':' | b';' | b'|' | b'!');
    b.first().is_some_and(|&c| line_syntax(c))
        || memchr::memchr_iter(b'\n', b).any(|i| b.get(i + 1).is_some_and(|&c| line_syntax(c)))
}

/// Analyses one page's wikitext into its structure and its plain text. `page_ns` /
/// `page_dbkey` identify the page (self-links are not recorded, as in MediaWiki); `lang`
/// selects link trails and magic words.
pub(crate) fn analyze_with_text(
    text: &str,
    page_ns: i32,
    page_dbkey: &str,
    codec: &TitleCodec,
    lang: &str,
) -> (PageStructure, PageText) {
    let (s, t) = walk(text, page_ns, page_dbkey, codec, lang, true, None);
    (s, t.unwrap_or_default())
}

/// [`analyze_with_text`] (or, without `with_text`, [`analyze`]) with table cells and
/// infobox values rendered through `expand_value`.
pub(crate) fn analyze_with_values(
    text: &str,
    page: (i32, &str),
    codec: &TitleCodec,
    lang: &str,
    with_text: bool,
    expand_value: &ValueExpander<'_>,
) -> (PageStructure, Option<PageText>) {
    walk(
        text,
        page.0,
        page.1,
        codec,
        lang,
        with_text,
        Some(expand_value),
    )
}

/// Analyses one page's wikitext (see `analyze_with_text`) without its plain text, which
/// is then not computed at all (`--no-text` builds).
pub fn analyze(
    text: &str,
    page_ns: i32,
    page_dbkey: &str,
    codec: &TitleCodec,
    lang: &str,
) -> PageStructure {
    walk(text, page_ns, page_dbkey, codec, lang, false, None).0
}

fn walk(
    text: &str,
    page_ns: i32,
    page_dbkey: &str,
    codec: &TitleCodec,
    lang: &str,
    with_text: bool,
    expand_value: Option<&ValueExpander<'_>>,
) -> (PageStructure, Option<PageText>) {
    if !has_markup(text) {
        return (
            PageStructure::default(),
            with_text.then(|| plaintext::plain(text)),
        );
    }
    let nodes = preprocess(text);
    let mut w = Walker {
        src: text,
        codec,
        lang,
        page_ns,
        page_dbkey,
        out: PageStructure::default(),
        defaultsort: None,
        ref_numbers: HashMap::new(),
        deep_warned: false,
        targets: RefCell::new(FxHashMap::default()),
        parsed: RefCell::new(Vec::new()),
        top_found: Vec::new(),
        render_depth: std::cell::Cell::new(0),
        expand_value,
        in_value: std::cell::Cell::new(false),
    };
    let flat = Flat::new(text, &nodes);
    w.number_refs(&flat);
    w.sections(&flat);
    let raw_tables = tables::parse(&flat.text);
    let top = Scope {
        context: None,
        in_template: false,
        section: 0,
        depth: 0,
    };
    let first_link = w.out.links.len();
    w.scan_links(&flat, top, &raw_tables);
    w.markers(&flat, top);
    w.tables(&flat, &raw_tables, first_link);
    w.lists(&flat, &raw_tables);
    w.warnings(&flat, &raw_tables);
    if let Some(key) = &w.defaultsort {
        for c in &mut w.out.categories {
            if c.sortkey.is_empty() {
                c.sortkey = key.clone();
            }
        }
    }
    let text = with_text.then(|| {
        let render = |r: Range<u32>| w.render_top_mapped(&flat, r);
        plaintext::extract(&flat, &raw_tables, &w.out, &render)
    });
    (w.out, text)
}

/// The flat ranges covered by top-level tables (nested tables lie inside them), sorted,
/// for logarithmic "is this position in a table" queries.
fn table_spans(tables: &[RawTable]) -> Vec<(u32, u32)> {
    let mut spans: Vec<(u32, u32)> = tables
        .iter()
        .filter(|t| t.parent.is_none())
        .map(|t| (t.start, t.end))
        .collect();
    spans.sort_unstable();
    spans
}

fn in_spans(spans: &[(u32, u32)], p: u32) -> bool {
    let k = spans.partition_point(|(s, _)| *s <= p);
    k > 0 && p < spans[k - 1].1
}

impl<'a> Walker<'a> {
    /// Index of the parsed target in `parsed`.
    fn target_index(&self, target: &str) -> u32 {
        if let Some(&i) = self.targets.borrow().get(target) {
            return i;
        }
        let t = self.codec.parse_link_target(target, NS_MAIN).ok();
        let mut parsed = self.parsed.borrow_mut();
        let i = parsed.len() as u32;
        parsed.push(t);
        self.targets.borrow_mut().insert(target.to_string(), i);
        i
    }

    fn parse_target(&self, target: &str) -> Option<Title> {
        let i = self.target_index(target);
        self.parsed.borrow()[i as usize].clone()
    }

    fn classify(&self, target: &str) -> Target {
        let Some(t) = self.parse_target(target) else {
            return Target::Hidden;
        };
        if let Some(iw) = &t.interwiki {
            if !t.leading_colon && self.codec.interwiki().is_language(iw) {
                return Target::Hidden;
            }
            return Target::Shown;
        }
        if !t.leading_colon && t.ns == NS_FILE {
            return Target::Image(t);
        }
        if !t.leading_colon && t.ns == NS_CATEGORY {
            return Target::Category(t);
        }
        if t.ns == NS_MEDIA || t.ns == NS_SPECIAL || t.dbkey.is_empty() {
            return Target::Shown;
        }
        // A link to the page itself is rendered as plain bold text and not recorded,
        // unless it points to a section (`[[#…]]` or `[[Self#…]]`).
        if t.ns == self.page_ns && t.dbkey == self.page_dbkey && t.fragment.is_none() {
            return Target::Shown;
        }
        Target::Page(t)
    }

    fn target_kind(&self, target: &str) -> (TargetKind, LinkRender) {
        let i = self.target_index(target);
        let parsed = self.parsed.borrow();
        match &parsed[i as usize] {
            None => (TargetKind::Invalid, LinkRender::NotALink),
            Some(t) => {
                if t.interwiki.is_some() {
                    let lang = !t.leading_colon
                        && t.interwiki
                            .as_deref()
                            .is_some_and(|iw| self.codec.interwiki().is_language(iw));
                    (
                        TargetKind::Other,
                        if lang {
                            LinkRender::Hidden
                        } else {
                            LinkRender::Text
                        },
                    )
                } else if !t.leading_colon && t.ns == NS_FILE {
                    (TargetKind::Image, LinkRender::Hidden)
                } else if !t.leading_colon && t.ns == NS_CATEGORY {
                    (TargetKind::Other, LinkRender::Hidden)
                } else {
                    (TargetKind::Other, LinkRender::Text)
                }
            }
        }
    }

    /// Runs `f` with a renderer of `flat` using this page's link classification and
    /// marker rendering (`heading`: as in a heading, see [`Self::marker_text`]).
    fn with_renderer<T>(
        &self,
        flat: &Flat<'_>,
        heading: bool,
        f: impl FnOnce(&Renderer<'_, '_>) -> T,
    ) -> T {
        let classify = |t: &str| self.target_kind(t);
        let marker = |m: Marker<'_>| self.marker_text(m, heading);
        f(&Renderer {
            flat,
            lang: self.lang,
            classify: &classify,
            marker: &marker,
        })
    }

    /// The links of the page's top-level link scan that lie wholly inside `r`.
    fn top_links_in(&self, r: &Range<u32>) -> Vec<LinkMatch> {
        let lo = self.top_found.partition_point(|l| l.start < r.start);
        let hi = self.top_found.partition_point(|l| l.start < r.end);
        self.top_found[lo..hi]
            .iter()
            .filter(|l| l.end <= r.end)
            .cloned()
            .collect()
    }

    /// Runs `f` rendering a table cell or an infobox value (see [`ValueExpander`]).
    fn as_value<T>(&self, f: impl FnOnce() -> T) -> T {
        let was = self.in_value.replace(true);
        let out = f();
        self.in_value.set(was);
        out
    }

    /// Renders a range of the page's top-level flat text, reusing its link scan.
    fn plain_top(&self, flat: &Flat<'_>, r: Range<u32>) -> String {
        let links = self.top_links_in(&r);
        self.with_renderer(flat, false, |rend| rend.render_with(r, &links))
    }

    /// Renders a range of the top-level flat text with a source map (plain text store).
    fn render_top_mapped(&self, flat: &Flat<'_>, r: Range<u32>) -> Rendered {
        let links = self.top_links_in(&r);
        self.with_renderer(flat, false, |rend| rend.render_mapped(r, &links))
    }

    /// Renders a flat range to plain text; templates show nothing, refs show nothing.
    fn plain(&self, flat: &Flat<'_>, r: Range<u32>) -> String {
        self.with_renderer(flat, false, |rend| rend.render(r))
    }

    /// What a marker shows in rendered text. In headings (`heading`), refs show their
    /// number and templates their `Template:Name` link text (the missing-template case).
    fn marker_text(&self, m: Marker<'_>, heading: bool) -> String {
        match m {
            Marker::Ext(e) if e.name == "nowiki" => e
                .inner
                .as_ref()
                .map(|r| self.src[r.start as usize..r.end as usize].to_string())
                .unwrap_or_default(),
            Marker::Ext(e) if heading && e.name == "ref" => self
                .ref_numbers
                .get(&e.span.start)
                .map(|n| format!("[{n}]"))
                .unwrap_or_default(),
            Marker::Template(call) if heading => match call_kind(self.src, call) {
                Some(CallKind::Template(name)) => match self.codec.parse(&name, NS_TEMPLATE) {
                    Ok(t) if t.interwiki.is_none() => self.codec.prefixed_text(t.ns, &t.dbkey),
                    _ => String::new(),
                },
                _ => String::new(),
            },
            Marker::Template(call) => self
                .expanded_value_text(call)
                .unwrap_or_else(|| self.known_template_text(call)),
            _ => String::new(),
        }
    }

    /// A call inside a table cell or an infobox value, expanded, when there is an
    /// expander and the dump has what it calls.
    fn expanded_value_text(&self, call: &Call) -> Option<String> {
        let expand = self.expand_value.filter(|_| self.in_value.get())?;
        let needs = match call_kind(self.src, call)? {
            CallKind::Template(name) => {
                let t = self.codec.parse(name.trim(), NS_TEMPLATE).ok()?;
                if t.interwiki.is_some() {
                    return None;
                }
                Some((t.ns, t.dbkey))
            }
            CallKind::Invoke(module) => {
                let t = self.codec.parse(module.trim(), NS_MODULE).ok()?;
                (t.ns == NS_MODULE).then_some((t.ns, t.dbkey))
            }
            CallKind::Function(_) => None,
        };
        expand(
            call.span.clone(),
            needs.as_ref().map(|(ns, k)| (*ns, k.as_str())),
        )
    }

    /// The visible value of a well-known template (see [`super::known`]), or nothing.
    fn known_template_text(&self, call: &Call) -> String {
        let depth = self.render_depth.get();
        if depth >= MAX_RENDER_DEPTH {
            return String::new();
        }
        self.render_depth.set(depth + 1);
        let out = (|| {
            let kind = call_kind(self.src, call)?;
            match kind {
                CallKind::Template(name) => {
                    let name = name.trim();
                    // Only templates proper: `{{:Page}}` transclusions render nothing here.
                    let t = self.codec.parse(name, NS_TEMPLATE).ok()?;
                    if t.ns != NS_TEMPLATE {
                        return None;
                    }
                    let positional: Vec<String> = call
                        .parts
                        .iter()
                        .filter(|p| p.name.is_none())
                        .map(|p| {
                            let f = Flat::new(self.src, &p.value);
                            self.plain(&f, 0..f.text.len() as u32)
                        })
                        .collect();
                    super::known::render(&t.dbkey, &positional)
                }
                CallKind::Function(f) => {
                    // `{{formatnum:1234}}`: the argument follows the colon in the title.
                    let f_title = Flat::new(self.src, &call.title);
                    let title = self.plain(&f_title, 0..f_title.text.len() as u32);
                    let arg = title.split_once(':').map(|(_, a)| a).unwrap_or("");
                    super::known::render_function(&f, arg)
                }
                CallKind::Invoke(_) => None,
            }
        })()
        .unwrap_or_default();
        self.render_depth.set(depth);
        out
    }

    /// Cite numbers refs in order of first use; a named ref keeps its first number.
    fn number_refs(&mut self, flat: &Flat<'_>) {
        let mut names: HashMap<String, u32> = HashMap::new();
        let mut next = 1;
        for (_, m) in &flat.markers {
            let Marker::Ext(e) = m else { continue };
            if e.name != "ref" {
                continue;
            }
            let attrs = &self.src[e.attrs.start as usize..e.attrs.end as usize];
            if attr_value(attrs, "group").is_some_and(|g| !g.is_empty()) {
                continue;
            }
            let n = match attr_value(attrs, "name").filter(|n| !n.is_empty()) {
                Some(name) => *names.entry(name).or_insert_with(|| {
                    next += 1;
                    next - 1
                }),
                None => {
                    next += 1;
                    next - 1
                }
            };
            self.ref_numbers.insert(e.span.start, n);
        }
    }

    fn sections(&mut self, flat: &Flat<'_>) {
        let mut levels = Vec::new();
        let mut chars_before = 0u32;
        let mut char_pos = 0usize;
        let mut set = anchors::AnchorSet::default();
        for h in &flat.headings {
            let line = &flat.text[h.range.start as usize..h.range.end as usize];
            let trimmed = line.trim_end_matches([' ', '\t', '\n', '\r']);
            let lvl = h.level as usize;
            let inner_start = h.range.start + lvl as u32;
            let inner_end = h.range.start + trimmed.len() as u32 - lvl as u32;
            let inner = inner_start..inner_end.max(inner_start);
            let heading = squeeze(&self.plain(flat, inner.clone()));
            let mut tmpl = Vec::new();
            for (_, m) in flat.markers_in(inner.clone()) {
                if let Marker::Template(call) = m
                    && let Some(CallKind::Template(name)) = call_kind(self.src, call)
                    && let Ok(t) = self.codec.parse(&name, NS_TEMPLATE)
                {
                    tmpl.push((t.ns, t.dbkey));
                }
            }
            let as_missing = self.with_renderer(flat, true, |rend| rend.render(inner.clone()));
            let has_ref = flat
                .markers_in(inner.clone())
                .iter()
                .any(|(_, m)| matches!(m, Marker::Ext(e) if e.name == "ref"));
            // With refs, MediaWiki's text shows "[n]"; use that rendering for the anchor.
            let (heading_for_anchor, heading_missing) = if has_ref && tmpl.is_empty() {
                (as_missing.clone(), None)
            } else if tmpl.is_empty() {
                (heading.clone(), None)
            } else {
                (heading.clone(), Some(as_missing))
            };
            let start = h.src.start;
            // Code-point offset, counted incrementally (headings come in order).
            chars_before += self.src[char_pos..start as usize].chars().count() as u32;
            char_pos = start as usize;
            let body = self.src[start as usize..]
                .find('\n')
                .map(|p| start + p as u32 + 1)
                .unwrap_or(self.src.len() as u32);
            levels.push(h.level);
            self.out.sections.push(Section {
                level: h.level,
                index: h.index,
                heading: if has_ref {
                    squeeze(&heading_for_anchor)
                } else {
                    heading
                },
                heading_missing,
                heading_templates: tmpl,
                anchor: set.unique(anchors::anchor(&heading_for_anchor)),
                number: String::new(),
                toclevel: 0,
                byteoffset: chars_before,
                start,
                body,
                end: 0,
                end_with_subsections: 0,
            });
        }
        let nums = anchors::toc_numbers(&levels);
        let total = self.src.len() as u32;
        for (i, (toclevel, number)) in nums.into_iter().enumerate() {
            let next_start = self
                .out
                .sections
                .get(i + 1)
                .map(|s| s.start)
                .unwrap_or(total);
            let level = self.out.sections[i].level;
            let end_sub = self.out.sections[i + 1..]
                .iter()
                .find(|s| s.level <= level)
                .map(|s| s.start)
                .unwrap_or(total);
            let s = &mut self.out.sections[i];
            s.toclevel = toclevel;
            s.number = number;
            s.end = next_start;
            s.end_with_subsections = end_sub;
        }
    }

    /// Section number of a top-level flat offset.
    fn section_at(&self, flat: &Flat<'_>, pos: u32) -> u32 {
        flat.headings.partition_point(|h| h.range.start <= pos) as u32
    }

    fn scan_links(&mut self, flat: &Flat<'_>, scope: Scope, tables: &[RawTable]) {
        let classify = |t: &str| self.target_kind(t).0;
        let found = links::scan(&flat.text, 0, self.lang, &classify);
        if scope.context.is_none() {
            self.top_found = found.clone();
        }
        let spans = table_spans(tables);
        let newlines: Vec<u32> = memchr::memchr_iter(b'\n', flat.text.as_bytes())
            .map(|p| p as u32)
            .collect();
        let line_is_list = |pos: u32| -> bool {
            let k = newlines.partition_point(|&n| n < pos);
            let ls = if k == 0 {
                0
            } else {
                newlines[k - 1] as usize + 1
            };
            matches!(
                flat.text.as_bytes().get(ls),
                Some(b'*' | b'#' | b':' | b';')
            ) && !is_redirect_line(&flat.text[ls..])
        };
        for l in found {
            let target = &flat.text[l.target.start as usize..l.target.end as usize];
            let context = match scope.context {
                Some(c) if !l.in_caption => c,
                Some(_) => Context::Caption,
                None if l.in_caption => Context::Caption,
                None if in_spans(&spans, l.start) => Context::Table,
                None if line_is_list(l.start) => Context::List,
                None => Context::Prose,
            };
            let section = if scope.context.is_none() {
                self.section_at(flat, l.start)
            } else {
                scope.section
            };
            self.record_link(flat, &l, target, context, scope.in_template, section);
        }
    }

    fn record_link(
        &mut self,
        flat: &Flat<'_>,
        l: &LinkMatch,
        target: &str,
        context: Context,
        in_template: bool,
        section: u32,
    ) {
        match self.classify(target) {
            Target::Page(t) => {
                let text = match &l.text {
                    Some(r) => self.plain(flat, r.clone()),
                    None => target.trim_start_matches(':').trim().to_string(),
                };
                let trail = &flat.text[l.trail.start as usize..l.trail.end as usize];
                self.out.links.push(Link {
                    ns: t.ns,
                    dbkey: t.dbkey,
                    fragment: t.fragment,
                    text: squeeze(&format!("{text}{trail}")),
                    context,
                    in_template,
                    section,
                    start: flat.to_src(l.start),
                    end: flat.to_src(l.end.saturating_sub(1)) + 1,
                    origin: None,
                });
            }
            Target::Category(t) => {
                let sortkey = l
                    .text
                    .as_ref()
                    .map(|r| {
                        crate::title::decode_char_references(
                            &flat.text[r.start as usize..r.end as usize],
                        )
                        .replace('\n', "")
                    })
                    .unwrap_or_default();
                self.out.categories.push(CategoryLink {
                    dbkey: t.dbkey,
                    sortkey,
                    in_template,
                    start: flat.to_src(l.start),
                    end: flat.to_src(l.end.saturating_sub(1)) + 1,
                    origin: None,
                });
            }
            Target::Image(t) => self.out.images.push(t.dbkey),
            Target::Hidden | Target::Shown => {}
        }
    }

    /// Analyses what markers stand for: template calls (recording them and their
    /// arguments' links) and extension tags.
    fn markers(&mut self, flat: &Flat<'_>, scope: Scope) {
        for &(pos, m) in &flat.markers {
            let section = if scope.context.is_none() {
                self.section_at(flat, pos)
            } else {
                scope.section
            };
            match m {
                Marker::Template(call) => self.template(call, scope, section),
                Marker::Argument(_) => {}
                Marker::Ext(e) => self.ext(e, scope, section),
            }
        }
    }

    fn too_deep(&mut self, scope: Scope) -> bool {
        if scope.depth >= MAX_NESTING {
            if !self.deep_warned {
                self.out.warnings.push(format!(
                    "template arguments nested deeper than {MAX_NESTING} levels were not analysed"
                ));
                self.deep_warned = true;
            }
            return true;
        }
        false
    }

    fn template(&mut self, call: &Call, scope: Scope, section: u32) {
        if self.too_deep(scope) {
            return;
        }
        let kind = call_kind(self.src, call);
        let mut infobox = None;
        match &kind {
            Some(CallKind::Template(name)) => {
                let name = name.trim();
                let parsed = match name.strip_prefix(':') {
                    Some(rest) => self.codec.parse(rest, NS_MAIN),
                    None => self.codec.parse(name, NS_TEMPLATE),
                };
                if let Ok(t) = parsed
                    && t.interwiki.is_none()
                    && !t.dbkey.is_empty()
                {
                    if !scope.in_template && scope.context.is_none() && is_infobox_name(&t.dbkey) {
                        infobox = Some((t.dbkey.clone(), true));
                    } else if !scope.in_template
                        && scope.context.is_none()
                        && section == 0
                        && looks_like_infobox(self.src, call)
                    {
                        infobox = Some((t.dbkey.clone(), false));
                    }
                    self.out.templates.push(TemplateUse {
                        ns: t.ns,
                        dbkey: t.dbkey,
                        direct: !scope.in_template,
                        start: call.span.start,
                        end: call.span.end,
                        origin: None,
                    });
                }
            }
            Some(CallKind::Invoke(module)) => {
                if let Ok(t) = self.codec.parse(module, NS_MODULE) {
                    self.out.templates.push(TemplateUse {
                        ns: t.ns,
                        dbkey: t.dbkey,
                        direct: !scope.in_template,
                        start: call.span.start,
                        end: call.span.end,
                        origin: None,
                    });
                }
            }
            Some(CallKind::Function(f))
                if f == "defaultsort" || f == "defaultsortkey" || f == "defaultcategorysort" =>
            {
                if let Some(t) = static_text(self.src, &call.title)
                    && let Some((_, key)) = t.split_once(':')
                {
                    self.defaultsort = Some(key.trim().to_string());
                }
            }
            _ => {}
        }
        // Core parser functions such as `formatnum:` or `lc:` expand all their
        // arguments into the page: what is inside them is rendered like the page's own
        // text. Templates and conditional functions (`#if:`…) are not expanded here.
        let transparent =
            matches!(&kind, Some(CallKind::Function(f)) if is_transparent_function(f));
        let context = if infobox.is_some() {
            Context::Infobox
        } else {
            Context::Template
        };
        let inner = if transparent {
            Scope {
                depth: scope.depth + 1,
                section,
                ..scope
            }
        } else {
            Scope {
                context: Some(context),
                in_template: true,
                section,
                depth: scope.depth + 1,
            }
        };
        // Calls inside the name: a dynamic template name, or the first argument of a
        // parser function (`{{formatnum:{{X}}}}`).
        if kind.is_none() || transparent {
            let f = Flat::new(self.src, &call.title);
            self.markers(&f, inner);
        }
        let mut fields = Vec::new();
        for part in &call.parts {
            let f = Flat::new(self.src, &part.value);
            let first = self.out.links.len() as u32;
            let classify = |t: &str| self.target_kind(t).0;
            let found = links::scan(&f.text, 0, self.lang, &classify);
            for l in found {
                let target = &f.text[l.target.start as usize..l.target.end as usize];
                let ctx = match inner.context {
                    _ if l.in_caption => Context::Caption,
                    Some(c) => c,
                    None => Context::Prose,
                };
                self.record_link(&f, &l, target, ctx, inner.in_template, section);
            }
            let last = self.out.links.len() as u32;
            self.markers(&f, inner);
            if infobox.is_some()
                && let Some(name_nodes) = &part.name
            {
                let name = static_text(self.src, name_nodes).unwrap_or_default();
                let raw = self.src[part.span.start as usize..part.span.end as usize]
                    .split_once('=')
                    .map(|(_, v)| v)
                    .unwrap_or("")
                    .trim()
                    .to_string();
                fields.push(Field {
                    name: name.trim().to_string(),
                    start: part.span.start,
                    end: part.span.end,
                    raw,
                    text: squeeze_lines(&self.as_value(|| self.plain(&f, 0..f.text.len() as u32))),
                    links: (first..last).collect(),
                });
            }
        }
        if let Some((template, by_name)) = infobox {
            self.out.infoboxes.push(Infobox {
                template,
                by_name,
                section,
                start: call.span.start,
                end: call.span.end,
                fields,
            });
        }
    }

    fn ext(&mut self, e: &Ext, scope: Scope, section: u32) {
        let Some(inner) = e.inner.clone() else { return };
        if self.too_deep(scope) {
            return;
        }
        let context = match e.name.as_str() {
            "ref" | "references" => Context::Ref,
            "gallery" => Context::Gallery,
            "poem" | "indicator" => scope.context.unwrap_or(Context::Prose),
            _ => return,
        };
        let sub = Scope {
            context: Some(context),
            in_template: scope.in_template,
            section,
            depth: scope.depth + 1,
        };
        if e.name == "gallery" {
            self.gallery(inner, sub);
            return;
        }
        self.wikitext_range(inner, sub);
    }

    /// Preprocesses and scans `src[range]` as wikitext of its own (tag contents).
    fn wikitext_range(&mut self, range: Range<u32>, scope: Scope) {
        let text = &self.src[range.start as usize..range.end as usize];
        let mut nodes = preprocess(text);
        shift(&mut nodes, range.start);
        let f = Flat::new(self.src, &nodes);
        let classify = |t: &str| self.target_kind(t).0;
        let found = links::scan(&f.text, 0, self.lang, &classify);
        let ctx = scope.context.unwrap_or(Context::Prose);
        for l in found {
            let target = &f.text[l.target.start as usize..l.target.end as usize];
            let c = if l.in_caption { Context::Caption } else { ctx };
            self.record_link(&f, &l, target, c, scope.in_template, scope.section);
        }
        self.markers(&f, scope);
    }

    /// `<gallery>`: one `File|caption` per line; the caption is wikitext.
    fn gallery(&mut self, inner: Range<u32>, scope: Scope) {
        let text = &self.src[inner.start as usize..inner.end as usize];
        let mut off = inner.start;
        for line in text.split('\n') {
            let line_start = off;
            off += line.len() as u32 + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let (file, caption) = match line.find('|') {
                Some(p) => (
                    &line[..p],
                    Some(line_start + p as u32 + 1..line_start + line.len() as u32),
                ),
                None => (line, None),
            };
            if let Ok(t) = self.codec.parse(file.trim(), NS_FILE)
                && t.ns == NS_FILE
            {
                self.out.images.push(t.dbkey);
            }
            if let Some(c) = caption {
                self.wikitext_range(c, scope);
            }
        }
    }

    fn tables(&mut self, flat: &Flat<'_>, raw: &[RawTable], first_link: usize) {
        // Top-level links in flat order, to attach them to cells.
        let mut top_links: Vec<(u32, u32)> = self.out.links[first_link..]
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.in_template && l.context == Context::Table)
            .map(|(i, l)| (l.start, (first_link + i) as u32))
            .collect();
        top_links.sort_unstable();
        let links_in = |a: u32, b: u32| -> &[(u32, u32)] {
            let lo = top_links.partition_point(|(s, _)| *s < a);
            let hi = top_links.partition_point(|(s, _)| *s < b);
            &top_links[lo..hi]
        };
        for t in raw {
            let mut rows = Vec::with_capacity(t.rows.len());
            // Grid placement: columns still covered by rowspans from rows above.
            let mut covered: Vec<u16> = Vec::new();
            let mut columns = 0u16;
            for r in &t.rows {
                let mut cells = Vec::with_capacity(r.cells.len());
                let mut col = 0usize;
                for c in &r.cells {
                    while col < covered.len() && covered[col] > 0 {
                        col += 1;
                    }
                    let attrs = c
                        .attrs
                        .as_ref()
                        .map(|a| &flat.text[a.start as usize..a.end as usize])
                        .unwrap_or("");
                    let rowspan = span_attr(attrs, "rowspan");
                    let colspan = span_attr(attrs, "colspan");
                    // Text without nested tables.
                    let mut text = String::new();
                    let mut at = c.content.start;
                    let mut holes: Vec<Range<u32>> =
                        c.nested.iter().map(|&n| raw[n].start..raw[n].end).collect();
                    holes.sort_by_key(|h| h.start);
                    let cell = |r: Range<u32>| self.as_value(|| self.plain_top(flat, r));
                    for h in &holes {
                        if h.start > at {
                            text.push_str(&cell(at..h.start.min(c.content.end)));
                            text.push(' ');
                        }
                        at = at.max(h.end);
                    }
                    if at < c.content.end {
                        text.push_str(&cell(at..c.content.end));
                    }
                    let src_start = flat.to_src(c.content.start);
                    let src_end = if c.content.end > c.content.start {
                        flat.to_src_end(c.content.end)
                    } else {
                        src_start
                    };
                    let src_holes: Vec<(u32, u32)> = holes
                        .iter()
                        .map(|h| {
                            (
                                flat.to_src(h.start),
                                flat.to_src(h.end.saturating_sub(1)) + 1,
                            )
                        })
                        .collect();
                    let links: Vec<u32> = links_in(src_start, src_end.max(src_start + 1))
                        .iter()
                        .filter(|(s, _)| !src_holes.iter().any(|(a, b)| s >= a && s < b))
                        .map(|(_, i)| *i)
                        .collect();
                    let need = col + colspan as usize;
                    if covered.len() < need {
                        covered.resize(need, 0);
                    }
                    for k in &mut covered[col..need] {
                        *k = (*k).max(rowspan);
                    }
                    cells.push(Cell {
                        header: c.header,
                        text: squeeze_lines(&text),
                        links,
                        rowspan,
                        colspan,
                        col: col as u16,
                        start: src_start,
                        end: src_end,
                    });
                    col = need;
                }
                columns = columns.max(covered.len() as u16);
                for k in covered.iter_mut() {
                    *k = k.saturating_sub(1);
                }
                rows.push(Row { cells });
            }
            // Rows made only of continuation markers (`|-` with no cells) are kept: row
            // numbers then match the `|-` lines a reader counts.
            let caption = t
                .caption
                .as_ref()
                .map(|c| squeeze(&self.plain_top(flat, c.clone())))
                .unwrap_or_default();
            let section = self.section_at(flat, t.start);
            self.out.tables.push(Table {
                section,
                caption,
                attrs: flat.text[t.attrs.start as usize..t.attrs.end as usize]
                    .trim()
                    .to_string(),
                rows: rows
                    .into_iter()
                    .filter(|r: &Row| !r.cells.is_empty())
                    .collect(),
                columns,
                parent: t.parent.map(|p| p as u16 + 1),
                start: flat.to_src(t.start),
                end: flat.to_src(t.end.saturating_sub(1)) + 1,
            });
        }
    }

    fn lists(&mut self, flat: &Flat<'_>, raw: &[RawTable]) {
        let text = &flat.text;
        let spans = table_spans(raw);
        let mut own: Vec<(u32, u32)> = self
            .out
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                !l.in_template
                    && matches!(l.context, Context::List | Context::Table | Context::Prose)
            })
            .map(|(i, l)| (l.start, i as u32))
            .collect();
        own.sort_unstable();
        let mut pos = 0usize;
        while pos < text.len() {
            let end = text[pos..]
                .find('\n')
                .map(|p| pos + p)
                .unwrap_or(text.len());
            let line = &text[pos..end];
            let marker: String = line
                .chars()
                .take_while(|c| matches!(c, '*' | '#' | ':' | ';'))
                .collect();
            if !marker.is_empty() && !is_redirect_line(line) {
                let body = pos as u32 + marker.len() as u32..end as u32;
                let item_text = squeeze(&self.plain_top(flat, body.clone()));
                let src_start = flat.to_src(pos as u32);
                let src_end = if end > pos {
                    flat.to_src_end(end as u32)
                } else {
                    src_start
                };
                let lo = own.partition_point(|(s, _)| *s < src_start);
                let hi = own.partition_point(|(s, _)| *s < src_end);
                let links: Vec<u32> = own[lo..hi].iter().map(|(_, i)| *i).collect();
                let in_table = in_spans(&spans, pos as u32);
                if !item_text.is_empty() || !links.is_empty() {
                    self.out.lists.push(ListItem {
                        section: self.section_at(flat, pos as u32),
                        depth: marker.len() as u8,
                        marker,
                        text: item_text,
                        links,
                        in_table,
                        start: src_start,
                        end: src_end,
                    });
                }
            }
            pos = end + 1;
        }
    }

    fn warnings(&mut self, flat: &Flat<'_>, raw: &[RawTable]) {
        if let Some(p) = memchr::memmem::find(flat.text.as_bytes(), b"{{") {
            self.out.warnings.push(format!(
                "unclosed template syntax `{{{{` at byte {}",
                flat.to_src(p as u32)
            ));
        }
        for t in raw {
            let end_text = &flat.text[t.start as usize..(t.end as usize).min(flat.text.len())];
            if !end_text.trim_end().ends_with("|}") {
                self.out.warnings.push(format!(
                    "table at byte {} is not closed with |}}",
                    flat.to_src(t.start)
                ));
            }
        }
    }
}

/// Shifts every span of a subtree parsed from a substring starting at `base`.
fn shift(nodes: &mut [Node], base: u32) {
    let sh = |r: &mut Range<u32>| {
        r.start += base;
        r.end += base;
    };
    for n in nodes {
        match n {
            Node::Text(r) | Node::Comment(r) | Node::Ignore(r) => sh(r),
            Node::Equals(p) => *p += base,
            Node::Ext(e) => {
                sh(&mut e.span);
                sh(&mut e.attrs);
                if let Some(i) = &mut e.inner {
                    sh(i);
                }
            }
            Node::Heading { span, children, .. } => {
                sh(span);
                shift(children, base);
            }
            Node::Template(c) | Node::Argument(c) => {
                sh(&mut c.span);
                shift(&mut c.title, base);
                for p in &mut c.parts {
                    sh(&mut p.span);
                    if let Some(n) = &mut p.name {
                        shift(n, base);
                    }
                    shift(&mut p.value, base);
                }
            }
        }
    }
}

/// `name="value"`, `name='value'` or `name=value` in tag attributes.
fn attr_value(attrs: &str, name: &str) -> Option<String> {
    let lower = attrs.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(name) {
        let at = from + p;
        from = at + name.len();
        if at > 0 && !lower.as_bytes()[at - 1].is_ascii_whitespace() {
            continue;
        }
        let rest = attrs[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let value = if let Some(r) = rest.strip_prefix('"') {
            r.split('"').next().unwrap_or("")
        } else if let Some(r) = rest.strip_prefix('\'') {
            r.split('\'').next().unwrap_or("")
        } else {
            rest.split(|c: char| c.is_whitespace() || c == '/')
                .next()
                .unwrap_or("")
        };
        return Some(value.trim().to_string());
    }
    None
}

/// Parser functions whose arguments are all expanded into the output.
fn is_transparent_function(f: &str) -> bool {
    matches!(
        f,
        "lc" | "uc"
            | "lcfirst"
            | "ucfirst"
            | "formatnum"
            | "padleft"
            | "padright"
            | "urlencode"
            | "anchorencode"
            | "plural"
            | "grammar"
            | "gender"
            | "bidi"
            | "#tag"
            | "#language"
            | "displaytitle"
            | "int"
            | "ns"
            | "nse"
            | "localurl"
            | "fullurl"
            | "canonicalurl"
    )
}

/// Template names that are infoboxes on Wikipedias: `Infobox …` (enwiki), `Infoskreine …`
/// (Latgalian), `Infokaste …` (Latvian), and the taxonomy and chemistry boxes.
fn is_infobox_name(dbkey: &str) -> bool {
    let l = dbkey.to_lowercase();
    [
        "infobox",
        "infoskreine",
        "infokaste",
        "taxobox",
        "speciesbox",
        "chembox",
        "drugbox",
        "geobox",
        "automatic_taxobox",
    ]
    .iter()
    .any(|p| l.starts_with(p))
}

/// A template call shaped like an infobox: at the start of a line, with at least four
/// named arguments each on its own line.
fn looks_like_infobox(src: &str, call: &Call) -> bool {
    if !call.line_start {
        return false;
    }
    let named_on_lines = call
        .parts
        .iter()
        .filter(|p| {
            p.name.is_some() && src[..p.span.start as usize].ends_with('|') && {
                let before = &src[..(p.span.start as usize).saturating_sub(1)];
                before.trim_end_matches([' ', '\t']).ends_with('\n')
            }
        })
        .count();
    named_on_lines >= 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::siteinfo::SiteInfo;
    use crate::title::InterwikiProfile;

    fn codec() -> TitleCodec {
        TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki)
    }

    fn links(text: &str) -> Vec<(String, Context, bool)> {
        analyze(text, 0, "Page", &codec(), "en")
            .links
            .into_iter()
            .map(|l| (l.dbkey, l.context, l.in_template))
            .collect()
    }

    #[test]
    fn contexts_and_template_arguments() {
        let l = links(
            "Lead [[a]].\n* item [[b]]\n{|\n| [[c]]\n|}\n{{Foo|x=[[d]]}}<ref>[[e]]</ref> [[Page]] [[Category:X]]",
        );
        assert_eq!(
            l,
            vec![
                ("A".into(), Context::Prose, false),
                ("B".into(), Context::List, false),
                ("C".into(), Context::Table, false),
                ("D".into(), Context::Template, true),
                ("E".into(), Context::Ref, false),
            ]
        );
    }

    #[test]
    fn sections_and_anchors() {
        let s = analyze(
            "x\n== A [[b|B]] ==\n=== ''C'' ===\n== A B ==\n",
            0,
            "P",
            &codec(),
            "en",
        )
        .sections;
        let got: Vec<(u8, &str, &str)> = s
            .iter()
            .map(|s| (s.level, s.anchor.as_str(), s.number.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![(2, "A_B", "1"), (3, "C", "1.1"), (2, "A_B_2", "2")]
        );
    }

    #[test]
    fn infobox_fields_and_table_cells() {
        let p = analyze(
            "{{Infobox river\n| name = Danube\n| length = {{convert|2850|km}}\n| mouth = [[Black Sea]]\n}}\n{| class=wikitable\n! River !! Length\n|-\n| [[Danube]] || 2,850\n|}",
            0,
            "Danube",
            &codec(),
            "en",
        );
        let ib = &p.infoboxes[0];
        assert_eq!(ib.template, "Infobox_river");
        assert_eq!(ib.fields[2].name, "mouth");
        assert_eq!(ib.fields[2].text, "Black Sea");
        assert_eq!(p.links[ib.fields[2].links[0] as usize].dbkey, "Black_Sea");
        let t = &p.tables[0];
        assert_eq!(t.rows[1].cells[0].text, "Danube");
        assert_eq!(t.rows[1].cells[1].text, "2,850");
        assert!(t.rows[0].cells[0].header);
        assert_eq!(p.templates.iter().filter(|t| t.direct).count(), 1);
    }

    #[test]
    fn a_hash_opening_a_link_label_or_cell_is_text() {
        let p = analyze(
            "{| class=wikitable\n! # !! Team\n|-\n| 1 || [[Southern Miss Golden Eagles|# 19 Southern Miss]]\n|-\n|2||# 8 Notre Dame\n|}\n# [[Item]] one\n",
            0,
            "Poll",
            &codec(),
            "en",
        );
        let t = &p.tables[0];
        assert_eq!(t.rows[0].cells[0].text, "#");
        assert_eq!(t.rows[1].cells[1].text, "# 19 Southern Miss");
        assert_eq!(t.rows[2].cells[1].text, "# 8 Notre Dame");
        let (_, text) = analyze_with_text("# [[Item|# one]]\n#two\n", 0, "L", &codec(), "en");
        let all: Vec<&str> = text.sentences().map(|(_, _, s)| s.text.as_str()).collect();
        assert!(all.iter().any(|s| s.contains("# one")), "{all:?}");
        assert!(!all.iter().any(|s| s.contains("#two")), "{all:?}");
    }
}
