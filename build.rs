//! Build script: gives the C shared library a versioned SONAME on Linux.
//!
//! Cargo sets no SONAME for a cdylib, so a program linked against `libtoolregistry.so` would record
//! whatever path the linker saw (often an absolute build path) instead of a name the loader can
//! resolve through the usual search path. We follow cargo-c's convention: `libtoolregistry.so.MAJOR`
//! from 1.0 on, and `libtoolregistry.so.0.MINOR` before 1.0, because under Cargo's semver rules a
//! 0.x minor bump may break compatibility, so 0.1 and 0.2 must not share a SONAME.
//!
//! This script only prints linker arguments; it never writes files (in particular not into the
//! source tree).

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    let major = env::var("CARGO_PKG_VERSION_MAJOR").expect("cargo sets CARGO_PKG_VERSION_MAJOR");
    let minor = env::var("CARGO_PKG_VERSION_MINOR").expect("cargo sets CARGO_PKG_VERSION_MINOR");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,-soname,{}",
        soname(&major, &minor)
    );
}

/// The SONAME for a version: `libtoolregistry.so.0.MINOR` before 1.0, `libtoolregistry.so.MAJOR` after.
fn soname(major: &str, minor: &str) -> String {
    if major == "0" {
        format!("libtoolregistry.so.0.{minor}")
    } else {
        format!("libtoolregistry.so.{major}")
    }
}
