//! MediaWiki titles: parsing text into (namespace, DB key, fragment) exactly as
//! `Title::newFromText` / `MediaWikiTitleCodec::splitTitleString` do.
//!
//! Every store in the index is keyed by the normalized title, so this module decides
//! whether wikiwit agrees with MediaWiki about what a link or redirect points to.

mod aliases;
mod decode;
mod interwiki;
mod namespaces;

use std::fmt;

use serde::Serialize;

pub(crate) use decode::{
    PHP_SPACE, decode_char_references, decode_entity_at, percent_decode, php_trim, ucfirst,
    ucfirst_keep_long,
};
pub use interwiki::{InterwikiMap, InterwikiProfile};
pub use namespaces::NamespaceTable;
pub(crate) use namespaces::{
    NS_CATEGORY, NS_FILE, NS_MAIN, NS_MEDIA, NS_SPECIAL, NS_TALK, NS_TEMPLATE, NS_USER,
    NS_USER_TALK,
};

use crate::siteinfo::SiteInfo;

/// A parsed title. `dbkey` uses underscores, as MediaWiki stores it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Title {
    pub ns: i32,
    pub dbkey: String,
    /// Text after the first `#`, with spaces (as `Title::getFragment` returns it).
    pub fragment: Option<String>,
    /// Lower-cased interwiki prefix when the title points to another wiki.
    pub interwiki: Option<String>,
    /// The text started with `:` (`[[:Category:X]]` links instead of categorizing).
    pub leading_colon: bool,
}

/// Why a text is not a valid title (the `title-invalid-*` messages of MediaWiki).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "kebab-case")]
pub enum InvalidTitle {
    #[error("empty title")]
    Empty,
    #[error("title contains the illegal character {0:?}")]
    IllegalCharacter(char),
    #[error("title contains a percent-encoded sequence after decoding")]
    PercentSequence,
    #[error("title contains an undecoded character reference")]
    CharacterReference,
    #[error("title is a relative path (`.` or `..` segment)")]
    RelativePath,
    #[error("title contains `~~~`")]
    Tildes,
    #[error("title is {0} bytes long (maximum 255)")]
    TooLong(usize),
    #[error("title starts with a colon after its namespace prefix")]
    LeadingColon,
    #[error("a talk-namespace title cannot carry a second namespace or interwiki prefix")]
    TalkNamespacePrefix,
    #[error("title is not valid UTF-8")]
    InvalidUtf8,
}

/// Parses and formats titles for one wiki (its namespaces, case rules and interwiki table).
#[derive(Debug, Clone)]
pub struct TitleCodec {
    namespaces: NamespaceTable,
    interwiki: InterwikiMap,
    profile: InterwikiProfile,
    /// The content language upper-cases `i` to dotted `İ` (MediaWiki's `LanguageTr` and
    /// the Turkic languages that share its `ucfirst`).
    turkic: bool,
}

/// Content languages whose `ucfirst` maps `i` to `İ` (U+0130), as Turkish does.
const TURKIC: &[&str] = &["tr", "az", "kaa", "crh", "tt", "ba"];

/// Bytes `$wgLegalTitleChars` allows: printable ASCII except `#<>[]{}|` plus any
/// non-ASCII byte.
fn is_legal_title_char(c: char) -> bool {
    if !c.is_ascii() {
        return true;
    }
    matches!(c,
        ' ' | '%' | '!' | '"' | '$' | '&' | '\'' | '(' | ')' | '*' | ',' | '-' | '.' | '/'
        | '0'..='9' | ':' | ';' | '=' | '?' | '@' | 'A'..='Z' | '\\' | '^' | '_' | '`'
        | 'a'..='z' | '~' | '+')
}

impl TitleCodec {
    /// A codec for the wiki described by `site`, with the given interwiki profile
    /// (`Auto` is resolved against the site's host).
    pub fn new(site: &SiteInfo, profile: InterwikiProfile) -> TitleCodec {
        let profile = profile.resolve(site.host());
        let lang = aliases::content_language(&site.lang, &site.dbname);
        let base = lang.split('-').next().unwrap_or("");
        TitleCodec {
            namespaces: NamespaceTable::new(site),
            interwiki: InterwikiMap::new(profile),
            profile,
            turkic: TURKIC.contains(&base),
        }
    }

    pub fn namespaces(&self) -> &NamespaceTable {
        &self.namespaces
    }

    pub fn interwiki(&self) -> &InterwikiMap {
        &self.interwiki
    }

    /// The resolved interwiki profile.
    pub fn profile(&self) -> InterwikiProfile {
        self.profile
    }

    /// `Title::newFromText($text, $default_ns)`: decodes character references, then splits.
    pub fn parse(&self, text: &str, default_ns: i32) -> Result<Title, InvalidTitle> {
        let decoded = decode_char_references(text);
        self.split(&decoded, default_ns)
    }

    /// A link target as the parser sees it: percent-decoded first (`Parser::handleInternalLinks2`).
    pub(crate) fn parse_link_target(
        &self,
        target: &str,
        default_ns: i32,
    ) -> Result<Title, InvalidTitle> {
        if target.contains('%') {
            let decoded = percent_decode(target).ok_or(InvalidTitle::InvalidUtf8)?;
            // The parser escapes `<`/`>` produced by decoding, which makes them illegal.
            return self.parse(&decoded, default_ns);
        }
        self.parse(target, default_ns)
    }

    /// The title of a page in the dump. Interwiki prefixes are not recognized: the page
    /// exists on this wiki, so its prefix cannot have been an interwiki one there.
    pub fn parse_page_title(&self, text: &str) -> Result<Title, InvalidTitle> {
        let decoded = decode_char_references(text);
        self.split_with(&decoded, NS_MAIN, false)
    }

    /// `MediaWikiTitleCodec::splitTitleString` on already entity-decoded text.
    pub fn split(&self, text: &str, default_ns: i32) -> Result<Title, InvalidTitle> {
        self.split_with(text, default_ns, true)
    }

    fn split_with(
        &self,
        text: &str,
        default_ns: i32,
        interwikis: bool,
    ) -> Result<Title, InvalidTitle> {
        let mut dbkey = decode::collapse_whitespace(text);
        if dbkey.contains('\u{FFFD}') {
            return Err(InvalidTitle::InvalidUtf8);
        }
        let mut ns = default_ns;
        let mut leading_colon = false;
        if let Some(rest) = dbkey.strip_prefix(':') {
            ns = NS_MAIN;
            leading_colon = true;
            dbkey = rest.trim_matches('_').to_string();
        }
        if dbkey.is_empty() {
            return Err(InvalidTitle::Empty);
        }

        let mut interwiki = None;
        if let Some((prefix, rest)) = split_prefix(&dbkey) {
            if let Some(id) = self.namespaces.id_of(prefix) {
                if id == NS_TALK
                    && let Some((p2, _)) = split_prefix(rest)
                    && (self.namespaces.id_of(p2).is_some() || self.interwiki.contains(p2))
                {
                    return Err(InvalidTitle::TalkNamespacePrefix);
                }
                ns = id;
                dbkey = rest.to_string();
            } else if interwikis && self.interwiki.contains(prefix) {
                interwiki = Some(prefix.to_lowercase());
                let mut rest = rest.to_string();
                if let Some(r) = rest.strip_prefix(':') {
                    ns = NS_MAIN;
                    rest = r.trim_matches('_').to_string();
                }
                dbkey = rest;
            }
        }

        let mut fragment = None;
        if let Some(pos) = dbkey.find('#') {
            fragment = Some(dbkey[pos + 1..].replace('_', " "));
            dbkey.truncate(pos);
            let trimmed = dbkey.trim_end_matches('_').len();
            dbkey.truncate(trimmed);
        }

        check_legal(&dbkey)?;

        if ns != NS_SPECIAL && dbkey.len() > 255 {
            return Err(InvalidTitle::TooLong(dbkey.len()));
        }
        if interwiki.is_none()
            && self.namespaces.is_capitalized(ns)
            && let std::borrow::Cow::Owned(up) = match self.profile {
                _ if self.turkic && dbkey.starts_with('i') => {
                    std::borrow::Cow::Owned(format!("İ{}", &dbkey[1..]))
                }
                InterwikiProfile::Wikimedia => ucfirst_keep_long(&dbkey),
                _ => ucfirst(&dbkey),
            }
        {
            dbkey = up;
        }
        if dbkey.is_empty() && interwiki.is_none() && ns != NS_MAIN {
            return Err(InvalidTitle::Empty);
        }
        if ns == NS_USER || ns == NS_USER_TALK {
            dbkey = sanitize_ip(&dbkey);
        }
        if interwiki.is_none() && dbkey.starts_with(':') {
            return Err(InvalidTitle::LeadingColon);
        }
        Ok(Title {
            ns,
            dbkey,
            fragment,
            interwiki,
            leading_colon,
        })
    }

    /// The prefixed DB key (`Category:Rivers_of_Europe`).
    pub fn prefixed_dbkey(&self, ns: i32, dbkey: &str) -> String {
        match self.namespaces.name_of(ns) {
            Some("") | None if ns == NS_MAIN => dbkey.to_string(),
            Some(name) => format!("{name}:{dbkey}"),
            None => format!("{ns}:{dbkey}"),
        }
    }

    /// The prefixed text with spaces (`Category:Rivers of Europe`), as page titles appear
    /// in a dump.
    pub(crate) fn prefixed_text(&self, ns: i32, dbkey: &str) -> String {
        self.prefixed_dbkey(ns, dbkey).replace('_', " ")
    }
}

/// The `^(.+?)_*:_*(.*)$` split of `splitTitleString`: prefix before the first colon
/// (not at position 0), both sides trimmed of underscores.
fn split_prefix(s: &str) -> Option<(&str, &str)> {
    let first = s.chars().next()?.len_utf8();
    let colon = s[first..].find(':')? + first;
    let prefix = s[..colon].trim_end_matches('_');
    if prefix.is_empty() {
        return None;
    }
    let rest = s[colon + 1..].trim_start_matches('_');
    Some((prefix, rest))
}

/// The illegal-character, percent-sequence, entity, relative-path and tilde rules.
fn check_legal(dbkey: &str) -> Result<(), InvalidTitle> {
    if let Some(c) = dbkey.chars().find(|&c| !is_legal_title_char(c)) {
        return Err(InvalidTitle::IllegalCharacter(c));
    }
    let b = dbkey.as_bytes();
    for i in 0..b.len() {
        if b[i] == b'%'
            && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            return Err(InvalidTitle::PercentSequence);
        }
        if b[i] == b'&' && looks_like_reference(&b[i + 1..]) {
            return Err(InvalidTitle::CharacterReference);
        }
    }
    if dbkey.contains('.')
        && (dbkey == "."
            || dbkey == ".."
            || dbkey.starts_with("./")
            || dbkey.starts_with("../")
            || memchr::memmem::find(dbkey.as_bytes(), b"/./").is_some()
            || memchr::memmem::find(dbkey.as_bytes(), b"/../").is_some()
            || dbkey.ends_with("/.")
            || dbkey.ends_with("/.."))
    {
        return Err(InvalidTitle::RelativePath);
    }
    if memchr::memmem::find(dbkey.as_bytes(), b"~~~").is_some() {
        return Err(InvalidTitle::Tildes);
    }
    Ok(())
}

/// `&[A-Za-z0-9\x80-\xff]+;`, `&#[0-9]+;` or `&#x[0-9A-Fa-f]+;` at the start of `rest`.
fn looks_like_reference(rest: &[u8]) -> bool {
    let (body, pred): (&[u8], fn(&u8) -> bool) = if let Some(r) = rest.strip_prefix(b"#x") {
        (r, u8::is_ascii_hexdigit)
    } else if let Some(r) = rest.strip_prefix(b"#X") {
        (r, u8::is_ascii_hexdigit)
    } else if let Some(r) = rest.strip_prefix(b"#") {
        (r, u8::is_ascii_digit)
    } else {
        (rest, |b: &u8| b.is_ascii_alphanumeric() || *b >= 0x80)
    };
    let n = body.iter().take_while(|b| pred(b)).count();
    n > 0 && body.get(n) == Some(&b';')
}

/// `IPUtils::sanitizeIP` for user pages: IPv4 loses leading zeros, IPv6 is upper-cased.
fn sanitize_ip(dbkey: &str) -> String {
    let parts: Vec<&str> = dbkey.split('.').collect();
    if parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
    {
        let nums: Vec<u32> = parts.iter().map(|p| p.parse().unwrap_or(0)).collect();
        if nums.iter().all(|&n| n <= 255) {
            return nums
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(".");
        }
    }
    if dbkey.contains(':')
        && dbkey.bytes().all(|b| b.is_ascii_hexdigit() || b == b':')
        && dbkey.matches(':').count() >= 2
    {
        return dbkey.to_ascii_uppercase();
    }
    dbkey.to_string()
}

impl fmt::Display for Title {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(iw) = &self.interwiki {
            write!(f, "{iw}:")?;
        }
        write!(f, "{}:{}", self.ns, self.dbkey)?;
        if let Some(fr) = &self.fragment {
            write!(f, "#{fr}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::siteinfo::{CaseRule, Namespace};

    fn enwiki() -> TitleCodec {
        let ns = |id, name: &str| Namespace {
            id,
            name: name.to_string(),
            case: CaseRule::FirstLetter,
        };
        let site = SiteInfo {
            sitename: "Wikipedia".into(),
            dbname: "enwiki".into(),
            base: "https://en.wikipedia.org/wiki/Main_Page".into(),
            generator: String::new(),
            case: CaseRule::FirstLetter,
            lang: "en".into(),
            namespaces: vec![
                ns(0, ""),
                ns(1, "Talk"),
                ns(2, "User"),
                ns(4, "Wikipedia"),
                ns(6, "File"),
                ns(10, "Template"),
                ns(14, "Category"),
            ],
            synthesized: false,
        };
        TitleCodec::new(&site, InterwikiProfile::Mediawiki)
    }

    fn key(c: &TitleCodec, s: &str) -> (i32, String) {
        let t = c.parse(s, NS_MAIN).unwrap();
        (t.ns, t.dbkey)
    }

    #[test]
    fn basic_normalization() {
        let c = enwiki();
        assert_eq!(key(&c, "  ural  river "), (0, "Ural_river".into()));
        assert_eq!(
            key(&c, "category : rivers of europe"),
            (14, "Rivers_of_europe".into())
        );
        assert_eq!(key(&c, ":Category:X"), (14, "X".into()));
        assert_eq!(key(&c, "Image:Foo.jpg"), (6, "Foo.jpg".into()));
        assert_eq!(key(&c, "Project:About"), (4, "About".into()));
        assert_eq!(key(&c, "S:Book"), (0, "S:Book".into()));
        assert_eq!(key(&c, "User:127.000.0.1"), (2, "127.0.0.1".into()));
    }

    #[test]
    fn fragments_and_interwiki() {
        let c = enwiki();
        let t = c.parse("Danube#Iron_Gates", 0).unwrap();
        assert_eq!(
            (t.dbkey.as_str(), t.fragment.as_deref()),
            ("Danube", Some("Iron Gates"))
        );
        let t = c.parse("#Top", 0).unwrap();
        assert_eq!((t.dbkey.as_str(), t.fragment.as_deref()), ("", Some("Top")));
        let t = c.parse("wikt:word", 0).unwrap();
        assert_eq!(
            (t.interwiki.as_deref(), t.dbkey.as_str()),
            (Some("wikt"), "word")
        );
        assert_eq!(key(&c, "de:Berlin"), (0, "De:Berlin".into()));
    }

    #[test]
    fn invalid_titles() {
        let c = enwiki();
        assert_eq!(c.parse("", 0), Err(InvalidTitle::Empty));
        assert_eq!(c.parse("Category:", 0), Err(InvalidTitle::Empty));
        assert_eq!(c.parse("a[b", 0), Err(InvalidTitle::IllegalCharacter('[')));
        assert_eq!(c.parse("a%41", 0), Err(InvalidTitle::PercentSequence));
        assert_eq!(
            c.parse("a&bogus;", 0),
            Err(InvalidTitle::CharacterReference)
        );
        assert_eq!(c.parse("../x", 0), Err(InvalidTitle::RelativePath));
        assert_eq!(c.parse("a~~~b", 0), Err(InvalidTitle::Tildes));
        assert_eq!(
            c.parse(&"x".repeat(256), 0),
            Err(InvalidTitle::TooLong(256))
        );
        assert_eq!(
            c.parse("Talk:File:x", 0),
            Err(InvalidTitle::TalkNamespacePrefix)
        );
        assert_eq!(c.parse("Talk::x", 0), Err(InvalidTitle::LeadingColon));
    }

    #[test]
    fn link_targets_are_percent_decoded() {
        let c = enwiki();
        let t = c.parse_link_target("Caf%C3%A9_au_lait", 0).unwrap();
        assert_eq!(t.dbkey, "Café_au_lait");
    }
}
