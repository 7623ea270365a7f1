//! How an explanation is made: the discover's own stages run again, then the named tool's
//! score taken apart.

use super::{
    Explanation, FieldContribution, HybridExplanation, IntentExplanation, Outcome,
    TermContribution, ToolExplanation,
};
use crate::discovery::fuse::{Ranked, merge, need_ranking, score_floor};
use crate::discovery::plan::{Plan, Search};
use crate::discovery::retrieve::CANDIDATES;
use crate::discovery::retrieve::{Lists, Reach, depth, retrieve};
use crate::discovery::semantic::{QueryVector, query_vectors_unlocked};
use crate::discovery::{
    DiscoverRequest, Discoverer, DiscoveryOptions, Profile, plan, usage, validate,
};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, DocId, Index, ScoredDoc};
use crate::registry::State;
use crate::usage::UsageStore;

// Explaining is a view of a discoverer's search, kept beside the explanation it builds (the
// discoverer itself knows nothing of it).
impl Discoverer {
    /// Explains how `query` ranks the tool `tool_name` with this discoverer's options and
    /// `request` (its `top_k` and filters): the analyzed query tokens and the filter's verdicts,
    /// the tool's score taken apart per token and field, its rank, or why it is not in the
    /// answer. An unknown tool is NOT_FOUND; query and `top_k` are checked as for
    /// [`discover`](Self::discover). It runs the same stages as a discover.
    pub fn explain(
        &self,
        query: &str,
        tool_name: &str,
        request: &DiscoverRequest,
    ) -> Result<Explanation> {
        let options = self.options();
        let profile = validate::validate(self.shared(), options, query, request)?;
        let state = self.read()?;
        let slot = slot_of(&state, tool_name)?;
        let mut e = Explanation::new(query, tool_name, profile, state.is_indexed(slot), request);
        let search = match plan::plan(&state, options, profile, query, request) {
            Plan::Exact(doc) => {
                named(&state, &mut e, slot, &[doc], true);
                return Ok(e);
            }
            Plan::Select(docs) => {
                named(&state, &mut e, slot, &docs, false);
                return Ok(e);
            }
            Plan::Search(search) => search,
        };
        let (state, vectors) =
            query_vectors_unlocked(self.shared(), state, query, &search, request)?;
        // The tool may have been unregistered while the lock was let go.
        let slot = slot_of(&state, tool_name)?;
        let lists = retrieve(
            &state,
            options,
            query,
            &search,
            &vectors,
            request,
            Reach::Everything,
        )?;
        let counts = self.shared().usage().read();
        explain_search(
            &state,
            (&counts, self.shared().generation()),
            options,
            query,
            &search,
            &lists,
            request,
            slot,
            &mut e,
        )?;
        drop(counts);
        if search.profile == Profile::Hybrid {
            hybrid_sides(
                &state,
                options,
                &lists,
                &vectors.whole,
                request,
                slot,
                &mut e,
            );
        }
        Ok(e)
    }

    /// [`explain`](Self::explain), as JSON text.
    pub fn explain_json(
        &self,
        query: &str,
        tool_name: &str,
        request: &DiscoverRequest,
    ) -> Result<String> {
        Ok(self.explain(query, tool_name, request)?.to_json())
    }
}

/// The slot of the tool named `name`, or NOT_FOUND.
fn slot_of(state: &State, name: &str) -> Result<DocId> {
    state
        .slot_of(name)
        .ok_or_else(|| Error::not_found(format!("no tool named {name:?} is registered")))
}

impl Explanation {
    /// An explanation with nothing found yet.
    fn new(
        query: &str,
        tool_name: &str,
        profile: Profile,
        indexed: bool,
        request: &DiscoverRequest,
    ) -> Self {
        Explanation {
            query: query.to_string(),
            profile,
            exact_match: None,
            tokens: Vec::new(),
            scored_tokens: Vec::new(),
            analyzed_token_count: 0,
            top_k: request.top_k,
            best_score: None,
            score_floor: None,
            result_count: 0,
            tool: ToolExplanation {
                name: tool_name.to_string(),
                outcome: Outcome::Ranked,
                reason: String::new(),
                indexed,
                score: None,
                rank: None,
                terms: Vec::new(),
                intent: None,
                brought_in: None,
            },
            hybrid: None,
            intents: Vec::new(),
        }
    }
}

/// The explanation of a query that names its tools: an exact name (`exact`) or `select:`.
fn named(state: &State, e: &mut Explanation, slot: DocId, docs: &[DocId], exact: bool) {
    e.result_count = docs.len();
    e.best_score = (!docs.is_empty()).then_some(1.0);
    let t = &mut e.tool;
    if exact {
        e.exact_match = Some(state.tool_at(docs[0]).name().to_string());
    }
    if let Some(pos) = docs.iter().position(|&d| d == slot) {
        t.outcome = Outcome::ExactMatch;
        t.reason = if exact {
            "the query is this tool's name: it is returned alone with score 1.0 and its schema"
                .into()
        } else {
            format!(
                "the query selects this tool by name (select:), in place {}",
                pos + 1
            )
        };
        t.score = Some(1.0);
        t.rank = Some(pos + 1);
    } else if !t.indexed {
        t.outcome = Outcome::Disabled;
        t.reason = "the tool or its namespace is disabled, so it is not indexed (and the query names other tools)".into();
    } else {
        t.outcome = Outcome::OtherExactMatch;
        t.reason = match &e.exact_match {
            Some(name) => {
                format!("the query is the exact name of {name:?}, which is returned alone")
            }
            None => "the query selects other tools by name (select:)".into(),
        };
    }
}

/// Explains a search: the whole query's tokens, the tool's terms, and where the fused (and, for
/// a query of several needs, merged) ranking puts it, after co-use brought its partners in.
#[allow(clippy::too_many_arguments)]
fn explain_search(
    state: &State,
    (counts, version): (&UsageStore, u64),
    options: &DiscoveryOptions,
    query: &str,
    search: &Search,
    lists: &Lists<'_>,
    request: &DiscoverRequest,
    slot: DocId,
    out: &mut Explanation,
) -> Result<()> {
    out.tokens = lists.whole.tokens.tokens.clone();
    out.analyzed_token_count = lists.whole.tokens.analyzed;
    out.scored_tokens = lists.whole.tokens.scored.clone();
    let whole = need_ranking(state, options, search.profile, &lists.whole, request);
    // The full ranking, and the answer exactly as discover computes it.
    let (full, mut answer): (Vec<Ranked>, Vec<Ranked>) = if lists.intents.is_empty() {
        let full: Vec<Ranked> = whole.iter().map(|h| ranked(h.doc, h.score)).collect();
        let mut answer: Vec<Ranked> = full.iter().take(request.top_k).copied().collect();
        answer.retain(|h| h.score > 0.0);
        if let Some(floor) = score_floor(options, answer.first().map(|h| h.score)) {
            answer.retain(|h| h.score >= floor);
        }
        (full, answer)
    } else {
        let needs: Vec<Vec<ScoredDoc>> = lists
            .intents
            .iter()
            .map(|n| need_ranking(state, options, search.profile, n, request))
            .collect();
        let d = depth(request);
        let full = merge(&whole, &needs, d, options.min_score_ratio, usize::MAX);
        let answer = merge(&whole, &needs, d, options.min_score_ratio, request.top_k);
        out.intents = search
            .intents
            .iter()
            .zip(lists.intents.iter().zip(&needs))
            .map(|(range, (list, need))| IntentExplanation {
                text: query[range.clone()].to_string(),
                // In an `enhanced` merge a need's ranking is followed by scores looked up for
                // other lists' candidates: those hold no place in it.
                rank: relative_rank(
                    if search.profile == Profile::Hybrid {
                        need
                    } else {
                        &need[..list.ranked]
                    },
                    slot,
                ),
            })
            .collect();
        let intent = full
            .iter()
            .find(|h| h.doc == slot)
            .and_then(|h| h.intent)
            .map(|i| out.intents[i].text.clone());
        out.tool.intent = intent;
        (full, answer)
    };
    usage::bring_in(
        state,
        version,
        counts,
        options,
        search,
        lists,
        request,
        &mut answer,
    );
    let brought_in = answer.iter().any(|h| h.brought_in.is_some());
    out.best_score = answer.first().map(|h| h.score);
    out.score_floor = match (lists.intents.is_empty(), out.best_score) {
        (true, best) => score_floor(options, best),
        // Several needs: the floor is a share of each ranking's best (1 after the merge's reading).
        (false, Some(_)) if options.min_score_ratio > 0.0 => Some(options.min_score_ratio),
        _ => None,
    };
    out.result_count = answer.len();
    let t = &mut out.tool;
    if !t.indexed {
        t.outcome = Outcome::Disabled;
        t.reason = "the tool or its namespace is disabled, so it is not indexed".into();
        return Ok(());
    }
    t.terms = terms(state, options, &out.scored_tokens, slot)?;
    let fused = search.profile == Profile::Hybrid || !lists.intents.is_empty();
    let what = if !lists.intents.is_empty() {
        "merged"
    } else if search.profile == Profile::Hybrid {
        "fused"
    } else {
        ""
    };
    let rank_word = if what.is_empty() {
        "ranked".to_string()
    } else {
        format!("{what} rank")
    };
    let score_word = if what.is_empty() {
        "score".to_string()
    } else {
        format!("{what} score")
    };
    let in_answer = answer.iter().position(|h| h.doc == slot);
    let in_full = full.iter().position(|h| h.doc == slot);
    if out.scored_tokens.is_empty() && !fused {
        t.outcome = Outcome::NoQueryTokens;
        t.reason =
            "the query filter dropped every token (all filler, none in a tool name): the answer is empty".into();
    } else if let Some(pos) = in_answer {
        t.score = Some(answer[pos].score);
        t.rank = Some(pos + 1);
        t.outcome = Outcome::Ranked;
        t.brought_in = answer[pos].brought_in.map(|b| usage::reason(state, &b));
        t.reason = match &t.brought_in {
            Some(why) => format!(
                "brought in at {} of {} in the answer by co-use: {why}",
                pos + 1,
                answer.len()
            ),
            None => format!("{rank_word} {} of {} in the answer", pos + 1, answer.len()),
        };
    } else if let Some(pos) = in_full {
        let score = full[pos].score;
        t.score = Some(score);
        // Below the answer: its place counts every tool of the answer above it.
        t.rank = Some(pos + 1);
        if pos >= request.top_k || answer.len() >= request.top_k {
            t.outcome = Outcome::BelowTopK;
            t.reason = format!(
                "{rank_word} {} of {} scored tools, below top_k {}{}",
                pos + 1,
                full.len(),
                request.top_k,
                if brought_in && pos < request.top_k {
                    ": its place went to a tool brought in by co-use"
                } else {
                    ""
                }
            );
        } else {
            t.outcome = Outcome::BelowScoreFloor;
            t.reason = match out.score_floor {
                Some(floor) if lists.intents.is_empty() => format!(
                    "{score_word} {score:.4} is below the floor {floor:.4} (min_score_ratio {} times the best {:.4})",
                    options.min_score_ratio,
                    out.best_score.unwrap_or(0.0)
                ),
                Some(floor) => format!(
                    "below the floor in every ranking: under {floor} (min_score_ratio) times the best of the whole query and of each need"
                ),
                None => format!("{score_word} {score:.4} is not positive"),
            };
        }
    } else if fused {
        t.outcome = Outcome::BelowTopK;
        t.reason = format!(
            "not among the {CANDIDATES} best of any list (words: enhanced BM25F{})",
            if search.profile == Profile::Hybrid {
                "; meaning: cosine"
            } else {
                ""
            }
        );
    } else {
        t.outcome = Outcome::NoCommonToken;
        t.reason = "the tool shares no scored query token in any field".into();
    }
    Ok(())
}

fn ranked(doc: DocId, score: f64) -> Ranked {
    Ranked {
        doc,
        score,
        intent: None,
        brought_in: None,
    }
}

/// `slot`'s score relative to the ranking's best, and its rank there, when it holds it.
fn relative_rank(hits: &[ScoredDoc], slot: DocId) -> Option<(f64, usize)> {
    let best = hits.first().map(|h| h.score).filter(|&b| b > 0.0)?;
    let pos = hits.iter().position(|h| h.doc == slot)?;
    Some((hits[pos].score / best, pos + 1))
}

/// The tool's terms: each scored token's contribution, per field, in the profile's index.
fn terms(
    state: &State,
    options: &DiscoveryOptions,
    scored: &[String],
    slot: DocId,
) -> Result<Vec<TermContribution>> {
    Ok(match options.profile {
        Profile::Reference => contributions(
            state.reference_index()?,
            &crate::analyzer::REFERENCE_FIELDS,
            &options.bm25(),
            scored,
            slot,
        ),
        Profile::Enhanced | Profile::Hybrid => {
            let (analysis, index) = state.enhanced_index()?;
            contributions(
                index,
                &crate::analyzer::ENHANCED_FIELDS,
                &options.bm25_enhanced(analysis),
                scored,
                slot,
            )
        }
    })
}

/// Per-token, per-field contributions to `doc`'s score, in query order (each occurrence again).
fn contributions<const F: usize>(
    index: &Index<F>,
    fields: &[&'static str; F],
    params: &Bm25Params<F>,
    tokens: &[String],
    doc: DocId,
) -> Vec<TermContribution> {
    let Some(lengths) = index.doc_lengths(doc) else {
        return Vec::new();
    };
    let scales = index.field_scales(&lengths, params);
    let mut out = Vec::new();
    for token in tokens {
        let Some(posting) = index.posting(token, doc) else {
            continue;
        };
        let df = index.doc_freq(token);
        let idf = index.term_idf(token, df, params);
        // A name term weighs as its most common word: no background discount to report.
        let catalog_idf = if crate::index::is_name_term(token) {
            idf
        } else {
            index.idf(df)
        };
        let tf_norm = index.tf_norm(&posting, &lengths, params);
        let query_weight = params.query_weight(tokens.iter().filter(|t| *t == token).count());
        let score = if params.saturate_query {
            // In the order the search multiplies, so the parts add up to its score.
            idf * query_weight * tf_norm
        } else {
            idf * tf_norm
        };
        let weighted_tf: f64 = params
            .weights
            .iter()
            .zip(posting.tf)
            .map(|(w, tf)| w * f64::from(tf))
            .sum();
        // Shares of the weighted frequency as scored: with per-field normalization, each field's
        // occurrences count by its normalized weight.
        let scored_tf: f64 = scales
            .iter()
            .zip(posting.tf)
            .map(|(s, tf)| s * f64::from(tf))
            .sum();
        let field_list = (0..F)
            .filter(|&f| posting.tf[f] > 0)
            .map(|f| {
                let share = if scored_tf > 0.0 {
                    scales[f] * f64::from(posting.tf[f]) / scored_tf
                } else {
                    0.0
                };
                FieldContribution {
                    field: fields[f],
                    tf: posting.tf[f],
                    weight: params.weights[f],
                    score: score * share,
                }
            })
            .collect();
        out.push(TermContribution {
            token: token.clone(),
            df,
            idf,
            catalog_idf,
            weighted_tf,
            tf_norm,
            query_weight,
            score,
            fields: field_list,
        });
    }
    out
}

/// The whole query's two `hybrid` sides for the named tool: its words score and rank, its
/// cosine and rank, its fused score and rank (before any merge of needs), and its phrase score.
fn hybrid_sides(
    state: &State,
    options: &DiscoveryOptions,
    lists: &Lists<'_>,
    vector: &QueryVector,
    request: &DiscoverRequest,
    slot: DocId,
    e: &mut Explanation,
) {
    e.profile = Profile::Hybrid;
    let fused = crate::discovery::hybrid::rank(state, &lists.whole, depth(request), options.fusion);
    let mut lex_rank: Vec<_> = fused
        .iter()
        .filter_map(|f| f.lexical.map(|l| (f.doc, l)))
        .collect();
    lex_rank.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut sem_rank: Vec<_> = fused
        .iter()
        .filter(|f| f.semantic)
        .filter_map(|f| f.cosine.map(|c| (f.doc, c)))
        .collect();
    sem_rank.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let pos = fused.iter().position(|f| f.doc == slot);
    let embedded = state
        .vectors()
        .is_some_and(|v| v.state(slot) == crate::embed::store::VectorState::Ready);
    let note = match vector {
        QueryVector::Failed(why) => Some(format!(
            "the embedder failed on the query, so it was ranked by words only: {why}"
        )),
        _ if !embedded && e.tool.indexed => Some(
            "the tool has no vector yet (being embedded, or the embedder failed on it): only its words count".into(),
        ),
        _ => None,
    };
    e.hybrid = Some(HybridExplanation {
        lexical: lex_rank
            .iter()
            .position(|x| x.0 == slot)
            .map(|i| (lex_rank[i].1, i + 1)),
        cosine: sem_rank
            .iter()
            .position(|x| x.0 == slot)
            .map(|i| (sem_rank[i].1, i + 1)),
        fused: pos.map(|i| (fused[i].score, i + 1)),
        phrase: pos.map(|i| fused[i].phrase).filter(|&p| p > 0.0),
        embedded,
        note,
    });
}
