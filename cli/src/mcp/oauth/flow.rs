//! One sign-in (the authorization-code flow with PKCE) to one server, on rmcp's
//! `AuthorizationManager`: protected-resource and authorization-server metadata (rmcp checks the
//! issuer, the resource and S256), a client identity in the order the MCP spec gives
//! (pre-registered in the config, a client ID metadata document, dynamic registration, else a
//! clear error), the browser (or `--open-with CMD`) sent to the authorization URL, the redirect
//! taken on a loopback listener, and the code exchanged (rmcp sends the resource, checks `iss`).
//! Tokens reach the token file only once the exchange succeeded.

use super::store::{Client, ServerStore, TokenFile};
use crate::mcp::config::OAuthConfig;
use rmcp::transport::auth::{AuthorizationManager, AuthorizationRequest, AuthorizationSession};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How long a sign-in waits for the browser to come back.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);
/// The largest redirect request read from the browser.
const MAX_REQUEST: usize = 16 * 1024;

/// How the authorization URL reaches the user.
#[derive(Clone, Debug, PartialEq)]
pub enum Opener {
    /// The system's opener (xdg-open, open) when there is one; the URL is printed either way.
    System,
    /// `--open-with CMD`: CMD (split at spaces) runs with the URL as its last argument.
    Command(String),
}

/// What a sign-in needs to know about its server.
#[derive(Clone, Debug)]
pub struct Target {
    /// The server's name in the config (for messages).
    pub name: String,
    /// Its URL: the protected resource, and the token file's key.
    pub url: String,
    /// The config's `"oauth"`.
    pub oauth: OAuthConfig,
    pub file: TokenFile,
}

impl Target {
    /// A manager for this server with its tokens in the token file (none read yet).
    pub async fn manager(&self) -> Result<AuthorizationManager, String> {
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(|e| format!("{}: {e}", self.url))?;
        manager.set_credential_store(ServerStore {
            file: self.file.clone(),
            url: self.url.clone(),
        });
        Ok(manager)
    }

    /// A manager with the stored tokens and their client, when there are tokens.
    pub async fn stored(&self) -> Result<Option<AuthorizationManager>, String> {
        let entry = self.file.entry(&self.url)?;
        let Some(credentials) = entry.credentials.as_ref() else {
            return Ok(None);
        };
        let mut manager = self.manager().await?;
        if let Some(metadata) = entry.metadata.clone() {
            manager.set_metadata(metadata);
        }
        if !manager
            .initialize_from_store()
            .await
            .map_err(|e| format!("reading the stored sign-in: {e}"))?
        {
            return Ok(None);
        }
        // rmcp restores the client ID only; a confidential client needs its secret to refresh.
        let issuer = credentials.issuer.clone().unwrap_or_default();
        if let Some(client) = entry
            .clients
            .get(&issuer)
            .filter(|c| c.client_secret.is_some())
        {
            let config = rmcp::transport::auth::OAuthClientConfig::new(
                client.client_id.clone(),
                "http://127.0.0.1/callback",
            )
            .with_client_secret(client.client_secret.clone().unwrap_or_default());
            manager
                .configure_client(config)
                .map_err(|e| format!("reading the stored sign-in: {e}"))?;
        }
        Ok(Some(manager))
    }

    /// Signs in: discovery (from `challenge`, the 401's or 403's `WWW-Authenticate`, when there
    /// is one), a client, the browser, the code exchanged. `scopes` (a step-up's union) replaces
    /// the selection rmcp makes (the challenge's, else the metadata's `scopes_supported`).
    /// On success the tokens and the client are in the token file.
    pub async fn sign_in(
        &self,
        challenge: Option<&str>,
        scopes: &[String],
        opener: &Opener,
    ) -> Result<AuthorizationManager, String> {
        self.sign_in_reporting(challenge, scopes, opener, &|_| {})
            .await
    }

    /// [`Target::sign_in`], with `shown` told the authorization URL as soon as the browser is
    /// sent there (the console gives it to its page, for a person to open).
    pub async fn sign_in_reporting(
        &self,
        challenge: Option<&str>,
        scopes: &[String],
        opener: &Opener,
        shown: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<AuthorizationManager, String> {
        let mut manager = self.manager().await?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge)
            .await
            .map_err(|e| format!("discovering the authorization server: {e}"))?;
        let metadata = resolution.metadata;
        let issuer = metadata.issuer.clone().unwrap_or_default();
        manager.set_metadata(metadata.clone());

        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| format!("listening for the browser on loopback: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let redirect = format!("http://127.0.0.1:{port}/callback");

        let mut scopes: Vec<String> = if scopes.is_empty() {
            self.oauth.scopes.clone().unwrap_or_default()
        } else {
            scopes.to_vec()
        };
        if scopes.is_empty() {
            let hint = challenge.and_then(challenge_scope);
            scopes = manager.select_scopes(hint.as_deref(), &[]);
        }
        let mut request = AuthorizationRequest::new(redirect.clone())
            .with_client_name("toolregistry")
            .with_scopes(scopes.clone());
        let cimd = metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        let mut client = None;
        if let Some(id) = &self.oauth.client_id {
            request = request.with_preregistered_client(id.clone());
            if let Some(secret) = &self.oauth.client_secret {
                request = request.with_client_secret(secret.clone());
            }
        } else if let (Some(url), true) = (&self.oauth.client_metadata_url, cimd) {
            request = request.with_client_metadata_url(url.clone());
        } else if metadata.registration_endpoint.is_some() {
            let refs: Vec<&str> = scopes.iter().map(String::as_str).collect();
            let registered = manager
                .register_client("toolregistry", &redirect, &refs)
                .await
                .map_err(|e| format!("registering a client with {issuer}: {e}"))?;
            request = request.with_preregistered_client(registered.client_id.clone());
            if let Some(secret) = &registered.client_secret {
                request = request.with_client_secret(secret.clone());
            }
            client = Some(Client {
                client_id: registered.client_id,
                client_secret: registered.client_secret,
            });
        } else {
            return Err(format!(
                "the authorization server {issuer} offers no way to register a client (no \
                 registration_endpoint{}); set \"oauth\": {{\"client_id\": ...}} for server {:?} \
                 in the config",
                if cimd {
                    ", and no \"client_metadata_url\" is configured"
                } else {
                    " and no client ID metadata documents"
                },
                self.name
            ));
        }
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| format!("starting the authorization: {e}"))?;
        let url = session.get_authorization_url();
        open(&self.name, url, opener);
        shown(url);
        let path = tokio::time::timeout(SIGN_IN_TIMEOUT, redirected(&listener))
            .await
            .map_err(|_| {
                format!(
                    "no answer from the browser within {} s",
                    SIGN_IN_TIMEOUT.as_secs()
                )
            })??;
        session
            .handle_callback_url(&format!("http://127.0.0.1:{port}{path}"))
            .await
            .map_err(|e| format!("exchanging the authorization code: {e}"))?;
        self.file
            .update(&self.url, |e| {
                e.metadata = Some(metadata);
                if let Some(client) = client {
                    e.clients.insert(issuer.clone(), client);
                }
            })
            .map_err(|e| format!("saving the sign-in: {e}"))?;
        Ok(session.auth_manager)
    }
}

/// The `scope` of a `WWW-Authenticate` challenge.
pub(super) fn challenge_scope(challenge: &str) -> Option<String> {
    let at = challenge.find("scope=")?;
    let rest = &challenge[at + "scope=".len()..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    Some(value.to_string()).filter(|v| !v.is_empty())
}

/// Sends the user to `url`: prints it, and runs the opener.
fn open(name: &str, url: &str, opener: &Opener) {
    eprintln!("toolregistry mcp: server {name:?}: sign in at {url}");
    let (program, mut args): (String, Vec<String>) = match opener {
        Opener::Command(command) => {
            let mut words = command.split_whitespace().map(str::to_string);
            let Some(program) = words.next() else { return };
            (program, words.collect())
        }
        Opener::System => match system_opener() {
            Some(p) => (p.to_string(), Vec::new()),
            None => return,
        },
    };
    args.push(url.to_string());
    match tokio::process::Command::new(&program)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
    {
        // Reaped in the background: the opener may outlive the sign-in.
        Ok(mut child) => {
            tokio::spawn(async move {
                let _ = child.wait().await;
            });
        }
        Err(e) => eprintln!("toolregistry mcp: server {name:?}: running {program:?}: {e}"),
    }
}

/// The system's opener, when there is one.
fn system_opener() -> Option<&'static str> {
    ["xdg-open", "open"].into_iter().find(|p| on_path(p))
}

impl Opener {
    /// What runs with the authorization URL: `--open-with`, the system's opener, or `None` when
    /// there is none (the URL is printed, and a person opens it).
    pub fn describe(&self) -> Option<String> {
        match self {
            Opener::Command(_) => Some("--open-with".to_string()),
            Opener::System => system_opener().map(str::to_string),
        }
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Waits for the browser's request to `/callback` on `listener`; answers every request with a
/// short page, and returns the callback's path and query. An `error` in the redirect is the
/// sign-in's error.
async fn redirected(listener: &TcpListener) -> Result<String, String> {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        let mut buf = Vec::new();
        let mut chunk = [0u8; 2048];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < MAX_REQUEST {
            match tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk)).await {
                Ok(Ok(n)) if n > 0 => buf.extend_from_slice(&chunk[..n]),
                _ => break,
            }
        }
        let text = String::from_utf8_lossy(&buf);
        let target = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("GET "))
            .and_then(|l| l.split(' ').next())
            .unwrap_or("")
            .to_string();
        let callback = target == "/callback" || target.starts_with("/callback?");
        let body = if callback {
            "Signed in. You can close this tab."
        } else {
            "Not found."
        };
        let status = if callback { "200 OK" } else { "404 Not Found" };
        let _ = stream
            .write_all(
                format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            )
            .await;
        if !callback {
            continue;
        }
        let query = url::Url::parse(&format!("http://127.0.0.1{target}"))
            .map_err(|e| format!("the redirect: {e}"))?;
        if let Some((_, error)) = query.query_pairs().find(|(k, _)| k == "error") {
            let detail = query
                .query_pairs()
                .find(|(k, _)| k == "error_description")
                .map(|(_, v)| format!(": {v}"))
                .unwrap_or_default();
            return Err(format!("the authorization server refused: {error}{detail}"));
        }
        return Ok(target);
    }
}

#[cfg(test)]
mod tests {
    use super::challenge_scope;

    #[test]
    fn the_challenges_scope_is_read_quoted_or_not() {
        assert_eq!(
            challenge_scope(r#"Bearer scope="a b", resource_metadata="x""#).as_deref(),
            Some("a b")
        );
        assert_eq!(
            challenge_scope("Bearer scope=a, error=x").as_deref(),
            Some("a")
        );
        assert_eq!(challenge_scope("Bearer realm=x"), None);
    }
}
