//! `tr_discoverer`: a standalone search handle over a registry.

use super::boundary::{Failure, run, run_silently};
use super::registry::{registry_ref, tr_registry};
use super::status::tr_status;
use super::strings::{arg_str, null_argument, opt_arg_str, out_ptr, write_string};
use crate::discovery::{DiscoverRequest, Discoverer, DiscoveryOptions};
use std::ffi::c_char;

/// A discoverer: ranking options bound to a registry's live state.
///
/// Opaque. It follows every change to its registry by itself and keeps the registry state alive,
/// so the two may be freed in any order. Thread-safe: discovers from many threads run in parallel.
pub struct tr_discoverer {
    inner: Discoverer,
}

unsafe fn discoverer_ref<'a>(d: *const tr_discoverer) -> Result<&'a Discoverer, Failure> {
    // SAFETY: `d` is NULL or a live handle from `tr_discoverer_new`.
    unsafe { d.as_ref() }
        .map(|d| &d.inner)
        .ok_or_else(|| null_argument("discoverer"))
}

/// Creates a discoverer on `r` with its own ranking options.
///
/// `options_json` may be NULL or discovery options as for `tr_registry_enable_discovery`; the
/// default profile is `enhanced` (`hybrid` on a registry with an embedder), `{"profile":
/// "reference"}` gives exactly the Python reference's ranking. On success `*out` receives the
/// handle; free it with `tr_discoverer_free`.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (also `"profile":
/// "hybrid"` on a registry without an embedder).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_discoverer_new(
    r: *mut tr_registry,
    options_json: *const c_char,
    out: *mut *mut tr_discoverer,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r as *const tr_registry) }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(out, "out")?;
        let inner = registry.try_discoverer(DiscoveryOptions::from_json(options)?)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { *out = Box::into_raw(Box::new(tr_discoverer { inner })) };
        Ok(())
    })
}

/// Finds tools by exact name, natural-language query, or `select:a,b,c`.
///
/// A query equal to an enabled tool's name (or equal after lowercasing and reading `/` and `-` as
/// `_`) returns that tool alone with score 1.0 and its schema. A query `select:a,b,c` returns the
/// tools so named (by the same tolerant exact match), in that order, each with score 1.0 and its
/// schema; unknown names are skipped, and filters and `top_k` do not apply. Otherwise the BM25F
/// ranking, best first. `options_json` may be NULL or `{"top_k"?: int >= 1 (default 10),
/// "api_format"?: str, "namespaces"?: [str], "tags"?: [str], "deferred"?: bool, "strict"?:
/// bool, "max_tokens"?: int >= 1}`. `max_tokens` bounds the answer's size, estimated as its UTF-8
/// bytes / 4 rounded up: hits keep their schemas while the answer fits, then come as name and
/// first sentence of the description (no schema), then stop; the top hit is always returned (cut
/// if need be), so a budget smaller than its summary is exceeded by that hit alone. The filters choose the tools that may answer before ranking and `top_k`:
/// `namespaces`, registered under one of these namespaces; `tags`, carrying any of these tags
/// (both compared ignoring ASCII case); `deferred`, only deferred (true) or only loaded (false)
/// tools. Scores are the same as without a filter. An exact-name match that does not pass the
/// filters is ranked like any query.
/// On success `*json_out` receives `[{"name", "description", "score", "namespace", "deferred",
/// "intent"?, "schema"?, "warning"?}]`: `intent` only when the query held several needs, the need
/// this hit answers as the query words it (its score is then the merged score, in [0, 1]); the
/// schema for an exact match and for deferred tools, cleaned as by
/// `tr_registry_get_schemas`); free it with `tr_string_free`. With `"strict": true` (openai-chat
/// or openai-responses only) schemas are in OpenAI strict mode; a hit whose schema cannot be
/// strict gets it non-strict plus a `"warning"` saying why.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (empty or whitespace-only
/// query, top_k 0, strict with anthropic or gemini), TOO_LARGE (query over 64 KiB). A longer query
/// than `TR_MAX_QUERY_TOKENS` analyzed tokens is answered from its first `TR_MAX_QUERY_TOKENS`
/// tokens, not refused.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_discoverer_discover(
    d: *const tr_discoverer,
    query: *const c_char,
    options_json: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let discoverer = unsafe { discoverer_ref(d) }?;
        let query = unsafe { arg_str(query, "query") }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = discoverer.discover_json(query, &DiscoverRequest::from_json(options)?)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Explains how `query` ranks the tool `tool_name`: what a tool author needs to fix a
/// description or search hint.
///
/// Runs the discoverer's own analysis, filter and scoring (so it agrees with
/// `tr_discoverer_discover`) and reports the analyzed query tokens with the filter's verdicts, the
/// tool's score taken apart per token and per field, its rank, or why it is not in the answer.
/// `options_json` may be NULL or `{"top_k"?: int >= 1 (default 10)}` as for discover
/// (`api_format`, `strict` and the filters are accepted and ignored: explain ranks the whole catalog). On success `*json_out` receives, for example:
///
/// ```json
/// {"query": "convert currency", "profile": "reference", "exact_match": null,
///  "tokens": [{"token": "convert", "df": 17, "df_ratio": 0.0085, "kept": true, "reason": null},
///             {"token": "currency", "df": 16, "df_ratio": 0.0080, "kept": true, "reason": null}],
///  "scored_tokens": ["convert", "currency"], "analyzed_token_count": 2, "truncated": null,
///  "top_k": 10, "best_score": 29.18,
///  "score_floor": 8.76, "result_count": 10,
///  "tool": {"name": "convert_currency", "outcome": "ranked", "reason": "ranked 2 of 10 in the answer",
///           "indexed": true, "score": 28.60, "rank": 2,
///           "terms": [{"token": "convert", "df": 17, "idf": 4.74, "catalog_idf": 4.74, "weighted_tf": 3.0, "tf_norm": 2.83,
///                      "query_weight": 1.0, "score": 13.42, "fields": [{"field": "name", "tf": 1, "weight": 3.0, "score": 13.42}]},
///                     {"token": "currency", "df": 16, "idf": 4.80, "catalog_idf": 4.80, "weighted_tf": 7.0, "tf_norm": 3.16,
///                      "query_weight": 1.0, "score": 15.17, "fields": [{"field": "name", "tf": 1, "weight": 3.0, "score": 6.50},
///                                                 {"field": "description", "tf": 2, "weight": 2.0, "score": 8.67}]}]}}
/// ```
///
/// (the embedded BFCL catalog of the CLI, numbers shortened). A dropped token has `"kept": false`
/// and a `reason` (stopword, or filler with its df and ratio). `outcome` is one of `ranked`,
/// `exact_match`, `other_exact_match` (the query is another tool's exact name), `disabled` (not
/// indexed), `no_query_tokens` (the filter left nothing to score), `no_common_token`,
/// `below_top_k` (`rank` says where it is) and `below_score_floor` (compare `score` with
/// `score_floor`). A term's `score` is `idf × query_weight × tf_norm`; `query_weight` is 1 unless the
/// token repeats in the query (enhanced profile: each of its `n` occurrences, one term each,
/// weighs `(k1+1)/(n+k1)`, together `n·(k1+1)/(n+k1)`). `catalog_idf` is the token's IDF in the
/// catalog alone; `idf` is lower only in the enhanced profile, for a word more common in general
/// English than in the catalog ("want", "current"), whose IDF the background model discounts. A field's
/// `score` is the token's score times that field's share of the term frequency as scored (by weight,
/// and in the enhanced profile also by the field's own length normalization). When the query has more than `TR_MAX_QUERY_TOKENS` analyzed tokens
/// (`analyzed_token_count`), `tokens` lists the first that many, the ones used, and `truncated` is
/// a sentence saying so (else null). `intents` lists the query's needs when it holds several
/// (`{"text", "relative_score": number|null, "rank": int|null}`: the tool's score relative to that need's
/// best and its rank there) and `tool.intent` the need the tool answers; both are empty or null
/// for a query of one need. Free `*json_out` with `tr_string_free`. Read-only and
/// thread-safe like discover.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (empty or whitespace-only
/// query, top_k 0), NOT_FOUND (no tool named `tool_name` is registered), TOO_LARGE.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_discoverer_explain(
    d: *const tr_discoverer,
    query: *const c_char,
    tool_name: *const c_char,
    options_json: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let discoverer = unsafe { discoverer_ref(d) }?;
        let query = unsafe { arg_str(query, "query") }?;
        let tool_name = unsafe { arg_str(tool_name, "tool_name") }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(json_out, "json_out")?;
        let json =
            discoverer.explain_json(query, tool_name, &DiscoverRequest::from_json(options)?)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Rebuilds the search index from the registry. Never required (the index is kept in step
/// incrementally); safe at any time and changes no answer.
/// Errors: NULL_ARGUMENT, INTERNAL.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_discoverer_rebuild_index(
    d: *mut tr_discoverer,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let discoverer = unsafe { discoverer_ref(d) }?;
        Ok(discoverer.rebuild_index()?)
    })
}

/// Frees a discoverer. NULL is a no-op. May be called before or after `tr_registry_free` of its
/// registry. Do not use `d` afterwards, nor free it twice.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_discoverer_free(d: *mut tr_discoverer) {
    run_silently(|| {
        if !d.is_null() {
            // SAFETY: `d` came from `tr_discoverer_new` and is freed once.
            drop(unsafe { Box::from_raw(d) });
        }
    });
}
