//! Host embedders: how a C host gives the registry its vectors (an embedding API, an ONNX
//! model, anything), and how it waits for and inspects the embedding of its catalog.
//!
//! No string or buffer crosses allocators: the library owns the texts and the output buffer of
//! each call; the host writes its numbers and, on failure, a message into buffers the library
//! gives it.

use super::boundary::run;
use super::call::{UserData, tr_free_fn};
use super::registry::{registry_ref, tr_registry};
use super::status::tr_status;
use super::strings::{opt_arg_str, out_ptr, write_string};
use crate::embed::{HostEmbedFn, HostEmbedder, PullEmbedder};
use crate::error::Error;
use crate::limits::{kind_of, object_or_null, parse_json};
use std::ffi::{CString, c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

/// Room for a host embedder's error message, NUL included; a longer one is cut.
const ERROR_CAP: usize = 1024;

/// A host function that embeds a batch of texts.
///
/// `texts` holds `count` NUL-terminated UTF-8 strings, owned by the library and valid only during
/// the call. Write `count * dim` numbers into `vectors` (row by row: text 0's vector first; the
/// library normalizes them to unit length) and return 0. On failure return any other value and
/// write a NUL-terminated message of at most `error_cap` bytes (1024) into `error`.
/// A vector left unwritten, with a NaN or an infinity, or all zeros, fails its batch too.
///
/// A failed batch never fails a registry call: its tools stay findable by words (see
/// `tr_registry_embedding_status`); a failed query falls back to the words alone.
///
/// Threads: called on the registry's embedding thread (the catalog's tools, in batches of up to
/// 64) and on the thread of a discover that ranks with `hybrid` (its query, one text), possibly
/// at the same time. No library lock is held while it runs: it may call any function of this
/// library, on the same registry too. It must not unwind (C++ exceptions, Rust panics, longjmp)
/// into the library: catch them and return non-zero.
pub type tr_embed_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        texts: *const *const c_char,
        count: usize,
        vectors: *mut f32,
        dim: usize,
        error: *mut c_char,
        error_cap: usize,
    ) -> i32,
>;

/// The host's embed function and data; dropping the last reference frees the data, never while
/// a call runs.
struct HostEmbed {
    function: unsafe extern "C" fn(
        *mut c_void,
        *const *const c_char,
        usize,
        *mut f32,
        usize,
        *mut c_char,
        usize,
    ) -> i32,
    user_data: UserData,
    dim: usize,
}

impl HostEmbed {
    fn embed(&self, texts: &[&str]) -> Result<Vec<f32>, String> {
        let owned: Vec<CString> = texts
            .iter()
            .map(|t| CString::new(*t))
            .collect::<Result<_, _>>()
            .map_err(|_| "a text contains a NUL byte".to_string())?;
        let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        // NaN until written: a host that reports success without writing is caught.
        let mut out = vec![f32::NAN; texts.len() * self.dim];
        let mut error = vec![0u8; ERROR_CAP];
        // SAFETY: the host's function, called with its own user data and buffers that are valid
        // and of the stated sizes for the duration of the call, per the `tr_embed_fn` contract.
        let rc = unsafe {
            (self.function)(
                self.user_data.ptr,
                ptrs.as_ptr(),
                ptrs.len(),
                out.as_mut_ptr(),
                self.dim,
                error.as_mut_ptr().cast(),
                error.len(),
            )
        };
        if rc != 0 {
            // The host may have filled the whole buffer without a NUL: read up to the first one.
            let end = error.iter().position(|&b| b == 0).unwrap_or(error.len());
            let msg = String::from_utf8_lossy(&error[..end]).into_owned();
            return Err(if msg.is_empty() {
                format!("returned {rc} without a message")
            } else {
                msg
            });
        }
        Ok(out)
    }
}

/// Sets the registry's embedder to a host function; the registry then ranks with the `hybrid`
/// profile wherever the discovery options name no profile.
///
/// `options_json` is `{"dim": int (1..8192, the length of every vector), "identity"?: str (names
/// the model for the vector cache; default "host:<dim>"), "cache_path"?: str (a file keeping
/// text-hash -> vector across restarts; a corrupt or foreign file is ignored and rewritten),
/// "pull"?: bool}`. With `"pull": true`, `fn` must be NULL: the host has no callback and pulls
/// the texts with `tr_registry_take_embedding_jobs` and gives their vectors back with
/// `tr_registry_put_embeddings`, whenever it has them (an async host); a discover that ranks with
/// `hybrid` then needs the query's vector as its option `query_vector` (without it, that query is
/// ranked by words).
/// It replaces any embedder the registry had (the old one's `free_user_data` runs once no call
/// of it is running) and every enabled tool is embedded again, on the registry's embedding
/// thread, in batches; discovers never wait for it (a tool not embedded yet is found by words).
///
/// Ownership: the registry owns `user_data` from this call on, also when it fails; it calls
/// `free_user_data` (if not NULL) exactly once, when no call of `fn` is running: when the
/// embedder is replaced (on whichever thread lets go of it last: the replacing call, or a
/// discover or the embedding thread still using it), or else before the free of the last of the
/// registry and its discoverers returns, on that thread (the free waits for the embedding
/// thread's current batch). See `tr_embed_fn` for threads and re-entrancy.
/// Errors: NULL_ARGUMENT (`r`, `fn` without `pull`, `options_json`), INVALID_UTF8, INVALID_JSON,
/// INVALID_ARGUMENT (bad or missing `dim`, unknown key, `fn` with `pull`), INTERNAL (no thread
/// could be started).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_set_embedder(
    r: *mut tr_registry,
    options_json: *const c_char,
    r#fn: tr_embed_fn,
    user_data: *mut c_void,
    free_user_data: tr_free_fn,
    err_out: *mut *mut c_char,
) -> tr_status {
    let user_data = UserData {
        ptr: user_data,
        free: free_user_data,
    };
    run(err_out, move || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        // SAFETY: caller passes NULL or a NUL-terminated string.
        let text = unsafe { opt_arg_str(options_json, "options_json") }?
            .ok_or_else(|| super::strings::null_argument("options_json"))?;
        let (dim, identity, cache, pull) = parse_embedder_options(text)?;
        if pull {
            if r#fn.is_some() {
                return Err(Error::invalid(
                    "fn: must be NULL with \"pull\": true (the host pulls the texts instead)",
                )
                .into());
            }
            let embedder = PullEmbedder::new(dim, &identity)?;
            registry.set_embedder(Arc::new(embedder), cache.as_deref())?;
            return Ok(());
        }
        let function = r#fn.ok_or_else(|| super::strings::null_argument("fn"))?;
        let host = HostEmbed {
            function,
            user_data,
            dim,
        };
        let f: HostEmbedFn = Arc::new(move |texts: &[&str]| host.embed(texts));
        let embedder = HostEmbedder::new(dim, &identity, f)?;
        registry.set_embedder(Arc::new(embedder), cache.as_deref())?;
        Ok(())
    })
}

/// `{"dim", "identity"?, "cache_path"?, "pull"?}`.
#[allow(clippy::type_complexity)]
fn parse_embedder_options(
    text: &str,
) -> Result<(usize, String, Option<std::path::PathBuf>, bool), Error> {
    let value = parse_json(text, "embedder options")?;
    let obj = object_or_null(&value, "options")?
        .ok_or_else(|| Error::invalid("options: expected an object with \"dim\""))?;
    let mut dim = None;
    let mut identity = String::new();
    let mut cache = None;
    let mut pull = false;
    for (key, v) in obj {
        let here = format!("options.{key}");
        match key.as_str() {
            "dim" => {
                dim = Some(
                    v.as_u64()
                        .filter(|&n| n >= 1 && n as usize <= crate::embed::MAX_DIM)
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "{here}: expected an integer from 1 to {}, got {v}",
                                crate::embed::MAX_DIM
                            ))
                        })? as usize,
                )
            }
            "identity" | "cache_path" => {
                let s = v.as_str().ok_or_else(|| {
                    Error::invalid(format!("{here}: expected a string, got {}", kind_of(v)))
                })?;
                if key == "identity" {
                    identity = s.to_string();
                } else if !s.is_empty() {
                    cache = Some(std::path::PathBuf::from(s));
                }
            }
            "pull" => {
                pull = v.as_bool().ok_or_else(|| {
                    Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                })?
            }
            _ => {
                return Err(Error::invalid(format!(
                    "{here}: unknown option (expected dim, identity, cache_path or pull)"
                )));
            }
        }
    }
    let dim = dim.ok_or_else(|| Error::invalid("options.dim: required"))?;
    Ok((dim, identity, cache, pull))
}

/// Waits until every enabled tool has its vector (or its embedding failed), at most
/// `timeout_ms` milliseconds. `*done_out` (may be NULL) receives true when none is left waiting,
/// false on timeout; true at once when the registry has no embedder.
///
/// Discovers never need this (a tool not embedded yet is found by words); it is for a host that
/// wants the catalog's meaning-based ranking before it starts (a one-shot command, a test).
/// Thread-safe; holds no lock while it waits. Errors: NULL_ARGUMENT (`r`), INTERNAL.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_wait_embeddings(
    r: *const tr_registry,
    timeout_ms: u64,
    done_out: *mut bool,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        let done = registry.wait_embeddings(Duration::from_millis(timeout_ms))?;
        if !done_out.is_null() {
            // SAFETY: non-NULL, writable per the contract.
            unsafe { *done_out = done };
        }
        Ok(())
    })
}

/// What the registry's embedder has done, as JSON: `null` without an embedder, else
/// `{"embedder": str (its identity), "dim": int, "ready": int (enabled tools with their vector),
/// "pending": int (waiting for it), "failed": int (the embedder failed on them: found by words
/// until their text changes), "embedded": int (vectors computed since the embedder was set; the
/// others came from the cache), "warnings": [str] (the last ones: a cache file ignored, a batch
/// that failed)}`. Free it with `tr_string_free`. Thread-safe.
/// Errors: NULL_ARGUMENT (`r`, `json_out`), INTERNAL.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_embedding_status(
    r: *const tr_registry,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = registry
            .embedding_status()?
            .map_or_else(|| "null".to_string(), |s| s.to_json());
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// The pull model: up to `max` texts (0: 64) that wait for their vectors, as JSON `[{"id": int,
/// "text": str}]` in `*jobs_json_out` (`[]` when none waits now); free it with `tr_string_free`.
/// A taken text is not offered again: give its vector (or an error) with
/// `tr_registry_put_embeddings`. Until then its tools are found by words, and
/// `tr_registry_wait_embeddings` waits for it. Thread-safe; never blocks.
/// Errors: NULL_ARGUMENT, INVALID_ARGUMENT (the registry's embedder is not pulled: see
/// `tr_registry_set_embedder`), INTERNAL.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_take_embedding_jobs(
    r: *mut tr_registry,
    max: usize,
    jobs_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        let out = out_ptr(jobs_json_out, "jobs_json_out")?;
        let json = registry.take_embedding_jobs_json(if max == 0 { 64 } else { max })?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// The pull model: the host's vectors for texts of `tr_registry_take_embedding_jobs`, as JSON
/// `[{"id": int, "vector": [number, ... dim of them]} | {"id": int, "error": str}]`, in any
/// order and any grouping. The library normalizes each vector. An error fails the batch the text
/// was in (its tools are found by words until their text changes, as with a failed callback).
/// All entries are checked first: a vector of the wrong length, with a NaN or an infinity, or all
/// zeros is INVALID_ARGUMENT naming its index, and nothing is applied. Ids that no batch waits
/// for (answered already, or the embedder was replaced) are ignored. Thread-safe.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, TOO_LARGE, INVALID_ARGUMENT.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_put_embeddings(
    r: *mut tr_registry,
    results_json: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let results = unsafe { super::strings::arg_str(results_json, "results_json") }?;
        registry.put_embeddings_json(results)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedder_options_are_checked() {
        assert_eq!(
            parse_embedder_options(r#"{"dim": 3}"#).unwrap(),
            (3, String::new(), None, false)
        );
        assert!(
            parse_embedder_options(r#"{"dim": 3, "pull": true}"#)
                .unwrap()
                .3
        );
        for bad in [
            "{}",
            r#"{"dim": 0}"#,
            r#"{"dim": 9000}"#,
            r#"{"dim": "3"}"#,
            r#"{"dim": 3, "x": 1}"#,
            r#"{"dim": 3, "identity": 1}"#,
            r#"{"dim": 3, "pull": 1}"#,
            "[]",
            "null",
        ] {
            assert!(parse_embedder_options(bad).is_err(), "{bad}");
        }
    }
}
