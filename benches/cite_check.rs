//! Citation-check speed: `cargo bench --bench cite_check -- INDEX_DIR [CITATIONS] [RUNS]`.
//!
//! Writes an agent-style report of CITATIONS (default 100) citations from the index's own
//! text with a fixed-seed generator: each claim is a real prose sentence of a non-redirect
//! page, cited by its Wikipedia URL — half with the sentence's section anchor, every fifth
//! with a figure changed, every seventh cited to another page. Then times parsing plus
//! checking that report on the already opened index, RUNS times (default 5), and reports
//! the median and the slowest run, plus the first (cold) run that also opens the index and
//! its text searcher. Figures are measured here, never asserted in tests.

use std::fmt::Write;
use std::time::Instant;

use wikiwit::cite::check::{CheckOptions, check_report};
use wikiwit::cite::parse::parse_report;
use wikiwit::index::Index;

#[path = "common.rs"]
mod common;

use common::Rng;

/// A number below `n`.
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next() % n as u64) as usize
}

/// Replaces the first digit of the sentence with the next digit: a wrong figure.
fn change_a_figure(s: &str) -> String {
    let mut done = false;
    s.chars()
        .map(|c| match c.to_digit(10) {
            Some(d) if !done => {
                done = true;
                char::from_digit((d + 1) % 10, 10).unwrap_or(c)
            }
            _ => c,
        })
        .collect()
}

fn write_report(index: &Index, n: usize) -> anyhow::Result<String> {
    let mut rng = Rng::default();
    let mut pages = Vec::new();
    for (p, rec) in (0..).zip(index.pages()) {
        let rec = rec?;
        if rec.ns == 0 && rec.redirect.is_none() {
            pages.push(p);
        }
    }
    anyhow::ensure!(!pages.is_empty(), "the index has no articles");
    let mut body = String::from("# Generated report\n\n");
    let mut sources = String::from("\n## Sources\n\n");
    let mut made = 0;
    let mut attempts = 0;
    while made < n && attempts < n * 100 {
        attempts += 1;
        let page = pages[below(&mut rng, pages.len())];
        let Some(text) = index.page_text(page)? else {
            continue;
        };
        let prose: Vec<_> = text
            .sentences()
            .filter(|(_, _, s)| {
                s.kind == wikiwit::text::SentenceKind::Prose && s.text.split(' ').count() >= 8
            })
            .collect();
        if prose.is_empty() {
            continue;
        }
        let (section, _, s) = prose[below(&mut rng, prose.len())];
        let mut claim = s.text.trim_end_matches('.').to_string();
        if made % 5 == 4 {
            claim = change_a_figure(&claim);
        }
        let cited = if made % 7 == 6 {
            pages[below(&mut rng, pages.len())]
        } else {
            page
        };
        let rec = index.page(cited)?;
        // Characters that would end the path are escaped, as a browser's address bar does.
        let path = rec
            .dbkey
            .replace('%', "%25")
            .replace('?', "%3F")
            .replace('#', "%23");
        let mut url = format!("https://en.wikipedia.org/wiki/{path}");
        if made % 2 == 0 && section > 0 && cited == page {
            let st = index.structure(page)?;
            if let Some(sec) = st.sections.get(section as usize - 1) {
                write!(url, "#{}", sec.anchor)?;
            }
        }
        made += 1;
        writeln!(body, "{claim}.[{made}]\n")?;
        writeln!(sources, "[{made}] {url}")?;
    }
    Ok(body + &sources)
}

fn main() -> anyhow::Result<()> {
    let (dir, args) = common::args("cite_check INDEX_DIR [CITATIONS] [RUNS]")?;
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(100);
    let runs: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(5);
    let report = {
        let index = Index::open(&dir)?;
        write_report(&index, n)?
    };
    let options = CheckOptions::default();
    let t = Instant::now();
    let index = Index::open(&dir)?;
    let parsed = parse_report(&report);
    let first = check_report(&index, &report, &parsed, &options)?;
    let cold = t.elapsed().as_secs_f64();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let parsed = parse_report(&report);
        let again = check_report(&index, &report, &parsed, &options)?;
        times.push(t.elapsed().as_secs_f64());
        anyhow::ensure!(again == first, "two checks of the same report differ");
    }
    times.sort_by(f64::total_cmp);
    let s = &first.summary;
    println!(
        "{} citations on {} ({} pages): median {:.3} s, slowest {:.3} s over {runs} runs; first run with index open {:.3} s",
        s.citations,
        dir.display(),
        index.page_count(),
        times[times.len() / 2],
        times[times.len() - 1],
        cold
    );
    println!(
        "verdicts: {:?}; support rate {:.2}",
        s.by_verdict,
        s.support_rate.unwrap_or(0.0)
    );
    Ok(())
}
