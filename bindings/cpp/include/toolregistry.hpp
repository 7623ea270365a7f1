// toolregistry.hpp: header-only C++17 wrapper over the toolregistry C ABI (toolregistry.h).
//
//   toolregistry::Registry registry;
//   registry.register_tools(R"({"name": "send_email", "description": "Send an email.",
//                               "metadata": {"defer": true}})");
//   auto discoverer = registry.discoverer();
//   for (const auto& hit : discoverer.discover("email someone", 5))
//       std::cout << hit.name << ' ' << hit.score << '\n';
//
// Conventions:
//  - Registry and Discoverer own their C handle (move-only; a moved-from object holds no handle,
//    and calls on it throw Error with Status::NullArgument). A Discoverer shares the registry's
//    state, so it may outlive the Registry it came from.
//  - Every failure throws toolregistry::Error (a std::runtime_error) whose what() is the library's
//    one-line message and whose status() is the C status. Strings the library returns are taken
//    into a std::string (and freed with tr_string_free) before anything can throw.
//  - Strings in are std::string_view (copied to add the NUL the C ABI needs; a view containing a
//    NUL byte is refused with Status::InvalidArgument). For an optional JSON options argument an
//    empty view means "defaults" (NULL in C). Strings out are std::string.
//  - Threads: like the C handles, a Registry and a Discoverer may be used from many threads at
//    once (discovers run in parallel); moving or destroying one while another thread uses it is
//    not allowed.
//  - No third-party JSON library: typed results (Hit, Summary, Explanation, ToolStatus) come
//    from a small parser in namespace detail; every call also has a raw-JSON form.
//  - Host functions (register_callable, set_fallback) are std::function objects the registry
//    owns: they are destroyed exactly once, when the tool is unregistered or replaced, the
//    fallback replaced, the registry destroyed, or the registration fails. An exception never
//    reaches the C library: ToolError becomes an error result with its what() as-is, any other
//    exception `the host function of "NAME" panicked: <what()>` (see ToolError).
//
//   registry.register_callable(R"({"name": "get_weather", "description": "Weather for a city.",
//       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}})",
//       [](std::string_view args) -> std::string { return weather_service(args); });
//   std::string messages = registry.execute(model_reply_json);  // the next turn's messages
#ifndef TOOLREGISTRY_HPP
#define TOOLREGISTRY_HPP

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

#if __has_include(<charconv>)
#include <charconv>
#endif
#if !defined(__cpp_lib_to_chars) || __cpp_lib_to_chars < 201611L
#include <locale>
#include <sstream>
#endif

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
};

namespace detail {

struct StringDeleter {
    void operator()(char* s) const noexcept { tr_string_free(s); }
};
/// A library-owned C string; freed with tr_string_free.
using OwnedString = std::unique_ptr<char, StringDeleter>;

struct RegistryDeleter {
    void operator()(tr_registry* r) const noexcept { tr_registry_free(r); }
};
struct DiscovererDeleter {
    void operator()(tr_discoverer* d) const noexcept { tr_discoverer_free(d); }
};
struct ConversationDeleter {
    void operator()(tr_conversation* c) const noexcept { tr_conversation_free(c); }
};

[[nodiscard]] inline Status to_status(tr_status status) noexcept {
    return static_cast<Status>(static_cast<std::int32_t>(status));
}

/// Throws Error for a failed call. Takes ownership of `err` first, so nothing leaks.
inline void check(tr_status status, char* err) {
    OwnedString message(err);
    if (status == TR_STATUS_OK) return;
    std::string text = message ? std::string(message.get())
                               : std::string(tr_status_name(static_cast<std::int32_t>(status)));
    throw Error(to_status(status), text);
}

/// Runs `call(&out, &err)`; returns *out as a std::string or throws. Both C strings are owned
/// before anything else happens.
template <typename Call>
[[nodiscard]] inline std::string call_with_output(Call&& call) {
    char* out = nullptr;
    char* err = nullptr;
    tr_status status = call(&out, &err);
    OwnedString owned_out(out);
    check(status, err);
    if (!owned_out) throw Error(Status::Internal, "toolregistry: the library returned no output");
    return std::string(owned_out.get());
}

/// Runs `call(&err)` and throws on failure.
template <typename Call>
inline void call_checked(Call&& call) {
    char* err = nullptr;
    tr_status status = call(&err);
    check(status, err);
}

/// A NUL-terminated copy of `s` for the C ABI.
[[nodiscard]] inline std::string c_string(std::string_view s, const char* what) {
    if (s.find('\0') != std::string_view::npos)
        throw Error(Status::InvalidArgument, std::string(what) + ": contains a NUL byte");
    return std::string(s);
}

/// An optional JSON argument: NULL for an empty view, otherwise a NUL-terminated copy.
class OptionalCString {
public:
    OptionalCString(std::string_view s, const char* what) : empty_(s.empty()), text_(c_string(s, what)) {}
    [[nodiscard]] const char* get() const noexcept { return empty_ ? nullptr : text_.c_str(); }

private:
    bool empty_;
    std::string text_;
};

/// `s` as a JSON string literal.
[[nodiscard]] inline std::string json_quote(std::string_view s) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                out += "\\u00";
                out += hex[(static_cast<unsigned char>(c) >> 4) & 0xF];
                out += hex[static_cast<unsigned char>(c) & 0xF];
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

/// `{"top_k": N, "api_format": "..."}`
[[nodiscard]] inline std::string discover_options(std::size_t top_k, ApiFormat format) {
    std::string out = "{\"top_k\":" + std::to_string(top_k) + ",\"api_format\":";
    out += json_quote(to_string(format));
    out += '}';
    return out;
}

/// A DiscoverRequest as the C ABI's discover options JSON.
[[nodiscard]] inline std::string discover_options(const DiscoverRequest& r) {
    std::string out = discover_options(r.top_k, r.api_format);
    out.pop_back();
    auto list = [&out](const char* key, const std::vector<std::string>& items) {
        if (items.empty()) return;
        out += std::string(",\"") + key + "\":[";
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i > 0) out += ',';
            out += json_quote(c_string(items[i], key));
        }
        out += ']';
    };
    list("namespaces", r.namespaces);
    list("tags", r.tags);
    if (r.deferred) out += *r.deferred ? ",\"deferred\":true" : ",\"deferred\":false";
    if (r.strict) out += ",\"strict\":true";
    if (r.max_tokens) out += ",\"max_tokens\":" + std::to_string(*r.max_tokens);
    out += '}';
    return out;
}

/// `items` as a JSON array of strings.
[[nodiscard]] inline std::string json_strings(const std::vector<std::string>& items, const char* what) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += ',';
        out += json_quote(c_string(items[i], what));
    }
    out += ']';
    return out;
}

/// SchemaOptions as the C ABI's schema options JSON, in strict mode.
[[nodiscard]] inline std::string strict_schema_options(const SchemaOptions& o) {
    std::string out = "{\"strict\":true,\"include_deferred\":";
    out += o.include_deferred ? "true" : "false";
    out += ",\"api_format\":" + json_quote(to_string(o.api_format));
    if (!o.tags.empty()) out += ",\"tags\":" + json_strings(o.tags, "tags");
    if (!o.exclude_tags.empty()) out += ",\"exclude_tags\":" + json_strings(o.exclude_tags, "exclude_tags");
    if (o.names) out += ",\"names\":" + json_strings(*o.names, "names");
    out += '}';
    return out;
}

/// A parsed JSON value; `raw` is its exact text in the parsed source (valid while it lives).
struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0.0;
    std::string string;
    std::vector<JsonValue> items;   // array items, or object values
    std::vector<std::string> keys;  // object keys, parallel to items
    std::string_view raw;

    [[nodiscard]] const JsonValue* find(std::string_view key) const noexcept {
        if (kind != Kind::Object) return nullptr;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key) return &items[i];
        return nullptr;
    }
};

/// A small strict JSON parser for the library's answers (which are always valid JSON; anything
/// else is reported as Status::Internal).
class JsonParser {
public:
    explicit JsonParser(std::string_view text) : text_(text) {}

    [[nodiscard]] JsonValue parse() {
        JsonValue value = parse_value(0);
        skip_ws();
        if (pos_ != text_.size()) fail("trailing characters");
        return value;
    }

private:
    std::string_view text_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const char* what) const {
        throw Error(Status::Internal, std::string("toolregistry: unexpected JSON from the library (") + what +
                                          " at offset " + std::to_string(pos_) + ")");
    }
    [[nodiscard]] char peek() const noexcept { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    void skip_ws() noexcept {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            ++pos_;
    }
    void expect_literal(std::string_view literal) {
        if (text_.substr(pos_, literal.size()) != literal) fail("bad literal");
        pos_ += literal.size();
    }

    [[nodiscard]] JsonValue parse_value(int depth) {
        if (depth > 512) fail("nested too deeply");
        skip_ws();
        std::size_t start = pos_;
        JsonValue v;
        char c = peek();
        if (c == '{' || c == '[') {
            bool object = c == '{';
            char close = object ? '}' : ']';
            v.kind = object ? JsonValue::Kind::Object : JsonValue::Kind::Array;
            ++pos_;
            skip_ws();
            if (peek() == close) {
                ++pos_;
            } else {
                for (;;) {
                    if (object) {
                        skip_ws();
                        if (peek() != '"') fail("expected a key");
                        v.keys.push_back(parse_string());
                        skip_ws();
                        if (peek() != ':') fail("expected ':'");
                        ++pos_;
                    }
                    v.items.push_back(parse_value(depth + 1));
                    skip_ws();
                    if (peek() == ',') { ++pos_; continue; }
                    if (peek() == close) { ++pos_; break; }
                    fail("expected ',' or the end of a container");
                }
            }
        } else if (c == '"') {
            v.kind = JsonValue::Kind::String;
            v.string = parse_string();
        } else if (c == 't' || c == 'f') {
            v.kind = JsonValue::Kind::Bool;
            v.boolean = c == 't';
            expect_literal(v.boolean ? "true" : "false");
        } else if (c == 'n') {
            expect_literal("null");
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = JsonValue::Kind::Number;
            v.number = parse_number();
        } else {
            fail("unexpected character");
        }
        v.raw = text_.substr(start, pos_ - start);
        return v;
    }

    [[nodiscard]] double parse_number() {
        std::size_t start = pos_;
        while (pos_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[pos_]) != std::string_view::npos)
            ++pos_;
        std::string_view digits = text_.substr(start, pos_ - start);
        double value = 0.0;
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
        auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
        if (result.ec != std::errc() || result.ptr != digits.data() + digits.size()) fail("bad number");
#else
        // Without floating-point from_chars: a stream in the classic locale (strtod would follow
        // the program's LC_NUMERIC).
        std::istringstream in{std::string(digits)};
        in.imbue(std::locale::classic());
        in >> value;
        if (in.fail() || in.peek() != std::char_traits<char>::eof()) fail("bad number");
#endif
        return value;
    }

    [[nodiscard]] unsigned hex4() {
        if (pos_ + 4 > text_.size()) fail("bad \\u escape");
        unsigned v = 0;
        for (int i = 0; i < 4; ++i) {
            char c = text_[pos_++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
            else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
            else fail("bad \\u escape");
        }
        return v;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    [[nodiscard]] std::string parse_string() {
        ++pos_;  // the opening quote
        std::string out;
        for (;;) {
            if (pos_ >= text_.size()) fail("unterminated string");
            char c = text_[pos_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= text_.size()) fail("unterminated string");
            char e = text_[pos_++];
            switch (e) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (text_.substr(pos_, 2) != "\\u") fail("unpaired surrogate");
                    pos_ += 2;
                    unsigned low = hex4();
                    if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail("unpaired surrogate");
                }
                append_utf8(out, cp);
                break;
            }
            default: fail("bad escape");
            }
        }
    }
};

[[nodiscard]] inline const JsonValue& member(const JsonValue& object, std::string_view key, JsonValue::Kind kind) {
    const JsonValue* v = object.find(key);
    if (!v || v->kind != kind)
        throw Error(Status::Internal, "toolregistry: unexpected JSON from the library (field \"" + std::string(key) +
                                          "\" missing or of the wrong type)");
    return *v;
}

[[nodiscard]] inline std::optional<std::string> optional_string(const JsonValue& object, std::string_view key) {
    const JsonValue* v = object.find(key);
    if (!v || v->kind == JsonValue::Kind::Null) return std::nullopt;
    return member(object, key, JsonValue::Kind::String).string;
}

[[nodiscard]] inline const JsonValue& expect_array(const JsonValue& v) {
    if (v.kind != JsonValue::Kind::Array)
        throw Error(Status::Internal, "toolregistry: unexpected JSON from the library (expected an array)");
    return v;
}

[[nodiscard]] inline std::vector<Hit> parse_hits(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    std::vector<Hit> hits;
    hits.reserve(expect_array(doc).items.size());
    for (const JsonValue& item : doc.items) {
        Hit hit;
        hit.name = member(item, "name", JsonValue::Kind::String).string;
        hit.description = member(item, "description", JsonValue::Kind::String).string;
        hit.score = member(item, "score", JsonValue::Kind::Number).number;
        hit.namespace_name = optional_string(item, "namespace");
        hit.deferred = member(item, "deferred", JsonValue::Kind::Bool).boolean;
        if (const JsonValue* schema = item.find("schema")) hit.schema = std::string(schema->raw);
        hit.warning = optional_string(item, "warning");
        hits.push_back(std::move(hit));
    }
    return hits;
}

/// tr_registry_get_schemas' strict answer: `{"tools": [...], "warnings": [{"name", "reason"}]}`.
[[nodiscard]] inline StrictSchemas parse_strict_schemas(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    StrictSchemas out;
    const JsonValue& tools = member(doc, "tools", JsonValue::Kind::Array);
    out.tools.reserve(tools.items.size());
    for (const JsonValue& tool : tools.items) out.tools.emplace_back(tool.raw);
    for (const JsonValue& item : member(doc, "warnings", JsonValue::Kind::Array).items) {
        SchemaWarning w;
        w.name = member(item, "name", JsonValue::Kind::String).string;
        w.reason = member(item, "reason", JsonValue::Kind::String).string;
        out.warnings.push_back(std::move(w));
    }
    return out;
}

[[nodiscard]] inline std::vector<Summary> parse_summaries(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    std::vector<Summary> summaries;
    summaries.reserve(expect_array(doc).items.size());
    for (const JsonValue& item : doc.items) {
        Summary s;
        s.name = member(item, "name", JsonValue::Kind::String).string;
        s.description = member(item, "description", JsonValue::Kind::String).string;
        s.namespace_name = optional_string(item, "namespace");
        summaries.push_back(std::move(s));
    }
    return summaries;
}

[[nodiscard]] inline std::vector<std::string> parse_strings(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    std::vector<std::string> out;
    out.reserve(expect_array(doc).items.size());
    for (const JsonValue& item : doc.items) {
        if (item.kind != JsonValue::Kind::String)
            throw Error(Status::Internal, "toolregistry: unexpected JSON from the library (expected strings)");
        out.push_back(item.string);
    }
    return out;
}

[[nodiscard]] inline Explanation parse_explanation(std::string json) {
    Explanation e;
    {
        JsonValue doc = JsonParser(json).parse();
        const JsonValue& tool = member(doc, "tool", JsonValue::Kind::Object);
        e.outcome = member(tool, "outcome", JsonValue::Kind::String).string;
        e.reason = member(tool, "reason", JsonValue::Kind::String).string;
        if (const JsonValue* score = tool.find("score"); score && score->kind == JsonValue::Kind::Number)
            e.score = score->number;
        if (const JsonValue* rank = tool.find("rank"); rank && rank->kind == JsonValue::Kind::Number)
            e.rank = static_cast<std::size_t>(rank->number);
        for (const JsonValue& token : expect_array(member(doc, "scored_tokens", JsonValue::Kind::Array)).items)
            if (token.kind == JsonValue::Kind::String) e.scored_tokens.push_back(token.string);
    }
    e.json = std::move(json);
    return e;
}

[[nodiscard]] inline std::vector<ToolStatus> parse_tools_status(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    std::vector<ToolStatus> out;
    out.reserve(expect_array(doc).items.size());
    for (const JsonValue& item : doc.items) {
        ToolStatus t;
        t.name = member(item, "name", JsonValue::Kind::String).string;
        t.namespace_name = optional_string(item, "namespace");
        t.enabled = member(item, "enabled", JsonValue::Kind::Bool).boolean;
        t.reason = optional_string(item, "reason");
        t.deferred = member(item, "deferred", JsonValue::Kind::Bool).boolean;
        for (const JsonValue& tag : member(item, "tags", JsonValue::Kind::Array).items)
            if (tag.kind == JsonValue::Kind::String) t.tags.push_back(tag.string);
        t.callable = member(item, "callable", JsonValue::Kind::Bool).boolean;
        out.push_back(std::move(t));
    }
    return out;
}

/// A host function as the registry owns it: boxed, passed as the C user data, deleted by
/// delete_host_function exactly once (the C library guarantees it, never during a call).
struct HostFunction {
    NamedToolFunction function;
};

inline void delete_host_function(void* user_data) noexcept { delete static_cast<HostFunction*>(user_data); }

/// `name` quoted as the library quotes names in its messages (Rust's `{:?}`: `"` and `\`
/// escaped; names have no whitespace or control characters).
[[nodiscard]] inline std::string quote_name(std::string_view name) {
    std::string out = "\"";
    for (char c : name) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
    return out;
}

/// Fails `call` with `the host function of "NAME" panicked: WHAT`.
inline void fail_panicked(tr_call* call, const char* tool_name, const char* what) noexcept {
    try {
        std::string message = "the host function of " + quote_name(tool_name) + " panicked: " + what;
        tr_call_fail(call, message.c_str());
    } catch (...) {  // out of memory while formatting: still an answer
        tr_call_fail(call, "the host function panicked");
    }
}

/// The tr_tool_fn of every C++ host function: runs it and answers the call; no exception leaves.
inline void run_host_function(void* user_data, const char* tool_name, const char* args_json, tr_call* call) noexcept {
    try {
        std::string result = static_cast<const HostFunction*>(user_data)->function(tool_name, args_json);
        if (result.find('\0') != std::string::npos) {
            std::string message = "the host function of " + quote_name(tool_name) + " returned text with a NUL byte";
            tr_call_fail(call, message.c_str());
            return;
        }
        // Invalid UTF-8 is refused by the library, which then fails the call saying so.
        tr_call_return(call, result.c_str());
    } catch (const ToolError& e) {
        tr_call_fail(call, e.what());
    } catch (const std::exception& e) {
        fail_panicked(call, tool_name, e.what());
    } catch (...) {
        fail_panicked(call, tool_name, "unknown exception");
    }
}

}  // namespace detail

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

    /// Disables a tool or a namespace, recording why (empty: no reason): a model that calls it
    /// gets `tool "NAME" is disabled: REASON`, and tools_status() shows it. set_enabled(name,
    /// true) enables it again and clears the reason. Status::NotFound for an unknown name.
    void disable(std::string_view name, std::string_view reason = {}) {
        std::string n = detail::c_string(name, "name");
        detail::OptionalCString r(reason, "reason");
        detail::call_checked([&](char** err) { return tr_registry_disable(handle_.get(), n.c_str(), r.get(), err); });
    }

    /// Every registered tool's state, disabled ones included, sorted by name.
    [[nodiscard]] std::vector<ToolStatus> tools_status() const { return detail::parse_tools_status(tools_status_json()); }

    /// tools_status() as JSON: `[{"name","namespace","enabled","reason","deferred","tags","callable"}]`.
    [[nodiscard]] std::string tools_status_json() const {
        return detail::call_with_output(
            [&](char** out, char** err) { return tr_registry_tools_status(handle_.get(), out, err); });
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
    /// `{"min_score_ratio": 0, "field_weights": {"name": 4.0}}`.
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
    /// "deferred", "schema"?, "warning"?}]`. Its size is what DiscoverRequest::max_tokens counts.
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

#endif  // TOOLREGISTRY_HPP
