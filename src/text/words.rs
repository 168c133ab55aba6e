//! Words for lexical matching: folded, stemmed content words plus the cues the citation
//! scorer needs (capitalisation, negation, hedging). The frontier planner matches a
//! question's words against column labels with the same stems.
//!
//! Matching a claim against a web page must not depend on accents, case, inflection or
//! function words ("married" vs "marry", "Café" vs "cafe"); it must depend on negation and
//! hedging, which is why those are kept as separate signals instead of being dropped as
//! stopwords.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// A word of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// Lowercased, accents removed.
    pub folded: String,
    /// Snowball (Porter2) stem of `folded`.
    pub stem: String,
    /// Starts with an uppercase letter in the original text.
    pub capitalized: bool,
    /// First word of the text or of a sentence within it, where capitals mean nothing.
    pub sentence_initial: bool,
    /// All digits (numbers are compared by value in `numbers`, not as words).
    pub numeric: bool,
}

impl Token {
    /// Carries meaning for overlap: not a stopword, not a bare number, not a single letter,
    /// not a negation (negation is compared separately, by what it governs).
    pub(crate) fn is_content(&self) -> bool {
        !self.numeric
            && self.folded.chars().count() > 1
            && !is_stopword(&self.folded)
            && !is_negation(&self.folded)
    }
}

/// Lowercases and strips diacritics (NFKD, combining marks dropped), so "Zürich" and
/// "Zurich" compare equal.
pub fn fold(word: &str) -> String {
    word.nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

pub fn stem(folded: &str) -> String {
    match month_abbreviation(folded) {
        Some(full) => STEMMER.stem(full).into_owned(),
        None => STEMMER.stem(folded).into_owned(),
    }
}

/// The month an abbreviation names ("Nov" → "november"), so that a source's "Nov 10,
/// 2018" states the claim's "November". "Jan", "Mar" and "May" are left alone: each is
/// also a common word or name.
fn month_abbreviation(folded: &str) -> Option<&'static str> {
    Some(match folded {
        "feb" => "february",
        "apr" => "april",
        "jun" => "june",
        "jul" => "july",
        "aug" => "august",
        "sep" | "sept" => "september",
        "oct" => "october",
        "nov" => "november",
        "dec" => "december",
        _ => return None,
    })
}

/// Splits text into word tokens. Apostrophes inside words are kept together ("o'neill");
/// the contraction "n't" becomes a separate "not" so negation is visible.
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut sentence_start = true;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>, sentence_start: &mut bool| {
        if word.is_empty() {
            return;
        }
        let raw = std::mem::take(word);
        let raw = raw.trim_matches(['\'', '’']);
        let (base, negated) = match raw.strip_suffix("n't").or_else(|| raw.strip_suffix("n’t")) {
            Some(b) => (b, true),
            None => (raw, false),
        };
        if !base.is_empty() {
            push_token(base, out, *sentence_start);
            *sentence_start = false;
        }
        if negated {
            push_token("not", out, false);
        }
    };
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let joins = matches!(c, '\'' | '’')
            && !word.is_empty()
            && chars.peek().is_some_and(|n| n.is_alphanumeric());
        if c.is_alphanumeric() || is_combining_mark(c) || joins {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out, &mut sentence_start);
        if matches!(c, '.' | '!' | '?' | ':' | ';' | '"' | '“' | '(' | '\n') {
            sentence_start = true;
        }
    }
    flush(&mut word, &mut out, &mut sentence_start);
    out
}

fn push_token(raw: &str, out: &mut Vec<Token>, sentence_initial: bool) {
    let folded = fold(raw);
    // Possessive "'s" carries no meaning for matching.
    let folded = folded
        .strip_suffix("'s")
        .or_else(|| folded.strip_suffix("’s"))
        .map(str::to_string)
        .unwrap_or(folded);
    let numeric = folded.chars().all(|c| c.is_ascii_digit());
    out.push(Token {
        stem: if numeric {
            folded.clone()
        } else {
            stem(&folded)
        },
        capitalized: raw.chars().next().is_some_and(char::is_uppercase),
        sentence_initial,
        numeric,
        folded,
    });
}

/// English function words: they say nothing about which facts a sentence states.
pub(crate) fn is_stopword(w: &str) -> bool {
    const STOP: &[&str] = &[
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "also",
        "however",
        "may",
        "might",
        "one",
        "upon",
        "via",
        "within",
        "among",
        "amongst",
        "including",
        "include",
        "includes",
        "well",
        "would",
        "shall",
        "must",
        "yet",
        "per",
        "etc",
        "ie",
        "eg",
        "mr",
        "mrs",
        "ms",
        "dr",
    ];
    STOP.contains(&w)
}

/// Words that deny what the sentence states.
pub(crate) fn is_negation(folded: &str) -> bool {
    matches!(
        folded,
        "not"
            | "no"
            | "never"
            | "none"
            | "nobody"
            | "nothing"
            | "neither"
            | "nor"
            | "without"
            | "cannot"
            | "nowhere"
            | "denied"
            | "denies"
            | "deny"
            | "false"
            | "refuted"
    )
}

/// Words and phrases by which a source limits its own certainty; a claim that repeats the
/// fact without them overstates the source.
pub fn hedges(text: &str) -> Vec<&'static str> {
    const SINGLE: &[&str] = &[
        "may",
        "might",
        "could",
        "possibly",
        "possible",
        "perhaps",
        "likely",
        "unlikely",
        "probably",
        "reportedly",
        "allegedly",
        "suggests",
        "suggest",
        "suggested",
        "preliminary",
        "appears",
        "appear",
        "apparently",
        "seemingly",
        "seems",
        "potentially",
        "potential",
        "estimated",
        "speculated",
        "rumored",
        "rumoured",
        "unconfirmed",
        "tentative",
        "tentatively",
        "presumably",
        "purportedly",
        "supposedly",
        "approximately",
        "roughly",
        "believed",
        "claimed",
        "indicates",
        "hypothesized",
        "uncertain",
    ];
    const PHRASES: &[&str] = &[
        "in some cases",
        "in certain cases",
        "to some extent",
        "it is thought",
        "it is believed",
        "is thought to",
        "are thought to",
        "is believed to",
        "are believed to",
        "according to some",
        "some evidence",
        "has been linked",
        "have been linked",
        "is associated with",
        "are associated with",
    ];
    let words: Vec<String> = tokenize(text).into_iter().map(|t| t.folded).collect();
    let joined = format!(" {} ", words.join(" "));
    let mut out: Vec<&'static str> = SINGLE
        .iter()
        .filter(|h| words.iter().any(|w| w == *h))
        .copied()
        .collect();
    out.extend(
        PHRASES
            .iter()
            .filter(|p| joined.contains(&format!(" {p} "))),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(text: &str) -> Vec<String> {
        tokenize(text)
            .into_iter()
            .filter(Token::is_content)
            .map(|t| t.stem)
            .collect()
    }

    #[test]
    fn folding_and_stemming() {
        assert_eq!(fold("Zürich"), "zurich");
        assert_eq!(fold("ÉCOLE"), "ecole");
        assert_eq!(
            stems("The couple married in Zürich"),
            ["coupl", "marri", "zurich"]
        );
        assert_eq!(stems("marrying"), stems("married"));
        // A source's "Nov 10" and "Sept. 13" name the claim's months.
        assert_eq!(stems("Nov Sept"), stems("November September"));
        assert_eq!(stems("Jan"), ["jan"]);
    }

    #[test]
    fn contractions_and_possessives() {
        let t: Vec<String> = tokenize("Aoki's film didn't win")
            .into_iter()
            .map(|t| t.folded)
            .collect();
        assert_eq!(t, ["aoki", "film", "did", "not", "win"]);
        let t: Vec<String> = tokenize("O'Neill said")
            .into_iter()
            .map(|t| t.folded)
            .collect();
        assert_eq!(t, ["o'neill", "said"]);
    }

    #[test]
    fn capitalisation_and_sentence_starts() {
        let t = tokenize("The band toured Japan. Then it split.");
        let caps: Vec<(&str, bool, bool)> = t
            .iter()
            .map(|t| (t.folded.as_str(), t.capitalized, t.sentence_initial))
            .collect();
        assert_eq!(caps[0], ("the", true, true));
        assert_eq!(caps[3], ("japan", true, false));
        assert_eq!(caps[4], ("then", true, true));
    }

    #[test]
    fn hedge_detection() {
        assert_eq!(
            hedges("The drug may reduce risk in some cases."),
            ["may", "in some cases"]
        );
        assert!(hedges("The drug reduces risk.").is_empty());
    }
}
