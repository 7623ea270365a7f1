//! The `hybrid` profile: the `enhanced` ranking fused with the embedder's cosine similarity.
//!
//! Both lists are cut to their own best [`CANDIDATES`]; each score is min-max normalized over its
//! list (the best is 1, the last candidate 0), and the fused score is their mean, a tool missing
//! from a list scoring 0 there. Equal weights and a list's own range: nothing is fitted to a
//! catalog, and neither a BM25 scale (which grows with the query's length and the catalog's IDF)
//! nor a cosine scale (which differs per model) decides the balance. EVALUATION.md has the
//! ablation, reciprocal rank fusion included.

use super::{DiscoverRequest, DiscoveryOptions, Profile, rank_query};
use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::index::{DocId, ScoredDoc};
use crate::registry::{Shared, State};
use std::sync::Arc;

/// How many of each list's best are fused.
pub const CANDIDATES: usize = 100;

/// How the two lists are fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fusion {
    /// Mean of the min-max normalized scores (the default).
    #[default]
    MinMax,
    /// Reciprocal rank fusion, `1/(60 + rank)` summed: ranks only, no scores.
    Rrf,
    /// The lexical list alone (an ablation).
    LexicalOnly,
    /// The semantic list alone (an ablation).
    SemanticOnly,
}

/// The query's vector, computed before the registry is locked (an embedder runs with no lock
/// held), or why there is none.
#[derive(Debug, Clone)]
pub(crate) enum QueryVector {
    /// The query is not ranked with `hybrid` (another profile, or a name or `select:` query).
    NotNeeded,
    /// The unit vector of the query.
    Vector(Vec<f32>),
    /// The embedder failed on the query: it is ranked by words only.
    Failed(String),
}

/// One fused hit, with what each side gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FusedHit {
    pub doc: DocId,
    pub score: f64,
    /// The lexical (enhanced BM25F) score, when in the lexical candidates.
    pub lexical: Option<f64>,
    /// The cosine similarity, when in the semantic candidates.
    pub cosine: Option<f32>,
}

/// The profile `options` rank with on this registry, or an error when they name `hybrid` and
/// the registry has no embedder.
pub(crate) fn effective_profile(shared: &Shared, options: &DiscoveryOptions) -> Result<Profile> {
    let with = shared.embedding().is_some();
    let p = options.effective_profile(with);
    if p == Profile::Hybrid && !with {
        return Err(missing_embedder());
    }
    Ok(p)
}

/// The error for `hybrid` without an embedder.
pub(crate) fn missing_embedder() -> Error {
    Error::invalid(
        "profile: \"hybrid\" needs an embedder: give the registry options \"embedding\": {\"model_dir\": ...} (a sentence-transformers model; scripts/fetch-model.sh gets one) or set one with tr_registry_set_embedder",
    )
}

/// Embeds `query` when `options` rank it with `hybrid` on this registry; call with no registry
/// lock held.
pub(crate) fn query_vector(
    shared: &Shared,
    options: &DiscoveryOptions,
    query: &str,
) -> Result<QueryVector> {
    if effective_profile(shared, options)? != Profile::Hybrid {
        return Ok(QueryVector::NotNeeded);
    }
    if super::select_names(query).is_some() {
        return Ok(QueryVector::NotNeeded);
    }
    super::validate_query(query)?;
    if shared.read()?.exact_match(query).is_some() {
        return Ok(QueryVector::NotNeeded);
    }
    let Some(embedding) = shared.embedding() else {
        return Err(missing_embedder());
    };
    Ok(embed_query(embedding.embedder(), query))
}

/// The unit vector of `query`, a failure (error or panic) becoming [`QueryVector::Failed`].
pub(crate) fn embed_query(embedder: &Arc<dyn Embedder>, query: &str) -> QueryVector {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| embedder.embed(&[query])))
        .unwrap_or_else(|p| {
            Err(Error::Internal(format!(
                "the embedder panicked: {}",
                crate::error::panic_message(&p)
            )))
        });
    match result {
        Ok(v) if v.len() == embedder.dim() => QueryVector::Vector(v),
        Ok(v) => QueryVector::Failed(format!(
            "the embedder returned {} numbers for one text of dimension {}",
            v.len(),
            embedder.dim()
        )),
        Err(e) => QueryVector::Failed(e.to_string()),
    }
}

/// Ranks `query` with `hybrid`: the best `top_k` admitted tools by fused score, before the
/// score floor. Without a query vector (the embedder failed), the lexical ranking alone.
pub(crate) fn rank_hybrid(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    vector: &QueryVector,
    request: &DiscoverRequest,
    fusion: Fusion,
) -> Result<Vec<FusedHit>> {
    let lexical = DiscoveryOptions {
        profile: Profile::Enhanced,
        profile_named: true,
        ..*options
    };
    let depth = if request.has_filters() {
        state.indexed_count().max(1)
    } else {
        CANDIDATES.max(request.top_k)
    };
    let mut lex = rank_query(state, &lexical, query, depth, 0.0)?.hits;
    lex.retain(|h| h.score > 0.0 && request.admits(state.tool_at(h.doc)));
    lex.truncate(CANDIDATES.max(request.top_k));
    let sem = match (vector, state.vectors()) {
        (QueryVector::Vector(q), Some(store)) if q.len() == store.dim() => store.search(
            q,
            CANDIDATES.max(request.top_k),
            |id| state.is_indexed(id) && request.admits(state.tool_at(id)),
        ),
        _ => Vec::new(),
    };
    let mut fused = fuse(&lex, &sem, fusion);
    fused.truncate(request.top_k);
    Ok(fused)
}

/// Fuses a lexical and a semantic list (each best first) into one, best first; ties by slot.
pub(crate) fn fuse(lex: &[ScoredDoc], sem: &[(DocId, f32)], fusion: Fusion) -> Vec<FusedHit> {
    let mut all: Vec<FusedHit> = Vec::with_capacity(lex.len() + sem.len());
    let norm = |v: f64, max: f64, min: f64| {
        if max > min { (v - min) / (max - min) } else { 1.0 }
    };
    let (lmax, lmin) = bounds(lex.iter().map(|h| h.score));
    let (smax, smin) = bounds(sem.iter().map(|h| h.1 as f64));
    let part = |rank: usize, score: f64, max: f64, min: f64| match fusion {
        Fusion::Rrf => 1.0 / (60.0 + rank as f64 + 1.0),
        _ => norm(score, max, min),
    };
    for (rank, h) in lex.iter().enumerate() {
        all.push(FusedHit {
            doc: h.doc,
            score: part(rank, h.score, lmax, lmin),
            lexical: Some(h.score),
            cosine: None,
        });
    }
    for (rank, &(doc, cos)) in sem.iter().enumerate() {
        let s = part(rank, cos as f64, smax, smin);
        match all.iter_mut().find(|f| f.doc == doc) {
            Some(f) => {
                f.cosine = Some(cos);
                f.score = combine(fusion, f.score, s);
            }
            None => all.push(FusedHit {
                doc,
                score: combine(fusion, 0.0, s),
                lexical: None,
                cosine: Some(cos),
            }),
        }
    }
    for f in all.iter_mut().filter(|f| f.cosine.is_none()) {
        f.score = combine(fusion, f.score, 0.0);
    }
    all.retain(|f| match fusion {
        Fusion::LexicalOnly => f.lexical.is_some(),
        Fusion::SemanticOnly => f.cosine.is_some(),
        _ => true,
    });
    all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
    all
}

/// The fused score from the lexical part `l` and the semantic part `s` (0 for a tool missing
/// from that list).
fn combine(fusion: Fusion, l: f64, s: f64) -> f64 {
    match fusion {
        Fusion::MinMax => (l + s) / 2.0,
        Fusion::Rrf => l + s,
        Fusion::LexicalOnly => l,
        Fusion::SemanticOnly => s,
    }
}

fn bounds(scores: impl Iterator<Item = f64>) -> (f64, f64) {
    scores.fold((f64::NEG_INFINITY, f64::INFINITY), |(mx, mn), s| {
        (mx.max(s), mn.min(s))
    })
}
