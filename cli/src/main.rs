//! `toolregistry`: the command-line program, a thin layer over the library's Rust API.
//!
//! `toolregistry discover "convert currency"` searches the embedded BFCL catalog (1,998 tools, all
//! deferred); `--catalog FILE` searches your own.

#[cfg(feature = "mcp")]
mod mcp;
// The proxy's config and trust layers need neither rmcp nor tokio: compiled into every test build,
// their unit tests run in the plain `cargo test`, and the mcp test parts compile no test binary.
#[cfg(all(test, not(feature = "mcp")))]
#[allow(dead_code)]
mod mcp {
    pub mod config;
    pub mod files;
    pub mod import;
    pub mod trust;
}

mod args;
mod print;

#[cfg(feature = "mcp")]
use args::McpAction;
use args::{Cli, Command, catalog_key, record_usage_file};
use clap::Parser;
use print::{print_explanation, print_hits, print_metrics};
use std::process::ExitCode;
use toolregistry::{ApiFormat, DiscoverRequest, EnhancedAnalysis, Registry, SchemaOptions, eval};

fn main() -> ExitCode {
    let mut out = String::new();
    match run(Cli::parse(), &mut out) {
        Ok(()) => {
            // A closed pipe (`| head`) is the reader's choice, not an error.
            use std::io::Write;
            match std::io::stdout().lock().write_all(out.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("toolregistry: {e}");
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(message) => {
            eprintln!("toolregistry: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli, out: &mut String) -> Result<(), String> {
    use std::fmt::Write;
    let err = |e: toolregistry::Error| e.to_string();
    match cli.command {
        #[cfg(feature = "mcp")]
        Command::Mcp {
            action,
            config,
            state,
            open_with,
            http,
            allow_origin,
            allow_host,
            token_file,
            console,
            max_sessions,
            session_idle_timeout,
            check,
            no_watch,
            model_dir,
            embed_cache,
        } => {
            let config_given = config.is_some();
            let config = || config.clone().ok_or("--config FILE is required");
            match action {
                Some(McpAction::Import {
                    configs,
                    write,
                    rewrite,
                    client,
                    command,
                }) => {
                    if config_given {
                        return Err("mcp import: the clients' configs are its arguments; \
                                    --config names the gateway's (use --write FILE)"
                            .into());
                    }
                    out.push_str(&mcp::import::run(&mcp::import::Options {
                        configs,
                        write,
                        rewrite,
                        client,
                        command,
                    })?)
                }
                Some(McpAction::Scan { files }) => out.push_str(&mcp::scan_catalogs(&files)?),
                Some(McpAction::Login { name }) => out.push_str(&mcp::login(
                    &config()?,
                    state.as_deref(),
                    &name,
                    open_with.as_deref(),
                )?),
                Some(McpAction::Logout { name }) => {
                    out.push_str(&mcp::logout(&config()?, state.as_deref(), &name)?)
                }
                Some(McpAction::Review) => {
                    out.push_str(&mcp::review(&config()?, state.as_deref())?)
                }
                Some(McpAction::Approve { target }) => {
                    out.push_str(&mcp::approve(&config()?, state.as_deref(), &target)?)
                }
                None if token_file.is_some() && http.is_none() && console.is_none() => {
                    return Err("--token-file: needs --http or --console".into());
                }
                None => mcp::run(&mcp::Options {
                    config: config()?,
                    check,
                    watch: !no_watch,
                    model_dir,
                    embed_cache,
                    state,
                    console,
                    console_token_file: token_file.clone(),
                    open_with,
                    http: http.map(|addr| mcp::HttpOptions {
                        addr,
                        allow_origins: allow_origin,
                        allow_hosts: allow_host,
                        token_file,
                        max_sessions,
                        idle_timeout: std::time::Duration::from_secs(session_idle_timeout.max(1)),
                    }),
                })?,
            }
        }
        Command::Discover {
            query,
            namespaces,
            tags,
            catalog,
            top_k,
            api_format,
            ranking,
            embedding,
            usage,
            json,
        } => {
            let registry = catalog.load_embedded(&embedding)?;
            usage.record(&registry)?;
            let options = ranking.options()?;
            let request = DiscoverRequest {
                top_k,
                api_format: ApiFormat::parse(&api_format).map_err(err)?,
                namespaces,
                tags,
                ..Default::default()
            };
            let discoverer = registry.discoverer(options);
            if json {
                let _ = writeln!(
                    out,
                    "{}",
                    discoverer.discover_json(&query, &request).map_err(err)?
                );
            } else {
                print_hits(out, &discoverer.discover(&query, &request).map_err(err)?);
            }
        }
        Command::Explain {
            query,
            tool,
            catalog,
            top_k,
            ranking,
            embedding,
            usage,
            json,
        } => {
            let registry = catalog.load_embedded(&embedding)?;
            usage.record(&registry)?;
            let discoverer = registry.discoverer(ranking.options()?);
            let request = DiscoverRequest {
                top_k,
                ..Default::default()
            };
            let e = discoverer.explain(&query, &tool, &request).map_err(err)?;
            if json {
                let _ = writeln!(out, "{}", e.to_json());
            } else {
                print_explanation(out, &e);
            }
        }
        Command::Eval {
            catalog,
            ranking,
            embedding,
            json,
            rankings,
            ablate,
            score,
            label,
            usage,
        } => {
            let read = |file: &str| {
                let path = catalog.join(file);
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))
            };
            let queries = eval::parse_queries(&read("queries.jsonl")?).map_err(err)?;
            if let Some(path) = score {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let m = eval::score_rankings(&queries, &text)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let name = label.unwrap_or_else(|| {
                    path.file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                });
                print_metrics(out, &catalog, &name, &m, json);
                return Ok(());
            }
            let tools = eval::parse_catalog(&read("catalog.json")?).map_err(err)?;
            let registry = Registry::new();
            registry.register(tools).map_err(err)?;
            if let Some(list) = &ablate {
                registry
                    .set_enhanced_analysis(parse_ablation(list)?)
                    .map_err(err)?;
            }
            embedding.attach(&registry, &catalog_key(Some(&catalog.join("catalog.json"))))?;
            let options = ranking.options()?;
            let discoverer = registry.discoverer(options);
            let profile = discoverer.profile().map_err(err)?;
            let leave_one_out = usage.as_deref() == Some("leave-one-out");
            match usage.as_deref() {
                None => {}
                Some("leave-one-out") => {
                    for q in &queries {
                        let names: Vec<&str> = q.relevant.iter().map(String::as_str).collect();
                        registry.record_usage(&names).map_err(err)?;
                    }
                }
                Some(file) => record_usage_file(&registry, std::path::Path::new(file))?,
            }
            let names = |q: &eval::EvalQuery| -> Vec<String> { q.relevant.clone() };
            let mut around = |q: &eval::EvalQuery, before: bool| {
                if !leave_one_out {
                    return;
                }
                let own = names(q);
                let own: Vec<&str> = own.iter().map(String::as_str).collect();
                // A query never sees its own task: out before its discover, back after.
                let _ = if before {
                    registry.unrecord_usage(&own)
                } else {
                    registry.record_usage(&own).map(|_| ())
                };
            };
            let (m, ranked) =
                eval::evaluate_with(&discoverer, &queries, &mut around).map_err(err)?;
            if let Some(path) = rankings {
                let mut text = String::new();
                for r in &ranked {
                    let line = serde_json::json!({"id": r.id, "ranked": r.ranked, "latency_ms": r.latency_ms});
                    let _ = writeln!(text, "{line}");
                }
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            print_metrics(out, &catalog, profile.as_str(), &m, json);
        }
        Command::Embed {
            texts,
            model_dir,
            ids,
        } => {
            use toolregistry::embed::Embedder;
            let dir = model_dir
                .or_else(|| std::env::var_os(toolregistry::embed::MODEL_DIR_ENV).map(Into::into))
                .ok_or("embed: --model-dir DIR or TOOLREGISTRY_MODEL_DIR is required")?;
            let encoder = toolregistry::embed::LocalEncoder::load(&dir).map_err(err)?;
            let texts = if texts.is_empty() {
                let mut input = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut input)
                    .map_err(|e| format!("standard input: {e}"))?;
                input.lines().map(str::to_string).collect()
            } else {
                texts
            };
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let flat = encoder.embed(&refs).map_err(err)?;
            for (i, v) in flat.chunks_exact(encoder.dim().max(1)).enumerate() {
                let vector = serde_json::json!(v);
                if ids {
                    let ids = encoder.token_ids(refs[i]).map_err(err)?;
                    let _ = writeln!(out, "{}", serde_json::json!({"ids": ids, "vector": vector}));
                } else {
                    let _ = writeln!(out, "{vector}");
                }
            }
        }
        Command::Summaries { catalog, json } => {
            let registry = catalog.load()?;
            if json {
                let _ = writeln!(out, "{}", registry.deferred_summaries_json().map_err(err)?);
            } else {
                for s in registry.deferred_summaries().map_err(err)? {
                    let _ = writeln!(out, "- {}: {}", s.name, s.description);
                }
            }
        }
        Command::Schemas {
            catalog,
            api_format,
            exclude_deferred,
            strict,
        } => {
            let registry = catalog.load()?;
            let options = SchemaOptions {
                include_deferred: !exclude_deferred,
                api_format: ApiFormat::parse(&api_format).map_err(err)?,
                strict,
                ..Default::default()
            };
            toolregistry::schema::check_strict(strict, options.api_format, "--strict: options")
                .map_err(err)?;
            let _ = writeln!(out, "{}", registry.schemas_json(&options).map_err(err)?);
        }
    }
    Ok(())
}

fn parse_ablation(list: &str) -> Result<EnhancedAnalysis, String> {
    let mut a = EnhancedAnalysis::default();
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item {
            "nfkc" => a.nfkc = false,
            "split" => a.split_identifiers = false,
            "stem" => a.stem = false,
            "param_docs" => a.param_docs = false,
            "stopwords" => a.stopwords = false,
            "per_field_norm" => a.per_field_norm = false,
            "query_saturation" => a.query_saturation = false,
            "background" => a.background = false,
            "values" => a.query_values_whole = false,
            "name_terms" => a.name_terms = false,
            other => {
                return Err(format!(
                    "--ablate: unknown change {other:?} (expected nfkc, split, stem, param_docs, stopwords, per_field_norm, query_saturation, background, values or name_terms)"
                ));
            }
        }
    }
    Ok(a)
}
