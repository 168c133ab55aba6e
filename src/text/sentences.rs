//! Rule-based sentence splitting, for a page's evidence text and a report's claims alike.
//!
//! The index stores a page's text as sentences (`super::split_sentences`) and the report
//! parser (`cite::parse`) cuts a report into claims with the same rules; the splitter lives
//! here, in the lowest layer that uses it. A citation vouches for the sentence it closes, so
//! for the report parser the boundary matters more than anything else it finds. Prose is dense with abbreviations ("e.g.", "U.S.",
//! "et al."), initials and decimals, which naive splitting on ". " gets wrong; the rules
//! below handle those without a trained model, which keeps the split deterministic.

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

/// Bytes where a sentence may end: ASCII terminals, a newline, and the lead bytes of the
/// multibyte terminals (`…` E2 80 A6; `。` E3 80 82; `！` EF BC 81; `？` EF BC 9F). A table
/// lookup per byte: the index runs the whole wiki's text through [`split`].
const CANDIDATE: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = [b'.', b'!', b'?', b'\n', 0xE2, 0xE3, 0xEF];
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// Splits `text` into sentences whose ranges tile `0..text.len()`: each range runs up to the
/// start of the next sentence (trailing whitespace included), so every offset belongs to
/// exactly one sentence.
///
/// Works on byte offsets in one pass (the index splits a whole wiki's text with it):
/// candidate positions are found with `memchr`, and characters are decoded only around
/// them.
pub fn split(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut starts = vec![0];
    let mut i = 0;
    while i < b.len() {
        let Some(off) = b[i..].iter().position(|&c| CANDIDATE[c as usize]) else {
            break;
        };
        let pos = i + off;
        let c = text[pos..].chars().next().expect("on a char boundary");
        let clen = c.len_utf8();
        if c == '\n' && next_to_pipe(text, pos) {
            // Pipe rows survive into plain text only from tables the markdown parser did not
            // recognise; each row is its own claim.
            let j = pos + 1 + text[pos + 1..].len() - text[pos + 1..].trim_start().len();
            if j < b.len() {
                starts.push(j);
            }
            i = j.max(pos + 1);
            continue;
        }
        if !is_terminal(c) {
            i = pos + clen;
            continue;
        }
        // Further terminals and closing quotes or brackets belong to this sentence.
        let mut j = pos + clen;
        let mut dots = usize::from(c == '.');
        for d in text[j..].chars() {
            if is_terminal(d) || is_closing(d) {
                dots += usize::from(d == '.');
                j += d.len_utf8();
            } else {
                break;
            }
        }
        let k = j + text[j..].len() - text[j..].trim_start().len();
        if k == b.len() {
            break;
        }
        let cjk_stop = matches!(c, '。' | '！' | '？');
        if k == j && !cjk_stop {
            // No whitespace after the terminal: decimals, URLs, "e.g.,".
            i = j;
            continue;
        }
        let next_char = text[k..].chars().next().expect("k < len");
        let next_word = word_at(text, k);
        if ends_sentence(text, pos, c, dots >= 3, next_char, next_word) {
            starts.push(k);
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

/// Whether the line break at byte `i` ends or precedes a `|`-delimited table row.
fn next_to_pipe(text: &str, i: usize) -> bool {
    let before = text[..i].trim_end_matches([' ', '\t']);
    let after = text[i + 1..].trim_start_matches([' ', '\t']);
    before.ends_with('|') || after.starts_with('|')
}

fn word_at(text: &str, k: usize) -> &str {
    let end = text[k..]
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '\'' | '’' | '-')))
        .map_or(text.len(), |(i, _)| k + i);
    &text[k..end]
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
