//! Names that look like template calls but are not templates: magic variables
//! (`{{PAGENAME}}`), parser functions (`{{#if:…}}`, `{{lc:…}}`) and call modifiers
//! (`{{subst:…}}`). MediaWiki records none of them in `templatelinks` (except
//! `{{#invoke:M|…}}`, which records `Module:M`).

/// Variables (`{{NAME}}`, case-sensitive as MediaWiki registers them).
const VARIABLES: &[&str] = &[
    "!",
    "=",
    "CURRENTMONTH",
    "CURRENTMONTH1",
    "CURRENTMONTH2",
    "CURRENTMONTHNAME",
    "CURRENTMONTHNAMEGEN",
    "CURRENTMONTHABBREV",
    "CURRENTDAY",
    "CURRENTDAY2",
    "CURRENTDAYNAME",
    "CURRENTYEAR",
    "CURRENTTIME",
    "CURRENTHOUR",
    "CURRENTWEEK",
    "CURRENTDOW",
    "CURRENTTIMESTAMP",
    "LOCALMONTH",
    "LOCALMONTH1",
    "LOCALMONTH2",
    "LOCALMONTHNAME",
    "LOCALMONTHNAMEGEN",
    "LOCALMONTHABBREV",
    "LOCALDAY",
    "LOCALDAY2",
    "LOCALDAYNAME",
    "LOCALYEAR",
    "LOCALTIME",
    "LOCALHOUR",
    "LOCALWEEK",
    "LOCALDOW",
    "LOCALTIMESTAMP",
    "NUMBEROFARTICLES",
    "NUMBEROFFILES",
    "NUMBEROFEDITS",
    "NUMBEROFUSERS",
    "NUMBEROFACTIVEUSERS",
    "NUMBEROFPAGES",
    "NUMBEROFADMINS",
    "NUMBEROFVIEWS",
    "PAGENAME",
    "PAGENAMEE",
    "FULLPAGENAME",
    "FULLPAGENAMEE",
    "NAMESPACE",
    "NAMESPACEE",
    "NAMESPACENUMBER",
    "TALKSPACE",
    "TALKSPACEE",
    "SUBJECTSPACE",
    "SUBJECTSPACEE",
    "ARTICLESPACE",
    "ARTICLESPACEE",
    "SUBPAGENAME",
    "SUBPAGENAMEE",
    "BASEPAGENAME",
    "BASEPAGENAMEE",
    "ROOTPAGENAME",
    "ROOTPAGENAMEE",
    "TALKPAGENAME",
    "TALKPAGENAMEE",
    "SUBJECTPAGENAME",
    "SUBJECTPAGENAMEE",
    "ARTICLEPAGENAME",
    "ARTICLEPAGENAMEE",
    "REVISIONID",
    "REVISIONDAY",
    "REVISIONDAY2",
    "REVISIONMONTH",
    "REVISIONMONTH1",
    "REVISIONYEAR",
    "REVISIONTIMESTAMP",
    "REVISIONUSER",
    "REVISIONSIZE",
    "SITENAME",
    "SERVER",
    "SERVERNAME",
    "SCRIPTPATH",
    "STYLEPATH",
    "CURRENTVERSION",
    "CONTENTLANGUAGE",
    "CONTENTLANG",
    "DIRECTIONMARK",
    "DIRMARK",
    "PAGEID",
    "CASCADINGSOURCES",
    "PAGELANGUAGE",
    "ARTICLEPATH",
    "NOEXTERNALLANGLINKS",
    "PAGESINCATEGORY",
    "PAGESINCAT",
    "NUMBERINGROUP",
    "PAGESINNAMESPACE",
    "PAGESINNS",
    "NOTOC",
    "NOEDITSECTION",
    "NOGALLERY",
    "FORCETOC",
    "TOC",
    "NEWSECTIONLINK",
    "NONEWSECTIONLINK",
    "HIDDENCAT",
    "INDEX",
    "NOINDEX",
    "STATICREDIRECT",
    "DISAMBIG",
    "EXPECTUNUSEDCATEGORY",
];

/// Function hooks used as `{{name:args}}` (compared case-insensitively).
const FUNCTIONS: &[&str] = &[
    "ns",
    "nse",
    "urlencode",
    "lcfirst",
    "ucfirst",
    "lc",
    "uc",
    "localurl",
    "localurle",
    "fullurl",
    "fullurle",
    "canonicalurl",
    "canonicalurle",
    "formatnum",
    "grammar",
    "gender",
    "plural",
    "bidi",
    "numberofpages",
    "numberofusers",
    "numberofactiveusers",
    "numberofarticles",
    "numberoffiles",
    "numberofadmins",
    "numberingroup",
    "numberofedits",
    "language",
    "padleft",
    "padright",
    "anchorencode",
    "defaultsort",
    "defaultsortkey",
    "defaultcategorysort",
    "displaytitle",
    "filepath",
    "pageid",
    "int",
    "special",
    "speciale",
    "tag",
    "formatdate",
    "dateformat",
    "pagesincategory",
    "pagesincat",
    "pagesize",
    "protectionlevel",
    "protectionexpiry",
    "namespace",
    "namespacee",
    "namespacenumber",
    "talkspace",
    "talkspacee",
    "subjectspace",
    "subjectspacee",
    "pagename",
    "pagenamee",
    "fullpagename",
    "fullpagenamee",
    "subpagename",
    "subpagenamee",
    "basepagename",
    "basepagenamee",
    "rootpagename",
    "rootpagenamee",
    "talkpagename",
    "talkpagenamee",
    "subjectpagename",
    "subjectpagenamee",
    "revisionid",
    "revisionday",
    "revisionday2",
    "revisionmonth",
    "revisionmonth1",
    "revisionyear",
    "revisiontimestamp",
    "revisionuser",
    "cascadingsources",
    "pagesinnamespace",
    "pagesinns",
    "noexternallanglinks",
    "msg",
    "msgnw",
    "raw",
    "subst",
    "safesubst",
];

/// What a `{{…}}` call is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallKind {
    /// A template (or page) transclusion; the name to normalize in the Template namespace.
    Template(String),
    /// `{{#invoke:Module|…}}`: a Scribunto module.
    Invoke(String),
    /// A parser function or variable (not a template).
    Function(String),
}

/// Classifies a call by its (expanded) title text.
pub(crate) fn classify(title: &str) -> CallKind {
    let t = title.trim_matches(|c: char| c.is_whitespace());
    // Modifiers that keep the call a template: subst/safesubst (saved pages hold none),
    // msg/msgnw/raw.
    let mut name = t;
    loop {
        let lower = name.to_ascii_lowercase();
        let mut stripped = false;
        for m in ["subst:", "safesubst:", "msgnw:", "msg:", "raw:"] {
            if lower.starts_with(m) {
                name = name[m.len()..].trim_start();
                stripped = true;
                break;
            }
        }
        if !stripped {
            break;
        }
    }
    if let Some(rest) = name.strip_prefix('#') {
        let (f, arg) = rest.split_once(':').unwrap_or((rest, ""));
        if f.trim().eq_ignore_ascii_case("invoke") {
            return CallKind::Invoke(arg.trim().to_string());
        }
        return CallKind::Function(format!("#{}", f.trim().to_ascii_lowercase()));
    }
    if VARIABLES.contains(&name) {
        return CallKind::Function(name.to_string());
    }
    if let Some((f, _)) = name.split_once(':') {
        let f = f.trim();
        if FUNCTIONS.iter().any(|x| x.eq_ignore_ascii_case(f)) {
            return CallKind::Function(f.to_ascii_lowercase());
        }
    }
    CallKind::Template(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_calls() {
        assert_eq!(
            classify(" Infobox river\n"),
            CallKind::Template("Infobox river".into())
        );
        assert_eq!(classify("safesubst:Foo"), CallKind::Template("Foo".into()));
        assert_eq!(classify("#if: x"), CallKind::Function("#if".into()));
        assert_eq!(
            classify("#invoke:Coordinates"),
            CallKind::Invoke("Coordinates".into())
        );
        assert_eq!(classify("PAGENAME"), CallKind::Function("PAGENAME".into()));
        assert_eq!(
            classify("DEFAULTSORT:Smith, John"),
            CallKind::Function("defaultsort".into())
        );
        assert_eq!(classify("lc:ABC"), CallKind::Function("lc".into()));
        assert_eq!(classify("!"), CallKind::Function("!".into()));
        assert_eq!(
            classify("Template:Main"),
            CallKind::Template("Template:Main".into())
        );
        assert_eq!(
            classify(":Agricultural science"),
            CallKind::Template(":Agricultural science".into())
        );
    }
}
