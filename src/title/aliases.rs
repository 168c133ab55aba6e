//! MediaWiki's per-language namespace aliases (`$namespaceAliases` and the gender forms
//! of `$namespaceGenderAliases`): names a wiki accepts in links although its dump's
//! `<siteinfo>` does not list them (`[[分類:X]]` on zhwiki, `[[Bild:X]]` on dewiki).
//!
//! The table is data (`namespace_aliases.tsv`, with its sources), chosen by the dump's
//! content language: `<mediawiki xml:lang>`, or the language part of `<dbname>` when the
//! dump has no `xml:lang`.

/// The alias table: `lang \t namespace \t alias` lines, `#` comments.
const TABLE: &str = include_str!("namespace_aliases.tsv");

/// The languages whose aliases also apply to `lang`: itself, then its fallbacks as
/// MediaWiki's LocalisationCache merges them (Egyptian Arabic falls back to Arabic;
/// Chinese accepts both the simplified and the traditional script).
fn chain(lang: &str) -> Vec<&'static str> {
    match lang {
        "arz" => vec!["arz", "ar"],
        "zh" | "zh-hans" | "zh-hant" | "zh-cn" | "zh-sg" | "zh-my" | "zh-tw" | "zh-hk"
        | "zh-mo" => vec!["zh-hans", "zh-hant"],
        "pt-br" => vec!["pt"],
        _ => Vec::new(),
    }
}

/// The content language of a wiki: `xml:lang`, else the part of the database name before
/// `wiki` (`zhwiki` → `zh`, `zh_classicalwiki` → `zh-classical`), lower-cased.
pub(crate) fn content_language(lang: &str, dbname: &str) -> String {
    let lang = lang.trim();
    let from_db = || dbname.strip_suffix("wiki").unwrap_or("").replace('_', "-");
    let l = if lang.is_empty() {
        from_db()
    } else {
        lang.to_string()
    };
    l.to_ascii_lowercase().replace('_', "-")
}

/// The aliases (namespace number, alias with underscores) for content language `lang`;
/// `$1` is replaced by `project`, the wiki's project namespace name.
pub(crate) fn for_language(lang: &str, project: &str) -> Vec<(i32, String)> {
    let mut langs: Vec<&str> = vec![lang];
    langs.extend(chain(lang));
    let mut out = Vec::new();
    for line in TABLE.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut cols = line.split('\t');
        let (Some(l), Some(ns), Some(alias)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        if !langs.contains(&l) {
            continue;
        }
        let Ok(ns) = ns.parse::<i32>() else { continue };
        out.push((ns, alias.replace("$1", &project.replace(' ', "_"))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Languages among the 20 largest Wikipedias' whose MediaWiki language file declares
    /// no aliases: they get only the canonical English names and `Image`.
    const LANGUAGES_WITHOUT_ALIASES: &[&str] = &["en", "war"];

    /// The 20 largest Wikipedias' content languages.
    const TOP20: &[&str] = &[
        "en", "ceb", "de", "fr", "sv", "nl", "ru", "es", "it", "arz", "pl", "ja", "zh", "vi", "uk",
        "war", "ar", "pt", "fa", "ca",
    ];

    #[test]
    fn every_top_language_has_aliases_or_is_known_to_have_none() {
        for lang in TOP20 {
            let n = for_language(lang, "Wikipedia").len();
            assert!(
                n > 0 || LANGUAGES_WITHOUT_ALIASES.contains(lang),
                "{lang}: no aliases"
            );
        }
    }

    #[test]
    fn table_lines_are_well_formed() {
        for line in TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 3, "{line:?}");
            assert!(cols[1].parse::<i32>().is_ok(), "{line:?}");
            assert!(!cols[2].contains(' '), "underscores, not spaces: {line:?}");
        }
    }

    #[test]
    fn chinese_gets_both_scripts_and_egyptian_arabic_gets_arabic() {
        let zh = for_language("zh", "Wikipedia");
        assert!(zh.contains(&(14, "分類".to_string())));
        assert!(zh.contains(&(14, "分类".to_string())));
        let arz = for_language("arz", "ويكيبيديا");
        assert!(arz.contains(&(6, "صورة".to_string())));
    }

    #[test]
    fn project_placeholder_takes_the_project_name() {
        let ceb = for_language("ceb", "Wikipedia");
        assert!(ceb.contains(&(5, "Hisgot_saWikipedia".to_string())));
    }

    #[test]
    fn content_language_from_lang_or_dbname() {
        assert_eq!(content_language("zh", "zhwiki"), "zh");
        assert_eq!(content_language("", "dewiki"), "de");
        assert_eq!(content_language("", "zh_classicalwiki"), "zh-classical");
        assert_eq!(content_language("pt-BR", "x"), "pt-br");
    }
}
