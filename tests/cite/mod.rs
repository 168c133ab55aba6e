//! Citation parsing and support scoring (`wikiwit::cite`).

mod check_e2e;
mod cli;
mod parse_agent_styles;
mod parse_forms;
mod parse_realistic;
mod parse_robustness;
mod support_pairs;

use std::collections::HashSet;

use wikiwit::cite::parse::{ParsedReport, Source};

/// Properties every parse must have, whatever the input: spans are in bounds and on char
/// boundaries, markers are what the spans say, ids and cross-references are consistent, and
/// every unresolved citation is reported.
pub fn check_invariants(src: &str, r: &ParsedReport) {
    let slice = |range: &std::ops::Range<usize>| {
        assert!(
            range.start <= range.end && range.end <= src.len(),
            "{range:?}"
        );
        src.get(range.clone())
            .unwrap_or_else(|| panic!("span {range:?} not on char boundaries"))
    };
    // Sets keep the checks linear: the robustness tests produce 200k citations.
    let reported: HashSet<usize> = r
        .unresolved_markers
        .iter()
        .filter_map(|m| m.citation)
        .collect();
    let cited: HashSet<(usize, usize)> = r
        .references
        .iter()
        .flat_map(|x| x.cited_by.iter().map(move |&c| (x.index, c)))
        .collect();
    for (i, c) in r.citations.iter().enumerate() {
        assert_eq!(c.id, i);
        assert_eq!(slice(&c.span), c.marker);
        slice(&c.claim_span);
        if let Some(reference) = c.reference {
            assert!(cited.contains(&(reference, c.id)));
        }
        if c.source == Source::Unresolved {
            assert!(
                reported.contains(&c.id),
                "unresolved citation {i} not reported"
            );
        }
    }
    for w in r.citations.windows(2) {
        assert!(w[0].span.start <= w[1].span.start, "citations out of order");
    }
    for m in &r.unresolved_markers {
        assert_eq!(slice(&m.span), m.text);
        if let Some(c) = m.citation {
            assert_eq!(r.citations[c].span, m.span);
        }
    }
    for (i, reference) in r.references.iter().enumerate() {
        assert_eq!(reference.index, i);
        slice(&reference.span);
    }
}
