//! Pages for people: the audit and citation reports as self-contained HTML files, and
//! the page, search and report views `serve` shows.
//!
//! Every page is one document with its CSS inline and no script, font or image from
//! anywhere else, so a report written to a file reads the same offline, attached to a
//! review, or served. Markup is written with `maud`, which escapes every inserted value:
//! claims, cell texts and titles come from reports and dumps and are never trusted as
//! markup. Filters (by severity, by verdict) are radio buttons and CSS sibling
//! selectors, so they work with scripts disabled.

pub mod audit;
pub mod cite;
pub mod page;

use maud::{DOCTYPE, Markup, PreEscaped, html};
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

/// Where a report's locators link to.
#[derive(Debug, Clone, Default)]
pub struct Links {
    /// Prefix of `/wiki/TITLE` links: `""` for pages `serve` shows itself, a server's
    /// root (`http://127.0.0.1:8080`) for a report written to a file.
    pub base: String,
}

impl Links {
    /// The page view of `title`, at `fragment` (an element id on that page).
    pub fn wiki(&self, title: &str, fragment: Option<&str>) -> String {
        let mut href = format!(
            "{}/wiki/{}",
            self.base,
            crate::url::encode_title_path(title)
        );
        if let Some(f) = fragment.filter(|f| !f.is_empty()) {
            href.push('#');
            href.extend(utf8_percent_encode(f, FRAGMENT));
        }
        href
    }

    /// A locator's place in the page view: the table, row, infobox field or section it
    /// names; `None` when it has no page, names it by id alone, or does not parse.
    pub fn locator(&self, locator: &str) -> Option<String> {
        use crate::locator::{SectionSpec, Target};
        let loc = crate::locator::parse(locator).ok()?;
        let title = loc.page.as_ref()?.title.as_deref()?;
        let section = match &loc.section {
            Some(SectionSpec::Anchor(a)) => Some(a.replace(' ', "_")),
            _ => None,
        };
        // Tables are numbered within a named section; the page view numbers them on the
        // whole page, so a table of a named section links to its section.
        let fragment = match (&loc.target, &section) {
            (Target::Table { table }, None) => Some(table_id(*table)),
            (Target::Row { table, row } | Target::Cell { table, row, .. }, None) => {
                Some(row_id(*table, *row))
            }
            (Target::Infobox { field }, _) => Some(field_id(field)),
            (_, Some(s)) => Some(s.clone()),
            _ => None,
        };
        Some(self.wiki(title, fragment.as_deref()))
    }
}

/// The element id of table `n` (1-based, in page order) in the page view.
pub fn table_id(n: usize) -> String {
    format!("table-{n}")
}

/// The element id of data row `row` (0-based, header rows not counted) of table `n`.
pub(crate) fn row_id(n: usize, row: usize) -> String {
    format!("table-{n}-row-{row}")
}

/// The element id of an infobox field (its name, spaces as underscores).
pub(crate) fn field_id(name: &str) -> String {
    format!("infobox-{}", name.trim().replace(' ', "_"))
}

/// Characters a fragment cannot hold as they are.
const FRAGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'`');

/// The stylesheet every page carries inline.
const CSS: &str = include_str!("style.css");

/// A whole document: `title`, the inline stylesheet, `body`.
pub fn document(title: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body { (body) }
        }
    }
    .into_string()
}

/// Radio buttons filtering the items that follow them (`.item.f-<value>`), one per
/// (value, label, count), with "all" first and checked. The CSS that hides the other
/// items is generated with them, as it names their values.
pub fn filters(group: &str, values: &[(String, String, usize)]) -> Markup {
    let mut css = String::new();
    for (v, _, _) in values {
        css.push_str(&format!(
            "#{group}-{v}:checked ~ .items .item:not(.f-{v}) {{ display: none; }}\n"
        ));
    }
    let total: usize = values.iter().map(|(_, _, n)| n).sum();
    html! {
        style { (PreEscaped(css)) }
        input.filter type="radio" name=(group) id={(group) "-all"} checked;
        label.filter for={(group) "-all"} { "all (" (total) ")" }
        @for (v, label, n) in values {
            input.filter type="radio" name=(group) id={(group) "-" (v)};
            label.filter for={(group) "-" (v)} { (label) " (" (n) ")" }
        }
    }
}

/// A CSS class name from a label (`partially supported` → `partially-supported`).
pub(crate) fn class_name(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_path_segments() {
        let l = Links::default();
        assert_eq!(l.wiki("Rhine", None), "/wiki/Rhine");
        assert_eq!(l.wiki("AC/DC (band)", None), "/wiki/AC/DC_(band)");
        assert_eq!(
            l.wiki("What? #1 & \"x\"", Some("a b")),
            "/wiki/What%3F_%231_%26_%22x%22#a%20b"
        );
        assert_eq!(l.wiki("Zürich", None), "/wiki/Z%C3%BCrich");
    }

    #[test]
    fn locators_link_to_their_place_in_the_page_view() {
        let l = Links {
            base: "http://h:1".into(),
        };
        for (locator, href) in [
            ("Rhine|table:2|row:3", "http://h:1/wiki/Rhine#table-2-row-3"),
            (
                "Rhine|infobox:length",
                "http://h:1/wiki/Rhine#infobox-length",
            ),
            (
                "Rhine#Geography|table:1|row:0",
                "http://h:1/wiki/Rhine#Geography",
            ),
            ("Rhine#Course", "http://h:1/wiki/Rhine#Course"),
        ] {
            assert_eq!(l.locator(locator).as_deref(), Some(href), "{locator}");
        }
        assert_eq!(l.locator("table:1|row:0"), None);
    }

    #[test]
    fn documents_escape_what_they_are_given() {
        let d = document("a <b>", html! { p { ("<script>alert(\"x\")</script>") } });
        assert!(d.contains("<title>a &lt;b&gt;</title>"));
        assert!(d.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
        assert!(!d.contains("<script>"));
    }
}
