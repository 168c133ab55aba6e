//! Plain-text rendering of the handful of templates that carry a cell's or an infobox
//! field's actual value on Wikipedia: unit conversions, list wrappers, dates, flags,
//! language tags, sort keys, yes/no cells.
//!
//! wikiwit does not expand templates; without these, `| depth = {{cvt|3646|m}}` would
//! have no text at all. Each rule reproduces only the visible value (`3646 m`), not the
//! template's full output (conversions, icons, markup). Unknown templates render nothing.

/// Renders a call of template `name` whose arguments, already rendered to plain text,
/// are `positional` (in order) and `named`. `None` when the template is not known.
pub fn render(name: &str, positional: &[String]) -> Option<String> {
    let key = name.trim().to_lowercase().replace('_', " ");
    let arg = |i: usize| positional.get(i).map(|s| s.trim()).unwrap_or("");
    let text =
        match key.as_str() {
            "convert" | "cvt" => {
                const RANGE: &[&str] = &[
                    "-", "–", "to", "and", "or", "by", "x", "×", "+/-", "±", "&", "to(-)",
                ];
                if RANGE.contains(&arg(1)) && !arg(2).is_empty() {
                    format!("{}–{} {}", arg(0), arg(2), arg(3))
                        .trim()
                        .to_string()
                } else {
                    format!("{} {}", arg(0), arg(1)).trim().to_string()
                }
            }
            "plainlist" | "plain list" | "flatlist" | "flat list" | "ubl" | "unbulleted list"
            | "bulleted list" | "blist" | "hlist" | "ordered list" | "collapsible list"
            | "unordered list" | "bull list" => positional
                .iter()
                .filter(|s| !s.trim().is_empty())
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            "nowrap" | "nobr" | "small" | "big" | "smaller" | "larger" | "small caps"
            | "smallcaps" | "noitalic" | "nts" | "ntsh" | "abbr" | "abbrlink" | "nihongo"
            | "ill" | "interlanguage link" | "url" | "flag" | "flagcountry" | "flag country"
            | "flagu" | "flagg" | "sic" | "nowiki" | "center" | "centre" | "lang-en"
            | "wikt-lang" => arg(0).to_string(),
            "resize" | "font" | "color" | "colour" | "transl" | "transliteration" => positional
                .last()
                .map(|s| s.trim().to_string())
                .unwrap_or_default(),
            "lang" | "native name" | "native phrase" => arg(1).to_string(),
            "sortname" => format!("{} {}", arg(0), arg(1)).trim().to_string(),
            "sort" => {
                if arg(1).is_empty() {
                    arg(0).to_string()
                } else {
                    arg(1).to_string()
                }
            }
            "flagicon" | "flagdeco" | "flag icon" | "anchor" | "vanchor" | "coord" | "efn"
            | "refn" | "sfn" | "citation needed" | "cn" | "clarify" | "dead link" | "reflist"
            | "notelist" => String::new(),
            "yes" => or_default(arg(0), "Yes"),
            "no" => or_default(arg(0), "No"),
            "n/a" | "na" => or_default(arg(0), "N/A"),
            "partial" => or_default(arg(0), "Partial"),
            "won" => or_default(arg(0), "Won"),
            "nom" | "nominated" => or_default(arg(0), "Nominated"),
            "tba" => or_default(arg(0), "TBA"),
            "dunno" | "unknown" => or_default(arg(0), "?"),
            "us$" | "usd" => format!("US${}", arg(0)),
            "increase" | "decrease" | "steady" | "increasenegative" | "decreasepositive" => {
                String::new()
            }
            "circa" | "c." => format!("c. {}", arg(0)).trim().to_string(),
            "nbsp" => " ".to_string(),
            "snd" | "spaced ndash" | "spnd" => " – ".to_string(),
            "ndash" => "–".to_string(),
            "mdash" => "—".to_string(),
            "•" | "dot" | "middot" | "·" => " · ".to_string(),
            "start date" | "end date" | "birth date" | "death date" | "birth date and age"
            | "death date and age" | "start date and age" | "end date and age" | "film date"
            | "dob" | "release date" | "bda" | "dda" => date(arg(0), arg(1), arg(2)),
            _ if key.starts_with("lang-") => arg(0).to_string(),
            _ => return None,
        };
    Some(text)
}

fn or_default(arg: &str, default: &str) -> String {
    if arg.is_empty() {
        default.to_string()
    } else {
        arg.to_string()
    }
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` from numeric year, month and day arguments.
fn date(y: &str, m: &str, d: &str) -> String {
    let num = |s: &str| s.trim().parse::<u32>().ok();
    match (num(y), num(m), num(d)) {
        (Some(y), Some(m), Some(d)) if (1..=12).contains(&m) && (1..=31).contains(&d) => {
            format!("{y:04}-{m:02}-{d:02}")
        }
        (Some(y), Some(m), None) if (1..=12).contains(&m) => format!("{y:04}-{m:02}"),
        (Some(y), _, _) => format!("{y:04}"),
        _ => [y, m, d]
            .iter()
            .filter(|s| !s.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Core parser functions whose result is computable from their argument.
pub(crate) fn render_function(name: &str, arg: &str) -> Option<String> {
    Some(match name {
        "formatnum" => format_number(arg.trim()),
        "lc" => arg.to_lowercase(),
        "uc" => arg.to_uppercase(),
        "lcfirst" => {
            let mut c = arg.chars();
            c.next()
                .map(|f| f.to_lowercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }
        "ucfirst" => {
            let mut c = arg.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        }
        _ => return None,
    })
}

/// `{{formatnum:1234567.5}}` → `1,234,567.5` (English digit grouping).
fn format_number(s: &str) -> String {
    let (int, frac) = s
        .split_once('.')
        .map(|(a, b)| (a, Some(b)))
        .unwrap_or((s, None));
    let (sign, digits) = int.strip_prefix('-').map(|d| ("-", d)).unwrap_or(("", int));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return s.to_string();
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match frac {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_of_common_templates() {
        assert_eq!(render("cvt", &p(&["3646", "m"])).unwrap(), "3646 m");
        assert_eq!(
            render("convert", &p(&["10", "to", "20", "km"])).unwrap(),
            "10–20 km"
        );
        assert_eq!(render("ubl", &p(&["A", "B"])).unwrap(), "A\nB");
        assert_eq!(
            render("Birth date and age", &p(&["1954", "7", "17"])).unwrap(),
            "1954-07-17"
        );
        assert_eq!(render("lang", &p(&["de", "Berlin"])).unwrap(), "Berlin");
        assert_eq!(render("n/a", &p(&[""])).unwrap(), "N/A");
        assert_eq!(render("flagicon", &p(&["Germany"])).unwrap(), "");
        assert!(render("Infobox river", &[]).is_none());
        assert_eq!(
            render_function("formatnum", "1234567.5").unwrap(),
            "1,234,567.5"
        );
    }
}
