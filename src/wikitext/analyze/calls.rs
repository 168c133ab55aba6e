//! Template calls and extension tags met by the page walk: the templates and modules a
//! page uses, its infoboxes (by name or by shape) with their fields, `{{DEFAULTSORT:…}}`,
//! and the wikitext inside `<ref>`, `<gallery>` and `<poem>`, scanned as the page's own.

use std::ops::Range;

use super::{MAX_NESTING, NS_MODULE, Scope, Walker};
use crate::title::{NS_FILE, NS_MAIN, NS_TEMPLATE};
use crate::wikitext::flat::{Flat, call_kind, static_text};
use crate::wikitext::links;
use crate::wikitext::magic::CallKind;
use crate::wikitext::preprocess::{Call, Ext, Node, preprocess};
use crate::wikitext::render::squeeze_lines;
use crate::wikitext::sortkey;
use crate::wikitext::{Context, Field, Infobox, TemplateUse};

impl Walker<'_> {
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

    pub(super) fn template(&mut self, call: &Call, scope: Scope, section: u32) {
        if self.too_deep(scope) {
            return;
        }
        let kind = call_kind(self.src, call);
        let mut infobox = None;
        // What `templatelinks` records of this call, once its target is known.
        let use_of = |ns, dbkey| TemplateUse {
            ns,
            dbkey,
            direct: !scope.in_template,
            start: call.span.start,
            end: call.span.end,
            origin: None,
        };
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
                    self.out.templates.push(use_of(t.ns, t.dbkey));
                }
            }
            Some(CallKind::Invoke(module)) => {
                if let Ok(t) = self.codec.parse(module, NS_MODULE) {
                    self.out.templates.push(use_of(t.ns, t.dbkey));
                }
            }
            Some(CallKind::Function(f))
                if f == "defaultsort" || f == "defaultsortkey" || f == "defaultcategorysort" =>
            {
                if let Some(t) = static_text(self.src, &call.title)
                    && let Some((_, key)) = t.split_once(':')
                {
                    // A flag written as text (`noreplace`); a computed one counts as none.
                    let flag = call
                        .parts
                        .first()
                        .filter(|p| p.name.is_none())
                        .and_then(|p| static_text(self.src, &p.value))
                        .unwrap_or_default();
                    sortkey::set_default_sort(&mut self.defaultsort, key, &flag);
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

    pub(super) fn ext(&mut self, e: &Ext, scope: Scope, section: u32) {
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
