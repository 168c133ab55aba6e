//! The page walker: runs the scanners over the page and over template arguments and
//! extension-tag contents, and assembles a [`PageStructure`].

use std::cell::RefCell;
use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::ops::Range;

use super::flat::{Flat, Marker, call_kind};
use super::links::{self, LinkMatch, TargetKind};
use super::magic::CallKind;
use super::plaintext::{self, Assembled, is_redirect_line};
use super::preprocess::{Call, preprocess};
use super::render::{LinkRender, Rendered, Renderer, squeeze};
use super::tables::{self, RawTable};
use super::{CategoryLink, Context, Link, PageStructure, Section, anchors, sortkey};
use crate::text::{PageText, Sentence};
use crate::title::{
    NS_CATEGORY, NS_FILE, NS_MAIN, NS_MEDIA, NS_SPECIAL, NS_TEMPLATE, Title, TitleCodec,
};

mod calls;
mod grid;
mod lists;

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
    let (s, t) = analyze_assembled(text, page_ns, page_dbkey, codec, lang);
    (s, t.into_text())
}

/// [`analyze_with_text`], the text as the text store takes it ([`Assembled`]).
pub(crate) fn analyze_assembled(
    text: &str,
    page_ns: i32,
    page_dbkey: &str,
    codec: &TitleCodec,
    lang: &str,
) -> (PageStructure, Assembled) {
    let (s, prose) = walk(text, page_ns, page_dbkey, codec, lang, true, None).sorted();
    let t = plaintext::assemble_text(prose.unwrap_or_default(), &s);
    (s, t)
}

/// [`analyze`] with table cells and infobox values rendered through `expand_value`, and
/// with `with_text` the page's prose and list sentences ([`plaintext::assemble_text`]
/// makes its text of them once the structure is final). For a page being expanded:
/// categories without a key of their own are left without one, for the expansion's
/// default key, which counts every `DEFAULTSORT` the page's templates hold too.
pub(crate) fn analyze_with_values(
    text: &str,
    page: (i32, &str),
    codec: &TitleCodec,
    lang: &str,
    with_text: bool,
    expand_value: &ValueExpander<'_>,
) -> (PageStructure, Option<Vec<Sentence>>) {
    let w = walk(
        text,
        page.0,
        page.1,
        codec,
        lang,
        with_text,
        Some(expand_value),
    );
    (w.structure, w.prose)
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
    walk(text, page_ns, page_dbkey, codec, lang, false, None)
        .sorted()
        .0
}

/// What the page walk found: the structure, with categories without a key of their own
/// still without one; the prose sentences, when asked for; and the default sort key the
/// page's own `{{DEFAULTSORT:…}}` calls set.
struct Walked {
    structure: PageStructure,
    prose: Option<Vec<Sentence>>,
    default_sort: Option<String>,
}

impl Walked {
    /// The structure with the page's own default key given to categories without one.
    fn sorted(mut self) -> (PageStructure, Option<Vec<Sentence>>) {
        let default = self.default_sort.as_deref();
        sortkey::fill_default_sortkeys(&mut self.structure.categories, default);
        (self.structure, self.prose)
    }
}

fn walk(
    text: &str,
    page_ns: i32,
    page_dbkey: &str,
    codec: &TitleCodec,
    lang: &str,
    with_text: bool,
    expand_value: Option<&ValueExpander<'_>>,
) -> Walked {
    if !has_markup(text) {
        return Walked {
            structure: PageStructure::default(),
            prose: with_text.then(|| plaintext::plain(text)),
            default_sort: None,
        };
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
    let prose = with_text.then(|| {
        let render = |r: Range<u32>| w.render_top_mapped(&flat, r);
        plaintext::extract(&flat, &raw_tables, &render)
    });
    Walked {
        structure: w.out,
        prose,
        default_sort: w.defaultsort,
    }
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
                        sortkey::category_sortkey(&flat.text[r.start as usize..r.end as usize])
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

#[cfg(test)]
mod tests;
