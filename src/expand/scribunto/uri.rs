//! The Rust half of `mw.uri` (`uri.lua`): a page's local, full and canonical URL, by the
//! wiki's article path, script path and server. `title.lua`'s URL methods use it too.

use mlua::{Lua, MultiValue, Value};

use super::super::php::wf_urlencode;
use super::host::{Ctx, Op, arg_str, string};

/// The URI operations, by the name `uri.lua` and `title.lua` call them with.
pub(super) const OPS: &[(&str, Op)] = &[("url", url)];

/// `url(kind, prefixed title, query)`, `kind` being `local`, `full` or `canonical`.
fn url(cx: &Ctx<'_, '_>, lua: &Lua, a: &[Value]) -> mlua::Result<MultiValue> {
    let kind = arg_str(a, 0).unwrap_or_default();
    let text = arg_str(a, 1).unwrap_or_default();
    let query = arg_str(a, 2).unwrap_or_default();
    let config = cx.ex.config();
    let key = text.replace(' ', "_");
    let local = if query.is_empty() {
        config.article_path.replace("$1", &wf_urlencode(&key))
    } else {
        format!(
            "{}/index.php?title={}&{query}",
            config.script_path,
            wf_urlencode(&key)
        )
    };
    let url = match kind.as_str() {
        "local" => local,
        "canonical" => format!("{}{local}", config.canonical_server),
        _ => format!("{}{local}", config.server),
    };
    string(lua, &url)
}
