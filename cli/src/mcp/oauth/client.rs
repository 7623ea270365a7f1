//! The HTTP client of a server that signs in: rmcp's `AuthClient` (the stored token on every
//! request, refreshed before it expires and once on a 401) inside [`SignInClient`], which meets
//! a 401 it cannot refresh past, or a 403 `insufficient_scope`, with a sign-in (when the gateway
//! may open a browser) and sends the request again, a bounded number of times.

use super::flow::{Opener, Target};
use axum::http::{HeaderName, HeaderValue};
use futures::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{AuthClient, AuthorizationManager};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Most sign-ins one request may cause (the first, then step-ups), and most in a row with no
/// request let through between them (over the server's restarts): a server that keeps asking
/// for more scope is refused after that, until `toolregistry mcp login NAME`.
const MAX_SIGN_INS_PER_REQUEST: usize = 3;
/// How long a request waits for the sign-in it started: an authorization server that approves
/// at once (or a quick user) lets the request through; a slower sign-in goes on in the
/// background, the request fails ("needs sign-in"), and the server starts again once it is done.
const SIGN_IN_WAIT: std::time::Duration = std::time::Duration::from_secs(5);
/// How long the console's Sign in waits for the authorization URL (discovery, registration).
const URL_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

type HttpError = StreamableHttpError<reqwest::Error>;

/// One server's sign-in state, shared by its connections (one per start).
pub struct ServerAuth {
    pub target: Target,
    /// The manager every request takes its token from (the `AuthClient`'s own).
    manager: Arc<tokio::sync::Mutex<AuthorizationManager>>,
    /// How the browser is opened; `None`: never (`--check`), the server just needs sign-in.
    opener: Option<Opener>,
    /// One sign-in at a time: held by the sign-in's own task.
    signing: Arc<tokio::sync::Mutex<()>>,
    /// Counts the sign-ins: a request that failed before one finished just tries again.
    generation: AtomicU64,
    /// Sign-ins since a request was last let through.
    unanswered: AtomicUsize,
    /// The scopes asked for so far (a step-up asks for their union with the challenge's).
    scopes: Mutex<Vec<String>>,
    /// Why the last sign-in failed; an interactive sign-in that failed is not retried by the
    /// gateway on its own (`toolregistry mcp login NAME` is, and the console's Sign in).
    failed: Mutex<Option<String>>,
    /// Whether the server's last answer was a challenge no sign-in got past (cleared by an
    /// answer that is not, and by a sign-in that finished): the console's "needs sign-in".
    needed: AtomicBool,
    /// The last challenge (`WWW-Authenticate`) the server answered with: where a sign-in the
    /// console starts finds the server's metadata.
    challenge: Mutex<Option<String>>,
    /// The authorization URL of the sign-in waiting for the browser, if one is.
    pending: Mutex<Option<String>>,
    /// The running sign-in's task, so that the console's Sign in can replace it.
    task: Mutex<Option<tokio::task::AbortHandle>>,
}

/// What the console shows of a server's sign-in.
pub struct Status {
    /// The server answers with a challenge that no sign-in got past.
    pub needed: bool,
    /// A sign-in is under way.
    pub signing: bool,
    /// Its authorization URL, while it waits for the browser.
    pub authorization_url: Option<String>,
    /// Why the last sign-in failed.
    pub last_failure: Option<String>,
}

impl ServerAuth {
    /// The state of `target`'s server, with no tokens read yet.
    pub async fn new(target: Target, opener: Option<Opener>) -> Result<ServerAuth, String> {
        let manager = target.manager().await?;
        Ok(ServerAuth {
            target,
            manager: Arc::new(tokio::sync::Mutex::new(manager)),
            opener,
            signing: Arc::new(tokio::sync::Mutex::new(())),
            generation: AtomicU64::new(0),
            unanswered: AtomicUsize::new(0),
            scopes: Mutex::new(Vec::new()),
            failed: Mutex::new(None),
            needed: AtomicBool::new(false),
            challenge: Mutex::new(None),
            pending: Mutex::new(None),
            task: Mutex::new(None),
        })
    }

    /// The sign-in's state, for the console.
    pub fn status(&self) -> Status {
        Status {
            needed: self.needed.load(Ordering::SeqCst),
            signing: self.signing.try_lock().is_err(),
            authorization_url: lock(&self.pending).clone(),
            last_failure: lock(&self.failed).clone(),
        }
    }

    /// The last challenge the server answered with.
    pub fn last_challenge(&self) -> Option<String> {
        lock(&self.challenge).clone()
    }

    /// Takes up the tokens in the token file (signed in by `mcp login` or an earlier run).
    pub async fn reload(&self) -> Result<(), String> {
        if let Some(stored) = self.target.stored().await? {
            *self.manager.lock().await = stored;
        }
        Ok(())
    }

    /// How many sign-ins finished.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Why the server is not signed in, for `--check` and the log.
    pub fn needs_sign_in(&self) -> String {
        let mut text = format!(
            "needs sign-in (toolregistry mcp login {})",
            self.target.name
        );
        if let Some(failed) = lock(&self.failed).as_ref() {
            text.push_str(&format!("; the last sign-in failed: {failed}"));
        }
        text
    }

    /// The client for one connection.
    pub async fn client(self: &Arc<Self>) -> Result<SignInClient, String> {
        // `AuthClient::new` wants a manager of its own; the shared one replaces it at once.
        let placeholder = AuthorizationManager::new(self.target.url.as_str())
            .await
            .map_err(|e| e.to_string())?;
        let mut inner = AuthClient::new(reqwest::Client::default(), placeholder);
        inner.auth_manager = Arc::clone(&self.manager);
        Ok(SignInClient {
            inner,
            auth: Arc::clone(self),
        })
    }

    /// Signs in after a request met `challenge` (`step_up`: a 403 asking for more scope), unless
    /// another sign-in finished since `seen`. Whether the request should be sent again.
    async fn sign_in_after(self: &Arc<Self>, seen: u64, challenge: &str, step_up: bool) -> bool {
        if !challenge.is_empty() {
            *lock(&self.challenge) = Some(challenge.to_string());
        }
        // A sign-in already waiting on the browser: the request waits for it as for its own.
        let held = match tokio::time::timeout(SIGN_IN_WAIT, Arc::clone(&self.signing).lock_owned())
            .await
        {
            Ok(held) => held,
            Err(_) => return self.generation.load(Ordering::SeqCst) != seen,
        };
        if self.generation.load(Ordering::SeqCst) != seen {
            return true;
        }
        let Some(opener) = self.opener.clone() else {
            return false;
        };
        if lock(&self.failed).is_some() {
            return false;
        }
        // Counted here, where a sign-in starts (not where a request met the challenge: concurrent
        // requests share one sign-in).
        if self.unanswered.fetch_add(1, Ordering::SeqCst) >= MAX_SIGN_INS_PER_REQUEST {
            self.unanswered.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        let scopes = if step_up {
            let mut union = lock(&self.scopes).clone();
            for s in challenge_scopes(challenge) {
                if !union.contains(&s) {
                    union.push(s);
                }
            }
            union
        } else {
            Vec::new()
        };
        let task = self.spawn_sign_in(held, opener, Some(challenge.to_string()), scopes, None);
        match tokio::time::timeout(SIGN_IN_WAIT, task).await {
            Ok(done) => done.unwrap_or(false),
            Err(_) => false,
        }
    }

    /// The console's Sign in: a sign-in now, with the gateway's opener, in place of any sign-in
    /// still waiting on the browser and past a failed one; `challenge` (the server's last, else
    /// a probe's) seeds discovery. The authorization URL once the browser is sent there; the
    /// sign-in goes on in the background, and the server starts again when it is done.
    pub async fn sign_in_now(
        self: &Arc<Self>,
        challenge: Option<String>,
    ) -> Result<(String, Option<String>), String> {
        let Some(opener) = self.opener.clone() else {
            return Err("this gateway opens no sign-in (--check)".to_string());
        };
        let mut held = None;
        for _ in 0..10 {
            if let Some(task) = lock(&self.task).take() {
                task.abort();
            }
            if let Ok(h) = tokio::time::timeout(
                std::time::Duration::from_millis(500),
                Arc::clone(&self.signing).lock_owned(),
            )
            .await
            {
                held = Some(h);
                break;
            }
        }
        let held = held.ok_or("another sign-in of this server is under way")?;
        *lock(&self.failed) = None;
        *lock(&self.pending) = None;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let task = self.spawn_sign_in(held, opener.clone(), challenge, Vec::new(), Some(tx));
        match tokio::time::timeout(URL_WAIT, rx).await {
            Ok(Ok(Ok(url))) => Ok((url, opener.describe())),
            Ok(Ok(Err(e))) => Err(e),
            Ok(Err(_)) => Err("the sign-in stopped".to_string()),
            Err(_) => {
                task.abort();
                Err(format!(
                    "no authorization URL within {} s (discovery or registration does not answer)",
                    URL_WAIT.as_secs()
                ))
            }
        }
    }

    /// Runs one sign-in in a task of its own, holding `held` (the one-at-a-time lock): a request
    /// given up on (the start's timeout) leaves the browser's sign-in running, and its tokens are
    /// there for the next start. `report` gets the authorization URL, or the error that came
    /// first. Whether it signed in.
    fn spawn_sign_in(
        self: &Arc<Self>,
        held: tokio::sync::OwnedMutexGuard<()>,
        opener: Opener,
        challenge: Option<String>,
        scopes: Vec<String>,
        report: Option<tokio::sync::oneshot::Sender<Result<String, String>>>,
    ) -> tokio::task::JoinHandle<bool> {
        let auth = Arc::clone(self);
        let task = tokio::spawn(async move {
            let _held = held;
            let report = Mutex::new(report);
            let shown = |url: &str| {
                *lock(&auth.pending) = Some(url.to_string());
                if let Some(tx) = lock(&report).take() {
                    let _ = tx.send(Ok(url.to_string()));
                }
            };
            let result = auth
                .target
                .sign_in_reporting(challenge.as_deref(), &scopes, &opener, &shown)
                .await;
            *lock(&auth.pending) = None;
            match result {
                Ok(manager) => {
                    let granted = manager.get_current_scopes().await;
                    *lock(&auth.scopes) = if granted.is_empty() { scopes } else { granted };
                    *auth.manager.lock().await = manager;
                    auth.needed.store(false, Ordering::SeqCst);
                    auth.generation.fetch_add(1, Ordering::SeqCst);
                    eprintln!("toolregistry mcp: server {:?}: signed in", auth.target.name);
                    true
                }
                Err(e) => {
                    eprintln!(
                        "toolregistry mcp: server {:?}: sign-in failed: {e}",
                        auth.target.name
                    );
                    if let Some(tx) = lock(&report).take() {
                        let _ = tx.send(Err(e.clone()));
                    }
                    *lock(&auth.failed) = Some(e);
                    false
                }
            }
        });
        *lock(&self.task) = Some(task.abort_handle());
        task
    }

    /// Sends a request, signing in (and sending it again) on a 401 or 403 challenge.
    async fn with_sign_in<T, F, Fut>(self: &Arc<Self>, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut sign_ins = 0;
        loop {
            let seen = self.generation.load(Ordering::SeqCst);
            match call().await {
                Err(e @ (HttpError::AuthRequired(_) | HttpError::InsufficientScope(_))) => {
                    if sign_ins < MAX_SIGN_INS_PER_REQUEST {
                        sign_ins += 1;
                        let step_up = matches!(e, HttpError::InsufficientScope(_));
                        let challenge = e.auth_challenge().unwrap_or_default().to_string();
                        if self.sign_in_after(seen, &challenge, step_up).await {
                            continue;
                        }
                    }
                    self.needed.store(true, Ordering::SeqCst);
                    return Err(e);
                }
                Ok(answer) => {
                    self.needed.store(false, Ordering::SeqCst);
                    self.unanswered.store(0, Ordering::SeqCst);
                    return Ok(answer);
                }
                other => return other,
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The scopes a challenge names.
fn challenge_scopes(challenge: &str) -> Vec<String> {
    super::flow::challenge_scope(challenge)
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A connection's HTTP client: see the module doc.
#[derive(Clone)]
pub struct SignInClient {
    inner: AuthClient<reqwest::Client>,
    auth: Arc<ServerAuth>,
}

impl StreamableHttpClient for SignInClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.auth
            .with_sign_in(|| {
                self.inner.post_message(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                )
            })
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.auth
            .with_sign_in(|| {
                self.inner.post_message_with_max_sse_event_size(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    max_sse_event_size,
                )
            })
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.auth
            .with_sign_in(|| {
                self.inner.post_message_with_response_limits(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    auth_header.clone(),
                    custom_headers.clone(),
                    limits,
                )
            })
            .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, HttpError> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, HttpError> {
        self.inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}
