//! `/w/api.php`: the part of MediaWiki's Action API that real clients use, answered
//! from the index in MediaWiki's shapes (both `formatversion`s), with its continuation,
//! limits, `normalized`/`redirects` reporting and `{"error": {"code", "info"}}` errors.
//!
//! Errors an Action API client can act on (a missing parameter, a bad value, too many
//! titles) come back as MediaWiki sends them: status 200, the `MediaWiki-API-Error`
//! header, the error object. Requests the server will not read at all (invalid UTF-8, a
//! body that is not form data) get a 4xx status with the same error object.

mod pages;
mod parse;
mod query;
mod siteinfo;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State as Shared;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{Params, State};

/// An error in MediaWiki's shape.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub code: String,
    pub info: String,
    /// 200 for errors of the API itself (as MediaWiki), 4xx for refused requests.
    pub status: StatusCode,
}

impl ApiError {
    pub fn new(code: &str, info: impl Into<String>) -> ApiError {
        ApiError {
            code: code.to_string(),
            info: info.into(),
            status: StatusCode::OK,
        }
    }

    pub(crate) fn bad_request(code: &str, info: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            ..ApiError::new(code, info)
        }
    }

    pub fn missing(param: &str) -> ApiError {
        ApiError::new(
            "missingparam",
            format!("The \"{param}\" parameter must be set."),
        )
    }

    pub(crate) fn bad_value(param: &str, value: &str) -> ApiError {
        ApiError::new(
            "badvalue",
            format!("Unrecognized value for parameter \"{param}\": {value}."),
        )
    }

    /// More values than MediaWiki's limit for anonymous users: refused with 400, the
    /// request being one no real client sends.
    pub(crate) fn too_many(param: &str, limit: usize) -> ApiError {
        ApiError::bad_request(
            "toomanyvalues",
            format!("Too many values supplied for parameter \"{param}\". The limit is {limit}."),
        )
    }

    /// A failure reading the index. Status 200 as MediaWiki sends it: clients such as
    /// mwclient retry 5xx answers for minutes, and this one would not change.
    pub fn internal(e: impl std::fmt::Display) -> ApiError {
        ApiError::new("internal_api_error", e.to_string())
    }
}

impl From<crate::index::IndexError> for ApiError {
    fn from(e: crate::index::IndexError) -> ApiError {
        ApiError::internal(e)
    }
}

impl From<crate::query::QueryError> for ApiError {
    fn from(e: crate::query::QueryError) -> ApiError {
        if e.is_not_found() {
            ApiError::new("missingtitle", e.to_string())
        } else {
            ApiError::internal(e)
        }
    }
}

/// The two output shapes: `formatversion=1` (MediaWiki's default: pages keyed by id,
/// `""` for true, content under `*`) and `2` (arrays, booleans, `content`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fv {
    V1,
    V2,
}

impl Fv {
    /// A true boolean as this format writes it (false ones are left out).
    pub fn yes(self) -> Value {
        match self {
            Fv::V1 => Value::String(String::new()),
            Fv::V2 => Value::Bool(true),
        }
    }

    /// Text content: `{"*": text}` in version 1, `{"content": text}` in version 2.
    pub(crate) fn content_key(self) -> &'static str {
        match self {
            Fv::V1 => "*",
            Fv::V2 => "content",
        }
    }
}

/// One request in progress.
pub(crate) struct Ctx<'a> {
    pub state: &'a State,
    pub p: &'a Params,
    pub fv: Fv,
    /// `http://host:port`, for the URLs clients expect (`fullurl`, opensearch).
    pub base: String,
    pub warnings: Map<String, Value>,
}

impl Ctx<'_> {
    pub fn index(&self) -> &crate::index::Index {
        &self.state.index
    }

    pub fn warn(&mut self, module: &str, text: String) {
        let v = match self.fv {
            Fv::V1 => json!({"*": text}),
            Fv::V2 => json!({"warnings": text}),
        };
        self.warnings.insert(module.to_string(), v);
    }

    /// `http://host/wiki/Title_with_underscores`.
    pub(crate) fn url_of(&self, prefixed: &str) -> String {
        let path = crate::url::encode_title_path(prefixed);
        format!("{}/wiki/{path}", self.base)
    }
}

/// The handler of `/w/api.php` (GET and POST).
pub async fn handle(
    Shared(state): Shared<Arc<State>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|t| t.starts_with("application/x-www-form-urlencoded"));
    if !form && !body.is_empty() {
        return error_response(
            &ApiError {
                status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
                ..ApiError::new(
                    "badcontenttype",
                    "The request body must be application/x-www-form-urlencoded.",
                )
            },
            Fv::V1,
        );
    }
    let params = match Params::parse(
        uri.query().unwrap_or("").as_bytes(),
        &body,
        state.limits.max_values,
    ) {
        Ok(p) => p,
        Err(e) => return error_response(&e, Fv::V1),
    };
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost")
        .to_string();
    let answer = tokio::task::spawn_blocking(move || {
        let fv = match params.get("formatversion") {
            Some("2") | Some("latest") => Fv::V2,
            _ => Fv::V1,
        };
        (answer(&state, &params, fv, format!("http://{host}")), fv)
    })
    .await;
    match answer {
        Ok((Ok(v), _)) => json_response(StatusCode::OK, &v),
        Ok((Err(e), fv)) => error_response(&e, fv),
        Err(e) => error_response(&ApiError::internal(e), Fv::V1),
    }
}

/// Answers one request: the action's result, with warnings.
pub fn answer(state: &State, p: &Params, fv: Fv, base: String) -> Result<Value, ApiError> {
    let mut cx = Ctx {
        state,
        p,
        fv,
        base,
        warnings: Map::new(),
    };
    match p.get("format") {
        None | Some("json") | Some("jsonfm") => {}
        Some(other) => return Err(ApiError::bad_value("format", other)),
    }
    let mut out = match p.get("action") {
        None => {
            return Err(ApiError::new(
                "help",
                "This is wikiwit's MediaWiki Action API subset; see docs/serve.md.",
            ));
        }
        Some("query") => query::run(&mut cx)?,
        Some("parse") => parse::run(&mut cx)?,
        Some("opensearch") => return parse::opensearch(&mut cx),
        Some(other) => return Err(ApiError::bad_value("action", other)),
    };
    let known = KNOWN_PARAMS;
    let unknown: Vec<&str> = p
        .names()
        .filter(|n| !known.iter().any(|k| k == n || module_param(n)))
        .collect();
    if !unknown.is_empty() {
        cx.warn(
            "main",
            format!("Unrecognized parameters: {}.", unknown.join(", ")),
        );
    }
    if !cx.warnings.is_empty() {
        out.insert("warnings".into(), Value::Object(cx.warnings));
    }
    Ok(Value::Object(out))
}

/// Parameters every action accepts.
const KNOWN_PARAMS: &[&str] = &[
    "action",
    "format",
    "formatversion",
    "utf8",
    "continue",
    "maxlag",
    "smaxage",
    "maxage",
    "assert",
    "assertuser",
    "requestid",
    "servedby",
    "curtimestamp",
    "responselanginfo",
    "origin",
    "uselang",
    "variant",
    "errorformat",
    "errorlang",
    "errorsuselocal",
    "callback",
    "titles",
    "pageids",
    "revids",
    "redirects",
    "converttitles",
    "indexpageids",
    "export",
    "exportnowrap",
    "iwurl",
    "rawcontinue",
    "prop",
    "list",
    "meta",
    "generator",
    "page",
    "pageid",
    "text",
    "title",
    "section",
    "search",
    "limit",
    "namespace",
    "profile",
    "suggest",
    "warningsaserror",
];

/// Module parameters carry a two- or three-letter prefix (`pl…`, `gcm…`); each module
/// reads its own and ignores the rest, so these are not reported.
fn module_param(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "in", "rv", "pl", "cl", "tl", "ex", "pp", "sr", "bl", "cm", "ap", "ps", "si", "ui", "ii",
    ];
    let n = name.strip_prefix('g').unwrap_or(name);
    PREFIXES.iter().any(|p| n.starts_with(p)) || PREFIXES.iter().any(|p| name.starts_with(p))
}

fn json_response(status: StatusCode, v: &Value) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        )],
        body,
    )
        .into_response()
}

fn error_response(e: &ApiError, fv: Fv) -> Response {
    let mut err = json!({"code": e.code, "info": e.info});
    let doc = "See docs/serve.md for the parameters wikiwit serve answers.";
    match fv {
        Fv::V1 => err["*"] = json!(doc),
        Fv::V2 => err["docref"] = json!(doc),
    }
    let mut r = json_response(e.status, &json!({"error": err}));
    if let Ok(v) = HeaderValue::from_str(&e.code) {
        r.headers_mut().insert("MediaWiki-API-Error", v);
    }
    r
}
