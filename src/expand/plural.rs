//! `{{PLURAL:n|…}}`: CLDR plural rules of the languages Wikipedias here use, with
//! MediaWiki's explicit forms (`0=none`) and its padding of missing forms.

/// Plural rules: which form (0-based, in CLDR order) a number takes.
fn rule(lang: &str, n: f64) -> usize {
    let integer = n.fract() == 0.0;
    let i = n.abs().trunc() as u64;
    let m10 = i % 10;
    let m100 = i % 100;
    let base = lang.split(['-', '_']).next().unwrap_or(lang);
    match base {
        // Latvian and Latgalian: zero, one, other.
        "lv" | "ltg" => {
            if !integer {
                2
            } else if m10 == 0 || (11..=19).contains(&m100) {
                0
            } else if m10 == 1 && m100 != 11 {
                1
            } else {
                2
            }
        }
        // one, few, many, other.
        "ru" | "uk" | "be" => {
            if !integer {
                3
            } else if m10 == 1 && m100 != 11 {
                0
            } else if (2..=4).contains(&m10) && !(12..=14).contains(&m100) {
                1
            } else {
                2
            }
        }
        "pl" => {
            if !integer {
                3
            } else if i == 1 {
                0
            } else if (2..=4).contains(&m10) && !(12..=14).contains(&m100) {
                1
            } else {
                2
            }
        }
        // one, few, many, other.
        "lt" => {
            if !integer {
                2
            } else if m10 == 1 && !(11..=19).contains(&m100) {
                0
            } else if (2..=9).contains(&m10) && !(11..=19).contains(&m100) {
                1
            } else {
                3
            }
        }
        "fr" | "pt" => usize::from(i > 1),
        "ja" | "zh" | "ko" | "vi" | "th" | "id" => 0,
        _ => usize::from(!(integer && i == 1)),
    }
}

/// The form for `number` among `forms` (`Language::convertPlural`).
pub fn choose<'f>(lang: &str, number: f64, forms: &'f [String]) -> &'f str {
    if forms.is_empty() {
        return "";
    }
    // Explicit forms `N=text` win when N equals the number.
    let mut plain: Vec<&str> = Vec::with_capacity(forms.len());
    for f in forms {
        if let Some((k, v)) = f.split_once('=')
            && let Ok(k) = k.trim().parse::<f64>()
        {
            if k == number {
                return v;
            }
            continue;
        }
        plain.push(f);
    }
    if plain.is_empty() {
        return "";
    }
    let idx = rule(lang, number).min(plain.len() - 1);
    plain[idx]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forms(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn english_and_latvian_forms() {
        let f = forms(&["page", "pages"]);
        assert_eq!(choose("en", 1.0, &f), "page");
        assert_eq!(choose("en", 0.0, &f), "pages");
        assert_eq!(choose("en", 1.5, &f), "pages");
        let lv = forms(&["zero", "one", "other"]);
        assert_eq!(choose("ltg", 1.0, &lv), "one");
        assert_eq!(choose("ltg", 21.0, &lv), "one");
        assert_eq!(choose("ltg", 11.0, &lv), "zero");
        assert_eq!(choose("ltg", 10.0, &lv), "zero");
        assert_eq!(choose("ltg", 5.0, &lv), "other");
        let ru = forms(&["one", "few", "many"]);
        assert_eq!(choose("ru", 3.0, &ru), "few");
        assert_eq!(choose("ru", 12.0, &ru), "many");
        assert_eq!(choose("ru", 1.5, &ru), "many");
        assert_eq!(
            choose("en", 0.0, &forms(&["0=none", "one", "many"])),
            "none"
        );
    }
}
