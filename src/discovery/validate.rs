//! Validate, the first stage of a discover: the query, the request and the profile are checked
//! once, before anything is looked up.

use super::{DiscoverRequest, DiscoveryOptions, Profile};
use crate::error::{Error, Result};
use crate::limits::MAX_QUERY_BYTES;
use crate::registry::{Shared, missing_embedder};

/// The profile `options` rank with on this registry (its options' profile, or `hybrid` when they
/// name none and the registry has an embedder), or an error when they name `hybrid` and the
/// registry has no embedder.
pub(crate) fn profile(shared: &Shared, options: &DiscoveryOptions) -> Result<Profile> {
    let with = shared.embedding().is_some();
    let p = options.effective_profile(with);
    if p == Profile::Hybrid && !with {
        return Err(missing_embedder());
    }
    Ok(p)
}

/// Checks a discover: the profile is available, the query is valid, `top_k` is at least 1. The
/// profile comes first, as a discoverer's options are wrong for every query.
pub(crate) fn validate(
    shared: &Shared,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
) -> Result<Profile> {
    let profile = profile(shared, options)?;
    validate_query(query)?;
    if request.top_k < 1 {
        return Err(Error::invalid("top_k: must be at least 1"));
    }
    Ok(profile)
}

/// Checks a query: non-empty, not only whitespace, within the size limit.
pub fn validate_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(Error::invalid(
            "query: empty; pass a tool name or a capability keyword such as \"web search\"",
        ));
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(Error::TooLarge(format!(
            "query: {} bytes; the limit is {MAX_QUERY_BYTES}",
            query.len()
        )));
    }
    Ok(())
}
