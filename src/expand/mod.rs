//! Template expansion: a page's wikitext → the wikitext MediaWiki's parser links, lists and
//! renders, with templates transcluded, arguments substituted, magic words and parser
//! functions evaluated (`Parser::replaceVariables`, `PPFrame::expand`,
//! `Parser::braceSubstitution`, ParserFunctions).
//!
//! What a reader sees on a real wiki is mostly made by templates — navigation boxes,
//! infoboxes, stub notices with their categories — so links, categories and the
//! templates MediaWiki records (`templatelinks`) are only right after expansion.
//!
//! Templates come from a [`TemplateSource`] (the build backs it with a first pass over
//! the dump); each expansion is bounded by MediaWiki's limits plus a deterministic work
//! budget, and every overrun becomes a [`Warning`] on the [`Expansion`], never an error.
//! Scribunto's `{{#invoke:…}}` runs the dump's modules in a sandboxed Lua 5.1
//! (`scribunto/`).

mod core_functions;
mod costs;
mod expander;
mod expr;
mod frame;
mod locale;
mod messages;
mod parser_functions;
mod php;
mod plural;
mod scribunto;
mod special_pages;
mod strtotime;
mod time;
mod variables;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::siteinfo::SiteInfo;

pub use costs::{CallCost, CostKind};
pub use expander::Expander;
pub use expr::{ExprError, evaluate as evaluate_expr};
pub use messages::{DateFormats, Messages, MessagesError};

/// Where template texts come from. Namespaces are numbers, titles DB keys (underscores).
pub trait TemplateSource {
    /// The current wikitext of a page, `None` when the page does not exist.
    fn wikitext(&self, ns: i32, dbkey: &str) -> Option<Cow<'_, str>>;
    /// Whether a page exists (`{{#ifexist:…}}`).
    fn exists(&self, ns: i32, dbkey: &str) -> bool;
    /// The target of a redirect page, `None` when the page is not a redirect.
    fn redirect(&self, ns: i32, dbkey: &str) -> Option<(i32, String)>;
    /// The dump's page id of a page (`mw.title`'s `id`), `None` when unknown (a source
    /// without an id map: then a page that exists reads as id 1, as before).
    fn page_id(&self, _ns: i32, _dbkey: &str) -> Option<u64> {
        None
    }
    /// The page with the dump's page id `id` (`mw.title.new(id)`).
    fn page_of_id(&self, _id: u64) -> Option<(i32, String)> {
        None
    }
    /// Whether the source holds any page of the Template namespace. A wiki that has
    /// templates renders a call of a missing one as a red link without expanding its
    /// arguments; an excerpt of articles without any template is read as written.
    fn holds_templates(&self) -> bool;
}

/// Environment variable that turns off what the expander keeps from one page for the
/// next (a worker's Lua state with its compiled modules, page-independent template
/// expansions): set to anything, every page is expanded from scratch. The index is the
/// same byte for byte either way (`tests/expansion_cache.rs`); only time differs.
pub const NO_CACHE_ENV: &str = "WIKIWIT_NO_EXPANSION_CACHE";

/// MediaWiki's complexity limits (`$wgMaxTemplateDepth`, `$wgMaxPPExpandDepth`,
/// `$wgMaxPPNodeCount`, `$wgMaxArticleSize`, `$wgExpensiveParserFunctionLimit`; the
/// defaults are MediaWiki 1.39's, whose depth limits are 100 — 40 before 1.38) and a
/// deterministic work budget of our own that bounds a hostile page in CPU time without
/// a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Template nesting (a template transcluded inside a template …).
    pub template_depth: u32,
    /// Nested expansions of any kind (arguments, parser-function branches, templates).
    pub expand_depth: u32,
    /// Preprocessor nodes visited while expanding.
    pub node_count: u64,
    /// Preprocessor nodes made from texts built while expanding (`frame:preprocess`):
    /// MediaWiki's `$wgMaxGeneratedPPNodeCount`, which 1.35 dropped; kept here because
    /// nothing else bounds the memory of a module preprocessing its own invocation.
    pub generated_nodes: u64,
    /// Bytes of template and parser-function output, summed over every nesting level.
    pub post_expand_size: u64,
    /// Bytes of template source text transcluded.
    pub pre_expand_size: u64,
    /// Bytes of template arguments substituted.
    pub argument_size: u64,
    /// Calls that need a database look-up (`{{#ifexist:…}}`, `{{PAGESIZE:…}}`).
    pub expensive_functions: u32,
    /// Work units: one per node visited, per 16 bytes preprocessed, per 32 bytes of
    /// text and per 64 bytes of template output copied. The default, 10 M, is about a
    /// second of CPU in a release build.
    pub work: u64,
    /// Lua VM instructions per page, over all its `#invoke`s (Scribunto's CPU-time
    /// limit, counted rather than timed so that output does not depend on the
    /// machine). The default, 50 M, is about half a second.
    pub lua_instructions: u64,
    /// Bytes of Lua heap per page.
    pub lua_memory: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            template_depth: 100,
            expand_depth: 100,
            node_count: 1_000_000,
            generated_nodes: 1_000_000,
            post_expand_size: 2 * 1024 * 1024,
            pre_expand_size: 2 * 1024 * 1024,
            argument_size: 2 * 1024 * 1024,
            expensive_functions: 500,
            work: 10_000_000,
            lua_instructions: 50_000_000,
            lua_memory: 50 * 1024 * 1024,
        }
    }
}

/// Site statistics behind `{{NUMBEROFARTICLES}}` and its siblings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteStats {
    pub articles: u64,
    pub pages: u64,
    pub files: u64,
    pub edits: u64,
    pub users: u64,
    pub active_users: u64,
    pub admins: u64,
}

/// The wiki an expansion runs on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExpandConfig {
    /// `{{SITENAME}}`.
    pub sitename: String,
    /// `{{SERVER}}`, as Wikimedia sets it: protocol-relative (`//ltg.wikipedia.org`).
    pub server: String,
    /// `$wgCanonicalServer`: the server with the scheme of the dump's `<base>`
    /// (`https://ltg.wikipedia.org`), for canonical URLs.
    #[serde(default)]
    pub canonical_server: String,
    /// `{{SCRIPTPATH}}` (`/w`).
    pub script_path: String,
    /// Article path with `$1` for the title (`/wiki/$1`).
    pub article_path: String,
    /// Content language code (`ltg`): plural rules, number formatting.
    pub lang: String,
    /// The pinned "now" of `{{CURRENTYEAR}}`, `{{#time:…}}`, … as Unix seconds (UTC): the
    /// same dump expands to the same text whenever it is built.
    pub now: i64,
    pub stats: SiteStats,
    pub limits: Limits,
    /// The content language's messages and date formats (English when none were
    /// recorded); shared, as every thread's expander reads the same.
    #[serde(skip)]
    pub messages: std::sync::Arc<Messages>,
}

impl ExpandConfig {
    /// The configuration of the wiki a dump comes from, at the pinned time `now`.
    pub fn from_site(site: &SiteInfo, now: i64) -> ExpandConfig {
        let host = site.host();
        ExpandConfig {
            sitename: site.sitename.clone(),
            server: if host.is_empty() {
                String::new()
            } else {
                format!("//{host}")
            },
            canonical_server: if host.is_empty() {
                String::new()
            } else {
                let scheme = site.base.split_once("://").map_or("https", |(s, _)| s);
                format!("{scheme}://{host}")
            },
            script_path: "/w".to_string(),
            article_path: "/wiki/$1".to_string(),
            lang: if site.lang.is_empty() {
                "en".to_string()
            } else {
                site.lang.clone()
            },
            now,
            stats: SiteStats::default(),
            limits: Limits::default(),
            messages: Default::default(),
        }
    }
}

/// A limit overrun or an unsupported construct met while expanding. The page is still
/// expanded: the offending call renders as MediaWiki renders it (an error span, a link
/// to the template, or nothing).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    #[error("template loop detected: {title}")]
    TemplateLoop { title: String },
    #[error("template recursion depth limit ({limit}) exceeded at {title}")]
    TemplateDepth { title: String, limit: u32 },
    #[error("expansion depth limit ({limit}) exceeded")]
    ExpandDepth { limit: u32 },
    #[error("preprocessor node-count limit ({limit}) exceeded")]
    NodeCount { limit: u64 },
    /// The page's generated-node limit was reached (the `frame:preprocess` call fails).
    #[error("generated node count limit ({limit}) exceeded")]
    GeneratedNodeCount { limit: u64 },
    #[error("post-expand include size limit ({limit} bytes) exceeded by {title}")]
    PostExpandSize { title: String, limit: u64 },
    #[error("pre-expand include size limit ({limit} bytes) exceeded by {title}")]
    PreExpandSize { title: String, limit: u64 },
    #[error("template argument size limit ({limit} bytes) exceeded")]
    ArgumentSize { limit: u64 },
    #[error("expensive parser function limit ({limit}) exceeded")]
    ExpensiveFunctions { limit: u32 },
    #[error("work budget ({limit} units) exhausted: the rest of the page was not expanded")]
    WorkBudget { limit: u64 },
    /// The Lua state could not be created (the call renders a script error).
    #[error("{{{{#invoke:{module}}}}} not run: Lua is not available")]
    LuaUnavailable { module: String },
    /// The page's Lua instruction budget ran out ("the time allocated for running
    /// scripts has expired").
    #[error("{module}: the time allocated for running scripts has expired")]
    LuaTimeout { module: String },
    /// The page's Lua memory limit was reached.
    #[error("{module}: Lua memory limit reached")]
    LuaMemory { module: String },
    /// A module raised an error (MediaWiki shows "Script error" and adds the page to its
    /// tracking category).
    #[error("script error in {module}: {message}")]
    ScriptError { module: String, message: String },
}

/// The revision of the page being expanded, for `{{REVISIONID}}`, `{{REVISIONYEAR}}`,
/// `{{PAGEID}}` and their siblings. MediaWiki gives the values of the revision it
/// renders (in a dump, the page's one revision); a preview, as `action=expandtemplates`
/// is, has no revision id or size yet and takes the current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRevision {
    pub page_id: u64,
    pub rev_id: Option<u64>,
    /// Seconds since the Unix epoch (UTC).
    pub timestamp: i64,
    /// The wikitext's length in bytes.
    pub size: Option<u64>,
}

/// A page as MediaWiki's parser sees it after template expansion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expansion {
    /// The expanded wikitext (comments removed; extension tags kept as tags, their
    /// wikitext content expanded).
    pub text: String,
    /// Which bytes of the page's own text made which bytes of `text`, in output order:
    /// how a link found in `text` is traced back to the page's wikitext (locators point
    /// into the page as written) and to the template that produced it.
    pub segments: Vec<Segment>,
    /// Every page MediaWiki records in `templatelinks` for this page, in order of first
    /// use: templates called directly or from other templates, missing ones, both ends
    /// of template redirects, and invoked modules.
    pub templates: Vec<(i32, String)>,
    /// Pages MediaWiki 1.39 records in `pagelinks` without a `[[…]]` in the text: the
    /// titles checked by `{{#ifexist:…}}` and by Lua (`mw.title….exists`, `.isRedirect`,
    /// `.redirectTarget`).
    pub existence_links: Vec<(i32, String)>,
    /// Modules called through `{{#invoke:…}}`.
    pub invoked_modules: Vec<String>,
    /// The last `{{DEFAULTSORT:…}}` key.
    pub default_sort: Option<String>,
    pub warnings: Vec<Warning>,
    pub stats: ExpansionStats,
    /// What each template and module called cost, by kind and title.
    pub costs: Vec<CallCost>,
}

/// One node of the page's own text and what it expanded to. Text nodes map byte for
/// byte; a call's output maps as a whole onto the call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// Byte range in the page's wikitext.
    pub own: std::ops::Range<u32>,
    /// Byte range in [`Expansion::text`].
    pub out: std::ops::Range<u32>,
    /// A `{{…}}` or `{{{…}}}` call (not literal text).
    pub call: bool,
    /// The first template the call used (the one it calls directly, or the first one a
    /// parser function's branch called).
    pub template: Option<(i32, String)>,
    /// Indices into [`Expansion::templates`] and [`Expansion::existence_links`] first
    /// recorded while this node expanded.
    pub templates: std::ops::Range<u32>,
    pub existence_links: std::ops::Range<u32>,
}

/// MediaWiki's "NewPP limit report", for this expansion.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpansionStats {
    pub node_count: u64,
    pub post_expand_size: u64,
    pub pre_expand_size: u64,
    pub argument_size: u64,
    pub expensive_functions: u32,
    pub max_template_depth: u32,
    pub work: u64,
    /// Lua VM instructions run.
    pub lua_instructions: u64,
}

#[cfg(test)]
mod tests;
