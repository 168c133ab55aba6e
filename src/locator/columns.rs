//! A table column named by its header label, as a locator's `col:` or a contract's
//! `source_col` names it.
//!
//! Real tables repeat labels (`Score` and `Date` for each leg, `#`, a spanned group
//! header covering two columns) and nest them (`Length` and `Length (km)`). Picking the
//! first match silently, or letting a label match a longer one by prefix, cites the wrong
//! column with full confidence; so a label must name exactly one column, and when it does
//! not, the answer lists the candidates with the `col:N` that names each. A repeated label
//! is disambiguated by its occurrence: `Score#2` is the second column labelled `Score`.

use super::resolve::fold_name as fold;

/// Why a label names no single column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnMiss {
    /// No column has this label; labels that begin with it are listed.
    NotFound { similar: Vec<(usize, String)> },
    /// Several columns have this label.
    Ambiguous { candidates: Vec<(usize, String)> },
}

impl ColumnMiss {
    /// The candidates as `col:2 "Length (km)", col:5 "Length (mi)"`.
    pub fn describe(&self) -> String {
        let list = |v: &[(usize, String)]| {
            v.iter()
                .map(|(i, l)| format!("col:{i} {l:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            ColumnMiss::NotFound { similar } if similar.is_empty() => String::new(),
            ColumnMiss::NotFound { similar } => {
                format!(
                    " (labels beginning so: {}; name one exactly or by col:N)",
                    list(similar)
                )
            }
            ColumnMiss::Ambiguous { candidates } => format!(
                " (it labels {} columns: {}; name one by col:N or LABEL#K, its K-th occurrence)",
                candidates.len(),
                list(candidates)
            ),
        }
    }
}

/// A label without trailing footnote marks: `Length (km)[1]`, `Pop.*`, `Area†`.
fn without_marks(label: &str) -> &str {
    let mut t = label.trim_end();
    loop {
        let before = t;
        if t.ends_with(']')
            && let Some(open) = t.rfind('[')
        {
            t = t[..open].trim_end();
        }
        t = t.trim_end_matches(['*', '†', '‡', '§']).trim_end();
        if t == before {
            return t;
        }
    }
}

/// The position of the one column `want` names among `labels` (grid order; `None` for a
/// column without a header).
pub(crate) fn find_column(labels: &[Option<&str>], want: &str) -> Result<usize, ColumnMiss> {
    let exact = |w: &str| -> Vec<usize> {
        let w = fold(w);
        labels
            .iter()
            .enumerate()
            .filter(|(_, l)| l.is_some_and(|l| fold(l) == w || fold(without_marks(l)) == w))
            .map(|(i, _)| i)
            .collect()
    };
    let listed = |v: &[usize]| -> Vec<(usize, String)> {
        v.iter()
            .map(|&i| (i, labels[i].unwrap_or("").to_string()))
            .collect()
    };
    let found = exact(want);
    match found.as_slice() {
        [one] => return Ok(*one),
        [] => {}
        several => {
            return Err(ColumnMiss::Ambiguous {
                candidates: listed(several),
            });
        }
    }
    // `Score#2`: the second column labelled `Score`.
    if let Some((label, k)) = want.rsplit_once('#')
        && !label.trim().is_empty()
        && let Ok(k) = k.trim().parse::<usize>()
    {
        let found = exact(label);
        if k >= 1 && k <= found.len() {
            return Ok(found[k - 1]);
        }
    }
    let w = fold(want);
    let similar: Vec<usize> = labels
        .iter()
        .enumerate()
        .filter(|(_, l)| l.is_some_and(|l| !w.is_empty() && fold(l).starts_with(&w)))
        .map(|(i, _)| i)
        .collect();
    Err(ColumnMiss::NotFound {
        similar: listed(&similar),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_names_one_column_or_says_which_it_could_be() {
        let labels = [
            Some("#"),
            Some("Team"),
            Some("Score"),
            Some("Date"),
            Some("Score"),
            Some("Date"),
            Some("Length (km)[1]"),
            None,
        ];
        assert_eq!(find_column(&labels, "team"), Ok(1));
        assert_eq!(find_column(&labels, "#"), Ok(0));
        assert_eq!(find_column(&labels, "Length (km)"), Ok(6));
        assert_eq!(find_column(&labels, "Score#2"), Ok(4));
        assert_eq!(find_column(&labels, "Date #1"), Ok(3));
        let amb = find_column(&labels, "Score").unwrap_err();
        assert_eq!(
            amb,
            ColumnMiss::Ambiguous {
                candidates: vec![(2, "Score".into()), (4, "Score".into())]
            }
        );
        assert!(amb.describe().contains("col:2 \"Score\", col:4 \"Score\""));
        let prefix = find_column(&labels, "Length").unwrap_err();
        assert_eq!(
            prefix,
            ColumnMiss::NotFound {
                similar: vec![(6, "Length (km)[1]".into())]
            }
        );
        assert!(prefix.describe().contains("col:6"));
        assert_eq!(
            find_column(&labels, "Elevation"),
            Err(ColumnMiss::NotFound { similar: vec![] })
        );
        assert_eq!(find_column(&labels, "Score#3").map_err(|_| ()), Err(()));
    }
}
