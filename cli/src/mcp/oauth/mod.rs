//! Signing in to remote servers protected by the MCP authorization spec (OAuth 2.1 with PKCE,
//! found through protected-resource metadata). A remote server without an `Authorization` header
//! in the config is connected through [`client::SignInClient`]: its stored tokens are sent (to it
//! alone: tokens are keyed by its URL), refreshed before they expire, and a 401 or a 403
//! `insufficient_scope` starts a sign-in when the gateway may open a browser ([`flow`]); else the
//! server "needs sign-in (toolregistry mcp login NAME)". Tokens and registered clients live in
//! one file beside the pins' state ([`store`]).

pub mod client;
pub mod flow;
pub mod store;

use super::config::{Remote, ServerConfig};
use client::ServerAuth;
use flow::{Opener, Target};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use store::TokenFile;

/// Where this run keeps tokens, and whether it may open a browser (not in `--check`).
struct Context {
    file: TokenFile,
    opener: Option<Opener>,
    /// Each server's sign-in state, by name and URL: it outlives the server's connections.
    servers: Mutex<HashMap<(String, String), Arc<ServerAuth>>>,
}

static CONTEXT: OnceLock<Context> = OnceLock::new();

/// Sets where tokens live (`state`: the pins' state file) and how the browser is opened
/// (`None`: never). Once per run; a second call is ignored.
pub fn configure(state: Option<&Path>, opener: Option<Opener>) {
    if let Some(state) = state {
        let _ = CONTEXT.set(Context {
            file: TokenFile::beside(state),
            opener,
            servers: Mutex::new(HashMap::new()),
        });
    }
}

/// Whether a remote server signs in: it has no `Authorization` header of its own.
pub fn applies(remote: &Remote) -> bool {
    !remote
        .headers
        .keys()
        .any(|k| k.eq_ignore_ascii_case("authorization"))
}

fn target(name: &str, remote: &Remote, file: TokenFile) -> Target {
    Target {
        name: name.to_string(),
        url: remote.url.clone(),
        oauth: remote.oauth.clone().unwrap_or_default(),
        file,
    }
}

async fn server_auth(
    config: &ServerConfig,
    remote: &Remote,
) -> Result<Option<Arc<ServerAuth>>, String> {
    let Some(context) = CONTEXT.get() else {
        return Ok(None);
    };
    if !applies(remote) {
        return Ok(None);
    }
    let key = (config.name.clone(), remote.url.clone());
    let known = context
        .servers
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
        .cloned();
    if let Some(auth) = known {
        return Ok(Some(auth));
    }
    let auth = Arc::new(
        ServerAuth::new(
            target(&config.name, remote, context.file.clone()),
            context.opener.clone(),
        )
        .await?,
    );
    let mut servers = context
        .servers
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(Some(Arc::clone(servers.entry(key).or_insert(auth))))
}

/// The transport of a remote server that signs in, with the stored tokens taken up; `None`
/// for one that does not (its own `Authorization` header) or when no token file is configured.
pub async fn transport(
    config: &ServerConfig,
    remote: &Remote,
    headers: HashMap<axum::http::HeaderName, axum::http::HeaderValue>,
) -> Result<Option<StreamableHttpClientTransport<client::SignInClient>>, String> {
    let Some(auth) = server_auth(config, remote).await? else {
        return Ok(None);
    };
    auth.reload()
        .await
        .map_err(|e| format!("the stored sign-in: {e}"))?;
    let transport_config = StreamableHttpClientTransportConfig::with_uri(remote.url.as_str())
        .custom_headers(headers)
        .reinit_on_expired_session(false);
    Ok(Some(StreamableHttpClientTransport::with_client(
        auth.client().await?,
        transport_config,
    )))
}

/// `config`'s server's sign-in, when the gateway signs in to it (`None` when it does not): the
/// server's auth once it met its first answer.
fn known(config: &ServerConfig) -> Option<Option<Arc<ServerAuth>>> {
    let remote = config.remote.as_ref().filter(|r| applies(r))?;
    let context = CONTEXT.get()?;
    Some(
        context
            .servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(config.name.clone(), remote.url.clone()))
            .cloned(),
    )
}

/// The sign-in state of `config`'s server, once it met its first answer; `None` for a server
/// that does not sign in.
pub fn status(config: &ServerConfig) -> Option<client::Status> {
    let known = known(config)?;
    Some(known.map_or(
        client::Status {
            needed: false,
            signing: false,
            authorization_url: None,
            last_failure: None,
        },
        |a| a.status(),
    ))
}

/// Why a sign-in the console asked for did not start.
pub enum SignInError {
    /// The server does not sign in, or this gateway cannot.
    NotApplicable(String),
    /// The flow failed before the browser was sent anywhere (discovery, registration).
    Failed(String),
}

/// A sign-in the console started: its authorization URL, and what opened it (`None`: nothing
/// did, a person opens the URL).
pub struct Started {
    pub authorization_url: String,
    pub opener: Option<String>,
}

/// The console's Sign in for `config`'s server: the gateway's own sign-in (its opener, its
/// token file), started now; a sign-in still waiting on the browser is replaced, a failed one
/// retried. It returns once the browser is sent to the authorization URL; the server starts
/// again as soon as the sign-in is done ([`signed_in`]).
pub async fn sign_in_now(config: &ServerConfig) -> Result<Started, SignInError> {
    let remote = config.remote.as_ref().ok_or_else(|| {
        SignInError::NotApplicable(format!(
            "server {:?} is a program on stdio: only a remote server (\"url\") signs in",
            config.name
        ))
    })?;
    if !applies(remote) {
        return Err(SignInError::NotApplicable(format!(
            "server {:?} sends its own \"Authorization\" header (the config's \"headers\"); \
             remove it to sign in instead",
            config.name
        )));
    }
    let auth = server_auth(config, remote)
        .await
        .map_err(SignInError::Failed)?
        .ok_or_else(|| {
            SignInError::NotApplicable(
                "this gateway keeps no sign-ins (no state folder for the token file)".to_string(),
            )
        })?;
    let challenge = match auth.last_challenge() {
        Some(c) => Some(c),
        None => probe(&remote.url).await,
    };
    let (url, opener) = auth
        .sign_in_now(challenge)
        .await
        .map_err(|e| SignInError::Failed(config.redact(&e)))?;
    // The URL comes from the authorization server's metadata: a page may link to http(s) only.
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err(SignInError::Failed(format!(
            "the authorization URL is not http(s): {}",
            toolregistry::limits::cut(&url, 80)
        )));
    }
    Ok(Started {
        authorization_url: url,
        opener,
    })
}

/// What a 401 means for `config`'s server: it needs sign-in (and how), when it signs in.
pub fn needs_sign_in(config: &ServerConfig) -> Option<String> {
    let known = known(config)?;
    Some(known.map_or_else(
        || format!("needs sign-in (toolregistry mcp login {})", config.name),
        |a| a.needs_sign_in(),
    ))
}

/// Resolves when `config`'s server may have been signed in since the call: a sign-in of this
/// gateway finished, or the token file changed (`mcp login` in another process). Never, for a
/// server that does not sign in. The supervisor waits on it beside its backoff, so that the
/// server's tools appear at once.
pub async fn signed_in(config: &ServerConfig) {
    let context = CONTEXT.get();
    let (Some(context), Some(remote)) = (context, config.remote.as_ref().filter(|r| applies(r)))
    else {
        return std::future::pending().await;
    };
    let known = || {
        context
            .servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(config.name.clone(), remote.url.clone()))
            .map(|a| a.generation())
    };
    let modified = || {
        std::fs::metadata(context.file.path())
            .and_then(|m| m.modified())
            .ok()
    };
    let (generation, stamp) = (known(), modified());
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        if known() != generation || modified() != stamp {
            return;
        }
    }
}

fn remote_named<'a>(
    servers: &'a [ServerConfig],
    name: &str,
) -> Result<(&'a ServerConfig, &'a Remote), String> {
    let server = servers
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("no server {name:?} in the config"))?;
    let remote = server.remote.as_ref().ok_or_else(|| {
        format!("server {name:?} is a program on stdio: only a remote server (\"url\") signs in")
    })?;
    if !applies(remote) {
        return Err(format!(
            "server {name:?} sends its own \"Authorization\" header (the config's \"headers\"); \
             remove it to sign in instead"
        ));
    }
    Ok((server, remote))
}

/// `mcp login NAME`: signs in to the server ahead of time; the tokens go to the token file.
pub fn login(config: &Path, state: &Path, name: &str, opener: Opener) -> Result<String, String> {
    let servers = super::config::load(config)?;
    let (server, remote) = remote_named(&servers, name)?;
    let file = TokenFile::beside(state);
    let target = target(&server.name, remote, file.clone());
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))?;
    let result = runtime.block_on(async {
        let challenge = probe(&remote.url).await;
        target.sign_in(challenge.as_deref(), &[], &opener).await
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(_) => Ok(format!(
            "signed in to {name:?}; the tokens are in {}\n",
            file.path().display()
        )),
        Err(e) => Err(server.redact(&format!("server {name:?}: sign-in failed: {e}"))),
    }
}

/// `mcp logout NAME`: forgets the server's tokens and registered clients.
pub fn logout(config: &Path, state: &Path, name: &str) -> Result<String, String> {
    let servers = super::config::load(config)?;
    let (_, remote) = remote_named(&servers, name)?;
    let file = TokenFile::beside(state);
    Ok(if file.forget(&remote.url)? {
        format!("signed out of {name:?}\n")
    } else {
        format!("{name:?} was not signed in\n")
    })
}

/// The `WWW-Authenticate` of the server's answer to an unauthenticated `initialize`, when it is
/// a 401 (its `resource_metadata` and `scope` seed discovery).
async fn probe(url: &str) -> Option<String> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "toolregistry", "version": toolregistry::VERSION}}
    });
    let response = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}
