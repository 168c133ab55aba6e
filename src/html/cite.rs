//! `cite check --html`: every citation of a report with its verdict, the claim, the
//! source it resolved to (a link into the page view) and the evidence sentences, the
//! one the verdict rests on highlighted; worst first, filterable by verdict.

use maud::{Markup, html};

use super::{Links, class_name, document, filters};
use crate::cite::check::report::{describe_source, metric_rows};
use crate::cite::check::target::Existence;
use crate::cite::check::{CheckReport, CitationCheck};

/// The report `checked` (of the markdown file `name`) as one HTML document.
pub fn report(checked: &CheckReport, name: &str, links: &Links) -> String {
    let by_id = |id: usize| checked.citations.iter().find(|c| c.id == id);
    let verdicts: Vec<(String, String, usize)> = checked
        .summary
        .by_verdict
        .iter()
        .map(|(v, n)| (class_name(v.as_str()), v.as_str().to_string(), *n))
        .collect();
    let body = html! {
        h1 { "Citation check: " (name) }
        p.note { "Wiki " code { (checked.wiki) } "; " (checked.citations.len())
            " citation(s), worst first. Locators link to "
            code { (if links.base.is_empty() { "this server" } else { &links.base }) } "'s page view." }
        table.summary {
            @for (k, v) in metric_rows(&checked.summary) {
                tr { td { (k) } td { (v) } }
            }
        }
        h2 { "Citations" }
        (filters("verdict", &verdicts))
        div.items {
            @for c in checked.worst_first.iter().filter_map(|&id| by_id(id)) {
                (citation(c, links))
            }
        }
    };
    document(&format!("Citation check: {name}"), body)
}

fn citation(c: &CitationCheck, links: &Links) -> Markup {
    let verdict = class_name(c.verdict.as_str());
    html! {
        div.item.(format!("f-{verdict}")) id={"citation-" (c.id)} {
            h3 {
                span.badge.(verdict) { (c.verdict.as_str()) } " "
                "citation " (c.id) " " code { (c.marker) } " — line " (c.line)
            }
            blockquote.claim { (c.claim) }
            dl {
                dt { "source" }
                dd { (source(c, links)) " " span.note { "(" (c.kind.as_str()) ")" } }
                @if let Some(e) = existence(&c.existence) { dt { "existence" } dd { (e) } }
                @if let Some(r) = &c.revision {
                    dt { "revision" }
                    dd { "cited " (r.cited) ", dump " (r.dump)
                        @if !r.same { " — the text checked is the dump's" } }
                }
                dt { "locator" }
                dd {
                    (format!("{:?}", c.locator.precision).to_lowercase())
                    " of " (format!("{:?}", c.locator.requested).to_lowercase()) " requested"
                    @if !c.locator.resolved { " — " strong { "does not resolve" } }
                    @for p in &c.locator.problems { br; span.problem { (p) } }
                }
                @if let Some(s) = &c.support { (support(s)) }
                dt { "quality" } dd { (format!("{:.2}", c.quality.score)) }
            }
        }
    }
}

fn source(c: &CitationCheck, links: &Links) -> Markup {
    let text = describe_source(c);
    match &c.page {
        Some(p) => {
            html! { a.locator href=(links.wiki(&p.title, c.locator.anchor.as_deref())) { (text) } }
        }
        None => html! { (text) },
    }
}

fn existence(e: &Existence) -> Option<String> {
    Some(match e {
        Existence::Page => return None,
        Existence::Redirect { via } => format!("through the redirect(s) {}", via.join(" → ")),
        Existence::Missing { title } => format!("no page {title:?} in the index"),
        Existence::BrokenRedirect { title } => format!("{title:?} redirects nowhere"),
        Existence::InvalidTitle { title, reason } => format!("{title:?} is not a title: {reason}"),
        Existence::OtherWiki { wiki } => format!("a page of {wiki}, not of this index"),
        Existence::NotCheckableOffline { kind } => {
            format!("a {} source: not checkable offline", kind.as_str())
        }
        Existence::Unresolved => "the marker leads to no source".into(),
    })
}

fn support(s: &crate::cite::check::judge::SupportCheck) -> Markup {
    html! {
        dt { "support" }
        dd {
            (format!("score {:.2}", s.score)) ": " (s.explanation)
            @if s.outside_cited_section { br; "supported only outside the cited section" }
            @if s.overstatement { br; "the evidence hedges and the claim does not" }
            @if !s.missing_numbers.is_empty() {
                br; "figures the evidence never states: " (s.missing_numbers.join(", "))
            }
            @for (claim, evidence) in &s.conflicting_numbers {
                br; "the claim says " strong { (claim) } ", the evidence " strong { (evidence) }
            }
        }
        @if !s.evidence.is_empty() {
            dt { "evidence" }
            dd.evidence {
                @for (i, e) in s.evidence.iter().enumerate() {
                    blockquote {
                        span.note { "§" (e.section) " sentence " (e.sentence)
                            @if let Some(a) = &e.anchor { " (#" (a) ")" }
                            (format!(", covers {:.0}% of the claim", e.coverage * 100.0)) ": " }
                        @if i == 0 { mark.support { (e.text) } } @else { (e.text) }
                    }
                }
            }
        }
    }
}
