//! Runs ratel-ai-core over one labelled set and writes its rankings for `toolregistry eval --score`.
//!
//!   peer-ratel DIR METHOD [MODEL_DIR] > rankings.jsonl     METHOD: bm25 | hybrid
//!
//! Each catalog entry is registered as the peer's documentation shows a tool: id and name the
//! catalog's name, its description, and its parameters as `input_schema` (what the peer indexes).
//! Hybrid builds the embeddings once, before the queries, with the model directory given (the
//! same all-MiniLM-L6-v2 folder as ours). Every query asks for the best 10; each output line is
//! {"id", "ranked": [names], "latency_ms"}.

use ratel_ai_core::{EmbeddingModel, Origin, SearchMethod, Tool, ToolRegistry};
use serde_json::Value;
use std::io::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: peer-ratel DIR bm25|hybrid [MODEL_DIR]");
        std::process::exit(2);
    }
    let dir = std::path::Path::new(&args[1]);
    let method: SearchMethod = args[2].parse().unwrap_or_else(|e| fail(&format!("{e}")));
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| fail(&format!("{f}: {e}")))
    };
    let catalog: Vec<Value> = serde_json::from_str(&read("catalog.json"))
        .unwrap_or_else(|e| fail(&format!("catalog.json: {e}")));
    let mut registry = match method {
        SearchMethod::Bm25 => ToolRegistry::new(),
        _ => {
            let path = args.get(3).unwrap_or_else(|| fail("hybrid needs MODEL_DIR"));
            ToolRegistry::with_embedding(EmbeddingModel::Local {
                path: path.into(),
                query_prefix: None,
                doc_prefix: None,
                pooling: None,
            })
        }
    };
    for t in &catalog {
        let name = t["name"].as_str().unwrap_or_default().to_string();
        registry.register(Tool {
            id: name.clone(),
            name,
            description: t["description"].as_str().unwrap_or_default().to_string(),
            experimental_searchable_description: None,
            input_schema: t.get("parameters").cloned().unwrap_or(Value::Null),
            output_schema: Value::Null,
        });
    }
    if method != SearchMethod::Bm25 {
        let start = Instant::now();
        registry
            .build_embeddings()
            .unwrap_or_else(|e| fail(&format!("embedding the catalog: {e}")));
        eprintln!("peer-ratel: {} tools embedded in {:.1} s", catalog.len(), start.elapsed().as_secs_f64());
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in read("queries.jsonl").lines().filter(|l| !l.trim().is_empty()) {
        let q: Value = serde_json::from_str(line).unwrap_or_else(|e| fail(&format!("queries.jsonl: {e}")));
        let text = q["query"].as_str().unwrap_or_default();
        let start = Instant::now();
        let hits = registry
            .search_with_method(text, 10, Origin::Direct, method)
            .unwrap_or_else(|e| fail(&format!("query {}: {e}", q["id"])));
        let ms = start.elapsed().as_secs_f64() * 1e3;
        let ranked: Vec<&str> = hits.iter().map(|h| h.tool_id.as_str()).collect();
        let row = serde_json::json!({"id": q["id"], "ranked": ranked, "latency_ms": ms});
        writeln!(out, "{row}").unwrap_or_else(|e| fail(&format!("stdout: {e}")));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("peer-ratel: {message}");
    std::process::exit(1);
}
