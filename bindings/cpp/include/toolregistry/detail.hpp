// toolregistry/detail.hpp: what the handle classes share and users never call: C strings in and
// out, error checks, option JSON, the answer parser, and the host-function trampoline.
// Part of the header-only C++ wrapper; include "toolregistry.hpp", which documents the conventions.
#ifndef TOOLREGISTRY_DETAIL_HPP
#define TOOLREGISTRY_DETAIL_HPP

#include <cstring>

#include "types.hpp"

// Number parsing for the answer parser: std::from_chars where the library has it for doubles.
#if __has_include(<charconv>)
#include <charconv>
#endif
#if !defined(__cpp_lib_to_chars) || __cpp_lib_to_chars < 201611L
#include <locale>
#include <sstream>
#endif

namespace toolregistry {
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
        hit.intent = optional_string(item, "intent");
        hit.brought_in = optional_string(item, "brought_in");
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

/// A plan of tr_*_prepare_calls: its host calls, copied out of the JSON (which the Plan keeps).
[[nodiscard]] inline Plan parse_plan(std::string json) {
    Plan plan;
    plan.json = std::move(json);
    JsonValue doc = JsonParser(plan.json).parse();
    for (const JsonValue& call : member(doc, "calls", JsonValue::Kind::Array).items) {
        if (member(call, "run", JsonValue::Kind::String).string != "host") continue;
        HostCall c;
        c.id = member(call, "id", JsonValue::Kind::String).string;
        c.name = member(call, "name", JsonValue::Kind::String).string;
        c.arguments_json = std::string(member(call, "arguments", JsonValue::Kind::Object).raw);
        const JsonValue* safe = call.find("concurrency_safe");
        c.concurrency_safe = !(safe && safe->kind == JsonValue::Kind::Bool && !safe->boolean);
        plan.calls.push_back(std::move(c));
    }
    return plan;
}

/// The results array of tr_*_finish_calls.
[[nodiscard]] inline std::string results_json(const std::vector<CallResult>& results) {
    std::string out = "[";
    for (const CallResult& r : results) {
        if (out.size() > 1) out += ',';
        out += "{\"id\":" + json_quote(r.id);
        switch (r.kind) {
        case CallResult::Kind::Content: out += ",\"content\":" + json_quote(r.text); break;
        case CallResult::Kind::Error: out += ",\"error\":" + json_quote(r.text); break;
        case CallResult::Kind::Unhandled: out += ",\"unhandled\":true"; break;
        }
        out += '}';
    }
    out += ']';
    return out;
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
        e.intent = optional_string(tool, "intent");
        if (const JsonValue* intents = doc.find("intents"); intents && intents->kind == JsonValue::Kind::Array) {
            for (const JsonValue& item : intents->items) {
                IntentExplanation i;
                i.text = member(item, "text", JsonValue::Kind::String).string;
                if (const JsonValue* v = item.find("relative_score"); v && v->kind == JsonValue::Kind::Number)
                    i.relative_score = v->number;
                if (const JsonValue* v = item.find("rank"); v && v->kind == JsonValue::Kind::Number)
                    i.rank = static_cast<std::size_t>(v->number);
                e.intents.push_back(std::move(i));
            }
        }
        for (const JsonValue& token : expect_array(member(doc, "scored_tokens", JsonValue::Kind::Array)).items)
            if (token.kind == JsonValue::Kind::String) e.scored_tokens.push_back(token.string);
        if (const JsonValue* profile = doc.find("profile"); profile && profile->kind == JsonValue::Kind::String)
            e.profile = profile->string;
        if (const JsonValue* h = doc.find("hybrid"); h && h->kind == JsonValue::Kind::Object) {
            HybridExplanation x;
            auto number = [&](const char* key) -> std::optional<double> {
                const JsonValue* v = h->find(key);
                if (v && v->kind == JsonValue::Kind::Number) return v->number;
                return std::nullopt;
            };
            auto rank = [&](const char* key) -> std::optional<std::size_t> {
                if (auto v = number(key)) return static_cast<std::size_t>(*v);
                return std::nullopt;
            };
            x.lexical_score = number("lexical_score");
            x.lexical_rank = rank("lexical_rank");
            x.cosine = number("cosine");
            x.semantic_rank = rank("semantic_rank");
            x.fused_score = number("fused_score");
            x.fused_rank = rank("fused_rank");
            x.phrase_score = number("phrase_score");
            if (const JsonValue* v = h->find("embedded"); v && v->kind == JsonValue::Kind::Bool) x.embedded = v->boolean;
            x.note = optional_string(*h, "note");
            e.hybrid = std::move(x);
        }
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
        t.embedding = optional_string(item, "embedding");
        out.push_back(std::move(t));
    }
    return out;
}

/// `null` (no embedder) or the status object of tr_registry_embedding_status.
[[nodiscard]] inline std::optional<EmbeddingStatus> parse_embedding_status(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    if (doc.kind == JsonValue::Kind::Null) return std::nullopt;
    EmbeddingStatus s;
    s.embedder = member(doc, "embedder", JsonValue::Kind::String).string;
    auto count = [&](const char* key) {
        return static_cast<std::size_t>(member(doc, key, JsonValue::Kind::Number).number);
    };
    s.dim = count("dim");
    s.ready = count("ready");
    s.pending = count("pending");
    s.failed = count("failed");
    s.embedded = count("embedded");
    for (const JsonValue& w : member(doc, "warnings", JsonValue::Kind::Array).items)
        if (w.kind == JsonValue::Kind::String) s.warnings.push_back(w.string);
    return s;
}

[[nodiscard]] inline UsageStatus parse_usage_status(std::string_view json) {
    JsonValue doc = JsonParser(json).parse();
    UsageStatus s;
    s.recording = member(doc, "recording", JsonValue::Kind::Bool).boolean;
    s.path = optional_string(doc, "path");
    s.tasks = static_cast<std::uint64_t>(member(doc, "tasks", JsonValue::Kind::Number).number);
    s.tools = static_cast<std::size_t>(member(doc, "tools", JsonValue::Kind::Number).number);
    s.memory_bytes = static_cast<std::size_t>(member(doc, "memory_bytes", JsonValue::Kind::Number).number);
    s.warning = optional_string(doc, "warning");
    return s;
}

/// A host embedder as the registry owns it: boxed, passed as the C user data, deleted by
/// delete_embedder exactly once (never during a call).
struct HostEmbedder {
    EmbedFunction function;
};

inline void delete_embedder(void* user_data) noexcept { delete static_cast<HostEmbedder*>(user_data); }

/// Writes `message`, cut to `cap` with its NUL, into the library's error buffer; returns 1.
inline std::int32_t fail_embed(char* error, std::size_t cap, const char* message) noexcept {
    if (error && cap > 0) {
        std::size_t n = std::strlen(message);
        if (n > cap - 1) n = cap - 1;
        std::memcpy(error, message, n);
        error[n] = '\0';
    }
    return 1;
}

/// The tr_embed_fn of every C++ embedder: runs it and copies its vectors; no exception leaves.
inline std::int32_t run_embedder(void* user_data, const char* const* texts, std::size_t count, float* vectors,
                                 std::size_t dim, char* error, std::size_t error_cap) noexcept {
    try {
        std::vector<std::string> batch(texts, texts + count);
        std::vector<std::vector<float>> out = static_cast<const HostEmbedder*>(user_data)->function(batch);
        if (out.size() != count) {
            std::string m = "the embedder returned " + std::to_string(out.size()) + " vectors for " +
                            std::to_string(count) + " texts";
            return fail_embed(error, error_cap, m.c_str());
        }
        for (const auto& v : out)
            if (v.size() != dim) {
                std::string m = "the embedder returned a vector of " + std::to_string(v.size()) +
                                " numbers, expected " + std::to_string(dim);
                return fail_embed(error, error_cap, m.c_str());
            }
        for (std::size_t i = 0; i < count; ++i) std::memcpy(vectors + i * dim, out[i].data(), dim * sizeof(float));
        return 0;
    } catch (const std::exception& e) {
        try {
            std::string m = std::string("the embedder threw: ") + e.what();
            return fail_embed(error, error_cap, m.c_str());
        } catch (...) {
            return fail_embed(error, error_cap, "the embedder threw");
        }
    } catch (...) {
        return fail_embed(error, error_cap, "the embedder threw: unknown exception");
    }
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
}  // namespace toolregistry

#endif  // TOOLREGISTRY_DETAIL_HPP
