// Package toolregistry embeds the toolregistry engine (a tool registry and BM25F tool discovery
// for LLM agents, written in Rust) through its C ABI.
//
// A Registry holds tool definitions with their metadata. Mark rarely used tools deferred, send
// the model only the core schemas plus the built-in discover_tools (EnableDiscovery), list the
// DeferredSummaries in the system prompt, and answer the model's discover_tools calls with Call.
// A Discoverer searches the same registry directly, with its own ranking options.
//
// The registry also runs the model's tool calls: RegisterFunc attaches a Go function (HostFunc)
// to a tool, SetFallback one function for tools without their own, and Execute takes the
// provider's tool calls (OpenAI chat or Responses, Anthropic, Gemini) and returns the messages
// of the next turn in the same shape. Disable records why a tool is off; ToolsStatus reports it.
//
// Every method is safe for concurrent use by many goroutines: searches run in parallel,
// mutations are serialized by the engine. Close frees the C side (once the calls in flight have
// returned); afterwards every method returns ErrClosed. A Registry or Discoverer that is never closed is
// freed when the garbage collector finds it unreachable, but Close is the way to release it
// promptly. A Discoverer keeps the registry's tools alive, so the two may be closed in any order.
//
// Failures from the engine are *Error values carrying the status Code and a one-line message;
// test them with errors.Is against ErrNotFound, ErrInvalidArgument and the other sentinels.
package toolregistry
