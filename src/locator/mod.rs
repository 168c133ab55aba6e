//! Locators: where inside a Wikipedia page a fact sits, written so a person can type it
//! and an agent can emit it, and resolved against the index to the exact content.
//!
//! A row of a staged table (the auditor, `audit`) or a citation of a report (the
//! citation checker, `cite`) names a page *and* a place in it: a section, an
//! infobox field, a table cell, a sentence, a quoted passage. [`parse`] reads the text
//! form (grammar in [`parse`'s module](parse)); [`resolve`] returns what the place holds
//! — cell text, field value, sentence, section text — or why it does not resolve (no
//! such page, a redirect that leads nowhere, no such section, field, table, row…).
//! A locator that does not resolve is a verdict ([`Resolution::Unresolved`]), not an
//! error: only a failing index is an `Err`.
//!
//! `Resolver` caches decoded pages, so resolving a million rows that cite a few
//! thousand pages decodes each page once.

mod columns;
mod parse;
mod resolve;

use std::fmt;

use serde::Serialize;

pub use columns::ColumnMiss;
pub(crate) use columns::find_column;
pub use parse::{LocatorError, parse, parse_relative};
pub(crate) use resolve::Resolver;
pub use resolve::{CellContent, Content, Resolution, Resolved, SectionInfo, Unresolved, resolve};
pub(crate) use resolve::{final_page, subsections_end};

/// A parsed locator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    /// `None` for a relative locator (`table:1|row:3`), whose page comes from elsewhere.
    pub page: Option<PageSpec>,
    /// The section the target sits in (or is), if named.
    pub section: Option<SectionSpec>,
    pub target: Target,
}

/// The page part: a title, with what a URL may add.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PageSpec {
    /// As written (spaces or underscores, any case MediaWiki folds); `None` for a URL
    /// that names the page only by `?curid=` or `?oldid=`, which the dump's page and
    /// revision ids resolve.
    pub title: Option<String>,
    /// The revision the writer saw (`oldid=` or `oldid:`).
    pub oldid: Option<u64>,
    /// `curid=` from a URL.
    pub curid: Option<u64>,
    /// The wiki's language, from a URL's host.
    pub lang: Option<String>,
}

impl PageSpec {
    /// A page named by its title alone.
    pub(crate) fn titled(title: &str) -> PageSpec {
        PageSpec {
            title: Some(title.to_string()),
            oldid: None,
            curid: None,
            lang: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SectionSpec {
    /// An anchor, html5 (`Europe–Asia_boundary`), legacy (`.E2.80.93`) or spaced.
    Anchor(String),
    /// Headings from the outside in (`History/Early years`).
    Path(Vec<String>),
}

/// A table column: by 0-based grid index or by header label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    Index(usize),
    Header(String),
}

/// What the locator points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Target {
    /// The page itself (its lead, as content).
    Page,
    /// The named section.
    Section,
    Infobox {
        field: String,
    },
    /// Table `table` (1-based; within the section when one is named).
    Table {
        table: usize,
    },
    /// Data row `row` (0-based, header rows not counted).
    Row {
        table: usize,
        row: usize,
    },
    Cell {
        table: usize,
        row: usize,
        col: Column,
    },
    /// Sentence `sentence` (0-based) of the section, or of the lead.
    Sentence {
        sentence: usize,
    },
    /// List item `item` (0-based, every depth, in page order) of the section and its
    /// subsections, or of the page.
    Item {
        item: usize,
    },
    /// A passage quoted verbatim (whitespace and case folded) from the section or page.
    Quote {
        text: String,
    },
}

impl Locator {
    /// Whether it points below page level (what the citation gate asks of a row).
    pub(crate) fn is_below_page(&self) -> bool {
        !matches!(self.target, Target::Page) || self.section.is_some()
    }
}

/// Writes a value, quoted when it would not read back as itself.
fn write_value(f: &mut fmt::Formatter<'_>, v: &str, force: bool) -> fmt::Result {
    if force || v.contains(['|', '"', '\\']) || v.trim() != v {
        write!(f, "\"")?;
        for c in v.chars() {
            if c == '"' || c == '\\' {
                write!(f, "\\")?;
            }
            write!(f, "{c}")?;
        }
        write!(f, "\"")
    } else {
        write!(f, "{v}")
    }
}

/// The canonical text form; `parse(x.to_string()) == x`.
impl fmt::Display for Locator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut sep = |f: &mut fmt::Formatter<'_>| {
            if first {
                first = false;
                Ok(())
            } else {
                write!(f, "|")
            }
        };
        if let Some(p) = &self.page {
            sep(f)?;
            let anchor = match &self.section {
                Some(SectionSpec::Anchor(a)) => Some(a.as_str()),
                _ => None,
            };
            match &p.title {
                // A page of another wiki, named by ids, or whose title would read as
                // something else: the URL says what a title cannot.
                Some(title)
                    if p.lang.is_none() && p.curid.is_none() && parse::plain_title(title) =>
                {
                    write!(f, "{title}")?;
                    if let Some(a) = anchor {
                        write!(f, "#{a}")?;
                    }
                    if let Some(o) = p.oldid {
                        write!(f, "|oldid:{o}")?;
                    }
                }
                title => {
                    let url = crate::url::page_url(
                        p.lang.as_deref(),
                        title.as_deref(),
                        p.curid,
                        p.oldid,
                        anchor,
                    );
                    write!(f, "{url}")?;
                }
            }
        } else if let Some(SectionSpec::Anchor(a)) = &self.section {
            sep(f)?;
            write!(f, "#{a}")?;
        }
        if let Some(SectionSpec::Path(path)) = &self.section {
            sep(f)?;
            write!(f, "section:")?;
            write_value(f, &path.join("/"), false)?;
        }
        match &self.target {
            Target::Page | Target::Section => {}
            Target::Infobox { field } => {
                sep(f)?;
                write!(f, "infobox:")?;
                write_value(f, field, false)?;
            }
            Target::Table { table } => {
                sep(f)?;
                write!(f, "table:{table}")?;
            }
            Target::Row { table, row } => {
                sep(f)?;
                write!(f, "table:{table}|row:{row}")?;
            }
            Target::Cell { table, row, col } => {
                sep(f)?;
                write!(f, "table:{table}|row:{row}|col:")?;
                match col {
                    Column::Index(i) => write!(f, "{i}")?,
                    Column::Header(h) => write_value(f, h, h.parse::<usize>().is_ok())?,
                }
            }
            Target::Sentence { sentence } => {
                sep(f)?;
                write!(f, "sentence:{sentence}")?;
            }
            Target::Item { item } => {
                sep(f)?;
                write!(f, "item:{item}")?;
            }
            Target::Quote { text } => {
                sep(f)?;
                write!(f, "quote:")?;
                write_value(f, text, true)?;
            }
        }
        Ok(())
    }
}

impl Serialize for Locator {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// A locator serializes as its text form, so its schema is a string's.
impl schemars::JsonSchema for Locator {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Locator".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A locator in its canonical text form (`Page#Section|table:1|row:3|col:Length`)."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Locator {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn titles_anchors_and_parts() {
        let l = p("List of transboundary rivers#Rivers|table:1|row:13|col:Length (km)");
        assert_eq!(
            l.page.as_ref().unwrap().title.as_deref(),
            Some("List of transboundary rivers")
        );
        assert_eq!(l.section, Some(SectionSpec::Anchor("Rivers".into())));
        assert_eq!(
            l.target,
            Target::Cell {
                table: 1,
                row: 13,
                col: Column::Header("Length (km)".into())
            }
        );
        let l = p("Ural (river)|infobox:length");
        assert_eq!(
            l.target,
            Target::Infobox {
                field: "length".into()
            }
        );
        let l = p("Danube|section:Course/Upper course|sentence:2");
        assert_eq!(
            l.section,
            Some(SectionSpec::Path(vec![
                "Course".into(),
                "Upper course".into()
            ]))
        );
        assert_eq!(l.target, Target::Sentence { sentence: 2 });
        assert!(!p("Danube").is_below_page());
        assert!(p("Danube#Course").is_below_page());
    }

    #[test]
    fn urls_of_every_spelling_give_the_same_page() {
        for u in [
            "https://en.wikipedia.org/wiki/Ural_(river)#Europe%E2%80%93Asia_boundary",
            "https://en.m.wikipedia.org/wiki/Ural_(river)#Europe.E2.80.93Asia_boundary",
            "https://en.wikipedia.org/w/index.php?title=Ural_(river)&utm_source=chatgpt.com#Europe–Asia_boundary",
        ] {
            let l = p(u);
            let title = l.page.as_ref().unwrap().title.as_deref();
            assert_eq!(title, Some("Ural (river)"), "{u}");
            assert_eq!(
                l.section,
                Some(SectionSpec::Anchor("Europe–Asia boundary".into())),
                "{u}"
            );
        }
        let l = p("https://en.wikipedia.org/w/index.php?title=Danube&oldid=5177|table:1|row:0");
        assert_eq!(l.page.as_ref().unwrap().oldid, Some(5177));
        assert_eq!(l.target, Target::Row { table: 1, row: 0 });
    }

    #[test]
    fn quotes_and_round_trip() {
        let l = p(r#"Rhine|quote:"gives 1,233 km | \"Rijkswaterstaat\"""#);
        assert_eq!(
            l.target,
            Target::Quote {
                text: "gives 1,233 km | \"Rijkswaterstaat\"".into()
            }
        );
        for s in [
            "List of transboundary rivers#Rivers|table:1|row:13|col:Length (km)",
            "Rhine|quote:\"a | b\"",
            "Danube|section:Course/Upper course|sentence:2",
            "X|table:2|row:0|col:\"1990\"",
            "X|oldid:42|table:2",
            "table:1|row:3",
            "Transboundary river#Examples|item:1",
            "https://fr.wikipedia.org/wiki/Danube|sentence:0",
            "https://en.wikipedia.org/w/index.php?title=Ural_(river)&curid=12#History|sentence:0",
            "https://en.wikipedia.org/?curid=5|sentence:1",
            "https://en.wikipedia.org/w/index.php?oldid=77#History",
            "https://www.wikipedia.org/wiki/%22Weird%22_Al_%26_100%25?x=1|table:1",
            "https://wikipedia.org/wiki/Quote:_a_12%22_single|item:0",
        ] {
            let l = p(s);
            assert_eq!(p(&l.to_string()), l, "{s} → {l}");
        }
        assert_eq!(
            p("X|table:2|row:0|col:\"1990\"").target,
            Target::Cell {
                table: 2,
                row: 0,
                col: Column::Header("1990".into())
            }
        );
    }

    #[test]
    fn errors_say_where_and_why() {
        for (s, needle) in [
            ("", "empty locator"),
            ("Danube|row:3", "row: needs table:"),
            ("Danube|table:0|row:1", "numbered from 1"),
            ("Danube|table:x", "non-negative integer"),
            ("Danube|table:1|sentence:2", "only one of"),
            ("Danube|frob:1", "unknown part"),
            ("Danube|quote:\"open", "unclosed"),
            ("Danube||table:1", "empty part"),
            ("https://example.com/x", "not a Wikipedia page URL"),
            (
                "https://en.wikipedia.org/w/index.php?action=history",
                "not a Wikipedia page URL",
            ),
            ("Danube#A|#B", "second section"),
            ("Danube|col:2", "needs table: and row:"),
        ] {
            let e = parse(s).expect_err(s);
            assert!(e.to_string().contains(needle), "{s}: {e}");
        }
        let e = parse("Danube|table:1|row:-3").unwrap_err();
        assert_eq!(e.offset, 19);
    }

    #[test]
    fn a_url_may_name_the_page_by_id_alone() {
        let l = parse("https://en.wikipedia.org/?curid=5|sentence:1").unwrap();
        let page = l.page.unwrap();
        assert_eq!(
            (page.title.as_deref(), page.curid, page.oldid),
            (None, Some(5), None)
        );
        let l = parse("https://en.wikipedia.org/w/index.php?oldid=77#History").unwrap();
        assert_eq!(l.page.unwrap().oldid, Some(77));
        assert_eq!(l.section, Some(SectionSpec::Anchor("History".into())));
    }

    #[test]
    fn relative_locators_take_the_row_page() {
        let l = parse_relative("table:1|row:3", "Danube").unwrap();
        assert_eq!(l.page.unwrap().title.as_deref(), Some("Danube"));
        let l = parse_relative("#Course|sentence:0", "Danube").unwrap();
        assert_eq!(l.section, Some(SectionSpec::Anchor("Course".into())));
        let l = parse_relative("Rhine|table:1", "Danube").unwrap();
        assert_eq!(l.page.unwrap().title.as_deref(), Some("Rhine"));
    }
}
