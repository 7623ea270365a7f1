//! The downstream servers' prompts and resources, passed through. Prompts are namespaced the way
//! tools are (`SERVER-PROMPT`); a resource keeps its URI (clients and servers cite it) and its
//! name is namespaced; a read goes to the server that lists the URI. Lists are asked of the
//! running servers when the client asks, so they are always current.

use super::downstream::Downstream;
use super::reload::Servers;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, Prompt, ReadResourceRequestParams,
    ReadResourceResponse, Resource,
};
use rmcp::{ErrorData, Peer, RoleClient};
use std::sync::Arc;

/// The running servers that declared `capability` (`prompts` or `resources`), with their peers.
fn offering(servers: &Servers, prompts: bool) -> Vec<(Arc<Downstream>, Peer<RoleClient>)> {
    servers
        .live()
        .into_iter()
        .filter_map(|s| {
            let peer = s.peer()?;
            let info = peer.peer_info()?;
            let has = if prompts {
                info.capabilities.prompts.is_some()
            } else {
                info.capabilities.resources.is_some()
            };
            has.then_some((s, peer))
        })
        .collect()
}

fn note(server: &Downstream, what: &str, e: impl std::fmt::Display) {
    eprintln!(
        "toolregistry mcp: server {:?}: {what}: {}",
        server.config.name,
        server.config.redact(&e.to_string())
    );
}

/// Every running server's prompts, named `SERVER-PROMPT`.
pub async fn prompts(servers: &Servers) -> Vec<Prompt> {
    let mut out = Vec::new();
    for (server, peer) in offering(servers, true) {
        match tokio::time::timeout(server.config.timeout, peer.list_all_prompts()).await {
            Ok(Ok(list)) => out.extend(list.into_iter().map(|mut p| {
                p.name = format!("{}-{}", server.config.name, p.name);
                p
            })),
            Ok(Err(e)) => note(&server, "prompts/list", e),
            Err(_) => note(&server, "prompts/list", "no answer in time"),
        }
    }
    out
}

/// `prompts/get` of `SERVER-PROMPT`, sent to SERVER as `PROMPT`.
pub async fn get_prompt(
    servers: &Servers,
    mut params: GetPromptRequestParams,
) -> Result<GetPromptResponse, ErrorData> {
    // The longest server name that prefixes the name: "p-q-x" is p-q's x before p's q-x.
    let (server, peer) = offering(servers, true)
        .into_iter()
        .filter(|(s, _)| {
            params
                .name
                .strip_prefix(s.config.name.as_str())
                .is_some_and(|rest| rest.len() > 1 && rest.starts_with('-'))
        })
        .max_by_key(|(s, _)| s.config.name.len())
        .ok_or_else(|| {
            ErrorData::invalid_params(format!("no server has a prompt {:?}", params.name), None)
        })?;
    params.name = params.name[server.config.name.len() + 1..].to_string();
    match tokio::time::timeout(server.config.timeout, peer.get_prompt(params)).await {
        Ok(Ok(result)) => Ok(result.into()),
        Ok(Err(e)) => Err(ErrorData::internal_error(
            server
                .config
                .redact(&format!("MCP server {:?}: {e}", server.config.name)),
            None,
        )),
        Err(_) => Err(ErrorData::internal_error(
            format!("MCP server {:?} did not answer in time", server.config.name),
            None,
        )),
    }
}

/// Every running server's resources, names as `SERVER-NAME`, URIs as they are.
pub async fn resources(servers: &Servers) -> Vec<Resource> {
    let mut out = Vec::new();
    for (server, list) in listed_resources(servers).await {
        out.extend(list.into_iter().map(|mut r| {
            r.name = format!("{}-{}", server.config.name, r.name);
            r
        }));
    }
    out
}

async fn listed_resources(servers: &Servers) -> Vec<(Arc<Downstream>, Vec<Resource>)> {
    let mut out = Vec::new();
    for (server, peer) in offering(servers, false) {
        match tokio::time::timeout(server.config.timeout, peer.list_all_resources()).await {
            Ok(Ok(list)) => out.push((server, list)),
            Ok(Err(e)) => note(&server, "resources/list", e),
            Err(_) => note(&server, "resources/list", "no answer in time"),
        }
    }
    out
}

/// `resources/read`, sent to the server that lists the URI.
pub async fn read_resource(
    servers: &Servers,
    params: ReadResourceRequestParams,
) -> Result<ReadResourceResponse, ErrorData> {
    let owner = listed_resources(servers)
        .await
        .into_iter()
        .find(|(_, list)| list.iter().any(|r| r.uri == params.uri))
        .map(|(s, _)| s)
        .ok_or_else(|| {
            ErrorData::resource_not_found(format!("no server lists {:?}", params.uri), None)
        })?;
    let peer = owner.peer().ok_or_else(|| {
        ErrorData::internal_error(
            format!("MCP server {:?} is not running", owner.config.name),
            None,
        )
    })?;
    match tokio::time::timeout(owner.config.timeout, peer.read_resource(params)).await {
        Ok(Ok(result)) => Ok(result.into()),
        Ok(Err(e)) => Err(ErrorData::internal_error(
            owner
                .config
                .redact(&format!("MCP server {:?}: {e}", owner.config.name)),
            None,
        )),
        Err(_) => Err(ErrorData::internal_error(
            format!("MCP server {:?} did not answer in time", owner.config.name),
            None,
        )),
    }
}
