//! The text index's analyzer: tantivy's `default` analysis (split on non-alphanumeric
//! characters, drop tokens of 40 bytes or more, lower-case) done in one pass.
//!
//! Tantivy chains three token streams for it, each touching every token again: the
//! splitter decodes every character, the length filter re-reads the token, and the
//! lower-caser checks it for ASCII before lower-casing it in place. Over a wiki's text
//! the chain was 6–9 % of a text build. This one classifies ASCII bytes with a table,
//! decodes only non-ASCII characters and lower-cases while copying.
//!
//! The tokens are the same, character for character, with the same offsets and
//! positions (a test compares it with tantivy's chain on real pages), so it is registered
//! under tantivy's own name, `default`: an index stays searchable by stock tantivy.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The analyzer's name in the index schema and tokenizer manager.
pub const NAME: &str = "default";

/// Tokens of this many bytes or more are dropped (tantivy's `RemoveLongFilter::limit(40)`
/// in its `default` analyzer): they are hashes, URLs and base64, not words.
const MAX_LEN: usize = 40;

/// ASCII letters and digits: what `char::is_alphanumeric` accepts below 0x80.
const ALNUM: [bool; 128] = {
    let mut t = [false; 128];
    let mut c = 0;
    while c < 128 {
        t[c] = (c as u8).is_ascii_alphanumeric();
        c += 1;
    }
    t
};

/// Splits, length-filters and lower-cases in one pass; see the module documentation.
#[derive(Clone, Default)]
pub struct WordTokenizer {
    token: Token,
}

impl Tokenizer for WordTokenizer {
    type TokenStream<'a> = WordStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream {
            text,
            pos: 0,
            token: &mut self.token,
        }
    }
}

pub struct WordStream<'a> {
    text: &'a str,
    pos: usize,
    token: &'a mut Token,
}

impl WordStream<'_> {
    /// Whether the character at `i` belongs to a word, and its length. ASCII is looked
    /// up; other characters are decoded out of line.
    #[inline(always)]
    fn is_word_char(&self, i: usize) -> (bool, usize) {
        let b = self.text.as_bytes()[i];
        if b < 0x80 {
            (ALNUM[b as usize], 1)
        } else {
            non_ascii_word_char(&self.text[i..])
        }
    }
}

/// [`WordStream::is_word_char`] for a character that is not ASCII, at the start of `s`.
#[inline(never)]
fn non_ascii_word_char(s: &str) -> (bool, usize) {
    let c = s.chars().next().expect("on a char boundary");
    (c.is_alphanumeric(), c.len_utf8())
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        let len = self.text.len();
        loop {
            let mut i = self.pos;
            // The next word's start.
            loop {
                if i >= len {
                    self.pos = len;
                    self.token.text.clear();
                    return false;
                }
                let (word, n) = self.is_word_char(i);
                if word {
                    break;
                }
                i += n;
            }
            let start = i;
            let mut ascii = true;
            while i < len {
                let (word, n) = self.is_word_char(i);
                if !word {
                    break;
                }
                ascii &= n == 1;
                i += n;
            }
            self.pos = i;
            // Every word takes a position, also the ones dropped for length (as in the
            // chain, where the splitter numbers tokens before the filter drops them).
            self.token.position = self.token.position.wrapping_add(1);
            if i - start >= MAX_LEN {
                continue;
            }
            let word = &self.text[start..i];
            let text = &mut self.token.text;
            text.clear();
            if ascii {
                text.push_str(word);
                text.make_ascii_lowercase();
            } else {
                // Per character, without the final-sigma rule, like tantivy's LowerCaser.
                for c in word.chars() {
                    text.extend(c.to_lowercase());
                }
            }
            self.token.offset_from = start;
            self.token.offset_to = i;
            return true;
        }
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::{TextAnalyzer, TokenizerManager};

    fn tokens(mut analyzer: TextAnalyzer, text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
        }
        out
    }

    #[test]
    fn same_tokens_as_tantivys_default_chain() {
        let stock = TokenizerManager::default()
            .get("default")
            .expect("built in");
        let cases = [
            "",
            "   ",
            "Hello, happy tax payer!",
            "The Danube (German: Donau) is 2,850 km long; it flows into the Black Sea.",
            "İstanbul ΣΟΦΟΣ straße ǅemal Ⅻ ½ ١٢٣ 多瑙河 e\u{301} 🌊x",
            // A token of 39 and one of 40 bytes (dropped), then a word after it.
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb c",
            // 40 bytes of non-ASCII (20 × 'é'): dropped by byte length, not characters.
            "éééééééééééééééééééé ok",
            "trailing-word",
            "MiXeD123CaSe_under_score",
        ];
        for c in cases {
            let ours = TextAnalyzer::from(WordTokenizer::default());
            assert_eq!(tokens(ours, c), tokens(stock.clone(), c), "{c:?}");
        }
        // Every line of the handwritten rivers wiki, markup, entities and all.
        let wiki = include_str!("../../tests/data/rivers/rivers-wiki.xml");
        for line in wiki.lines().chain([wiki]) {
            let ours = TextAnalyzer::from(WordTokenizer::default());
            assert_eq!(tokens(ours, line), tokens(stock.clone(), line));
        }
    }
}
