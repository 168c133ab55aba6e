//! Redirects: recognizing `#REDIRECT [[Target#Fragment]]` exactly as MediaWiki does
//! (`WikitextContent::getRedirectTargetAndText`), and following chains to their end.
//!
//! The dump's `<redirect title="…"/>` element never carries the fragment, so the target
//! always comes from the wikitext; the element only tells which localized magic word the
//! source wiki used when wikiwit does not know it.

use std::borrow::Cow;

use crate::title::{InvalidTitle, NS_MAIN, NS_SPECIAL, Title, TitleCodec, percent_decode};

/// Localized redirect magic words (MessagesXx.php `redirect`); `#REDIRECT` is accepted on
/// every wiki, as MediaWiki merges English magic words into every language.
fn localized_words(lang: &str) -> &'static [&'static str] {
    match lang {
        "de" | "als" | "bar" => &["#WEITERLEITUNG"],
        "fr" => &["#REDIRECTION"],
        "es" => &["#REDIRECCIÓN"],
        "it" => &["#RINVIA", "#RINVIO"],
        "nl" => &["#DOORVERWIJZING"],
        "pt" => &["#REDIRECIONAMENTO"],
        "ru" => &["#ПЕРЕНАПРАВЛЕНИЕ", "#ПЕРЕНАПР"],
        "pl" => &["#PATRZ", "#PRZEKIERUJ", "#TAM"],
        "sv" => &["#OMDIRIGERING"],
        _ => &[],
    }
}

/// ASCII whitespace as PCRE's `\s` (without the `u` flag) matches it.
fn is_pcre_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// Case-insensitive (Unicode) prefix match of a magic word; returns the rest.
fn strip_word<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let n = word.chars().count();
    let end = text
        .char_indices()
        .nth(n)
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    if text[..end].chars().count() == n && text[..end].to_lowercase() == word.to_lowercase() {
        Some(&text[end..])
    } else {
        None
    }
}

/// Finds the redirect target text: `^\s*:?\s*\[\[(.*?)(?:\|.*?)?\]\]` on one line.
fn target_text(rest: &str) -> Option<&str> {
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() && is_pcre_space(b[i]) {
        i += 1;
    }
    if b.get(i) == Some(&b':') {
        i += 1;
        while i < b.len() && is_pcre_space(b[i]) {
            i += 1;
        }
    }
    let inner = rest.get(i..)?.strip_prefix("[[")?;
    let line = inner.split('\n').next().unwrap_or("");
    let close = line.find("]]")?;
    // The lazy `(.*?)` stops at the first `|` that is followed by `]]`, else at `]]`.
    let stop = match line[..close].find('|') {
        Some(p) => p,
        None => close,
    };
    Some(&line[..stop])
}

/// What the text of a page says about it being a redirect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirectSyntax {
    /// Not a redirect.
    None,
    /// A redirect to this title.
    Target(Title),
    /// Redirect syntax whose target is not a valid title (MediaWiki treats the page as
    /// an ordinary page).
    Invalid(String, InvalidTitle),
}

/// Parses the start of `text` as a redirect. `marked` says the dump's `<redirect>`
/// element is present, which makes an unknown localized `#WORD` acceptable.
pub fn parse(text: &str, lang: &str, marked: bool, codec: &TitleCodec) -> RedirectSyntax {
    let trimmed = text.trim_start_matches(crate::title::PHP_SPACE);
    if !trimmed.starts_with('#') {
        return RedirectSyntax::None;
    }
    let mut rest = None;
    for word in std::iter::once(&"#REDIRECT").chain(localized_words(lang)) {
        if let Some(r) = strip_word(trimmed, word) {
            rest = Some(r);
            break;
        }
    }
    if rest.is_none() && marked {
        // An unknown localized magic word: `#` + letters, then the link.
        let end = trimmed[1..]
            .find(|c: char| !c.is_alphanumeric() && c != '_' && c != '-')
            .map(|p| p + 1)
            .unwrap_or(trimmed.len());
        if end > 1 {
            rest = Some(&trimmed[end..]);
        }
    }
    let Some(rest) = rest else {
        return RedirectSyntax::None;
    };
    let Some(raw) = target_text(rest) else {
        return RedirectSyntax::None;
    };
    let decoded: Cow<'_, str> = if raw.contains('%') {
        match percent_decode(raw.trim_start_matches(':')) {
            Some(d) => Cow::Owned(d.into_owned()),
            None => return RedirectSyntax::Invalid(raw.to_string(), InvalidTitle::InvalidUtf8),
        }
    } else {
        Cow::Borrowed(raw)
    };
    match codec.parse(&decoded, NS_MAIN) {
        Ok(t) if t.dbkey.is_empty() && t.interwiki.is_none() => {
            RedirectSyntax::Invalid(raw.to_string(), InvalidTitle::Empty)
        }
        Ok(t) if t.ns == NS_SPECIAL => {
            // Title::isValidRedirectTarget: special pages are not valid targets (the
            // few exceptions MediaWiki allows do not exist in a dump).
            RedirectSyntax::Invalid(raw.to_string(), InvalidTitle::Empty)
        }
        Ok(t) => RedirectSyntax::Target(t),
        Err(e) => RedirectSyntax::Invalid(raw.to_string(), e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::siteinfo::{CaseRule, Namespace, SiteInfo};
    use crate::title::InterwikiProfile;

    fn codec() -> TitleCodec {
        let site = SiteInfo {
            sitename: "W".into(),
            dbname: "w".into(),
            base: "https://example.org/wiki/Main".into(),
            generator: String::new(),
            case: CaseRule::FirstLetter,
            lang: "en".into(),
            namespaces: vec![Namespace {
                id: 14,
                name: "Category".into(),
                case: CaseRule::FirstLetter,
            }],
            synthesized: false,
        };
        TitleCodec::new(&site, InterwikiProfile::Mediawiki)
    }

    fn target(text: &str) -> Option<(i32, String, Option<String>)> {
        match parse(text, "en", false, &codec()) {
            RedirectSyntax::Target(t) => Some((t.ns, t.dbkey, t.fragment)),
            _ => None,
        }
    }

    #[test]
    fn recognizes_variants() {
        assert_eq!(
            target("#REDIRECT [[Al Gore]] {{R from full name}}"),
            Some((0, "Al_Gore".into(), None))
        );
        assert_eq!(
            target("  #redirect[[danube#Iron Gates]]"),
            Some((0, "Danube".into(), Some("Iron Gates".into())))
        );
        assert_eq!(
            target("#REDIRECT: [[:Category:Rivers|x]]"),
            Some((14, "Rivers".into(), None))
        );
        assert_eq!(
            target("#REDIRECT [[Caf%C3%A9]]"),
            Some((0, "Café".into(), None))
        );
        assert_eq!(target("#REDIRECT\n[[A]]"), Some((0, "A".into(), None)));
        assert_eq!(target("#REDIRECT [[A\n]]"), None);
        assert_eq!(target("Text #REDIRECT [[A]]"), None);
        assert!(matches!(
            parse("#REDIRECT [[a{b]]", "en", false, &codec()),
            RedirectSyntax::Invalid(..)
        ));
    }

    #[test]
    fn unknown_localized_word_needs_the_dump_mark() {
        assert!(matches!(
            parse("#PĀRADRESĀCIJA [[Rīga]]", "ltg", false, &codec()),
            RedirectSyntax::None
        ));
        assert!(matches!(
            parse("#PĀRADRESĀCIJA [[Rīga]]", "ltg", true, &codec()),
            RedirectSyntax::Target(_)
        ));
        assert!(matches!(
            parse("#WEITERLEITUNG [[Berlin]]", "de", false, &codec()),
            RedirectSyntax::Target(_)
        ));
    }
}
