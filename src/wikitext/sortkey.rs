//! Category sort keys as MediaWiki 1.39 decides them: what `{{DEFAULTSORT:…}}` does to the
//! page's default key, and the key a category link sorts by. The expander (which sees
//! every `DEFAULTSORT`, those templates make included) and the page walk (which sees
//! the ones written in the page) follow the same rule, recorded from MediaWiki in
//! `tests/data/expand-mw/sortkeys.jsonl`.

use crate::title::{decode_char_references, php_trim};

/// Applies `{{DEFAULTSORT:key|flag}}` to the page's default key `current` and returns
/// the key it overrides when MediaWiki writes its "overrides earlier default sort key"
/// warning.
///
/// - An empty key (after trimming) does nothing.
/// - `noreplace` keeps a key already set; `noerror` and `noreplace` silence the
///   warning. Any other flag is not one: the key replaces and the warning is written.
/// - A key equal to the current one is no override.
pub fn set_default_sort(current: &mut Option<String>, key: &str, flag: &str) -> Option<String> {
    let key = php_trim(key);
    if key.is_empty() {
        return None;
    }
    let flag = php_trim(flag);
    let noreplace = flag.eq_ignore_ascii_case("noreplace");
    let silenced = noreplace || flag.eq_ignore_ascii_case("noerror");
    let overridden = match current.as_deref() {
        Some(old) if old != key && !silenced => Some(old.to_string()),
        _ => None,
    };
    if current.is_none() || !noreplace {
        *current = Some(key.to_string());
    }
    overridden
}

/// The key a category link sorts by, from its own key (`[[Category:X|key]]`) or, for a
/// link without one, the page's default key: character references decoded and newlines
/// removed, as MediaWiki does to both. A strip marker in a default key stays as it is:
/// MediaWiki does not put the tag back there either.
pub fn category_sortkey(key: &str) -> String {
    decode_char_references(key).replace('\n', "")
}

/// Gives every category link of `categories` without a key of its own the page's
/// default key `default`.
pub fn fill_default_sortkeys(categories: &mut [super::CategoryLink], default: Option<&str>) {
    let Some(default) = default else {
        return;
    };
    let key = category_sortkey(default);
    for c in categories.iter_mut().filter(|c| c.sortkey.is_empty()) {
        c.sortkey = key.clone();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sort_follows_mediawikis_rule() {
        let mut k = None;
        assert_eq!(set_default_sort(&mut k, " ", ""), None);
        assert_eq!(k, None);
        assert_eq!(set_default_sort(&mut k, " k1 ", ""), None);
        assert_eq!(k.as_deref(), Some("k1"));
        assert_eq!(set_default_sort(&mut k, "k1", ""), None);
        assert_eq!(set_default_sort(&mut k, "k2", "NOREPLACE"), None);
        assert_eq!(k.as_deref(), Some("k1"));
        assert_eq!(set_default_sort(&mut k, "k2", "foo"), Some("k1".into()));
        assert_eq!(k.as_deref(), Some("k2"));
        assert_eq!(set_default_sort(&mut k, "k3", " noerror "), None);
        assert_eq!(k.as_deref(), Some("k3"));
        assert_eq!(set_default_sort(&mut k, "\u{a0}k4 ", ""), Some("k3".into()));
        assert_eq!(k.as_deref(), Some("\u{a0}k4"));
        assert_eq!(category_sortkey("a &amp; b\nc"), "a & bc");
    }
}
