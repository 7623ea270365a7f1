//! Downstream servers over streamable HTTP: the client transport for a config entry with a
//! `"url"` (its headers on every request), and errors worded for the user, a 401 above all.
//!
//! A failed connection, including an expired session (404), is the supervisor's to handle, as
//! for a stdio server that died: the call that met it gets an error result, the connection is
//! dropped, and a new one (a new `initialize`) is made with backoff. rmcp's own re-initialize
//! on 404 is off: under concurrent calls each 404 started its own recovery, and each recovery
//! failed the other calls in flight (BENCHMARKS.md, the load with the server killed).

use super::config::{Remote, ServerConfig};
use axum::http::{HeaderName, HeaderValue};
use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use std::collections::HashMap;

/// The client transport for `remote`. Header values are marked sensitive (kept out of the HTTP
/// stack's debug output); config errors name the header, never its value.
pub fn client(remote: &Remote) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    let config = StreamableHttpClientTransportConfig::with_uri(remote.url.as_str())
        .custom_headers(headers(remote)?)
        .reinit_on_expired_session(false);
    Ok(StreamableHttpClientTransport::from_config(config))
}

/// The config's headers of `remote`, checked, values marked sensitive.
pub fn headers(remote: &Remote) -> Result<HashMap<HeaderName, HeaderValue>, String> {
    let mut headers = HashMap::with_capacity(remote.headers.len());
    for (name, value) in &remote.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("header {name:?}: not a valid header name"))?;
        let mut value = HeaderValue::from_str(value)
            .map_err(|_| format!("header {name:?}: the value is not a valid header value"))?;
        value.set_sensitive(true);
        headers.insert(name, value);
    }
    Ok(headers)
}

/// An rmcp error that may carry an HTTP 401.
pub trait Failure: std::fmt::Display {
    /// Whether the server asked for (other) credentials.
    fn unauthorized(&self) -> bool;

    /// The message, without the transport's Rust type name rmcp puts in front of it.
    fn message(&self) -> String {
        self.to_string()
    }
}

impl Failure for ServiceError {
    fn unauthorized(&self) -> bool {
        self.is_authorization_required()
    }

    fn message(&self) -> String {
        match self {
            ServiceError::TransportSend(e) => format!("the connection failed: {}", e.error),
            other => other.to_string(),
        }
    }
}

impl Failure for ClientInitializeError {
    fn unauthorized(&self) -> bool {
        self.is_authorization_required()
    }

    fn message(&self) -> String {
        match self {
            ClientInitializeError::TransportError { error, context } => {
                format!("the connection failed ({context}): {}", error.error)
            }
            other => other.to_string(),
        }
    }
}

/// [`describe`] for `config`'s server: a 401 of a server that signs in says it needs sign-in
/// and how.
pub fn describe_server(config: &ServerConfig, what: &str, error: &impl Failure) -> String {
    if error.unauthorized()
        && let Some(text) = super::oauth::needs_sign_in(config)
    {
        return format!("{what}: {text}");
    }
    describe(what, error)
}

/// The wording for a failed `what` (`initialize`, `tools/list`, `tools/call`): a 401 says so
/// plainly and points at the config's headers; anything else is rmcp's message. The caller
/// redacts (a message may echo a request).
pub fn describe(what: &str, error: &impl Failure) -> String {
    if error.unauthorized() {
        format!(
            "{what}: unauthorized (HTTP 401): the server refused the credentials in the config's \
             \"headers\" (missing, wrong or expired token)"
        )
    } else {
        format!("{what}: {}", error.message())
    }
}
