//! Pages for people: `/wiki/TITLE` (the page view), `/search?q=`, and the two reports
//! from POSTed input (`/report/cite`: a markdown report; `/report/audit`: a contract and
//! rows), each a form on a plain GET and the report itself on a GET with the same
//! fields in the query string, so a small report has a URL. Server-rendered HTML from
//! [`crate::html`], no script.

use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Form, Path, Query, State as Shared};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use maud::html;
use serde::Deserialize;

use super::State;
use super::tools::{self, AuditIn, CiteIn, ToolError};
use crate::html::{Links, document, page::top_bar};
use crate::index::Index;

pub fn routes() -> Router<Arc<State>> {
    Router::new()
        .route("/", get(home))
        .route("/wiki/{*title}", get(wiki))
        .route("/search", get(search))
        .route("/report/cite", get(cite_get).post(cite_report))
        .route("/report/audit", get(audit_get).post(audit_report))
}

async fn home() -> Html<String> {
    Html(document(
        "wikiwit",
        html! { (top_bar("")) h1 { "wikiwit" } p { "Search the index, or open a page at "
        code { "/wiki/TITLE" } "." } },
    ))
}

async fn wiki(Shared(state): Shared<Arc<State>>, Path(title): Path<String>) -> Response {
    render(state, move |ix| {
        crate::html::page::page(ix, &title).map_err(ToolError::from)
    })
    .await
}

#[derive(Deserialize)]
struct SearchQ {
    #[serde(default)]
    q: String,
}

async fn search(
    Shared(state): Shared<Arc<State>>,
    q: Result<Query<SearchQ>, QueryRejection>,
) -> Response {
    let q = q.map(|Query(q)| q.q).unwrap_or_default();
    render(state, move |ix| {
        crate::html::page::search(ix, &q).map_err(ToolError::from)
    })
    .await
}

/// The form, or with `?markdown=` the report itself (a report at a URL).
async fn cite_get(state: Shared<Arc<State>>, q: Result<Query<CiteIn>, QueryRejection>) -> Response {
    match q {
        Ok(Query(i)) => cite_report(state, Form(i)).await,
        Err(_) => cite_form().await.into_response(),
    }
}

async fn cite_form() -> Html<String> {
    form_page(
        "Check citations",
        "/report/cite",
        html! {
            label for="markdown" { "A markdown report with citations:" }
            textarea id="markdown" name="markdown" {}
        },
    )
}

/// A page with one form POSTing `fields` to `action`.
fn form_page(title: &str, action: &str, fields: maud::Markup) -> Html<String> {
    Html(document(
        title,
        html! {
            (top_bar(""))
            h1 { (title) }
            form method="post" action=(action) {
                (fields)
                " " button type="submit" { "Submit" }
            }
        },
    ))
}

async fn cite_report(Shared(state): Shared<Arc<State>>, Form(i): Form<CiteIn>) -> Response {
    render(state, move |ix| {
        let checked = tools::check_citations(ix, &i)?;
        Ok(crate::html::cite::report(
            &checked,
            "the posted report",
            &Links::default(),
        ))
    })
    .await
}

/// The form, or with `?contract=&rows=` the report itself.
async fn audit_get(
    state: Shared<Arc<State>>,
    q: Result<Query<AuditForm>, QueryRejection>,
) -> Response {
    match q {
        Ok(Query(f)) => audit_report(state, Form(f)).await,
        Err(_) => audit_form().await.into_response(),
    }
}

async fn audit_form() -> Html<String> {
    form_page(
        "Audit staged rows",
        "/report/audit",
        html! {
            label for="contract" { "Contract (JSON):" }
            textarea id="contract" name="contract" {}
            label for="rows" { "Rows (JSON lines, or CSV with a header line):" }
            textarea id="rows" name="rows" {}
            label for="format" { "Format: " }
            select id="format" name="format" {
                option value="jsonl" { "JSON lines" }
                option value="csv" { "CSV" }
            }
        },
    )
}

/// The audit form's fields: the contract arrives as JSON text.
#[derive(Deserialize)]
struct AuditForm {
    contract: String,
    rows: String,
    format: Option<String>,
}

async fn audit_report(Shared(state): Shared<Arc<State>>, Form(f): Form<AuditForm>) -> Response {
    render(state, move |ix| {
        let contract = serde_json::from_str(&f.contract)
            .map_err(|e| ToolError::BadRequest(format!("the contract is not JSON: {e}")))?;
        let i = AuditIn {
            contract,
            rows: f.rows,
            format: f.format,
        };
        let s = tools::run_audit(ix, &i)?;
        let inputs = crate::html::audit::Inputs {
            contract: "the posted contract",
            rows: "the posted rows",
        };
        Ok(crate::html::audit::report(
            &s,
            &s.kept,
            &inputs,
            &Links::default(),
        ))
    })
    .await
}

/// Renders on the blocking pool; a question with no answer is an HTML error page with
/// the status `/v1/` gives it.
async fn render<F>(state: Arc<State>, f: F) -> Response
where
    F: FnOnce(&Index) -> Result<String, ToolError> + Send + 'static,
{
    let (status, title, message) = match tokio::task::spawn_blocking(move || f(&state.index)).await
    {
        Ok(Ok(page)) => return Html(page).into_response(),
        Ok(Err(ToolError::NotFound(m))) => (StatusCode::NOT_FOUND, "Not found", m),
        Ok(Err(ToolError::BadRequest(m))) => (StatusCode::BAD_REQUEST, "Bad request", m),
        Ok(Err(ToolError::Internal(m))) => (StatusCode::INTERNAL_SERVER_ERROR, "Error", m),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, "Error", e.to_string()),
    };
    let page = document(
        title,
        html! { (top_bar("")) h1 { (title) } p.error { (message) } },
    );
    (status, Html(page)).into_response()
}
