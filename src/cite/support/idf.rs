//! Inverse document frequency: how much finding a word tells about support.
//!
//! A claim's rare words ("Tozzer", "zooxanthellae") carry its facts; its common words
//! ("year", "new") are matched by almost any page. Weighting coverage by IDF makes a page
//! that misses the rare words score low even when it shares most of the common ones.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::text::words::{Token, tokenize};

/// Document frequencies of word stems over a corpus.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Idf {
    df: HashMap<String, u32>,
    docs: u32,
}

impl Idf {
    /// Counts, for every content-word stem, how many of `documents` contain it.
    pub fn from_documents<I, S>(documents: I) -> Idf
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut idf = Idf::default();
        for doc in documents {
            idf.add_document(doc.as_ref());
        }
        idf
    }

    /// Adds one document to the counts.
    pub(crate) fn add_document(&mut self, text: &str) {
        let stems: HashSet<String> = tokenize(text)
            .into_iter()
            .filter(Token::is_content)
            .map(|t| t.stem)
            .collect();
        for s in stems {
            *self.df.entry(s).or_insert(0) += 1;
        }
        self.docs += 1;
    }

    /// Number of documents counted.
    pub(crate) fn documents(&self) -> u32 {
        self.docs
    }

    /// BM25's IDF, `ln(1 + (N − df + ½) / (df + ½))`: positive for every word, largest for
    /// words the corpus never saw.
    pub(crate) fn weight(&self, stem: &str) -> f64 {
        let n = f64::from(self.docs);
        let df = f64::from(self.df.get(stem).copied().unwrap_or(0));
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_words_weigh_more() {
        let idf = Idf::from_documents([
            "The library opened in Boston.",
            "The library closed.",
            "The museum holds volumes.",
        ]);
        assert_eq!(idf.documents(), 3);
        assert!(idf.weight("boston") > idf.weight("librari"));
        assert!(idf.weight("unseen") > idf.weight("boston"));
        assert!(idf.weight("librari") > 0.0);
    }
}
