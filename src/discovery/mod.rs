//! Discovery: finding tools by exact name or by a query, over a registry's live state.
//!
//! A discover is one pass through five stages with plain data between them, each in its own file:
//!
//! 1. [`validate`]: the profile, the query and `top_k`, checked once.
//! 2. [`plan`]: an exact name, a `select:` list, or a search; a search's needs
//!    ([`intents`]: "convert dollars to euros and tell me the weather in Paris" holds two).
//! 3. [`retrieve`]: for the whole query and each need, the candidates by words ([`lexical`],
//!    BM25F scored in [`crate::index`]) and in `hybrid` by meaning ([`semantic`]).
//! 4. [`fuse`]: each need's words and meaning fused ([`hybrid`], with [`phrases`]), then the
//!    whole query's ranking merged with its needs', cut to `top_k` and the score floor; then the
//!    best hits bring in the tools they are used with, when the evidence is strong ([`usage`]).
//! 5. [`answer`]: the hits as typed values or JSON, within `max_tokens`.
//!
//! `options` holds how to rank and what to ask (parsed from JSON). The query's vectors are
//! computed between the plan and retrieval with no registry lock held: an embedder may be slow,
//! and must never run under the registry's lock.

mod answer;
pub(crate) mod fuse;
pub mod hybrid;
mod intents;
mod lexical;
pub(crate) mod options;
mod phrases;
pub(crate) mod plan;
pub(crate) mod retrieve;
pub(crate) mod semantic;
pub mod usage;
pub(crate) mod validate;

pub use answer::{Hit, hits_to_json};
pub use fuse::WHOLE_WEIGHT;
pub use intents::{MAX_INTENTS, MIN_CONTENT_WORDS};
pub use lexical::{Dropped, QueryToken};
pub use options::*;
pub use plan::{SELECT_PREFIX, select_names};
pub use validate::validate_query;

use crate::error::{Error, Result};
use crate::registry::{Registry, Shared, State};
use answer::Answer;
use plan::Plan;
use std::sync::Arc;

// Searching a registry is discovery's business; the registry only keeps the options.
impl Registry {
    /// Discovers with the options given to [`enable_discovery`](Registry::enable_discovery).
    pub fn discover(&self, query: &str, request: &DiscoverRequest) -> Result<Vec<Hit>> {
        let options = enabled(&*self.shared().read()?)?;
        run(self.shared(), &options, query, request, answer::hits)
    }

    /// Discovers and answers in JSON with the options given to discovery (what `discover_tools`
    /// runs).
    pub fn discover_json(&self, query: &str, request: &DiscoverRequest) -> Result<String> {
        let options = enabled(&*self.shared().read()?)?;
        run(self.shared(), &options, query, request, answer::json)
    }

    /// [`discoverer`](Self::discoverer), refusing options that name `hybrid` on a registry
    /// without an embedder.
    pub fn try_discoverer(&self, options: DiscoveryOptions) -> Result<Discoverer> {
        validate::profile(self.shared(), &options)?;
        Ok(self.discoverer(options))
    }

    /// A standalone discoverer with its own options that follows this registry's changes.
    pub fn discoverer(&self, options: DiscoveryOptions) -> Discoverer {
        Discoverer::new(Arc::clone(self.shared()), options)
    }
}

/// The options `discover_tools` runs with, or NOT_FOUND when discovery is off.
fn enabled(state: &State) -> Result<DiscoveryOptions> {
    state.discovery().ok_or_else(|| {
        Error::not_found("discover_tools: discovery is not enabled on this registry")
    })
}

/// One discover through the stages, its answer written by `write` under the lock it was ranked
/// under. The registry is read-locked to plan; a `hybrid` search lets the lock go while the query
/// is embedded and takes it again to retrieve (its plan holds no slot numbers, so a change in
/// between only changes what it finds).
fn run<T>(
    shared: &Shared,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
    write: impl FnOnce(&State, &Answer<'_>, &DiscoverRequest) -> T,
) -> Result<T> {
    let profile = validate::validate(shared, options, query, request)?;
    let state = shared.read()?;
    let search = match plan::plan(&state, options, profile, query, request) {
        Plan::Exact(doc) => return Ok(write(&state, &Answer::named(vec![doc]), request)),
        Plan::Select(docs) => return Ok(write(&state, &Answer::named(docs), request)),
        Plan::Search(search) => search,
    };
    let (state, vectors) =
        semantic::query_vectors_unlocked(shared, state, query, &search, request)?;
    let lists = retrieve::retrieve(
        &state,
        options,
        query,
        &search,
        &vectors,
        request,
        retrieve::Reach::Answer(options.min_score_ratio),
    )?;
    let mut hits = fuse::fuse(&state, options, &search, &lists, request);
    usage::bring_in(
        &state,
        shared.generation(),
        &shared.usage().read(),
        options,
        &search,
        &lists,
        request,
        &mut hits,
    );
    let answer = Answer {
        hits,
        exact: false,
        intents: search.intents.iter().map(|r| &query[r.clone()]).collect(),
    };
    Ok(write(&state, &answer, request))
}

/// A search handle with its own options over a registry's live state.
///
/// It follows every change to the registry by itself (the index is shared and kept in step), and
/// it keeps the registry state alive, so it may outlive the [`Registry`] handle.
/// `Send + Sync`: discovers from many threads run in parallel.
#[derive(Debug, Clone)]
pub struct Discoverer {
    shared: crate::registry::Handle,
    options: DiscoveryOptions,
}

impl Discoverer {
    pub(crate) fn new(shared: Arc<Shared>, options: DiscoveryOptions) -> Self {
        // The first user of a profile builds its index; from then on mutations keep it in step.
        // A poisoned lock is reported by the first discover instead.
        if let Ok(mut state) = shared.write() {
            state.ensure_index(options.profile.lexical());
        }
        Discoverer {
            shared: crate::registry::Handle::new(shared),
            options,
        }
    }

    /// The options this discoverer ranks with.
    pub fn options(&self) -> &DiscoveryOptions {
        &self.options
    }

    /// Finds tools by exact name or natural-language query.
    pub fn discover(&self, query: &str, request: &DiscoverRequest) -> Result<Vec<Hit>> {
        run(&self.shared, &self.options, query, request, answer::hits)
    }

    /// [`discover`](Self::discover), answered as JSON text.
    pub fn discover_json(&self, query: &str, request: &DiscoverRequest) -> Result<String> {
        run(&self.shared, &self.options, query, request, answer::json)
    }

    /// The profile this discoverer ranks with now: its options' profile, or `hybrid` when they
    /// name none and the registry has an embedder. An error when they name `hybrid` and the
    /// registry has no embedder.
    pub fn profile(&self) -> Result<Profile> {
        validate::profile(&self.shared, &self.options)
    }

    /// The registry state's lock, for callers that embed before they read (explain).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The registry state, read-locked, for the searches of this discoverer (and its explain).
    pub(crate) fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, State>> {
        self.shared.read()
    }

    /// Rebuilds the shared index from the registry. Never needed (upkeep is incremental) and
    /// changes nothing observable; kept for callers of the reference's API.
    pub fn rebuild_index(&self) -> Result<()> {
        self.shared.write()?.rebuild_index();
        Ok(())
    }
}
