//! The page view `serve` shows at `/wiki/TITLE`, and its search page: the text section
//! by section (each heading with its anchor as id), the tables where they stand with
//! their numbers and data-row numbers as locators count them (`table:N|row:R`, with
//! `table-N-row-R` ids so a locator links to its row), the infoboxes field by field,
//! outgoing links as `/wiki/` links (red when missing) and the categories.

use maud::{Markup, html};

use super::{Links, document, field_id, row_id, table_id};
use crate::index::{DeadEnd, DeadRedirect, Index, NotFound, Resolution};
use crate::query::text::{Scope, SectionView, search as search_index, text};
use crate::query::{
    InfoboxView, LinkView, PageSummary, QueryError, TableView, find_page, infobox_views_of,
    outlinks, summary, table,
};
use crate::text::SentenceKind;

/// The bar at the top of every served page: home and the search box.
pub(crate) fn top_bar(query: &str) -> Markup {
    html! {
        header.top {
            a.home href="/" { "wikiwit" }
            form.search action="/search" method="get" {
                input type="search" name="q" value=(query) placeholder="Search the index" aria-label="Search";
                " " button type="submit" { "Search" }
            }
            a href="/report/cite" { "check citations" }
            a href="/report/audit" { "audit rows" }
        }
    }
}

/// The page `title` names (redirects followed and shown); a redirect that leads to no
/// page is shown itself, as MediaWiki shows a redirect page.
pub fn page(index: &Index, title: &str) -> Result<String, QueryError> {
    let links = Links::default();
    let found = match find_page(index, title) {
        Err(e) if e.is_not_found() => match index.page_for(title)? {
            Err(NotFound::DeadRedirect(dead)) => return Ok(dead_redirect(index, &dead)),
            _ => return Err(e),
        },
        found => found?,
    };
    let sum = summary(index, &found.title)?;
    let tv = text(index, &found.title, None)?;
    let boxes = infobox_views_of(index, &found)?;
    let tables = (1..=sum.tables.len())
        .map(|n| table(index, &found.title, n))
        .collect::<Result<Vec<_>, _>>()?;
    let out = outlinks(index, &found.title, None, None)?;
    let body = html! {
        (top_bar(""))
        h1 id="title" { (found.title) }
        @if !found.via.is_empty() {
            p.redirected { "(Redirected from " (found.via.join(" → ")) ")" }
        }
        p.note { "Page id " (found.page_id) ", revision " (sum.rev_id) " of " (sum.timestamp)
            "; " (sum.tables.len()) " table(s), " (sum.links) " link(s)." }
        @for b in &boxes { (infobox(b, &links)) }
        @for sec in &tv.sections { (section(sec, &sum, &tables)) }
        (outgoing(&out, &links))
        @if !sum.categories.is_empty() {
            h2 id="categories" { "Categories" }
            ul.categories {
                @for c in &sum.categories {
                    li { a href=(links.wiki(&format!("Category:{c}"), None)) { (c) } }
                }
            }
        }
    };
    Ok(document(&found.title, body))
}

/// A redirect whose chain ends on no page: its title, and where it points with why that
/// leads nowhere (a missing page, a loop, another wiki).
fn dead_redirect(index: &Index, dead: &DeadRedirect) -> String {
    let links = Links::default();
    let rec = &dead.named.record;
    let title = index.display_title(rec);
    let target = rec.redirect.as_ref().map(|r| {
        let t = index.codec().prefixed_text(r.ns, &r.dbkey);
        let exists = r.interwiki.is_none() && index.find(r.ns, &r.dbkey).is_some();
        (t, r.fragment.clone(), r.interwiki.clone(), exists)
    });
    let why = match (dead.end, rec.redirect.as_ref().map(|r| &r.resolution)) {
        (_, Some(Resolution::Missing { ns, dbkey, .. })) => format!(
            "The redirect chain ends on {:?}, which is not in the index.",
            index.codec().prefixed_text(*ns, dbkey)
        ),
        (DeadEnd::Loop, _) => "The redirect chain comes back to a page it passed.".to_string(),
        (DeadEnd::OtherWiki, _) => "The redirect leads to another wiki.".to_string(),
        _ => "The redirect leads to no page of the index.".to_string(),
    };
    let body = html! {
        (top_bar(""))
        h1 id="title" { (title) }
        p.note { "Page id " (rec.id) ", revision " (rec.rev_id) ": a redirect page." }
        @if let Some((t, fragment, interwiki, exists)) = &target {
            p.redirect {
                "Redirect to: "
                @if let Some(iw) = interwiki {
                    (iw) ":" (t)
                } @else {
                    a.missing[!exists] href=(links.wiki(t, fragment.as_deref())) {
                        (t) @if let Some(f) = fragment { "#" (f) }
                    }
                }
            }
        }
        p.error { (why) }
    };
    document(&title, body)
}

fn infobox(b: &InfoboxView, links: &Links) -> Markup {
    html! {
        table.infobox {
            caption { (b.template) }
            @for f in &b.fields {
                tr id=(field_id(&f.name)) {
                    th { (f.name) }
                    td {
                        (f.text)
                        @if !f.links.is_empty() {
                            br;
                            @for (i, l) in f.links.iter().enumerate() {
                                @if i > 0 { ", " }
                                a href=(links.wiki(l, None)) { (l) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A section's heading, prose and lists, then the tables that sit in it.
fn section(sec: &SectionView, sum: &PageSummary, tables: &[TableView]) -> Markup {
    let level = (sec.section > 0)
        .then(|| sum.sections.get(sec.section as usize - 1))
        .flatten()
        .map_or(2, |s| s.level.clamp(2, 6));
    let heading = sec.heading.clone().unwrap_or_default();
    let anchor = sec.anchor.clone().unwrap_or_default();
    let prose = sec
        .sentences
        .iter()
        .filter(|s| matches!(s.kind, SentenceKind::Prose | SentenceKind::List));
    html! {
        @if sec.section > 0 {
            @match level {
                2 => h2 id=(anchor) { (heading) },
                3 => h3 id=(anchor) { (heading) },
                4 => h4 id=(anchor) { (heading) },
                5 => h5 id=(anchor) { (heading) },
                _ => h6 id=(anchor) { (heading) },
            }
        }
        p.text {
            @for s in prose {
                span.sentence data-sentence=(s.sentence) { (s.text) } " "
            }
        }
        @for t in tables.iter().filter(|t| t.section == sec.anchor) { (data_table(t)) }
    }
}

fn data_table(t: &TableView) -> Markup {
    html! {
        table.data id=(table_id(t.table)) data-table=(t.table) {
            caption {
                "Table " (t.table)
                @if !t.caption.is_empty() { ": " (t.caption) }
            }
            tr {
                th.rownum { "row" }
                @for (c, l) in t.labels.iter().enumerate() {
                    th { @match l { Some(l) => (l), None => span.note { "col " (c) } } }
                }
            }
            @for (r, cells) in t.rows.iter().enumerate() {
                tr id=(row_id(t.table, r)) data-row=(r) {
                    td.rownum { (r) }
                    @for c in cells { td { (c) } }
                }
            }
        }
    }
}

fn outgoing(out: &[LinkView], links: &Links) -> Markup {
    let mut seen = std::collections::BTreeSet::new();
    let unique: Vec<&LinkView> = out.iter().filter(|l| seen.insert(&l.target)).collect();
    html! {
        h2 id="links" { "Links (" (unique.len()) ")" }
        ul.links {
            @for l in unique {
                li {
                    @if l.status == "missing" {
                        a.missing href=(links.wiki(&l.target, None)) title="not in the index" { (l.target) }
                    } @else {
                        a href=(links.wiki(&l.target, None)) { (l.target) }
                        @if let Some(r) = l.resolved.as_ref().filter(|r| **r != l.target) {
                            span.note { " → " (r) }
                        }
                    }
                }
            }
        }
    }
}

/// The search page: the title the query names, if any, then the best sections.
pub fn search(index: &Index, query: &str) -> Result<String, QueryError> {
    let links = Links::default();
    let query = query.trim();
    let exact = match find_page(index, query) {
        Ok(f) => Some(f.title),
        Err(e) if e.is_not_found() => None,
        Err(e) => return Err(e),
    };
    let hits = if query.is_empty() {
        Vec::new()
    } else {
        search_index(index, query, Scope::default(), 20)?
    };
    let body = html! {
        (top_bar(query))
        h1 { "Search" @if !query.is_empty() { ": " (query) } }
        @if let Some(t) = &exact {
            p.exact { "Page: " a href=(links.wiki(t, None)) { (t) } }
        }
        @if !query.is_empty() && hits.is_empty() { p { "No section matches." } }
        ol.hits {
            @for h in &hits {
                li {
                    a href=(links.wiki(&h.page, h.anchor.as_deref())) {
                        (h.page) @if let Some(s) = &h.heading { " § " (s) }
                    }
                    @if let Some(v) = &h.via { span.note { " (via " (v) ")" } }
                    @if let Some(b) = &h.best { br; (b.text) }
                }
            }
        }
    };
    Ok(document(&format!("Search: {query}"), body))
}
