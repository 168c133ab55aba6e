//! `parse_report` must never panic and must stay roughly linear on any UTF-8 input: reports
//! come from language models and are often truncated or mangled.

use wikiwit::cite::parse::parse_report;

use super::check_invariants;

const REPORT: &str = include_str!("../data/cite/deep_research_report.md");

/// SplitMix64: tiny, deterministic, good enough to drive input generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Fragments that exercise every pattern and markdown construct, plus multibyte text.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "[^",
    "]:",
    "[^1]",
    "[^1]: ",
    "[1]",
    "[2-4]",
    "[3–5]",
    "[3, 4]",
    "[[",
    "]]",
    "|",
    "\n",
    "\n\n",
    "```",
    "`",
    "*",
    "**",
    "_",
    "#",
    "## Sources\n",
    "- ",
    "1. ",
    "> ",
    "    ",
    "https://",
    "http://www.",
    "en.wikipedia.org/wiki/",
    "en.m.wikipedia.org/w/index.php?title=",
    "&oldid=",
    "?curid=",
    "#:~:text=",
    "%E2%80%93",
    "%",
    ".E2.80.93",
    ".28",
    "doi:10.1000/",
    "https://doi.org/10.",
    "arXiv:2101.",
    "ISBN 978-0-306-",
    "(Smith et al., 20",
    "Smith (2021) found",
    ")",
    "【1†",
    "】",
    "<sup>",
    "</sup>",
    "<table><td>",
    "</td>",
    "<!--",
    "-->",
    "é",
    "日本語",
    "🦀",
    "\u{200B}",
    "\u{301}",
    "\r\n",
    "\t",
    " ",
    " ",
    " ",
    "word",
    "Claim",
    ".",
    ". ",
    "e.g. ",
    "U.S. ",
    "3.5",
    "1,000",
    "?",
    "!",
    "…",
    "\"",
    "”",
    "[x]: https://x.example \"t\"\n",
    "|---|---|\n",
    "| a | b [1] |\n",
    "~~",
    "<",
    ">",
    "\\",
    "&amp;",
    "&#x5B;",
];

fn random_doc(rng: &mut Rng, tokens: usize) -> String {
    let mut s = String::new();
    for _ in 0..tokens {
        s.push_str(rng.pick(TOKENS));
    }
    s
}

/// Random edits of a realistic report: insertions, deletions and duplications at char
/// boundaries.
fn mutate(rng: &mut Rng, base: &str, edits: usize) -> String {
    let mut s = base.to_string();
    for _ in 0..edits {
        let boundaries: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = boundaries[rng.below(boundaries.len())];
        match rng.below(3) {
            0 => s.insert_str(at, rng.pick(TOKENS)),
            1 => {
                let end = boundaries[(boundaries.partition_point(|&b| b < at) + rng.below(40))
                    .min(boundaries.len() - 1)];
                s.replace_range(at..end, "");
            }
            _ => {
                let end = boundaries[(boundaries.partition_point(|&b| b < at) + rng.below(80))
                    .min(boundaries.len() - 1)];
                let piece = s[at..end].to_string();
                s.insert_str(end, &piece);
            }
        }
    }
    s
}

#[test]
fn random_token_soup_never_panics() {
    let mut rng = Rng(0x5EED);
    for round in 0..3000 {
        let doc = random_doc(&mut rng, 1 + round % 120);
        let r = parse_report(&doc);
        check_invariants(&doc, &r);
    }
}

#[test]
fn mutated_reports_never_panic() {
    let mut rng = Rng(42);
    for round in 0..400 {
        let doc = mutate(&mut rng, REPORT, 1 + round % 25);
        let r = parse_report(&doc);
        check_invariants(&doc, &r);
    }
}

#[test]
fn multibyte_char_at_every_position() {
    let base = "Growth was 3.5% in the U.S.[1] See [x](https://en.wikipedia.org/wiki/A_(b)#c) and [^n] (Smith et al., 2020) [2-3]\n| a | b [1] |\n|---|---|\n\n[1]: https://doi.org/10.1000/x\n[^n]: note\n";
    let boundaries: Vec<usize> = base
        .char_indices()
        .map(|(i, _)| i)
        .chain([base.len()])
        .collect();
    for &at in &boundaries {
        for ch in ["é", "🦀", "\u{301}", "日"] {
            let mut doc = base.to_string();
            doc.insert_str(at, ch);
            let r = parse_report(&doc);
            check_invariants(&doc, &r);
        }
    }
}

/// Builds about `bytes` bytes of input by repeating `unit`.
fn repeat_to(unit: &str, bytes: usize) -> String {
    unit.repeat(bytes / unit.len().max(1) + 1)
}

#[test]
/// Megabyte inputs made of one pathological unit repeated: each parses (a quadratic or
/// exponential path would not finish) and the result keeps its invariants. Speed itself
/// is measured in `benches/cite_check.rs`, not asserted here.
fn huge_inputs_parse_with_invariants() {
    let mut rng = Rng(7);
    let soup = random_doc(&mut rng, 4000);
    let units: &[(&str, &str)] = &[
        ("realistic report", REPORT),
        ("token soup", &soup),
        ("open brackets", "["),
        ("open wikilinks", "[[a"),
        ("open parens", "(Smith et al., "),
        ("backticks", "`"),
        ("emphasis", "*a_"),
        ("one long sentence", "word e.g. U.S. 3.5 "),
        ("table row", "| a [1] "),
        ("url", "https://en.wikipedia.org/wiki/A.E2.80"),
        ("blockquote nesting", "> "),
        ("footnote definitions", "[^a]: https://x.example\n"),
        (
            "narrative citations",
            "Smith and Jones (2020) found Titanic (1997) ",
        ),
        ("url of brackets", "https://x.org/a)"),
        ("marker-only sentences", "[1]. "),
        ("unresolved footnotes", "[^x] "),
        ("one wide table row", "| a [1] |---"),
        ("unbalanced title", "[1] https://a.example ((((("),
        (
            "definitions and uses",
            "[1]: https://a.example\nClaim [1][2] (Smith, 2020).\n",
        ),
    ];
    for (_name, unit) in units {
        let large = repeat_to(unit, 1 << 20);
        let r = parse_report(&large);
        check_invariants(&large, &r);
    }
}
