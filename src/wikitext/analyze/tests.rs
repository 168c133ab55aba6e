//! The page walk on small pages: link contexts, sections, infoboxes and cells.

use super::*;
use crate::siteinfo::SiteInfo;
use crate::title::InterwikiProfile;

fn codec() -> TitleCodec {
    TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki)
}

fn links(text: &str) -> Vec<(String, Context, bool)> {
    analyze(text, 0, "Page", &codec(), "en")
        .links
        .into_iter()
        .map(|l| (l.dbkey, l.context, l.in_template))
        .collect()
}

#[test]
fn contexts_and_template_arguments() {
    let l = links(
        "Lead [[a]].\n* item [[b]]\n{|\n| [[c]]\n|}\n{{Foo|x=[[d]]}}<ref>[[e]]</ref> [[Page]] [[Category:X]]",
    );
    assert_eq!(
        l,
        vec![
            ("A".into(), Context::Prose, false),
            ("B".into(), Context::List, false),
            ("C".into(), Context::Table, false),
            ("D".into(), Context::Template, true),
            ("E".into(), Context::Ref, false),
        ]
    );
}

#[test]
fn sections_and_anchors() {
    let s = analyze(
        "x\n== A [[b|B]] ==\n=== ''C'' ===\n== A B ==\n",
        0,
        "P",
        &codec(),
        "en",
    )
    .sections;
    let got: Vec<(u8, &str, &str)> = s
        .iter()
        .map(|s| (s.level, s.anchor.as_str(), s.number.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![(2, "A_B", "1"), (3, "C", "1.1"), (2, "A_B_2", "2")]
    );
}

#[test]
fn infobox_fields_and_table_cells() {
    let p = analyze(
        "{{Infobox river\n| name = Danube\n| length = {{convert|2850|km}}\n| mouth = [[Black Sea]]\n}}\n{| class=wikitable\n! River !! Length\n|-\n| [[Danube]] || 2,850\n|}",
        0,
        "Danube",
        &codec(),
        "en",
    );
    let ib = &p.infoboxes[0];
    assert_eq!(ib.template, "Infobox_river");
    assert_eq!(ib.fields[2].name, "mouth");
    assert_eq!(ib.fields[2].text, "Black Sea");
    assert_eq!(p.links[ib.fields[2].links[0] as usize].dbkey, "Black_Sea");
    let t = &p.tables[0];
    assert_eq!(t.rows[1].cells[0].text, "Danube");
    assert_eq!(t.rows[1].cells[1].text, "2,850");
    assert!(t.rows[0].cells[0].header);
    assert_eq!(p.templates.iter().filter(|t| t.direct).count(), 1);
}

#[test]
fn a_hash_opening_a_link_label_or_cell_is_text() {
    let p = analyze(
        "{| class=wikitable\n! # !! Team\n|-\n| 1 || [[Southern Miss Golden Eagles|# 19 Southern Miss]]\n|-\n|2||# 8 Notre Dame\n|}\n# [[Item]] one\n",
        0,
        "Poll",
        &codec(),
        "en",
    );
    let t = &p.tables[0];
    assert_eq!(t.rows[0].cells[0].text, "#");
    assert_eq!(t.rows[1].cells[1].text, "# 19 Southern Miss");
    assert_eq!(t.rows[2].cells[1].text, "# 8 Notre Dame");
    let (_, text) = analyze_with_text("# [[Item|# one]]\n#two\n", 0, "L", &codec(), "en");
    let all: Vec<&str> = text.sentences().map(|(_, _, s)| s.text.as_str()).collect();
    assert!(all.iter().any(|s| s.contains("# one")), "{all:?}");
    assert!(!all.iter().any(|s| s.contains("#two")), "{all:?}");
}
