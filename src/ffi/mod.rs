//! The C ABI: the only module with `unsafe` code.
//!
//! Conventions (the header repeats them): every fallible function returns [`tr_status`] and takes
//! `char **err_out` last. `err_out` may be NULL; on failure it receives a one-line UTF-8 message that
//! the caller frees with [`tr_string_free`]. Output parameters are written only on success, and a
//! failed call changes nothing. There is no thread-local error state. Every export catches panics
//! (`TR_STATUS_PANIC`). All strings are NUL-terminated UTF-8.
//!
//! Layout: `boundary` (panic and error boundary), `status` (codes), `strings` (C strings in and
//! out), then one file per handle type.

#![allow(unsafe_code, non_camel_case_types)]

mod boundary;
mod call;
mod conversation;
mod discoverer;
mod embedder;
mod registry;
mod status;
mod steps;
mod strings;
#[cfg(feature = "test-hooks")]
mod test_hooks;

pub use call::*;
pub use conversation::*;
pub use discoverer::*;
pub use embedder::*;
pub use registry::*;
pub use status::{tr_status, tr_status_name};
pub use steps::*;
pub use strings::tr_string_free;
#[cfg(feature = "test-hooks")]
pub use test_hooks::*;

use std::ffi::c_char;

/// The library version, e.g. `"0.1.0"`. Static: do not free. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tr_version() -> *const c_char {
    static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}
