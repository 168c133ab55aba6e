//! Search latency over real sentences: `cargo bench --bench search -- INDEX_DIR [N]`.
//!
//! Draws N (default 1000) sentences from the index's own text with a fixed-seed
//! generator, searches each one's first twelve words, and reports p50/p99/mean latency
//! and how often the sentence's own page is the first hit. Latencies are measured here,
//! not asserted in tests.

use std::time::Instant;

use wikiwit::index::Index;

#[path = "common.rs"]
mod common;

use common::Rng;

fn main() -> anyhow::Result<()> {
    let (dir, args) = common::args("search INDEX_DIR [N]")?;
    let n: usize = args.first().map(|s| s.parse()).transpose()?.unwrap_or(1000);
    let index = Index::open(&dir)?;
    let mut rng = Rng::default();
    let mut queries = Vec::with_capacity(n);
    let mut attempts = 0;
    while queries.len() < n && attempts < n * 100 {
        attempts += 1;
        let page = (rng.next() % index.page_count() as u64) as u32;
        let Some(text) = index.page_text(page)? else {
            continue;
        };
        let all: Vec<_> = text.sentences().collect();
        if all.is_empty() {
            continue;
        }
        let (_, _, s) = all[(rng.next() % all.len() as u64) as usize];
        let words: Vec<&str> = s.text.split_whitespace().take(12).collect();
        if words.len() < 5 {
            continue;
        }
        queries.push((page, words.join(" ")));
    }
    // Warm the searcher (opening the tantivy index is not a query's cost).
    index.searcher()?;
    let mut times = Vec::with_capacity(queries.len());
    let mut first = 0;
    for (page, q) in &queries {
        let t = Instant::now();
        let hits = wikiwit::query::text::search(&index, q, Default::default(), 10)?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        let want = index.page(*page)?.id;
        if hits.first().is_some_and(|h| h.page_id == want) {
            first += 1;
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "{} queries: p50 {:.2} ms, p99 {:.2} ms, mean {:.2} ms; own page first in {:.1} %",
        times.len(),
        pct(0.5),
        pct(0.99),
        mean,
        100.0 * first as f64 / times.len() as f64
    );
    Ok(())
}
