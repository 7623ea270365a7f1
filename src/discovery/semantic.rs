//! Semantic retrieval, a step of the retrieve stage (`hybrid` only): the query's vectors, computed
//! with no registry lock held (an embedder may be slow or call back into the registry), and the
//! tools whose vectors are nearest.

use std::sync::{Arc, RwLockReadGuard};

use super::plan::Search;
use super::{DiscoverRequest, Profile};
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::index::DocId;
use crate::registry::{Shared, State, missing_embedder};

/// A query's vector, or why there is none.
#[derive(Debug, Clone)]
pub(crate) enum QueryVector {
    /// The query is not ranked with `hybrid` (another profile, or a name or `select:` query).
    NotNeeded,
    /// The unit vector of the query.
    Vector(Vec<f32>),
    /// The embedder failed on the query: it is ranked by words only.
    Failed(String),
}

/// The vectors of a search: the whole query's, then each need's (in the plan's order).
#[derive(Debug, Clone)]
pub(crate) struct QueryVectors {
    /// The whole query's.
    pub whole: QueryVector,
    /// Each need's, when the query holds several; [`QueryVector::NotNeeded`] for each when the
    /// host gave the whole query's vector (a pulled embedder: its needs are ranked by words).
    pub intents: Vec<QueryVector>,
}

impl QueryVectors {
    /// No vectors: the search is not `hybrid`.
    pub(crate) fn none() -> Self {
        QueryVectors {
            whole: QueryVector::NotNeeded,
            intents: Vec::new(),
        }
    }
}

/// [`query_vectors`] for a search planned under `state`: the read lock is let go while the
/// encoder runs (an embedding takes milliseconds; registrations must not wait for it) and taken
/// again; a search that is not `hybrid` keeps it and gets no vectors.
pub(crate) fn query_vectors_unlocked<'s>(
    shared: &'s Shared,
    state: RwLockReadGuard<'s, State>,
    query: &str,
    search: &Search,
    request: &DiscoverRequest,
) -> Result<(RwLockReadGuard<'s, State>, QueryVectors)> {
    if search.profile != Profile::Hybrid {
        return Ok((state, QueryVectors::none()));
    }
    drop(state);
    let given = request.query_vector.as_ref().map(|q| &q.0[..]);
    let vectors = query_vectors(shared, query, search, given)?;
    Ok((shared.read()?, vectors))
}

/// The vectors `search` ranks with: none unless it is `hybrid`. The whole query and its needs
/// are embedded in one call. `given` is the query's vector from the request (a pulled embedder).
/// Call with no registry lock held.
pub(crate) fn query_vectors(
    shared: &Shared,
    query: &str,
    search: &Search,
    given: Option<&[f32]>,
) -> Result<QueryVectors> {
    if search.profile != Profile::Hybrid {
        return Ok(QueryVectors::none());
    }
    let Some(embedding) = shared.embedding() else {
        return Err(missing_embedder());
    };
    let embedder = embedding.embedder();
    let not_needed = || vec![QueryVector::NotNeeded; search.intents.len()];
    if let Some(given) = given {
        return Ok(QueryVectors {
            whole: QueryVector::Vector(given_vector(given, embedder.dim())?),
            intents: not_needed(),
        });
    }
    if !embedder.embeds_queries() {
        return Ok(QueryVectors {
            whole: QueryVector::Failed(
                "the embedder is pulled by the host: give the query's vector as the discover option query_vector"
                    .into(),
            ),
            intents: not_needed(),
        });
    }
    let mut texts: Vec<&str> = vec![query];
    texts.extend(search.intents.iter().map(|r| &query[r.clone()]));
    let mut vectors = embed(embedder, &texts).into_iter();
    Ok(QueryVectors {
        whole: vectors.next().unwrap_or(QueryVector::NotNeeded),
        intents: vectors.collect(),
    })
}

/// A host's query vector, checked and made unit length.
fn given_vector(given: &[f32], dim: usize) -> Result<Vec<f32>> {
    if given.len() != dim {
        return Err(Error::invalid(format!(
            "options.query_vector: {} numbers, expected {dim} (the embedder's dim)",
            given.len()
        )));
    }
    let mut v = given.to_vec();
    if !crate::embed::normalize(&mut v) {
        return Err(Error::invalid(
            "options.query_vector: a NaN, an infinity or only zeros",
        ));
    }
    Ok(v)
}

/// The unit vector of each text, in one call; a failure (error, panic, a wrong length) becomes
/// [`QueryVector::Failed`] for every text.
pub(crate) fn embed(embedder: &Arc<dyn Embedder>, texts: &[&str]) -> Vec<QueryVector> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| embedder.embed(texts)))
        .unwrap_or_else(|p| {
            Err(Error::Internal(format!(
                "the embedder panicked: {}",
                crate::error::panic_message(&p)
            )))
        });
    let dim = embedder.dim();
    let failed = |why: String| vec![QueryVector::Failed(why); texts.len()];
    match result {
        Ok(v) if dim > 0 && v.len() == dim * texts.len() => v
            .chunks(dim)
            .map(|c| QueryVector::Vector(c.to_vec()))
            .collect(),
        Ok(v) => failed(format!(
            "the embedder returned {} numbers for {} text(s) of dimension {dim}",
            v.len(),
            texts.len()
        )),
        Err(e) => failed(e.to_string()),
    }
}

/// The `n` admitted tools nearest to `vector`, best first, with their cosines; nothing when the
/// search has no vector or the store another dimension.
pub(crate) fn nearest(
    state: &State,
    vector: &QueryVector,
    request: &DiscoverRequest,
    n: usize,
) -> Vec<(DocId, f32)> {
    let (QueryVector::Vector(q), Some(store)) = (vector, state.vectors()) else {
        return Vec::new();
    };
    if q.len() != store.dim() {
        return Vec::new();
    }
    let filters = request.has_filters();
    store.search(q, n, |id| {
        state.is_indexed(id) && (!filters || request.admits(state.tool_at(id)))
    })
}

/// The cosine of `vector` and the tool in `slot`, when both exist.
pub(crate) fn cosine(state: &State, vector: &QueryVector, slot: DocId) -> Option<f32> {
    match (vector, state.vectors()) {
        (QueryVector::Vector(q), Some(store)) if q.len() == store.dim() => store.cosine(q, slot),
        _ => None,
    }
}
