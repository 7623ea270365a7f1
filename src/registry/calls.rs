//! What running a call needs from the registry: the target of a name (tool, host function,
//! built-in, fallback), tolerant name resolution and suggestions, the tools' status.

use super::*;

impl Registry {
    /// Runs a built-in tool: `discover_tools` takes `{"query", "top_k"?, "api_format"?,
    /// "namespace"?, "tags"?}` and answers like [`Discoverer::discover_json`](crate::Discoverer::discover_json); `call_deferred` runs
    /// a deferred tool. Calls of registered tools go through `crate::exec` (`tr_registry_execute`).
    pub fn call_json(&self, name: &str, args_json: &str) -> Result<String> {
        let builtin = {
            let state = self.shared.read()?;
            match state.builtin(name) {
                Some(b) => Arc::clone(b),
                None if name == DISCOVER_TOOLS => {
                    return Err(Error::not_found(
                        "discover_tools: discovery is not enabled on this registry",
                    ));
                }
                None if state.slot_of(name).is_some() => {
                    return Err(Error::invalid(format!(
                        "{name:?} is a registered tool, not a built-in: run it with execute (tr_registry_execute)"
                    )));
                }
                None => return Err(Error::not_found(format!("no built-in tool named {name:?}"))),
            }
        };
        // The lock is released: call_deferred runs a host function.
        builtin
            .call(self, args_json)?
            .map_err(|message| Error::invalid(format!("{name}: {message}")))
    }

    /// What running a call of `name` needs, read under the lock and used after it is released.
    pub fn call_target(&self, name: &str) -> Result<CallTarget> {
        let state = self.shared.read()?;
        if let Some(b) = state.builtin(name) {
            return Ok(CallTarget::Builtin(Arc::clone(b)));
        }
        let Some(id) = state.slot_of(name) else {
            return Ok(CallTarget::Unknown);
        };
        let slot = state.slots[id as usize]
            .as_ref()
            .expect("named slot is live");
        if !state.is_enabled(id, slot) {
            return Ok(CallTarget::Disabled {
                reason: state.disabled_reason(id, slot).map(str::to_string),
            });
        }
        let validator = state.validator(&slot.tool);
        Ok(CallTarget::Tool(ToolTarget {
            name: slot.tool.name().to_string(),
            deferred: slot.tool.metadata().defer,
            concurrency_safe: slot.tool.metadata().concurrency_safe,
            validator,
            host: state.extras.host(id).or(state.fallback.0.as_ref()).cloned(),
        }))
    }

    /// The registered spelling of `name`: itself, else the first registered tool (enabled or not)
    /// whose name equals it after lower-casing and reading `/` and `-` as `_` (MCP clients rewrite
    /// names that way).
    pub fn resolve_name(&self, name: &str) -> Result<Option<String>> {
        let state = self.shared.read()?;
        if state.slot_of(name).is_some() {
            return Ok(Some(name.to_string()));
        }
        let normalized = normalize_name(name);
        let itself = state
            .slot_of(&normalized)
            .filter(|&id| normalize_name(state.tool_at(id).name()) == normalized);
        Ok(state
            .names
            .normalized(&state.slots, &normalized)
            .chain(itself)
            .min()
            .map(|id| state.tool_at(id).name().to_string()))
    }

    /// Up to `limit` registered names close to `name`, closest first, for "did you mean": those
    /// equal to it after normalizing (see [`resolve_name`](Self::resolve_name)), then the most
    /// similar by Python's `difflib.get_close_matches` (ratio at least 0.5), as the reference.
    pub fn suggest_names(&self, name: &str, limit: usize) -> Result<Vec<String>> {
        let state = self.shared.read()?;
        let names: Vec<&str> = state.live_slots().map(|(_, s)| s.tool.name()).collect();
        Ok(suggest_names(name, &names, limit))
    }

    /// Every registered tool's status, disabled ones included, sorted by name.
    pub fn tools_status(&self) -> Result<Vec<ToolStatus>> {
        let state = self.shared.read()?;
        let mut all: Vec<ToolStatus> = state
            .live_slots()
            .map(|(id, s)| ToolStatus {
                name: s.tool.name().to_string(),
                namespace: s.tool.namespace().map(str::to_string),
                enabled: state.is_enabled(id, s),
                reason: if state.is_enabled(id, s) {
                    None
                } else {
                    state.disabled_reason(id, s).map(str::to_string)
                },
                deferred: s.tool.metadata().defer,
                tags: s.tool.metadata().tags.clone(),
                callable: state.extras.host(id).is_some() || state.fallback.0.is_some(),
                embedding: state.vectors().map(|v| v.state(id)),
            })
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(all)
    }

    /// [`tools_status`](Self::tools_status) as JSON:
    /// `[{"name","namespace","enabled","reason","deferred","tags","callable","embedding"?}]`
    /// (`embedding` only with an embedder).
    pub fn tools_status_json(&self) -> Result<String> {
        let mut out = vec![b'['];
        for (i, t) in self.tools_status()?.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            write_str(&mut out, &t.name);
            out.extend_from_slice(b",\"namespace\":");
            write_opt_str(&mut out, t.namespace.as_deref());
            out.extend_from_slice(format!(",\"enabled\":{},\"reason\":", t.enabled).as_bytes());
            write_opt_str(&mut out, t.reason.as_deref());
            out.extend_from_slice(format!(",\"deferred\":{},\"tags\":[", t.deferred).as_bytes());
            for (j, tag) in t.tags.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                write_str(&mut out, tag);
            }
            out.extend_from_slice(format!("],\"callable\":{}", t.callable).as_bytes());
            if let Some(e) = t.embedding {
                use crate::embed::store::VectorState;
                out.extend_from_slice(b",\"embedding\":");
                write_str(
                    &mut out,
                    match e {
                        VectorState::Ready => "ready",
                        VectorState::Pending => "pending",
                        VectorState::Failed => "failed",
                        VectorState::None => "none",
                    },
                );
            }
            out.push(b'}');
        }
        out.push(b']');
        Ok(into_string(out))
    }
}

/// How a call of a name will run, as [`Registry::call_target`] found it.
#[derive(Clone)]
pub enum CallTarget {
    /// A built-in the library runs.
    Builtin(Arc<dyn Builtin>),
    /// An enabled registered tool.
    Tool(ToolTarget),
    /// A registered tool that is disabled, and why if the operator said.
    Disabled {
        /// The disable reason.
        reason: Option<String>,
    },
    /// No tool of that name is registered.
    Unknown,
}

/// An enabled registered tool, ready to run without the registry lock.
#[derive(Clone)]
pub struct ToolTarget {
    /// Registered name.
    pub name: String,
    /// Whether the tool is deferred.
    pub deferred: bool,
    /// Whether it may run beside other calls.
    pub concurrency_safe: bool,
    /// Its parameters schema, compiled.
    pub validator: Arc<ArgsValidator>,
    /// Its host function, or the fallback; `None` when neither exists.
    pub host: Option<HostFn>,
}

/// One row of [`Registry::tools_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolStatus {
    /// Registered name.
    pub name: String,
    /// Namespace, if any.
    pub namespace: Option<String>,
    /// Whether the tool is enabled (its namespace included).
    pub enabled: bool,
    /// Why it is disabled, when the operator said.
    pub reason: Option<String>,
    /// Whether it is deferred.
    pub deferred: bool,
    /// Its tags.
    pub tags: Vec<String>,
    /// Whether a call would reach a host function (its own or the fallback).
    pub callable: bool,
    /// With an embedder: whether the tool has its vector (`Ready`), waits for it (`Pending`:
    /// found by words until then), or the embedder failed on it (`Failed`). `None` without one.
    pub embedding: Option<crate::embed::store::VectorState>,
}
