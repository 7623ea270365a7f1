// The discover token budget through the wrapper (DiscoverRequest::max_tokens), and strict schemas
// asked for by name (SchemaOptions::names with Registry::strict_schemas).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "toolregistry.hpp"

using toolregistry::ApiFormat;
using toolregistry::DiscoverRequest;
using toolregistry::Hit;
using toolregistry::Registry;
using toolregistry::SchemaOptions;
using toolregistry::Status;
using toolregistry::detail::JsonParser;
using toolregistry::detail::JsonValue;

namespace {

constexpr const char* kQuery = "email message";

// Eight deferred mail tools (so every hit carries its schema), each described in two sentences
// so that a hit cut to name + summary is told apart by its description.
Registry budget_registry() {
    const char* verbs[] = {"Send", "Reply to", "Forward", "Draft", "Archive", "Search", "Label", "Schedule"};
    const char* names[] = {"send", "reply", "forward", "draft", "archive", "search", "label", "schedule"};
    std::string tools = "[";
    for (std::size_t i = 0; i < 8; ++i) {
        if (i > 0) tools += ',';
        tools += std::string(R"({"name": ")") + names[i] + R"(_email", "description": ")" + verbs[i] +
                 R"( an email message. The mail account configured for the agent is used, and the answer says what the server did.",
   "parameters": {"type": "object", "properties": {
     "to": {"type": "string", "description": "Address of the recipient of the message"},
     "subject": {"type": "string", "description": "Subject line of the message"},
     "body": {"type": "string", "description": "Text of the message, plain or Markdown"},
     "cc": {"type": "array", "items": {"type": "string"}, "description": "Addresses to copy"}}, "required": ["to"]},
   "metadata": {"defer": true}})";
    }
    Registry registry;
    (void)registry.register_tools(tools + "]");
    return registry;
}

std::string first_sentence(const std::string& description) {
    return description.substr(0, description.find(". ") + 1);
}

DiscoverRequest budget(std::size_t n) {
    DiscoverRequest request;
    request.max_tokens = n;
    return request;
}

}  // namespace

// Budgets from 1 token to the whole answer: within n*4 bytes (but for the top hit alone, cut),
// the top hit always there, full hits first then cut ones, a prefix of the whole answer. Every
// budget up to 64 tokens, then every 7th (this binary also runs under valgrind), and the whole.
TEST(MaxTokens, EveryBudgetKeepsWithinAndKeepsTheTopHit) {
    Registry registry = budget_registry();
    auto discoverer = registry.discoverer();
    const std::string full = discoverer.discover_json_with(kQuery, DiscoverRequest{});
    const std::vector<Hit> all = discoverer.discover_with(kQuery, DiscoverRequest{});
    ASSERT_GE(all.size(), 4u);
    for (const Hit& h : all) ASSERT_TRUE(h.schema) << h.name << ": a deferred hit has its schema";
    bool saw_mixed = false;
    const std::size_t whole = (full.size() + 3) / 4;
    std::vector<std::size_t> budgets;
    for (std::size_t n = 1; n < whole; n += n < 64 ? 1 : 7) budgets.push_back(n);
    budgets.push_back(whole);
    for (std::size_t n : budgets) {
        SCOPED_TRACE("max_tokens " + std::to_string(n));
        const std::string answer = discoverer.discover_json_with(kQuery, budget(n));
        const std::vector<Hit> hits = toolregistry::detail::parse_hits(answer);
        ASSERT_FALSE(hits.empty());
        ASSERT_EQ(hits[0].name, all[0].name) << "the top hit";
        if (answer.size() > 4 * n) {
            ASSERT_EQ(hits.size(), 1u) << answer;
            ASSERT_FALSE(hits[0].schema) << "over budget only with the top hit cut";
        }
        std::size_t with_schema = 0;
        while (with_schema < hits.size() && hits[with_schema].schema) ++with_schema;
        for (std::size_t i = 0; i < hits.size(); ++i) {
            ASSERT_EQ(hits[i].name, all[i].name) << "a prefix of the unbudgeted answer";
            if (i < with_schema) {
                EXPECT_EQ(hits[i].schema, all[i].schema);
                EXPECT_EQ(hits[i].description, all[i].description);
            } else {
                EXPECT_FALSE(hits[i].schema) << hits[i].name << ": a schema after a cut hit";
                EXPECT_EQ(hits[i].description, first_sentence(all[i].description));
            }
        }
        if (with_schema > 0 && with_schema < hits.size()) saw_mixed = true;
        if (n == whole) {
            EXPECT_EQ(answer, full) << "a budget of the whole answer changes nothing";
        }
    }
    EXPECT_TRUE(saw_mixed) << "no budget gave full hits followed by cut ones";
}

TEST(MaxTokens, TopHitComesCutWhenItsSchemaIsTooBig) {
    Registry registry = budget_registry();
    auto discoverer = registry.discoverer();
    const Hit top = discoverer.discover(kQuery).at(0);
    const std::vector<Hit> hits = discoverer.discover_with(kQuery, budget(1));
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].name, top.name);
    EXPECT_EQ(hits[0].description, first_sentence(top.description));
    EXPECT_EQ(hits[0].score, top.score);
    EXPECT_TRUE(hits[0].deferred);
    EXPECT_FALSE(hits[0].schema);
    EXPECT_FALSE(hits[0].namespace_name);
    const std::vector<Hit> exact = discoverer.discover_with("send_email", budget(10));
    ASSERT_EQ(exact.size(), 1u);
    EXPECT_EQ(exact[0].name, "send_email");
    EXPECT_FALSE(exact[0].schema);
}

TEST(MaxTokens, GenerousBudgetGivesTheSameHitsAsNone) {
    Registry registry = budget_registry();
    auto discoverer = registry.discoverer();
    for (ApiFormat format : {ApiFormat::OpenAiChat, ApiFormat::OpenAiResponses, ApiFormat::Anthropic}) {
        DiscoverRequest none;
        none.api_format = format;
        DiscoverRequest big = none;
        big.max_tokens = 1000000;
        EXPECT_EQ(discoverer.discover_json_with(kQuery, big), discoverer.discover_json_with(kQuery, none));
        const auto a = discoverer.discover_with(kQuery, big);
        const auto b = discoverer.discover_with(kQuery, none);
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].name, b[i].name);
            EXPECT_EQ(a[i].schema, b[i].schema);
        }
    }
    DiscoverRequest strict;
    strict.strict = true;
    strict.top_k = 3;
    const std::string strict_none = discoverer.discover_json_with(kQuery, strict);
    strict.max_tokens = 1000000;
    EXPECT_EQ(discoverer.discover_json_with(kQuery, strict), strict_none);
}

TEST(MaxTokens, OptionsJsonAndZeroRefused) {
    EXPECT_EQ(toolregistry::detail::discover_options(budget(50)),
              R"({"top_k":10,"api_format":"openai-chat","max_tokens":50})");
    Registry registry = budget_registry();
    auto discoverer = registry.discoverer();
    try {
        (void)discoverer.discover_with(kQuery, budget(0));
        ADD_FAILURE() << "max_tokens 0 accepted";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), Status::InvalidArgument);
        EXPECT_NE(std::string(e.what()).find("max_tokens"), std::string::npos) << e.what();
    }
}

// Strict schemas by name: the tools in the order asked (a disabled one too), warnings likewise.
TEST(Strict, SchemasByNameKeepTheOrderAsked) {
    Registry registry;
    (void)registry.register_tools(R"([
      {"name": "send_email", "description": "Send an email to a recipient.",
       "parameters": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                      "required": ["to"]}},
      {"name": "set_config", "description": "Store configuration settings.",
       "parameters": {"type": "object", "properties": {"settings": {"type": "object"}}}},
      {"name": "store_blob", "description": "Store a value of any kind.",
       "parameters": {"type": "object", "properties": {"data": {}}}}
    ])");
    registry.set_enabled("send_email", false);
    const std::vector<std::string> order{"store_blob", "send_email", "set_config"};
    for (ApiFormat format : {ApiFormat::OpenAiChat, ApiFormat::OpenAiResponses}) {
        SCOPED_TRACE(std::string(toolregistry::to_string(format)));
        SchemaOptions options;
        options.api_format = format;
        options.names = order;
        const toolregistry::StrictSchemas set = registry.strict_schemas(options);
        ASSERT_EQ(set.tools.size(), 3u);
        for (std::size_t i = 0; i < 3; ++i) {
            JsonValue schema = JsonParser(set.tools[i]).parse();
            const JsonValue& f = format == ApiFormat::OpenAiResponses ? schema : *schema.find("function");
            EXPECT_EQ(f.find("name")->string, order[i]);
            const JsonValue* strict = f.find("strict");
            EXPECT_EQ(strict != nullptr && strict->boolean, i == 1) << set.tools[i];
        }
        ASSERT_EQ(set.warnings.size(), 2u);
        EXPECT_EQ(set.warnings[0].name, "store_blob");
        EXPECT_EQ(set.warnings[1].name, "set_config");
        EXPECT_EQ(set.warnings[1].reason, R"(settings: an object without "properties" takes arbitrary keys)");
    }
    SchemaOptions unknown;
    unknown.names = std::vector<std::string>{"send_email", "nope"};
    try {
        (void)registry.strict_schemas(unknown);
        ADD_FAILURE() << "an unknown name accepted";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), Status::NotFound);
        EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
    }
}
