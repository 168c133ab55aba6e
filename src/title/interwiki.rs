//! Interwiki prefixes: `[[wikt:word]]` is a link to another wiki, not to a local page.
//! The profile also selects how the first letter of titles is capitalized: a default
//! MediaWiki upper-cases `ß` to `SS` (PHP's `mb_strtoupper`), Wikimedia keeps `ß`.
//!
//! The prefix table lives in a wiki's database, not in its dump, so wikiwit ships two
//! profiles. `mediawiki` is the table a fresh MediaWiki install creates
//! (`maintenance/interwiki.list`); it is what the conformance oracle in `../shared/oracle`
//! was computed with. `wikimedia` adds the prefixes every Wikimedia wiki has (language
//! codes, sister projects); with it `[[de:Berlin]]` is an interlanguage link, as on
//! Wikipedia itself. `auto` picks `wikimedia` for dumps whose `<base>` is a Wikimedia host.

use std::collections::HashSet;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Prefixes of MediaWiki core's default `interwiki.list`.
const MEDIAWIKI_DEFAULT: &[&str] = &[
    "acronym",
    "arxiv",
    "c2",
    "cache",
    "commons",
    "dictionary",
    "doi",
    "dwjwiki",
    "elibre",
    "emacswiki",
    "foldoc",
    "freebsdman",
    "google",
    "googlegroups",
    "hammondwiki",
    "hrwiki",
    "imdb",
    "linuxwiki",
    "lojban",
    "lqwiki",
    "meatball",
    "mediawikiwiki",
    "memoryalpha",
    "metawikimedia",
    "mozillawiki",
    "mw",
    "oeis",
    "pmid",
    "pythoninfo",
    "rfc",
    "s23wiki",
    "senseislibrary",
    "shoutwiki",
    "squeak",
    "tmbw",
    "theopedia",
    "twiki",
    "uncyclopedia",
    "unreal",
    "usemod",
    "wikia",
    "wikibooks",
    "wikidata",
    "wikif1",
    "wikihow",
    "wikimedia",
    "wikinews",
    "wikipedia",
    "wikiquote",
    "wikisource",
    "wikispecies",
    "wikiwikiweb",
    "wikiversity",
    "wikivoyage",
    "wikt",
    "wiktionary",
];

/// Sister-project and infrastructure prefixes of the Wikimedia interwiki map.
const WIKIMEDIA_PROJECTS: &[&str] = &[
    "b",
    "betawikiversity",
    "bugzilla",
    "c",
    "d",
    "foundation",
    "gerrit",
    "incubator",
    "m",
    "mail",
    "mailarchive",
    "mediazilla",
    "meta",
    "metawikipedia",
    "n",
    "outreach",
    "phab",
    "phabricator",
    "q",
    "quality",
    "rev",
    "s",
    "spcom",
    "species",
    "strategy",
    "testwiki",
    "ticket",
    "toolforge",
    "translatewiki",
    "usability",
    "v",
    "voy",
    "w",
    "wikitech",
    "wmf",
];

/// Wikipedia language editions (interlanguage prefixes) and their historic aliases.
const WIKIMEDIA_LANGUAGES: &str = "aa ab ace ady af ak als alt am ami an ang anp ar arc ary arz as \
ast atj av avk awa ay az azb ba ban bar bat-smg bbc bcl be be-tarask be-x-old bg bh bi bjn blk bm \
bn bo bpy br bs bug bxr ca cbk-zam cdo ce ceb ch cho chr chy ckb co cr crh cs csb cu cv cy cz da \
dag de din diq dk dsb dty dv dz ee el eml en eo epo es et eu ext fa fat ff fi fiu-vro fj fo fon \
fr frp frr fur fy ga gag gan gcr gd gl glk gn gom gor got gpe gu guc gur guw gv ha hak haw he hi \
hif ho hr hsb ht hu hy hyw hz ia id ie ig ii ik ilo inh io is it iu ja jam jbo jp jv ka kaa kab \
kbd kbp kcg kg ki kj kk kl km kn ko koi kr krc ks ksh ku kv kw ky la lad lb lbe lez lfn lg li \
lij lld lmo ln lo lrc lt ltg lv lzh mad mai map-bms mdf mg mh mhr mi min minnan mk ml mn mni mnw \
mo mr mrj ms mt mus mwl my myv mzn na nah nan nap nb nds nds-nl ne new ng nia nl nn no nov nqo \
nrm nso nv ny oc olo om or os pa pag pam pap pcd pcm pdc pfl pi pih pl pms pnb pnt ps pt pwn qu \
rm rmy rn ro roa-rup roa-tara ru rue rup rw sa sah sat sc scn sco sd se sg sgs sh shi shn si \
simple sk skr sl sm smn sn so sq sr srn ss st stq su sv sw szl szy ta tay tcy te tet tg th ti \
tk tl tly tn to tpi tr trv ts tt tum tw ty tyv udm ug uk ur uz ve vec vep vi vls vo vro wa war \
wo wuu xal xh xmf yi yo yue za zea zgh zh zh-classical zh-cn zh-min-nan zh-tw zh-yue zu";

/// Which interwiki table to assume.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InterwikiProfile {
    /// Decide from the dump's `<base>` host.
    Auto,
    /// MediaWiki core's default table (what a fresh install, and the oracle, has).
    Mediawiki,
    /// The Wikimedia interwiki map: core table + language editions + sister projects.
    Wikimedia,
}

impl FromStr for InterwikiProfile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(InterwikiProfile::Auto),
            "mediawiki" => Ok(InterwikiProfile::Mediawiki),
            "wikimedia" => Ok(InterwikiProfile::Wikimedia),
            other => Err(format!(
                "unknown interwiki profile `{other}` (expected auto, mediawiki or wikimedia)"
            )),
        }
    }
}

impl InterwikiProfile {
    pub const ALL: [InterwikiProfile; 3] = [
        InterwikiProfile::Auto,
        InterwikiProfile::Mediawiki,
        InterwikiProfile::Wikimedia,
    ];

    /// Resolves `Auto` against the dump's host name.
    pub fn resolve(self, host: &str) -> InterwikiProfile {
        match self {
            InterwikiProfile::Auto => {
                const HOSTS: &[&str] = &[
                    "wikipedia.org",
                    "wiktionary.org",
                    "wikibooks.org",
                    "wikinews.org",
                    "wikiquote.org",
                    "wikisource.org",
                    "wikiversity.org",
                    "wikivoyage.org",
                    "wikimedia.org",
                    "wikidata.org",
                    "mediawiki.org",
                ];
                let host = host.to_ascii_lowercase();
                if HOSTS
                    .iter()
                    .any(|h| host == *h || host.ends_with(&format!(".{h}")))
                {
                    InterwikiProfile::Wikimedia
                } else {
                    InterwikiProfile::Mediawiki
                }
            }
            other => other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            InterwikiProfile::Auto => "auto",
            InterwikiProfile::Mediawiki => "mediawiki",
            InterwikiProfile::Wikimedia => "wikimedia",
        }
    }
}

/// A set of interwiki prefixes, matched case-insensitively.
#[derive(Debug, Clone)]
pub struct InterwikiMap {
    prefixes: HashSet<String>,
    languages: HashSet<String>,
}

impl InterwikiMap {
    /// The table for a resolved profile (`Auto` is treated as `Mediawiki`).
    pub fn new(profile: InterwikiProfile) -> InterwikiMap {
        let mut prefixes: HashSet<String> =
            MEDIAWIKI_DEFAULT.iter().map(|s| s.to_string()).collect();
        let mut languages = HashSet::new();
        if profile == InterwikiProfile::Wikimedia {
            prefixes.extend(WIKIMEDIA_PROJECTS.iter().map(|s| s.to_string()));
            for code in WIKIMEDIA_LANGUAGES.split_whitespace() {
                prefixes.insert(code.to_string());
                languages.insert(code.to_string());
            }
        }
        InterwikiMap {
            prefixes,
            languages,
        }
    }

    /// Every prefix, sorted, each with whether it is a language edition.
    pub(crate) fn prefixes(&self) -> Vec<(&str, bool)> {
        let mut all: Vec<(&str, bool)> = self
            .prefixes
            .iter()
            .map(|p| (p.as_str(), self.languages.contains(p)))
            .collect();
        all.sort_unstable();
        all
    }

    /// Whether `prefix` (as written, spaces or underscores) is an interwiki prefix.
    pub fn contains(&self, prefix: &str) -> bool {
        self.prefixes.contains(
            &prefix
                .replace('_', " ")
                .trim()
                .to_lowercase()
                .replace(' ', "_"),
        )
    }

    /// Whether `prefix` is a language edition (`[[de:X]]` without a leading colon is then an
    /// interlanguage link, shown in the sidebar rather than in the text).
    pub(crate) fn is_language(&self, prefix: &str) -> bool {
        self.languages.contains(&prefix.to_lowercase())
    }
}
