//! `/v1/`: wikiwit's own answers as JSON, for what the Action API has no word for.
//! GET endpoints take query parameters, POST ones a JSON body; each answers with the
//! JSON `wikiwit … --json` prints, or `{"error": {"code", "info"}}` with 404 (not in
//! the index), 400 (bad request) or 500.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, RawQuery, State as Shared};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::State;
use super::tools::{self, ToolError};
use crate::index::Index;

pub fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/resolve", get(|s, r, q| ask(s, r, q, tools::resolve)))
        .route("/page", get(|s, r, q| ask(s, r, q, tools::page)))
        .route("/search", get(|s, r, q| ask(s, r, q, tools::search)))
        .route("/text", get(|s, r, q| ask(s, r, q, tools::section_text)))
        .route("/table", get(|s, r, q| ask(s, r, q, tools::table)))
        .route("/infobox", get(|s, r, q| ask(s, r, q, tools::infobox)))
        .route("/siblings", get(|s, r, q| ask(s, r, q, tools::siblings)))
        .route("/links", get(|s, r, q| ask(s, r, q, tools::links)))
        .route("/locate", get(|s, r, q| ask(s, r, q, tools::locate)))
        .route("/frontier", post(|s, b| tell(s, b, tools::frontier)))
        .route("/audit", post(|s, b| tell(s, b, tools::audit)))
        .route("/cite/check", post(|s, b| tell(s, b, tools::cite_check)))
}

/// A GET endpoint: the query string is the tool's input. Its values are decoded
/// strictly, as the Action API's: invalid UTF-8 is refused (`badutf8`), not replaced.
async fn ask<I, O, F>(
    Shared(state): Shared<Arc<State>>,
    RawQuery(raw): RawQuery,
    q: Result<Query<I>, axum::extract::rejection::QueryRejection>,
    f: F,
) -> Response
where
    I: DeserializeOwned + Send + 'static,
    F: Fn(&Index, &I) -> Result<O, ToolError> + Send + 'static,
    O: serde::Serialize,
{
    let raw = raw.unwrap_or_default();
    if let Err(e) = super::params::Params::parse(raw.as_bytes(), b"", usize::MAX) {
        return error(StatusCode::BAD_REQUEST, &e.code, &e.info);
    }
    match q {
        Ok(Query(i)) => answer(state, i, f).await,
        Err(e) => error(StatusCode::BAD_REQUEST, "badparams", &e.body_text()),
    }
}

/// A POST endpoint: the JSON body is the tool's input.
async fn tell<I, O, F>(
    Shared(state): Shared<Arc<State>>,
    body: Result<axum::Json<I>, axum::extract::rejection::JsonRejection>,
    f: F,
) -> Response
where
    I: DeserializeOwned + Send + 'static,
    F: Fn(&Index, &I) -> Result<O, ToolError> + Send + 'static,
    O: serde::Serialize,
{
    match body {
        Ok(axum::Json(i)) => answer(state, i, f).await,
        Err(e) => error(e.status(), "badbody", &e.body_text()),
    }
}

async fn answer<I, O, F>(state: Arc<State>, input: I, f: F) -> Response
where
    I: Send + 'static,
    F: Fn(&Index, &I) -> Result<O, ToolError> + Send + 'static,
    O: serde::Serialize,
{
    let ask = move || f(&state.index, &input).and_then(|o| tools::to_value(&o));
    match tokio::task::spawn_blocking(ask).await {
        Ok(Ok(v)) => axum::Json(v).into_response(),
        Ok(Err(ToolError::NotFound(m))) => error(StatusCode::NOT_FOUND, "notfound", &m),
        Ok(Err(ToolError::BadRequest(m))) => error(StatusCode::BAD_REQUEST, "badrequest", &m),
        Ok(Err(ToolError::Internal(m))) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal", &m),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            &e.to_string(),
        ),
    }
}

fn error(status: StatusCode, code: &str, info: &str) -> Response {
    (
        status,
        axum::Json(json!({"error": {"code": code, "info": info}})),
    )
        .into_response()
}
