//! A page analysed twice: as written (everything with byte ranges into the page's own
//! wikitext: sections, tables, infoboxes, lists, text) and after template expansion
//! (the links, categories and templates MediaWiki records), merged into one
//! [`PageStructure`] whose every link, category and template says where it comes from.
//!
//! Why two analyses: MediaWiki's `pagelinks`, `categorylinks` and `templatelinks` are
//! what the expanded text holds, but a locator must point into the page as its authors
//! wrote it. The own-text analysis keeps its records and ranges; what only expansion
//! finds is added, traced back through the expansion's [`Segment`]s to the call in the
//! page's text that produced it (its range, and the template it called).

use rustc_hash::FxHashSet;

use crate::expand::{Expander, Expansion, Segment};
use crate::title::TitleCodec;
use crate::wikitext::{
    Assembled, CategoryLink, Context, Link, PageStructure, TemplateUse, analyze, analyze_assembled,
    analyze_with_text, analyze_with_values, assemble_text, sortkey,
};

/// The page's structure with what template expansion adds, its plain text (when asked
/// for) and the expansion itself (`None` when the page calls nothing to expand).
pub(crate) struct Analysed {
    pub structure: PageStructure,
    pub text: Option<Assembled>,
    pub expansion: Option<Expansion>,
}

/// Whether the text has anything expansion changes: a `{{`. Pages without one (most
/// pages of a plain-text dump) are analysed once.
pub(crate) fn needs_expansion(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"{{").is_some()
}

/// Analyses a page as written and after expansion with `expander`, and merges the two.
///
/// A page that came near a Lua limit with what the expander kept from earlier pages is
/// analysed again as if it were the expander's first: whether it stays within the limit
/// could depend on those pages, and the build must not depend on which pages a worker
/// got (docs/expansion.md, "The budgets' edge").
pub(crate) fn analyze_expanded(
    text: &str,
    page_ns: i32,
    page_dbkey: &str,
    codec: &TitleCodec,
    lang: &str,
    expander: &Expander<'_>,
    with_text: bool,
) -> Analysed {
    let page = (page_ns, page_dbkey);
    let a = analyze_expanded_once(text, page, codec, lang, expander, with_text);
    if a.expansion.is_some() && expander.history_may_matter() {
        return expander
            .isolated(|| analyze_expanded_once(text, page, codec, lang, expander, with_text));
    }
    a
}

/// [`analyze_expanded`] with the expander as it is.
fn analyze_expanded_once(
    text: &str,
    (page_ns, page_dbkey): (i32, &str),
    codec: &TitleCodec,
    lang: &str,
    expander: &Expander<'_>,
    with_text: bool,
) -> Analysed {
    if !needs_expansion(text) {
        let (structure, plain) = if with_text {
            let (s, t) = analyze_assembled(text, page_ns, page_dbkey, codec, lang);
            (s, Some(t))
        } else {
            (analyze(text, page_ns, page_dbkey, codec, lang), None)
        };
        return Analysed {
            structure,
            text: plain,
            expansion: None,
        };
    }
    let expansion = expander.expand_page(page_ns, page_dbkey, text);
    // Table cells and infobox values show what their calls expand to, where the dump
    // has the templates and modules called: a call of the page's own text is read from
    // the page's expansion, a call nested in another call's argument expanded alone.
    let value = |span: std::ops::Range<u32>, needs: Option<(i32, &str)>| -> Option<String> {
        if let Some((ns, dbkey)) = needs
            && !expander.has_page(ns, dbkey)
        {
            return None;
        }
        let k = expansion
            .segments
            .partition_point(|g| g.own.start < span.start);
        let expanded = match expansion.segments.get(k) {
            Some(g) if g.call && g.own == span => std::borrow::Cow::Borrowed(
                &expansion.text[g.out.start as usize..g.out.end as usize],
            ),
            _ => std::borrow::Cow::Owned(
                expander
                    .expand_in_page(
                        page_ns,
                        page_dbkey,
                        &text[span.start as usize..span.end as usize],
                    )
                    .text,
            ),
        };
        let (_, t) = analyze_with_text(&expanded, page_ns, page_dbkey, codec, lang);
        let words: Vec<&str> = t.sentences().map(|(_, _, x)| x.text.as_str()).collect();
        Some(words.join(" "))
    };
    let (mut structure, prose) =
        analyze_with_values(text, (page_ns, page_dbkey), codec, lang, with_text, &value);
    let expanded = analyze(&expansion.text, page_ns, page_dbkey, codec, lang);
    drop_discarded_links(&mut structure, &expansion, &expanded, expander);
    merge(&mut structure, &expansion, expanded);
    // The text's table and infobox sentences come from the structure as stored.
    let text = prose.map(|p| assemble_text(p, &structure));
    Analysed {
        structure,
        text,
        expansion: Some(expansion),
    }
}

/// Removes what is written in arguments of a call MediaWiki does not use: links,
/// categories and nested template calls inside a call whose expansion does not hold
/// them (an infobox parameter the template has no row for, an argument of a call
/// MediaWiki drops), as MediaWiki records none of them.
///
/// A call of a template the dump lacks counts too when the dump holds templates at all:
/// MediaWiki renders such a call as a red link and never expands its arguments. A dump
/// without any template (an excerpt of articles) keeps them, marked `in_template`,
/// for what `known.rs` makes of them and for the outlinks a reader of the page sees.
fn drop_discarded_links(
    own: &mut PageStructure,
    e: &Expansion,
    expanded: &PageStructure,
    expander: &Expander<'_>,
) {
    let source = expander.source();
    let missing_counts = source.holds_templates();
    let calls: Vec<&Segment> = e
        .segments
        .iter()
        .filter(|s| {
            s.call
                && s.template
                    .as_ref()
                    .is_some_and(|(ns, k)| missing_counts || source.exists(*ns, k))
        })
        .collect();
    if calls.is_empty() {
        return;
    }
    // The call holding own-text byte `pos` in its arguments (past its `{{`).
    // The page's calls do not overlap and come in text order: the one that could hold
    // `pos` is the last starting at or before it (a binary search, not a walk per link).
    let last_from = |pos: u32| {
        calls
            .partition_point(|s| s.own.start <= pos)
            .checked_sub(1)
            .map(|k| calls[k])
            .filter(|s| pos < s.own.end)
    };
    let call_at = |pos: u32| last_from(pos).filter(|s| s.own.start < pos);
    let kept: FxHashSet<(i32, &str)> = expanded
        .links
        .iter()
        .map(|l| (l.ns, l.dbkey.as_str()))
        .chain(e.existence_links.iter().map(|(ns, k)| (*ns, k.as_str())))
        .collect();
    own.links.retain(|l| {
        !l.in_template || kept.contains(&(l.ns, l.dbkey.as_str())) || call_at(l.start).is_none()
    });
    let kept: FxHashSet<&str> = expanded
        .categories
        .iter()
        .map(|c| c.dbkey.as_str())
        .collect();
    own.categories.retain(|c| {
        !c.in_template || kept.contains(c.dbkey.as_str()) || call_at(c.start).is_none()
    });
    let kept: FxHashSet<(i32, &str)> = e
        .templates
        .iter()
        .map(|(ns, k)| (*ns, k.as_str()))
        .collect();
    // A nested call is recorded at its own position, or at the page's call that led to
    // it; the page's call itself stays.
    own.templates.retain(|t| {
        let inside = last_from(t.start).is_some_and(|s| {
            s.own.start < t.start
                || s.template
                    .as_ref()
                    .is_some_and(|(ns, k)| (*ns, k.as_str()) != (t.ns, t.dbkey.as_str()))
        });
        t.direct || kept.contains(&(t.ns, t.dbkey.as_str())) || !inside
    });
}

/// Where a position of the expanded text comes from: the own-text byte (start or end of
/// a range) and, for output of a call, the segment of the call.
fn trace(segments: &[Segment], pos: u32, end: bool) -> (u32, Option<&Segment>) {
    // The last segment starting at or before `pos` (for an end, strictly before).
    let k = segments.partition_point(|s| {
        if end {
            s.out.start < pos
        } else {
            s.out.start <= pos
        }
    });
    let Some(seg) = k.checked_sub(1).and_then(|k| segments.get(k)) else {
        return (0, None);
    };
    if seg.call {
        return (if end { seg.own.end } else { seg.own.start }, Some(seg));
    }
    // Literal text maps byte for byte (past the segment: its end, for a gap left by a
    // tag's own markup).
    let delta = pos.saturating_sub(seg.out.start);
    (seg.own.start + delta.min(seg.own.len() as u32), None)
}

/// The section (0 = lead, i = i-th heading) holding byte `pos` of the own text.
fn section_at(structure: &PageStructure, pos: u32) -> u32 {
    structure.sections.partition_point(|s| s.start <= pos) as u32
}

/// Adds to `own` what only the expansion finds; see the module documentation.
pub fn merge(own: &mut PageStructure, e: &Expansion, expanded: PageStructure) {
    let segs = &e.segments;
    let mut seen: FxHashSet<(i32, String)> =
        own.links.iter().map(|l| (l.ns, l.dbkey.clone())).collect();
    for l in expanded.links {
        let key = (l.ns, l.dbkey.clone());
        if seen.contains(&key) {
            continue;
        }
        let (start, seg) = trace(segs, l.start, false);
        let (end, _) = trace(segs, l.end, true);
        let origin = seg.and_then(|s| s.template.clone());
        let section = section_at(own, start);
        own.links.push(Link {
            context: if seg.is_some() {
                Context::Template
            } else {
                l.context
            },
            in_template: seg.is_some() || l.in_template,
            section,
            start,
            end: end.max(start),
            origin,
            ..l
        });
        seen.insert(key);
    }
    // `{{#ifexist:…}}` targets: links in MediaWiki's tables, not in the text.
    for (i, (ns, dbkey)) in e.existence_links.iter().enumerate() {
        let key = (*ns, dbkey.clone());
        if seen.contains(&key) {
            continue;
        }
        let seg = segs
            .iter()
            .find(|s| s.existence_links.contains(&(i as u32)));
        let (start, end) = seg.map_or((0, 0), |s| (s.own.start, s.own.end));
        own.links.push(Link {
            ns: *ns,
            dbkey: dbkey.clone(),
            fragment: None,
            text: String::new(),
            context: Context::Template,
            in_template: true,
            section: section_at(own, start),
            start,
            end,
            origin: seg.and_then(|s| s.template.clone()),
        });
        seen.insert(key);
    }
    let mut cats: FxHashSet<String> = own.categories.iter().map(|c| c.dbkey.clone()).collect();
    for c in expanded.categories {
        if !cats.insert(c.dbkey.clone()) {
            continue;
        }
        let (start, seg) = trace(segs, c.start, false);
        let (end, _) = trace(segs, c.end, true);
        own.categories.push(CategoryLink {
            sortkey: c.sortkey,
            in_template: seg.is_some() || c.in_template,
            start,
            end: end.max(start),
            origin: seg.and_then(|s| s.template.clone()),
            dbkey: c.dbkey,
        });
    }
    // MediaWiki sorts every category without a key of its own, the page's and those its
    // templates add, by the default key the whole expansion leaves.
    sortkey::fill_default_sortkeys(&mut own.categories, e.default_sort.as_deref());
    let mut used: FxHashSet<(i32, String)> = own
        .templates
        .iter()
        .map(|t| (t.ns, t.dbkey.clone()))
        .collect();
    for (i, (ns, dbkey)) in e.templates.iter().enumerate() {
        if used.contains(&(*ns, dbkey.clone())) {
            continue;
        }
        let seg = segs.iter().find(|s| s.templates.contains(&(i as u32)));
        let (start, end) = seg.map_or((0, 0), |s| (s.own.start, s.own.end));
        // The first template a call records is the one it calls: written in the text.
        let origin = seg
            .and_then(|s| s.template.clone())
            .filter(|t| t != &(*ns, dbkey.clone()));
        own.templates.push(TemplateUse {
            ns: *ns,
            dbkey: dbkey.clone(),
            direct: origin.is_none() && seg.is_some(),
            start,
            end,
            origin,
        });
        used.insert((*ns, dbkey.clone()));
    }
}
