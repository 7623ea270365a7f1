//! `toolregistry mcp --console ADDR`: a web page, served by the gateway on a listener of its own,
//! that shows the servers (with Sign in for one that needs OAuth sign-in), the tools, the
//! quarantine (with Approve), a search playground and the last calls, and a small JSON API under
//! `/api/` that the page uses (and scripts may).
//!
//! Security model (docs/mcp-console.md): loopback by default, beyond loopback only with
//! `--token-file`. Every request carries the token (`?token=`, which the page trades for an
//! HttpOnly, SameSite=Strict cookie, or `Authorization: Bearer`), else 401. `Host` must be a
//! loopback name or an IP literal of the listener (DNS rebinding), and an `Origin`, when sent,
//! the console's own, else 403. Every POST carries the CSRF token the page was served with
//! (`X-Console-Csrf`), else 403. Every answer has a strict Content-Security-Policy: the page's
//! script and style come from the console itself, nothing from another origin. The config is
//! shown with every `env` and `headers` value masked, and every string of every answer passes
//! each server's redaction, so no literal secret of the config leaves the process.

pub mod activity;
mod api;
mod page;

use super::catalog::Catalog;
use super::reload::Servers;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The header every POST must carry, with the CSRF token of the page.
pub const CSRF_HEADER: &str = "x-console-csrf";

/// Strict: the page's own script and style, fetches to itself, nothing inline, no frames.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// How the console is served.
#[derive(Debug, Clone)]
pub struct ConsoleOptions {
    /// `IP:PORT` (port 0: any free port).
    pub addr: String,
    /// A token file (the one `--http` uses): required beyond loopback; without it a fresh
    /// random token is made at each start.
    pub token_file: Option<PathBuf>,
    /// The pins' state file; `console-url` is written beside it.
    pub state: Option<PathBuf>,
}

/// What the console reads and acts on.
pub struct Context {
    pub catalog: Arc<Catalog>,
    pub servers: Arc<Servers>,
    /// Tells every client session that the tools changed (an approval lists tools again).
    pub on_change: Arc<dyn Fn() + Send + Sync>,
    pub config: PathBuf,
}

/// The shared state of the console's handlers.
struct Console {
    context: Context,
    /// SHA-256 of the token.
    token: [u8; 32],
    /// The CSRF token, given to the page (and to `GET /api/session`) once authenticated.
    csrf: String,
    /// The cookie that holds the token (named after the port: cookies are per host, not port).
    cookie: String,
    bound: SocketAddr,
}

/// The console's address from the gateway config's `"console"` key, if it has one.
pub fn address_from_config(config: &Path) -> Result<Option<String>, String> {
    let text = std::fs::read_to_string(config).map_err(|e| format!("{}: {e}", config.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", config.display()))?;
    match value.get("console") {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!(
            "{}: console: expected \"IP:PORT\", such as \"127.0.0.1:8766\"",
            config.display()
        )),
    }
}

/// 32 random bytes as hex, from the operating system.
fn random_token() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| format!("--console: no random source: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Binds the console, prints its URL on stderr, writes `console-url` and serves it in the
/// background. Fails (and the gateway does not start) on a bad address, a listener beyond
/// loopback without `--token-file`, or a port taken.
pub async fn start(options: &ConsoleOptions, context: Context) -> Result<(), String> {
    let addr: SocketAddr = options.addr.parse().map_err(|_| {
        format!(
            "--console {}: expected IP:PORT, such as 127.0.0.1:8766",
            options.addr
        )
    })?;
    if !addr.ip().is_loopback() && options.token_file.is_none() {
        return Err(format!(
            "--console {addr}: listening beyond loopback needs a token (--token-file FILE)"
        ));
    }
    let (token, shown) = match &options.token_file {
        Some(path) => (super::http_server::read_token(path)?, None),
        None => {
            let t = random_token()?;
            (Sha256::digest(t.as_bytes()).into(), Some(t))
        }
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--console {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let host = match bound.ip() {
        ip if ip.is_unspecified() || ip.is_loopback() => match ip {
            IpAddr::V6(_) if !ip.is_unspecified() => format!("[::1]:{}", bound.port()),
            _ => format!("127.0.0.1:{}", bound.port()),
        },
        IpAddr::V6(ip) => format!("[{ip}]:{}", bound.port()),
        ip => format!("{ip}:{}", bound.port()),
    };
    let url = match &shown {
        Some(t) => format!("http://{host}/?token={t}"),
        None => format!("http://{host}/ (the token is the one in --token-file)"),
    };
    // The file first: whoever reads the line on stderr finds the file written.
    if let Some(state) = &options.state {
        write_url(state, &url);
    }
    eprintln!("toolregistry mcp: console: {url}");
    let console = Arc::new(Console {
        context,
        token,
        csrf: random_token()?,
        cookie: format!("toolregistry_console_{}", bound.port()),
        bound,
    });
    let app = axum::Router::new()
        .route("/", axum::routing::get(page::index))
        .route("/console.js", axum::routing::get(page::script))
        .route("/console.css", axum::routing::get(page::style))
        .route("/api/session", axum::routing::get(api::session))
        .route("/api/overview", axum::routing::get(api::overview))
        .route("/api/servers", axum::routing::get(api::servers))
        .route("/api/tools", axum::routing::get(api::tools))
        .route("/api/quarantine", axum::routing::get(api::quarantine))
        .route("/api/calls", axum::routing::get(api::calls))
        .route("/api/config", axum::routing::get(api::config))
        .route("/api/search", axum::routing::get(api::search))
        .route("/api/approve", axum::routing::post(api::approve))
        .route("/api/sign-in", axum::routing::post(api::sign_in))
        .fallback(|| async { plain(StatusCode::NOT_FOUND, "Not Found\n") })
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&console),
            gate,
        ))
        .with_state(console);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("toolregistry mcp: console: {e}");
        }
    });
    Ok(())
}

/// Writes the URL to `console-url` beside the state file, readable by the user alone.
fn write_url(state: &Path, url: &str) {
    let Some(folder) = state.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return;
    };
    let path = folder.join("console-url");
    let written = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(folder)?;
        let _ = std::fs::remove_file(&path);
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        use std::io::Write;
        let mut file = options.open(&path)?;
        file.write_all(format!("{url}\n").as_bytes())
    })();
    if let Err(e) = written {
        eprintln!("toolregistry mcp: console: writing {}: {e}", path.display());
    }
}

/// A text answer.
fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// Equal digests, in time independent of the contents.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The value of `name` in a query string (`a=1&b=2`), percent-decoded.
pub fn query_value(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    })
}

/// `%XX` and `+` decoded; invalid escapes kept as they are, invalid UTF-8 replaced.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a `Host` value names a listener bound at `bound`: a loopback name, or an IP literal of
/// it (any IP when bound to all of them). A DNS name that is not `localhost` could be a DNS
/// rebinding of a page elsewhere onto 127.0.0.1.
fn host_allowed(host: &str, bound: SocketAddr) -> bool {
    let name = match host.strip_prefix('[') {
        // `[::1]:8766` (brackets around an IPv6 address, then maybe a port).
        Some(rest) => match rest.split_once(']') {
            Some((ip, tail)) if tail.is_empty() || tail.starts_with(':') => ip,
            _ => return false,
        },
        // `127.0.0.1:8766`, `localhost`; a bare IPv6 address has colons and no port.
        None => match host.rsplit_once(':') {
            Some((h, _)) if !h.contains(':') => h,
            _ => host,
        },
    };
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match name.parse::<IpAddr>() {
        Ok(ip) if ip.is_loopback() => true,
        Ok(ip) => bound.ip().is_unspecified() || ip == bound.ip(),
        Err(_) => false,
    }
}

impl Console {
    /// Whether `Host` names this listener (see [`host_allowed`]).
    fn host_ok(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|host| host_allowed(host, self.bound))
    }

    /// Whether an `Origin`, when sent, is this console's own page (`http://` + the Host asked).
    fn origin_ok(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get(header::ORIGIN) else {
            return true;
        };
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        origin
            .to_str()
            .is_ok_and(|o| o.eq_ignore_ascii_case(&format!("http://{host}")))
    }

    /// The token the request carries: `Authorization: Bearer`, the cookie, or `?token=`.
    fn token_given(&self, request: &Request) -> Option<String> {
        let headers = request.headers();
        if let Some(v) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
        {
            if let Some((scheme, t)) = v.split_once(' ') {
                if scheme.eq_ignore_ascii_case("bearer") {
                    return Some(t.trim().to_string());
                }
            }
        }
        for cookies in headers.get_all(header::COOKIE) {
            let Ok(cookies) = cookies.to_str() else {
                continue;
            };
            for c in cookies.split(';') {
                if let Some((k, v)) = c.trim().split_once('=') {
                    if k == self.cookie {
                        return Some(v.to_string());
                    }
                }
            }
        }
        request.uri().query().and_then(|q| query_value(q, "token"))
    }

    fn authorized(&self, request: &Request) -> bool {
        self.token_given(request).is_some_and(|t| {
            let digest: [u8; 32] = Sha256::digest(t.as_bytes()).into();
            same(&digest, &self.token)
        })
    }
}

/// In front of every route: Host, token, Origin, CSRF; then the security headers on the answer.
async fn gate(State(console): State<Arc<Console>>, request: Request, next: Next) -> Response {
    let mut response = check(&console, request, next).await;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn check(console: &Console, request: Request, next: Next) -> Response {
    if !console.host_ok(request.headers()) {
        return plain(
            StatusCode::FORBIDDEN,
            "Forbidden: the Host header does not name this console\n",
        );
    }
    if !console.origin_ok(request.headers()) {
        return plain(
            StatusCode::FORBIDDEN,
            "Forbidden: a request from another origin\n",
        );
    }
    if !console.authorized(&request) {
        return (
            StatusCode::UNAUTHORIZED,
            [
                (header::WWW_AUTHENTICATE, "Bearer"),
                (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            ],
            "Unauthorized: open the console with the URL the gateway printed \
             (console: http://...?token=...), or send Authorization: Bearer TOKEN\n",
        )
            .into_response();
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let given = request
            .headers()
            .get(CSRF_HEADER)
            .map(|v| v.as_bytes())
            .unwrap_or_default();
        if !same(given, console.csrf.as_bytes()) {
            return plain(
                StatusCode::FORBIDDEN,
                "Forbidden: a change needs the page's CSRF token (X-Console-Csrf; \
                 GET /api/session gives it)\n",
            );
        }
    }
    // The page opened with ?token=: the token moves into a cookie and out of the address bar
    // (and of the history).
    if request.method() == Method::GET
        && request.uri().path() == "/"
        && request
            .uri()
            .query()
            .and_then(|q| query_value(q, "token"))
            .is_some()
    {
        let token = console.token_given(&request).unwrap_or_default();
        let cookie = format!(
            "{}={token}; Path=/; HttpOnly; SameSite=Strict",
            console.cookie
        );
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::SEE_OTHER;
        response
            .headers_mut()
            .insert(header::LOCATION, HeaderValue::from_static("/"));
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, v);
        }
        return response;
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_decoded() {
        assert_eq!(
            query_value("q=get+the%20time&top_k=3", "q").as_deref(),
            Some("get the time")
        );
        assert_eq!(query_value("q=a%2", "q").as_deref(), Some("a%2"));
        assert_eq!(query_value("q=%zz", "q").as_deref(), Some("%zz"));
        assert_eq!(query_value("x=1", "q"), None);
        assert_eq!(query_value("q=%C3%A9", "q").as_deref(), Some("é"));
    }

    #[test]
    fn hosts() {
        let loopback: SocketAddr = "127.0.0.1:8766".parse().unwrap();
        let any: SocketAddr = "0.0.0.0:8766".parse().unwrap();
        let lan: SocketAddr = "192.168.1.5:8766".parse().unwrap();
        for ok in [
            "127.0.0.1:8766",
            "localhost:8766",
            "LOCALHOST",
            "[::1]:8766",
            "::1",
            "127.0.0.2",
        ] {
            assert!(host_allowed(ok, loopback), "{ok}");
        }
        for bad in [
            "evil.example:8766",
            "localhost.evil.example",
            "127.0.0.1.nip.io:8766",
            "",
            "[::1",
            "10.0.0.1:8766",
        ] {
            assert!(!host_allowed(bad, loopback), "{bad}");
        }
        assert!(host_allowed("10.0.0.1:8766", any));
        assert!(!host_allowed("intranet.example:8766", any));
        assert!(host_allowed("192.168.1.5:8766", lan));
        assert!(!host_allowed("192.168.1.6:8766", lan));
    }

    #[test]
    fn tokens_are_random_hex() {
        let a = random_token().unwrap();
        let b = random_token().unwrap();
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
