//! Magic variables (`{{PAGENAME}}`, `{{CURRENTYEAR}}`, `{{SITENAME}}`, …) and the page
//! name functions that take a title (`{{PAGENAME:Other page}}`). Names are matched
//! case-sensitively, as MediaWiki registers them.

use super::expander::{Expander, State};
use super::messages::Messages;
use super::php::{escape_wikitext, wf_urlencode};
use super::time;
use crate::title::TitleCodec;

/// Namespaces where `/` makes subpages (`$wgNamespacesWithSubpages` as MediaWiki 1.39
/// ships it, plus Scribunto's module namespaces).
const NS_WITH_SUBPAGES: &[i32] = &[1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 828, 829];

/// What a page-name magic word shows of a title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PageVar {
    PageName,
    FullPageName,
    BasePageName,
    RootPageName,
    SubPageName,
    TalkPageName,
    SubjectPageName,
    Namespace,
    NamespaceNumber,
    TalkSpace,
    SubjectSpace,
}

const PAGE_WORDS: &[(&str, PageVar)] = &[
    ("PAGENAME", PageVar::PageName),
    ("FULLPAGENAME", PageVar::FullPageName),
    ("BASEPAGENAME", PageVar::BasePageName),
    ("ROOTPAGENAME", PageVar::RootPageName),
    ("SUBPAGENAME", PageVar::SubPageName),
    ("TALKPAGENAME", PageVar::TalkPageName),
    ("SUBJECTPAGENAME", PageVar::SubjectPageName),
    ("ARTICLEPAGENAME", PageVar::SubjectPageName),
    ("NAMESPACE", PageVar::Namespace),
    ("NAMESPACENUMBER", PageVar::NamespaceNumber),
    ("TALKSPACE", PageVar::TalkSpace),
    ("SUBJECTSPACE", PageVar::SubjectSpace),
    ("ARTICLESPACE", PageVar::SubjectSpace),
];

/// The page-name word `name` and whether it is the URL-encoded (`…E`) variant.
pub(super) fn page_var(name: &str) -> Option<(PageVar, bool)> {
    for &(word, var) in PAGE_WORDS {
        if name == word {
            return Some((var, false));
        }
        if var != PageVar::NamespaceNumber
            && name.len() == word.len() + 1
            && name.starts_with(word)
            && name.ends_with('E')
        {
            return Some((var, true));
        }
    }
    None
}

fn talk_ns(ns: i32) -> Option<i32> {
    (ns >= 0).then_some(ns | 1)
}

fn subject_ns(ns: i32) -> i32 {
    if ns >= 0 { ns & !1 } else { ns }
}

fn ns_text(codec: &TitleCodec, ns: i32) -> String {
    codec
        .namespaces()
        .name_of(ns)
        .unwrap_or("")
        .replace('_', " ")
}

/// The value of a page-name word for page (`ns`, `dbkey`).
pub(super) fn page_value(
    codec: &TitleCodec,
    var: PageVar,
    encoded: bool,
    ns: i32,
    dbkey: &str,
) -> String {
    let text = dbkey.replace('_', " ");
    let subpages = NS_WITH_SUBPAGES.contains(&ns);
    // (text, is a namespace name) — namespace names are not escaped.
    let (value, is_ns) = match var {
        PageVar::PageName => (text, false),
        PageVar::FullPageName => (codec.prefixed_text(ns, dbkey), false),
        PageVar::BasePageName => (
            match text.rfind('/') {
                Some(p) if subpages => text[..p].to_string(),
                _ => text,
            },
            false,
        ),
        PageVar::RootPageName => (
            match text.find('/') {
                Some(p) if subpages => text[..p].to_string(),
                _ => text,
            },
            false,
        ),
        PageVar::SubPageName => (
            match text.rfind('/') {
                Some(p) if subpages => text[p + 1..].to_string(),
                _ => text,
            },
            false,
        ),
        PageVar::TalkPageName => (
            talk_ns(ns)
                .map(|t| codec.prefixed_text(t, dbkey))
                .unwrap_or_default(),
            false,
        ),
        PageVar::SubjectPageName => (codec.prefixed_text(subject_ns(ns), dbkey), false),
        PageVar::Namespace => (ns_text(codec, ns), true),
        PageVar::NamespaceNumber => (ns.to_string(), true),
        PageVar::TalkSpace => (
            talk_ns(ns).map(|t| ns_text(codec, t)).unwrap_or_default(),
            true,
        ),
        PageVar::SubjectSpace => (ns_text(codec, subject_ns(ns)), true),
    };
    if encoded {
        wf_urlencode(&value.replace(' ', "_"))
    } else if is_ns {
        value
    } else {
        escape_wikitext(&value)
    }
}

/// A page-name function on a title given as text (`{{PAGENAME:X}}`); an invalid title
/// gives the empty string.
pub(super) fn page_value_of(codec: &TitleCodec, var: PageVar, encoded: bool, text: &str) -> String {
    match codec.parse(text, crate::title::NS_MAIN) {
        Ok(t) if t.interwiki.is_none() => page_value(codec, var, encoded, t.ns, &t.dbkey),
        _ => String::new(),
    }
}

/// The value of variable `name`, `None` when it is not a variable.
pub(super) fn variable(ex: &Expander<'_>, st: &mut State, name: &str) -> Option<String> {
    if let Some((var, encoded)) = page_var(name) {
        st.page_dependent();
        let (ns, dbkey) = (st.page_ns, st.page_dbkey.clone());
        return Some(page_value(ex.codec(), var, encoded, ns, &dbkey));
    }
    let cfg = ex.config();
    if let Some(rest) = name
        .strip_prefix("CURRENT")
        .or_else(|| name.strip_prefix("LOCAL"))
    {
        return date_variable(rest, cfg.now, &cfg.messages);
    }
    let host = cfg
        .server
        .trim_start_matches("https:")
        .trim_start_matches("http:");
    let s = &cfg.stats;
    Some(match name {
        "!" => "|".to_string(),
        "=" => "=".to_string(),
        "SITENAME" => cfg.sitename.clone(),
        "SERVER" => cfg.server.clone(),
        "SERVERNAME" => host.trim_start_matches('/').to_string(),
        "SCRIPTPATH" => cfg.script_path.clone(),
        "STYLEPATH" => format!("{}/skins", cfg.script_path),
        "ARTICLEPATH" => cfg.article_path.clone(),
        "CONTENTLANGUAGE" | "CONTENTLANG" => cfg.lang.clone(),
        "DIRECTIONMARK" | "DIRMARK" => "\u{200E}".to_string(),
        "CURRENTVERSION" => "1.39.0".to_string(),
        "NUMBEROFARTICLES" => s.articles.to_string(),
        "NUMBEROFPAGES" => s.pages.to_string(),
        "NUMBEROFFILES" => s.files.to_string(),
        "NUMBEROFEDITS" => s.edits.to_string(),
        "NUMBEROFUSERS" => s.users.to_string(),
        "NUMBEROFACTIVEUSERS" => s.active_users.to_string(),
        "NUMBEROFADMINS" => s.admins.to_string(),
        "REVISIONID" | "REVISIONDAY" | "REVISIONDAY2" | "REVISIONMONTH" | "REVISIONMONTH1"
        | "REVISIONYEAR" | "REVISIONTIMESTAMP" | "REVISIONUSER" | "REVISIONSIZE" | "PAGEID" => {
            st.page_dependent();
            revision_variable(name, ex.revision(), &cfg.messages)
        }
        _ => return None,
    })
}

/// `REVISION…` and `PAGEID` from the revision being expanded; empty when the caller gave
/// none (text expanded outside a page) and for `REVISIONUSER` (the dump reader does not
/// keep contributors).
fn revision_variable(name: &str, rev: Option<super::PageRevision>, names: &Messages) -> String {
    let Some(rev) = rev else {
        return String::new();
    };
    let dt = time::at(rev.timestamp);
    match name {
        "REVISIONID" => rev.rev_id.map(|r| r.to_string()).unwrap_or_default(),
        "PAGEID" => rev.page_id.to_string(),
        "REVISIONSIZE" => rev.size.map(|r| r.to_string()).unwrap_or_default(),
        "REVISIONYEAR" => format!("{:04}", dt.year()),
        "REVISIONMONTH" => format!("{:02}", dt.month() as u8),
        "REVISIONMONTH1" => (dt.month() as u8).to_string(),
        "REVISIONDAY" => dt.day().to_string(),
        "REVISIONDAY2" => format!("{:02}", dt.day()),
        "REVISIONTIMESTAMP" => time::format("YmdHis", dt, names),
        _ => String::new(),
    }
}

/// `CURRENT…` / `LOCAL…` (the wiki's local time zone is taken to be UTC).
fn date_variable(rest: &str, now: i64, names: &Messages) -> Option<String> {
    let dt = time::at(now);
    let month = dt.month() as usize;
    let dow = dt.weekday().number_days_from_sunday() as usize;
    Some(match rest {
        "YEAR" => format!("{:04}", dt.year()),
        "MONTH" | "MONTH2" => format!("{month:02}"),
        "MONTH1" => month.to_string(),
        "MONTHNAME" => names.month_name(month as u8).to_string(),
        "MONTHNAMEGEN" => names.month_genitive(month as u8).to_string(),
        "MONTHABBREV" => names.month_abbrev(month as u8).to_string(),
        "DAY" => dt.day().to_string(),
        "DAY2" => format!("{:02}", dt.day()),
        "DAYNAME" => names.day_name(dow as u8).to_string(),
        "DOW" => dow.to_string(),
        "WEEK" => dt.iso_week().to_string(),
        "TIME" => time::format(&names.date_formats.time, dt, names),
        "HOUR" => format!("{:02}", dt.hour()),
        "TIMESTAMP" => time::format("YmdHis", dt, names),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_words_are_recognised() {
        assert_eq!(page_var("PAGENAME"), Some((PageVar::PageName, false)));
        assert_eq!(page_var("PAGENAMEE"), Some((PageVar::PageName, true)));
        assert_eq!(
            page_var("FULLPAGENAMEE"),
            Some((PageVar::FullPageName, true))
        );
        assert_eq!(page_var("NAMESPACE"), Some((PageVar::Namespace, false)));
        assert_eq!(page_var("NAMESPACEE"), Some((PageVar::Namespace, true)));
        assert_eq!(
            page_var("NAMESPACENUMBER"),
            Some((PageVar::NamespaceNumber, false))
        );
        assert_eq!(page_var("TALKSPACEE"), Some((PageVar::TalkSpace, true)));
        assert_eq!(page_var("pagename"), None);
        assert_eq!(page_var("PAGENAMEEE"), None);
    }
}
