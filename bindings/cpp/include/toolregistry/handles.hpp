// toolregistry/handles.hpp: the classes that own a C handle: Registry, Discoverer and Conversation.
// Part of the header-only C++ wrapper; include "toolregistry.hpp", which documents the conventions.
#ifndef TOOLREGISTRY_HANDLES_HPP
#define TOOLREGISTRY_HANDLES_HPP

#include <chrono>

#include "detail.hpp"

namespace toolregistry {
class Discoverer;
class Conversation;

/// A tool registry: the tools, their metadata and enabled state, and the search index.
/// Move-only; thread-safe (see the header comment).
class Registry {
public:
    /// An empty registry with default options.
    Registry() : Registry(std::string_view{}) {}

    /// An empty registry; `options_json` is empty (defaults) or `{"discovery": {...}}`, which
    /// enables discover_tools at once.
    explicit Registry(std::string_view options_json) {
        detail::OptionalCString options(options_json, "options_json");
        tr_registry* raw = nullptr;
        detail::call_checked([&](char** err) { return tr_registry_new(options.get(), &raw, err); });
        handle_.reset(raw);
    }

    Registry(Registry&&) noexcept = default;
    Registry& operator=(Registry&&) noexcept = default;
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;
    ~Registry() = default;

    /// Registers one tool or a JSON array of tools (all or nothing), in any accepted shape; a
    /// name already registered is replaced in place. Returns the registered names.
    std::vector<std::string> register_tools(std::string_view tools_json) {
        std::string tools = detail::c_string(tools_json, "tools_json");
        return detail::parse_strings(detail::call_with_output([&](char** out, char** err) {
            return tr_registry_register(handle_.get(), tools.c_str(), out, err);
        }));
    }

    /// Removes a tool (Status::NotFound if there is none by that name).
    void unregister(std::string_view name) {
        std::string n = detail::c_string(name, "name");
        detail::call_checked([&](char** err) { return tr_registry_unregister(handle_.get(), n.c_str(), err); });
    }

    /// Replaces the given fields of a tool's metadata: `{"defer"?, "tags"?, "search_hint"?}`.
    void set_metadata(std::string_view name, std::string_view metadata_json) {
        std::string n = detail::c_string(name, "name");
        std::string m = detail::c_string(metadata_json, "metadata_json");
        detail::call_checked(
            [&](char** err) { return tr_registry_set_metadata(handle_.get(), n.c_str(), m.c_str(), err); });
    }

    /// Enables or disables a tool, or every tool of a namespace.
    void set_enabled(std::string_view name, bool enabled) {
        std::string n = detail::c_string(name, "name");
        detail::call_checked(
            [&](char** err) { return tr_registry_set_enabled(handle_.get(), n.c_str(), enabled, err); });
    }

    /// The enabled tools' schemas as a JSON array, sorted by name. `options_json`: empty or
    /// `{"include_deferred"?, "api_format"?, "tags"?, "exclude_tags"?, "names"?, "strict"?}` (with
    /// names: exactly those tools, see schemas_json_for; with `"strict": true` the answer is
    /// `{"tools": [...], "warnings": [...]}`, see strict_schemas).
    [[nodiscard]] std::string schemas_json(std::string_view options_json = {}) const {
        detail::OptionalCString options(options_json, "options_json");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_registry_get_schemas(handle_.get(), options.get(), out, err);
        });
    }

    /// The schemas `options` selects, in OpenAI strict mode: every schema that can be strict is
    /// (closed objects, every property required, optional ones nullable, "strict": true); the
    /// others are returned non-strict and named in `warnings`, never left out.
    /// Status::InvalidArgument for ApiFormat::Anthropic or Gemini (no strict mode there).
    [[nodiscard]] StrictSchemas strict_schemas(const SchemaOptions& options = {}) const {
        return detail::parse_strict_schemas(schemas_json(detail::strict_schema_options(options)));
    }

    /// The enabled deferred tools' one-line summaries as JSON, in registration order.
    [[nodiscard]] std::string deferred_summaries_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_registry_deferred_summaries(handle_.get(), out, err); });
    }

    /// The enabled deferred tools' one-line summaries, in registration order.
    [[nodiscard]] std::vector<Summary> deferred_summaries() const {
        return detail::parse_summaries(deferred_summaries_json());
    }

    /// Registers the built-in discover_tools with ranking options (empty: defaults); again
    /// replaces the options.
    void enable_discovery(std::string_view options_json = {}) {
        detail::OptionalCString options(options_json, "options_json");
        detail::call_checked(
            [&](char** err) { return tr_registry_enable_discovery(handle_.get(), options.get(), err); });
    }

    /// Runs a built-in tool (discover_tools) as a model's tool call would; returns its JSON answer.
    [[nodiscard]] std::string call(std::string_view tool_name, std::string_view args_json) {
        std::string name = detail::c_string(tool_name, "tool_name");
        std::string args = detail::c_string(args_json, "args_json");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_registry_call(handle_.get(), name.c_str(), args.c_str(), out, err);
        });
    }

    /// discover_tools through call(): the ranking options given to enable_discovery apply.
    [[nodiscard]] std::vector<Hit> discover_tools(std::string_view query, std::size_t top_k = 10,
                                                  ApiFormat format = ApiFormat::OpenAiChat) {
        std::string args = "{\"query\":" + detail::json_quote(detail::c_string(query, "query")) +
                           ",\"top_k\":" + std::to_string(top_k) + ",\"api_format\":" +
                           detail::json_quote(to_string(format)) + "}";
        return detail::parse_hits(call("discover_tools", args));
    }

    /// Registers one tool (any accepted shape) with the function that runs its calls; returns
    /// its registered name. A tool of that name is replaced, with its function.
    ///
    /// The registry owns `function` from here on, also when registration fails (it is then
    /// destroyed before this throws): it is destroyed exactly once, when the tool is unregistered
    /// or replaced or the registry destroyed, never while a call of it runs, on any thread. It
    /// runs on the thread calling execute(), or on library threads (several at once) with
    /// `parallel` > 1, so it must be safe to call concurrently then. It may call this registry
    /// (register, discover, execute...); what it captures by reference must outlive the tool.
    /// Throw ToolError for an ordinary failure (see ToolError for other exceptions).
    /// Errors: Status::NullArgument (an empty function), InvalidJson, InvalidArgument (not exactly
    /// one tool, a reserved name: discover_tools, call_deferred), TooLarge.
    std::string register_callable(std::string_view tool_json, ToolFunction function) {
        if (!function) return register_host(tool_json, nullptr);
        return register_host(tool_json, [f = std::move(function)](std::string_view, std::string_view args) {
            return f(args);
        });
    }

    /// register_callable() with a function that is also told the tool's name.
    std::string register_callable(std::string_view tool_json, NamedToolFunction function) {
        return register_host(tool_json, std::move(function));
    }

    /// Sets the function that runs calls of registered tools without one of their own (a
    /// gateway that routes by tool name); an empty function removes it. The previous fallback
    /// is destroyed once no call of it runs. Same ownership and threading rules as
    /// register_callable().
    void set_fallback(NamedToolFunction function) {
        if (!function) {
            detail::call_checked([&](char** err) {
                return tr_registry_set_fallback(handle_.get(), nullptr, nullptr, nullptr, err);
            });
            return;
        }
        auto host = std::make_unique<detail::HostFunction>(detail::HostFunction{std::move(function)});
        detail::call_checked([&](char** err) {
            // The library owns the box from this call on, whatever it returns.
            return tr_registry_set_fallback(handle_.get(), &detail::run_host_function, host.release(),
                                            &detail::delete_host_function, err);
        });
    }

    /// Removes the fallback.
    void clear_fallback() { set_fallback(nullptr); }

    /// Runs a batch of the model's tool calls (any provider's shape: an OpenAI chat assistant
    /// message or its tool_calls, a Responses output, an Anthropic assistant message or its
    /// content, a Gemini Content or its parts) and returns the messages of the next turn as a
    /// JSON array in the same shape, one result per call in call order. `options_json`: empty
    /// or `{"api_format"?, "include_assistant"?, "parallel"?}`. A bad call becomes an error
    /// result ("Error: ..."), never an exception; this throws only when `calls_json` is no
    /// provider's call list (InvalidJson, InvalidArgument) or the options are bad.
    [[nodiscard]] std::string execute(std::string_view calls_json, std::string_view options_json = {}) {
        std::string calls = detail::c_string(calls_json, "calls_json");
        detail::OptionalCString options(options_json, "options_json");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_registry_execute(handle_.get(), calls.c_str(), options.get(), out, err);
        });
    }

    /// execute() with typed options.
    [[nodiscard]] std::string execute(std::string_view calls_json, const ExecuteOptions& options) {
        return execute(calls_json, options.to_json());
    }

    /// The first step of the two-step tool loop: reads `calls_json` as execute() does
    /// (`options_json`: empty or `{"api_format"?, "include_assistant"?}`) and answers the plan:
    /// the calls the host runs itself, on its own executor, and the library's JSON to hand back
    /// to finish_calls. Throws as execute() does. Thread-safe; the plan may cross threads.
    [[nodiscard]] Plan prepare_calls(std::string_view calls_json, std::string_view options_json = {}) {
        std::string calls = detail::c_string(calls_json, "calls_json");
        detail::OptionalCString options(options_json, "options_json");
        return detail::parse_plan(detail::call_with_output([&](char** out, char** err) {
            return tr_registry_prepare_calls(handle_.get(), calls.c_str(), options.get(), out, err);
        }));
    }

    /// The second step: the plan and exactly one result per host call (any order) give the next
    /// turn's messages, byte for byte what execute() answers for the same outcomes. Throws
    /// Status::InvalidArgument for a missing, duplicated or unknown result id or a malformed plan.
    [[nodiscard]] std::string finish_calls(const Plan& plan, const std::vector<CallResult>& results) {
        std::string p = detail::c_string(plan.json, "plan");
        std::string r = detail::c_string(detail::results_json(results), "results");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_registry_finish_calls(handle_.get(), p.c_str(), r.c_str(), out, err);
        });
    }

    /// Disables a tool or a namespace, recording why (empty: no reason): a model that calls it
    /// gets `tool "NAME" is disabled: REASON`, and tools_status() shows it. set_enabled(name,
    /// true) enables it again and clears the reason. Status::NotFound for an unknown name.
    void disable(std::string_view name, std::string_view reason = {}) {
        std::string n = detail::c_string(name, "name");
        detail::OptionalCString r(reason, "reason");
        detail::call_checked([&](char** err) { return tr_registry_disable(handle_.get(), n.c_str(), r.get(), err); });
    }

    /// Gives the registry a host embedder of `dim`-number vectors; it then ranks with "hybrid"
    /// unless discovery options name another profile. `identity` names the model for the vector
    /// cache at `cache_path` (both may be empty). Replaces any embedder set before (destroyed
    /// once no call of it runs); every enabled tool is embedded again in the background.
    ///
    /// The registry owns `function` from here on, also when this fails (it is then destroyed
    /// before this throws), and destroys it exactly once, on any thread. See EmbedFunction for
    /// threads and failures. Errors: Status::NullArgument (an empty function), InvalidArgument
    /// (a bad dim).
    void set_embedder(std::size_t dim, EmbedFunction function, std::string_view identity = {},
                      std::string_view cache_path = {}) {
        auto host = std::make_unique<detail::HostEmbedder>(detail::HostEmbedder{std::move(function)});
        std::string options = "{\"dim\":" + std::to_string(dim);
        if (!identity.empty()) options += ",\"identity\":" + detail::json_quote(detail::c_string(identity, "identity"));
        if (!cache_path.empty())
            options += ",\"cache_path\":" + detail::json_quote(detail::c_string(cache_path, "cache_path"));
        options += "}";
        detail::call_checked([&](char** err) {
            // The library owns the box from this call on, whatever it returns.
            bool empty = !host->function;
            return tr_registry_set_embedder(handle_.get(), options.c_str(), empty ? nullptr : &detail::run_embedder,
                                            host.release(), &detail::delete_embedder, err);
        });
    }

    /// The pull model, for a host that cannot be called back (an async runtime, another process):
    /// the registry's embedder is the host, which takes the texts with take_embedding_jobs_json()
    /// and gives their vectors back with put_embeddings_json() whenever it has them. A discover
    /// ranked with `hybrid` then needs the query's vector as its option `query_vector`. Errors:
    /// InvalidArgument (a bad dim).
    void set_pull_embedder(std::size_t dim, std::string_view identity = {}, std::string_view cache_path = {}) {
        std::string options = "{\"dim\":" + std::to_string(dim) + ",\"pull\":true";
        if (!identity.empty()) options += ",\"identity\":" + detail::json_quote(detail::c_string(identity, "identity"));
        if (!cache_path.empty())
            options += ",\"cache_path\":" + detail::json_quote(detail::c_string(cache_path, "cache_path"));
        options += "}";
        detail::call_checked([&](char** err) {
            return tr_registry_set_embedder(handle_.get(), options.c_str(), nullptr, nullptr, nullptr, err);
        });
    }

    /// Up to `max` texts waiting for their vectors (0: 64), as `[{"id", "text"}]` (`[]` when none
    /// waits now). Errors: InvalidArgument (the embedder is not pulled).
    [[nodiscard]] std::string take_embedding_jobs_json(std::size_t max = 0) {
        return detail::call_with_output([&](char** out, char** err) {
            return tr_registry_take_embedding_jobs(handle_.get(), max, out, err);
        });
    }

    /// The vectors of taken texts: `[{"id", "vector": [...]} | {"id", "error": "..."}]`. All are
    /// checked before any is applied (InvalidArgument names a wrong length, NaN or zeros).
    void put_embeddings_json(std::string_view results_json) {
        std::string results = detail::c_string(results_json, "results_json");
        detail::call_checked(
            [&](char** err) { return tr_registry_put_embeddings(handle_.get(), results.c_str(), err); });
    }

    /// Waits up to `timeout` for every enabled tool to have its vector (or to have failed); true
    /// when none is left waiting (at once without an embedder). Discovers never need it.
    bool wait_embeddings(std::chrono::milliseconds timeout) const {
        bool done = false;
        auto ms = static_cast<std::uint64_t>(timeout.count() < 0 ? 0 : timeout.count());
        detail::call_checked(
            [&](char** err) { return tr_registry_wait_embeddings(handle_.get(), ms, &done, err); });
        return done;
    }

    /// What the embedder has done; empty without one.
    [[nodiscard]] std::optional<EmbeddingStatus> embedding_status() const {
        return detail::parse_embedding_status(embedding_status_json());
    }

    /// embedding_status() as JSON (`null` without an embedder).
    [[nodiscard]] std::string embedding_status_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_registry_embedding_status(handle_.get(), out, err); });
    }

    /// Every registered tool's state, disabled ones included, sorted by name.
    [[nodiscard]] std::vector<ToolStatus> tools_status() const { return detail::parse_tools_status(tools_status_json()); }

    /// tools_status() as JSON: `[{"name","namespace","enabled","reason","deferred","tags","callable"}]`.
    [[nodiscard]] std::string tools_status_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_registry_tools_status(handle_.get(), out, err); });
    }

    /// Turns usage (co-use learning) on: the tool calls the library runs (execute, the two steps,
    /// conversations) are recorded as tasks, and discovers let their best hits bring in the tools
    /// they are used with (Hit::brought_in). With a path the counts are loaded from that file and
    /// written back to it atomically; a missing or corrupt file is an empty start (a corrupt one's
    /// warning is in usage_status()). Empty path: no file. Same as `{"usage": {"path": ...}}` in
    /// the registry options.
    void enable_usage(std::string_view path = {}) {
        std::string p = detail::c_string(path, "path");
        detail::call_checked([&](char** err) {
            return tr_registry_enable_usage(handle_.get(), path.empty() ? nullptr : p.c_str(), err);
        });
    }

    /// Records one task: these tools were used together (for hosts that run tools themselves;
    /// works whether or not usage is on). Names of no registered tool, repeats and empty names do
    /// not count, nor names past the first 32; returns how many counted (0: nothing recorded).
    /// Invalid UTF-8 in a name throws Status::InvalidUtf8.
    std::size_t record_usage(const std::vector<std::string>& names) {
        std::string json = "[";
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i) json += ',';
            json += detail::json_quote(detail::c_string(names[i], "names"));
        }
        json += ']';
        return record_usage_json(json);
    }

    /// record_usage() from a JSON array of names (`["get_user_token", "add_agenda"]`); anything
    /// else throws Status::InvalidJson or Status::InvalidArgument and records nothing.
    std::size_t record_usage_json(std::string_view names_json) {
        std::string j = detail::c_string(names_json, "names_json");
        std::size_t counted = 0;
        detail::call_checked(
            [&](char** err) { return tr_registry_record_usage(handle_.get(), j.c_str(), &counted, err); });
        return counted;
    }

    /// Writes the usage file now, if there is one and something is unsaved. Status::Internal
    /// when it cannot be written (the counts stay in memory).
    void save_usage() const {
        detail::call_checked([&](char** err) { return tr_registry_save_usage(handle_.get(), err); });
    }

    /// What usage holds: recording, the file, tasks and tools counted, memory, the last warning.
    [[nodiscard]] UsageStatus usage_status() const { return detail::parse_usage_status(usage_status_json()); }

    /// usage_status() as JSON: `{"recording","path","tasks","tools","memory_bytes","warning"}`.
    [[nodiscard]] std::string usage_status_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_registry_usage_status(handle_.get(), out, err); });
    }

    /// The schemas of exactly these tools, in this order, disabled ones and built-ins included, as
    /// a JSON array. Status::NotFound naming the first unknown name.
    [[nodiscard]] std::string schemas_json_for(const std::vector<std::string>& names,
                                               ApiFormat format = ApiFormat::OpenAiChat) const {
        std::string options = "{\"names\":[";
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i) options += ',';
            options += detail::json_quote(detail::c_string(names[i], "names"));
        }
        options += "],\"api_format\":" + detail::json_quote(to_string(format)) + "}";
        return schemas_json(options);
    }

    /// A standalone discoverer with its own ranking options (empty: defaults).
    [[nodiscard]] Discoverer discoverer(std::string_view options_json = {}) const;

    /// A conversation over this registry (see Conversation); `options_json` empty (defaults) or
    /// the conversation options.
    [[nodiscard]] Conversation conversation(std::string_view options_json = {}) const;

    /// The C handle, still owned by this object (nullptr after a move).
    [[nodiscard]] tr_registry* native_handle() const noexcept { return handle_.get(); }

    /// False after this object was moved from.
    explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

private:
    std::unique_ptr<tr_registry, detail::RegistryDeleter> handle_;

    std::string register_host(std::string_view tool_json, NamedToolFunction function) {
        // Boxed first, so it is destroyed if anything below throws before the library owns it.
        auto host = std::make_unique<detail::HostFunction>(detail::HostFunction{std::move(function)});
        std::string tool = detail::c_string(tool_json, "tool_json");
        std::string names = detail::call_with_output([&](char** out, char** err) {
            // The library owns the box from this call on, whatever it returns.
            bool empty = !host->function;
            return tr_registry_register_callable(handle_.get(), tool.c_str(),
                                                 empty ? nullptr : &detail::run_host_function, host.release(),
                                                 &detail::delete_host_function, out, err);
        });
        std::vector<std::string> registered = detail::parse_strings(names);
        if (registered.size() != 1) throw Error(Status::Internal, "toolregistry: expected one registered name");
        return registered.front();
    }
};

/// Ranking options bound to a registry's live state; follows the registry's changes by itself
/// and may outlive the Registry it came from. Move-only; thread-safe.
class Discoverer {
public:
    /// A discoverer on `registry` with its own ranking options (empty: defaults), e.g.
    /// `{"min_score_ratio": 0, "field_weights": {"name": 4.0}}`; `{"intents": false}` ranks every
    /// query as one need (no Hit::intent).
    explicit Discoverer(const Registry& registry, std::string_view options_json = {}) {
        detail::OptionalCString options(options_json, "options_json");
        tr_discoverer* raw = nullptr;
        detail::call_checked([&](char** err) {
            return tr_discoverer_new(registry.native_handle(), options.get(), &raw, err);
        });
        handle_.reset(raw);
    }

    Discoverer(Discoverer&&) noexcept = default;
    Discoverer& operator=(Discoverer&&) noexcept = default;
    Discoverer(const Discoverer&) = delete;
    Discoverer& operator=(const Discoverer&) = delete;
    ~Discoverer() = default;

    /// Finds tools by exact name or natural-language query, best first.
    [[nodiscard]] std::vector<Hit> discover(std::string_view query, std::size_t top_k = 10,
                                            ApiFormat format = ApiFormat::OpenAiChat) const {
        return detail::parse_hits(discover_json(query, detail::discover_options(top_k, format)));
    }

    /// discover() with filters (namespaces, tags, deferred), strict mode and a token budget
    /// (max_tokens); a query `select:a,b,c` returns those tools by exact name, in that order, with
    /// their schemas.
    [[nodiscard]] std::vector<Hit> discover_with(std::string_view query, const DiscoverRequest& request) const {
        return detail::parse_hits(discover_json_with(query, request));
    }

    /// discover_with() as the library's raw JSON: `[{"name", "description", "score", "namespace",
    /// "deferred", "intent"?, "brought_in"?, "schema"?, "warning"?}]`. Its size is what DiscoverRequest::max_tokens
    /// counts.
    [[nodiscard]] std::string discover_json_with(std::string_view query, const DiscoverRequest& request) const {
        return discover_json(query, detail::discover_options(request));
    }

    /// discover() as raw JSON; `options_json`: empty or `{"top_k"?, "api_format"?, "namespaces"?,
    /// "tags"?, "deferred"?, "strict"?, "max_tokens"?}`.
    [[nodiscard]] std::string discover_json(std::string_view query, std::string_view options_json = {}) const {
        std::string q = detail::c_string(query, "query");
        detail::OptionalCString options(options_json, "options_json");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_discoverer_discover(handle_.get(), q.c_str(), options.get(), out, err);
        });
    }

    /// How `query` ranks the tool `tool_name` (Status::NotFound if no such tool).
    [[nodiscard]] Explanation explain(std::string_view query, std::string_view tool_name,
                                      std::size_t top_k = 10) const {
        return detail::parse_explanation(
            explain_json(query, tool_name, "{\"top_k\":" + std::to_string(top_k) + "}"));
    }

    /// explain() as raw JSON, with the per-token and per-field breakdown; `options_json`: empty
    /// or `{"top_k"?}`.
    [[nodiscard]] std::string explain_json(std::string_view query, std::string_view tool_name,
                                           std::string_view options_json = {}) const {
        std::string q = detail::c_string(query, "query");
        std::string name = detail::c_string(tool_name, "tool_name");
        detail::OptionalCString options(options_json, "options_json");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_discoverer_explain(handle_.get(), q.c_str(), name.c_str(), options.get(), out, err);
        });
    }

    /// Rebuilds the index from the registry. Never required; changes no answer.
    void rebuild_index() {
        detail::call_checked([&](char** err) { return tr_discoverer_rebuild_index(handle_.get(), err); });
    }

    /// The C handle, still owned by this object (nullptr after a move).
    [[nodiscard]] tr_discoverer* native_handle() const noexcept { return handle_.get(); }

    /// False after this object was moved from.
    explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

private:
    std::unique_ptr<tr_discoverer, detail::DiscovererDeleter> handle_;
};

inline Discoverer Registry::discoverer(std::string_view options_json) const { return Discoverer(*this, options_json); }

/// The tools of a conversation's next request (Conversation::tools()).
struct ConversationTools {
    std::string tools_json;   ///< the exact `tools` array to send, as JSON
    std::string system_text;  ///< text to add to the system prompt, or ""
    std::string fingerprint;  ///< SHA-256 hex of tools + system_text: changes exactly when they do
};

/// One agent conversation over a registry: the tool list of each request (core tools, the
/// search tool, and the deferred tools the model has found, kept in a prompt-cache-stable order)
/// and the execution of the model's calls in the provider's shape, remembering what the model
/// loaded. Created from a Registry with options JSON, e.g. `{"api_format": "anthropic", "mode":
/// "native"}` (see tr_conversation_new for every option and mode). It keeps the registry's state
/// alive, so it may outlive the Registry object. Move-only; thread-safe (calls on one
/// conversation are serialized). A moved-from object throws Error(Status::NullArgument).
class Conversation {
public:
    explicit Conversation(const Registry& registry, std::string_view options_json = {}) {
        detail::OptionalCString options(options_json, "options_json");
        tr_conversation* raw = nullptr;
        detail::call_checked([&](char** err) {
            return tr_conversation_new(registry.native_handle(), options.get(), &raw, err);
        });
        handle_.reset(raw);
    }

    Conversation(Conversation&&) noexcept = default;
    Conversation& operator=(Conversation&&) noexcept = default;
    Conversation(const Conversation&) = delete;
    Conversation& operator=(const Conversation&) = delete;
    ~Conversation() = default;

    /// The next request's tools, system text and fingerprint.
    [[nodiscard]] ConversationTools tools() const {
        std::string json = tools_json();
        detail::JsonValue doc = detail::JsonParser(json).parse();
        ConversationTools out;
        const detail::JsonValue& tools = detail::member(doc, "tools", detail::JsonValue::Kind::Array);
        out.tools_json = std::string(tools.raw);
        out.system_text = detail::member(doc, "system_text", detail::JsonValue::Kind::String).string;
        out.fingerprint = detail::member(doc, "fingerprint", detail::JsonValue::Kind::String).string;
        return out;
    }

    /// tools() as the library's JSON: `{"tools": [...], "system_text": "...", "fingerprint": "..."}`.
    [[nodiscard]] std::string tools_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_conversation_tools(handle_.get(), out, err); });
    }

    /// Runs the model's tool calls like Registry::execute, in the conversation's format, and
    /// loads the tools the model found or called; returns the messages to send back. A search
    /// is answered in the mode's shape (native: Anthropic tool_reference blocks, Responses
    /// tool_search_output). `options_json`: empty or as for Registry::execute (an `api_format`
    /// must be the conversation's).
    [[nodiscard]] std::string execute(std::string_view calls_json, std::string_view options_json = {}) {
        std::string calls = detail::c_string(calls_json, "calls_json");
        detail::OptionalCString options(options_json, "options_json");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_conversation_execute(handle_.get(), calls.c_str(), options.get(), out, err);
        });
    }

    /// execute() with typed options.
    [[nodiscard]] std::string execute(std::string_view calls_json, const ExecuteOptions& options) {
        return execute(calls_json, options.to_json());
    }

    /// Registry::prepare_calls in this conversation (searches answered in the mode's shape).
    [[nodiscard]] Plan prepare_calls(std::string_view calls_json, std::string_view options_json = {}) {
        std::string calls = detail::c_string(calls_json, "calls_json");
        detail::OptionalCString options(options_json, "options_json");
        return detail::parse_plan(detail::call_with_output([&](char** out, char** err) {
            return tr_conversation_prepare_calls(handle_.get(), calls.c_str(), options.get(), out, err);
        }));
    }

    /// Registry::finish_calls in this conversation; also loads what the calls revealed, in the
    /// order execute() would.
    [[nodiscard]] std::string finish_calls(const Plan& plan, const std::vector<CallResult>& results) {
        std::string p = detail::c_string(plan.json, "plan");
        std::string r = detail::c_string(detail::results_json(results), "results");
        return detail::call_with_output([&](char** out, char** err) {
            return tr_conversation_finish_calls(handle_.get(), p.c_str(), r.c_str(), out, err);
        });
    }

    /// Loads these tools (a JSON array of registered names) as if the model had found them. All
    /// or none: Status::NotFound naming an unknown name, and nothing is loaded.
    void reveal(std::string_view names_json) {
        std::string names = detail::c_string(names_json, "names_json");
        detail::call_checked([&](char** err) { return tr_conversation_reveal(handle_.get(), names.c_str(), err); });
    }

    /// reveal() by names.
    void reveal(const std::vector<std::string>& names) {
        std::string json = "[";
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i) json += ',';
            json += detail::json_quote(detail::c_string(names[i], "names"));
        }
        json += ']';
        reveal(std::string_view(json));
    }

    /// The deferred tools loaded so far, in load order (pass loaded_json() back as the `loaded`
    /// option to restore the conversation).
    [[nodiscard]] std::vector<std::string> loaded() const { return detail::parse_strings(loaded_json()); }

    /// loaded() as a JSON array.
    [[nodiscard]] std::string loaded_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_conversation_loaded(handle_.get(), out, err); });
    }

    /// The C handle, still owned by this object (nullptr after a move).
    [[nodiscard]] tr_conversation* native_handle() const noexcept { return handle_.get(); }

    /// False after this object was moved from.
    explicit operator bool() const noexcept { return static_cast<bool>(handle_); }

private:
    std::unique_ptr<tr_conversation, detail::ConversationDeleter> handle_;
};

inline Conversation Registry::conversation(std::string_view options_json) const {
    return Conversation(*this, options_json);
}
}  // namespace toolregistry

#endif  // TOOLREGISTRY_HANDLES_HPP
