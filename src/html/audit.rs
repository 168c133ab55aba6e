//! `audit --html`: an audit's counts and every finding with its check, severity, row,
//! key, the locator (a link into the page view) and what the locator's content says;
//! filterable by severity.

use maud::{Markup, html};

use super::{Links, document, filters};
use crate::audit::checks::ALL;
use crate::audit::{Finding, Severity, Summary};

/// What one report shows besides the findings: where the inputs came from.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    pub contract: &'a str,
    pub rows: &'a str,
}

/// The audit `s` and its `findings` (in log order) as one HTML document.
pub fn report(s: &Summary, findings: &[Finding], inputs: &Inputs<'_>, links: &Links) -> String {
    let severities: Vec<(String, String, usize)> = [
        (Severity::Blocking, s.blocking),
        (Severity::Hygiene, s.hygiene),
        (Severity::Advisory, s.advisory),
    ]
    .iter()
    .map(|(sev, n)| (severity(*sev).to_string(), severity(*sev).to_string(), *n))
    .collect();
    let body = html! {
        h1 { "Audit " code { (s.audit) } }
        table.summary {
            tr { td { "contract" } td { code { (inputs.contract) } " (sha256 " (short(&s.contract_sha256)) ")" } }
            tr { td { "rows" } td { (s.rows) " in " code { (inputs.rows) } " (sha256 " (short(&s.rows_sha256)) ")" } }
            tr { td { "findings" } td { (s.findings) ": " (s.blocking) " blocking, " (s.hygiene)
                " hygiene, " (s.advisory) " advisory" } }
            tr { td { "rows blocked" } td { (s.rows_blocked) } }
            tr { td { "states" } td { (s.states.join(", ")) } }
        }
        (by_check(s))
        h2 { "Findings" }
        (filters("severity", &severities))
        div.items {
            @for (i, f) in findings.iter().enumerate() { (finding(i, f, links)) }
        }
    };
    document(&format!("Audit {}", s.audit), body)
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(16)]
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Blocking => "blocking",
        Severity::Hygiene => "hygiene",
        Severity::Advisory => "advisory",
    }
}

fn by_check(s: &Summary) -> Markup {
    html! {
        table.checks {
            tr { th { "check" } th { "name" } th { "category" } th { "findings" } }
            @for c in ALL {
                @if let Some(n) = s.by_check.get(&c.id()) {
                    tr {
                        td { (c.id()) } td { (c.name()) }
                        td { (format!("{:?}", c.category()).to_lowercase()) } td { (n) }
                    }
                }
            }
        }
    }
}

fn finding(i: usize, f: &Finding, links: &Links) -> Markup {
    let sev = severity(f.severity);
    html! {
        div.item.(format!("f-{sev}")) id={"finding-" (i)} {
            h3 {
                span.badge.(sev) { (sev) } " "
                "check " (f.check) " " (f.name) " "
                span.note { "(" (format!("{:?}", f.category).to_lowercase()) ")" }
            }
            p.message { (f.message) }
            dl {
                @if let Some(r) = f.row {
                    dt { "row" }
                    dd { (r) @if let Some(l) = f.line { span.note { " (line " (l) ")" } } }
                }
                @if let Some(k) = &f.key { dt { "key" } dd { (k) } }
                @if let Some(l) = &f.locator {
                    dt { "locator" }
                    dd {
                        @match links.locator(l) {
                            Some(href) => a.locator href=(href) { code { (l) } },
                            None => code { (l) },
                        }
                    }
                }
                @if let Some(e) = &f.evidence {
                    dt { "resolved to" } dd { blockquote { mark.evidence { (e) } } }
                }
            }
        }
    }
}
