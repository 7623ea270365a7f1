//! The command line: its commands and options (clap), and how the shared ones become a
//! registry (a catalog, a local encoder, recorded usage) and discovery options.

use clap::{Args, Parser, Subcommand};
use toolregistry::{DiscoveryOptions, Profile, Registry, Tool, ToolMetadata, eval};

/// The embedded default catalog (see data/bfcl/SOURCE.md for origin and licence).
pub(crate) const DEFAULT_CATALOG: &str = include_str!("../../data/bfcl/catalog.json");

#[derive(Parser)]
#[command(
    name = "toolregistry",
    version,
    about = "Register LLM tool definitions and discover them by name or query"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
        /// values, name_terms.
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
pub(crate) enum McpAction {
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
pub(crate) struct RankingArgs {
    /// Ranking profile: enhanced (the default; finds the right tool more often) or reference
    /// (exactly the Python reference toolregistry 0.19.0's ranking, for parity).
    #[arg(long, value_name = "PROFILE")]
    pub(crate) profile: Option<String>,
    /// Discovery options as JSON, e.g. '{"min_score_ratio": 0}'.
    #[arg(long)]
    pub(crate) options: Option<String>,
}

impl RankingArgs {
    /// The options JSON with `--profile` folded in.
    pub(crate) fn options(&self) -> Result<DiscoveryOptions, String> {
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
pub(crate) struct EmbeddingArgs {
    /// A sentence-transformers model directory (scripts/fetch-model.sh gets all-MiniLM-L6-v2):
    /// ranks with the hybrid profile unless --profile says otherwise. Default:
    /// $TOOLREGISTRY_MODEL_DIR.
    #[arg(long, value_name = "DIR")]
    pub(crate) model_dir: Option<std::path::PathBuf>,
    /// Where the catalog's vectors are kept between runs (default: a file per catalog and model
    /// under $XDG_CACHE_HOME/toolregistry or ~/.cache/toolregistry).
    #[arg(long, value_name = "FILE")]
    pub(crate) embed_cache: Option<std::path::PathBuf>,
}

impl EmbeddingArgs {
    /// Sets the local encoder on `registry` when a model is named, and waits until its tools
    /// are embedded (a one-shot command wants the answer by meaning); `catalog_key` names the
    /// default cache file.
    pub(crate) fn attach(&self, registry: &Registry, catalog_key: &str) -> Result<(), String> {
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
pub(crate) fn default_cache(key: &str) -> Option<std::path::PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))?;
    Some(base.join("toolregistry").join(format!("{key}.vectors")))
}

/// A file name for a catalog's cache: the embedded one's name, or a hash of the path.
pub(crate) fn catalog_key(path: Option<&std::path::Path>) -> String {
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
pub(crate) struct UsageArg {
    /// Observed tasks, JSON lines `{"tools": [names]}` (one task each, as `eval --usage`):
    /// tools used with the query's best hits may be brought into the answer.
    #[arg(long, value_name = "FILE")]
    pub(crate) usage: Option<std::path::PathBuf>,
}

impl UsageArg {
    /// Records the file's tasks into `registry`, if a file is named.
    pub(crate) fn record(&self, registry: &Registry) -> Result<(), String> {
        match &self.usage {
            Some(path) => record_usage_file(registry, path),
            None => Ok(()),
        }
    }
}

/// Records every task of a usage file (JSON lines) into `registry`, reading a line at a time.
pub(crate) fn record_usage_file(registry: &Registry, path: &std::path::Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("--usage {}: {e}", path.display()))?;
    eval::read_usage(std::io::BufReader::new(file), |names| {
        registry.record_usage(names).map(|_| ())
    })
    .map(|_| ())
    .map_err(|e| format!("--usage {}: {e}", path.display()))
}

#[derive(Args)]
pub(crate) struct CatalogArg {
    /// A JSON file: an array of tools in any accepted shape, an OpenAI `tools` array, or an MCP
    /// `tools/list` result. Default: the embedded BFCL catalog, every tool deferred.
    #[arg(long, value_name = "FILE")]
    pub(crate) catalog: Option<std::path::PathBuf>,
}

impl CatalogArg {
    /// The catalog's registry, with the local encoder when `embedding` names a model.
    pub(crate) fn load_embedded(&self, embedding: &EmbeddingArgs) -> Result<Registry, String> {
        let registry = self.load()?;
        embedding.attach(&registry, &catalog_key(self.catalog.as_deref()))?;
        Ok(registry)
    }

    pub(crate) fn load(&self) -> Result<Registry, String> {
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
