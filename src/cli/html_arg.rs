//! `--html FILE` and `--wiki-base URL`, shared by `audit` and `cite check`.

use std::path::{Path, PathBuf};

use anyhow::Context;

#[derive(Debug, clap::Args)]
pub struct HtmlArg {
    /// Also write a self-contained HTML report (inline CSS, no script) to FILE.
    #[arg(long = "html", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Where the report's locators link to: a `wikiwit serve` (its `/wiki/TITLE` pages).
    #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080")]
    pub wiki_base: String,
}

impl HtmlArg {
    pub fn links(&self) -> wikiwit::html::Links {
        wikiwit::html::Links {
            base: self.wiki_base.trim_end_matches('/').to_string(),
        }
    }
}

/// Writes `page` to `file`, naming the file when it cannot.
pub fn write_html(file: &Path, page: &str) -> anyhow::Result<()> {
    std::fs::write(file, page).with_context(|| format!("cannot write {}", file.display()))
}
