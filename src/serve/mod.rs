//! `wikiwit serve`: the index over HTTP, for clients that already speak to Wikipedia.
//!
//! `/w/api.php` answers the subset of MediaWiki's Action API that mwclient, the
//! `wikipedia` package and Wikipedia-API use (`action`); `/v1/` answers in wikiwit's own
//! JSON what the Action API has no word for (`native`). Every answer comes from the
//! query functions the CLI uses, so a client and the CLI agree.
//!
//! The server is bounded so that no request can take it down: request size, values per
//! multi-value parameter, the time to send headers (slowloris) and to answer, and the
//! number of open connections all have limits ([`Limits`]); past one the client gets a
//! plain HTTP error, never a crash.

pub(crate) mod action;
pub mod mcp;
mod native;
mod pages;
mod params;
pub(crate) mod tools;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tower_http::timeout::TimeoutLayer;

use crate::index::{Index, IndexError};

pub(crate) use params::Params;

/// What the server refuses to take, and how long it waits.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request head (request line with its query string, and headers).
    pub max_head_bytes: usize,
    /// Largest request body (POSTed parameters, an audit's rows, a report).
    pub max_body_bytes: usize,
    /// Values in one multi-value parameter (`titles`, `pageids`): MediaWiki's 50.
    pub max_values: usize,
    /// Time a client has to send its request head once connected.
    pub header_timeout: Duration,
    /// Time a request may take, body and answer included.
    pub request_timeout: Duration,
    /// Connections served at once; more wait to be accepted.
    pub max_connections: usize,
    /// Threads answering from the index (default: twice the cores); requests beyond
    /// them wait their turn.
    pub workers: Option<usize>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_head_bytes: 64 * 1024,
            max_body_bytes: 8 * 1024 * 1024,
            max_values: 50,
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            max_connections: 1024,
            workers: None,
        }
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the server's runtime: {0}")]
    Runtime(std::io::Error),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("MCP: {0}")]
    Mcp(String),
}

/// What every handler reads: the index and the maps the Action API needs that the
/// index does not keep (page id → page number).
pub struct State {
    pub index: Index,
    pub limits: Limits,
    by_id: HashMap<u64, u32>,
}

impl State {
    pub fn new(index: Index, limits: Limits) -> Result<State, IndexError> {
        let mut by_id = HashMap::with_capacity(index.page_count());
        for (n, rec) in index.pages().enumerate() {
            by_id.insert(rec?.id, n as u32);
        }
        Ok(State {
            index,
            limits,
            by_id,
        })
    }

    /// The page number of page id `id`.
    pub(crate) fn page_by_id(&self, id: u64) -> Option<u32> {
        self.by_id.get(&id).copied()
    }
}

/// The routes: the Action API, the native API, and a plain not-found for the rest.
pub(crate) fn router(state: Arc<State>) -> Router {
    let limits = state.limits.clone();
    Router::new()
        .route(
            "/w/api.php",
            axum::routing::get(action::handle).post(action::handle),
        )
        .nest("/v1", native::routes())
        .merge(pages::routes())
        .fallback(|| async { plain_error(StatusCode::NOT_FOUND, "no such path") })
        .layer(DefaultBodyLimit::max(limits.max_body_bytes))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ))
        .with_state(state)
}

/// A JSON error for the transport-level limits, in MediaWiki's error shape.
pub(crate) fn plain_error(status: StatusCode, info: &str) -> Response {
    let code = match status {
        StatusCode::NOT_FOUND => "notfound",
        StatusCode::PAYLOAD_TOO_LARGE => "toolarge",
        StatusCode::REQUEST_TIMEOUT => "timeout",
        _ => "badrequest",
    };
    (
        status,
        axum::Json(serde_json::json!({"error": {"code": code, "info": info}})),
    )
        .into_response()
}

/// Serves `state` on `addr` until the process is stopped. `ready` is called with the
/// bound address (port 0 picks a free port) before the first connection is accepted.
pub fn run(
    state: State,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    // Index work runs on the blocking pool; bounding it bounds memory (each thread keeps
    // its decoded-block caches and allocator arenas) under any number of connections.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(state.limits.workers.unwrap_or(2 * cores))
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        ready(bound);
        let state = Arc::new(state);
        let limits = state.limits.clone();
        let app = router(state);
        let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
        loop {
            let permit = slots
                .clone()
                .acquire_owned()
                .await
                .expect("the semaphore is never closed");
            let (stream, _) = match listener.accept().await {
                Ok(s) => s,
                // Out of file descriptors and the like: wait and accept again.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let service = hyper_util::service::TowerToHyperService::new(app.clone());
            let limits = limits.clone();
            tokio::spawn(async move {
                // A client that breaks the protocol, is too slow or goes away only
                // ends its own connection.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_timeout)
                    .max_buf_size(limits.max_head_bytes.max(8192))
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
                drop(permit);
            });
        }
    })
}
