//! What an MCP client sees: one server whose tools are the downstream servers' listed tools,
//! `discover_tools` (the library's search, with its `namespace` filter) and `call_deferred`;
//! tools a search finds join that client's list, announced with
//! `notifications/tools/list_changed`. One [`Proxy`] per client session (stdio has one; over
//! HTTP each session gets its own, with its own [`View`]). Downstream results (content,
//! `isError`, structured content) pass through unchanged.

use super::catalog::{Catalog, View};
use super::downstream::error_result;
use super::passthrough;
use super::relay::Caller;
use super::reload::Servers;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, Implementation, JsonObject, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig,
};
// Logging is deprecated by SEP-2577 (rmcp warns so); 2025-11-25 has it.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use std::sync::Arc;
use tokio::sync::{Notify, OwnedSemaphorePermit, watch};
use tokio_util::sync::CancellationToken;
use toolregistry::registry::{CALL_DEFERRED, DISCOVER_TOOLS};

const INSTRUCTIONS: &str = "This server fronts several MCP servers. Only some of their tools are \
listed; call discover_tools with a few keywords (and optionally a server name as namespace) to \
find the others. Found tools are added to your tool list; if your client cannot refresh it, run \
them with call_deferred.";

/// What every session hears of: a count bumped whenever a downstream server's tools change.
#[derive(Clone)]
pub struct Hub(Arc<watch::Sender<u64>>);

impl Hub {
    /// A hub nobody listens to yet.
    pub fn new() -> Hub {
        Hub(Arc::new(watch::channel(0).0))
    }

    /// Call when the downstream tools changed (from any thread): every session is told.
    pub fn hook(&self) -> Arc<dyn Fn() + Send + Sync> {
        let tx = Arc::clone(&self.0);
        Arc::new(move || tx.send_modify(|n| *n = n.wrapping_add(1)))
    }
}

/// Lives as long as the session's handler: its drop ends the session's announcer task and
/// gives back its place under the session cap.
/// Its drop also ends the session's task of co-use (recorded, see `usage`).
struct Session {
    /// Its number since the gateway started (the console's calls name it).
    id: u64,
    done: CancellationToken,
    _permit: Option<OwnedSemaphorePermit>,
    catalog: Arc<Catalog>,
}

impl Drop for Session {
    fn drop(&mut self) {
        self.done.cancel();
        self.catalog.tasks().end(self.id);
    }
}

/// The upstream server, one per client session.
#[derive(Clone)]
pub struct Proxy {
    catalog: Arc<Catalog>,
    servers: Arc<Servers>,
    view: Arc<View>,
    hub: Hub,
    /// Notified when this session's own list grew (its search found tools).
    changed: Arc<Notify>,
    session: Arc<Session>,
}

impl Proxy {
    /// A new session over the catalog and its servers, with an empty list of found tools.
    /// `permit` is its place under the session cap (none on stdio).
    pub fn new(
        catalog: Arc<Catalog>,
        servers: Arc<Servers>,
        hub: Hub,
        permit: Option<OwnedSemaphorePermit>,
    ) -> Result<Proxy, String> {
        Ok(Proxy {
            view: Arc::new(catalog.view()?),
            catalog: Arc::clone(&catalog),
            servers,
            hub,
            changed: Arc::new(Notify::new()),
            session: Arc::new(Session {
                id: super::console::activity::next_session(),
                done: CancellationToken::new(),
                _permit: permit,
                catalog: Arc::clone(&catalog),
            }),
        })
    }

    /// Sends `notifications/tools/list_changed` to this session's client whenever its list
    /// changed (a burst of changes is one notification), until the session ends. Holds no
    /// [`Proxy`], so that the handler's drop ends it.
    fn announce_changes(&self, peer: Peer<RoleServer>) {
        let changed = Arc::clone(&self.changed);
        let mut downstream = self.hub.0.subscribe();
        let done = self.session.done.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = done.cancelled() => return,
                    () = changed.notified() => {}
                    r = downstream.changed() => if r.is_err() { return },
                }
                if let Err(e) = peer.notify_tool_list_changed().await {
                    if peer.is_transport_closed() {
                        return;
                    }
                    eprintln!("toolregistry mcp: notifying the client: {e}");
                }
            }
        });
    }

    /// `discover_tools`: the library's search; the deferred tools found join the list.
    fn discover(&self, arguments: &str) -> CallToolResult {
        match self.catalog.registry().call_json(DISCOVER_TOOLS, arguments) {
            Ok(answer) => {
                if self.view.load_found(&answer) {
                    self.changed.notify_one();
                }
                CallToolResult::success(vec![rmcp::model::ContentBlock::text(answer)])
            }
            Err(e) => error_result(e.to_string()),
        }
    }

    /// `call_deferred`: the library's built-in, on a blocking thread since it runs the target
    /// through the registry's (synchronous) host function, which waits for the server.
    async fn call_deferred(&self, arguments: String) -> CallToolResponse {
        // A quarantined target is not registered: say why instead of "not found".
        if let Some(message) = deferred_target(&arguments).and_then(|t| self.catalog.held(&t)) {
            return error_result(message).into();
        }
        let registry = self.catalog.registry().share();
        let outcome =
            tokio::task::spawn_blocking(move || registry.call_json(CALL_DEFERRED, &arguments))
                .await;
        match outcome {
            // The host function's text is the server's result as JSON (see `host_function`).
            Ok(Ok(text)) => serde_json::from_str::<CallToolResult>(&text)
                .unwrap_or_else(|_| {
                    CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
                })
                .into(),
            Ok(Err(e)) => error_result(e.to_string()).into(),
            Err(e) => error_result(format!("call_deferred failed: {e}")).into(),
        }
    }

    /// A downstream tool's call, routed to its server; what the server asks of its client
    /// meanwhile goes to `caller`.
    async fn route(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        caller: Caller,
    ) -> CallToolResponse {
        let Some(route) = self.catalog.route(name) else {
            return error_result(self.catalog.held(name).unwrap_or_else(|| {
                format!("unknown tool {name:?}: call discover_tools to find tools")
            }))
            .into();
        };
        // Calling a deferred tool by name counts as finding it.
        if self.view.load(&[name.to_string()]) {
            self.changed.notify_one();
        }
        match self.servers.get(route.server) {
            Some(server) => server.call(&route.tool, arguments, Some(caller)).await,
            None => error_result(gone(&route.owner)).into(),
        }
    }
}

/// The tool a `call_deferred` call names (`_target_tool`), if its arguments name one.
fn deferred_target(arguments: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|v| v.get("_target_tool")?.as_str().map(str::to_string))
}

/// The registry's host function for downstream tools (what `call_deferred` runs): routes the
/// call and waits for it, answering the server's result as JSON text. Runs on a blocking
/// thread, never on the runtime's own.
pub fn host_function(
    catalog: std::sync::Weak<Catalog>,
    servers: Arc<Servers>,
    runtime: tokio::runtime::Handle,
) -> toolregistry::HostFn {
    Arc::new(move |name: &str, arguments: &str| {
        let catalog = catalog
            .upgrade()
            .ok_or_else(|| "the proxy is shutting down".to_string())?;
        let route = catalog.route(name).ok_or_else(|| {
            catalog
                .held(name)
                .unwrap_or_else(|| format!("no MCP server has a tool named {name:?}"))
        })?;
        drop(catalog);
        let arguments = serde_json::from_str::<JsonObject>(arguments).ok();
        let server = servers
            .get(route.server)
            .ok_or_else(|| gone(&route.owner))?;
        // No client of its own: a server's request of its client is refused.
        let response =
            runtime.block_on(async move { server.call(&route.tool, arguments, None).await });
        match response {
            CallToolResponse::Complete(result) => {
                serde_json::to_string(&result).map_err(|e| e.to_string())
            }
            _ => Err(format!(
                "{name:?} answered with a task or an input request, which call_deferred cannot \
                 pass on: call the tool directly"
            )),
        }
    })
}

/// Whether a call ran: the server answered it, without a tool error (what co-use counts).
fn ran(response: &CallToolResponse) -> bool {
    matches!(response, CallToolResponse::Complete(r) if r.is_error != Some(true))
}

/// A failed call's error text (its first text block), for the console's calls.
fn failure(response: &CallToolResponse) -> Option<String> {
    let CallToolResponse::Complete(result) = response else {
        return None;
    };
    if result.is_error != Some(true) {
        return None;
    }
    let value = serde_json::to_value(&result.content).ok()?;
    Some(
        value
            .as_array()
            .and_then(|a| a.iter().find_map(|c| c["text"].as_str()))
            .unwrap_or("error")
            .to_string(),
    )
}

/// A call routed to a server the config no longer has (removed or restarted meanwhile).
fn gone(server: &str) -> String {
    format!("MCP server {server:?} was stopped by a config reload; list the tools again")
}

impl ServerHandler for Proxy {
    #[allow(deprecated)] // enable_logging: see SetLevelRequestParams
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_resources()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("toolregistry", toolregistry::VERSION))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = passthrough::prompts(&self.servers).await;
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        passthrough::get_prompt(&self.servers, request).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = passthrough::resources(&self.servers).await;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        passthrough::read_resource(&self.servers, request).await
    }

    /// `logging/setLevel`: accepted. The gateway sends its clients no log messages of its own
    /// (its log is stderr), so there is nothing below the level to hold back.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.announce_changes(context.peer);
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .view
            .listed(&self.catalog)
            .map_err(|e| ErrorData::internal_error(e, None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        let text = |arguments: Option<JsonObject>| {
            serde_json::Value::Object(arguments.unwrap_or_default()).to_string()
        };
        let began = (std::time::SystemTime::now(), std::time::Instant::now());
        // The registered tool the call runs, for co-use (the built-in searches run none).
        let (response, tool) = match name {
            DISCOVER_TOOLS => (self.discover(&text(request.arguments)).into(), None),
            CALL_DEFERRED => {
                let arguments = text(request.arguments);
                let target = deferred_target(&arguments);
                (self.call_deferred(arguments).await, target)
            }
            _ => {
                let caller = Caller {
                    peer: context.peer.clone(),
                    request: context.id.clone(),
                    session: self.session.id,
                };
                (
                    self.route(name, request.arguments, caller).await,
                    Some(name.to_string()),
                )
            }
        };
        if let Some(tool) = tool.filter(|_| ran(&response)) {
            self.catalog.tasks().ran(self.session.id, &tool);
        }
        // The console's calls: who, what, how long, ok or the error; never arguments or results.
        let client = context.peer.peer_info().map(|i| i.client_info.name.clone());
        let session = match client {
            Some(c) => format!("#{} {c}", self.session.id),
            None => format!("#{}", self.session.id),
        };
        super::console::activity::record(
            session,
            name,
            began.0,
            began.1.elapsed(),
            failure(&response),
        );
        Ok(response)
    }
}
