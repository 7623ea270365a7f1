//! The page: plain HTML, CSS and JavaScript written for the console, embedded in the binary
//! (no build step, nothing fetched at build or run time).

use super::Console;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

const HTML: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/console.js");
const STYLE: &str = include_str!("page/console.css");

/// `GET /`: the page, with the CSRF token its POSTs carry (hex: nothing to escape).
pub async fn index(State(c): State<Arc<Console>>) -> Response {
    let html = HTML
        .replace("{{CSRF}}", &c.csrf)
        .replace("{{VERSION}}", toolregistry::VERSION);
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

/// `GET /console.js`.
pub async fn script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        SCRIPT,
    )
        .into_response()
}

/// `GET /console.css`.
pub async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}
