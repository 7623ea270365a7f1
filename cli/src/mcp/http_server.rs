//! `toolregistry mcp --http ADDR`: clients over streamable HTTP, with rmcp's server transport on
//! axum. Each client session (`Mcp-Session-Id`) gets its own [`Proxy`], so its own list of found
//! tools; a session ends on DELETE or after `idle_timeout` without a request, and at most
//! `max_sessions` live at once (memory stays bounded).
//!
//! In front of rmcp: a bearer token (`--token-file`), required whenever the address is not
//! loopback and compared in constant time, and the session cap. rmcp checks `Host` (loopback
//! names, the bound address, `--allow-host`) and `Origin` (the server's own origins and
//! `--allow-origin`; a request without `Origin`, as non-browser clients send, passes) with 403.

use super::catalog::Catalog;
use super::upstream::{Hub, Proxy};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The path clients connect to.
pub const PATH: &str = "/mcp";

/// Shortest token accepted: a guessable one would make the check decoration.
const MIN_TOKEN_BYTES: usize = 16;

/// How `--http` serves.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `IP:PORT` to listen on (port 0: any free port, printed on stderr).
    pub addr: String,
    /// Browser origins allowed besides the server's own (`scheme://host[:port]`).
    pub allow_origins: Vec<String>,
    /// `Host` values allowed besides the loopback names and the bound address.
    pub allow_hosts: Vec<String>,
    /// File holding the bearer token clients must send.
    pub token_file: Option<PathBuf>,
    /// Most client sessions alive at once.
    pub max_sessions: usize,
    /// A session without a request for this long ends.
    pub idle_timeout: Duration,
}

/// What the gate in front of rmcp checks.
struct Gate {
    /// SHA-256 of the token: compared digest to digest, so the comparison's time depends on
    /// neither the token's length nor where a wrong guess differs.
    token: Option<[u8; 32]>,
    permits: Arc<Semaphore>,
}

/// Reads the token: the file's text without surrounding whitespace. Its value is never printed.
pub fn read_token(path: &Path) -> Result<[u8; 32], String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--token-file {}: {e}", path.display()))?;
    let token = text.trim();
    if token.len() < MIN_TOKEN_BYTES || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!(
            "--token-file {}: expected one token of at least {MIN_TOKEN_BYTES} characters, \
             without spaces",
            path.display()
        ));
    }
    Ok(Sha256::digest(token.as_bytes()).into())
}

/// Equal digests, in time independent of the contents.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether the request carries the token as `Authorization: Bearer TOKEN`.
fn authorized(request: &Request, token: &[u8; 32]) -> bool {
    let Some(value) = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let Some((scheme, given)) = value.split_once(' ') else {
        return false;
    };
    scheme.eq_ignore_ascii_case("bearer")
        && same(&Sha256::digest(given.trim().as_bytes()).into(), token)
}

async fn gate(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    if let Some(token) = &gate.token {
        if !authorized(&request, token) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
                "Unauthorized: send the token as Authorization: Bearer TOKEN\n",
            )
                .into_response();
        }
    }
    // A new session (a POST without a session id) when every place is taken: the factory
    // would refuse it too (with a 500); this says why, and when to try again.
    if request.method() == Method::POST
        && !request.headers().contains_key("mcp-session-id")
        && gate.permits.available_permits() == 0
    {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, HeaderValue::from_static("5"))],
            "Service Unavailable: the proxy has as many client sessions as it takes\n",
        )
            .into_response();
    }
    next.run(request).await
}

/// Serves clients over streamable HTTP until SIGINT or SIGTERM.
pub async fn serve(
    catalog: Arc<Catalog>,
    servers: Arc<super::reload::Servers>,
    hub: Hub,
    options: &HttpOptions,
) -> Result<(), String> {
    let addr: SocketAddr = options.addr.parse().map_err(|_| {
        format!(
            "--http {}: expected IP:PORT, such as 127.0.0.1:8765",
            options.addr
        )
    })?;
    let token = options.token_file.as_deref().map(read_token).transpose()?;
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(format!(
            "--http {addr}: listening beyond loopback needs a bearer token (--token-file FILE)"
        ));
    }
    if options.max_sessions == 0 {
        return Err("--max-sessions: expected at least 1".into());
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--http {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let port = bound.port();

    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    if !bound.ip().is_loopback() && !bound.ip().is_unspecified() {
        hosts.push(bound.ip().to_string());
    }
    hosts.extend(options.allow_hosts.iter().cloned());
    // The server's own origins (a page it served, were it to serve one) and the user's.
    let mut origins: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .map(|h| format!("http://{h}:{port}"))
        .collect();
    origins.extend(options.allow_origins.iter().cloned());

    let shutdown = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_cancellation_token(shutdown.child_token());
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.idle_timeout);

    let permits = Arc::new(Semaphore::new(options.max_sessions));
    let factory = {
        let permits = Arc::clone(&permits);
        move || {
            let permit = Arc::clone(&permits)
                .try_acquire_owned()
                .map_err(|_| std::io::Error::other("the session limit is reached"))?;
            Proxy::new(
                Arc::clone(&catalog),
                Arc::clone(&servers),
                hub.clone(),
                Some(permit),
            )
            .map_err(std::io::Error::other)
        }
    };
    let service = StreamableHttpService::new(factory, Arc::new(sessions), config);
    let gate_state = Arc::new(Gate { token, permits });
    let app = axum::Router::new()
        .route_service(PATH, service)
        .layer(axum::middleware::from_fn_with_state(gate_state, gate));

    eprintln!(
        "toolregistry mcp: serving MCP (streamable HTTP) at http://{bound}{PATH}{}",
        if token.is_some() {
            " (bearer token required)"
        } else {
            ""
        }
    );
    let stop = shutdown.clone();
    tokio::spawn(async move {
        stop_signal().await;
        stop.cancel();
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
        .map_err(|e| format!("serving HTTP: {e}"))
}

/// SIGINT or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_comparison() {
        let dir = std::env::temp_dir().join(format!("tr-token-{}", std::process::id()));
        std::fs::write(&dir, "  0123456789abcdef-token\n").unwrap();
        let token = read_token(&dir).unwrap();
        let request = |v: &str| {
            axum::http::Request::builder()
                .header(header::AUTHORIZATION, v)
                .body(axum::body::Body::empty())
                .unwrap()
        };
        assert!(authorized(
            &request("Bearer 0123456789abcdef-token"),
            &token
        ));
        assert!(authorized(
            &request("bearer 0123456789abcdef-token"),
            &token
        ));
        assert!(!authorized(
            &request("Bearer 0123456789abcdef-tokeN"),
            &token
        ));
        assert!(!authorized(&request("Bearer 0123456789abcdef"), &token));
        assert!(!authorized(
            &request("Basic 0123456789abcdef-token"),
            &token
        ));
        std::fs::write(&dir, "short").unwrap();
        let err = read_token(&dir).unwrap_err();
        assert!(err.contains("at least") && !err.contains("short"), "{err}");
        let _ = std::fs::remove_file(&dir);
    }
}
