//! The command-line program's tests: the program as a user runs it, built by cargo for this test
//! binary (`CARGO_BIN_EXE_toolregistry`). One binary with a module per file, as `tests/it/`.
//!
//! Run one file's tests with a module filter: `cargo test --release -p toolregistry-cli --test cli readme::`.

#[cfg(feature = "mcp")]
mod console;
mod eval;
mod filters;
mod program;
mod readme;
