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

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;
use toolregistry::{
    ApiFormat, DiscoverRequest, DiscoveryOptions, Dropped, EnhancedAnalysis, Explanation, Hit,
    Profile, Registry, SchemaOptions, Tool, ToolMetadata, eval,
};

/// The embedded default catalog (see data/bfcl/SOURCE.md for origin and licence).
const DEFAULT_CATALOG: &str = include_str!("../../data/bfcl/catalog.json");

#[derive(Parser)]
#[command(
    name = "toolregistry",
    version,
    about = "Register LLM tool definitions and discover them by name or query"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find tools by exact name, natural-language query, or `select:NAME,NAME,...`.
    Discover {
        /// A tool name, a few words describing the capability, or `select:a,b,c` (those tools,
        /// by exact name, in that order).
        query: String,
        /// Only tools of this namespace (repeat for any of several).
        #[arg(long = "namespace", value_name = "NS")]
        namespaces: Vec<String>,
        /// Only tools with this tag (repeat for any of several).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        #[command(flatten)]
        catalog: CatalogArg,
        /// Most results to show.
        #[arg(long, short = 'k', default_value_t = 10)]
        top_k: usize,
        /// Schema format in the JSON answer.
        #[arg(long, default_value = "openai-chat")]
        api_format: String,
        #[command(flatten)]
        ranking: RankingArgs,
        #[command(flatten)]
        embedding: EmbeddingArgs,
        #[command(flatten)]
        usage: UsageArg,
        /// Print the JSON answer instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Explain how a query ranks one tool: token verdicts, score per token and field, rank or why not.
    Explain {
        /// The query.
        query: String,
        /// The tool to explain.
        #[arg(long, value_name = "NAME")]
        tool: String,
        #[command(flatten)]
        catalog: CatalogArg,
        /// The answer size the rank is judged against.
        #[arg(long, short = 'k', default_value_t = 10)]
        top_k: usize,
        #[command(flatten)]
        ranking: RankingArgs,
        #[command(flatten)]
        embedding: EmbeddingArgs,
        #[command(flatten)]
        usage: UsageArg,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Measure retrieval quality on a labelled set (DIR/catalog.json + DIR/queries.jsonl):
    /// Recall@1/3/5/10, MRR@10, nDCG@10, zero-result share, latency.
    Eval {
        /// Directory with catalog.json and queries.jsonl (e.g. ../shared/eval/bfcl).
        #[arg(long, value_name = "DIR")]
        catalog: std::path::PathBuf,
        #[command(flatten)]
        ranking: RankingArgs,
        #[command(flatten)]
        embedding: EmbeddingArgs,
        /// Print the metrics as JSON.
        #[arg(long)]
        json: bool,
        /// Write {"id", "ranked": [names], "latency_ms"} per query (JSON lines) to FILE.
        #[arg(long, value_name = "FILE")]
        rankings: Option<std::path::PathBuf>,
        /// Score the rankings in FILE (JSON lines {"id", "ranked": [names]}, optional
        /// "latency_ms"; another engine's, or an earlier --rankings) instead of running the
        /// queries: the same metrics, the same scoring.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["rankings", "ablate"])]
        score: Option<std::path::PathBuf>,
        /// The engine's name in the report of --score (default: the file's name).
        #[arg(long, value_name = "NAME", requires = "score")]
        label: Option<String>,
        /// Usage seen before the queries run: FILE (JSON lines {"tools": [names]}, each one
        /// observed task), or `leave-one-out` (every other query's relevant tools as one task
        /// each: a query never sees its own).
        #[arg(long, value_name = "FILE|leave-one-out", conflicts_with = "score")]
        usage: Option<String>,
        /// Turn enhanced analysis and scoring changes off, for ablation: comma-separated of nfkc,
        /// split, stem, param_docs, stopwords, per_field_norm, query_saturation, background,
        /// values.
        #[arg(long, value_name = "LIST", hide = true)]
        ablate: Option<String>,
    },
    /// Embed texts with a local sentence-transformers model: one JSON array per text (the
    /// arguments, or standard input's lines), in order.
    Embed {
        /// The texts (default: one per line of standard input).
        texts: Vec<String>,
        /// The model directory (default: $TOOLREGISTRY_MODEL_DIR).
        #[arg(long, value_name = "DIR")]
        model_dir: Option<std::path::PathBuf>,
        /// Also print each text's token ids, as {"ids": [...], "vector": [...]}.
        #[arg(long)]
        ids: bool,
    },
    /// One-line summaries of the deferred tools, as a system prompt would list them.
    Summaries {
        #[command(flatten)]
        catalog: CatalogArg,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// The schemas of the enabled tools (JSON), sorted by name.
    Schemas {
        #[command(flatten)]
        catalog: CatalogArg,
        /// openai-chat, openai-responses, anthropic or gemini.
        #[arg(long, default_value = "openai-chat")]
        api_format: String,
        /// Leave deferred tools out.
        #[arg(long)]
        exclude_deferred: bool,
        /// OpenAI strict mode: answers {"tools": [...], "warnings": [...]}.
        #[arg(long)]
        strict: bool,
    },
    /// Serve MCP (stdio, or streamable HTTP with --http) in front of the MCP servers of a config
    /// file, with tool search.
    #[cfg(feature = "mcp")]
    Mcp {
        /// review, approve or scan (none: serve).
        #[command(subcommand)]
        action: Option<McpAction>,
        /// `{"mcpServers": {"NAME": {"command", "args", "env"} or {"url", "headers", "oauth"},
        /// plus "defer", "allow", "deny", "timeout_ms", "trust", "protocol_version"}}`.
        #[arg(long, value_name = "FILE", global = true)]
        config: Option<std::path::PathBuf>,
        /// The pins' state file (default: toolregistry/mcp-state.json in the user's data folder).
        #[arg(long, value_name = "FILE", global = true)]
        state: Option<std::path::PathBuf>,
        /// Open a sign-in's authorization URL with CMD (split at spaces; the URL is its last
        /// argument) instead of the system's opener.
        #[arg(long, value_name = "CMD", global = true)]
        open_with: Option<String>,
        /// Serve clients over streamable HTTP at IP:PORT (path /mcp) instead of stdio. Beyond
        /// loopback it needs --token-file.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// A browser origin allowed to connect (scheme://host:port); repeatable. Others get 403.
        #[arg(long, value_name = "ORIGIN", requires = "http")]
        allow_origin: Vec<String>,
        /// A Host header value allowed besides loopback and the bound address; repeatable.
        #[arg(long, value_name = "HOST", requires = "http")]
        allow_host: Vec<String>,
        /// Clients must send the token in this file as `Authorization: Bearer TOKEN` (with
        /// --console too: its token, instead of a fresh one).
        #[arg(long, value_name = "FILE")]
        token_file: Option<std::path::PathBuf>,
        /// Serve the web console at IP:PORT (loopback; beyond it needs --token-file). Its URL,
        /// with a fresh token, is printed on stderr and written to console-url beside the state.
        #[arg(long, value_name = "ADDR")]
        console: Option<String>,
        /// Most client sessions at once over HTTP.
        #[arg(long, value_name = "N", default_value_t = 64, requires = "http")]
        max_sessions: usize,
        /// Seconds without a request after which a client session ends.
        #[arg(long, value_name = "SECS", default_value_t = 600, requires = "http")]
        session_idle_timeout: u64,
        /// Start each server once, print its state and tool count, and exit.
        #[arg(long)]
        check: bool,
        /// Reload the config on SIGHUP only (by default also when the file changes).
        #[arg(long)]
        no_watch: bool,
        /// A local text encoder: rank with the `hybrid` profile instead of `enhanced`.
        #[arg(long, value_name = "DIR")]
        model_dir: Option<std::path::PathBuf>,
        /// Keep the tools' vectors in FILE, so a restart embeds only the tools that changed.
        #[arg(long, value_name = "FILE")]
        embed_cache: Option<std::path::PathBuf>,
    },
}

/// `toolregistry mcp` subcommands: trust in the downstream servers' tool definitions, and
/// moving a client's servers behind the gateway.
#[cfg(feature = "mcp")]
#[derive(Subcommand)]
enum McpAction {
    /// Read MCP clients' configs (Claude Desktop, Cursor, VS Code, Claude Code) and print the
    /// gateway's config of their servers (literal env and header values withheld), or write it.
    Import {
        /// The clients' config files (claude_desktop_config.json, .cursor/mcp.json,
        /// .vscode/mcp.json or settings.json, .mcp.json).
        #[arg(required = true, value_name = "CONFIG")]
        configs: Vec<std::path::PathBuf>,
        /// Write the gateway's config to FILE (mode 0600; merged into FILE when it exists) and
        /// print the client entry that runs the gateway with it.
        #[arg(long, value_name = "FILE")]
        write: Option<std::path::PathBuf>,
        /// Also replace the servers in each client's config by that entry (servers the gateway
        /// cannot serve stay); keeps a backup (CONFIG.bak), writes atomically, and a second run
        /// changes nothing.
        #[arg(long, requires = "write")]
        rewrite: bool,
        /// The client, when a config's file name does not tell: claude-desktop, cursor, vscode
        /// or claude-code.
        #[arg(long, value_name = "NAME")]
        client: Option<String>,
        /// How the client's entry runs the gateway, e.g. "npx -y toolregistry" (split at
        /// spaces; default: this program's path).
        #[arg(long, value_name = "COMMAND")]
        command: Option<String>,
    },
    /// Sign in to remote server NAME (OAuth, in the browser) ahead of time; the tokens go to
    /// mcp-oauth.json beside the --state file (mode 0600).
    Login {
        /// The server's name in the config.
        name: String,
    },
    /// Forget remote server NAME's tokens and registered clients.
    Logout {
        /// The server's name in the config.
        name: String,
    },
    /// Print each quarantined tool: why, the scanner's findings, a diff old against new.
    Review,
    /// Accept the current definitions of SERVER's quarantined tools (or of SERVER/TOOL).
    Approve {
        /// SERVER or SERVER/TOOL.
        target: String,
    },
    /// Run the tool-text scanner over catalog files (JSON arrays of tools); counts per rule.
    Scan {
        /// Each file is one server; the others' tools are its neighbours.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

#[derive(Args)]
struct RankingArgs {
    /// Ranking profile: enhanced (the default; finds the right tool more often) or reference
    /// (exactly the Python reference toolregistry 0.19.0's ranking, for parity).
    #[arg(long, value_name = "PROFILE")]
    profile: Option<String>,
    /// Discovery options as JSON, e.g. '{"min_score_ratio": 0}'.
    #[arg(long)]
    options: Option<String>,
}

impl RankingArgs {
    /// The options JSON with `--profile` folded in.
    fn options(&self) -> Result<DiscoveryOptions, String> {
        let mut value: serde_json::Value = match &self.options {
            Some(text) => serde_json::from_str(text).map_err(|e| format!("--options: {e}"))?,
            None => serde_json::json!({}),
        };
        if let Some(profile) = &self.profile {
            Profile::parse(profile).map_err(|e| e.to_string())?;
            match value.as_object_mut() {
                Some(obj) => {
                    obj.insert("profile".into(), profile.clone().into());
                }
                None => return Err("--options: expected a JSON object".into()),
            }
        }
        DiscoveryOptions::from_value(&value, "options").map_err(|e| e.to_string())
    }
}

/// Finding tools by meaning: a local model for the `hybrid` profile.
#[derive(Args, Clone)]
struct EmbeddingArgs {
    /// A sentence-transformers model directory (scripts/fetch-model.sh gets all-MiniLM-L6-v2):
    /// ranks with the hybrid profile unless --profile says otherwise. Default:
    /// $TOOLREGISTRY_MODEL_DIR.
    #[arg(long, value_name = "DIR")]
    model_dir: Option<std::path::PathBuf>,
    /// Where the catalog's vectors are kept between runs (default: a file per catalog and model
    /// under $XDG_CACHE_HOME/toolregistry or ~/.cache/toolregistry).
    #[arg(long, value_name = "FILE")]
    embed_cache: Option<std::path::PathBuf>,
}

impl EmbeddingArgs {
    /// Sets the local encoder on `registry` when a model is named, and waits until its tools
    /// are embedded (a one-shot command wants the answer by meaning); `catalog_key` names the
    /// default cache file.
    fn attach(&self, registry: &Registry, catalog_key: &str) -> Result<(), String> {
        let Some(dir) = self
            .model_dir
            .clone()
            .or_else(|| std::env::var_os(toolregistry::embed::MODEL_DIR_ENV).map(Into::into))
        else {
            return Ok(());
        };
        let cache = self
            .embed_cache
            .clone()
            .or_else(|| default_cache(catalog_key));
        let options = toolregistry::EmbeddingOptions {
            model_dir: Some(dir),
            cache_path: cache,
            threads: None,
        };
        registry
            .set_embedding_options(&options)
            .map_err(|e| e.to_string())?;
        let started = std::time::Instant::now();
        let mut told = false;
        while !registry
            .wait_embeddings(std::time::Duration::from_millis(500))
            .map_err(|e| e.to_string())?
        {
            if !told {
                eprintln!(
                    "toolregistry: embedding the catalog's tools (once; kept in the cache for the next runs)..."
                );
                told = true;
            }
        }
        if let Some(s) = registry.embedding_status().map_err(|e| e.to_string())? {
            if told {
                eprintln!(
                    "toolregistry: {} tools embedded in {:.1} s",
                    s.embedded,
                    started.elapsed().as_secs_f64()
                );
            }
            if s.failed > 0 {
                eprintln!(
                    "toolregistry: {} tools could not be embedded: {}",
                    s.failed,
                    s.warnings.last().map_or("", String::as_str)
                );
            }
        }
        Ok(())
    }
}

/// `$XDG_CACHE_HOME/toolregistry/<key>.vectors` (or under `~/.cache`).
fn default_cache(key: &str) -> Option<std::path::PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))?;
    Some(base.join("toolregistry").join(format!("{key}.vectors")))
}

/// A file name for a catalog's cache: the embedded one's name, or a hash of the path.
fn catalog_key(path: Option<&std::path::Path>) -> String {
    match path {
        None => "bfcl-embedded".into(),
        Some(p) => {
            let full = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            let hash = toolregistry::embed::text_hash(&full.to_string_lossy());
            let stem = p
                .file_stem()
                .map_or("catalog".into(), |s| s.to_string_lossy().into_owned());
            format!("{stem}-{:016x}", hash as u64)
        }
    }
}

/// Co-use seen before the query (see docs/usage.md).
#[derive(Args)]
struct UsageArg {
    /// Observed tasks, JSON lines `{"tools": [names]}` (one task each, as `eval --usage`):
    /// tools used with the query's best hits may be brought into the answer.
    #[arg(long, value_name = "FILE")]
    usage: Option<std::path::PathBuf>,
}

impl UsageArg {
    /// Records the file's tasks into `registry`, if a file is named.
    fn record(&self, registry: &Registry) -> Result<(), String> {
        match &self.usage {
            Some(path) => record_usage_file(registry, path),
            None => Ok(()),
        }
    }
}

/// Records every task of a usage file (JSON lines) into `registry`, reading a line at a time.
fn record_usage_file(registry: &Registry, path: &std::path::Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("--usage {}: {e}", path.display()))?;
    eval::read_usage(std::io::BufReader::new(file), |names| {
        registry.record_usage(names).map(|_| ())
    })
    .map(|_| ())
    .map_err(|e| format!("--usage {}: {e}", path.display()))
}

#[derive(Args)]
struct CatalogArg {
    /// A JSON file: an array of tools in any accepted shape, an OpenAI `tools` array, or an MCP
    /// `tools/list` result. Default: the embedded BFCL catalog, every tool deferred.
    #[arg(long, value_name = "FILE")]
    catalog: Option<std::path::PathBuf>,
}

impl CatalogArg {
    /// The catalog's registry, with the local encoder when `embedding` names a model.
    fn load_embedded(&self, embedding: &EmbeddingArgs) -> Result<Registry, String> {
        let registry = self.load()?;
        embedding.attach(&registry, &catalog_key(self.catalog.as_deref()))?;
        Ok(registry)
    }

    fn load(&self) -> Result<Registry, String> {
        let tools = match &self.catalog {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                Tool::parse_catalog(&text).map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => Tool::parse_catalog(DEFAULT_CATALOG)
                .map_err(|e| format!("embedded catalog: {e}"))?
                .into_iter()
                .map(|t| {
                    let metadata = ToolMetadata {
                        defer: true,
                        ..t.metadata().clone()
                    };
                    t.with_metadata(metadata)
                })
                .collect(),
        };
        let registry = Registry::new();
        registry.register(tools).map_err(|e| e.to_string())?;
        registry
            .enable_discovery(DiscoveryOptions::default())
            .map_err(|e| e.to_string())?;
        Ok(registry)
    }
}

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
            other => {
                return Err(format!(
                    "--ablate: unknown change {other:?} (expected nfkc, split, stem, param_docs, stopwords, per_field_norm, query_saturation, background or values)"
                ));
            }
        }
    }
    Ok(a)
}

fn print_metrics(
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

fn print_explanation(out: &mut String, e: &Explanation) {
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
    let _ = writeln!(out, "scored tokens: {}", e.scored_tokens.join(" "));
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
            term.token, term.score, term.idf, term.tf_norm, term.df
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

fn print_hits(out: &mut String, hits: &[Hit]) {
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
