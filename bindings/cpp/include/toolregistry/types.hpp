// toolregistry/types.hpp: status codes, errors, and the value types of requests and answers.
// Part of the header-only C++ wrapper; include "toolregistry.hpp", which documents the conventions.
#ifndef TOOLREGISTRY_TYPES_HPP
#define TOOLREGISTRY_TYPES_HPP

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolregistry.h"

namespace toolregistry {

/// The outcome of a call, as the C ABI's tr_status (same numbers).
enum class Status : std::int32_t {
    Ok = TR_STATUS_OK,
    NullArgument = TR_STATUS_NULL_ARGUMENT,
    InvalidUtf8 = TR_STATUS_INVALID_UTF8,
    InvalidJson = TR_STATUS_INVALID_JSON,
    InvalidArgument = TR_STATUS_INVALID_ARGUMENT,
    NotFound = TR_STATUS_NOT_FOUND,
    TooLarge = TR_STATUS_TOO_LARGE,
    Internal = TR_STATUS_INTERNAL,
    Panic = TR_STATUS_PANIC,
};

/// The status's C name, e.g. "TR_STATUS_NOT_FOUND".
[[nodiscard]] inline std::string_view status_name(Status status) noexcept {
    return tr_status_name(static_cast<std::int32_t>(status));
}

/// The library's version, e.g. "0.1.0" (the shared library actually loaded, not the header's).
[[nodiscard]] inline std::string_view version() noexcept { return tr_version(); }

/// A failed call: what() is the library's one-line message, status() the C status.
class Error : public std::runtime_error {
public:
    Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}

    [[nodiscard]] Status status() const noexcept { return status_; }

private:
    Status status_;
};

/// The provider format a tool schema is rendered in.
enum class ApiFormat { OpenAiChat, OpenAiResponses, Anthropic, Gemini };

/// The format's name in JSON options: "openai-chat", "openai-responses", "anthropic", "gemini".
[[nodiscard]] inline std::string_view to_string(ApiFormat format) noexcept {
    switch (format) {
    case ApiFormat::OpenAiResponses: return "openai-responses";
    case ApiFormat::Anthropic: return "anthropic";
    case ApiFormat::Gemini: return "gemini";
    case ApiFormat::OpenAiChat: break;
    }
    return "openai-chat";
}

/// One discover call's options (Discoverer::discover_with). The filters choose which tools may
/// answer before ranking and `top_k`; scores are as without them.
struct DiscoverRequest {
    /// Most results to return (>= 1).
    std::size_t top_k = 10;
    /// Format of the returned schemas.
    ApiFormat api_format = ApiFormat::OpenAiChat;
    /// Only tools registered under one of these namespaces (ignoring ASCII case); empty: any.
    std::vector<std::string> namespaces;
    /// Only tools carrying at least one of these tags (ignoring ASCII case); empty: any.
    std::vector<std::string> tags;
    /// Only deferred (true) or only loaded (false) tools; empty: both.
    std::optional<bool> deferred;
    /// Render the returned schemas in OpenAI strict mode (OpenAiChat and OpenAiResponses only,
    /// else Status::InvalidArgument); a hit whose schema cannot be strict carries it non-strict,
    /// with Hit::warning saying why.
    bool strict = false;
    /// Most tokens the answer may take (>= 1, else Status::InvalidArgument; empty: no cap),
    /// estimated as the UTF-8 bytes of its JSON (Discoverer::discover_json_with) / 4, rounded up.
    /// Hits keep their schemas while they fit, then come cut to name + one-line summary (no
    /// Hit::schema, Hit::description the first sentence), then stop. The top hit is always
    /// returned, cut if its schema alone is too big.
    std::optional<std::size_t> max_tokens;
};

/// Which schemas Registry::strict_schemas returns: the options of schemas_json, typed.
struct SchemaOptions {
    /// Include deferred tools.
    bool include_deferred = true;
    /// Format of the schemas: OpenAiChat or OpenAiResponses (the others have no strict mode).
    ApiFormat api_format = ApiFormat::OpenAiChat;
    /// Keep only tools with any of these tags; empty: any.
    std::vector<std::string> tags;
    /// Leave out tools with any of these tags.
    std::vector<std::string> exclude_tags;
    /// Exactly these tools, in this order, disabled ones included (the filters above are then
    /// ignored); Status::NotFound naming the first unknown name.
    std::optional<std::vector<std::string>> names;
};

/// A tool OpenAI strict mode could not apply to (its schema is sent non-strict), and why.
struct SchemaWarning {
    std::string name;
    /// What in the schema is in the way, e.g. `settings: an object without "properties" takes
    /// arbitrary keys`.
    std::string reason;
};

/// Registry::strict_schemas' answer: every selected tool's schema, strict where it can be.
struct StrictSchemas {
    /// Each schema as compact JSON, in schemas_json's order: strict ones carry "strict": true,
    /// those named in `warnings` are non-strict.
    std::vector<std::string> tools;
    /// The tools whose schemas cannot be strict without changing their meaning, in tool order.
    std::vector<SchemaWarning> warnings;
};

/// One discover answer entry.
struct Hit {
    std::string name;
    /// The tool's description, or only its first sentence when DiscoverRequest::max_tokens cut the
    /// hit to name + summary.
    std::string description;
    double score = 0.0;
    /// The tool's namespace ("github" for "github-list_issues"), if it has one.
    std::optional<std::string> namespace_name;
    bool deferred = false;
    /// The need of the query this tool answers, in the query's words, when the query holds several
    /// ("convert 100 dollars to euros and then tell me the weather in Paris"); empty for a query
    /// that is one need, and with the discovery option `{"intents": false}`.
    std::optional<std::string> intent;
    /// Why the tool is in the answer when the query did not rank it there: a hit it is used with
    /// brought it in ("used with `add_agenda` in 12 of its 15 tasks"; Registry::record_usage).
    std::optional<std::string> brought_in;
    /// The tool's schema as compact JSON in the requested format: present for an exact-name match
    /// and for deferred tools, unless DiscoverRequest::max_tokens cut the hit to name + summary.
    std::optional<std::string> schema;
    /// Why `schema` is not strict, when DiscoverRequest::strict asked for strict mode and this
    /// tool's schema cannot have it.
    std::optional<std::string> warning;
};

/// One line of the deferred tools' summary (for a system prompt).
struct Summary {
    std::string name;
    /// The first sentence of the tool's description.
    std::string description;
    std::optional<std::string> namespace_name;
};

/// Each side of a "hybrid" ranking for the explained tool (Explanation::hybrid).
struct HybridExplanation {
    std::optional<double> lexical_score;
    std::optional<std::size_t> lexical_rank;
    std::optional<double> cosine;
    std::optional<std::size_t> semantic_rank;
    std::optional<double> fused_score;
    std::optional<std::size_t> fused_rank;
    /// What the query's phrases in the tool's text added to its words score, when any.
    std::optional<double> phrase_score;
    /// Whether the tool had its vector.
    bool embedded = false;
    /// Why a side is missing, when one is.
    std::optional<std::string> note;
};

/// One need of a query that holds several, and how that need's own ranking placed the explained
/// tool (Explanation::intents).
struct IntentExplanation {
    /// The need, as the query words it.
    std::string text;
    /// The tool's score in the need's ranking over that ranking's best (1 for its best tool);
    /// empty when the need's ranking does not hold the tool.
    std::optional<double> relative_score;
    /// The tool's 1-based place in the need's ranking; empty when it is not there.
    std::optional<std::size_t> rank;
};

/// Why a query ranks a tool where it does (the main fields of tr_discoverer_explain's answer).
struct Explanation {
    /// "ranked", "exact_match", "other_exact_match", "disabled", "no_query_tokens",
    /// "no_common_token", "below_top_k" or "below_score_floor".
    std::string outcome;
    /// A readable sentence saying the same.
    std::string reason;
    /// The tool's score, when it was scored.
    std::optional<double> score;
    /// Its 1-based rank among the scored tools, when it was ranked.
    std::optional<std::size_t> rank;
    /// The query tokens that were scored, after analysis and the query filter.
    std::vector<std::string> scored_tokens;
    /// The ranking profile ("reference", "enhanced" or "hybrid").
    std::string profile;
    /// Each side of the fusion when ranked with "hybrid".
    std::optional<HybridExplanation> hybrid;
    /// The query's needs in query order when it holds several (then `score` and `rank` are the
    /// merged ones); empty for a query that is one need.
    std::vector<IntentExplanation> intents;
    /// The need of the query the tool answers (as Hit::intent); empty when the query is one need
    /// or no need's ranking holds the tool.
    std::optional<std::string> intent;
    /// The whole answer, including the per-token and per-field breakdown.
    std::string json;
};

/// A host function's ordinary failure. Throw it from a registered function to give the model an
/// error result whose text is exactly what() (the model reads "Error: " and the message):
///
///     throw toolregistry::ToolError("upstream returned 503");
///
/// Any other exception is a bug in the host, not an answer: a std::exception is reported as
/// `the host function of "NAME" panicked: <what()>` and anything else as `... panicked: unknown
/// exception`, the same text the Go and C# bindings give for a panic or an unexpected exception.
/// A toolregistry::Error thrown by a registry call made inside the function counts as such too.
class ToolError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A host function: gets the call's arguments (compact JSON of an object, already checked against
/// the tool's schema) and returns the text the model sees, or throws ToolError.
using ToolFunction = std::function<std::string(std::string_view args_json)>;

/// A host function that is also told which tool was called: for a fallback, or one function
/// serving several tools.
using NamedToolFunction = std::function<std::string(std::string_view tool_name, std::string_view args_json)>;

/// Options of Registry::execute.
struct ExecuteOptions {
    /// Forces the provider shape of the calls (and of the answer); detected when empty.
    std::optional<ApiFormat> api_format;
    /// Also return the rebuilt assistant turn, first.
    bool include_assistant = false;
    /// Run up to this many calls at once on library threads (1..64; 1 runs them one after another
    /// on the calling thread).
    unsigned parallel = 1;

    /// The options as the C ABI's JSON, e.g. `{"include_assistant":false,"parallel":4}`.
    [[nodiscard]] std::string to_json() const {
        std::string out = "{";
        if (api_format) out += "\"api_format\":\"" + std::string(to_string(*api_format)) + "\",";
        out += std::string("\"include_assistant\":") + (include_assistant ? "true" : "false");
        out += ",\"parallel\":" + std::to_string(parallel) + "}";
        return out;
    }
};

/// One call of a two-step plan that the host runs (Registry::prepare_calls).
struct HostCall {
    /// Unique within the plan; finish_calls matches results by it.
    std::string id;
    /// The registered tool name (call_deferred already resolved to its target).
    std::string name;
    /// The arguments object as the library's compact JSON, already checked against the schema.
    std::string arguments_json;
    /// False: run this call alone (after the earlier host calls ended, before later ones start).
    bool concurrency_safe = true;
};

/// A plan of the two-step tool loop: the library's JSON, to hand back to finish_calls unchanged
/// (nothing is kept in the library in between), and the calls the host must run, in call order.
/// Calls the library answered itself (discover_tools, unknown tool, invalid arguments...) are in
/// `json` only.
struct Plan {
    std::string json;
    std::vector<HostCall> calls;
};

/// A host call's outcome for finish_calls: the text the model sees, an error (the model reads
/// "Error: " + text), or "unhandled" (the host has no function for that tool: the library writes
/// the error result execute gives).
struct CallResult {
    enum class Kind { Content, Error, Unhandled };
    std::string id;
    Kind kind = Kind::Content;
    std::string text;

    [[nodiscard]] static CallResult content(std::string id, std::string text) {
        return {std::move(id), Kind::Content, std::move(text)};
    }
    [[nodiscard]] static CallResult error(std::string id, std::string message) {
        return {std::move(id), Kind::Error, std::move(message)};
    }
    [[nodiscard]] static CallResult unhandled(std::string id) { return {std::move(id), Kind::Unhandled, {}}; }
};

/// One registered tool's state, as Registry::tools_status reports it.
struct ToolStatus {
    std::string name;
    std::optional<std::string> namespace_name;
    /// False when the tool or its namespace is disabled.
    bool enabled = true;
    /// Why it is disabled, when the operator said (Registry::disable).
    std::optional<std::string> reason;
    bool deferred = false;
    std::vector<std::string> tags;
    /// A call would reach a host function: the tool's own, or the fallback.
    bool callable = false;
    /// The tool's vector when the registry has an embedder: "ready", "pending", "failed" or
    /// "none"; empty without an embedder.
    std::optional<std::string> embedding;
};

/// A host embedder: one vector of the embedder's dimension per text, in order (the library
/// normalizes them). Called on the registry's embedding thread for the catalog and on the
/// discovering thread for a query, possibly at once; it may call the registry. An exception, a
/// wrong count or length fails that batch only (the tools stay findable by words).
using EmbedFunction = std::function<std::vector<std::vector<float>>(const std::vector<std::string>& texts)>;

/// What a registry's embedder has done (Registry::embedding_status).
struct EmbeddingStatus {
    /// The embedder's identity ("host:<dim>" unless set).
    std::string embedder;
    std::size_t dim = 0;
    /// Enabled tools with their vector, waiting for it, and failed (found by words only).
    std::size_t ready = 0;
    std::size_t pending = 0;
    std::size_t failed = 0;
    /// Vectors computed since the embedder was set (the others came from the cache).
    std::size_t embedded = 0;
    /// The last warnings: a cache file ignored, a batch that failed.
    std::vector<std::string> warnings;
};

/// What a registry's usage (co-use) holds (Registry::usage_status).
struct UsageStatus {
    /// The calls the library runs are recorded (Registry::enable_usage).
    bool recording = false;
    /// The usage file, if any.
    std::optional<std::string> path;
    /// Tasks recorded, loaded ones included, and tools with counts.
    std::uint64_t tasks = 0;
    std::size_t tools = 0;
    /// Bytes the counts take in memory, about.
    std::size_t memory_bytes = 0;
    /// Why the file was ignored at start (an empty start), or why the last write failed.
    std::optional<std::string> warning;
};

}  // namespace toolregistry

#endif  // TOOLREGISTRY_TYPES_HPP
