//! One downstream server: started as a child process (no shell, only the environment it needs)
//! or connected over streamable HTTP (see [`super::transport`]), initialized, its tools listed (every page) into the catalog and listed again when it says they
//! changed; calls routed to it with a timeout; restarted with backoff when it dies. Calls made
//! while it is down get an error result saying so at once.
// Sampling, which the gateway passes on, is deprecated by SEP-2577 (rmcp warns so); 2025-11-25
// and 2026-07-28 still have it.
#![allow(deprecated)]

use super::catalog::Catalog;
use super::config::ServerConfig;
use super::relay::{self, Caller, Calls};
use super::{oauth, transport};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult,
    CancelledNotificationParam, ClientConfig, ClientRequest, CreateMessageRequestParams,
    CreateMessageResult, CustomRequest, ElicitRequestParams, ElicitResult, Implementation,
    InputResponses, JsonObject, ProtocolVersion, RequestId, ServerNotification, ServerResult,
    SubscriptionFilter,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, InboundStreamOrigin,
    NotificationContext, PeerRequestOptions, RequestContext, RunningService, ServiceError,
};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, Peer, RoleClient};
use serde_json::{Value, json};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

/// Backoff before the first restart; doubled per failed start, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A server that ran this long before it died is restarted after [`FIRST_BACKOFF`] again.
const STABLE_RUN: Duration = Duration::from_secs(30);
/// Least time a start (spawn, initialize, every page of `tools/list`) is given, whatever the call
/// timeout: interpreters and package runners (`uvx`, `npx`) take seconds to start.
const MIN_START_TIMEOUT: Duration = Duration::from_secs(30);
/// Most pages of `tools/list` read (a server that keeps returning cursors is cut off).
const MAX_PAGES: usize = 1000;
/// Most times one call is sent again with the input a 2026-07-28 server asked for (SEP-2322).
const MAX_INPUT_ROUNDS: usize = 8;

/// Where a server is.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Starting (or restarting).
    Starting,
    /// Running, with this many tools registered.
    Running(usize),
    /// Down: why, and when the next start is tried.
    Down { reason: String, retry_at: Instant },
}

/// A downstream server and its supervisor's shared state.
pub struct Downstream {
    /// Its config entry.
    pub config: ServerConfig,
    index: usize,
    state: watch::Sender<State>,
    /// Set when the server leaves the config (live reload): its supervisor ends.
    stopped: watch::Sender<bool>,
    /// The running connection and its generation (one per start).
    peer: Mutex<Option<(u64, Peer<RoleClient>)>>,
    generation: AtomicU64,
    /// The generation a call found broken (a remote server's connection failed): the supervisor
    /// drops that connection and reconnects with backoff, so that the concurrent calls of one
    /// outage do not each start their own recovery. A stale generation is ignored.
    broken: watch::Sender<u64>,
    /// How many starts were tried (the console shows the restarts).
    starts: AtomicU64,
    /// Set when the server did not take `server/discover` (see [`lifecycle`]).
    legacy: AtomicBool,
    /// The calls in flight and whose they are: the server's requests of its client go to the
    /// gateway's client of the call they belong to ([`relay`]).
    calls: Arc<Calls>,
}

/// Receives the server's notifications (`tools/list_changed` asks for a new listing) and its
/// requests of its client (passed on to the gateway's client of the call, [`relay`]).
struct Handler {
    changed: mpsc::UnboundedSender<()>,
    name: String,
    calls: Arc<Calls>,
    /// The revision `initialize` offers.
    version: ProtocolVersion,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.changed.send(());
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let caller = self
            .calls
            .find(context.extensions.get::<InboundStreamOrigin>())
            .await;
        relay::elicit(caller.as_ref(), &self.name, request).await
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let caller = self
            .calls
            .find(context.extensions.get::<InboundStreamOrigin>())
            .await;
        relay::sample(caller.as_ref(), &self.name, params).await
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("toolregistry", toolregistry::VERSION);
        info.protocol_version = self.version.clone();
        // What the gateway passes on to its own clients (those that declared it; the others'
        // calls get an error saying so).
        info.capabilities =
            serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}}))
                .unwrap_or_default();
        info
    }
}

/// How the gateway starts with a server, and the revision its `initialize` offers. A pinned
/// `"protocol_version"` is the only one offered. Otherwise a remote server is offered 2026-07-28
/// first (`server/discover`), and one that does not speak it gets `initialize` with 2025-11-25
/// (`legacy`: it was found not to, and gets `initialize` at once); a program on stdio gets
/// `initialize` with 2025-11-25.
fn lifecycle(config: &ServerConfig, legacy: bool) -> (ClientLifecycleMode, ProtocolVersion) {
    let handshake = ProtocolVersion::LATEST_WITH_INITIALIZE;
    match config
        .protocol_version
        .as_deref()
        .and_then(|v| serde_json::from_value::<ProtocolVersion>(json!(v)).ok())
    {
        Some(v) if v.has_initialize() => (ClientLifecycleMode::Initialize, v),
        Some(v) => (
            ClientLifecycleMode::Discover {
                preferred_versions: vec![v],
            },
            handshake,
        ),
        None if config.remote.is_some() && !legacy => (
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(handshake.clone()),
            },
            handshake,
        ),
        None => (ClientLifecycleMode::Initialize, handshake),
    }
}

/// Whether the `server/discover` of [`ClientLifecycleMode::Auto`] failed in a way `initialize`
/// may not: the server answered something else, or offered no revision the gateway speaks.
fn not_discovered(e: &ClientInitializeError) -> bool {
    matches!(
        e,
        ClientInitializeError::ExpectedInitResult(_)
            | ClientInitializeError::NoCompatibleProtocolVersion { .. }
    )
}

/// Ends a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// 2026-07-28 sends notifications only on a `subscriptions/listen` stream: for a server of that
/// revision whose tools may change, one is held open for `tools/list_changed` (opened again,
/// with a listing, when it ends) as long as the returned guard lives. `None` for an older server,
/// which sends its notifications anyway.
fn follow_tool_changes(
    peer: &Peer<RoleClient>,
    changed: &mpsc::UnboundedSender<()>,
) -> Option<AbortOnDrop> {
    let info = peer.peer_info()?;
    let changes = info
        .capabilities
        .tools
        .as_ref()
        .and_then(|t| t.list_changed)
        .unwrap_or(false);
    if info.protocol_version.has_initialize() || !changes {
        return None;
    }
    let (peer, changed) = (peer.clone(), changed.clone());
    Some(AbortOnDrop(tokio::spawn(async move {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut first = true;
        while !peer.is_transport_closed() {
            if let Ok(mut subscription) = peer.listen(filter.clone()).await {
                // A change may have come while no stream was open.
                if !std::mem::take(&mut first) {
                    let _ = changed.send(());
                }
                while let Ok(Some(notification)) = subscription.next().await {
                    if matches!(
                        notification,
                        ServerNotification::ToolListChangedNotification(_)
                    ) {
                        let _ = changed.send(());
                    }
                }
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })))
}

/// A call in flight: registered with its caller while it runs; dropped before its answer (the
/// call timed out), it tells the server the call is cancelled.
struct InFlight<'a> {
    calls: &'a Calls,
    peer: &'a Peer<RoleClient>,
    id: RequestId,
    answered: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.calls.remove(&self.id);
        if self.answered {
            return;
        }
        let (peer, id) = (self.peer.clone(), self.id.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let reason = "the gateway's call timed out".to_string();
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                    .await;
            });
        }
    }
}

/// Why a call failed.
enum CallError {
    /// The connection or the protocol.
    Service(ServiceError),
    /// The input the server asked for could not be had.
    Input(String),
}

impl Downstream {
    /// A server not started yet.
    pub fn new(index: usize, config: ServerConfig) -> Arc<Downstream> {
        Arc::new(Downstream {
            config,
            index,
            state: watch::channel(State::Starting).0,
            peer: Mutex::new(None),
            stopped: watch::channel(false).0,
            generation: AtomicU64::new(0),
            broken: watch::channel(0).0,
            starts: AtomicU64::new(0),
            calls: Arc::new(Calls::default()),
            legacy: AtomicBool::new(false),
        })
    }

    /// Its position in the config (the catalog's key for its tools).
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many times it was restarted (starts after the first).
    pub fn restarts(&self) -> u64 {
        self.starts.load(Ordering::Relaxed).saturating_sub(1)
    }

    /// Where it is now.
    pub fn state(&self) -> State {
        self.state.borrow().clone()
    }

    /// Waits for the outcome of the first start: running or down.
    pub async fn started(&self) -> State {
        let mut rx = self.state.subscribe();
        let state = rx.wait_for(|s| *s != State::Starting).await;
        state.map_or(State::Starting, |s| s.clone())
    }

    /// Installs (or, with `None`, removes) the connection; returns its generation.
    fn set_peer(&self, peer: Option<Peer<RoleClient>>) -> u64 {
        let generation = self.generation.fetch_add(1, Ordering::Relaxed) + 1;
        *self
            .peer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = peer.map(|p| (generation, p));
        generation
    }

    /// The connection and its generation, while it runs.
    fn connection(&self) -> Option<(u64, Peer<RoleClient>)> {
        self.peer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The connection, while it runs.
    pub fn peer(&self) -> Option<Peer<RoleClient>> {
        self.connection().map(|(_, p)| p)
    }

    /// Ends its supervisor, which stops the process (the config no longer has it).
    pub fn stop(&self) {
        self.stopped.send_replace(true);
    }

    /// Keeps the server running: starts it, follows its tool list, and restarts it after it
    /// dies, waiting longer after each start that fails. `on_change` is called when the tools
    /// the client sees may have changed. With `once`, stops after the first start's outcome.
    /// Ends when [`Downstream::stop`] is called (dropping the connection kills the process).
    pub async fn supervise(
        self: Arc<Self>,
        catalog: Arc<Catalog>,
        on_change: Arc<dyn Fn() + Send + Sync>,
        once: bool,
    ) {
        let mut stopped = self.stopped.subscribe();
        tokio::select! {
            _ = stopped.wait_for(|s| *s) => {
                self.set_peer(None);
                self.state.send_replace(State::Down {
                    reason: "removed from the config".into(),
                    retry_at: Instant::now() + MAX_BACKOFF,
                });
            }
            () = Arc::clone(&self).keep_running(catalog, on_change, once) => {}
        }
    }

    async fn keep_running(
        self: Arc<Self>,
        catalog: Arc<Catalog>,
        on_change: Arc<dyn Fn() + Send + Sync>,
        once: bool,
    ) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            self.starts.fetch_add(1, Ordering::Relaxed);
            self.state.send_replace(State::Starting);
            let began = Instant::now();
            let reason = match self.start(&catalog, &on_change).await {
                Ok((service, mut changed, generation)) => {
                    if once {
                        self.set_peer(None);
                        drop(service);
                        return;
                    }
                    let peer = service.peer().clone();
                    let _listening = follow_tool_changes(&peer, &service.service().changed);
                    let mut broken = self.broken.subscribe();
                    let mut waiting = std::pin::pin!(service.waiting());
                    // Re-list whenever the server says its tools changed, until it exits or a
                    // call finds its connection broken.
                    let quit = loop {
                        tokio::select! {
                            quit = &mut waiting => break Some(quit),
                            Ok(()) = broken.changed() => {
                                let failed = *broken.borrow_and_update();
                                if failed == generation {
                                    break None;
                                }
                            }
                            Some(()) = changed.recv() => {
                                while changed.try_recv().is_ok() {}
                                match self.list(&peer).await {
                                    Ok(entries) => {
                                        if catalog.sync(self.index, &self.config, &entries) {
                                            on_change();
                                        }
                                        self.state.send_replace(State::Running(catalog.count(self.index)));
                                    }
                                    Err(e) => self.log(&format!("re-listing tools: {e}")),
                                }
                            }
                        }
                    };
                    self.set_peer(None);
                    match quit {
                        None => "the connection failed (a call's error says how)".to_string(),
                        Some(Ok(q)) => format!("the server exited ({q:?})"),
                        // The proxy is shutting down: nothing to restart or report.
                        Some(Err(e)) if e.is_cancelled() => return,
                        Some(Err(e)) => format!("the server's connection failed: {e}"),
                    }
                }
                Err(reason) => reason,
            };
            if began.elapsed() >= STABLE_RUN {
                backoff = FIRST_BACKOFF;
            }
            let reason = self.config.redact(&reason);
            self.log(&format!("{reason}; restarting in {backoff:?}"));
            self.state.send_replace(State::Down {
                reason,
                retry_at: Instant::now() + backoff,
            });
            if once {
                return;
            }
            // A server that needed sign-in starts again as soon as it is signed in.
            tokio::select! {
                () = tokio::time::sleep(backoff) => backoff = (backoff * 2).min(MAX_BACKOFF),
                () = oauth::signed_in(&self.config) => {}
            }
        }
    }

    /// Starts the process, initializes, lists and registers its tools.
    async fn start(
        &self,
        catalog: &Catalog,
        on_change: &Arc<dyn Fn() + Send + Sync>,
    ) -> Result<
        (
            RunningService<RoleClient, Handler>,
            mpsc::UnboundedReceiver<()>,
            u64,
        ),
        String,
    > {
        let (mode, version) = lifecycle(&self.config, self.legacy.load(Ordering::Relaxed));
        let timeout = self.config.timeout.max(MIN_START_TIMEOUT);
        let started = tokio::time::timeout(timeout, async {
            let (service, rx) = match &self.config.remote {
                Some(remote) => {
                    let probing = matches!(mode, ClientLifecycleMode::Auto { .. });
                    match self.connect(remote, mode, version.clone()).await? {
                        // `server/discover` got an answer that is neither its result nor an
                        // error (a server that answers every method `{}`): `initialize`, on a
                        // new connection, and from now on.
                        Err(e) if probing && not_discovered(&e) => {
                            self.log(&format!(
                                "server/discover: {e}; falling back to initialize at {version}"
                            ));
                            self.legacy.store(true, Ordering::Relaxed);
                            self.connect(remote, ClientLifecycleMode::Initialize, version)
                                .await?
                        }
                        other => other,
                    }
                    .map_err(|e| transport::describe_server(&self.config, "initialize", &e))?
                }
                None => {
                    let (tx, rx) = mpsc::unbounded_channel();
                    let handler = self.handler(tx, version);
                    let mut command = tokio::process::Command::new(&self.config.command);
                    command
                        .args(&self.config.args)
                        .env_clear()
                        .envs(self.config.environment())
                        .kill_on_drop(true);
                    let (child, _) = TokioChildProcess::builder(command)
                        .stderr(Stdio::inherit())
                        .spawn()
                        .map_err(|e| format!("starting {:?}: {e}", self.config.command))?;
                    let service = handler
                        .serve_with_lifecycle(child, mode)
                        .await
                        .map_err(|e| format!("initialize: {e}"))?;
                    (service, rx)
                }
            };
            let entries = self.list(service.peer()).await?;
            Ok::<_, String>((service, rx, entries))
        })
        .await
        .map_err(|_| format!("no answer to initialize and tools/list within {timeout:?}"))??;
        let (service, rx, entries) = started;
        if catalog.sync(self.index, &self.config, &entries) {
            on_change();
        }
        let generation = self.set_peer(Some(service.peer().clone()));
        self.state
            .send_replace(State::Running(catalog.count(self.index)));
        Ok((service, rx, generation))
    }

    fn handler(&self, changed: mpsc::UnboundedSender<()>, version: ProtocolVersion) -> Handler {
        Handler {
            changed,
            name: self.config.name.clone(),
            calls: Arc::clone(&self.calls),
            version,
        }
    }

    /// Connects to a remote server and starts the protocol with it (`mode`); the outer error is
    /// the config's or the sign-in's, the inner one the server's.
    async fn connect(
        &self,
        remote: &super::config::Remote,
        mode: ClientLifecycleMode,
        version: ProtocolVersion,
    ) -> Result<
        Result<
            (
                RunningService<RoleClient, Handler>,
                mpsc::UnboundedReceiver<()>,
            ),
            ClientInitializeError,
        >,
        String,
    > {
        let (tx, rx) = mpsc::unbounded_channel();
        let handler = self.handler(tx, version);
        let headers = transport::headers(remote)?;
        let service = match oauth::transport(&self.config, remote, headers).await? {
            Some(signing_in) => handler.serve_with_lifecycle(signing_in, mode).await,
            None => {
                handler
                    .serve_with_lifecycle(transport::client(remote)?, mode)
                    .await
            }
        };
        Ok(service.map(|s| (s, rx)))
    }

    /// Every page of `tools/list`, as raw entries: the catalog checks them one by one, so one
    /// malformed tool is skipped instead of failing the whole list.
    async fn list(&self, peer: &Peer<RoleClient>) -> Result<Vec<Value>, String> {
        let mut entries = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
            let timeout = self.config.timeout.max(MIN_START_TIMEOUT);
            let answer = tokio::time::timeout(timeout, peer.send_request(request))
                .await
                .map_err(|_| format!("tools/list: no answer within {timeout:?}"))?
                .map_err(|e| transport::describe_server(&self.config, "tools/list", &e))?;
            let page = match answer {
                ServerResult::CustomResult(r) => r.0,
                other => serde_json::to_value(other).map_err(|e| format!("tools/list: {e}"))?,
            };
            match page.get("tools") {
                Some(Value::Array(tools)) => entries.extend(tools.iter().cloned()),
                _ => return Err("tools/list: the answer has no \"tools\" array".into()),
            }
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if cursor.as_deref() != Some(next) => cursor = Some(next.to_string()),
                _ => return Ok(entries),
            }
        }
        self.log(&format!(
            "tools/list: stopped after {MAX_PAGES} pages; the rest is ignored"
        ));
        Ok(entries)
    }

    /// Calls tool `tool` (its name on this server) for `caller` (`None`: the call has no client
    /// of its own, as `call_deferred`'s). Every failure is an error result the client can show:
    /// the server is down, the call timed out, the connection broke, the input the server asked
    /// for could not be had.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Option<JsonObject>,
        caller: Option<Caller>,
    ) -> CallToolResponse {
        let Some((generation, peer)) = self.connection() else {
            return error_result(match self.state() {
                State::Down { reason, retry_at } => format!(
                    "MCP server {:?} is not running ({reason}); the next start is in {:.1} s",
                    self.config.name,
                    retry_at
                        .saturating_duration_since(Instant::now())
                        .as_secs_f64()
                ),
                _ => format!(
                    "MCP server {:?} is starting; try again shortly",
                    self.config.name
                ),
            })
            .into();
        };
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        let timeout = self.config.timeout;
        // Dropping the request on timeout sends the server notifications/cancelled.
        match tokio::time::timeout(timeout, self.call_rounds(&peer, params, caller.as_ref())).await
        {
            Ok(Ok(response)) => response,
            Ok(Err(CallError::Service(e))) => {
                let lost = matches!(
                    e,
                    ServiceError::TransportSend(_) | ServiceError::TransportClosed
                );
                if lost && self.config.remote.is_some() {
                    self.broken.send_replace(generation);
                }
                error_result(self.config.redact(&format!(
                    "MCP server {:?} failed the call: {}",
                    self.config.name,
                    transport::describe_server(&self.config, "tools/call", &e)
                )))
                .into()
            }
            Ok(Err(CallError::Input(why))) => error_result(self.config.redact(&format!(
                "MCP server {:?} asked for input the gateway could not get: {why}",
                self.config.name
            )))
            .into(),
            Err(_) => error_result(format!(
                "MCP server {:?} did not answer within {timeout:?}; the call was cancelled",
                self.config.name
            ))
            .into(),
        }
    }

    /// The call, sent again with the input asked for while the server answers `input_required`
    /// (SEP-2322): its `requestState` echoed as it came, each time a new request.
    async fn call_rounds(
        &self,
        peer: &Peer<RoleClient>,
        mut params: CallToolRequestParams,
        caller: Option<&Caller>,
    ) -> Result<CallToolResponse, CallError> {
        for round in 0..MAX_INPUT_ROUNDS {
            let response = self
                .call_once(peer, params.clone(), caller)
                .await
                .map_err(CallError::Service)?;
            let CallToolResponse::InputRequired(input) = response else {
                return Ok(response);
            };
            let requests = input.input_requests.unwrap_or_default();
            if requests.is_empty() && input.request_state.is_none() {
                return Err(CallError::Input(
                    "it answered input_required with neither input requests nor a request state"
                        .into(),
                ));
            }
            let mut responses = InputResponses::new();
            for (key, request) in requests {
                let value = relay::answer(caller, &self.config.name, request)
                    .await
                    .map_err(|e| CallError::Input(e.message.to_string()))?;
                responses.insert(key, value);
            }
            if responses.is_empty() {
                // Only state: the server is working; ask again a little later each time.
                tokio::time::sleep(Duration::from_millis(100 << round.min(5))).await;
            }
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = input.request_state;
        }
        Err(CallError::Input(format!(
            "it still asked for input after {MAX_INPUT_ROUNDS} rounds"
        )))
    }

    /// One `tools/call` request, registered with its caller while it runs.
    async fn call_once(
        &self,
        peer: &Peer<RoleClient>,
        params: CallToolRequestParams,
        caller: Option<&Caller>,
    ) -> Result<CallToolResponse, ServiceError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        // The server may ask its client before the call is registered below: a request of it
        // waits while this guard lives (`Calls::find`).
        let sending = self.calls.sending();
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await?;
        if let Some(caller) = caller {
            self.calls.insert(handle.id.clone(), caller.clone());
        }
        drop(sending);
        let mut in_flight = InFlight {
            calls: &self.calls,
            peer,
            id: handle.id.clone(),
            answered: false,
        };
        let result = handle.await_response().await;
        in_flight.answered = true;
        match result? {
            ServerResult::CallToolResult(r) => Ok(CallToolResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(CallToolResponse::InputRequired(r)),
            ServerResult::CreateTaskResult(r) => Ok(CallToolResponse::Task(r)),
            // A result with no content at all (`{}`).
            ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(Default::default())),
            ServerResult::CustomResult(r) => serde_json::from_value::<CallToolResult>(r.0)
                .map(CallToolResponse::Complete)
                .map_err(|_| ServiceError::UnexpectedResponse),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }

    fn log(&self, message: &str) {
        eprintln!(
            "toolregistry mcp: server {:?}: {}",
            self.config.name,
            self.config.redact(message)
        );
    }
}

/// A tool result with `isError` and one text block.
pub fn error_result(message: String) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(message)])
}
