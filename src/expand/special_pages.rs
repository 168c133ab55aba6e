//! Which `Special:` pages exist, for `{{#ifexist:Special:…}}`: MediaWiki answers it
//! from its list of special pages, not from the page table, so the dump cannot.
//!
//! The names are facts read from MediaWiki 1.39 (the core list of
//! `includes/specialpage/SpecialPageFactory.php` and the English aliases of
//! `languages/messages/MessagesEn.php`); extensions add their own pages, and a wiki's
//! language adds local aliases, neither of which a dump records. MediaWiki matches a
//! name case-insensitively (it case-folds the alias table), and a subpage
//! (`Special:Contributions/Name`) exists when its page does.

/// Core special pages and their English aliases, lower-cased.
const NAMES: &[&str] = &[
    "activeusers",
    "allmessages",
    "allmyfiles",
    "allmyuploads",
    "allpages",
    "ancientpages",
    "apihelp",
    "apisandbox",
    "autoblocklist",
    "blankpage",
    "block",
    "blockip",
    "blocklist",
    "blockuser",
    "booksources",
    "botpasswords",
    "brokenredirects",
    "categories",
    "changecontentmodel",
    "changecredentials",
    "changeemail",
    "changepassword",
    "comparepages",
    "confirmemail",
    "contribs",
    "contributions",
    "createaccount",
    "deadendpages",
    "deletedcontributions",
    "deletepage",
    "diff",
    "doubleredirects",
    "edit",
    "editpage",
    "edittags",
    "editwatchlist",
    "email",
    "emailuser",
    "expandtemplates",
    "export",
    "fewestrevisions",
    "fileduplicatesearch",
    "filepath",
    "gotointerwiki",
    "history",
    "import",
    "info",
    "invalidateemail",
    "ipblocklist",
    "javascripttest",
    "linkaccounts",
    "linksearch",
    "listadmins",
    "listbots",
    "listduplicatedfiles",
    "listfiles",
    "listgrants",
    "listgrouprights",
    "listimages",
    "listredirects",
    "listusers",
    "lockdb",
    "log",
    "login",
    "logs",
    "lonelypages",
    "longpages",
    "mediastatistics",
    "mergehistory",
    "mimesearch",
    "mostcategories",
    "mostfiles",
    "mostimages",
    "mostinterwikis",
    "mostlinked",
    "mostlinkedcategories",
    "mostlinkedfiles",
    "mostlinkedtemplates",
    "mostrevisions",
    "move",
    "movepage",
    "mute",
    "mycontributions",
    "mylanguage",
    "mypage",
    "mytalk",
    "myuploads",
    "newfiles",
    "newimages",
    "newpages",
    "newsection",
    "pagedata",
    "pagehistory",
    "pageinfo",
    "pageswithprop",
    "passwordpolicies",
    "passwordreset",
    "permalink",
    "permanentlink",
    "preferences",
    "prefixindex",
    "protectedpages",
    "protectedtitles",
    "purge",
    "random",
    "randomincategory",
    "randompage",
    "randomredirect",
    "randomrootpage",
    "recentchanges",
    "recentchangeslinked",
    "redirect",
    "relatedchanges",
    "removecredentials",
    "resettokens",
    "runjobs",
    "search",
    "shortpages",
    "specialpages",
    "statistics",
    "tags",
    "trackingcategories",
    "unblock",
    "uncategorizedcategories",
    "uncategorizedfiles",
    "uncategorizedimages",
    "uncategorizedpages",
    "uncategorizedtemplates",
    "undelete",
    "unlinkaccounts",
    "unlockdb",
    "unusedcategories",
    "unusedfiles",
    "unusedimages",
    "unusedtemplates",
    "unwatchedpages",
    "upload",
    "uploadstash",
    "userlogin",
    "userlogout",
    "userrights",
    "version",
    "wantedcategories",
    "wantedfiles",
    "wantedpages",
    "wantedtemplates",
    "watchlist",
    "whatlinkshere",
    "withoutinterwiki",
];

/// Whether `Special:dbkey` names a special page (a subpage of one included).
pub(super) fn exists(dbkey: &str) -> bool {
    let folded = dbkey.split('/').next().unwrap_or("").to_lowercase();
    NAMES.binary_search(&folded.as_str()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_lower_case_and_unique() {
        assert!(NAMES.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
        assert!(NAMES.iter().all(|n| *n == n.to_lowercase()));
    }

    #[test]
    fn canonical_names_aliases_and_subpages_exist() {
        for name in [
            "RecentChanges",
            "Recentchanges",
            "Search",
            "Contributions/Example",
            "WhatLinksHere/Danube",
            "Random",
        ] {
            assert!(exists(name), "{name}");
        }
        for name in ["", "NoSuchPage", "Recent", "Danube"] {
            assert!(!exists(name), "{name}");
        }
    }
}
