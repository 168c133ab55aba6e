//! Real-world dump shapes, on constructed dumps: duplicate titles, namespace aliases of
//! the content language, language-specific title rules.

use std::path::{Path, PathBuf};

use crate::util::*;

/// The page id `text` resolves to, from `resolve --json`.
fn resolved_id(index: &Path, text: &str) -> Option<u64> {
    let o = wikiwit()
        .args(["resolve", "--json", "--index"])
        .arg(index)
        .arg(text)
        .output()
        .unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    v["page"]["page_id"].as_u64()
}

fn warnings_of(index: &Path, kind: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(index.join("warnings.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|w| w["kind"] == kind)
        .collect()
}

/// Two pages titled "Oder" (ids 1 and 3) and "Elbe" (id 2), each with its
/// (timestamp, text), written as `dir/dup.xml`.
fn oder_elbe_oder(dir: &Path, pages: [(&str, &str); 3]) -> PathBuf {
    let [first, elbe, second] = pages;
    let xml = dump_xml(
        "en",
        "dupwiki",
        "first-letter",
        EN_NS,
        &[
            page(1, 0, "Oder", first.0, first.1),
            page(2, 0, "Elbe", elbe.0, elbe.1),
            page(3, 0, "Oder", second.0, second.1),
        ],
    );
    write_dump(dir, "dup.xml", &xml)
}

/// [`oder_elbe_oder`] with Elbe linking to Oder; `first_ts` and `second_ts` are the two
/// Oder revisions' timestamps.
fn duplicate_dump(dir: &Path, first_ts: &str, second_ts: &str) -> PathBuf {
    oder_elbe_oder(
        dir,
        [
            (first_ts, "The first '''Oder'''. [[Category:Rivers]]"),
            ("2024-03-01T00:00:00Z", "Near the [[Oder]]."),
            (second_ts, "The second '''Oder'''."),
        ],
    )
}

fn check_duplicate(first_ts: &str, second_ts: &str, kept: u64, dropped: u64) {
    let tmp = tempdir();
    let dump = duplicate_dump(tmp.path(), first_ts, second_ts);
    for threads in ["1", "3"] {
        let index = tmp.path().join(format!("ix{threads}"));
        let summary = build(&dump, &index, &["-j", threads, "--memory-budget", "4K"]);
        assert!(
            summary.contains("duplicates  1 page(s)"),
            "summary: {summary}"
        );
        assert_eq!(resolved_id(&index, "Oder"), Some(kept));
        let w = warnings_of(&index, "duplicate-title");
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0]["page_id"], dropped);
        assert_eq!(w[0]["title"], "Oder");
        assert!(
            w[0]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("same title as page {kept}")),
            "{w:?}"
        );
        let pages = export(&index, "pages");
        assert_eq!(
            pages.lines().filter(|l| l.contains("\tOder\t")).count(),
            1,
            "{pages}"
        );
        assert!(pages.contains(&format!("{kept}\t0\tOder\t0")), "{pages}");
        let links = export(&index, "links");
        assert!(links.contains("Elbe\t0\tOder"), "{links}");
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(index.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(manifest["counts"]["duplicate_titles"], 1);
    }
}

#[test]
fn duplicate_title_keeps_the_newest_revision_when_it_comes_second() {
    check_duplicate("2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z", 3, 1);
}

#[test]
fn duplicate_title_keeps_the_newest_revision_when_it_comes_first() {
    check_duplicate("2024-06-01T00:00:00Z", "2024-01-01T00:00:00Z", 1, 3);
}

#[test]
fn duplicate_title_with_equal_timestamps_keeps_the_first_in_the_dump() {
    check_duplicate("2024-06-01T00:00:00Z", "2024-06-01T00:00:00Z", 1, 3);
}

#[test]
fn duplicate_titles_are_refused_with_strict() {
    let tmp = tempdir();
    let dump = duplicate_dump(tmp.path(), "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z");
    let index = tmp.path().join("ix");
    refused(
        wikiwit()
            .arg("build")
            .arg(&dump)
            .arg("--index")
            .arg(&index)
            .args(["-q", "--strict"]),
        &["dup.xml", "pages 1 and 3 both have the title \"Oder\""],
    );
    assert!(!index.exists());
}

/// The `(to_ns, to_title)` of every link in `index`.
fn link_targets(index: &Path) -> Vec<(i32, String)> {
    export(index, "links")
        .lines()
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c[2].parse().unwrap(), c[3].to_string())
        })
        .collect()
}

fn categories(index: &Path) -> Vec<String> {
    export(index, "categories")
        .lines()
        .map(|l| l.split('\t').nth(2).unwrap().to_string())
        .collect()
}

/// One wiki in content language `lang` whose only page's text is `text`; built with
/// `--no-expand` (nothing to expand).
fn one_page_wiki(dir: &Path, lang: &str, namespaces: &[(i32, &str, &str)], text: &str) -> PathBuf {
    let xml = dump_xml(
        lang,
        &format!("{}wiki", lang.replace('-', "_")),
        "first-letter",
        namespaces,
        &[page(1, 0, "Probe", "2024-01-01T00:00:00Z", text)],
    );
    let dump = write_dump(dir, &format!("{lang}.xml"), &xml);
    let index = dir.join(format!("ix-{lang}"));
    build(&dump, &index, &["--no-expand"]);
    index
}

/// Namespace names as a zhwiki dump lists them (the traditional-script names).
const ZH_NS: &[(i32, &str, &str)] = &[
    (0, "first-letter", ""),
    (2, "first-letter", "User"),
    (4, "first-letter", "Wikipedia"),
    (6, "first-letter", "File"),
    (10, "first-letter", "Template"),
    (14, "first-letter", "Category"),
];

#[test]
fn chinese_aliases_in_both_scripts_make_categories() {
    let tmp = tempdir();
    let index = one_page_wiki(
        tmp.path(),
        "zh",
        ZH_NS,
        "文字。[[分類:X]] [[分类:Y]] [[Category:Z]] [[:圖像:P.png]] [[用户:甲]]",
    );
    let mut cats = categories(&index);
    cats.sort();
    assert_eq!(cats, ["X", "Y", "Z"]);
    let links = link_targets(&index);
    assert!(links.contains(&(6, "P.png".into())), "{links:?}");
    assert!(links.contains(&(2, "甲".into())), "{links:?}");
}

#[test]
fn german_bild_is_a_file_and_user_has_a_female_form() {
    let tmp = tempdir();
    let ns = &[
        (0, "first-letter", ""),
        (2, "first-letter", "Benutzer"),
        (3, "first-letter", "Benutzer Diskussion"),
        (6, "first-letter", "Datei"),
        (14, "first-letter", "Kategorie"),
    ];
    let index = one_page_wiki(
        tmp.path(),
        "de",
        ns,
        "[[:Bild:Rhein.jpg]] [[Benutzerin:Anna]] [[Benutzerin Diskussion:Anna]] [[Bild Diskussion:R.jpg]]",
    );
    let links = link_targets(&index);
    for want in [(6, "Rhein.jpg"), (2, "Anna"), (3, "Anna"), (7, "R.jpg")] {
        assert!(
            links.contains(&(want.0, want.1.into())),
            "{want:?} in {links:?}"
        );
    }
}

/// Cyrillic (ru, uk), Romance (fr, es, pt, it, ca), Polish, Arabic script (ar, arz,
/// fa), Japanese, Vietnamese, Dutch, Swedish, Cebuano: each language's alias leads to
/// its namespace, and another language's alias does not.
#[test]
fn aliases_by_language_family() {
    let cases: &[(&str, &str, i32, &str)] = &[
        ("ru", "[[Участница:Анна]]", 2, "Анна"),
        ("ru", "[[:Изображение:Волга.jpg]]", 6, "Волга.jpg"),
        ("uk", "[[:Зображення:Дніпро.jpg]]", 6, "Дніпро.jpg"),
        ("fr", "[[Utilisatrice:Marie]]", 2, "Marie"),
        ("fr", "[[Discussion Image:Seine.jpg]]", 7, "Seine.jpg"),
        ("es", "[[Usuaria:Ana]]", 2, "Ana"),
        ("es", "[[:Imagen:Ebro.jpg]]", 6, "Ebro.jpg"),
        ("pt", "[[Utilizadora:Rita]]", 2, "Rita"),
        ("pt", "[[:Arquivo:Tejo.jpg]]", 6, "Tejo.jpg"),
        ("it", "[[:Immagine:Po.jpg]]", 6, "Po.jpg"),
        ("ca", "[[Usuària:Núria]]", 2, "Núria"),
        ("pl", "[[Użytkowniczka:Ewa]]", 2, "Ewa"),
        ("pl", "[[:Grafika:Wisła.jpg]]", 6, "Wisła.jpg"),
        ("ar", "[[:صورة:نيل.jpg]]", 6, "نيل.jpg"),
        ("arz", "[[:صورة:نيل.jpg]]", 6, "نيل.jpg"),
        ("fa", "[[:تصویر:کارون.jpg]]", 6, "کارون.jpg"),
        ("ja", "[[:画像:利根川.jpg]]", 6, "利根川.jpg"),
        ("vi", "[[Tiêu bản:Sông]]", 10, "Sông"),
        ("nl", "[[:Afbeelding:Maas.jpg]]", 6, "Maas.jpg"),
        ("sv", "[[Bilddiskussion:Göta.jpg]]", 7, "Göta.jpg"),
        ("ceb", "[[:Imahen:Suba.jpg]]", 6, "Suba.jpg"),
    ];
    let tmp = tempdir();
    for (i, (lang, text, ns, title)) in cases.iter().enumerate() {
        let dir = tmp.path().join(i.to_string());
        std::fs::create_dir(&dir).unwrap();
        let index = one_page_wiki(&dir, lang, EN_NS, text);
        let links = link_targets(&index);
        assert!(
            links.contains(&(*ns, title.to_string())),
            "{lang}: {text} → {links:?}"
        );
    }
    // German's `Bild` means nothing on an English wiki: a main-namespace link.
    let dir = tmp.path().join("en");
    std::fs::create_dir(&dir).unwrap();
    let index = one_page_wiki(&dir, "en", EN_NS, "[[Bild:Rhein.jpg]]");
    assert_eq!(link_targets(&index), [(0, "Bild:Rhein.jpg".to_string())]);
}

/// Wiktionary: the main namespace is case-sensitive, categories are not.
#[test]
fn case_sensitive_namespaces_keep_the_first_letter() {
    let tmp = tempdir();
    let ns = &[(0, "case-sensitive", ""), (14, "first-letter", "Category")];
    let xml = dump_xml(
        "en",
        "enwiktionary",
        "case-sensitive",
        ns,
        &[
            page(
                1,
                0,
                "apple",
                "2024-01-01T00:00:00Z",
                "[[Apple]] [[Category:fruits]]",
            ),
            page(2, 0, "Apple", "2024-01-01T00:00:00Z", "[[apple]]"),
        ],
    );
    let dump = write_dump(tmp.path(), "wikt.xml", &xml);
    let index = tmp.path().join("ix");
    build(&dump, &index, &["--no-expand"]);
    assert_eq!(resolved_id(&index, "apple"), Some(1));
    assert_eq!(resolved_id(&index, "Apple"), Some(2));
    assert!(warnings_of(&index, "duplicate-title").is_empty());
    assert_eq!(categories(&index), ["Fruits"]);
}

/// Turkish and its relatives capitalize `i` as dotted `İ`; others as `I`.
#[test]
fn turkic_languages_capitalize_dotted_i() {
    let tmp = tempdir();
    for (lang, title, other) in [
        ("tr", "İstanbul", "Istanbul"),
        ("az", "İçərişəhər", "Içərişəhər"),
        ("en", "Istanbul", "İstanbul"),
    ] {
        let dir = tmp.path().join(lang);
        std::fs::create_dir(&dir).unwrap();
        let lower = format!("i{}", title.chars().skip(1).collect::<String>());
        let xml = dump_xml(
            lang,
            &format!("{lang}wiki"),
            "first-letter",
            EN_NS,
            &[
                page(1, 0, title, "2024-01-01T00:00:00Z", "A city."),
                page(
                    2,
                    0,
                    "Probe",
                    "2024-01-01T00:00:00Z",
                    &format!("[[{lower}]]"),
                ),
            ],
        );
        let dump = write_dump(&dir, "d.xml", &xml);
        let index = dir.join("ix");
        build(&dump, &index, &["--no-expand"]);
        assert_eq!(resolved_id(&index, &lower), Some(1), "{lang}: {lower}");
        assert_eq!(resolved_id(&index, other), None, "{lang}: {other}");
        assert_eq!(link_targets(&index), [(0, title.to_string())], "{lang}");
    }
}

/// Georgian Mkhedruli stays lower case on Wikimedia wikis (`$wgOverrideUcfirstCharacters`);
/// a default MediaWiki upper-cases it to Mtavruli, as PHP's `mb_strtoupper` does.
#[test]
fn georgian_is_not_capitalized_to_mtavruli_on_wikimedia() {
    let tmp = tempdir();
    let xml = dump_xml(
        "ka",
        "kawiki",
        "first-letter",
        EN_NS,
        &[page(1, 0, "თბილისი", "2024-01-01T00:00:00Z", "[[მტკვარი]]")],
    );
    let dump = write_dump(tmp.path(), "ka.xml", &xml);
    let wm = tmp.path().join("wm");
    build(&dump, &wm, &["--no-expand", "--interwiki", "wikimedia"]);
    assert_eq!(link_targets(&wm), [(0, "მტკვარი".to_string())]);
    assert!(export(&wm, "pages").contains("\tთბილისი\t"));
    let mw = tmp.path().join("mw");
    build(&dump, &mw, &["--no-expand", "--interwiki", "mediawiki"]);
    assert_eq!(link_targets(&mw), [(0, "Მტკვარი".to_string())]);
    assert_eq!(resolved_id(&mw, "თბილისი"), Some(1));
}

/// Page 1, an older "Oder", loses its title to page 3: its categories, its links and
/// its words must not make it appear in category members, backlinks or search results,
/// where it would show as a second "Oder" (or as the only member of its own category).
#[test]
fn a_shadowed_duplicate_is_in_no_listing() {
    let tmp = tempdir();
    let dump = oder_elbe_oder(
        tmp.path(),
        [
            (
                "2024-01-01T00:00:00Z",
                "The old '''Oder''' passes a zebrafish hatchery near the [[Elbe]]. [[Category:Rivers]] [[Category:Hatcheries]]",
            ),
            (
                "2024-03-01T00:00:00Z",
                "Near the [[Oder]]. [[Category:Rivers]]",
            ),
            (
                "2024-06-01T00:00:00Z",
                "The new '''Oder''' meets the [[Elbe]] in zebra country. [[Category:Rivers]]",
            ),
        ],
    );
    let index = tmp.path().join("ix");
    build(&dump, &index, &[]);
    let members = ok(wikiwit()
        .args(["category", "Rivers", "--index"])
        .arg(&index));
    assert!(members.contains("2 pages"), "{members}");
    assert_eq!(members.matches("  Oder").count(), 1, "{members}");
    let o = wikiwit()
        .args(["category", "Hatcheries", "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "only the shadowed page is in it: {}",
        stdout(&o)
    );
    let backlinks = ok(wikiwit()
        .args(["links", "Elbe", "--in", "--index"])
        .arg(&index));
    assert_eq!(backlinks.matches("Oder").count(), 1, "{backlinks}");
    let hits = |q: &str| -> Vec<u64> {
        ok(wikiwit()
            .args(["search", q, "--json", "--index"])
            .arg(&index))
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["page_id"]
                .as_u64()
                .unwrap()
        })
        .collect()
    };
    assert_eq!(hits("zebra"), vec![3]);
    assert_eq!(hits("zebrafish hatchery"), Vec::<u64>::new());
    let oder = hits("Oder");
    assert!(oder.contains(&3) && !oder.contains(&1), "{oder:?}");
}
