//! wikiwit: a local, versioned index of a MediaWiki XML dump, and the checks that use it.
//!
//! Data flows through the modules in this order: [`dump`] (bytes → pages) →
//! [`title`] (MediaWiki title rules) → [`redirect`] → [`index`] (on-disk stores, built by
//! [`build`]) → the query side ([`export`], …). The `wikiwit` binary is a thin CLI over
//! this library.

pub mod audit;
pub mod build;
pub mod cite;
pub mod dump;
pub mod eval;
pub mod export;
pub mod frontier;
pub mod html;
pub mod index;
pub mod json_file;
pub mod lists;
pub mod locator;
pub mod query;
pub mod redirect;
pub mod resolve;
pub mod serve;
pub mod siteinfo;
pub mod text;
pub mod title;
pub mod url;
pub mod wikitext;
