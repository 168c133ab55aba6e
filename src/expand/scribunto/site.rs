//! The Rust half of `mw.site` (`site.lua`): the wiki's configuration and namespaces as
//! one table, built once per Lua state and passed to every library file as `site`.

use mlua::{Lua, Table};

use super::super::ExpandConfig;
use crate::title::TitleCodec;

/// Namespaces where `/` makes subpages (as the page-name magic words use them).
const NS_WITH_SUBPAGES: &[i32] = &[1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 15, 828, 829];

pub(super) fn has_subpages(ns: i32) -> bool {
    NS_WITH_SUBPAGES.contains(&ns)
}

/// MediaWiki's canonical (English) namespace names.
fn canonical_name(ns: i32) -> Option<&'static str> {
    Some(match ns {
        -2 => "Media",
        -1 => "Special",
        0 => "",
        1 => "Talk",
        2 => "User",
        3 => "User talk",
        4 => "Project",
        5 => "Project talk",
        6 => "File",
        7 => "File talk",
        8 => "MediaWiki",
        9 => "MediaWiki talk",
        10 => "Template",
        11 => "Template talk",
        12 => "Help",
        13 => "Help talk",
        14 => "Category",
        15 => "Category talk",
        828 => "Module",
        829 => "Module talk",
        _ => return None,
    })
}

/// Site data `site.lua` turns into `mw.site` (and the other files read: the pinned time,
/// the content language, its list separators).
pub(super) fn site_table(
    lua: &Lua,
    config: &ExpandConfig,
    codec: &TitleCodec,
) -> mlua::Result<Table> {
    let site = lua.create_table()?;
    site.set("sitename", config.sitename.as_str())?;
    site.set("server", config.server.as_str())?;
    site.set("scriptPath", config.script_path.as_str())?;
    site.set("lang", config.lang.as_str())?;
    site.set("now", config.now as f64)?;
    let stats = lua.create_table()?;
    let s = &config.stats;
    for (k, v) in [
        ("pages", s.pages),
        ("articles", s.articles),
        ("files", s.files),
        ("edits", s.edits),
        ("users", s.users),
        ("activeUsers", s.active_users),
        ("admins", s.admins),
    ] {
        stats.set(k, v as f64)?;
    }
    site.set("stats", stats)?;
    let list = lua.create_table()?;
    let table = codec.namespaces();
    for (i, id) in table.ids().into_iter().enumerate() {
        let ns = lua.create_table()?;
        ns.set("id", id)?;
        let name = table.name_of(id).unwrap_or("").replace('_', " ");
        let canonical = canonical_name(id).unwrap_or(&name).to_string();
        ns.set("name", name)?;
        ns.set("canonicalName", canonical)?;
        ns.set("hasSubpages", has_subpages(id))?;
        ns.set("isCapitalized", table.is_capitalized(id))?;
        list.set(i + 1, ns)?;
    }
    site.set("namespaces", list)?;
    let m = &config.messages;
    let separators = lua.create_table()?;
    separators.set("comma", m.text("comma-separator", ", "))?;
    let conjunction = format!("{}{}", m.text("and", " and"), m.text("word-separator", " "));
    separators.set("conjunction", conjunction)?;
    separators.set("ellipsis", m.text("ellipsis", "..."))?;
    site.set("separators", separators)?;
    Ok(site)
}
