//! Finding a quoted passage among a page's sentences: the one rule that the locator
//! grammar's `quote:` and the citation checker's text fragments (`#:~:text=start,end`)
//! share, so that a quote found by one is found by the other.
//!
//! Matching is on folded text ([`super::fold_quote`]: case, whitespace, typographic
//! quotes and dashes), so a passage copied from a browser matches the dump. A passage
//! may cross sentence boundaries within a section, as copied passages do; it never
//! crosses into another section.

use std::ops::Range;

use super::{PageText, fold_quote};

/// How many sentences after the one holding the start an end may be found in: a text
/// fragment names a passage, not a chapter.
const MAX_RUN: usize = 20;

/// The sentences, as (section, sentence) pairs in document order, that the passage
/// starting with `start` (and, when given, ending with `end`) covers: the first place it
/// occurs in the sections `within` (every section when `None`), `None` when it occurs
/// nowhere. An empty `start` is found nowhere.
pub(crate) fn find(
    text: &PageText,
    start: &str,
    end: Option<&str>,
    within: Option<Range<u32>>,
) -> Option<Vec<(u32, usize)>> {
    let start = fold_quote(start);
    let end = end.map(fold_quote).filter(|e| !e.is_empty());
    if start.is_empty() {
        return None;
    }
    for (s, section) in text.sections.iter().enumerate() {
        let s = s as u32;
        if within.as_ref().is_some_and(|r| !r.contains(&s)) {
            continue;
        }
        // The section's folded sentences joined by spaces, and where each one starts.
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(section.sentences.len());
        for sentence in &section.sentences {
            if !joined.is_empty() {
                joined.push(' ');
            }
            starts.push(joined.len());
            joined.push_str(&fold_quote(&sentence.text));
        }
        let sentence_at = |at: usize| starts.partition_point(|&x| x <= at).saturating_sub(1);
        for (at, _) in joined.match_indices(start.as_str()) {
            let first = sentence_at(at);
            let last = match &end {
                None => sentence_at(at + start.len() - 1),
                Some(end) => {
                    let after = at + start.len();
                    let limit = starts
                        .get(first + MAX_RUN + 1)
                        .copied()
                        .unwrap_or(joined.len());
                    match joined
                        .get(after..limit)
                        .and_then(|rest| rest.find(end.as_str()))
                    {
                        Some(k) => sentence_at(after + k + end.len() - 1),
                        None => continue,
                    }
                }
            };
            return Some((first..=last).map(|i| (s, i)).collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(sections: &[&[&str]]) -> PageText {
        crate::text::prose_page(sections)
    }

    #[test]
    fn a_passage_is_found_within_and_across_sentences_of_one_section() {
        let p = page(&[
            &["The lead."],
            &[
                "The Ural rises in the south.",
                "It flows “south–west”.",
                "Then east.",
            ],
            &["Another section."],
        ]);
        assert_eq!(find(&p, "RISES in the", None, None), Some(vec![(1, 0)]));
        assert_eq!(find(&p, "south-west", None, None), Some(vec![(1, 1)]));
        // Across a sentence boundary, never across sections.
        assert_eq!(
            find(&p, "the south. it flows", None, None),
            Some(vec![(1, 0), (1, 1)])
        );
        assert_eq!(find(&p, "then east. another", None, None), None);
        // Start and end: the sentences from one to the other.
        assert_eq!(
            find(&p, "the ural", Some("then east"), None),
            Some(vec![(1, 0), (1, 1), (1, 2)])
        );
        assert_eq!(
            find(&p, "the ural", Some("rises"), None),
            Some(vec![(1, 0)])
        );
        assert_eq!(find(&p, "then east", Some("the ural"), None), None);
        // Scope.
        assert_eq!(find(&p, "rises", None, Some(2..3)), None);
        assert_eq!(find(&p, "rises", None, Some(1..3)), Some(vec![(1, 0)]));
        assert_eq!(find(&p, "  ", None, None), None);
    }

    #[test]
    fn the_end_is_looked_for_after_each_occurrence_of_the_start() {
        let p = page(&[&["A cat sat.", "A cat ran home."]]);
        assert_eq!(
            find(&p, "a cat", Some("home"), None),
            Some(vec![(0, 0), (0, 1)])
        );
        assert_eq!(
            find(&p, "a cat", Some("ran"), None),
            Some(vec![(0, 0), (0, 1)])
        );
        assert_eq!(find(&p, "cat ran", Some("home"), None), Some(vec![(0, 1)]));
    }
}
