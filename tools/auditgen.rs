//! `wikiwit-auditgen`: acceptance data for the auditor, from the real tables of an index.
//!
//! `generate` turns every data row of every table into a staged row with a correct
//! table-cell locator, plus labelled faulty variants of the same row — a value taken from
//! another row, a wrong row number, a section that does not exist, a changed number, a
//! key from another row — and two correct respellings: figures in a text value written
//! without their digit-group separators (`6024 km (3743 mi)` for `6,024 km (3,743 mi)`),
//! and a cell's one figure staged in a number column with a sign, currency or scale word
//! (`+12`, `US$ 2540000`, `2.54 million`). It writes a generic contract (`c0…cK` text
//! columns and `n0…nK` optional number columns mapped to grid columns), the rows (JSONL)
//! and the labels (TSV, kept apart from the rows so the auditor cannot see them). `score` reads the labels and the findings log and prints
//! the confusion table: for each kind of row, how many the row-evidence check flagged.
//!
//! `--rows N` writes exactly N rows, going over the tables again (with new random
//! picks) as often as needed: the batch benchmark's 1 M, 5 M and 10 M rows.
//!
//! ```sh
//! wikiwit-auditgen generate --index IDX --out DIR [--repeat N | --rows N] [--seed S]
//! wikiwit audit DIR/contract.json DIR/rows.jsonl --index IDX --findings DIR/findings.jsonl
//! wikiwit-auditgen score DIR/labels.tsv DIR/findings.jsonl
//! ```

use std::collections::BTreeMap;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};
use wikiwit::audit::numbers::DecimalMark;
use wikiwit::index::Index;
use wikiwit::wikitext::{PageStructure, Table};

/// Columns written per row (wider tables are cut: the rest is simply not staged).
const MAX_COLS: usize = 12;

const KINDS: [&str; 8] = [
    "correct",
    "separator_variant",
    "sign_currency_variant",
    "other_row_value",
    "wrong_row",
    "bad_section",
    "changed_number",
    "swapped_key",
];

/// A small deterministic generator (xorshift64*): the same seed, the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The staged values of data row `r`: grid texts, whitespace squeezed.
fn row_values(t: &Table, r: usize) -> Vec<String> {
    let h = t.header_rows();
    (0..(t.columns as usize).min(MAX_COLS))
        .map(|c| {
            t.cell_at(h + r, c)
                .map(|x| squeeze(&x.text))
                .unwrap_or_default()
        })
        .collect()
}

/// Data row `r` is a note, not an item: what the auditor's count skips.
fn is_note_row(t: &Table, r: usize) -> bool {
    wikiwit::audit::is_note_row(t, t.header_rows() + r)
}

/// Percent-encodes a DB key or anchor as Wikipedia URLs do.
fn url_encode(s: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'_')
        .remove(b'-')
        .remove(b'.')
        .remove(b'(')
        .remove(b')')
        .remove(b',')
        .remove(b':')
        .remove(b'\'');
    percent_encoding::utf8_percent_encode(s, KEEP).to_string()
}

/// A number changed the way a typo or a stale source changes it: the last digit.
fn change_number(v: &str) -> Option<String> {
    let (val, unit) = wikiwit::audit::values::parse_number_unit(v)?;
    if unit.is_some() || !v.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let bytes: Vec<char> = v.chars().collect();
    let last = bytes.iter().rposition(|c| c.is_ascii_digit())?;
    let d = bytes[last].to_digit(10)?;
    let mut out = bytes.clone();
    out[last] = char::from_digit((d + 3) % 10, 10)?;
    let changed: String = out.into_iter().collect();
    let (nv, _) = wikiwit::audit::values::parse_number_unit(&changed)?;
    (nv != val).then_some(changed)
}

/// A text value with every figure's digit-group separators dropped, when it has any.
fn without_separators(v: &str) -> Option<String> {
    let folded = wikiwit::audit::numbers::fold_figures(v, DecimalMark::Point);
    (folded != v && folded.chars().filter(char::is_ascii_digit).count() >= 4)
        .then(|| folded.into_owned())
}

/// The cell's one figure respelled for a number column: with its currency as an ISO code,
/// a scale word for millions, a `+` sign otherwise; `None` unless the cell states one
/// figure with no unit word.
fn signed_or_currency(cell: &str, pick: usize) -> Option<String> {
    use wikiwit::audit::numbers::{CellNumbers, cell_numbers};
    let CellNumbers::One(a, None) = cell_numbers(cell, DecimalMark::Point) else {
        return None;
    };
    if a.unit.is_some() || a.value < 0.0 || a.tolerance > 0.5 {
        return None;
    }
    let plain = format!("{}", a.value);
    let pct = if a.percent { " %" } else { "" };
    Some(match (a.currency, pick % 2) {
        (Some("$"), _) => format!("$ {plain}{pct}"),
        (Some(code), _) => format!("{code} {plain}{pct}"),
        (None, 0) if a.value >= 1e6 && a.value % 1e4 == 0.0 => {
            format!("{} million", a.value / 1e6)
        }
        (None, _) => format!("+{plain}{pct}"),
    })
}

struct Out {
    rows: BufWriter<std::fs::File>,
    labels: BufWriter<std::fs::File>,
    n: usize,
    /// Rows to write at most.
    limit: usize,
    by_kind: BTreeMap<&'static str, usize>,
}

impl Out {
    fn full(&self) -> bool {
        self.n >= self.limit
    }

    fn write(
        &mut self,
        kind: &'static str,
        page: &str,
        locator: &str,
        table_id: &str,
        (values, numbers): (&[String], &[(usize, String)]),
        origin: &str,
    ) -> Result<()> {
        if self.full() {
            return Ok(());
        }
        let mut m = Map::new();
        m.insert("source_page".into(), json!(page));
        m.insert("locator".into(), json!(locator));
        m.insert("table".into(), json!(table_id));
        for (i, v) in values.iter().enumerate() {
            if !v.is_empty() {
                m.insert(format!("c{i}"), json!(v));
            }
        }
        for (i, v) in numbers {
            m.insert(format!("n{i}"), json!(v));
        }
        serde_json::to_writer(&mut self.rows, &Value::Object(m))?;
        self.rows.write_all(b"\n")?;
        writeln!(self.labels, "{}\t{kind}\t{origin}", self.n)?;
        self.n += 1;
        *self.by_kind.entry(kind).or_default() += 1;
        Ok(())
    }
}

struct TableRef<'a> {
    page: &'a str,
    dbkey: &'a str,
    s: &'a PageStructure,
    t: &'a Table,
    /// Page-wide table number (1-based).
    number: usize,
}

impl TableRef<'_> {
    /// `(anchor, table number within that section)` when the anchor can be written in a
    /// locator's page part.
    fn in_section(&self) -> Option<(String, usize)> {
        let sec = self.t.section;
        let anchor = wikiwit::query::section_anchor(self.s, sec)?;
        if anchor.contains(['|', '"']) {
            return None;
        }
        let n = self.s.tables[..self.number]
            .iter()
            .filter(|x| x.section == sec)
            .count();
        Some((anchor, n))
    }

    fn locator(&self, row: usize, anchor_override: Option<&str>, as_url: bool) -> String {
        let (anchor, n) = match (self.in_section(), anchor_override) {
            (Some((_, n)), Some(a)) => (Some(a.to_string()), n),
            (Some((a, n)), None) => (Some(a), n),
            (None, Some(a)) => (Some(a.to_string()), 1),
            (None, None) => (None, self.number),
        };
        let page = match (&anchor, as_url) {
            (Some(a), true) => format!(
                "https://en.wikipedia.org/wiki/{}#{}",
                url_encode(self.dbkey),
                url_encode(a)
            ),
            (None, true) => format!("https://en.m.wikipedia.org/wiki/{}", url_encode(self.dbkey)),
            (Some(a), false) => format!("{}#{a}", self.page),
            (None, false) => self.page.to_string(),
        };
        format!("{page}|table:{n}|row:{row}")
    }
}

/// How many rows to write: every table's rows `Repeat(n)` times, or exactly `Rows(n)`.
#[derive(Clone, Copy)]
enum Size {
    Repeat(usize),
    Rows(usize),
}

fn generate(index_dir: &Path, out_dir: &Path, size: Size, seed: u64) -> Result<()> {
    let index = Index::open(index_dir)?;
    std::fs::create_dir_all(out_dir)?;
    let (repeat, limit) = match size {
        Size::Repeat(n) => (n, usize::MAX),
        Size::Rows(n) => (usize::MAX, n),
    };
    let mut out = Out {
        rows: BufWriter::new(std::fs::File::create(out_dir.join("rows.jsonl"))?),
        labels: BufWriter::new(std::fs::File::create(out_dir.join("labels.tsv"))?),
        n: 0,
        limit,
        by_kind: BTreeMap::new(),
    };
    writeln!(out.labels, "row\tkind\torigin")?;
    // Pages with tables, in index order.
    let mut pages = Vec::new();
    let mut anchors_pool: Vec<String> = Vec::new();
    let mut width = 1;
    for (rec, s) in index.pages().zip(index.structures()?) {
        let rec = rec?;
        if rec.redirect.is_some() || rec.ns != 0 {
            continue;
        }
        let s = s?;
        if s.tables.is_empty() {
            continue;
        }
        for t in &s.tables {
            width = width.max((t.columns as usize).min(MAX_COLS));
        }
        if let Some(sec) = s.sections.first() {
            anchors_pool.push(sec.anchor.clone());
        }
        pages.push((index.display_title(&rec), rec.dbkey.clone(), s));
    }
    let mut columns = vec![json!({"name": "table", "type": "text", "claim": "derived",
        "derivation": "the source page and table number"})];
    for i in 0..width {
        columns.push(
            json!({"name": format!("c{i}"), "type": "text", "source_col": i,
            "optional": i > 0}),
        );
    }
    for i in 0..width {
        columns.push(
            json!({"name": format!("n{i}"), "type": "number", "source_col": i,
            "optional": true}),
        );
    }
    let sources: Vec<Value> = pages
        .iter()
        .map(|(p, _, _)| json!({"page": p, "role": "list", "operator": "auditgen"}))
        .collect();
    let contract = json!({
        "query": "every data row of every table of the index, as staged rows",
        "primary_key": ["table", "c0"],
        "columns": columns,
        "scope": {"exhaustive": false},
        "sources": sources,
    });
    std::fs::write(
        out_dir.join("contract.json"),
        serde_json::to_string_pretty(&contract)?,
    )?;
    let mut rng = Rng(seed.max(1));
    let mut tables = 0usize;
    for copy in 0..repeat {
        if out.full() || pages.is_empty() {
            break;
        }
        for (page, dbkey, s) in &pages {
            for (ti, t) in s.tables.iter().enumerate() {
                let tr = TableRef {
                    page,
                    dbkey,
                    s,
                    t,
                    number: ti + 1,
                };
                if copy == 0 {
                    tables += 1;
                }
                let data: Vec<usize> = (0..t.data_rows()).filter(|&r| !is_note_row(t, r)).collect();
                let all: Vec<Vec<String>> = data.iter().map(|&r| row_values(t, r)).collect();
                let table_id = format!("{page} — table {}", ti + 1);
                for (k, &r) in data.iter().enumerate() {
                    if out.full() {
                        break;
                    }
                    let vals = &all[k];
                    if vals.iter().all(String::is_empty) {
                        continue;
                    }
                    let origin = format!("{page}\t{}\t{r}", ti + 1);
                    let as_url = r % 3 == 1;
                    out.write(
                        "correct",
                        page,
                        &tr.locator(r, None, as_url),
                        &table_id,
                        (vals, &[]),
                        &origin,
                    )?;
                    // Correct respellings: separators dropped from a text value; one
                    // figure with a sign, currency or scale word in a number column.
                    let grouped: Vec<usize> = (0..vals.len())
                        .filter(|&c| without_separators(&vals[c]).is_some())
                        .collect();
                    if !grouped.is_empty() {
                        let c = grouped[rng.below(grouped.len())];
                        let mut v = vals.clone();
                        v[c] = without_separators(&vals[c]).unwrap_or_default();
                        let l = tr.locator(r, None, false);
                        out.write("separator_variant", page, &l, &table_id, (&v, &[]), &origin)?;
                    }
                    let figures: Vec<(usize, String)> = (0..vals.len())
                        .filter_map(|c| Some((c, signed_or_currency(&vals[c], r + c)?)))
                        .collect();
                    if !figures.is_empty() {
                        let f = figures[rng.below(figures.len())].clone();
                        let l = tr.locator(r, None, false);
                        out.write(
                            "sign_currency_variant",
                            page,
                            &l,
                            &table_id,
                            (vals, &[f]),
                            &origin,
                        )?;
                    }
                    let differs = |o: &[String], cols: &[usize]| {
                        cols.iter().any(|&c| {
                            let (a, b) = (vals.get(c), o.get(c));
                            a.is_some_and(|a| !a.is_empty())
                                && wikiwit::audit::values::fold(a.map_or("", |x| x))
                                    != wikiwit::audit::values::fold(b.map_or("", |x| x))
                        })
                    };
                    // Another row of the same table, differing in the given way.
                    let pick = |rng: &mut Rng, ok: &dyn Fn(usize) -> bool| -> Option<usize> {
                        let start = rng.below(all.len());
                        (0..all.len())
                            .map(|i| (start + i) % all.len())
                            .find(|&j| j != k && ok(j))
                    };
                    let loc = tr.locator(r, None, false);
                    // 1. A value from another row of the same column.
                    let cols: Vec<usize> =
                        (1..vals.len()).filter(|&c| !vals[c].is_empty()).collect();
                    if !cols.is_empty() {
                        let c = cols[rng.below(cols.len())];
                        if let Some(j) = pick(&mut rng, &|j| {
                            !all[j][c].is_empty() && differs(&all[j], &[c])
                        }) {
                            let mut v = vals.clone();
                            v[c] = all[j][c].clone();
                            out.write(
                                "other_row_value",
                                page,
                                &loc,
                                &table_id,
                                (&v, &[]),
                                &origin,
                            )?;
                        }
                    }
                    // 2. The right values, the wrong row number.
                    if let Some(j) = pick(&mut rng, &|j| {
                        differs(&all[j], &(0..vals.len()).collect::<Vec<_>>())
                    }) {
                        let l = tr.locator(data[j], None, false);
                        out.write("wrong_row", page, &l, &table_id, (vals, &[]), &origin)?;
                    }
                    // 3. A section the page does not have (a heading of another page).
                    let bad = (0..8)
                        .map(|_| anchors_pool[rng.below(anchors_pool.len())].clone())
                        .find(|a| {
                            !a.contains(['|', '"'])
                                && wikiwit::query::text::section_number(s, a).is_none()
                        });
                    if let Some(a) = bad {
                        let l = tr.locator(r, Some(&a), false);
                        out.write("bad_section", page, &l, &table_id, (vals, &[]), &origin)?;
                    }
                    // 4. A number changed.
                    let numeric: Vec<usize> = (0..vals.len())
                        .filter(|&c| change_number(&vals[c]).is_some())
                        .collect();
                    if !numeric.is_empty() {
                        let c = numeric[rng.below(numeric.len())];
                        let mut v = vals.clone();
                        v[c] = change_number(&vals[c]).unwrap_or_default();
                        out.write("changed_number", page, &loc, &table_id, (&v, &[]), &origin)?;
                    }
                    // 5. The key of another row.
                    if !vals[0].is_empty()
                        && let Some(j) = pick(&mut rng, &|j| {
                            !all[j][0].is_empty() && differs(&all[j], &[0])
                        })
                    {
                        let mut v = vals.clone();
                        v[0] = all[j][0].clone();
                        out.write("swapped_key", page, &loc, &table_id, (&v, &[]), &origin)?;
                    }
                }
            }
        }
    }
    out.rows.flush()?;
    out.labels.flush()?;
    eprintln!(
        "{} pages, {tables} tables, {} rows written to {}",
        pages.len(),
        out.n,
        out_dir.display()
    );
    for (k, n) in &out.by_kind {
        eprintln!("  {k:<16} {n}");
    }
    Ok(())
}

/// A state record (`started`, `checkpoint`, `audited`, …), not a finding.
fn is_state_record(line: &[u8]) -> bool {
    line.windows(8).any(|w| w == b"\"state\":")
}

fn score(labels: &Path, findings: &Path) -> Result<()> {
    // Row → checks that flagged it.
    let mut flagged: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    let mut f = std::io::BufReader::new(
        std::fs::File::open(findings).with_context(|| findings.display().to_string())?,
    );
    let mut line = Vec::new();
    loop {
        line.clear();
        if f.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        // A last line without its newline is an interrupted write, not a record.
        if line.last() != Some(&b'\n') || is_state_record(&line) {
            continue;
        }
        let v: Value = serde_json::from_slice(&line)?;
        if let (Some(r), Some(c)) = (v["row"].as_u64(), v["check"].as_u64()) {
            flagged.entry(r as usize).or_default().push(c as u8);
        }
    }
    let mut table: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    let l = std::io::BufReader::new(
        std::fs::File::open(labels).with_context(|| labels.display().to_string())?,
    );
    for line in l.lines().skip(1) {
        let line = line?;
        let mut it = line.split('\t');
        let (Some(r), Some(kind)) = (it.next(), it.next()) else {
            bail!("bad label line {line:?}");
        };
        let r: usize = r.parse()?;
        let checks = flagged.get(&r).map(|v| &v[..]).unwrap_or(&[]);
        let e = table.entry(kind.to_string()).or_default();
        e[0] += 1;
        if checks.contains(&2) || checks.contains(&1) {
            e[1] += 1;
        }
        if checks.iter().any(|c| *c != 2 && *c != 1) {
            e[2] += 1;
        }
    }
    println!("| rows | n | flagged by row evidence (1/2) | not flagged | rate | other checks |");
    println!("|---|---|---|---|---|---|");
    for k in KINDS {
        let Some([n, hit, other]) = table.get(k) else {
            continue;
        };
        // Respellings of correct rows must pass like them.
        let (rate, what) = if k == "correct" || k.ends_with("_variant") {
            ((n - hit) as f64 / *n as f64, "pass")
        } else {
            (*hit as f64 / *n as f64, "caught")
        };
        println!(
            "| {k} | {n} | {hit} | {} | {:.2} % {what} | {other} |",
            n - hit,
            rate * 100.0
        );
    }
    Ok(())
}

/// Acceptance data for the auditor: staged rows with labelled faults from the real tables
/// of an index, and the confusion table of an audit of them.
#[derive(Debug, clap::Parser)]
#[command(name = "wikiwit-auditgen", version)]
enum Cli {
    /// Stage every data row of every table of an index, with labelled faulty variants:
    /// writes contract.json, rows.jsonl and labels.tsv into DIR.
    Generate {
        /// The index to read the tables from.
        #[arg(long, value_name = "DIR")]
        index: PathBuf,
        /// Where the contract, rows and labels are written.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Stage every row this many times (for volume).
        #[arg(long, default_value_t = 1, conflicts_with = "rows")]
        repeat: usize,
        /// Stage exactly this many rows, cycling through the tables' rows (for volume).
        #[arg(long, value_name = "N")]
        rows: Option<usize>,
        /// The seed choosing the faults' values.
        #[arg(long, default_value_t = 6)]
        seed: u64,
    },
    /// Print the confusion table of an audit of generated rows: for each kind of row,
    /// how many the row-evidence check flagged.
    Score {
        /// The labels `generate` wrote.
        labels: PathBuf,
        /// The findings log of `wikiwit audit` on the generated rows.
        findings: PathBuf,
    },
}

fn main() -> Result<()> {
    match <Cli as clap::Parser>::parse() {
        Cli::Generate {
            index,
            out,
            repeat,
            rows,
            seed,
        } => {
            let size = match rows {
                Some(n) => Size::Rows(n),
                None => Size::Repeat(repeat),
            };
            generate(&index, &out, size, seed)
        }
        Cli::Score { labels, findings } => score(&labels, &findings),
    }
}
