//! Dumps what the hybrid profile fuses, for studying fusion rules offline: per query the
//! `enhanced` profile's best 100 (name and score) and its analyzed tokens (token, catalog DF,
//! kept by the query filter), and the local encoder's vectors of every tool's embedded text and
//! every query.
//!
//! `cargo run --release --example fusion_dump -- EVAL_DIR MODEL_DIR OUT_DIR` writes
//! OUT_DIR/lexical.jsonl, tools.json (names), texts.json (the embedded texts), name_words.json
//! (each name as the embedded text begins with it: `tool_text` of the name alone), tools.f32 and
//! queries.f32 (row-major, little-endian). With two more arguments, `TEXTS_JSON NAME`, it embeds
//! only the texts of TEXTS_JSON (a JSON list of strings, e.g. another way to write each tool) into
//! OUT_DIR/NAME, for comparing what is embedded.

use std::io::Write;
use toolregistry::embed::{Embedder, LocalEncoder, tool_text};
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry, Tool, eval};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, model, out) = match &args[..] {
        [dir, model, out] => (dir, model, out),
        [_, model, out, texts, name] => {
            let texts: Vec<String> =
                serde_json::from_str(&std::fs::read_to_string(texts).unwrap()).unwrap();
            let enc = LocalEncoder::load(std::path::Path::new(model)).unwrap();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let v = enc.embed(&refs).unwrap();
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            std::fs::write(std::path::Path::new(out).join(name), bytes).unwrap();
            return;
        }
        _ => panic!("usage: fusion_dump EVAL_DIR MODEL_DIR OUT_DIR [TEXTS_JSON NAME]"),
    };
    let dir = std::path::Path::new(dir);
    let out = std::path::Path::new(out);
    std::fs::create_dir_all(out).unwrap();
    let tools =
        eval::parse_catalog(&std::fs::read_to_string(dir.join("catalog.json")).unwrap()).unwrap();
    let queries =
        eval::parse_queries(&std::fs::read_to_string(dir.join("queries.jsonl")).unwrap()).unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    let texts: Vec<String> = tools.iter().map(tool_text).collect();
    let registry = Registry::new();
    registry.register(tools).unwrap();
    let options = DiscoveryOptions {
        min_score_ratio: 0.0,
        ..DiscoveryOptions::enhanced()
    };
    let d = registry.discoverer(options);
    let req = DiscoverRequest {
        top_k: 100,
        ..Default::default()
    };
    let mut lex = std::fs::File::create(out.join("lexical.jsonl")).unwrap();
    for q in &queries {
        let hits: Vec<(String, f64)> = d
            .discover(&q.query, &req)
            .map(|h| h.into_iter().map(|h| (h.name, h.score)).collect())
            .unwrap_or_default();
        // The query's analyzed tokens: (token, df in the catalog, whether the filter kept it).
        let tokens: Vec<(String, usize, bool)> = d
            .explain(&q.query, &names[0], &req)
            .map(|e| {
                e.tokens
                    .into_iter()
                    .map(|t| (t.token, t.df, t.dropped.is_none()))
                    .collect()
            })
            .unwrap_or_default();
        let line = serde_json::json!({"id": q.id, "query": q.query, "relevant": q.relevant, "hits": hits, "tokens": tokens});
        writeln!(lex, "{line}").unwrap();
    }
    std::fs::write(out.join("tools.json"), serde_json::json!(names).to_string()).unwrap();
    std::fs::write(out.join("texts.json"), serde_json::json!(texts).to_string()).unwrap();
    let name_words: Vec<String> = names
        .iter()
        .map(|n| {
            let bare = serde_json::json!([{ "name": n }]).to_string();
            tool_text(&Tool::parse_many(&bare).unwrap()[0])
        })
        .collect();
    std::fs::write(
        out.join("name_words.json"),
        serde_json::json!(name_words).to_string(),
    )
    .unwrap();
    let enc = LocalEncoder::load(std::path::Path::new(model)).unwrap();
    let write = |name: &str, texts: Vec<&str>| {
        let v = enc.embed(&texts).unwrap();
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(out.join(name), bytes).unwrap();
    };
    write("tools.f32", texts.iter().map(String::as_str).collect());
    write(
        "queries.f32",
        queries.iter().map(|q| q.query.as_str()).collect(),
    );
    eprintln!(
        "{} tools, {} queries, dim {}",
        names.len(),
        queries.len(),
        enc.dim()
    );
}
