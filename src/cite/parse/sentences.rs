//! Rule-based sentence splitting for claim extraction.
//!
//! A citation vouches for the sentence it closes, so the claim boundary matters more than
//! anything else the parser does. Report prose is dense with abbreviations ("e.g.", "U.S.",
//! "et al."), initials and decimals, which naive splitting on ". " gets wrong; the rules
//! below handle those without a trained model, which keeps the parser deterministic.

use std::ops::Range;

/// Abbreviations after which a period never ends a sentence: they are followed by a name,
/// number or example.
const NEVER_FINAL: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "st", "mt", "vs", "v", "e.g", "i.e", "cf", "al", "fig",
    "figs", "eq", "eqs", "no", "nos", "vol", "vols", "pp", "p", "ed", "eds", "approx", "ca", "c",
    "est", "dept", "univ", "gen", "gov", "sen", "rep", "col", "lt", "sgt", "capt", "rev", "hon",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "op",
    "ibid", "viz", "resp", "ch", "sec", "art", "nr", "incl", "excl",
];

/// Abbreviations that can also end a sentence ("… in the U.S. The next …"); they end one only
/// when the next word is a typical sentence opener.
const SOMETIMES_FINAL: &[&str] = &[
    "etc", "inc", "ltd", "co", "corp", "jr", "sr", "a.m", "p.m", "u.s", "u.k", "u.n", "e.u", "d.c",
    "ph.d", "llc", "plc", "bros",
];

const OPENERS: &[&str] = &[
    "the",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "in",
    "on",
    "at",
    "a",
    "an",
    "he",
    "she",
    "they",
    "we",
    "i",
    "however",
    "but",
    "and",
    "as",
    "for",
    "since",
    "after",
    "while",
    "although",
    "there",
    "his",
    "her",
    "their",
    "our",
    "by",
    "from",
    "with",
    "when",
    "according",
    "other",
    "some",
    "many",
    "most",
    "both",
    "today",
    "meanwhile",
    "moreover",
    "also",
    "yet",
];

fn is_closing(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '”' | '’' | '»' | '*' | '_')
}

fn is_terminal(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？')
}

/// Splits `text` into sentences whose ranges tile `0..text.len()`: each range runs up to the
/// start of the next sentence (trailing whitespace included), so every offset belongs to
/// exactly one sentence.
pub fn split(text: &str) -> Vec<Range<usize>> {
    let mut starts = vec![0];
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        if c == '\n' && next_to_pipe(&chars, i) {
            // Pipe rows survive into plain text only from tables the markdown parser did not
            // recognise; each row is its own claim.
            let mut j = i + 1;
            while j < chars.len() && chars[j].1.is_whitespace() {
                j += 1;
            }
            if j < chars.len() {
                starts.push(chars[j].0);
            }
            i = j;
            continue;
        }
        if !is_terminal(c) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() && (is_terminal(chars[j].1) || is_closing(chars[j].1)) {
            j += 1;
        }
        let mut k = j;
        while k < chars.len() && chars[k].1.is_whitespace() {
            k += 1;
        }
        if k == chars.len() {
            break;
        }
        let cjk_stop = matches!(c, '。' | '！' | '？');
        if k == j && !cjk_stop {
            // No whitespace after the terminal: decimals, URLs, "e.g.,".
            i = j;
            continue;
        }
        let next_word = word_at(&chars, k);
        let ellipsis = chars[i..j].iter().filter(|(_, t)| *t == '.').count() >= 3;
        if ends_sentence(text, pos, c, ellipsis, chars[k].1, &next_word) {
            starts.push(chars[k].0);
        }
        i = k;
    }
    starts.dedup();
    let mut out = Vec::with_capacity(starts.len());
    for (n, s) in starts.iter().enumerate() {
        let e = starts.get(n + 1).copied().unwrap_or(text.len());
        if e > *s {
            out.push(*s..e);
        }
    }
    if out.is_empty() {
        out.push(0..text.len());
    }
    out
}

/// Whether the line break at `i` ends or precedes a `|`-delimited table row.
fn next_to_pipe(chars: &[(usize, char)], i: usize) -> bool {
    let before = chars[..i]
        .iter()
        .rev()
        .find(|(_, c)| *c != ' ' && *c != '\t');
    let after = chars[i + 1..].iter().find(|(_, c)| *c != ' ' && *c != '\t');
    before.is_some_and(|(_, c)| *c == '|') || after.is_some_and(|(_, c)| *c == '|')
}

fn word_at(chars: &[(usize, char)], k: usize) -> String {
    chars[k..]
        .iter()
        .map(|(_, c)| *c)
        .take_while(|c| c.is_alphanumeric() || matches!(c, '\'' | '’' | '-'))
        .collect()
}

/// Decides whether the terminal `c` at byte `pos` ends a sentence, given the first
/// non-space character after it and the word that character starts.
fn ends_sentence(
    text: &str,
    pos: usize,
    c: char,
    ellipsis: bool,
    next_char: char,
    next_word: &str,
) -> bool {
    // A lowercase continuation never starts a sentence; quotes, brackets, digits, capitals
    // and caseless scripts may.
    if next_char.is_lowercase() {
        return false;
    }
    if c != '.' || ellipsis {
        return true;
    }
    let token = token_before(text, pos);
    let lower = token.to_lowercase();
    if lower.is_empty() {
        return true;
    }
    if NEVER_FINAL.contains(&lower.as_str()) {
        return false;
    }
    let mut letters = token.chars();
    let single_letter = letters.next().is_some_and(char::is_alphabetic) && letters.next().is_none();
    if single_letter {
        // An initial, as in "J. R. R. Tolkien".
        return false;
    }
    let dotted = token.contains('.')
        && token.split('.').all(|seg| {
            !seg.is_empty() && seg.chars().count() <= 2 && seg.chars().all(char::is_alphabetic)
        });
    if dotted || SOMETIMES_FINAL.contains(&lower.as_str()) {
        return OPENERS.contains(&next_word.to_lowercase().as_str());
    }
    true
}

/// The word immediately before byte `pos` (a period), without leading brackets or quotes.
fn token_before(text: &str, pos: usize) -> &str {
    let head = &text[..pos];
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    head[start..].trim_start_matches(['(', '[', '"', '\'', '“', '‘', '«'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(text: &str) -> Vec<&str> {
        split(text).into_iter().map(|r| text[r].trim()).collect()
    }

    #[test]
    fn splits_plain_sentences() {
        assert_eq!(
            sentences("It rained. Then it stopped! Did it? Yes."),
            ["It rained.", "Then it stopped!", "Did it?", "Yes."]
        );
    }

    #[test]
    fn keeps_abbreviations_initials_and_decimals() {
        assert_eq!(
            sentences(
                "Smith et al. Found it, e.g. Dr. Jones in the U.S. Army. Growth was 3.5 percent."
            ),
            [
                "Smith et al. Found it, e.g. Dr. Jones in the U.S. Army.",
                "Growth was 3.5 percent."
            ]
        );
        assert_eq!(
            sentences("J. R. R. Tolkien wrote it. Vol. 2 followed."),
            ["J. R. R. Tolkien wrote it.", "Vol. 2 followed."]
        );
    }

    #[test]
    fn ambiguous_abbreviation_ends_before_an_opener() {
        assert_eq!(
            sentences("It moved to the U.S. The company grew."),
            ["It moved to the U.S.", "The company grew."]
        );
        assert_eq!(
            sentences("Apples, pears, etc. are sold. Prices rose."),
            ["Apples, pears, etc. are sold.", "Prices rose."]
        );
    }

    #[test]
    fn closing_quotes_and_brackets_stay_with_their_sentence() {
        assert_eq!(
            sentences("He said \"stop.\" Then (briefly.) It ended."),
            ["He said \"stop.\"", "Then (briefly.)", "It ended."]
        );
    }

    #[test]
    fn ranges_tile_the_text() {
        let text = "A b. C d.  E f";
        let r = split(text);
        assert_eq!(r.first().map(|r| r.start), Some(0));
        assert_eq!(r.last().map(|r| r.end), Some(text.len()));
        assert!(r.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn rows_of_unrecognised_tables_are_separate() {
        assert_eq!(
            sentences("| a | b |\n| c. D | e |\nf g\nh."),
            ["| a | b |", "| c. D | e |", "f g\nh."]
        );
    }

    #[test]
    fn lowercase_continuation_is_not_a_boundary() {
        assert_eq!(
            sentences("Costs fell approx. by half."),
            ["Costs fell approx. by half."]
        );
        assert_eq!(sentences("It is 5 p.m. now."), ["It is 5 p.m. now."]);
    }
}
