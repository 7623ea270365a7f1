//! `toolregistry`: the command-line program, a thin layer over the library's Rust API.
//!
//! `toolregistry discover "convert currency"` searches the embedded BFCL catalog (1,998 tools, all
//! deferred); `--catalog FILE` searches your own.

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;
use toolregistry::{
    ApiFormat, DiscoverRequest, DiscoveryOptions, Hit, Registry, SchemaOptions, Tool, ToolMetadata,
};

/// The embedded default catalog (see data/bfcl/SOURCE.md for origin and licence).
const DEFAULT_CATALOG: &str = include_str!("../data/bfcl/catalog.json");

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
    /// Find tools by exact name or natural-language query.
    Discover {
        /// A tool name or a few words describing the capability.
        query: String,
        #[command(flatten)]
        catalog: CatalogArg,
        /// Most results to show.
        #[arg(long, short = 'k', default_value_t = 10)]
        top_k: usize,
        /// Schema format in the JSON answer.
        #[arg(long, default_value = "openai-chat")]
        api_format: String,
        /// Discovery options as JSON, e.g. '{"min_score_ratio": 0}'.
        #[arg(long)]
        options: Option<String>,
        /// Print the JSON answer instead of a table.
        #[arg(long)]
        json: bool,
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
    },
}

#[derive(Args)]
struct CatalogArg {
    /// A JSON file: an array of tools in any accepted shape, an OpenAI `tools` array, or an MCP
    /// `tools/list` result. Default: the embedded BFCL catalog, every tool deferred.
    #[arg(long, value_name = "FILE")]
    catalog: Option<std::path::PathBuf>,
}

impl CatalogArg {
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
        Command::Discover {
            query,
            catalog,
            top_k,
            api_format,
            options,
            json,
        } => {
            let registry = catalog.load()?;
            let options = DiscoveryOptions::from_json(options.as_deref()).map_err(err)?;
            let request = DiscoverRequest {
                top_k,
                api_format: ApiFormat::parse(&api_format).map_err(err)?,
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
        } => {
            let registry = catalog.load()?;
            let options = SchemaOptions {
                include_deferred: !exclude_deferred,
                api_format: ApiFormat::parse(&api_format).map_err(err)?,
                ..Default::default()
            };
            let _ = writeln!(out, "{}", registry.schemas_json(&options).map_err(err)?);
        }
    }
    Ok(())
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
    }
}
