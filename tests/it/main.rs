//! The integration tests, as one test binary with a module per file: each file used to be its own
//! binary, and linking about twenty copies of the library with its debug info was most of what
//! `cargo test --release` spent after compiling the crate. One test stays a binary of its own:
//! `tests/header.rs` (its bless command, `cargo test --test header`, is printed into the committed
//! C header, and only it needs cbindgen).
//!
//! Run one file's tests with a module filter: `cargo test --release --test it golden::`.

#[path = "../common/mod.rs"]
mod common;

mod conformance;
mod conversation;
mod conversation_options;
mod eval;
mod execute;
mod explain;
mod ffi;
mod ffi_usage;
mod filters;
mod golden;
mod hybrid;
mod intents;
mod lazy_index;
mod leak_canary;
mod limits;
mod model;
mod monsters;
mod profile;
mod ranking;
mod registry;
mod schema_clean;
mod scripts;
mod stress;
mod usage;
mod usage_store;
