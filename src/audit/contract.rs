//! The contract: what a staged table claims to be — its query, key, typed columns,
//! scope and sources. Written by the curator (or the agent) before the rows; the auditor
//! holds the rows to it.
//!
//! ```json
//! {
//!   "query": "Transboundary rivers at least 1,000 km long, by continent",
//!   "primary_key": ["river"],
//!   "columns": [
//!     {"name": "river", "type": "text", "source_col": "River"},
//!     {"name": "length", "type": "number", "unit": "km", "source_col": "Length (km)"},
//!     {"name": "countries", "type": "list", "separator": "; "},
//!     {"name": "rank", "type": "number", "claim": "derived", "derivation": "order by length"}
//!   ],
//!   "scope": {"filters": ["length >= 1000 km"],
//!             "partitions": [{"column": "continent", "labels": ["Africa", "Asia"]}],
//!             "exhaustive": true, "as_of": "2024-12-31",
//!             "count_source": "List of transboundary rivers#Rivers|table:1"},
//!   "sources": [{"page": "List of transboundary rivers", "locator": "#Rivers|table:1",
//!                "role": "list", "operator": "seed"}],
//!   "required_roles": ["list"]
//! }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::checks::Severity;
use super::values::{self, Date};

/// Why a contract cannot be used (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    #[error(transparent)]
    File(#[from] crate::json_file::JsonFileError),
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    Text,
    /// A number, optionally with the contract's unit (`2850 km`).
    Number,
    /// ISO 8601 (`2004`, `2004-03`, `2004-03-12`) once normalized.
    Date,
    /// Items joined by the column's separator (or a JSON array).
    List,
}

/// How a value came to be: read off the evidence, computed from other values, or
/// inferred (a judgement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Claim {
    #[default]
    Extracted,
    Derived,
    Inferred,
}

impl Claim {
    pub fn parse(s: &str) -> Option<Claim> {
        match s.trim().to_ascii_lowercase().as_str() {
            "extracted" => Some(Claim::Extracted),
            "derived" => Some(Claim::Derived),
            "inferred" => Some(Claim::Inferred),
            _ => None,
        }
    }
}

/// A column's source column in a table locator: a grid index or a header label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SourceCol {
    Index(usize),
    Header(String),
}

impl SourceCol {
    /// The column's position among a row's column `labels`: the index itself, or the one
    /// column the header label names (`crate::locator::find_column`: a label naming
    /// several columns, or only a prefix of one, names none and says which it could be).
    pub fn position<'l>(
        &self,
        labels: impl IntoIterator<Item = Option<&'l str>>,
    ) -> Result<usize, crate::locator::ColumnMiss> {
        match self {
            SourceCol::Index(i) => Ok(*i),
            SourceCol::Header(h) => {
                let labels: Vec<Option<&str>> = labels.into_iter().collect();
                crate::locator::find_column(&labels, h)
            }
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub name: String,
    #[serde(rename = "type", default = "text_type")]
    pub kind: ColumnType,
    /// For numbers: the canonical unit (`km`).
    #[serde(default)]
    pub unit: Option<String>,
    /// For lists: the canonical separator (default `; `).
    #[serde(default)]
    pub separator: Option<String>,
    #[serde(default)]
    pub claim: Claim,
    /// How a derived value is computed.
    #[serde(default)]
    pub derivation: Option<String>,
    /// Which cell of a located table row holds this column's evidence.
    #[serde(default)]
    pub source_col: Option<SourceCol>,
    /// A value may be absent (null / empty) without a schema finding.
    #[serde(default)]
    pub optional: bool,
    /// The value changes over time (population, holder of an office): rows must pin a
    /// revision (`oldid`) or an `as_of` date.
    #[serde(default)]
    pub time_varying: bool,
}

fn text_type() -> ColumnType {
    ColumnType::Text
}

impl ColumnSpec {
    pub(crate) fn separator(&self) -> &str {
        self.separator.as_deref().unwrap_or("; ")
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partition {
    pub column: String,
    pub labels: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// `COLUMN OP VALUE [UNIT]`, OP one of `>= ≥ > <= ≤ < = !=`.
    #[serde(default)]
    pub filters: Vec<String>,
    #[serde(default)]
    pub partitions: Vec<Partition>,
    /// The rows claim to be all of the query's answers (else a sample).
    #[serde(default)]
    pub exhaustive: bool,
    /// The date the table describes.
    #[serde(default)]
    pub as_of: Option<String>,
    /// A declared number of answers.
    #[serde(default)]
    pub count: Option<u64>,
    /// A locator of the table or list whose items are the answers.
    #[serde(default)]
    pub count_source: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    pub page: String,
    #[serde(default)]
    pub locator: Option<String>,
    /// What the source is for: `list` (enumerates the answers), `detail`, `count`, …
    #[serde(default)]
    pub role: Option<String>,
    /// The operator that brought it (`seed`, `frontier`, `search`, `manual`, …).
    #[serde(default)]
    pub operator: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    pub query: String,
    pub primary_key: Vec<String>,
    pub columns: Vec<ColumnSpec>,
    #[serde(default)]
    pub scope: Scope,
    #[serde(default)]
    pub sources: Vec<SourceSpec>,
    /// Roles that must be present among the sources (default: `list` when exhaustive).
    #[serde(default)]
    pub required_roles: Option<Vec<String>>,
    /// Per-check severity overrides (`{"7": "advisory"}`).
    #[serde(default)]
    pub severity: BTreeMap<String, Severity>,
}

/// A parsed filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub text: String,
    pub column: String,
    pub op: Op,
    pub value: FilterValue,
}

impl Filter {
    /// Whether `text` satisfies the filter, `None` when it cannot be compared (not a
    /// number or date). With `check_unit`, a number's unit must be the filter's (a staged
    /// value is canonical); without, what follows a number is ignored (a source cell's
    /// "2,850 km (1,770 mi)").
    pub fn test(&self, text: &str, check_unit: bool) -> Option<bool> {
        match &self.value {
            FilterValue::Number(want, unit) => match values::parse_number_unit(text) {
                Some((x, u)) if !check_unit || u.is_none() || u == *unit || unit.is_none() => {
                    Some(self.op.holds(x.total_cmp(want)))
                }
                _ => None,
            },
            FilterValue::Date(want) => values::parse_date(text).map(|d| self.op.holds(d.cmp(want))),
            FilterValue::Text(want) => {
                Some(self.op.holds(values::fold(text).cmp(&values::fold(want))))
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    Number(f64, Option<String>),
    Date(Date),
    Text(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
    Ne,
}

impl Op {
    pub fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            Op::Ge => ord != Less,
            Op::Gt => ord == Greater,
            Op::Le => ord != Greater,
            Op::Lt => ord == Less,
            Op::Eq => ord == Equal,
            Op::Ne => ord != Equal,
        }
    }
}

impl Contract {
    /// Reads and validates a contract file.
    pub fn read(path: &Path) -> Result<(Contract, Vec<u8>), ContractError> {
        let (c, bytes): (Contract, Vec<u8>) = crate::json_file::read(path)?;
        Ok((c.validated(&path.display().to_string())?, bytes))
    }

    pub fn from_slice(bytes: &[u8], path: &str) -> Result<Contract, ContractError> {
        crate::json_file::parse::<Contract>(bytes, path)?.validated(path)
    }

    fn validated(self, path: &str) -> Result<Contract, ContractError> {
        self.validate().map_err(|message| ContractError::Invalid {
            path: path.to_string(),
            message,
        })?;
        Ok(self)
    }

    fn validate(&self) -> Result<(), String> {
        if self.columns.is_empty() {
            return Err("no columns".into());
        }
        let mut seen = std::collections::HashSet::new();
        for c in &self.columns {
            if c.name.trim().is_empty() {
                return Err("a column has an empty name".into());
            }
            if super::rows::RESERVED.contains(&c.name.as_str()) {
                return Err(format!("column name {:?} is reserved", c.name));
            }
            if !seen.insert(c.name.as_str()) {
                return Err(format!("column {:?} is declared twice", c.name));
            }
        }
        if self.primary_key.is_empty() {
            return Err("primary_key is empty".into());
        }
        for k in &self.primary_key {
            if self.column(k).is_none() {
                return Err(format!("primary key column {k:?} is not a declared column"));
            }
        }
        for p in &self.scope.partitions {
            if self.column(&p.column).is_none() {
                return Err(format!(
                    "partition column {:?} is not a declared column",
                    p.column
                ));
            }
            if p.labels.is_empty() {
                return Err(format!("partition {:?} has no labels", p.column));
            }
        }
        self.filters()?;
        if let Some(d) = &self.scope.as_of {
            values::parse_date_strict(d)
                .ok_or_else(|| format!("scope.as_of {d:?} is not an ISO date (YYYY-MM-DD)"))?;
        }
        if let Some(cs) = &self.scope.count_source {
            crate::locator::parse(cs).map_err(|e| format!("scope.count_source: {e}"))?;
        }
        for (i, s) in self.sources.iter().enumerate() {
            if let Some(l) = &s.locator {
                crate::locator::parse_relative(l, &s.page)
                    .map_err(|e| format!("sources[{i}].locator: {e}"))?;
            }
        }
        for k in self.severity.keys() {
            if !k.parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) {
                return Err(format!("severity override for unknown check {k:?} (1–12)"));
            }
        }
        Ok(())
    }

    pub fn column(&self, name: &str) -> Option<&ColumnSpec> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The scope filters, parsed.
    pub fn filters(&self) -> Result<Vec<Filter>, String> {
        self.scope
            .filters
            .iter()
            .map(|f| self.parse_filter(f))
            .collect()
    }

    fn parse_filter(&self, text: &str) -> Result<Filter, String> {
        const OPS: [(&str, Op); 9] = [
            (">=", Op::Ge),
            ("≥", Op::Ge),
            ("<=", Op::Le),
            ("≤", Op::Le),
            ("!=", Op::Ne),
            ("≠", Op::Ne),
            (">", Op::Gt),
            ("<", Op::Lt),
            ("=", Op::Eq),
        ];
        let (pos, sym, op) = OPS
            .iter()
            .filter_map(|(s, o)| text.find(s).map(|p| (p, *s, *o)))
            .min_by_key(|(p, s, _)| (*p, std::cmp::Reverse(s.len())))
            .ok_or_else(|| format!("filter {text:?} has no operator (>=, >, <=, <, =, !=)"))?;
        let column = text[..pos].trim().to_string();
        let rhs = text[pos + sym.len()..].trim();
        let spec = self
            .column(&column)
            .ok_or_else(|| format!("filter {text:?}: {column:?} is not a declared column"))?;
        let value = match spec.kind {
            ColumnType::Number => {
                let (v, unit) = values::parse_number_unit(rhs)
                    .ok_or_else(|| format!("filter {text:?}: {rhs:?} is not a number"))?;
                if let (Some(u), Some(cu)) = (&unit, &spec.unit)
                    && u != cu
                {
                    return Err(format!(
                        "filter {text:?}: unit {u:?}, but column {column:?} is in {cu:?}"
                    ));
                }
                FilterValue::Number(v, unit)
            }
            ColumnType::Date => FilterValue::Date(
                values::parse_date(rhs)
                    .ok_or_else(|| format!("filter {text:?}: {rhs:?} is not a date"))?,
            ),
            _ => FilterValue::Text(rhs.trim_matches('"').to_string()),
        };
        Ok(Filter {
            text: text.to_string(),
            column,
            op,
            value,
        })
    }
}
