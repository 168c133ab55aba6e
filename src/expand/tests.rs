//! Expected outputs follow MediaWiki's documentation of each construct (Help:Templates,
//! Help:Magic words, Help:Extension:ParserFunctions).

use std::borrow::Cow;
use std::collections::HashMap;

use super::*;
use crate::redirect::{self, RedirectSyntax};
use crate::siteinfo::SiteInfo;
use crate::title::{InterwikiProfile, TitleCodec};

pub(super) struct Pages {
    pub(super) codec: TitleCodec,
    pages: HashMap<(i32, String), String>,
}

impl Pages {
    pub(super) fn new(pages: &[(&str, &str)]) -> Pages {
        let codec = TitleCodec::new(&SiteInfo::synthesized("en"), InterwikiProfile::Mediawiki);
        let pages = pages
            .iter()
            .map(|(title, text)| {
                let t = codec.parse_page_title(title).expect("valid test title");
                ((t.ns, t.dbkey), text.to_string())
            })
            .collect();
        Pages { codec, pages }
    }
}

impl TemplateSource for Pages {
    fn wikitext(&self, ns: i32, dbkey: &str) -> Option<Cow<'_, str>> {
        self.pages
            .get(&(ns, dbkey.to_string()))
            .map(|s| Cow::Borrowed(s.as_str()))
    }

    fn exists(&self, ns: i32, dbkey: &str) -> bool {
        self.pages.contains_key(&(ns, dbkey.to_string()))
    }

    fn redirect(&self, ns: i32, dbkey: &str) -> Option<(i32, String)> {
        let text = self.pages.get(&(ns, dbkey.to_string()))?;
        match redirect::parse(text, "en", false, &self.codec) {
            RedirectSyntax::Target(t) => Some((t.ns, t.dbkey)),
            _ => None,
        }
    }

    fn holds_templates(&self) -> bool {
        self.pages.keys().any(|(ns, _)| *ns == 10)
    }
}

/// 2017-09-20 13:45:30 UTC, a Wednesday.
const NOW: i64 = 1_505_915_130;

pub(super) fn config() -> ExpandConfig {
    let mut site = SiteInfo::synthesized("en");
    site.sitename = "Wikipedia".to_string();
    site.base = "https://en.wikipedia.org/wiki/Main_Page".to_string();
    ExpandConfig::from_site(&site, NOW)
}

fn run_with(pages: &[(&str, &str)], title: &str, text: &str, limits: Limits) -> Expansion {
    let src = Pages::new(pages);
    let mut cfg = config();
    cfg.limits = limits;
    let ex = Expander::new(&src, &src.codec, cfg);
    let t = src.codec.parse_page_title(title).expect("valid page title");
    ex.expand_page(t.ns, &t.dbkey, text)
}

pub(super) fn run(pages: &[(&str, &str)], text: &str) -> Expansion {
    run_with(pages, "Test page", text, Limits::default())
}

fn ex(text: &str) -> String {
    run(&[], text).text
}

fn ex_on(title: &str, text: &str) -> String {
    run_with(&[], title, text, Limits::default()).text
}

pub(super) fn templates(e: &Expansion) -> Vec<String> {
    e.templates
        .iter()
        .map(|(ns, k)| format!("{ns}:{k}"))
        .collect()
}

#[test]
fn arguments_named_positional_and_defaults() {
    let pages = [(
        "Template:T",
        "[{{{1}}}][{{{2}}}][{{{x}}}][{{{3|def}}}][{{{4}}}][{{{y|a=b}}}]",
    )];
    assert_eq!(
        run(&pages, "{{T|a| b |x = y }}").text,
        "[a][ b ][y][def][{{{4}}}][a=b]"
    );
    // `1=` is a named argument: trimmed, and a later duplicate wins.
    assert_eq!(
        run(&pages, "{{T|first|1= second |2=two|x=1|x=2}}").text,
        "[second][two][2][def][{{{4}}}][a=b]"
    );
    // On the page itself there are no arguments.
    assert_eq!(ex("{{{1}}} {{{1|d}}}"), "{{{1}}} d");
}

#[test]
fn inclusion_tags() {
    let pages = [
        (
            "Template:A",
            "a<noinclude>b</noinclude><includeonly>c</includeonly>",
        ),
        (
            "Template:O",
            "x<onlyinclude>y</onlyinclude>z<onlyinclude>{{{1|w}}}</onlyinclude>",
        ),
        ("Template:U", "a<noinclude>b"),
    ];
    assert_eq!(run(&pages, "{{A}}").text, "ac");
    assert_eq!(run(&pages, "{{O}}|{{O|v}}").text, "yw|yv");
    assert_eq!(run(&pages, "{{U}}").text, "a");
    // The page itself keeps noinclude content and drops includeonly content.
    assert_eq!(
        ex("a<noinclude>b</noinclude><includeonly>c</includeonly>"),
        "ab"
    );
}

#[test]
fn titles_namespaces_redirects_and_missing_templates() {
    let pages = [
        ("Template:T", "t"),
        ("Main article", "m"),
        ("Help:H", "h"),
        ("Template:R", "#REDIRECT [[Template:T]]"),
        ("Template:R2", "#REDIRECT [[Template:Gone]]"),
    ];
    let e = run(
        &pages,
        "{{T}}{{Template:T}}{{:Main article}}{{Help:H}}{{R}}{{ t }}{{Missing}}",
    );
    assert_eq!(e.text, "ttmhtt[[:Template:Missing]]");
    assert_eq!(
        templates(&e),
        ["10:T", "0:Main_article", "12:H", "10:R", "10:Missing"]
    );
    // A redirect to a missing template transcludes the redirect itself.
    let e = run(&pages, "{{R2}}");
    // (At the start of the text, not of a line: a `#` output starts a new line.)
    assert_eq!(e.text, "\n#REDIRECT [[Template:Gone]]");
    assert_eq!(templates(&e), ["10:R2", "10:Gone"]);
}

#[test]
fn subst_and_modifiers() {
    let pages = [("Template:T", "t[[x]]")];
    assert_eq!(run(&pages, "{{subst:T|a}}").text, "{{subst:T|a}}");
    assert_eq!(run(&pages, "{{safesubst:T}}").text, "t[[x]]");
    assert_eq!(run(&pages, "{{msg:T}}").text, "t[[x]]");
    assert_eq!(run(&pages, "{{msgnw:T}}").text, "t&#91;&#91;x&#93;&#93;");
}

#[test]
fn only_arguments_used_are_expanded_and_recorded() {
    let pages = [
        ("Template:Ignores", "nothing"),
        ("Template:Uses", "{{{1}}}"),
        ("Template:Inner", "i"),
    ];
    let e = run(&pages, "{{Ignores|{{Inner}}}}");
    assert_eq!(templates(&e), ["10:Ignores"]);
    let e = run(&pages, "{{Uses|{{Inner}}}}");
    assert_eq!(e.text, "i");
    assert_eq!(templates(&e), ["10:Uses", "10:Inner"]);
    // Branches not taken are not expanded either.
    let e = run(&pages, "{{#if:|{{Inner}}|{{Uses|x}}}}");
    assert_eq!(templates(&e), ["10:Uses"]);
}

#[test]
fn block_output_starts_a_line() {
    let pages = [("Template:List", "* a"), ("Template:Table", "{|\n|x\n|}")];
    assert_eq!(run(&pages, "x{{List}}").text, "x\n* a");
    assert_eq!(run(&pages, "x\n{{List}}").text, "x\n* a");
    assert_eq!(run(&pages, "x{{Table}}").text, "x\n{|\n|x\n|}");
    assert_eq!(ex("x{{#if:1|# n}}"), "x\n# n");
}

#[test]
fn template_loops_are_detected() {
    let pages = [
        ("Template:L", "x{{L}}"),
        ("Template:A", "a{{B}}"),
        ("Template:B", "b{{A}}"),
    ];
    let e = run(&pages, "{{L}}");
    assert_eq!(
        e.text,
        "x<span class=\"error\">Template loop detected: [[Template:L]]</span>"
    );
    assert!(matches!(&e.warnings[..], [Warning::TemplateLoop { title }] if title == "Template:L"));
    let e = run(&pages, "{{A}}");
    assert_eq!(
        e.text,
        "ab<span class=\"error\">Template loop detected: [[Template:A]]</span>"
    );
    // A page transcluding itself is expanded once.
    let e = run_with(
        &[("Self", "s{{:Self}}")],
        "Self",
        "s{{:Self}}",
        Limits::default(),
    );
    assert!(
        e.text
            .starts_with("ss<span class=\"error\">Template loop detected")
    );
}

#[test]
fn page_variables() {
    assert_eq!(
        ex_on(
            "Help:A b/c/d",
            "{{PAGENAME}}|{{FULLPAGENAME}}|{{BASEPAGENAME}}|{{ROOTPAGENAME}}|{{SUBPAGENAME}}"
        ),
        "A b/c/d|Help:A b/c/d|A b/c|A b|d"
    );
    // The main namespace has no subpages.
    assert_eq!(ex_on("A/b", "{{BASEPAGENAME}}|{{SUBPAGENAME}}"), "A/b|A/b");
    assert_eq!(
        ex_on(
            "User talk:X y",
            "{{NAMESPACE}}|{{NAMESPACENUMBER}}|{{TALKSPACE}}|{{SUBJECTSPACE}}|{{TALKPAGENAME}}|{{SUBJECTPAGENAME}}"
        ),
        "User talk|3|User talk|User|User talk:X y|User:X y"
    );
    assert_eq!(
        ex_on(
            "Help:A b/ā",
            "{{PAGENAMEE}}|{{FULLPAGENAMEE}}|{{NAMESPACEE}}"
        ),
        "A_b/%C4%81|Help:A_b/%C4%81|Help"
    );
    assert_eq!(ex_on("A'b", "{{PAGENAME}}"), "A&#39;b");
    assert_eq!(
        ex(
            "{{PAGENAME:Help:X y}}|{{TALKPAGENAME:Template:Navbar}}|{{NAMESPACE:Category:Z}}|{{PAGENAME:}}"
        ),
        "X y|Template talk:Navbar|Category|"
    );
    assert_eq!(
        ex("{{SITENAME}}|{{SERVER}}|{{SERVERNAME}}|{{CONTENTLANG}}|{{!}}|{{=}}"),
        "Wikipedia|//en.wikipedia.org|en.wikipedia.org|en|||="
    );
    // With an argument, a variable name is a template.
    assert_eq!(ex("{{PAGENAME|x}}"), "[[:Template:PAGENAME]]");
}

#[test]
fn date_variables_use_the_pinned_time() {
    assert_eq!(
        ex(
            "{{CURRENTYEAR}}-{{CURRENTMONTH}}-{{CURRENTDAY2}} {{CURRENTDAY}} {{CURRENTMONTH1}} {{CURRENTMONTHNAME}} {{CURRENTMONTHABBREV}}"
        ),
        "2017-09-20 20 9 September Sep"
    );
    assert_eq!(
        ex(
            "{{CURRENTDAYNAME}} {{CURRENTDOW}} {{CURRENTWEEK}} {{CURRENTTIME}} {{CURRENTHOUR}} {{CURRENTTIMESTAMP}} {{LOCALYEAR}}"
        ),
        "Wednesday 3 38 13:45 13 20170920134530 2017"
    );
}

#[test]
fn case_and_encoding_functions() {
    assert_eq!(
        ex("{{lc:ÀBC}}|{{uc:straße}}|{{lcfirst:ABC}}|{{ucfirst:ßa}}|{{UC:x}}"),
        "àbc|STRASSE|aBC|SSa|X"
    );
    assert_eq!(
        ex("{{urlencode:a b&c/d}}|{{urlencode:a b&c|WIKI}}|{{urlencode:a b&c|PATH}}"),
        "a+b%26c%2Fd|a_b%26c|a%20b%26c"
    );
    assert_eq!(ex("{{anchorencode:x y \"z\"}}"), "x_y_&quot;z&quot;");
    assert_eq!(
        ex("{{ns:10}}|{{ns:template}}|{{ns:0}}|{{nse:11}}|{{ns:Image}}|{{ns:nonsense}}"),
        "Template|Template||Template_talk|File|"
    );
    assert_eq!(
        ex("{{fullurl:A b|action=edit}}|{{localurl:A b}}|{{localurl:A&b|x=1}}|{{canonicalurl:A}}"),
        "//en.wikipedia.org/w/index.php?title=A_b&action=edit|/wiki/A_b|/w/index.php?title=A%26b&x=1|https://en.wikipedia.org/wiki/A"
    );
}

#[test]
fn number_and_text_functions() {
    assert_eq!(
        ex("{{formatnum:1234567.5}}|{{formatnum:1,234.5|R}}"),
        "1,234,567.5|1234.5"
    );
    assert_eq!(
        ex("{{padleft:7|3}}|{{padright:ab|5|xy}}|{{padleft:abc|2|0}}|{{padleft:|2|-}}"),
        "007|abxyx|abc|--"
    );
    assert_eq!(
        ex("{{plural:1|page|pages}} {{plural:2|page|pages}} {{plural:1,000|page|pages}}"),
        "page pages pages"
    );
    assert_eq!(
        ex("{{gender:|he|she|they}} {{grammar:genitive|Wiki}}"),
        "they Wiki"
    );
    assert_eq!(
        ex("{{#tag:ref|Hi [[A]]|name=x|group=\"g\"}}"),
        "<ref name=\"x\" group=\"g\">Hi [[A]]</ref>"
    );
    assert_eq!(ex("{{#tag:blink|x|a=1}}"), "<blink a=\"1\">x</blink>");
    assert_eq!(
        ex("{{#language:de}} {{#language:de|en}} {{#language:xx}}"),
        "Deutsch German xx"
    );
    assert_eq!(ex("{{int:edit}}"), "⧼edit⧽");
    assert_eq!(
        run(&[("MediaWiki:Hello", "Hello, $1!")], "{{int:hello|you}}").text,
        "Hello, you!"
    );
    assert_eq!(ex("{{DEFAULTSORT:Key}}x"), "x");
    assert_eq!(
        run(&[], "{{DEFAULTSORT:Key}}").default_sort.as_deref(),
        Some("Key")
    );
}

#[test]
fn conditionals() {
    assert_eq!(
        ex("{{#if: |yes|no}}|{{#if: x | yes | no }}|{{#if:x|a=b}}|{{#if:}}"),
        "no|yes|a=b|"
    );
    assert_eq!(
        ex(
            "{{#ifeq: 01 | 1 | eq | ne}}|{{#ifeq: a | A | eq | ne}}|{{#ifeq:&amp;|&|y|n}}|{{#ifeq:1e3|1000|y|n}}"
        ),
        "eq|ne|y|y"
    );
    assert_eq!(
        ex(
            "{{#iferror:{{#expr:1/0}}|err|ok}}|{{#iferror:fine|err}}|{{#iferror:fine|err|ok}}|{{#iferror:<span class=\"x error\">e</span>|E}}"
        ),
        "err|fine|ok|E"
    );
    assert_eq!(
        ex("{{#ifexpr: 1 > 0 | y | n}}|{{#ifexpr: | y | n}}|{{#ifexpr: 1/0 | y | n}}"),
        "y|n|<strong class=\"error\">Division by zero.</strong>"
    );
    assert_eq!(
        ex("{{#expr: 2 + 3 * 4}}|{{#expr: (2 + 3) * 4}}|{{#expr:}}"),
        "14|20|"
    );
    assert_eq!(
        ex(
            "{{#switch: b | a = 1 | b | c = 2 | #default = 3}}|{{#switch: z | a = 1 | 3}}|{{#switch: 01 | 1 = num}}|{{#switch: z | #default = d | a = 1}}|{{#switch: z | a = 1}}"
        ),
        "2|3|num|d|"
    );
    assert_eq!(ex("{{#switch:c|a|b|c}}"), "c");
}

#[test]
fn existence_checks_are_links() {
    let pages = [("Template:T", "t"), ("Present", "p")];
    let e = run(
        &pages,
        "{{#ifexist:Template:T|y|n}}{{#ifexist:Present|y|n}}{{#ifexist:Absent|y|n}}{{#ifexist:<bad>|y|n}}",
    );
    assert_eq!(e.text, "yynn");
    assert_eq!(
        e.existence_links,
        [
            (10, "T".to_string()),
            (0, "Present".to_string()),
            (0, "Absent".to_string())
        ]
    );
    assert_eq!(e.stats.expensive_functions, 3);
}

#[test]
fn time_and_paths() {
    assert_eq!(
        ex("{{#time:Y-m-d}}|{{#time:j F Y|2001-02-03}}|{{#time:Y|1990}}"),
        "2017-09-20|3 February 2001|1990"
    );
    assert_eq!(
        ex("{{#time:Y|garbage}}"),
        "<strong class=\"error\">Error: Invalid time.</strong>"
    );
    assert_eq!(
        ex(
            "{{#titleparts:Talk:Foo/bar/baz/quok|2}}|{{#titleparts:Talk:Foo/bar/baz/quok|2|2}}|{{#titleparts:Talk:Foo/bar/baz/quok|-1}}|{{#titleparts:Talk:Foo/bar/baz/quok||-1}}"
        ),
        "Talk:Foo/bar|bar/baz|Talk:Foo/bar/baz|quok"
    );
    assert_eq!(
        ex_on("Help:A", "{{#rel2abs:/x}}|{{#rel2abs:../b|Help:A/c}}"),
        "Help:A/x|Help:A/b"
    );
}

#[test]
fn invoke_of_a_missing_module_is_a_script_error() {
    let e = run(&[], "{{#invoke:Coordinates|coord|1|2}}");
    assert_eq!(
        e.text,
        "<strong class=\"error\"><span class=\"scribunto-error\" id=\"mw-scribunto-error-0\">Script error: No such module &quot;Coordinates&quot;.</span></strong>"
    );
    assert_eq!(templates(&e), ["828:Coordinates"]);
    assert_eq!(e.invoked_modules, ["Module:Coordinates"]);
    assert_eq!(ex("{{#iferror:{{#invoke:X|y}}|caught}}"), "caught");
}

#[test]
fn extension_tags_keep_their_form_and_expand_wikitext_content() {
    let pages = [(
        "Template:R",
        "<ref name=a>{{{1}}}</ref><nowiki>{{{1}}}</nowiki><!-- c -->",
    )];
    assert_eq!(
        run(&pages, "{{R|[[X]]}}").text,
        "<ref name=a>[[X]]</ref><nowiki>{{{1}}}</nowiki>"
    );
}

#[test]
fn cached_expansions_match_fresh_ones() {
    let pages = [
        ("Template:Name", "[[{{PAGENAME}}]]"),
        ("Template:Box", "<{{{1}}}|{{Inner}}>"),
        ("Template:Inner", "i"),
    ];
    let src = Pages::new(&pages);
    let ex = Expander::new(&src, &src.codec, config());
    let a1 = ex.expand_page(0, "A", "{{Box|x}}{{Box|x}}{{Name}}");
    let b = ex.expand_page(0, "B", "{{Name}}{{Box|x}}");
    let a2 = ex.expand_page(0, "A", "{{Box|x}}{{Box|x}}{{Name}}");
    assert_eq!(a1.text, "<x|i><x|i>[[A]]");
    assert_eq!(b.text, "[[B]]<x|i>");
    assert_eq!(a1, a2);
    assert_eq!(templates(&b), ["10:Name", "10:Box", "10:Inner"]);
}

/// `{{T|}}` and `{{T}}` have the same (empty) argument text but not the same arguments:
/// a cached `{{T|}}` must not serve `{{T}}`, on its page or on a later one (ltgwiki's
/// `{{Commonscat|}}` then `{{commonscat}}` gave the category an empty name).
#[test]
fn an_empty_argument_is_not_a_missing_one_for_the_cache() {
    let pages = [("Template:T", "[{{{1|{{PAGENAME}}}}}]")];
    let src = Pages::new(&pages);
    let ex = Expander::new(&src, &src.codec, config());
    assert_eq!(ex.expand_page(0, "A", "{{T|}}{{T}}").text, "[][A]");
    assert_eq!(ex.expand_page(0, "B", "{{T|}}").text, "[]");
    assert_eq!(ex.expand_page(0, "C", "{{T}}").text, "[C]");
    assert_eq!(ex.expand_page(0, "D", "{{T||}}{{T|}}{{T}}").text, "[][][D]");
}

fn chain(levels: usize, calls: &str) -> Vec<(String, String)> {
    (0..levels)
        .map(|i| {
            let body = if i + 1 == levels {
                "x".to_string()
            } else {
                calls.replace("N", &(i + 1).to_string())
            };
            (format!("Template:E{i}"), body)
        })
        .collect()
}

fn run_owned(pages: &[(String, String)], text: &str) -> Expansion {
    let refs: Vec<(&str, &str)> = pages
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    run(&refs, text)
}

#[test]
fn hostile_exponential_templates_are_bounded() {
    // Each level calls the next twice with different arguments: 2^40 calls unbounded.
    // What bounds it is the work count, not a clock (no timed assertion: the same
    // count on any machine, loaded or not).
    let pages = chain(40, "{{EN|a{{{1|}}}}}{{EN|b{{{1|}}}}}");
    let e = run_owned(&pages, "{{E0}}");
    assert!(!e.warnings.is_empty());
    assert!(e.stats.work <= Limits::default().work + 1_000_000);
    // Without arguments the cache makes it linear; the output size limit stops it.
    let pages = chain(40, "{{EN}}{{EN}}");
    let e = run_owned(&pages, "{{E0}}");
    assert!(e.stats.work <= Limits::default().work + 1_000_000);
    assert!(
        e.warnings
            .iter()
            .any(|w| matches!(w, Warning::PostExpandSize { .. }))
    );
    assert!(e.warnings.len() < 10, "{} warnings", e.warnings.len());
}

#[test]
fn hostile_deep_nesting_is_bounded() {
    let text = "{{#if:x|".repeat(200) + "deep" + &"}}".repeat(200);
    let e = run(&[], &text);
    assert!(e.stats.work <= Limits::default().work + 1_000_000);
    assert!(e.text.len() < text.len());
    // With MediaWiki's pre-1.38 expansion depth (40), the nesting overruns it.
    let limits = Limits {
        expand_depth: 40,
        ..Limits::default()
    };
    let e = run_with(&[], "P", &text, limits);
    assert!(e.text.contains("Expansion depth limit exceeded"));
    assert!(matches!(
        &e.warnings[..],
        [Warning::ExpandDepth { limit: 40 }]
    ));
    // Template depth.
    let limits = Limits {
        template_depth: 5,
        ..Limits::default()
    };
    let pages: Vec<(&str, &str)> = [
        ("Template:E0", "{{E1}}"),
        ("Template:E1", "{{E2}}"),
        ("Template:E2", "{{E3}}"),
        ("Template:E3", "{{E4}}"),
        ("Template:E4", "{{E5}}"),
        ("Template:E5", "{{E6}}"),
    ]
    .to_vec();
    let e = run_with(&pages, "P", "{{E0}}", limits);
    assert_eq!(
        e.text,
        "<span class=\"error\">Template recursion depth limit exceeded (5)</span>"
    );
    assert!(matches!(
        &e.warnings[..],
        [Warning::TemplateDepth { limit: 5, .. }]
    ));
    // A chain of 150 templates with the default limits.
    let pages = chain(150, "{{EN}}");
    let e = run_owned(&pages, "{{E0}}");
    assert!(e.warnings.iter().any(|w| matches!(
        w,
        Warning::TemplateDepth { .. } | Warning::ExpandDepth { .. }
    )));
}

#[test]
fn node_count_and_size_limits_warn() {
    let limits = Limits {
        node_count: 50,
        ..Limits::default()
    };
    let e = run_with(&[], "P", &"{{#if:x|y}}".repeat(100), limits);
    assert!(e.text.ends_with("Node-count limit exceeded</span>"));
    assert!(matches!(
        &e.warnings[..],
        [Warning::NodeCount { limit: 50 }]
    ));
    let limits = Limits {
        post_expand_size: 10,
        ..Limits::default()
    };
    let e = run_with(&[("Template:Big", "0123456789ab")], "P", "{{Big}}", limits);
    assert_eq!(
        e.text,
        "[[:Template:Big]]<!-- WARNING: template omitted, post-expand include size too large -->"
    );
    let limits = Limits {
        work: 100,
        ..Limits::default()
    };
    let e = run_with(&[], "P", &"{{#if:x|y}}".repeat(100), limits);
    assert!(e.text.len() < 100);
    assert!(matches!(
        &e.warnings[..],
        [Warning::WorkBudget { limit: 100 }]
    ));
    let limits = Limits {
        expensive_functions: 1,
        ..Limits::default()
    };
    let e = run_with(
        &[("A", ""), ("B", "")],
        "P",
        "{{#ifexist:A|y|n}}{{#ifexist:B|y|n}}",
        limits,
    );
    assert_eq!(e.text, "yn");
    assert!(matches!(
        &e.warnings[..],
        [Warning::ExpensiveFunctions { limit: 1 }]
    ));
}

/// `REVISION…` and `PAGEID` give the revision the caller set, per page, and a template
/// using them is not reused from another page's expansion.
#[test]
fn revision_variables_follow_the_page_being_expanded() {
    let src = Pages::new(&[("Template:Rev", "{{REVISIONID}}/{{PAGEID}}")]);
    let ex = Expander::new(&src, &src.codec, config());
    let text = "{{REVISIONYEAR}}-{{REVISIONMONTH}}-{{REVISIONDAY2}} {{REVISIONMONTH1}}/\
                {{REVISIONDAY}} {{REVISIONTIMESTAMP}} {{REVISIONSIZE}} {{Rev}} [{{REVISIONUSER}}]";
    assert_eq!(ex.expand_page(0, "A", text).text, "-- /   / []");
    ex.set_revision(Some(PageRevision {
        page_id: 12,
        rev_id: Some(7_000_123),
        timestamp: 1_488_499_200 + 3_723, // 2017-03-03 01:02:03 UTC
        size: Some(2_048),
    }));
    assert_eq!(
        ex.expand_page(0, "A", text).text,
        "2017-03-03 3/3 20170303010203 2048 7000123/12 []"
    );
    ex.set_revision(Some(PageRevision {
        page_id: 13,
        rev_id: None,
        timestamp: NOW,
        size: None,
    }));
    // A preview: no revision id or size.
    assert_eq!(
        ex.expand_page(0, "B", text).text,
        "2017-09-20 9/20 20170920134530  /13 []"
    );
}

/// `#ifexist` on a special page answers from MediaWiki's list, not from the pages.
#[test]
fn ifexist_knows_special_pages() {
    let e = run(
        &[],
        "{{#ifexist:Special:RecentChanges|y|n}}{{#ifexist:special:search/x|y|n}}\
         {{#ifexist:Special:NoSuchPage|y|n}}",
    );
    assert_eq!(e.text, "yyn");
}

fn cost<'e>(e: &'e Expansion, title: &str) -> &'e CallCost {
    e.costs
        .iter()
        .find(|c| c.title == title)
        .unwrap_or_else(|| panic!("no cost for {title}: {:?}", e.costs))
}

#[test]
fn costs_are_inclusive_per_template_page_and_replayed_with_cached_expansions() {
    let pages = [
        ("Template:Box", "<{{{1}}}|{{Inner}}{{Inner}}>"),
        ("Template:Inner", "i"),
        ("Template:Alias", "#REDIRECT [[Template:Box]]"),
    ];
    let src = Pages::new(&pages);
    let ex = Expander::new(&src, &src.codec, config());
    let once = ex.expand_page(0, "A", "{{Box|x}}");
    // The second and third calls are replayed from the cache: they count as the first.
    let thrice = ex.expand_page(0, "B", "{{Box|x}}{{Box|x}}{{Alias|x}}");
    assert_eq!(thrice.text, "<x|ii><x|ii><x|ii>");
    let (b1, b3) = (cost(&once, "Template:Box"), cost(&thrice, "Template:Box"));
    assert_eq!(
        (b1.calls, b3.calls),
        (1, 3),
        "a redirect counts for its target"
    );
    assert!(thrice.costs.iter().all(|c| c.title != "Template:Alias"));
    assert_eq!(cost(&thrice, "Template:Inner").calls, 6);
    for (one, three) in [
        (b1.nodes, b3.nodes),
        (b1.post_expand_size, b3.post_expand_size),
        (b1.work, b3.work),
    ] {
        assert_eq!(one * 3, three);
    }
    // Inclusive: Box's output (6 bytes) and its two Inners' (1 byte each) are Box's.
    assert_eq!(b1.post_expand_size, 8);
    assert_eq!(cost(&once, "Template:Inner").post_expand_size, 2);
    assert_eq!(once.stats.post_expand_size, b1.post_expand_size);
    assert!(b1.nodes > cost(&once, "Template:Inner").nodes);
    // The same page again, and on an expander that has seen nothing: the same costs.
    let fresh = Expander::new(&src, &src.codec, config());
    let page = "{{Box|x}}{{Box|x}}{{Alias|x}}";
    assert_eq!(fresh.expand_page(0, "B", page).costs, thrice.costs);
    assert_eq!(ex.expand_page(0, "B", page), thrice);
    // Parser functions and missing templates are no template's cost.
    let e = run(&pages, "{{#if:1|{{Box|y}}}}{{Missing}}");
    let titles: Vec<&str> = e.costs.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(titles, ["Template:Box", "Template:Inner"]);
}

#[test]
fn module_costs_count_each_invoke_and_what_it_expands() {
    let pages = [
        (
            "Module:Outer",
            "return { f = function(frame) local s = 0 for i = 1, 20000 do s = s + i end \
             return frame:expandTemplate{ title = 'Inner' } .. frame:preprocess('{{#invoke:Leaf|g}}') end }",
        ),
        ("Module:Leaf", "return { g = function() return 'n' end }"),
        ("Template:Inner", "i"),
        ("Template:Wrap", "{{#invoke:Outer|f}}"),
    ];
    let e = run(
        &pages,
        "{{Wrap}}{{Wrap|z}}{{#invoke:Leaf|g}}{{#invoke:Nowhere|g}}",
    );
    assert!(e.text.starts_with("ininn"), "{}", e.text);
    let (outer, wrap) = (cost(&e, "Module:Outer"), cost(&e, "Template:Wrap"));
    assert_eq!((outer.calls, wrap.calls), (2, 2));
    assert_eq!(
        cost(&e, "Module:Leaf").calls,
        3,
        "two nested, one on the page"
    );
    assert_eq!(cost(&e, "Template:Inner").calls, 2, "frame:expandTemplate");
    // A module that does not exist was still invoked.
    assert_eq!(cost(&e, "Module:Nowhere").calls, 1);
    // Wrap holds nothing but Outer's invoke: it ran as many instructions.
    assert!(outer.lua_instructions >= 20_000, "{outer:?}");
    assert_eq!(wrap.lua_instructions, outer.lua_instructions);
    assert!(e.stats.lua_instructions >= outer.lua_instructions);
}

/// What templates, parser functions and modules get of an extension tag is a strip
/// marker (`expander/strip.rs`); the page's text has the tag back.
#[test]
fn extension_tags_reach_what_reads_them_as_strip_markers() {
    let pages = [
        (
            "Module:M",
            "return { len = function(f) return #f.args[1] end, \
             kill = function(f) return mw.text.killMarkers(f.args[1]) end, \
             unstrip = function(f) return mw.text.unstrip(f.args[1]) end, \
             nowiki = function(f) return mw.text.unstripNoWiki(f.args[1]) end, \
             tag = function(f) return f:extensionTag('ref', 'r', { name = 'n' }) end, \
             show = function(f) return (f.args[1]:gsub('\\127', '@')) end }",
        ),
        ("Template:Echo", "{{{1}}}"),
        ("Template:Nw", "<nowiki>n</nowiki>"),
    ];
    let ex = |text: &str| run(&pages, text).text;
    // A marker is 31 bytes: "\x7f'\"`UNIQ--ref-00000000-QINU`\"'\x7f".
    assert_eq!(ex("{{#invoke:M|len|x<ref>abc</ref>}}"), "32");
    // Numbered from 0 on each page, named as the tag is written; `#tag` lower-cases.
    assert_eq!(
        ex("{{#invoke:M|show|<REF>x</REF>{{#tag:NOWIKI|y}}}}"),
        "@'\"`UNIQ--REF-00000000-QINU`\"'@@'\"`UNIQ--nowiki-00000001-QINU`\"'@"
    );
    assert_eq!(ex("{{#invoke:M|kill|a<ref>r</ref>b}}"), "ab");
    // A tag closed by `/` right after its name is one too.
    assert_eq!(ex("{{#invoke:M|len|<nowiki/><references/>}}"), "72");
    assert_eq!(
        ex("a{{Echo|<nowiki/>b}}<references/>"),
        "a<nowiki/>b<references/>"
    );
    assert_eq!(
        ex("{{#invoke:M|len|{{#invoke:M|unstrip|a<ref>r</ref><nowiki>n</nowiki>}}}}"),
        "19"
    );
    assert_eq!(
        ex("{{#invoke:M|len|{{#invoke:M|nowiki|<nowiki>n</nowiki><ref>r</ref>}}}}"),
        "49"
    );
    // Put back in the page's text, through templates and modules alike.
    assert_eq!(ex("a{{Echo|<ref>r</ref>}}b"), "a<ref>r</ref>b");
    assert_eq!(ex("{{#invoke:M|tag}}"), "<ref name=\"n\">r</ref>");
    assert_eq!(ex("{{#tag:nowiki|{{Echo|x}}}}"), "<nowiki>x</nowiki>");
    // Every tag gets its own marker, so two alike are not equal (MediaWiki's quirk),
    // even from the same template called twice.
    assert_eq!(
        ex("{{#ifeq:<nowiki>a</nowiki>|<nowiki>a</nowiki>|same|differ}}"),
        "differ"
    );
    assert_eq!(ex("{{#ifeq:{{Nw}}|{{Nw}}|same|differ}}"), "differ");
    // Case functions leave markers alone; `urlencode` and `anchorencode` drop them.
    assert_eq!(ex("{{lc:AB<nowiki>CD</nowiki>}}"), "ab<nowiki>CD</nowiki>");
    assert_eq!(ex("{{urlencode:a b<nowiki>c d</nowiki>}}"), "a+b");
    assert_eq!(ex("{{anchorencode:a<ref>r</ref>b}}"), "ab");
    // The same template's expansion is not replayed with another page's markers.
    let src = Pages::new(&pages);
    let expander = Expander::new(&src, &src.codec, config());
    for title in ["A", "B"] {
        let e = expander.expand_page(0, title, "{{Nw}}{{Nw}}");
        assert_eq!(e.text, "<nowiki>n</nowiki><nowiki>n</nowiki>", "{title}");
    }
}

/// The segments of a page's nodes point into its text after the markers are put back.
#[test]
fn segments_point_past_markers_put_back() {
    let pages = [("Template:T", "<nowiki>n</nowiki>z"), ("Template:U", "u")];
    let text = "a{{T}}b{{U}}<ref>{{T}}</ref>c";
    let e = run(&pages, text);
    assert_eq!(
        e.text,
        "a<nowiki>n</nowiki>zbu<ref><nowiki>n</nowiki>z</ref>c"
    );
    let pieces: Vec<(&str, &str)> = e
        .segments
        .iter()
        .map(|s| {
            let own = &text[s.own.start as usize..s.own.end as usize];
            let out = &e.text[s.out.start as usize..s.out.end as usize];
            (own, out)
        })
        .collect();
    assert_eq!(
        pieces,
        [
            ("a", "a"),
            ("{{T}}", "<nowiki>n</nowiki>z"),
            ("b", "b"),
            ("{{U}}", "u"),
            ("{{T}}", "<nowiki>n</nowiki>z"),
            ("c", "c"),
        ]
    );
}
