//! `costs.json`: what each template and module cost the build's expansion of the dump's
//! pages, summed over the pages — which templates make a build slow, in figures that do
//! not depend on the machine, the thread count or the expansion caches (so the file is
//! byte-identical between builds like the other data files). The time each took is not
//! such a figure: `build --cost-report FILE` writes it outside the index.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::IndexError;
use crate::expand::CostKind;

/// The calls of one template or module over the whole dump, inclusive of what they
/// expanded (see [`crate::expand::CallCost`]). Without Lua instructions: what a page is
/// charged still depends on which pages its worker's Lua state ran before (the kept
/// state's heap, `docs/expansion.md`), so they differ between thread counts; the
/// `--cost-report` has them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostRow {
    /// The page called, as its prefixed title.
    pub title: String,
    pub calls: u64,
    /// Pages whose expansion called it at least once.
    pub pages: u64,
    pub nodes: u64,
    pub post_expand_size: u64,
    pub work: u64,
}

/// The content of `costs.json`: rows by title within each kind, or (from
/// [`Costs::top`]) by cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Costs {
    /// Pages whose expansion called any template or module.
    pub pages_with_calls: u64,
    pub templates: Vec<CostRow>,
    pub modules: Vec<CostRow>,
}

impl Costs {
    /// The rows of one kind.
    pub fn rows(&self, kind: CostKind) -> &[CostRow] {
        match kind {
            CostKind::Template => &self.templates,
            CostKind::Module => &self.modules,
        }
    }

    pub(crate) fn rows_mut(&mut self, kind: CostKind) -> &mut Vec<CostRow> {
        match kind {
            CostKind::Template => &mut self.templates,
            CostKind::Module => &mut self.modules,
        }
    }

    /// The `n` most used templates and modules: by calls, then expanded nodes.
    pub fn top(&self, n: usize) -> Costs {
        let pick = |rows: &[CostRow]| {
            let mut v: Vec<CostRow> = rows.to_vec();
            v.sort_by(|a, b| rank(b).cmp(&rank(a)).then_with(|| a.title.cmp(&b.title)));
            v.truncate(n);
            v
        };
        Costs {
            pages_with_calls: self.pages_with_calls,
            templates: pick(&self.templates),
            modules: pick(&self.modules),
        }
    }

    /// Reads `costs.json` from an index directory, checking it against the manifest's
    /// checksum (`expected`, hex CRC-32) when there is one.
    pub(crate) fn read(dir: &Path, expected: Option<&str>) -> Result<Costs, IndexError> {
        let path = dir.join(super::files::COSTS);
        let bytes = std::fs::read(&path).map_err(|e| IndexError::io(&path, e))?;
        let crc = format!("{:08x}", crc32fast::hash(&bytes));
        if let Some(want) = expected
            && want != crc
        {
            return Err(IndexError::DataCorruption {
                path,
                comment: format!("CRC-32 {crc}, the manifest says {want}"),
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| IndexError::DataCorruption {
            path,
            comment: format!("not a cost table: {e}"),
        })
    }

    /// Writes the table as `costs.json` into `dir`; returns its size.
    pub(crate) fn write(&self, dir: &Path) -> Result<u64, IndexError> {
        let path = dir.join(super::files::COSTS);
        let size = write_pretty_json(&path, self, "cost table")?;
        std::fs::File::open(&path)
            .and_then(|f| f.sync_all())
            .map_err(|e| IndexError::io(&path, e))?;
        Ok(size)
    }
}

/// Writes `value` to `path` as pretty JSON ending in a newline; returns its size.
/// `what` names the value in an encoding error.
pub(crate) fn write_pretty_json(
    path: &Path,
    value: &impl Serialize,
    what: &'static str,
) -> Result<u64, IndexError> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| IndexError::Encode {
        what,
        message: e.to_string(),
    })?;
    text.push('\n');
    std::fs::write(path, &text).map_err(|e| IndexError::io(path, e))?;
    Ok(text.len() as u64)
}

fn rank(r: &CostRow) -> (u64, u64) {
    (r.calls, r.nodes)
}
