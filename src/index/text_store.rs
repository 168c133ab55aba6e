//! The record of `text.rec`: a page's plain text laid out to compress well, without the
//! sentences its structure already determines.
//!
//! Table rows and infobox fields are a function of `structure.rec`
//! ([`crate::wikitext::structure_sentences`]); on a table-heavy wiki they are an eighth of
//! the text, so a record keeps only the prose and list sentences and the reader derives
//! the rest. The writer checks that deriving gives back the page's text exactly and keeps
//! every sentence otherwise, so the stored form never depends on how the text was made.
//!
//! The numbers (kinds, byte ranges as small deltas) come first and the texts after them,
//! each ended by a newline: interleaving absolute offsets with text, as a plain serde
//! encoding does, cost zstd 12 % of its ratio on the OTT-QA dump (`index/FORMAT.md`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::text::{PageText, SectionText, Sentence, SentenceKind};
use crate::wikitext::{Assembled, PageStructure};

/// Table and infobox sentences are left out and derived from the structure.
const DERIVED: u64 = 1;
/// Texts are length-prefixed instead of newline-ended (some text holds a newline).
const LENGTHS: u64 = 2;

/// One page's text as `text.rec` stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoredText {
    bytes: Vec<u8>,
}

/// Whether `text` is exactly its prose and list sentences merged with `derivable` (the
/// structure's sentences) as [`crate::wikitext::assemble`] merges them, so that the reader
/// can derive the rest; a text with nothing to leave out is not.
fn derives(text: &PageText, derivable: &[Sentence], structure: &PageStructure) -> bool {
    let kept: Vec<&Sentence> = text
        .sentences()
        .map(|(_, _, x)| x)
        .filter(|x| is_kept(x))
        .collect();
    if kept.len() == text.sentences().count() && derivable.is_empty() {
        return false;
    }
    crate::wikitext::assembles_to(kept, derivable, structure, text)
}

/// Whether a record stores `x` when the rest is derived: prose and list sentences.
fn is_kept(x: &Sentence) -> bool {
    !x.kind.from_structure()
}

impl StoredText {
    /// Encodes `text`, the text of a page whose structure is `structure`, after checking
    /// whether the structure's sentences give it back.
    pub(crate) fn encode(text: &PageText, structure: &PageStructure) -> StoredText {
        let derivable = crate::wikitext::structure_sentences(structure);
        StoredText::encode_as(text, derives(text, &derivable, structure))
    }

    /// Encodes a text assembled from its prose and the structure that is stored with it
    /// (a build's text): the assembly derived the structure's sentences, so they are
    /// left out without deriving them again. Gives the bytes [`StoredText::encode`]
    /// gives.
    pub(crate) fn encode_assembled(text: &Assembled) -> StoredText {
        StoredText::encode_as(text.text(), text.derived())
    }

    /// Encodes `text`, its table and infobox sentences left out when `derived`.
    fn encode_as(text: &PageText, derived: bool) -> StoredText {
        let lengths = text.sentences().any(|(_, _, x)| x.text.contains('\n'));
        let mut flags = 0;
        if derived {
            flags |= DERIVED;
        }
        if lengths {
            flags |= LENGTHS;
        }
        let kept = |x: &Sentence| !derived || is_kept(x);
        let mut out = Vec::new();
        put(&mut out, flags);
        put(&mut out, text.sections.len() as u64);
        let mut prev_end = 0i64;
        for sec in &text.sections {
            put(
                &mut out,
                sec.sentences.iter().filter(|x| kept(x)).count() as u64,
            );
            for x in sec.sentences.iter().filter(|x| kept(x)) {
                let (start, end) = (i64::from(x.start), i64::from(x.end));
                put(&mut out, kind_code(x.kind));
                put(&mut out, zigzag(start - prev_end));
                put(&mut out, zigzag(end - start - x.text.len() as i64));
                prev_end = end;
            }
        }
        for x in text.sentences().map(|(_, _, x)| x).filter(|x| kept(x)) {
            if lengths {
                put(&mut out, x.text.len() as u64);
                out.extend_from_slice(x.text.as_bytes());
            } else {
                out.extend_from_slice(x.text.as_bytes());
                out.push(b'\n');
            }
        }
        StoredText { bytes: out }
    }

    /// Whether [`StoredText::decode`] needs the page's structure.
    pub(crate) fn needs_structure(&self) -> bool {
        self.bytes.first().is_some_and(|f| f & DERIVED as u8 != 0)
    }

    /// The page's text; `structure` is needed when [`StoredText::needs_structure`] says so
    /// (`None` otherwise is fine). An error describes the damage.
    pub fn decode(&self, structure: Option<&PageStructure>) -> Result<PageText, String> {
        let mut r = Reader {
            bytes: &self.bytes,
            pos: 0,
        };
        let flags = r.varint()?;
        if flags & !(DERIVED | LENGTHS) != 0 {
            return Err(format!("unknown flags {flags:#x}"));
        }
        let sections = r.count()?;
        let mut heads: Vec<Vec<(SentenceKind, i64, i64)>> = Vec::with_capacity(sections);
        for _ in 0..sections {
            let n = r.count()?;
            let mut sec = Vec::with_capacity(n);
            for _ in 0..n {
                let kind = match r.varint()? {
                    0 => SentenceKind::Prose,
                    1 => SentenceKind::List,
                    2 => SentenceKind::Table,
                    3 => SentenceKind::Infobox,
                    k => return Err(format!("unknown sentence kind {k}")),
                };
                sec.push((kind, unzigzag(r.varint()?), unzigzag(r.varint()?)));
            }
            heads.push(sec);
        }
        let mut prev_end = 0i64;
        let mut text = PageText {
            sections: Vec::with_capacity(sections),
        };
        for sec in heads {
            let mut out = SectionText {
                sentences: Vec::with_capacity(sec.len()),
            };
            for (kind, d_start, d_end) in sec {
                let s = if flags & LENGTHS != 0 {
                    let n = r.count()?;
                    r.take(n)?
                } else {
                    r.line()?
                };
                let s = std::str::from_utf8(s).map_err(|_| "a text is not UTF-8".to_string())?;
                let start = prev_end + d_start;
                let end = start + s.len() as i64 + d_end;
                let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(end)) else {
                    return Err(format!("byte range {start}..{end} out of bounds"));
                };
                prev_end = i64::from(end);
                out.sentences.push(Sentence {
                    text: s.to_string(),
                    kind,
                    start,
                    end,
                });
            }
            text.sections.push(out);
        }
        if r.pos != self.bytes.len() {
            return Err(format!("{} bytes left over", self.bytes.len() - r.pos));
        }
        if flags & DERIVED == 0 {
            return Ok(text);
        }
        let structure = structure.ok_or("the page's structure is needed")?;
        let prose: Vec<Sentence> = text
            .sections
            .into_iter()
            .flat_map(|s| s.sentences)
            .collect();
        let text = crate::wikitext::assemble(prose, structure);
        if text.sections.len() != sections {
            return Err(format!(
                "{sections} sections stored, {} in the structure",
                text.sections.len()
            ));
        }
        Ok(text)
    }
}

fn kind_code(k: SentenceKind) -> u64 {
    match k {
        SentenceKind::Prose => 0,
        SentenceKind::List => 1,
        SentenceKind::Table => 2,
        SentenceKind::Infobox => 3,
    }
}

fn put(out: &mut Vec<u8>, v: u64) {
    super::varint::put(out, v);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// A cursor over a record whose every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        let mut rest = &self.bytes[self.pos..];
        let before = rest.len();
        let v = super::varint::get(&mut rest).map_err(|_| "a number is cut short".to_string())?;
        self.pos += before - rest.len();
        Ok(v)
    }

    /// A count of things still to read: never more than the bytes left, so a damaged
    /// count cannot make the reader allocate without bound.
    fn count(&mut self) -> Result<usize, String> {
        let n = self.varint()?;
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(format!("a count of {n} with {left} bytes left"));
        }
        Ok(n as usize)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or("a text runs past the record")?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn line(&mut self) -> Result<&'a [u8], String> {
        let rest = &self.bytes[self.pos..];
        let n = memchr::memchr(b'\n', rest).ok_or("a text is not ended")?;
        self.pos += n + 1;
        Ok(&rest[..n])
    }
}

impl Serialize for StoredText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.bytes)
    }
}

impl<'de> Deserialize<'de> for StoredText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StoredText, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a stored page text")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
        }
        d.deserialize_bytes(Bytes).map(|bytes| StoredText { bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentence(text: &str, kind: SentenceKind, start: u32, end: u32) -> Sentence {
        Sentence {
            text: text.into(),
            kind,
            start,
            end,
        }
    }

    #[test]
    fn a_page_with_a_table_stores_its_prose_and_reads_back_whole() {
        let wikitext = "Intro of the page. Second sentence.\n\n== Rivers ==\n{| class=\"wikitable\"\n! Name !! Length\n|-\n| [[Danube]] || 2,850 km\n|-\n| Ural || 2,428 km\n|}\n* a list item\n";
        let (s, t) = crate::wikitext::analyze_with_text(
            wikitext,
            0,
            "Rivers",
            &crate::title::TitleCodec::new(
                &crate::siteinfo::SiteInfo::synthesized("en"),
                crate::title::InterwikiProfile::Mediawiki,
            ),
            "en",
        );
        assert!(t.sentences().any(|(_, _, x)| x.kind == SentenceKind::Table));
        let stored = StoredText::encode(&t, &s);
        assert!(stored.needs_structure());
        assert!(!stored.bytes.windows(8).any(|w| w == b"2,850 km"));
        assert_eq!(stored.decode(Some(&s)).unwrap(), t);
        assert!(stored.decode(None).is_err());
    }

    /// `derives` compares without assembling a copy; on every page of a real dump of
    /// infoboxes and tables it must agree with the definition (assembling the prose and
    /// the structure's sentences gives back the text), also for a text with one table
    /// sentence changed, and every record must read back whole.
    #[test]
    fn derives_agrees_with_assembling_on_real_pages() {
        let (codec, pages) = crate::index::real_pages("enwiki-2020-27pages-infoboxes.xml.bz2");
        let reference = |t: &PageText, s: &PageStructure| {
            let prose: Vec<Sentence> = t
                .sentences()
                .map(|(_, _, x)| x)
                .filter(|x| is_kept(x))
                .cloned()
                .collect();
            let derivable = crate::wikitext::structure_sentences(s);
            (prose.len() < t.sentences().count() || !derivable.is_empty())
                && crate::wikitext::assemble(prose, s) == *t
        };
        let (mut derived, mut changed) = (0, 0);
        for (ns, title, text) in pages {
            let (s, mut t) = crate::wikitext::analyze_with_text(
                &text,
                ns,
                &title.replace(' ', "_"),
                &codec,
                "en",
            );
            let derivable = crate::wikitext::structure_sentences(&s);
            assert_eq!(derives(&t, &derivable, &s), reference(&t, &s), "{title}");
            derived += usize::from(reference(&t, &s));
            let stored = StoredText::encode(&t, &s);
            assert_eq!(stored.decode(Some(&s)).unwrap(), t, "{title}");
            let row = t
                .sections
                .iter_mut()
                .flat_map(|sec| sec.sentences.iter_mut())
                .find(|x| x.kind == SentenceKind::Table);
            if let Some(row) = row {
                row.text.push_str(" (edited)");
                assert!(!derives(&t, &derivable, &s), "{title}");
                assert!(!reference(&t, &s), "{title}");
                let stored = StoredText::encode(&t, &s);
                assert_eq!(stored.decode(Some(&s)).unwrap(), t, "{title}");
                changed += 1;
            }
        }
        assert!(
            derived >= 20 && changed >= 8,
            "{derived} derived, {changed} changed"
        );
    }

    /// A build encodes the text as assembled, without deriving the structure's sentences
    /// a second time: on every page of real dumps of tables and infoboxes, the bytes
    /// must be those of the checked encoding, with the sentences left out where any.
    #[test]
    fn an_assembled_text_encodes_as_the_checked_text_does() {
        let mut derived = 0;
        for dump in [
            "enwiki-2020-27pages-infoboxes.xml.bz2",
            "enwiki-table-markup-5pages.xml.bz2",
            "ltgwiki-2017-complete.xml.bz2",
        ] {
            let (codec, pages) = crate::index::real_pages(dump);
            for (ns, title, text) in pages {
                let key = title.replace(' ', "_");
                let (s, a) = crate::wikitext::analyze_assembled(&text, ns, &key, &codec, "en");
                let stored = StoredText::encode_assembled(&a);
                assert_eq!(stored, StoredText::encode(a.text(), &s), "{dump}: {title}");
                assert_eq!(stored.needs_structure(), a.derived(), "{dump}: {title}");
                derived += usize::from(a.derived());
            }
        }
        assert!(derived >= 100, "{derived} texts derived");
    }

    /// Prose that holds a table sentence (not made by the text extraction) is not left
    /// to be derived: the reader would not give it back.
    #[test]
    fn assembled_prose_with_a_table_sentence_is_kept_whole() {
        let (s, _) = crate::wikitext::analyze_with_text(
            "{| class=\"wikitable\"\n! Name\n|-\n| Ural\n|}\n",
            0,
            "Rivers",
            &crate::title::TitleCodec::new(
                &crate::siteinfo::SiteInfo::synthesized("en"),
                crate::title::InterwikiProfile::Mediawiki,
            ),
            "en",
        );
        let a = crate::wikitext::assemble_text(
            vec![sentence("A row: kept", SentenceKind::Table, 0, 3)],
            &s,
        );
        assert!(!a.derived());
        let stored = StoredText::encode_assembled(&a);
        assert_eq!(stored, StoredText::encode(a.text(), &s));
        assert_eq!(stored.decode(None).unwrap(), *a.text());
    }

    #[test]
    fn a_text_that_is_not_derived_from_its_structure_is_kept_whole() {
        let t = PageText {
            sections: vec![SectionText {
                sentences: vec![
                    sentence("A row: kept", SentenceKind::Table, 10, 40),
                    sentence("two\nlines", SentenceKind::Prose, 41, 60),
                ],
            }],
        };
        let stored = StoredText::encode(&t, &PageStructure::default());
        assert!(!stored.needs_structure());
        assert_eq!(stored.decode(None).unwrap(), t);
    }

    #[test]
    fn damaged_records_are_errors_not_panics() {
        let t = PageText {
            sections: vec![SectionText {
                sentences: vec![sentence("Hello world.", SentenceKind::Prose, 0, 12)],
            }],
        };
        let good = StoredText::encode(&t, &PageStructure::default()).bytes;
        for cut in 0..good.len() {
            let s = StoredText {
                bytes: good[..cut].to_vec(),
            };
            assert!(s.decode(None).is_err(), "cut at {cut}");
        }
        for flip in 0..good.len() {
            let mut b = good.clone();
            b[flip] ^= 0xff;
            let _ = StoredText { bytes: b }.decode(None);
        }
    }
}
