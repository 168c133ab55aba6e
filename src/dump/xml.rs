//! The XML layer: `<siteinfo>` and `<page>` elements into plain Rust values.
//!
//! Pages are parsed from regions that hold whole `<page>` elements only (see `pieces`),
//! which is what lets every region be parsed on its own thread. Text is taken with
//! `read_text` and unescaped in one pass: since quick-xml 0.38 an event loop would see
//! `&lt;`, `&gt;`, `&amp;` as separate `GeneralRef` events, and forgetting them silently
//! drops every `<`, `>` and `&` from wikitext.

use std::borrow::Cow;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::QName;

use crate::siteinfo::{CaseRule, Namespace, SiteInfo};

/// One page as the dump has it (latest revision only). The text borrows from the
/// decoded dump when it needs no unescaping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPage<'a> {
    pub id: u64,
    pub ns: i32,
    /// Prefixed title with spaces, as written in `<title>`.
    pub title: String,
    /// The `title` attribute of `<redirect>`, when present.
    pub redirect_attr: Option<String>,
    pub rev_id: u64,
    /// `<timestamp>` as written (ISO 8601, UTC).
    pub timestamp: Cow<'a, str>,
    /// Content model (`wikitext`, `Scribunto`, `css`, …); `wikitext` when absent.
    pub model: Cow<'a, str>,
    pub text: Cow<'a, str>,
    /// Byte offset of `<page>` within the region it was parsed from.
    pub offset: u64,
}

/// A parse failure inside a region: offset within the region, page title if known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct XmlFailure {
    pub offset: u64,
    pub page: Option<String>,
    pub message: String,
    /// The bytes are not UTF-8 (rather than malformed XML).
    pub utf8: bool,
}

fn fail(offset: u64, page: Option<&str>, message: impl Into<String>) -> XmlFailure {
    XmlFailure {
        offset,
        page: page.map(str::to_string),
        message: message.into(),
        utf8: false,
    }
}

/// A failure from quick-xml, telling encoding errors apart.
fn xml_fail(reader: &Reader<&[u8]>, page: Option<&str>, e: quick_xml::Error) -> XmlFailure {
    let mut f = fail(reader.error_position(), page, e.to_string());
    f.utf8 = matches!(e, quick_xml::Error::Encoding(_));
    f
}

/// Unescapes XML text, normalizing literal line ends first as XML 1.0 requires.
fn unescape_text(raw: &str) -> Result<Cow<'_, str>, String> {
    let raw: Cow<'_, str> = if raw.contains('\r') {
        Cow::Owned(raw.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(raw)
    };
    match quick_xml::escape::unescape(&raw) {
        Ok(Cow::Borrowed(_)) => Ok(raw),
        Ok(Cow::Owned(s)) => Ok(Cow::Owned(s)),
        Err(e) => Err(e.to_string()),
    }
}

/// Who a page is — title, namespace, id — read from the head of its `<page>` element
/// without parsing the page: for a pass that needs nothing else of most pages, so their
/// text is neither parsed nor unescaped nor copied. The first `<title>`, `<ns>` and
/// `<id>` of a page are its own (text is escaped); `None` when the head does not hold
/// them plainly, and the caller parses the page instead. The other fields are empty.
pub(crate) fn page_head(page: &[u8]) -> Option<RawPage<'static>> {
    let head = &page[..page.len().min(4096)];
    let inner = |open: &[u8], close: &[u8]| -> Option<&str> {
        let from = memchr::memmem::find(head, open)? + open.len();
        let to = from + memchr::memmem::find(&head[from..], close)?;
        std::str::from_utf8(&head[from..to]).ok()
    };
    let title = unescape_text(inner(b"<title>", b"</title>")?)
        .ok()?
        .into_owned();
    let ns = inner(b"<ns>", b"</ns>")?.trim().parse().ok()?;
    let id = inner(b"<id>", b"</id>")?.trim().parse().ok()?;
    Some(RawPage {
        id,
        ns,
        title,
        redirect_attr: None,
        rev_id: 0,
        timestamp: Cow::Borrowed(""),
        model: Cow::Borrowed("wikitext"),
        text: Cow::Borrowed(""),
        offset: 0,
    })
}

fn attr(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|err| err.to_string())?;
        if a.key.as_ref() == name {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| err.to_string())?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

/// Reads the text content of the element just opened (`name`), unescaped.
fn element_text(reader: &mut Reader<&[u8]>, name: &str) -> Result<String, String> {
    let raw = reader.read_text(QName(name)).map_err(|e| e.to_string())?;
    Ok(unescape_text(&raw)?.into_owned())
}

/// Like [`element_text`], but borrowing from the input when nothing needs unescaping
/// (wikitext is most of a dump; copying it would cost a full pass).
fn element_text_cow<'a>(reader: &mut Reader<&'a [u8]>, name: &str) -> Result<Cow<'a, str>, String> {
    let raw = reader
        .read_text(QName(name))
        .map_err(|e| match e {
            quick_xml::Error::Encoding(_) => format!("invalid UTF-8: {e}"),
            other => other.to_string(),
        })?
        .into_inner();
    match raw {
        Cow::Borrowed(s) => unescape_text(s),
        Cow::Owned(s) => Ok(Cow::Owned(unescape_text(&s)?.into_owned())),
    }
}

/// Parses the header (everything before the first `<page>`): root attributes and siteinfo.
pub(crate) fn parse_siteinfo(header: &str) -> Result<Option<SiteInfo>, XmlFailure> {
    let mut reader = Reader::from_str(header);
    let mut lang = String::new();
    let mut site = SiteInfo {
        sitename: String::new(),
        dbname: String::new(),
        base: String::new(),
        generator: String::new(),
        case: CaseRule::FirstLetter,
        lang: String::new(),
        namespaces: Vec::new(),
        synthesized: false,
    };
    let mut root = false;
    let mut in_siteinfo = false;
    let mut found = false;
    loop {
        let pos = reader.buffer_position();
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => return Err(fail(reader.error_position(), None, e.to_string())),
        };
        match ev {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == "mediawiki" => {
                root = true;
                lang = attr(&e, "xml:lang")
                    .map_err(|m| fail(pos, None, m))?
                    .unwrap_or_default();
            }
            Event::Start(e) if e.name().as_ref() == "siteinfo" => {
                in_siteinfo = true;
                found = true;
            }
            Event::End(e) if e.name().as_ref() == "siteinfo" => break,
            Event::Start(e) if in_siteinfo => {
                let name = e.name().as_ref().to_string();
                match name.as_str() {
                    "sitename" | "dbname" | "base" | "generator" | "case" => {
                        let text =
                            element_text(&mut reader, &name).map_err(|m| fail(pos, None, m))?;
                        match name.as_str() {
                            "sitename" => site.sitename = text,
                            "dbname" => site.dbname = text,
                            "base" => site.base = text,
                            "generator" => site.generator = text,
                            _ => site.case = CaseRule::from_dump(&text),
                        }
                    }
                    "namespaces" => {}
                    "namespace" => {
                        let ns = namespace(&e).map_err(|m| fail(pos, None, m))?;
                        let text = element_text(&mut reader, "namespace")
                            .map_err(|m| fail(pos, None, m))?;
                        site.namespaces.push(Namespace { name: text, ..ns });
                    }
                    _ => {
                        reader
                            .read_to_end(e.name())
                            .map_err(|err| fail(reader.error_position(), None, err.to_string()))?;
                    }
                }
            }
            Event::Empty(e) if in_siteinfo && e.name().as_ref() == "namespace" => {
                let ns = namespace(&e).map_err(|m| fail(pos, None, m))?;
                site.namespaces.push(ns);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !found {
        return Ok(root.then(|| SiteInfo::synthesized(&lang)));
    }
    site.lang = lang;
    if !site.namespaces.iter().any(|n| n.id == 0) {
        site.namespaces.push(Namespace {
            id: 0,
            name: String::new(),
            case: site.case,
        });
    }
    Ok(Some(site))
}

fn namespace(e: &BytesStart<'_>) -> Result<Namespace, String> {
    let key = attr(e, "key")?.ok_or("<namespace> without key")?;
    let id: i32 = key
        .trim()
        .parse()
        .map_err(|_| format!("<namespace key={key:?}> is not a number"))?;
    let case = attr(e, "case")?
        .map(|c| CaseRule::from_dump(&c))
        .unwrap_or(CaseRule::FirstLetter);
    Ok(Namespace {
        id,
        name: String::new(),
        case,
    })
}

/// Parses a region made of whole `<page>` elements (and whitespace), calling `f` for
/// each page in order.
///
/// The bytes are not validated as UTF-8 up front: quick-xml validates every piece of
/// text it returns, so a whole extra pass over the dump is saved.
pub(crate) fn parse_pages<'a>(
    region: &'a [u8],
    mut f: impl FnMut(RawPage<'a>) -> Result<(), XmlFailure>,
) -> Result<(), XmlFailure> {
    let mut reader = Reader::from_reader(region);
    loop {
        let pos = reader.buffer_position();
        let ev = reader
            .read_event()
            .map_err(|e| xml_fail(&reader, None, e))?;
        match ev {
            Event::Start(e) if e.name().as_ref() == "page" => {
                let page = parse_page(&mut reader, pos)?;
                f(page)?;
            }
            Event::Text(t) if t.bytes().all(|c| c.is_ascii_whitespace()) => {}
            Event::Comment(_) => {}
            Event::Eof => return Ok(()),
            Event::Start(e) | Event::Empty(e) => {
                return Err(fail(
                    pos,
                    None,
                    format!("unexpected element <{}> between pages", e.name().as_ref()),
                ));
            }
            Event::End(e) => {
                return Err(fail(
                    pos,
                    None,
                    format!("unexpected </{}> between pages", e.name().as_ref()),
                ));
            }
            _ => return Err(fail(pos, None, "unexpected content between pages")),
        }
    }
}

fn parse_page<'a>(reader: &mut Reader<&'a [u8]>, start: u64) -> Result<RawPage<'a>, XmlFailure> {
    let mut page = RawPage {
        id: 0,
        ns: 0,
        title: String::new(),
        redirect_attr: None,
        rev_id: 0,
        timestamp: Cow::Borrowed(""),
        model: Cow::Borrowed("wikitext"),
        text: Cow::Borrowed(""),
        offset: start,
    };
    let (mut has_title, mut has_id, mut has_ns, mut has_rev) = (false, false, false, false);
    loop {
        let pos = reader.buffer_position();
        let title = (!page.title.is_empty()).then_some(page.title.as_str());
        let ev = reader
            .read_event()
            .map_err(|e| xml_fail(reader, title, e))?;
        match ev {
            Event::End(e) if e.name().as_ref() == "page" => break,
            Event::Start(e) => {
                match e.name().as_ref() {
                    "title" => {
                        page.title = element_text_cow(reader, "title")
                            .map_err(|m| fail(pos, None, m))?
                            .into_owned();
                        has_title = true;
                    }
                    "ns" => {
                        let t = element_text_cow(reader, "ns").map_err(|m| fail(pos, title, m))?;
                        page.ns = t
                            .trim()
                            .parse()
                            .map_err(|_| fail(pos, title, format!("<ns> {t:?} is not a number")))?;
                        has_ns = true;
                    }
                    "id" => {
                        let t = element_text_cow(reader, "id").map_err(|m| fail(pos, title, m))?;
                        page.id = t
                            .trim()
                            .parse()
                            .map_err(|_| fail(pos, title, format!("<id> {t:?} is not a number")))?;
                        has_id = true;
                    }
                    "redirect" => {
                        page.redirect_attr = attr(&e, "title").map_err(|m| fail(pos, title, m))?;
                        reader
                            .read_to_end(QName("redirect"))
                            .map_err(|err| fail(reader.error_position(), title, err.to_string()))?;
                    }
                    "revision" => {
                        // Full-history dumps hold several revisions; the last is the latest.
                        parse_revision(reader, &mut page)?;
                        has_rev = true;
                    }
                    _ => {
                        reader
                            .read_to_end(e.name())
                            .map_err(|err| fail(reader.error_position(), title, err.to_string()))?;
                    }
                }
            }
            Event::Empty(e) if e.name().as_ref() == "redirect" => {
                page.redirect_attr = attr(&e, "title").map_err(|m| fail(pos, title, m))?;
            }
            Event::Empty(_) | Event::Comment(_) => {}
            Event::Text(t) if t.bytes().all(|c| c.is_ascii_whitespace()) => {}
            Event::Eof => return Err(fail(pos, title, "the page element is not closed")),
            _ => return Err(fail(pos, title, "unexpected content inside <page>")),
        }
    }
    let title = (!page.title.is_empty()).then_some(page.title.as_str());
    for (ok, what) in [
        (has_title, "<title>"),
        (has_ns, "<ns>"),
        (has_id, "<id>"),
        (has_rev, "<revision>"),
    ] {
        if !ok {
            return Err(fail(start, title, format!("the page has no {what}")));
        }
    }
    Ok(page)
}

fn parse_revision<'a>(
    reader: &mut Reader<&'a [u8]>,
    page: &mut RawPage<'a>,
) -> Result<(), XmlFailure> {
    loop {
        let pos = reader.buffer_position();
        let title = Some(page.title.as_str());
        let ev = reader
            .read_event()
            .map_err(|e| xml_fail(reader, title, e))?;
        match ev {
            Event::End(e) if e.name().as_ref() == "revision" => return Ok(()),
            Event::Start(e) => match e.name().as_ref() {
                "id" => {
                    let t = element_text_cow(reader, "id").map_err(|m| fail(pos, title, m))?;
                    page.rev_id = t.trim().parse().map_err(|_| {
                        fail(pos, title, format!("revision <id> {t:?} is not a number"))
                    })?;
                }
                "timestamp" => {
                    page.timestamp =
                        element_text_cow(reader, "timestamp").map_err(|m| fail(pos, title, m))?;
                }
                "model" => {
                    page.model =
                        element_text_cow(reader, "model").map_err(|m| fail(pos, title, m))?;
                }
                "text" => {
                    page.text =
                        element_text_cow(reader, "text").map_err(|m| fail(pos, title, m))?;
                }
                _ => {
                    reader
                        .read_to_end(e.name())
                        .map_err(|err| fail(reader.error_position(), title, err.to_string()))?;
                }
            },
            Event::Empty(e) if e.name().as_ref() == "text" => {
                page.text = Cow::Borrowed("");
            }
            Event::Empty(_) | Event::Comment(_) => {}
            Event::Text(t) if t.bytes().all(|c| c.is_ascii_whitespace()) => {}
            Event::Eof => return Err(fail(pos, title, "the revision element is not closed")),
            _ => return Err(fail(pos, title, "unexpected content inside <revision>")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_survive_unescaping() {
        let region = r#"<page><title>A &amp; B</title><ns>0</ns><id>7</id>
<revision><id>9</id><timestamp>2020-01-01T00:00:00Z</timestamp>
<text xml:space="preserve">x &lt;ref&gt;a &amp;amp; b&lt;/ref&gt; &quot;q&quot; &#124;</text></revision></page>"#;
        let mut pages = Vec::new();
        parse_pages(region.as_bytes(), |p| {
            pages.push(p);
            Ok(())
        })
        .unwrap();
        assert_eq!(pages[0].title, "A & B");
        assert_eq!(pages[0].text, "x <ref>a &amp; b</ref> \"q\" |");
        // The head alone names the same page, without its text.
        let head = page_head(region.as_bytes()).expect("a head");
        assert_eq!((head.title.as_str(), head.ns, head.id), ("A & B", 0, 7));
        assert_eq!(head.text, "");
        assert_eq!(
            page_head(b"<page><title>A</title><id>7</id>"),
            None,
            "no <ns>"
        );
    }

    #[test]
    fn siteinfo_is_read() {
        let h = r#"<mediawiki xml:lang="ltg"><siteinfo><sitename>V</sitename><dbname>ltgwiki</dbname>
<base>https://ltg.wikipedia.org/wiki/X</base><case>first-letter</case><namespaces>
<namespace key="0" case="first-letter" /><namespace key="14" case="first-letter">Kategoreja</namespace>
</namespaces></siteinfo>"#;
        let s = parse_siteinfo(h).unwrap().unwrap();
        assert_eq!(s.dbname, "ltgwiki");
        assert_eq!(s.lang, "ltg");
        assert_eq!(s.namespaces[1].name, "Kategoreja");
    }
}
