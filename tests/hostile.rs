//! Hostile wikitext: constructs that make naive parsers exponential or quadratic. The
//! build must finish, record warnings, and keep every page.

use std::fmt::Write;

use crate::util::*;

fn page(out: &mut String, id: u32, title: &str, text: &str) {
    let esc = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    writeln!(
        out,
        "<page><title>{title}</title><ns>0</ns><id>{id}</id><revision><id>{id}</id>\
         <timestamp>2024-01-01T00:00:00Z</timestamp><model>wikitext</model>\
         <text xml:space=\"preserve\">{esc}</text></revision></page>"
    )
    .unwrap();
}

fn hostile_dump() -> String {
    let mut x = String::from(
        "<mediawiki xml:lang=\"en\"><siteinfo><sitename>H</sitename><dbname>hostilewiki</dbname>\
         <base>https://hostile.example.org/wiki/Main</base><case>first-letter</case><namespaces>\
         <namespace key=\"0\" case=\"first-letter\" /><namespace key=\"10\" case=\"first-letter\">Template</namespace>\
         <namespace key=\"14\" case=\"first-letter\">Category</namespace></namespaces></siteinfo>\n",
    );
    // parse_wiki_text's exponential case: unclosed templates inside tables, 60 deep.
    let mut t = String::new();
    for i in 0..60 {
        t.push_str(&format!("{{|\n| cell {i} {{{{tpl{i}|arg|"));
    }
    t.push_str("[[Target]] end");
    page(&mut x, 1, "Unclosed templates in tables", &t);
    // Deeply nested links and image captions.
    let mut t = "[[a|".repeat(5000);
    t.push_str(&"]]".repeat(5000));
    t.push_str(&"[[File:X.jpg|thumb|".repeat(2000));
    t.push_str("[[Deep]]");
    page(&mut x, 2, "Nested links", &t);
    // Unclosed tags and comments, many times (quadratic searches in naive parsers).
    let mut t = "<ref>".repeat(20000);
    t.push_str(&"<!--".repeat(1000));
    t.push_str(&"<nowiki>".repeat(20000));
    page(&mut x, 3, "Unclosed tags", &t);
    // Brace soup.
    page(
        &mut x,
        4,
        "Braces",
        &"{{{{{{{{{{[[[[{{{{}}}]]]]".repeat(20000),
    );
    // A 10 MB page of realistic markup.
    let unit = "== Section ==\n'''Bold''' text with [[Link|a link]], {{Convert|12|km}} and a table:\n\
                {| class=\"wikitable\"\n! A !! B\n|-\n| [[X]] || 1,234\n|}\n* item [[Y]]\n<ref>[[Z]]</ref>\n";
    let mut big = String::with_capacity(10 << 20);
    while big.len() < 10 << 20 {
        big.push_str(unit);
    }
    page(&mut x, 5, "Ten megabytes", &big);
    x.push_str("</mediawiki>\n");
    x
}

#[test]
fn hostile_pages_are_indexed_in_bounded_time_with_warnings() {
    let tmp = tempdir();
    let dump = tmp.path().join("hostile.xml");
    std::fs::write(&dump, hostile_dump()).unwrap();
    let index = tmp.path().join("ix");
    let out = build(&dump, &index, &[]);
    assert!(out.contains("pages       5"), "{out}");
    let warnings = std::fs::read_to_string(index.join("warnings.jsonl")).unwrap();
    let titles: Vec<String> = warnings
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["title"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(
        titles.iter().any(|t| t == "Unclosed templates in tables"),
        "{warnings}"
    );
    assert!(titles.iter().any(|t| t == "Braces"), "{warnings}");
    // The real content of the big page is all there.
    let p = ok(wikiwit()
        .args(["page", "Ten megabytes", "--json", "--index"])
        .arg(&index));
    let v: serde_json::Value = serde_json::from_str(p.trim()).unwrap();
    let sections = v["sections"].as_array().unwrap().len();
    assert!(sections > 50_000, "{sections} sections");
    assert_eq!(v["tables"].as_array().unwrap().len(), sections);
    // The deepest link is still found.
    let links = ok(wikiwit()
        .args(["links", "Nested links", "--index"])
        .arg(&index));
    assert!(links.contains("Deep"), "{}", &links[..links.len().min(500)]);
}
