//! `wikiwit mcp`: the same questions as `/v1/` ([`super::tools`]) as Model Context
//! Protocol tools on stdio, with JSON schemas for their inputs, for agents.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::ServeError;
use super::tools::{self, ToolError};
use crate::index::Index;

type Call = fn(&Index, Value) -> Result<Value, ToolError>;

/// One tool: name, description, input schema, and the function answering it.
struct Spec {
    name: &'static str,
    description: &'static str,
    schema: fn() -> Value,
    call: Call,
}

fn schema<I: schemars::JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(I)).unwrap_or_else(|_| json!({"type": "object"}))
}

fn input<I: DeserializeOwned>(v: Value) -> Result<I, ToolError> {
    serde_json::from_value(v).map_err(|e| ToolError::BadRequest(format!("arguments: {e}")))
}

macro_rules! spec {
    ($name:literal, $desc:literal, $in:ty, $f:path) => {
        Spec {
            name: $name,
            description: $desc,
            schema: schema::<$in>,
            call: |index, v| $f(index, &input::<$in>(v)?),
        }
    };
}

fn specs() -> Vec<Spec> {
    vec![
        spec!(
            "resolve",
            "What a title resolves to: normalized title, page, redirect chain, final target (as `wikiwit resolve --json`).",
            tools::TitleIn,
            tools::resolve
        ),
        spec!(
            "search",
            "Full-text search (BM25 over sections) with the best-matching sentence of each hit (as `wikiwit search --json`, one object per hit).",
            tools::SearchIn,
            tools::search
        ),
        spec!(
            "page_summary",
            "A page's summary: sections, infoboxes, tables, categories, link counts, redirects (as `wikiwit page --json`).",
            tools::TitleIn,
            tools::page
        ),
        spec!(
            "section_text",
            "The plain text of a page or one section, sentence by sentence with byte offsets (as `wikiwit text --json`).",
            tools::SectionIn,
            tools::section_text
        ),
        spec!(
            "table_row",
            "A table of a page (1-based), or one data row of it (0-based) with column labels and links (as `wikiwit table --json`).",
            tools::TableIn,
            tools::table
        ),
        spec!(
            "infobox_field",
            "One infobox field's text, wikitext and links, or every infobox of the page (as `wikiwit infobox --json`).",
            tools::InfoboxIn,
            tools::infobox
        ),
        spec!(
            "locate",
            "What a locator (page, #section, infobox:, table:/row:/col:, sentence:, quote:, or a Wikipedia URL) points at, or why it points nowhere (as `wikiwit locate --json`).",
            tools::LocateIn,
            tools::locate
        ),
        spec!(
            "frontier",
            "The pages a question over a seed page needs, each with its provenance chain (as `wikiwit frontier --json`).",
            tools::FrontierIn,
            tools::frontier
        ),
        spec!(
            "audit_rows",
            "Audit staged table rows against a contract: the summary and every finding (as `wikiwit audit --json`, with the findings).",
            tools::AuditIn,
            tools::audit
        ),
        spec!(
            "check_citations",
            "Check every citation of a markdown report offline: existence, locator, support, quality (as `wikiwit cite check --json`).",
            tools::CiteIn,
            tools::cite_check
        ),
        spec!(
            "siblings",
            "Pages listed next to a page in tables, lists or navigation templates (as `wikiwit siblings --json`).",
            tools::SiblingsIn,
            tools::siblings
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

/// Tool results are objects: an array answer is wrapped as `{"result": [...]}`.
fn object(v: Value) -> Value {
    if v.is_object() {
        v
    } else {
        json!({ "result": v })
    }
}

impl ServerHandler for Mcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wikiwit", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Offline, deterministic answers from a local Wikipedia index: titles, sections, \
                 infobox fields, table rows, locators, source frontiers, table audits and \
                 citation checks.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let output = Arc::new(
            json!({"type": "object", "description": "The JSON the CLI prints with --json for the same question (arrays under \"result\")."})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        let tools = self
            .specs
            .iter()
            .map(|s| {
                let schema = (s.schema)().as_object().cloned().unwrap_or_default();
                let mut t = Tool::new(s.name, s.description, Arc::new(schema));
                t.output_schema = Some(output.clone());
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
            Ok(v) => CallToolResult::structured(object(v)),
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
