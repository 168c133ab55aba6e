//! What rendering leaves behind that a reader of MediaWiki's page never sees: markup of
//! broken syntax, and the separators around template output that the plain text leaves
//! out.
//!
//! The plain text is rendered from a page's own wikitext with its templates left out;
//! MediaWiki's page shows what they write. In a lead that is mostly pronunciations,
//! other-language names and conversions inside parentheses —
//! `Berlin ({{IPAc-en|…}}, {{IPA-de|…}}) is` reads `Berlin (/bɜːrˈlɪn/, German: …) is` on
//! Wikipedia — so the text kept `Berlin ( , ) is`. A parenthetical group keeps only what
//! a template did not write: separators with nothing before or after them inside it go,
//! and a group left empty goes with the space before it (`Berlin is`;
//! `Achilles (; Ἀχιλλεύς, Akhilleus, )` → `Achilles (Ἀχιλλεύς, Akhilleus)`). A
//! sentence's byte range in the wikitext is computed before this and does not change.

use std::borrow::Cow;

/// Markup left in rendered text by broken syntax (an unclosed `{{` shows as itself in
/// MediaWiki too), and parentheses emptied of template output (see the module). Neither
/// carries meaning for a reader or for evidence matching. Most text has none of these
/// characters and is returned as it is, without a copy.
pub(crate) fn strip_residue(s: &str) -> Cow<'_, str> {
    let stripped = strip_markup(s);
    if let Cow::Owned(tidied) = tidy_parentheses(&stripped) {
        return Cow::Owned(tidied);
    }
    stripped
}

fn strip_markup(s: &str) -> Cow<'_, str> {
    if !s
        .bytes()
        .any(|b| matches!(b, b'[' | b']' | b'{' | b'}' | b'|' | b'\''))
    {
        return Cow::Borrowed(s);
    }
    let mut out = s.to_string();
    for tok in ["[[", "]]", "{{", "}}", "{|", "|}", "'''", "''"] {
        if out.contains(tok) {
            out = out.replace(tok, "");
        }
    }
    Cow::Owned(out)
}

/// An open parenthesis while tidying.
struct Group {
    /// Where the output stood when `(` was met (before the whitespace preceding it, at
    /// the top level): an empty group is cut back to here.
    before: usize,
    /// Whether anything but whitespace, separators and empty groups is in it yet.
    content: bool,
    /// Whitespace and at most one separator since the last content, not yet written:
    /// written when content follows, dropped when the group closes.
    pending: String,
    /// The enclosing group's pending text when this one opened: written before it if
    /// it has content, given back to the enclosing group if it is empty.
    outer_pending: String,
}

/// Separators a left-out template leaves between its neighbours.
fn is_separator(c: char) -> bool {
    matches!(c, ',' | ';')
}

/// Parentheses without their template-emptied separators, and empty ones removed.
fn tidy_parentheses(s: &str) -> Cow<'_, str> {
    if !s.contains('(') || !needs_tidying(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut open: Vec<Group> = Vec::new();
    for c in s.chars() {
        let Some(g) = open.last_mut() else {
            if c == '(' {
                open.push(Group {
                    before: out.trim_end().len(),
                    content: false,
                    pending: String::new(),
                    outer_pending: String::new(),
                });
            }
            out.push(c);
            continue;
        };
        if c == '(' {
            let outer_pending = std::mem::take(&mut g.pending);
            open.push(Group {
                before: out.len(),
                content: false,
                pending: String::new(),
                outer_pending,
            });
            out.push(c);
        } else if c == ')' {
            let g = open.pop().expect("an open group");
            if g.content {
                out.push(')');
                if let Some(outer) = open.last_mut() {
                    out.insert_str(g.before, &g.outer_pending);
                    outer.content = true;
                }
            } else {
                out.truncate(g.before);
                if let Some(outer) = open.last_mut() {
                    outer.pending = g.outer_pending;
                }
            }
        } else if is_separator(c) || c.is_whitespace() {
            // Before any content, and after a first separator, they are the residue.
            if g.content && !(is_separator(c) && g.pending.contains(is_separator)) {
                g.pending.push(c);
            }
        } else {
            out.push_str(&std::mem::take(&mut g.pending));
            g.content = true;
            out.push(c);
        }
    }
    // Unclosed groups keep what they have, innermost first so positions hold.
    if let Some(g) = open.last() {
        out.push_str(&g.pending);
    }
    for g in open.iter().rev() {
        out.insert_str(g.before, &g.outer_pending);
    }
    if out == s {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(out)
    }
}

/// Whether some parenthesis opens on a separator, closes after one, or is empty, or two
/// separators meet inside one: the cheap test that lets ordinary text through untouched.
fn needs_tidying(s: &str) -> bool {
    let next = |i: usize| s[i..].chars().find(|c| !c.is_whitespace());
    let prev = |i: usize| s[..i].chars().rev().find(|c| !c.is_whitespace());
    let sep = |c: Option<char>| c.is_some_and(is_separator);
    s.char_indices().any(|(i, c)| match c {
        '(' => sep(next(i + 1)) || next(i + 1) == Some(')'),
        ')' => sep(prev(i)),
        ',' | ';' => sep(next(i + 1)) && s[..i].contains('('),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::strip_residue;

    /// As the sentence builder uses it: residue stripped, then whitespace squeezed.
    fn tidy(s: &str) -> String {
        strip_residue(s)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn parentheses_emptied_by_left_out_templates_go() {
        // Leads of the shared dumps as the plain text rendered them.
        for (rendered, tidied) in [
            (
                "Berlin ( , ) is the capital and largest city of Germany.",
                "Berlin is the capital and largest city of Germany.",
            ),
            (
                "Austreja () — vaļsteiba Europā.",
                "Austreja — vaļsteiba Europā.",
            ),
            (
                "Felis bieti, Milne-Edwards, 1892 ((, , )) irā naleļs kaču saimis (Felidae)",
                "Felis bieti, Milne-Edwards, 1892 irā naleļs kaču saimis (Felidae)",
            ),
            ("an aside (see (, ) below; )", "an aside (see below)"),
            ("1892 (\u{a0}) irā", "1892 irā"),
            (
                "In Greek mythology, Achilles (; Ἀχιλλεύς, Akhilleus, ) was a Greek hero",
                "In Greek mythology, Achilles (Ἀχιλλεύς, Akhilleus) was a Greek hero",
            ),
            (
                "Angela Dorothea Merkel (; ; born 17 July 1954) is a German politician",
                "Angela Dorothea Merkel (born 17 July 1954) is a German politician",
            ),
            (
                "Asphalt (, , occasionally ), also known as bitumen (, ) is a sticky",
                "Asphalt (occasionally), also known as bitumen is a sticky",
            ),
            (
                "Caracal caracal (Schreber, 1776, , , ) — ira naleļs kaču saimis",
                "Caracal caracal (Schreber, 1776) — ira naleļs kaču saimis",
            ),
            ("Eura (, eira; ; ) irā", "Eura (eira) irā"),
            (
                "Asda Stores Ltd. () (often stylised as ASDA)",
                "Asda Stores Ltd. (often stylised as ASDA)",
            ),
            (
                "the Greek words ánthrōpos (, \"human\") and lógos (, \"study\").",
                "the Greek words ánthrōpos (\"human\") and lógos (\"study\").",
            ),
        ] {
            assert_eq!(tidy(rendered), tidied, "{rendered}");
        }
    }

    #[test]
    fn written_parentheses_and_separators_stay() {
        for s in [
            "Population (2016): 8,725,931; area (km²) 83,871.",
            "a minus sign (-) and an ellipsis (..)",
            "(a, b; c) and (x (y, z) w)",
            "a list: one, two; three",
            "an open group (a, b",
            "an open group (a, (b",
            "a smile :) and a close ) alone",
            "a formula f(x, y) = (x; y)",
        ] {
            assert_eq!(tidy(s), s, "{s}");
        }
        // Markup residue is still removed, and ordinary text is not copied.
        assert_eq!(tidy("a [[b]] {{c}} '''d'''"), "a b c d");
        assert!(matches!(
            strip_residue("plain text, (with) parentheses"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
