// OpenAI strict mode through the wrapper: Registry::strict_schemas, DiscoverRequest::strict, the
// warnings for a schema that cannot be strict, and the refusal for formats without strict mode.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toolregistry.hpp"

using toolregistry::ApiFormat;
using toolregistry::DiscoverRequest;
using toolregistry::Registry;
using toolregistry::SchemaOptions;
using toolregistry::Status;
using toolregistry::detail::JsonParser;
using toolregistry::detail::JsonValue;

namespace {

// One tool strict mode can take (its optional body becomes required and nullable) and one it
// cannot (a free-form object); both deferred, so discover returns their schemas.
constexpr const char* kStrictTools = R"([
  {"name": "send_email", "description": "Send an email to a recipient.",
   "parameters": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                  "required": ["to"]},
   "metadata": {"defer": true}},
  {"name": "set_config", "description": "Store configuration settings.",
   "parameters": {"type": "object", "properties": {"settings": {"type": "object"}}},
   "metadata": {"defer": true}}
])";

constexpr const char* kSetConfigReason = R"(settings: an object without "properties" takes arbitrary keys)";

Registry strict_registry() {
    Registry registry;
    (void)registry.register_tools(kStrictTools);
    return registry;
}

std::vector<std::string> strings(const JsonValue* array) {
    std::vector<std::string> out;
    if (array == nullptr) return out;
    for (const JsonValue& item : array->items) out.push_back(item.string);
    return out;
}

// The function object of an OpenAI schema (chat nests it, responses does not).
const JsonValue& function(const JsonValue& schema, ApiFormat format) {
    return format == ApiFormat::OpenAiResponses ? schema : *schema.find("function");
}

void expect_strict(const JsonValue& f) {
    ASSERT_NE(f.find("strict"), nullptr) << f.raw;
    EXPECT_TRUE(f.find("strict")->boolean);
    const JsonValue& params = *f.find("parameters");
    ASSERT_NE(params.find("additionalProperties"), nullptr) << params.raw;
    EXPECT_EQ(params.find("additionalProperties")->kind, JsonValue::Kind::Bool);
    EXPECT_FALSE(params.find("additionalProperties")->boolean);
    EXPECT_EQ(strings(params.find("required")), (std::vector<std::string>{"to", "body"}));
    EXPECT_EQ(strings(params.find("properties")->find("body")->find("type")),
              (std::vector<std::string>{"string", "null"}));
}

void expect_not_strict(const JsonValue& f) {
    const JsonValue* strict = f.find("strict");
    EXPECT_TRUE(strict == nullptr || !strict->boolean) << f.raw;
    EXPECT_EQ(f.find("parameters")->find("additionalProperties"), nullptr) << f.raw;
}

}  // namespace

TEST(Strict, SchemasMakeWhatTheyCanStrictAndNameTheRest) {
    Registry registry = strict_registry();
    for (ApiFormat format : {ApiFormat::OpenAiChat, ApiFormat::OpenAiResponses}) {
        SchemaOptions options;
        options.api_format = format;
        toolregistry::StrictSchemas set = registry.strict_schemas(options);
        ASSERT_EQ(set.tools.size(), 2u) << "the tool that cannot be strict is still listed";
        JsonValue email = JsonParser(set.tools[0]).parse();
        JsonValue config = JsonParser(set.tools[1]).parse();
        expect_strict(function(email, format));
        EXPECT_EQ(function(config, format).find("name")->string, "set_config");
        expect_not_strict(function(config, format));
        ASSERT_EQ(set.warnings.size(), 1u);
        EXPECT_EQ(set.warnings[0].name, "set_config");
        EXPECT_EQ(set.warnings[0].reason, kSetConfigReason);

        // The raw answer is the same, as an object; without strict, the plain array.
        std::string raw_options = std::string(R"({"strict": true, "api_format": ")") +
                                  std::string(toolregistry::to_string(format)) + "\"}";
        std::string raw_text = registry.schemas_json(raw_options);  // raw views point into it
        JsonValue raw = JsonParser(raw_text).parse();
        ASSERT_EQ(raw.kind, JsonValue::Kind::Object);
        EXPECT_EQ(std::string(raw.find("tools")->items[0].raw), set.tools[0]);
        std::string plain_text = registry.schemas_json();
        JsonValue plain = JsonParser(plain_text).parse();
        ASSERT_EQ(plain.kind, JsonValue::Kind::Array);
        EXPECT_EQ(strings(plain.items[0].find("function")->find("parameters")->find("required")),
                  std::vector<std::string>{"to"});
    }
    // The filters still apply.
    SchemaOptions eager;
    eager.include_deferred = false;
    EXPECT_TRUE(registry.strict_schemas(eager).tools.empty());
    // All strict: an empty warning list.
    registry.unregister("set_config");
    toolregistry::StrictSchemas all = registry.strict_schemas();
    EXPECT_EQ(all.tools.size(), 1u);
    EXPECT_TRUE(all.warnings.empty());
}

TEST(Strict, DiscoverHitsCarryWarnings) {
    Registry registry = strict_registry();
    auto discoverer = registry.discoverer();
    for (ApiFormat format : {ApiFormat::OpenAiChat, ApiFormat::OpenAiResponses}) {
        DiscoverRequest request;
        request.api_format = format;
        request.strict = true;
        auto hits = discoverer.discover_with("send_email", request);
        ASSERT_EQ(hits.size(), 1u);
        ASSERT_TRUE(hits[0].schema);
        expect_strict(function(JsonParser(*hits[0].schema).parse(), format));
        EXPECT_FALSE(hits[0].warning);

        hits = discoverer.discover_with("set_config", request);
        ASSERT_EQ(hits.size(), 1u);
        ASSERT_TRUE(hits[0].schema);
        EXPECT_EQ(hits[0].warning.value_or(""), kSetConfigReason);
        expect_not_strict(function(JsonParser(*hits[0].schema).parse(), format));
    }
    auto plain = discoverer.discover_with("set_config", DiscoverRequest{});
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_FALSE(plain[0].warning);
    plain = discoverer.discover("send_email");
    ASSERT_EQ(plain.size(), 1u);
    EXPECT_EQ(strings(JsonParser(*plain[0].schema).parse().find("function")->find("parameters")->find("required")),
              std::vector<std::string>{"to"});
}

TEST(Strict, RefusedOutsideOpenAI) {
    Registry registry = strict_registry();
    auto discoverer = registry.discoverer();
    for (ApiFormat format : {ApiFormat::Anthropic, ApiFormat::Gemini}) {
        SchemaOptions options;
        options.api_format = format;
        try {
            (void)registry.strict_schemas(options);
            ADD_FAILURE() << toolregistry::to_string(format) << ": strict schemas accepted";
        } catch (const toolregistry::Error& e) {
            EXPECT_EQ(e.status(), Status::InvalidArgument);
            EXPECT_NE(std::string(e.what()).find("strict"), std::string::npos) << e.what();
        }
        DiscoverRequest request;
        request.api_format = format;
        request.strict = true;
        try {
            (void)discoverer.discover_with("send email", request);
            ADD_FAILURE() << toolregistry::to_string(format) << ": strict discover accepted";
        } catch (const toolregistry::Error& e) {
            EXPECT_EQ(e.status(), Status::InvalidArgument);
        }
        request.strict = false;
        EXPECT_FALSE(discoverer.discover_with("send email", request).empty());
    }
}
