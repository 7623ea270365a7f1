//! What the commands print: hits, an explanation, evaluation metrics.

use toolregistry::{Dropped, Explanation, Hit, eval};

pub(crate) fn print_metrics(
    out: &mut String,
    catalog: &std::path::Path,
    engine: &str,
    m: &eval::Metrics,
    json: bool,
) {
    use std::fmt::Write;
    let set = catalog.file_name().map_or_else(
        || catalog.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    if json {
        let v = serde_json::json!({
            "set": set,
            "profile": engine,
            "queries": m.queries,
            "judged": m.judged,
            "recall@1": m.recall[0],
            "recall@3": m.recall[1],
            "recall@5": m.recall[2],
            "recall@10": m.recall[3],
            "mrr@10": m.mrr,
            "ndcg@10": m.ndcg,
            "multi_tool_queries": m.multi,
            "comp@5": m.comp[0],
            "comp@10": m.comp[1],
            "zero_result_share": m.zero_result_share,
            "latency_mean_ms": m.latency_mean_ms,
            "latency_p50_ms": m.latency_p50_ms,
            "latency_p95_ms": m.latency_p95_ms,
            "failed": m.failed,
            "first_error": m.first_error,
        });
        let _ = writeln!(out, "{v}");
        return;
    }
    let _ = writeln!(
        out,
        "set {set}, profile {engine}, {} queries ({} judged)",
        m.queries, m.judged
    );
    let _ = writeln!(
        out,
        "| R@1 | R@3 | R@5 | R@10 | MRR@10 | nDCG@10 | COMP@5 | COMP@10 (n) | zero-result | latency p50 / p95 (ms) |"
    );
    let comp = |c: f64| {
        if m.multi == 0 {
            "-".to_string()
        } else {
            format!("{c:.3}")
        }
    };
    let _ = writeln!(
        out,
        "| {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} ({}) | {:.1}% | {:.3} / {:.3} |",
        m.recall[0],
        m.recall[1],
        m.recall[2],
        m.recall[3],
        m.mrr,
        m.ndcg,
        comp(m.comp[0]),
        comp(m.comp[1]),
        m.multi,
        100.0 * m.zero_result_share,
        m.latency_p50_ms,
        m.latency_p95_ms
    );
    if let Some(first) = &m.first_error {
        let _ = writeln!(
            out,
            "{} of {} queries failed (scored as misses); the first: {first}",
            m.failed, m.queries
        );
    }
}

pub(crate) fn print_explanation(out: &mut String, e: &Explanation) {
    use std::fmt::Write;
    let _ = writeln!(out, "query: {:?} (profile {})", e.query, e.profile.as_str());
    if let Some(exact) = &e.exact_match {
        let _ = writeln!(out, "exact name match: {exact}");
    }
    for t in &e.tokens {
        let verdict = match (t.dropped, t.rescued) {
            (None, true) => "kept (rarest name token; all were filler)".to_string(),
            (None, false) => "kept".to_string(),
            (Some(Dropped::Stopword), _) => "dropped: stopword".to_string(),
            (Some(Dropped::Filler), _) => {
                format!("dropped: filler ({:.1}% of tools)", 100.0 * t.df_ratio)
            }
        };
        let _ = writeln!(out, "  token {:<20} df {:>5}  {verdict}", t.token, t.df);
    }
    if let Some(note) = e.truncation_note() {
        let _ = writeln!(out, "note: {note}");
    }
    let shown: Vec<String> = e.scored_tokens.iter().map(|t| token_text(t)).collect();
    let _ = writeln!(out, "scored tokens: {}", shown.join(" "));
    let t = &e.tool;
    let _ = writeln!(
        out,
        "tool {}: {} ({})",
        t.name,
        t.outcome.as_str(),
        t.reason
    );
    if let (Some(score), Some(rank)) = (t.score, t.rank) {
        let _ = writeln!(out, "  score {score:.4}, rank {rank}");
    }
    if let Some(floor) = e.score_floor {
        let _ = writeln!(
            out,
            "  best score {:.4}, floor {floor:.4}, {} in the answer (top_k {})",
            e.best_score.unwrap_or(0.0),
            e.result_count,
            e.top_k
        );
    }
    for term in &t.terms {
        let repeat = if term.query_weight == 1.0 {
            String::new()
        } else {
            format!(" x query weight {:.4}", term.query_weight)
        };
        let discount = if term.idf < term.catalog_idf {
            format!(
                ", catalog idf {:.4}, discounted: more common in English",
                term.catalog_idf
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:<20} +{:>8.4}  idf {:.4} x tf_norm {:.4}{repeat} (df {}{discount})",
            token_text(&term.token),
            term.score,
            term.idf,
            term.tf_norm,
            term.df
        );
        for f in &term.fields {
            let _ = writeln!(
                out,
                "      {:<12} tf {} x weight {} -> {:.4}",
                f.field, f.tf, f.weight, f.score
            );
        }
    }
}

pub(crate) fn print_hits(out: &mut String, hits: &[Hit]) {
    use std::fmt::Write;
    if hits.is_empty() {
        let _ = writeln!(out, "no tool matched");
        return;
    }
    let width = hits
        .iter()
        .map(|h| h.name.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 48);
    let _ = writeln!(
        out,
        "{:>4}  {:>8}  {:<width$}  description",
        "rank", "score", "name"
    );
    for (i, h) in hits.iter().enumerate() {
        let description: String = h.description.chars().take(72).collect();
        let ellipsis = if h.description.chars().count() > 72 {
            "…"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{:>4}  {:>8.3}  {:<width$}  {description}{ellipsis}",
            i + 1,
            h.score,
            h.name
        );
        if let Some(why) = &h.brought_in {
            let _ = writeln!(out, "{:>4}  {:>8}  brought in: {why}", "", "");
        }
    }
}

/// A scored token as explain's text shows it: a name term (its words after spaces) as
/// `name(word word)`.
fn token_text(token: &str) -> String {
    if toolregistry::index::is_name_term(token) {
        format!("name({})", token.trim_start())
    } else {
        token.to_string()
    }
}
