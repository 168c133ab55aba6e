//! `wikiwit mcp`: the same questions as `/v1/` (`super::tools`) as Model Context
//! Protocol tools on stdio, for agents, with JSON schemas for their inputs and for their
//! structured results, each derived from the Rust type read or written.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_input, schema_for_output};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::ServeError;
use super::tools::{self, ToolError};
use crate::index::Index;
use crate::query::text::SearchResult;
use crate::query::{FieldAnswer, InLink, InfoboxView, LinkView};

type Call = Box<dyn Fn(&Index, Value) -> Result<Value, ToolError> + Send + Sync>;

/// One tool: name, description, the schemas of its input and of its structured result
/// (both derived from the Rust types deserialized and serialized, so they cannot drift
/// from what the tool reads and writes), and the function answering it.
struct Spec {
    name: &'static str,
    description: &'static str,
    input: Arc<JsonObject>,
    output: Arc<JsonObject>,
    call: Call,
}

/// The tool `name` answering with `f`, its schemas derived from `I` and `O`.
fn spec<I, O>(
    name: &'static str,
    description: &'static str,
    f: fn(&Index, &I) -> Result<O, ToolError>,
) -> Spec
where
    I: DeserializeOwned + JsonSchema + 'static,
    O: Serialize + JsonSchema + 'static,
{
    Spec {
        name,
        description,
        input: schema_for_input::<I>().unwrap_or_else(|_| Arc::new(JsonObject::new())),
        output: object_schema(schema_for_output::<O>()),
        call: Box::new(move |index, v| {
            let i: I = serde_json::from_value(v)
                .map_err(|e| ToolError::BadRequest(format!("arguments: {e}")))?;
            tools::to_value(&f(index, &i)?)
        }),
    }
}

/// `schema` with the root type `object` stated: an untagged enum's schema is an `anyOf`
/// of object schemas, and the 2025-06-18 spec, which clients such as the Python SDK
/// implement, has `type: object` at the root of every output schema.
fn object_schema(schema: Arc<JsonObject>) -> Arc<JsonObject> {
    if schema.contains_key("type") {
        return schema;
    }
    let mut s = (*schema).clone();
    s.insert("type".into(), json!("object"));
    Arc::new(s)
}

/// An answer the CLI prints as a JSON array, under `result`: structured content is an
/// object for clients of the 2025-06-18 spec.
#[derive(Debug, Serialize, JsonSchema)]
struct Listed<T> {
    result: T,
}

/// `search`'s hits, under `result`.
fn search(index: &Index, i: &tools::SearchIn) -> Result<Listed<Vec<SearchResult>>, ToolError> {
    tools::search(index, i).map(|result| Listed { result })
}

/// One infobox field, or every infobox of the page under `result`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum InfoboxResult {
    Field(FieldAnswer),
    All(Listed<Vec<InfoboxView>>),
}

fn infobox(index: &Index, i: &tools::InfoboxIn) -> Result<InfoboxResult, ToolError> {
    Ok(match tools::infobox(index, i)? {
        tools::InfoboxAnswer::Field(f) => InfoboxResult::Field(f),
        tools::InfoboxAnswer::All(v) => InfoboxResult::All(Listed { result: v }),
    })
}

/// `links`' outgoing or incoming links, under `result`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum LinksResult {
    Out(Listed<Vec<LinkView>>),
    In(Listed<Vec<InLink>>),
}

fn links(index: &Index, i: &tools::LinksIn) -> Result<LinksResult, ToolError> {
    Ok(match tools::links(index, i)? {
        tools::LinksAnswer::Out(result) => LinksResult::Out(Listed { result }),
        tools::LinksAnswer::In(result) => LinksResult::In(Listed { result }),
    })
}

fn specs() -> Vec<Spec> {
    vec![
        spec(
            "resolve",
            "What a title resolves to: normalized title, page, redirect chain, final target (as `wikiwit resolve --json`).",
            tools::resolve,
        ),
        spec(
            "search",
            "Full-text search (BM25 over sections) with the best-matching sentence of each hit (as `wikiwit search --json`, the hits under `result`).",
            search,
        ),
        spec(
            "page_summary",
            "A page's summary: sections, infoboxes, tables, categories, link counts, redirects (as `wikiwit page --json`).",
            tools::page,
        ),
        spec(
            "section_text",
            "The plain text of a page or one section, sentence by sentence with byte offsets (as `wikiwit text --json`).",
            tools::section_text,
        ),
        spec(
            "links",
            "A page's outgoing links in document order, each with its target's status (page, redirect, missing), context (prose, list, table, infobox, …), section and origin; or with `incoming`, the pages linking to it with the contexts of their links (as `wikiwit links [--in] --json`, the links under `result`).",
            links,
        ),
        spec(
            "table_row",
            "A table of a page (1-based), or one data row of it (0-based) with column labels and links (as `wikiwit table --json`).",
            tools::table,
        ),
        spec(
            "infobox_field",
            "One infobox field's text, wikitext and links, or every infobox of the page under `result` (as `wikiwit infobox --json`).",
            infobox,
        ),
        spec(
            "locate",
            "What a locator (page, #section, infobox:, table:/row:/col:, sentence:, quote:, or a Wikipedia URL) points at, or why it points nowhere (as `wikiwit locate --json`).",
            tools::locate,
        ),
        spec(
            "frontier",
            "The pages a question over a seed page needs, each with its provenance chain (as `wikiwit frontier --json`).",
            tools::frontier,
        ),
        spec(
            "audit_rows",
            "Audit staged table rows against a contract: the summary and every finding (as `wikiwit audit --json`, with the findings).",
            tools::audit,
        ),
        spec(
            "check_citations",
            "Check every citation of a markdown report offline: existence, locator, support, quality (as `wikiwit cite check --json`).",
            tools::cite_check,
        ),
        spec(
            "siblings",
            "Pages listed next to a page in tables, lists or navigation templates (as `wikiwit siblings --json`).",
            tools::siblings,
        ),
    ]
}

/// The MCP server over one index.
pub struct Mcp {
    index: Arc<Index>,
    specs: Arc<Vec<Spec>>,
}

impl Mcp {
    pub fn new(index: Index) -> Mcp {
        Mcp {
            index: Arc::new(index),
            specs: Arc::new(specs()),
        }
    }
}

impl ServerHandler for Mcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wikiwit", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Offline, deterministic answers from a local Wikipedia index: titles, sections, \
                 links in and out, infobox fields, table rows, locators, source frontiers, table audits and \
                 citation checks.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self
            .specs
            .iter()
            .map(|s| {
                let mut t = Tool::new(s.name, s.description, s.input.clone());
                t.output_schema = Some(s.output.clone());
                t
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(i) = self.specs.iter().position(|s| s.name == request.name) else {
            return Err(McpError::invalid_params(
                format!("no tool {:?}", request.name),
                None,
            ));
        };
        let (index, specs) = (self.index.clone(), self.specs.clone());
        let args = Value::Object(request.arguments.unwrap_or_default());
        let answer = tokio::task::spawn_blocking(move || (specs[i].call)(&index, args))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let result = match answer {
            Ok(v) => CallToolResult::structured(v),
            Err(ToolError::BadRequest(m)) => return Err(McpError::invalid_params(m, None)),
            Err(ToolError::NotFound(m)) => {
                CallToolResult::structured_error(json!({"error": {"code": "notfound", "info": m}}))
            }
            Err(ToolError::Internal(m)) => {
                CallToolResult::structured_error(json!({"error": {"code": "internal", "info": m}}))
            }
        };
        Ok(CallToolResponse::Complete(result))
    }
}

/// Serves the MCP tools on stdin/stdout until the client closes the connection.
pub fn run(index: Index) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let service = Mcp::new(index)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Mcp(e.to_string()))?;
        service
            .waiting()
            .await
            .map_err(|e| ServeError::Mcp(e.to_string()))?;
        Ok(())
    })
}
