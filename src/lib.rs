//! wikiwit: a local, versioned index of a MediaWiki XML dump, and the checks that use it.
//!
//! Data flows through the modules in this order: [`dump`] (bytes → pages) →
//! [`title`] (MediaWiki title rules) → [`redirect`] → [`wikitext`] (syntax) → [`expand`]
//! (templates, parser functions, Scribunto) → [`analysis`] (a page's structure after
//! expansion) → [`index`] (on-disk stores, built by [`indexer`]) → the query side
//! ([`export`], …). The `wikiwit` binary is a thin CLI over
//! this library.

pub mod analysis;
pub mod audit;
pub(crate) mod chunk_crc;
pub mod cite;
pub mod dump;
pub mod eval;
pub mod expand;
pub mod export;
pub mod frontier;
pub mod html;
pub mod index;
pub mod indexer;
pub mod json_file;
pub mod locator;
pub mod query;
pub mod redirect;
pub mod resolve;
pub mod serve;
pub mod siblings;
pub mod siteinfo;
pub mod text;
pub mod title;
pub mod url;
pub mod wikitext;
