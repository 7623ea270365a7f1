//! Retrieval evaluation: run labelled queries against a catalog and score the rankings.
//!
//! The data format is that of `../shared/eval/<set>/`: `catalog.json` (an array of
//! `{"name", "description", "parameters", ...}`) and `queries.jsonl` (one
//! `{"id", "query", "relevant": [names]}` per line). Metrics use binary relevance, cut at 10, and
//! are averaged over the queries with a non-empty relevant set, as the published baselines are.

use crate::discovery::{DiscoverRequest, Discoverer};
use crate::error::{Error, Result};
use crate::limits::{kind_of, parse_json};
use crate::tool::{Tool, ToolMetadata};
use serde_json::Value;
use std::collections::HashSet;
use std::time::Instant;

/// The cut-offs Recall is reported at.
pub const RECALL_AT: [usize; 4] = [1, 3, 5, 10];
/// The rank cut-off for MRR and nDCG, and the `top_k` every query runs with.
pub const CUTOFF: usize = 10;

/// One labelled query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalQuery {
    /// Identifier from the data set.
    pub id: String,
    /// The natural-language query.
    pub query: String,
    /// Names of the tools that answer it.
    pub relevant: Vec<String>,
}

/// Parses `queries.jsonl`: one `{"id", "query", "relevant": [str]}` object per non-empty line.
pub fn parse_queries(text: &str) -> Result<Vec<EvalQuery>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("queries line {}", i + 1);
        let v = parse_json(line, &at)?;
        let field = |key: &str| -> Result<&str> {
            v.get(key)
                .and_then(Value::as_str)
                .ok_or_else(|| Error::invalid(format!("{at}: \"{key}\" must be a string")))
        };
        let relevant = match v.get("relevant") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|r| {
                    r.as_str().map(str::to_string).ok_or_else(|| {
                        Error::invalid(format!(
                            "{at}: relevant: expected strings, got {}",
                            kind_of(r)
                        ))
                    })
                })
                .collect::<Result<Vec<_>>>()?,
            _ => {
                return Err(Error::invalid(format!(
                    "{at}: \"relevant\" must be an array of tool names"
                )));
            }
        };
        out.push(EvalQuery {
            id: field("id")?.to_string(),
            query: field("query")?.to_string(),
            relevant,
        });
    }
    Ok(out)
}

/// Parses an evaluation `catalog.json` the way the baselines registered it: every entry as a
/// tool from its `name`, `description`, `parameters` and `tags` (as metadata tags). `namespace`
/// is ignored: the names already carry it, and the labels use the bare names.
pub fn parse_catalog(text: &str) -> Result<Vec<Tool>> {
    let v = parse_json(text, "catalog")?;
    let items = v.as_array().ok_or_else(|| {
        Error::invalid(format!(
            "catalog: expected an array of tools, got {}",
            kind_of(&v)
        ))
    })?;
    items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let name = t.get("name").and_then(Value::as_str).ok_or_else(|| {
                Error::invalid(format!("catalog[{i}].name: missing or not a string"))
            })?;
            let description = t.get("description").and_then(Value::as_str).unwrap_or("");
            let tags = match t.get("tags") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                Some(other) => {
                    return Err(Error::invalid(format!(
                        "catalog[{i}].tags: expected an array of strings, got {}",
                        kind_of(other)
                    )));
                }
            };
            let meta = ToolMetadata {
                tags,
                ..Default::default()
            };
            Tool::new(name, description, t.get("parameters").cloned(), None, meta)
                .map_err(|e| Error::invalid(format!("catalog[{i}]: {e}")))
        })
        .collect()
}

/// The cut-offs completeness (COMP@k) is reported at.
pub const COMP_AT: [usize; 2] = [5, 10];

/// The scores of one ranking against its relevant set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryScores {
    /// How many tools are relevant.
    pub relevant: usize,
    /// Whether every relevant tool is within each of [`COMP_AT`] (COLT's completeness).
    pub complete: [bool; 2],
    /// Recall at each of [`RECALL_AT`].
    pub recall: [f64; 4],
    /// Reciprocal rank of the first relevant tool within [`CUTOFF`], else 0.
    pub rr: f64,
    /// Binary-relevance nDCG at [`CUTOFF`].
    pub ndcg: f64,
}

/// Scores `ranked` (best first) against `relevant`; `None` when `relevant` is empty.
pub fn score_ranking(ranked: &[String], relevant: &[String]) -> Option<QueryScores> {
    let relevant: HashSet<&str> = relevant.iter().map(String::as_str).collect();
    if relevant.is_empty() {
        return None;
    }
    let hit: Vec<bool> = ranked
        .iter()
        .take(CUTOFF)
        .map(|n| relevant.contains(n.as_str()))
        .collect();
    let mut recall = [0.0; 4];
    for (r, &k) in recall.iter_mut().zip(&RECALL_AT) {
        let found = hit.iter().take(k).filter(|&&h| h).count();
        *r = found as f64 / relevant.len() as f64;
    }
    let rr = hit
        .iter()
        .position(|&h| h)
        .map_or(0.0, |p| 1.0 / (p as f64 + 1.0));
    let gain = |i: usize| 1.0 / (i as f64 + 2.0).log2();
    let dcg: f64 = (0..hit.len()).filter(|&i| hit[i]).map(gain).sum();
    let idcg: f64 = (0..relevant.len().min(CUTOFF)).map(gain).sum();
    let mut complete = [false; 2];
    for (c, &k) in complete.iter_mut().zip(&COMP_AT) {
        *c = hit.iter().take(k).filter(|&&h| h).count() == relevant.len();
    }
    Some(QueryScores {
        relevant: relevant.len(),
        complete,
        recall,
        rr,
        ndcg: dcg / idcg,
    })
}

/// Aggregate metrics of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// Queries run.
    pub queries: usize,
    /// Queries with a non-empty relevant set (the ones averaged over).
    pub judged: usize,
    /// Mean Recall at each of [`RECALL_AT`].
    pub recall: [f64; 4],
    /// Mean reciprocal rank at [`CUTOFF`].
    pub mrr: f64,
    /// Mean nDCG at [`CUTOFF`].
    pub ndcg: f64,
    /// Judged queries with more than one relevant tool (tasks that need several tools).
    pub multi: usize,
    /// Share of those whose every relevant tool is within each of [`COMP_AT`] (COMP@5, COMP@10:
    /// COLT, Qu et al., CIKM 2024); 0 when there are none.
    pub comp: [f64; 2],
    /// Share of queries whose answer was empty.
    pub zero_result_share: f64,
    /// Median discover latency, milliseconds.
    pub latency_p50_ms: f64,
    /// 95th-percentile discover latency, milliseconds.
    pub latency_p95_ms: f64,
    /// Mean discover latency, milliseconds.
    pub latency_mean_ms: f64,
    /// Queries whose discover failed (each scored as a miss: an empty ranking).
    pub failed: usize,
    /// The first failure, as `"<query id>: <error>"`.
    pub first_error: Option<String>,
}

/// Averages per-query scores (judged queries only) and summarizes latencies.
pub fn aggregate(
    scores: &[Option<QueryScores>],
    zero_results: usize,
    latencies_ms: &[f64],
) -> Metrics {
    let judged: Vec<&QueryScores> = scores.iter().flatten().collect();
    let n = judged.len().max(1) as f64;
    let mut recall = [0.0; 4];
    for (i, r) in recall.iter_mut().enumerate() {
        *r = judged.iter().map(|s| s.recall[i]).sum::<f64>() / n;
    }
    let mut sorted = latencies_ms.to_vec();
    sorted.sort_by(f64::total_cmp);
    let multi: Vec<&&QueryScores> = judged.iter().filter(|s| s.relevant > 1).collect();
    let mut comp = [0.0; 2];
    for (i, c) in comp.iter_mut().enumerate() {
        let complete = multi.iter().filter(|s| s.complete[i]).count();
        *c = complete as f64 / multi.len().max(1) as f64;
    }
    Metrics {
        queries: scores.len(),
        judged: judged.len(),
        recall,
        mrr: judged.iter().map(|s| s.rr).sum::<f64>() / n,
        ndcg: judged.iter().map(|s| s.ndcg).sum::<f64>() / n,
        multi: multi.len(),
        comp,
        zero_result_share: zero_results as f64 / scores.len().max(1) as f64,
        latency_p50_ms: percentile(&sorted, 0.50),
        latency_p95_ms: percentile(&sorted, 0.95),
        latency_mean_ms: sorted.iter().sum::<f64>() / sorted.len().max(1) as f64,
        failed: 0,
        first_error: None,
    }
}

/// Linear-interpolated percentile of sorted values (NumPy's default), 0 for none.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// One query's ranking, for `--rankings`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The query's id.
    pub id: String,
    /// Tool names, best first.
    pub ranked: Vec<String>,
    /// How long its discover took, milliseconds.
    pub latency_ms: f64,
}

/// Runs every query through `discoverer` with `top_k` [`CUTOFF`] and scores the answers.
///
/// A query that fails (empty, over the size limit, ...) does not stop the run: it counts as a miss
/// with an empty ranking, and [`Metrics::failed`] and [`Metrics::first_error`] report it. The
/// `Result` is kept for errors of the run as a whole.
pub fn evaluate(discoverer: &Discoverer, queries: &[EvalQuery]) -> Result<(Metrics, Vec<Ranked>)> {
    evaluate_with(discoverer, queries, &mut |_, _| {})
}

/// [`evaluate`] with `around(query, true)` called before each query's discover and
/// `around(query, false)` after it (`--usage leave-one-out` takes the query's own task out of
/// the usage and puts it back).
pub fn evaluate_with(
    discoverer: &Discoverer,
    queries: &[EvalQuery],
    around: &mut dyn FnMut(&EvalQuery, bool),
) -> Result<(Metrics, Vec<Ranked>)> {
    let request = DiscoverRequest {
        top_k: CUTOFF,
        ..Default::default()
    };
    let mut scores = Vec::with_capacity(queries.len());
    let mut latencies = Vec::with_capacity(queries.len());
    let mut rankings = Vec::with_capacity(queries.len());
    let mut zero = 0;
    let (mut failed, mut first_error) = (0, None);
    for q in queries {
        around(q, true);
        let start = Instant::now();
        let hits = match discoverer.discover(&q.query, &request) {
            Ok(hits) => hits,
            Err(e) => {
                failed += 1;
                first_error.get_or_insert_with(|| format!("{}: {e}", q.id));
                Vec::new()
            }
        };
        let latency_ms = start.elapsed().as_secs_f64() * 1e3;
        around(q, false);
        latencies.push(latency_ms);
        let ranked: Vec<String> = hits.into_iter().map(|h| h.name).collect();
        if ranked.is_empty() {
            zero += 1;
        }
        scores.push(score_ranking(&ranked, &q.relevant));
        rankings.push(Ranked {
            id: q.id.clone(),
            ranked,
            latency_ms,
        });
    }
    let metrics = Metrics {
        failed,
        first_error,
        ..aggregate(&scores, zero, &latencies)
    };
    Ok((metrics, rankings))
}

/// Scores rankings made elsewhere (another engine's, or an earlier run's `--rankings`) against the
/// set's queries with the same metrics as [`evaluate`]: `text` holds one `{"id", "ranked": [names]}`
/// per line, with an optional `"latency_ms"` (all lines or none) for the latency figures. Every
/// query of the set needs exactly one line, and every line a query of the set: a ranking file of
/// another set, or a run cut short, is an error naming the first id at fault, not a lower score.
/// A ranking is cut at [`CUTOFF`].
pub fn score_rankings(queries: &[EvalQuery], text: &str) -> Result<Metrics> {
    let mut by_id: std::collections::HashMap<String, (Vec<String>, Option<f64>)> =
        std::collections::HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("rankings line {}", i + 1);
        let v = parse_json(line, &at)?;
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| Error::invalid(format!("{at}: \"id\" must be a string")))?;
        let ranked = match v.get("ranked") {
            Some(Value::Array(items)) => items
                .iter()
                .map(|r| {
                    r.as_str().map(str::to_string).ok_or_else(|| {
                        Error::invalid(format!(
                            "{at}: ranked: expected strings, got {}",
                            kind_of(r)
                        ))
                    })
                })
                .collect::<Result<Vec<_>>>()?,
            _ => {
                return Err(Error::invalid(format!(
                    "{at}: \"ranked\" must be an array of tool names"
                )));
            }
        };
        let latency = match v.get("latency_ms") {
            None => None,
            Some(l) => Some(
                l.as_f64()
                    .filter(|l| l.is_finite() && *l >= 0.0)
                    .ok_or_else(|| {
                        Error::invalid(format!(
                            "{at}: \"latency_ms\" must be a number of milliseconds"
                        ))
                    })?,
            ),
        };
        if by_id.insert(id.to_string(), (ranked, latency)).is_some() {
            return Err(Error::invalid(format!(
                "{at}: query {id:?} is ranked twice"
            )));
        }
    }
    let known: HashSet<&str> = queries.iter().map(|q| q.id.as_str()).collect();
    if let Some(id) = by_id.keys().find(|id| !known.contains(id.as_str())) {
        return Err(Error::invalid(format!(
            "rankings: {id:?} is not a query of this set"
        )));
    }
    let (mut scores, mut latencies, mut zero) = (Vec::new(), Vec::new(), 0);
    for q in queries {
        let (ranked, latency) = by_id
            .get_mut(&q.id)
            .ok_or_else(|| Error::invalid(format!("rankings: query {:?} has no ranking", q.id)))?;
        ranked.truncate(CUTOFF);
        if ranked.is_empty() {
            zero += 1;
        }
        latencies.extend(*latency);
        scores.push(score_ranking(ranked, &q.relevant));
    }
    if !latencies.is_empty() && latencies.len() != queries.len() {
        return Err(Error::invalid(
            "rankings: \"latency_ms\" is given for some queries and not others",
        ));
    }
    Ok(aggregate(&scores, zero, &latencies))
}

/// Longest line of a usage file for `toolregistry eval --usage` (one observed task): 1 MiB, room
/// for a task of 10,000 long names. A longer line is an error naming it, read no further.
pub const MAX_USAGE_LINE_BYTES: usize = 1024 * 1024;

/// Reads a usage file for `toolregistry eval --usage` one line at a time: one observed task per
/// non-empty line, `{"tools": [names]}`, each passed to `task` as it is read (memory holds one
/// line, whatever the file's size; the time is linear in it). A bad line (not JSON, not that
/// shape, not UTF-8, over [`MAX_USAGE_LINE_BYTES`]) is an error naming it; `task`'s error stops
/// the reading. Returns the tasks read.
pub fn read_usage(
    mut reader: impl std::io::BufRead,
    mut task: impl FnMut(&[&str]) -> Result<()>,
) -> Result<u64> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        tools: Vec<std::borrow::Cow<'a, str>>,
    }
    use std::io::{BufRead, Read};
    let mut line = Vec::new();
    let (mut number, mut tasks) = (0u64, 0u64);
    loop {
        line.clear();
        number += 1;
        let at = || format!("usage line {number}");
        let read = (&mut reader)
            .take(MAX_USAGE_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::invalid(format!("{}: {e}", at())))?;
        if read == 0 {
            return Ok(tasks);
        }
        if line.len() > MAX_USAGE_LINE_BYTES {
            return Err(Error::invalid(format!(
                "{}: longer than {MAX_USAGE_LINE_BYTES} bytes",
                at()
            )));
        }
        let text = std::str::from_utf8(&line).map_err(|e| {
            Error::invalid(format!("{}: not UTF-8 (at byte {})", at(), e.valid_up_to()))
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let parsed: Line<'_> = serde_json::from_str(text).map_err(|e| {
            Error::invalid(format!("{}: expected {{\"tools\": [names]}} ({e})", at()))
        })?;
        let names: Vec<&str> = parsed.tools.iter().map(|n| n.as_ref()).collect();
        task(&names)?;
        tasks += 1;
    }
}

/// Parses a whole usage file (see [`read_usage`]) into its tasks, in order.
pub fn parse_usage(bytes: &[u8]) -> Result<Vec<Vec<String>>> {
    let mut out = Vec::new();
    read_usage(bytes, |names| {
        out.push(names.iter().map(|n| n.to_string()).collect());
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn metrics_of_one_ranking() {
        let s = score_ranking(&names(&["x", "a", "y", "b"]), &names(&["a", "b"])).unwrap();
        assert_eq!(s.recall, [0.0, 0.5, 1.0, 1.0]);
        assert_eq!(s.rr, 0.5);
        let dcg = 1.0 / 3f64.log2() + 1.0 / 5f64.log2();
        let idcg = 1.0 + 1.0 / 3f64.log2();
        assert!((s.ndcg - dcg / idcg).abs() < 1e-12);
        // Perfect ranking.
        let s = score_ranking(&names(&["a"]), &names(&["a"])).unwrap();
        assert_eq!((s.rr, s.ndcg, s.recall), (1.0, 1.0, [1.0; 4]));
        // Relevant only after the cut-off counts for nothing.
        let long: Vec<String> = (0..12).map(|i| format!("t{i}")).collect();
        let s = score_ranking(&long, &names(&["t10"])).unwrap();
        assert_eq!((s.rr, s.ndcg, s.recall[3]), (0.0, 0.0, 0.0));
        assert!(score_ranking(&long, &[]).is_none());
    }

    #[test]
    fn completeness_counts_queries_that_need_several_tools() {
        let long: Vec<String> = (0..12).map(|i| format!("t{i}")).collect();
        // Both within 5; one within 10 only; one beyond 10; a single-tool query (not counted).
        let both = score_ranking(&long, &names(&["t0", "t4"])).unwrap();
        assert_eq!(both.complete, [true, true]);
        let late = score_ranking(&long, &names(&["t0", "t7", "t7"])).unwrap();
        assert_eq!((late.relevant, late.complete), (2, [false, true]));
        let missed = score_ranking(&long, &names(&["t1", "t11"])).unwrap();
        assert_eq!(missed.complete, [false, false]);
        let single = score_ranking(&long, &names(&["t0"])).unwrap();
        let m = aggregate(
            &[Some(both), Some(late), Some(missed), Some(single)],
            0,
            &[],
        );
        assert_eq!(m.multi, 3);
        assert!((m.comp[0] - 1.0 / 3.0).abs() < 1e-12);
        assert!((m.comp[1] - 2.0 / 3.0).abs() < 1e-12);
        let none = aggregate(&[Some(single)], 0, &[]);
        assert_eq!((none.multi, none.comp), (0, [0.0, 0.0]));
    }

    #[test]
    fn aggregate_skips_unjudged_queries_and_counts_empty_answers() {
        let a = score_ranking(&names(&["a"]), &names(&["a"]));
        let b = score_ranking(&names(&[]), &names(&["b"]));
        let m = aggregate(&[a, b, None], 1, &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((m.queries, m.judged), (3, 2));
        assert_eq!(m.mrr, 0.5);
        assert!((m.zero_result_share - 1.0 / 3.0).abs() < 1e-12);
        assert!((m.latency_p50_ms - 2.5).abs() < 1e-12);
        assert!((m.latency_p95_ms - 3.85).abs() < 1e-12);
    }

    #[test]
    fn parses_queries_and_catalogs() {
        let q = parse_queries("{\"id\":\"1\",\"query\":\"q\",\"relevant\":[\"a\"]}\n\n").unwrap();
        assert_eq!(q[0].relevant, ["a"]);
        assert!(parse_queries("{\"id\":\"1\",\"query\":\"q\"}").is_err());
        let c = parse_catalog(
            r#"[{"name":"hf/x","description":"d","parameters":{"type":"object","properties":{}},"namespace":"Has Spaces","tags":["t"]}]"#,
        )
        .unwrap();
        assert_eq!(c[0].name(), "hf/x");
        assert_eq!(c[0].metadata().tags, ["t"]);
        assert!(parse_catalog(r#"[{"name":"a","tags":"t"}]"#).is_err());
    }

    #[test]
    fn scores_rankings_made_elsewhere() {
        let q = parse_queries(
            "{\"id\":\"1\",\"query\":\"q\",\"relevant\":[\"a\"]}\n{\"id\":\"2\",\"query\":\"r\",\"relevant\":[\"b\",\"c\"]}",
        )
        .unwrap();
        let m = score_rankings(
            &q,
            "{\"id\":\"2\",\"ranked\":[\"x\",\"b\",\"c\"],\"latency_ms\":2}\n\n{\"id\":\"1\",\"ranked\":[\"a\"],\"latency_ms\":1}",
        )
        .unwrap();
        assert_eq!((m.queries, m.judged, m.multi), (2, 2, 1));
        assert_eq!((m.mrr, m.comp[1]), (0.75, 1.0));
        assert_eq!(m.latency_p50_ms, 1.5);
        let bad = [
            ("{\"id\":\"1\",\"ranked\":[]}", "\"2\" has no ranking"),
            (
                "{\"id\":\"1\",\"ranked\":[]}\n{\"id\":\"1\",\"ranked\":[]}",
                "twice",
            ),
            ("{\"id\":\"9\",\"ranked\":[]}", "not a query"),
            ("{\"id\":\"1\",\"ranked\":[1]}", "expected strings"),
            (
                "{\"id\":\"1\",\"ranked\":[],\"latency_ms\":1}\n{\"id\":\"2\",\"ranked\":[]}",
                "some queries",
            ),
            ("{\"id\":1", "rankings line 1"),
        ];
        for (text, expected) in bad {
            let e = score_rankings(&q, text).unwrap_err().to_string();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }
}
