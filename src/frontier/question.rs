//! What a question says about a table's columns.
//!
//! A question over a table names columns by their labels ("what town was the
//! **manager** born in", "the team with the least **capacity**"). The first column it
//! names is usually what it asks about: its page holds the answer, where the row's
//! other pages only identify the row.

use serde::Serialize;

use super::rows::RowRead;
use crate::text::quantities::{QuantityKind, extract};
use crate::text::words::{Token, fold, tokenize};

/// A column the question names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NamedColumn {
    pub col: usize,
    pub label: String,
    /// The question's words (stems) found in the label.
    pub words: Vec<String>,
}

impl NamedColumn {
    /// Whether the question names this column in a row whose cell reads `cell`: a word
    /// that is also the cell's value ("Cyblys nūvods" under "Nūvods") describes the
    /// row, not the column.
    pub(crate) fn named_in(&self, cell: &str) -> bool {
        let value: Vec<String> = content(cell).map(|t| t.stem).collect();
        self.words.iter().any(|w| !value.contains(w))
    }
}

/// Columns of a table the question names, in the order it first names them.
///
/// A label names a column when one of its content words (stemmed, accents folded) occurs
/// in the question. Words of the seed's title are left out on both sides: every column
/// of "2017 PBA draft" is about the draft, so "PBA" names none of them.
pub(crate) fn named_columns(
    query: &str,
    labels: &[Option<String>],
    seed_title: &str,
) -> Vec<NamedColumn> {
    let seed: Vec<String> = content(seed_title).map(|t| t.stem).collect();
    let words: Vec<String> = content(query)
        .map(|t| t.stem)
        .filter(|s| !seed.contains(s))
        .collect();
    let mut named: Vec<(usize, NamedColumn)> = labels
        .iter()
        .enumerate()
        .filter_map(|(col, label)| {
            let label = label.as_deref()?;
            let mut shared: Vec<(usize, String)> = content(label)
                .filter(|t| !seed.contains(&t.stem))
                .filter_map(|t| Some((words.iter().position(|w| *w == t.stem)?, t.stem)))
                .collect();
            shared.sort();
            shared.dedup();
            let first = shared.first()?.0;
            Some((
                first,
                NamedColumn {
                    col,
                    label: label.to_string(),
                    words: shared.into_iter().map(|(_, w)| w).collect(),
                },
            ))
        })
        .collect();
    named.sort_by_key(|(first, n)| (*first, n.col));
    named.into_iter().map(|(_, n)| n).collect()
}

/// What the question's wh-phrase asks for: "what is the **capacity** of the mosque …",
/// "which **country** submitted …", "who is the **head coach** of …".
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AskedFor {
    /// The question word ("what", "which", "who", "how many", …).
    pub wh: String,
    /// A copula follows the question word ("who **is** the …").
    pub copula: bool,
    /// The content words that head the phrase, in order (at most [`HEAD`]).
    pub head: Vec<Token>,
    /// The phrase asks for the year of an event its verb names: "what **year did** the
    /// club win …", "in what **year was** it founded".
    pub year_of_event: bool,
}

impl AskedFor {
    /// Whether the phrase asks for a thing the head noun names: "what X", "which X",
    /// "who is the X". "When", "where", "how" ask for a time, place or manner (the
    /// words after them describe the row, not what is asked), "who" before a verb asks
    /// for whoever did something the row's pages tell, and "how many X" asks for a
    /// count that a table cell rarely is.
    ///
    /// A year followed by an auxiliary verb ("what year did … win", "in which year was
    /// … founded") asks, like "when", for the time of something the subject did: its
    /// page tells it. A table's year column dates the row itself, which the question
    /// already uses to pick the row; asked for directly ("what is the year of …",
    /// "graduated in which year"), it is the answer.
    pub(crate) fn names_a_thing(&self) -> bool {
        match self.wh.as_str() {
            "what" | "which" => !self.year_of_event,
            "who" | "whom" => self.copula,
            _ => false,
        }
    }
}

/// The content words read as the head of a wh-phrase: enough for "postcode district",
/// few enough that the rest of the question (which describes the row) stays out.
const HEAD: usize = 3;

/// Stems of the words that ask for a year.
const YEAR_WORDS: [&str; 3] = ["year", "decad", "centuri"];

/// Auxiliary verbs that, right after a wh-phrase, start the question's own clause.
const AUXILIARIES: [&str; 9] = [
    "did", "does", "do", "was", "were", "is", "are", "has", "had",
];

/// Where the question's first question word (what, which, who, …) is.
fn first_question_word(tokens: &[Token]) -> Option<usize> {
    tokens.iter().position(|t| {
        matches!(
            t.folded.as_str(),
            "what" | "which" | "who" | "whom" | "whose" | "when" | "where" | "how"
        )
    })
}

/// The wh-phrase of the question: its first question word, then — past a copula, an
/// article, numbers and words of the seed's title ("which **2013 Los Angeles Galaxy**
/// player") — the content words that follow, up to the first function word ("of",
/// "in", "that", …). `None` when the question has no question word.
pub(crate) fn asked_for(query: &str, seed_title: &str) -> Option<AskedFor> {
    let seed: Vec<String> = content(seed_title).map(|t| t.stem).collect();
    let tokens = tokenize(query);
    let i = first_question_word(&tokens)?;
    let mut wh = tokens[i].folded.clone();
    let mut j = i + 1;
    if wh == "how"
        && tokens
            .get(j)
            .is_some_and(|t| t.folded == "many" || t.folded == "much")
    {
        wh = format!("how {}", tokens[j].folded);
        j += 1;
    }
    let mut copula = false;
    while let Some(t) = tokens.get(j) {
        match t.folded.as_str() {
            "is" | "was" | "are" | "were" => copula = true,
            "the" | "a" | "an" => {}
            _ if t.numeric || seed.contains(&t.stem) => {}
            _ => break,
        }
        j += 1;
    }
    let head: Vec<Token> = tokens[j..]
        .iter()
        .take_while(|t| t.is_content())
        .take(HEAD)
        .cloned()
        .collect();
    let year_of_event = matches!(&head[..], [h] if YEAR_WORDS.contains(&h.stem.as_str()))
        && tokens
            .get(j + 1)
            .is_some_and(|t| AUXILIARIES.contains(&t.folded.as_str()));
    Some(AskedFor {
        wh,
        copula,
        head,
        year_of_event,
    })
}

/// Words that compare the rows' entities by age.
const AGE_WORDS: [&str; 5] = ["oldest", "youngest", "eldest", "older", "younger"];

/// Words that, after "born", put the rows' entities in order of birth.
const BIRTH_ORDER: [&str; 8] = [
    "first", "second", "third", "last", "earliest", "earlier", "latest", "later",
];

/// Whether the question asks which of its rows is the oldest or youngest ("which one
/// **is older**", "who **is the youngest** …", "which printmaker … **was born first**"):
/// its predicate compares the rows' entities by age, so what it asks for is the entity
/// itself, which the row's key cell names. Only a comparison that the question word
/// is the subject of counts: after a copula ("is the oldest") or "born" ("born
/// second"), not inside a clause about something else ("attended the 4th-oldest
/// university"), and only after "which" or "who" ("what is the nationality of the
/// oldest …" asks for something of the row, not the row). Returns the words that
/// compare.
pub(crate) fn asks_which_row(query: &str) -> Option<String> {
    let tokens = tokenize(query);
    let i = first_question_word(&tokens)?;
    if !matches!(tokens[i].folded.as_str(), "which" | "who" | "whom") {
        return None;
    }
    let words = |j: usize, k: usize| -> String {
        tokens[j..=k]
            .iter()
            .map(|t| t.folded.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    (i + 1..tokens.len()).find_map(|j| {
        let next = |k: usize| tokens.get(k).map(|t| t.folded.as_str());
        match tokens[j].folded.as_str() {
            "is" | "was" | "are" | "were" | "be" => {
                let k = if next(j + 1) == Some("the") {
                    j + 2
                } else {
                    j + 1
                };
                next(k)
                    .filter(|w| AGE_WORDS.contains(w))
                    .map(|_| words(j, k))
            }
            "born" => next(j + 1)
                .filter(|w| BIRTH_ORDER.contains(w))
                .map(|_| words(j, j + 1)),
            _ => None,
        }
    })
}

/// The column the question asks for, when its wh-phrase names one: the first label
/// sharing a word (stem) with the phrase's head ("capacity" names "Capacity";
/// "postcode district" names "Postcode district ( s )"). Words of the seed's title name
/// no column (see [`named_columns`]).
pub(crate) fn asked_column(
    asked: &AskedFor,
    labels: &[Option<String>],
    seed_title: &str,
) -> Option<NamedColumn> {
    let seed: Vec<String> = content(seed_title).map(|t| t.stem).collect();
    let head: Vec<&str> = asked
        .head
        .iter()
        .map(|t| t.stem.as_str())
        .filter(|s| !seed.iter().any(|x| x == s))
        .collect();
    labels.iter().enumerate().find_map(|(col, label)| {
        let label = label.as_deref()?;
        let words: Vec<String> = content(label)
            .map(|t| t.stem)
            .filter(|s| head.contains(&s.as_str()))
            .collect();
        (!words.is_empty()).then(|| NamedColumn {
            col,
            label: label.to_string(),
            words,
        })
    })
}

/// Whether the question names the page titled `title` as where it starts from: the
/// title's words, without a trailing disambiguator ("Ural (river)" is "Ural"), occur in
/// the question in order and next to each other, at least one of them a content word,
/// and not as an owner ("Drew Butera's height" asks about Drew Butera's own page).
pub(crate) fn names_title(query: &str, title: &str) -> bool {
    let base = match title.rsplit_once(" (") {
        Some((b, rest)) if rest.ends_with(')') => b,
        _ => title,
    };
    let t: Vec<Token> = tokenize(base);
    if !t.iter().any(Token::is_content) {
        return false;
    }
    let q: Vec<String> = tokenize(query).into_iter().map(|t| t.folded).collect();
    let named = q
        .windows(t.len())
        .any(|w| w.iter().zip(&t).all(|(a, b)| *a == b.folded));
    let possessive = ["'s", " 's", "’s", " ’s"]
        .iter()
        .any(|s| fold(query).contains(&format!("{}{s}", fold(base))));
    named && !possessive
}

/// A superlative over a table's rows: "the team with the **least capacity**".
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Superlative {
    /// The table (1-based on the seed).
    pub table: usize,
    /// The question's words that ask for it ("least capacity").
    pub words: String,
    /// The column ranked (0-based) and its label.
    pub col: usize,
    pub label: String,
    /// Largest value wanted (else smallest).
    pub max: bool,
    /// Data rows (0-based) holding the extreme value (or, after an ordinal, the
    /// second, third … distinct value from the extreme); several on a tie.
    pub rows: Vec<usize>,
    /// The value as the cell writes it.
    pub value: String,
}

/// How a superlative word ranks: by the column it is followed by, or by time.
#[derive(Clone, Copy)]
enum Ranks {
    /// "most", "least", "highest", …: the value of the column the next words name.
    Named { max: bool },
    /// "earliest", "latest", "most recent": a named column, else the year or date column.
    Time { max: bool },
    /// "oldest", "youngest": a birth date (oldest = earliest) or an age (oldest = largest).
    Age { oldest: bool },
}

fn ranks(word: &str, next: Option<&str>) -> Option<Ranks> {
    Some(match word {
        "most" if next.is_some_and(|n| n == "recent" || n == "recently") => {
            Ranks::Time { max: true }
        }
        "most" | "highest" | "largest" | "biggest" | "greatest" | "longest" | "last" => {
            Ranks::Named { max: true }
        }
        "least" | "lowest" | "smallest" | "fewest" | "shortest" | "first" => {
            Ranks::Named { max: false }
        }
        "latest" | "newest" => Ranks::Time { max: true },
        "earliest" => Ranks::Time { max: false },
        "oldest" => Ranks::Age { oldest: true },
        "youngest" => Ranks::Age { oldest: false },
        _ => return None,
    })
}

/// The rank an ordinal asks for before a superlative ("the **second** highest", "the
/// **3rd** most").
fn ordinal(word: &str) -> Option<usize> {
    Some(match word {
        "second" | "2nd" => 2,
        "third" | "3rd" => 3,
        "fourth" | "4th" => 4,
        "fifth" | "5th" => 5,
        _ => return None,
    })
}

/// The words after a superlative that can name what it ranks by: the content words
/// right after it, up to four ("the most Belgian Grand Prix **wins**").
const WINDOW: usize = 4;

/// The superlative the question asks over `rows`, if it names a column whose values can
/// be ranked. A label that itself holds the superlative word ("Lowest score") means the
/// table has already ranked, and the question names that column rather than asking for
/// an extreme row.
pub(crate) fn superlative(
    query: &str,
    table: usize,
    labels: &[Option<String>],
    rows: &[RowRead],
) -> Option<Superlative> {
    let label_stems: Vec<Vec<String>> = labels
        .iter()
        .map(|l| {
            content(l.as_deref().unwrap_or(""))
                .map(|t| t.stem)
                .collect()
        })
        .collect();
    let label_words: Vec<String> = labels
        .iter()
        .flat_map(|l| tokenize(l.as_deref().unwrap_or("")))
        .map(|t| t.folded)
        .collect();
    let tokens = tokenize(query);
    for (i, t) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|t| t.folded.as_str());
        let Some(how) = ranks(&t.folded, next) else {
            continue;
        };
        if label_words.contains(&t.folded) {
            continue;
        }
        let skip = usize::from(matches!(how, Ranks::Time { .. }) && t.folded == "most");
        let window: Vec<&Token> = tokens[i + 1 + skip..]
            .iter()
            .take_while(|t| t.is_content())
            .take(WINDOW)
            .collect();
        // The label sharing most words with the phrase ("most top division titles" is
        // "Top division titles", not "First season in top division"), among labels
        // whose cells can be ranked.
        let named = (0..labels.len())
            .filter_map(|c| {
                let shared: Vec<&&Token> = window
                    .iter()
                    .filter(|w| label_stems[c].contains(&w.stem))
                    .collect();
                Some((shared.len(), c, shared.first()?.folded.as_str()))
            })
            .filter(|(n, _, _)| *n > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
            .and_then(|(_, c, w)| ranked(rows, c).map(|v| (c, v, Some(w))));
        let fallback = |wanted: &[&str]| {
            (0..labels.len())
                .filter(|&c| label_stems[c].iter().any(|s| wanted.contains(&s.as_str())))
                .find_map(|c| ranked(rows, c).map(|v| (c, v, None)))
        };
        let ((col, values, by), max) = match how {
            Ranks::Named { max } => match named {
                Some(n) => (n, max),
                None => continue,
            },
            Ranks::Time { max } => match named.or_else(|| fallback(&["year", "date", "season"])) {
                Some(n) => (n, max),
                None => continue,
            },
            Ranks::Age { oldest } => {
                if let Some(n) = fallback(&["birth", "born", "dob"]) {
                    (n, !oldest)
                } else if let Some(n) = fallback(&["age"]) {
                    (n, oldest)
                } else {
                    continue;
                }
            }
        };
        // "The second highest": the rank-th distinct value from the extreme.
        let rank = i
            .checked_sub(1)
            .and_then(|p| ordinal(&tokens[p].folded))
            .unwrap_or(1);
        let mut distinct: Vec<f64> = values.iter().map(|(_, v)| *v).collect();
        distinct.sort_by(|a, b| if max { b.total_cmp(a) } else { a.total_cmp(b) });
        distinct.dedup();
        let Some(&best) = distinct.get(rank - 1) else {
            continue;
        };
        let winners: Vec<usize> = values
            .iter()
            .filter(|(_, v)| *v == best)
            .map(|(r, _)| *r)
            .collect();
        // A tie across much of the table singles out nothing.
        if winners.len() > 1 && winners.len() * 4 > values.len() {
            continue;
        }
        let value = rows
            .iter()
            .find(|r| r.row == winners[0])
            .and_then(|r| r.cells.iter().find(|c| c.col == col))
            .map(|c| c.text.clone())
            .unwrap_or_default();
        let mut words = t.folded.clone();
        if rank > 1 {
            words = format!("{} {words}", tokens[i - 1].folded);
        }
        if matches!(how, Ranks::Time { .. }) && t.folded == "most" {
            words = format!("most {}", next.unwrap_or_default());
        }
        if let Some(w) = by {
            words = format!("{words} … {w}");
        }
        return Some(Superlative {
            table,
            words,
            col,
            label: labels[col].clone().unwrap_or_default(),
            max,
            rows: winners,
            value,
        });
    }
    None
}

/// Each data row's value in column `col`, when at least two rows and half of the
/// column's non-empty cells have one.
fn ranked(rows: &[RowRead], col: usize) -> Option<Vec<(usize, f64)>> {
    let cells: Vec<(usize, &str)> = rows
        .iter()
        .filter_map(|r| {
            r.cells
                .iter()
                .find(|c| c.col == col)
                .map(|c| (r.row, c.text.as_str()))
        })
        .filter(|(_, t)| !t.trim().is_empty())
        .collect();
    let values: Vec<(usize, f64)> = cells
        .iter()
        .filter_map(|(r, t)| cell_value(t).map(|v| (*r, v)))
        .collect();
    (values.len() >= 2 && values.len() * 2 >= cells.len()).then_some(values)
}

/// A cell's value for ranking: a date as year·10⁴ + month·10² + day, else its first
/// number ("15,792.00 ha ( 39,022.9 acres )" is 15 792).
fn cell_value(text: &str) -> Option<f64> {
    let q = extract(text);
    let first = |k: QuantityKind| q.iter().find(|x| x.kind == k).map(|x| x.value);
    match first(QuantityKind::Year) {
        Some(y) => {
            let m = first(QuantityKind::Month).unwrap_or(0.0);
            let d = q
                .iter()
                .find(|x| x.kind == QuantityKind::Number && (1.0..=31.0).contains(&x.value))
                .filter(|_| m > 0.0)
                .map_or(0.0, |x| x.value);
            Some(y * 1e4 + m * 1e2 + d)
        }
        None => q
            .iter()
            .find(|x| matches!(x.kind, QuantityKind::Number | QuantityKind::Percent))
            .map(|x| x.value),
    }
}

fn content(text: &str) -> impl Iterator<Item = Token> {
    tokenize(text).into_iter().filter(Token::is_content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(n: Vec<NamedColumn>) -> Vec<usize> {
        n.into_iter().map(|n| n.col).collect()
    }

    fn labels(l: &[&str]) -> Vec<Option<String>> {
        l.iter().map(|s| Some(s.to_string())).collect()
    }

    #[test]
    fn first_named_column_comes_first() {
        // Real question and labels: OTT-QA dev, "2019 Campeonato Mineiro" table 1.
        let l = labels(&["Team", "Home city", "Manager", "2018 result"]);
        let q = "What town was the manager born in whose 2019 Campeonato Mineiro club is nicknamed Raposa ?";
        assert_eq!(
            cols(named_columns(q, &l, "2019 Campeonato Mineiro")),
            vec![2]
        );
        // "George Augustus Vaughn Jr." victories: location is named before opponent.
        let l = labels(&["Number", "Date", "Time", "Aircraft", "Opponent", "Location"]);
        let q = "What department is the location in where the opponent of George Augustus Vaughn Jr. was a double seater reconnaissance biplane in WW 1 ?";
        assert_eq!(
            cols(named_columns(q, &l, "George Augustus Vaughn Jr.")),
            vec![5, 4]
        );
    }

    /// Data rows as `read_rows` gives them, from cell texts.
    fn rows(labels: &[Option<String>], cells: &[&[&str]]) -> Vec<RowRead> {
        cells
            .iter()
            .enumerate()
            .map(|(row, cells)| RowRead {
                row,
                text: String::new(),
                cells: cells
                    .iter()
                    .enumerate()
                    .map(|(col, t)| super::super::rows::CellRead {
                        col,
                        label: labels[col].clone(),
                        text: t.to_string(),
                        links: Vec::new(),
                    })
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn superlative_ranks_the_named_column_by_value() {
        // "List of protected areas of the Philippines", natural parks (OTT-QA dev).
        let l = labels(&["Name", "Area", "Established", "Location"]);
        let r = rows(
            &l,
            &[
                &[
                    "Apo Reef",
                    "15,792.00 ha ( 39,022.9 acres )",
                    "1996",
                    "Occidental Mindoro",
                ],
                &[
                    "Bongsanglay",
                    "244.72 ha ( 604.7 acres )",
                    "2000",
                    "Masbate",
                ],
                &[
                    "Northern Sierra Madre",
                    "359,486.00 ha ( 888,309.3 acres )",
                    "1997",
                    "Isabela",
                ],
                &[
                    "Bicol",
                    "5,201.00 ha ( 12,852.0 acres )",
                    "2000",
                    "Camarines Norte",
                ],
            ],
        );
        let s = superlative(
            "What valley contains the Filipino natural park with the most area ?",
            1,
            &l,
            &r,
        )
        .unwrap();
        assert_eq!((s.col, s.max, s.rows.clone()), (1, true, vec![2]));
        assert_eq!(s.words, "most … area");
        let s = superlative("Which park has the smallest area?", 1, &l, &r).unwrap();
        assert_eq!((s.col, s.max, s.rows), (1, false, vec![1]));
        // An ordinal asks for the second, third … value from the extreme.
        let s = superlative("Which park has the second largest area?", 1, &l, &r).unwrap();
        assert_eq!(
            (s.rows.clone(), s.words.as_str()),
            (vec![0], "second largest … area")
        );
        let s = superlative("the park with the 3rd smallest area", 1, &l, &r).unwrap();
        assert_eq!(s.rows, vec![0]);
        assert_eq!(
            superlative("the fifth largest area", 1, &l, &r),
            None,
            "4 rows only"
        );
        // Time: a named column holding years.
        let s = superlative(
            "Which natural park was the earliest established?",
            1,
            &l,
            &r,
        )
        .unwrap();
        assert_eq!((s.col, s.rows), (2, vec![0]));
        // "first" must name a column: "Danish first division" names none.
        assert_eq!(
            superlative("Which park is in the first division ?", 1, &l, &r),
            None
        );
    }

    #[test]
    fn superlative_by_age_and_ties() {
        // 2014–15 LEN Champions League, Olympiacos squad.
        let l = labels(&["No", "Name", "Date of birth", "L/R"]);
        let r = rows(
            &l,
            &[
                &["1", "Nikolaos Deligiannis", "3 September 1976", "R"],
                &["2", "Konstantinos Galanidis", "1 September 1990", "R"],
                &["3", "Evangelos Delakas", "8 February 1985", "R"],
                &["4", "Ioannis Fountoulis", "25 May 1988", "R"],
                &["5", "Konstantinos Mourikis", "18 March 1988", "R"],
            ],
        );
        let q = "What place did the oldest player on Olympiacos take at the 2000 Summer Olympics ?";
        let s = superlative(q, 1, &l, &r).unwrap();
        assert_eq!(
            (s.col, s.rows.clone(), s.value.as_str()),
            (2, vec![0], "3 September 1976")
        );
        let s = superlative("Who is the youngest player?", 1, &l, &r).unwrap();
        assert_eq!(s.rows, vec![1]);
        // A tie across much of the table singles out nothing.
        let l = labels(&["Title", "Year"]);
        let r = rows(
            &l,
            &[
                &["A", "2008"],
                &["B", "2008"],
                &["C", "2008"],
                &["D", "2011"],
            ],
        );
        assert_eq!(
            superlative("the earliest album", 1, &l, &r),
            None,
            "a tie of 3 in 4"
        );
        assert_eq!(
            superlative("the latest album", 1, &l, &r).unwrap().rows,
            vec![3]
        );
    }

    #[test]
    fn a_label_holding_the_superlative_is_a_column_not_a_ranking() {
        // Dancing with the Stars (season 5): "Lowest score" is a column of the table.
        let l = labels(&["Dance", "Lowest scored dancer ( s )", "Lowest score"]);
        let r = rows(
            &l,
            &[
                &["Cha-cha-cha", "Floyd Mayweather Jr", "18"],
                &["Jive", "Mark Cuban", "16"],
                &["Mambo", "Mel B", "21"],
            ],
        );
        let q = "Which NBA team does the dancer with the lowest score in jive own ?";
        assert_eq!(superlative(q, 1, &l, &r), None);
    }

    #[test]
    fn a_value_word_does_not_name_its_column() {
        let l = labels(&["Azars", "Nūvods"]);
        let n = named_columns("Lelais Ludzys azars Cyblys nūvods", &l, "Latgolys azari");
        let nuvods = n.iter().find(|n| n.col == 1).unwrap();
        assert!(!nuvods.named_in("Cyblys nūvods"));
        assert!(nuvods.named_in("Rēzeknis"));
    }

    /// The column a question's wh-phrase asks for, when it asks for a thing.
    fn asked(q: &str, l: &[&str], seed: &str) -> Option<usize> {
        let a = asked_for(q, seed)?;
        a.names_a_thing()
            .then(|| asked_column(&a, &labels(l), seed))
            .flatten()
            .map(|n| n.col)
    }

    #[test]
    fn the_wh_phrase_names_the_column_asked_for() {
        // Real questions and labels, OTT-QA dev.
        let mosques = [
            "Name",
            "Capacity",
            "City",
            "Country",
            "Architectural style",
            "Year of first building",
        ];
        let q = "What is the capacity of the mosque that is on the list of largest mosques , and that was opened to the public 22 February 1978 ?";
        assert_eq!(asked(q, &mosques, "List of largest mosques"), Some(1));
        let a = asked_for(q, "List of largest mosques").unwrap();
        assert_eq!((a.wh.as_str(), a.copula), ("what", true));
        // Past numbers and the seed's words: "which 2013 Los Angeles Galaxy player".
        let galaxy = [
            "No.",
            "Pos.",
            "Player",
            "Transferred from",
            "Fee/notes",
            "Date",
        ];
        let q = "Which 2013 Los Angeles Galaxy player transferred in from the team that plays in all-white ?";
        assert_eq!(asked(q, &galaxy, "2013 Los Angeles Galaxy season"), Some(2));
        // "Who is the X": a person named by a column.
        let l = ["Team", "Head coach", "Stadium"];
        assert_eq!(
            asked(
                "Who is the head coach of the team that plays at X ?",
                &l,
                "2016 season"
            ),
            Some(1)
        );
        // A column named elsewhere than in the wh-phrase is not what is asked:
        // "what town was the manager born in" asks about the manager's page.
        let l = ["Team", "Home city", "Manager", "2018 result"];
        let q = "What town was the manager born in whose 2019 Campeonato Mineiro club is nicknamed Raposa ?";
        assert_eq!(asked(q, &l, "2019 Campeonato Mineiro"), None);
        // When, where, how, "who" before a verb and "how many" ask for no cell.
        let l = ["Driver", "Team", "Date", "Location", "Votes"];
        for q in [
            "When was the driver who was in the pole position born ?",
            "Where was the team founded ?",
            "Who directed the film ?",
            "How many votes did the driver receive ?",
        ] {
            assert_eq!(asked(q, &l, "Race"), None, "{q}");
        }
        assert_eq!(asked_for("Name the river.", "Rivers"), None);
    }

    #[test]
    fn a_year_asked_with_a_verb_after_it_is_the_time_of_an_event() {
        // Real questions and labels, OTT-QA dev: the year column dates the row, the
        // question asks when the row's subject did something.
        let l = ["Year", "Winner", "Runner-up", "Score"];
        for q in [
            "What year did the CONCACAF team based in Carson , California win runner up ?",
            "In what year was the post-war Dinky Toys company with the shortest name founded ?",
            "Which years did the university that was runner-up of the 1997 WCC basketball tourney win the NCAA basketball tournament ?",
        ] {
            assert!(asked_for(q, "Cup").unwrap().year_of_event, "{q}");
            assert_eq!(asked(q, &l, "Cup"), None, "{q}");
        }
        // Asked for directly, the year is the row's own cell.
        for q in [
            "What is the year of the Nacional championship winner who was officially founded December 24 , 1889 by a group of railway workers ?",
            "The oldest MacArthur Fellow graduated New York University in which year ?",
        ] {
            assert!(!asked_for(q, "Cup").unwrap().year_of_event, "{q}");
            assert_eq!(asked(q, &l, "Cup"), Some(0), "{q}");
        }
        // Another head before the verb still names its column.
        let l = ["Date", "Event", "Venue"];
        let q =
            "What date did the 1924 Summer Olympics event take place that had 169 participants ?";
        assert_eq!(asked(q, &l, "Hungary at the 1924 Summer Olympics"), Some(0));
    }

    #[test]
    fn a_comparison_of_the_rows_by_age_asks_for_the_row_itself() {
        // OTT-QA dev questions (seeds "1990 AFL draft", "2016–17 A.C. ChievoVerona
        // season", a "List of … people" page): the question word is the subject of
        // an age comparison, so the answer is which row.
        for (q, words) in [
            (
                "Of the players selected 9th and 8th at the 1990 AFL draft , which one is older ?",
                "is older",
            ),
            (
                "Of the first and second pick at the 1990 AFL draft , which one was born second ?",
                "born second",
            ),
            (
                "In the 2016–17 A.C. ChievoVerona season , who is the oldest Italian defender transferred out ?",
                "is the oldest",
            ),
            (
                "Which printmaker that made it to the list of people , is youngest ?",
                "is youngest",
            ),
        ] {
            assert_eq!(asks_which_row(q).as_deref(), Some(words), "{q}");
        }
        // Something of the oldest row is asked, or the age word describes another
        // thing than the rows, or "born" is not followed by an order: a page answers.
        for q in [
            "What is the nationality of the oldest Columbus Crew SC forward to be transferred out in 2015 ?",
            "When was the oldest player drafted by the Toronto Maple Leafs in '93 born ?",
            "Of the 2017 Washington Redskins draft athletes who play the cornerback position , which one attended the 4th-oldest university in California ?",
            "Which sport did the youngest Gold medal athlete from India participate in ?",
            "Which player was born in 1990 ?",
            "Who was the first European to see the country ?",
        ] {
            assert_eq!(asks_which_row(q), None, "{q}");
        }
    }

    #[test]
    fn a_title_named_in_the_question_is_where_it_starts() {
        // OTT-QA dev: the city named identifies the row; the airport's page answers.
        let q = "The Ukrainian airport in the city of Lviv is named after who ?";
        assert!(names_title(q, "Lviv"));
        assert!(!names_title(q, "Lviv International Airport"));
        // A disambiguator is not part of the name; words must be adjacent and in order.
        assert!(names_title("Where does the Ural rise?", "Ural (river)"));
        assert!(!names_title(
            "Where does the river rise in the Ural?",
            "River Ural"
        ));
        // Named as an owner, the page is what the question asks about.
        let q = "What is the University of Central Florida alumnus Drew Butera 's height ?";
        assert!(!names_title(q, "Drew Butera"));
        assert!(!names_title("What is Drew Butera's height?", "Drew Butera"));
        // A title of function words and numbers names nothing.
        assert!(!names_title("What happened in 1999 ?", "1999"));
    }

    #[test]
    fn seed_title_words_name_no_column() {
        let l = labels(&[
            "Round",
            "Pick",
            "Player",
            "Country of birth*",
            "PBA D-League team ( s )",
        ]);
        let q = "Kyle Neypes who was drafted in the fourth round of the '17 PBA draft is from a country with a population of at least how many people ?";
        assert_eq!(cols(named_columns(q, &l, "2017 PBA draft")), vec![0, 3]);
    }
}
