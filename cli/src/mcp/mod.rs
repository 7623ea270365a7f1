//! `toolregistry mcp`: one MCP server (stdio, or streamable HTTP) in front of many (programs on
//! stdio, or servers at a URL), with the library's tool search.
//!
//! It is a client of the library's public API only: the downstream servers' tools go into a
//! [`toolregistry::Registry`] under their server's name as namespace, searches are the built-in
//! `discover_tools`, `call_deferred` runs a deferred tool through the registry's host function,
//! and the client's tool list is a [`toolregistry::Conversation`]'s. The MCP side is the official
//! Rust SDK (`rmcp`). One file per concept: [`config`], [`downstream`] (a server and its
//! supervisor), [`transport`] (downstream servers over HTTP), [`catalog`] (registry, routes and
//! each client's view), [`upstream`] (what a client sees), [`http_server`] (clients over HTTP),
//! [`import`] (clients' configs moved behind the gateway), [`console`] (the web page), [`usage`]
//! (each client session one task of co-use, kept beside the state file).

mod catalog;
mod config;
mod console;
mod downstream;
mod files;
mod http_server;
pub mod import;
mod oauth;
mod passthrough;
mod relay;
mod reload;
mod transport;
mod trust;
mod upstream;
mod usage;

pub use trust::commands::{approve, review, scan_catalogs};

use catalog::Catalog;
use downstream::{Downstream, State};
pub use http_server::HttpOptions;
use rmcp::ServiceExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolregistry::Registry;
use upstream::{Hub, Proxy};

/// How long serving waits for the servers' first starts, so that the client's first
/// `tools/list` is complete; a server that takes longer joins with `list_changed`.
const FIRST_START_WAIT: Duration = Duration::from_secs(30);

/// What `toolregistry mcp` was asked to do.
pub struct Options {
    /// The `{"mcpServers": ...}` file.
    pub config: PathBuf,
    /// Start every server once, print its state and tool count, and exit.
    pub check: bool,
    /// Reload the config when the file changes (SIGHUP always reloads it).
    pub watch: bool,
    /// A local text encoder for the `hybrid` ranking profile.
    pub model_dir: Option<PathBuf>,
    /// Where the tools' vectors are kept between runs (with a model).
    pub embed_cache: Option<PathBuf>,
    /// The pins' state file (default: in the user's data folder).
    pub state: Option<PathBuf>,
    /// Serve clients over streamable HTTP instead of stdio.
    pub http: Option<HttpOptions>,
    /// `--console ADDR` (else the config's `"console"`): the web console's listener.
    pub console: Option<String>,
    /// The token file the console asks for (beyond loopback it must be given).
    pub console_token_file: Option<PathBuf>,
    /// `--open-with CMD`: how a sign-in's authorization URL is opened (default: the system's
    /// opener, and the URL printed).
    pub open_with: Option<String>,
}

/// How a sign-in's authorization URL is opened: `--open-with CMD`, else the system's opener.
fn opener(open_with: Option<&str>) -> oauth::flow::Opener {
    match open_with {
        Some(command) => oauth::flow::Opener::Command(command.to_string()),
        None => oauth::flow::Opener::System,
    }
}

/// `mcp login NAME`: signs in to a remote server ahead of time.
pub fn login(
    config: &Path,
    state: Option<&Path>,
    name: &str,
    open_with: Option<&str>,
) -> Result<String, String> {
    let state = trust::commands::state_path(state)?;
    oauth::login(config, &state, name, opener(open_with))
}

/// `mcp logout NAME`: forgets a remote server's tokens.
pub fn logout(config: &Path, state: Option<&Path>, name: &str) -> Result<String, String> {
    let state = trust::commands::state_path(state)?;
    oauth::logout(config, &state, name)
}

/// Runs the proxy until the client disconnects (or, with `check`, prints the servers' states).
pub fn run(options: &Options) -> Result<(), String> {
    let servers = config::load(&options.config)?;
    // https servers: rustls with ring (the only provider built in). Fails only if one is set.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let registry = registry(options.model_dir.as_deref(), options.embed_cache.as_deref())?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))?;
    // `--check` never opens a browser: a server that needs sign-in says so.
    oauth::configure(
        trust::commands::state_path(options.state.as_deref())
            .ok()
            .as_deref(),
        (!options.check).then(|| opener(options.open_with.as_deref())),
    );
    // Co-use: on unless the config says `"usage": false`; `--check` neither reads nor writes it.
    let learn = !options.check && config::usage(&options.config)?;
    if learn {
        let path = trust::commands::state_path(options.state.as_deref())
            .ok()
            .map(|state| usage::path_beside(&state));
        usage::enable(&registry, path.as_deref())?;
    }
    let result = runtime.block_on(async {
        let gate = trust::Gate::new(trust::commands::state_path(options.state.as_deref()).ok());
        let catalog = Arc::new(Catalog::new(registry, gate, learn)?);
        let servers: Arc<Vec<Arc<Downstream>>> = Arc::new(
            servers
                .into_iter()
                .enumerate()
                .map(|(i, c)| Downstream::new(i, c))
                .collect(),
        );
        if options.check {
            check(&catalog, &servers).await
        } else {
            let console = match &options.console {
                Some(addr) => Some(addr.clone()),
                None => console::address_from_config(&options.config)?,
            }
            .map(|addr| console::ConsoleOptions {
                addr,
                token_file: options.console_token_file.clone(),
                state: trust::commands::state_path(options.state.as_deref()).ok(),
            });
            serve(
                catalog,
                servers,
                &options.config,
                options.watch,
                options.http.as_ref(),
                console.as_ref(),
            )
            .await
        }
    });
    // A call still waiting on a hung server must not hold the exit.
    runtime.shutdown_timeout(Duration::from_secs(1));
    result
}

/// The registry the proxy searches: `enhanced` ranking, or `hybrid` with a local encoder.
fn registry(model_dir: Option<&Path>, cache: Option<&Path>) -> Result<Registry, String> {
    // No profile named: the library ranks with `hybrid` when it has a model (`--model-dir`, or
    // TOOLREGISTRY_MODEL_DIR, which the library reads itself), with `enhanced` otherwise; a
    // cache without either is its clear error.
    let mut options = serde_json::json!({"discovery": {}});
    if model_dir.is_some() || cache.is_some() {
        let mut embedding = serde_json::json!({});
        if let Some(dir) = model_dir {
            embedding["model_dir"] = dir.to_string_lossy().into();
        }
        if let Some(cache) = cache {
            embedding["cache_path"] = cache.to_string_lossy().into();
        }
        options["embedding"] = embedding;
    }
    Registry::from_options_json(Some(&options.to_string()))
        .map_err(|e| format!("registry options: {e}"))
}

/// `--check`: starts every server once, at the same time, and prints how each went.
async fn check(catalog: &Arc<Catalog>, servers: &Arc<Vec<Arc<Downstream>>>) -> Result<(), String> {
    let quiet: Arc<dyn Fn() + Send + Sync> = Arc::new(|| {});
    let tasks: Vec<_> = servers
        .iter()
        .map(|s| {
            tokio::spawn(Arc::clone(s).supervise(Arc::clone(catalog), Arc::clone(&quiet), true))
        })
        .collect();
    for t in tasks {
        t.await.map_err(|e| e.to_string())?;
    }
    let width = servers
        .iter()
        .map(|s| s.config.name.len())
        .max()
        .unwrap_or(0);
    let mut failed = 0;
    let mut report = String::new();
    for s in servers.iter() {
        let line = match s.state() {
            State::Running(n) => format!("running  {n} tools"),
            State::Down { reason, .. } => {
                failed += 1;
                format!("failed   {reason}")
            }
            State::Starting => {
                failed += 1;
                "failed   did not start".to_string()
            }
        };
        let held = catalog.held_count(s.index());
        let held = if held > 0 {
            format!(", {held} quarantined")
        } else {
            String::new()
        };
        let findings = catalog.gate().findings(&s.config.name);
        report.push_str(&format!("{:width$}  {line}{held}\n", s.config.name));
        report.push_str(&format!("{:width$}    scan: {findings}\n", ""));
    }
    report.push_str(&format!("{}\n", catalog.gate().status()));
    // A reader that closes the pipe early (`| grep -q`) has what it wanted: not an error, and
    // never a panic on the next line written.
    use std::io::Write;
    match std::io::stdout().lock().write_all(report.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.to_string()),
        _ => {}
    }
    match failed {
        0 => Ok(()),
        n => Err(format!("{n} of {} servers did not start", servers.len())),
    }
}

/// Starts the servers, then serves the client on stdio until it disconnects, or clients over
/// HTTP until a signal; the config is followed live meanwhile (see `reload`).
async fn serve(
    catalog: Arc<Catalog>,
    first: Arc<Vec<Arc<Downstream>>>,
    config: &Path,
    watch: bool,
    http: Option<&HttpOptions>,
    console: Option<&console::ConsoleOptions>,
) -> Result<(), String> {
    let servers = reload::Servers::new(&first);
    let hub = Hub::new();
    catalog
        .registry()
        .set_fallback(Some(upstream::host_function(
            Arc::downgrade(&catalog),
            Arc::clone(&servers),
            tokio::runtime::Handle::current(),
        )))
        .map_err(|e| e.to_string())?;
    let hook = hub.hook();
    if let Some(options) = console {
        let context = console::Context {
            catalog: Arc::clone(&catalog),
            servers: Arc::clone(&servers),
            on_change: Arc::clone(&hook),
            config: config.to_path_buf(),
        };
        console::start(options, context).await?;
    }
    for s in first.iter() {
        tokio::spawn(Arc::clone(s).supervise(Arc::clone(&catalog), Arc::clone(&hook), false));
    }
    let began = Instant::now();
    for s in first.iter() {
        let left = FIRST_START_WAIT.saturating_sub(began.elapsed());
        let _ = tokio::time::timeout(left, s.started()).await;
    }
    tokio::spawn(
        reload::Reloader {
            path: config.to_path_buf(),
            watch,
            servers: Arc::clone(&servers),
            catalog: Arc::clone(&catalog),
            on_change: hook,
        }
        .watch(),
    );
    tokio::spawn(save_usage(Arc::downgrade(&catalog)));
    let served = match http {
        Some(http) => http_server::serve(Arc::clone(&catalog), servers, hub, http).await,
        None => serve_stdio(Arc::clone(&catalog), servers, hub).await,
    };
    // Sessions still open end with the gateway: their tasks are recorded, then written.
    let tasks = Arc::clone(&catalog);
    let _ = tokio::task::spawn_blocking(move || tasks.tasks().finish()).await;
    served
}

/// Serves the one client on stdio until it disconnects.
async fn serve_stdio(
    catalog: Arc<Catalog>,
    servers: Arc<reload::Servers>,
    hub: Hub,
) -> Result<(), String> {
    let service = Proxy::new(catalog, servers, hub, None)?
        .serve(rmcp::transport::io::stdio_pipes())
        .await
        .map_err(|e| format!("MCP client: {e}"))?;
    service.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}

/// Writes the co-use counts every [`usage::SAVE_EVERY`] while the gateway serves, when tasks
/// were recorded since the last write.
async fn save_usage(catalog: std::sync::Weak<Catalog>) {
    loop {
        tokio::time::sleep(usage::SAVE_EVERY).await;
        let Some(catalog) = catalog.upgrade() else {
            return;
        };
        let _ = tokio::task::spawn_blocking(move || catalog.tasks().save()).await;
    }
}
