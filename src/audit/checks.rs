//! The twelve checks: id, name, category and default severity.
//!
//! Categories say what kind of trust a finding breaks: *factual* (a value is not what
//! the source says), *structural* (the table is malformed or unprovenanced), *scope*
//! (the table is not the answer to its query). Severities say what to do: *blocking*
//! findings stop publication, *hygiene* ones should be fixed, *advisory* ones read.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Factual,
    Structural,
    Scope,
}

impl Category {
    /// The name the log writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Factual => "factual",
            Category::Structural => "structural",
            Category::Scope => "scope",
        }
    }
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Blocking,
    Hygiene,
    Advisory,
}

impl Severity {
    /// The name the log writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Blocking => "blocking",
            Severity::Hygiene => "hygiene",
            Severity::Advisory => "advisory",
        }
    }
}

/// Check ids (1–12, the numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    CitationGate = 1,
    RowEvidence = 2,
    ClaimType = 3,
    Temporal = 4,
    KeyIntegrity = 5,
    Schema = 6,
    Normalization = 7,
    ScopeMatch = 8,
    Cardinality = 9,
    SourceRoles = 10,
    Provenance = 11,
    Exhaustiveness = 12,
}

pub const ALL: [Check; 12] = [
    Check::CitationGate,
    Check::RowEvidence,
    Check::ClaimType,
    Check::Temporal,
    Check::KeyIntegrity,
    Check::Schema,
    Check::Normalization,
    Check::ScopeMatch,
    Check::Cardinality,
    Check::SourceRoles,
    Check::Provenance,
    Check::Exhaustiveness,
];

impl Check {
    pub fn id(self) -> u8 {
        self as u8
    }

    pub fn name(self) -> &'static str {
        match self {
            Check::CitationGate => "citation gate",
            Check::RowEvidence => "row evidence",
            Check::ClaimType => "claim type",
            Check::Temporal => "temporal knowability",
            Check::KeyIntegrity => "key integrity",
            Check::Schema => "schema consistency",
            Check::Normalization => "normalization",
            Check::ScopeMatch => "scope match",
            Check::Cardinality => "cardinality",
            Check::SourceRoles => "source-role coverage",
            Check::Provenance => "operator provenance",
            Check::Exhaustiveness => "exhaustiveness",
        }
    }

    pub fn category(self) -> Category {
        match self {
            Check::RowEvidence | Check::ClaimType | Check::Temporal => Category::Factual,
            Check::CitationGate
            | Check::KeyIntegrity
            | Check::Schema
            | Check::Normalization
            | Check::Provenance => Category::Structural,
            Check::ScopeMatch | Check::Cardinality | Check::SourceRoles | Check::Exhaustiveness => {
                Category::Scope
            }
        }
    }

    pub(crate) fn default_severity(self) -> Severity {
        match self {
            Check::CitationGate
            | Check::RowEvidence
            | Check::KeyIntegrity
            | Check::Schema
            | Check::ScopeMatch
            | Check::Cardinality
            | Check::Exhaustiveness => Severity::Blocking,
            Check::ClaimType | Check::Temporal | Check::Normalization | Check::SourceRoles => {
                Severity::Hygiene
            }
            Check::Provenance => Severity::Hygiene,
        }
    }
}
