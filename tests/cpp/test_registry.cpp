// The wrapper's main flows, mirroring tests/c/test_basic.c: tool shapes, exact-name and query
// discovery as typed hits, summaries, schemas per format, discover_tools, discoverer lifetimes,
// moves, explain.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "fixtures.hpp"

// toolregistry.h declares no global ApiFormat, so the wrapper's name can be brought in whole.
using toolregistry::ApiFormat;
using Format = ApiFormat;
using toolregistry::Discoverer;
using toolregistry::Hit;
using toolregistry::Registry;

static_assert(!std::is_copy_constructible_v<Registry> && !std::is_copy_assignable_v<Registry>);
static_assert(std::is_nothrow_move_constructible_v<Registry> && std::is_nothrow_move_assignable_v<Registry>);
static_assert(!std::is_copy_constructible_v<Discoverer> && !std::is_copy_assignable_v<Discoverer>);
static_assert(std::is_nothrow_move_constructible_v<Discoverer> && std::is_nothrow_move_assignable_v<Discoverer>);
static_assert(std::is_base_of_v<std::runtime_error, toolregistry::Error>);

TEST(Registry, VersionMatchesHeader) {
    EXPECT_EQ(toolregistry::version(), TOOLREGISTRY_VERSION);
    EXPECT_EQ(toolregistry::status_name(toolregistry::Status::NotFound), "TR_STATUS_NOT_FOUND");
}

TEST(Registry, RegistersEveryShape) {
    Registry registry;
    EXPECT_EQ(registry.register_tools(fixtures::kShapes), fixtures::kNames);
    // A single object, and re-registering a name replaces it in place.
    EXPECT_EQ(registry.register_tools(R"({"name": "flat_add", "description": "Add numbers."})"),
              std::vector<std::string>{"flat_add"});
    std::string schemas = registry.schemas_json();
    EXPECT_NE(schemas.find("Add numbers."), std::string::npos);
    EXPECT_EQ(schemas.find("Add two numbers together."), std::string::npos);
}

TEST(Registry, SchemasInEachFormat) {
    Registry registry = fixtures::make_registry();
    for (Format format : {Format::OpenAiChat, Format::OpenAiResponses, Format::Anthropic, Format::Gemini}) {
        std::string options = "{\"api_format\": \"" + std::string(toolregistry::to_string(format)) + "\"}";
        auto doc = toolregistry::detail::JsonParser(registry.schemas_json(options)).parse();
        ASSERT_EQ(doc.items.size(), fixtures::kNames.size()) << options;
        const auto& first = doc.items.front();  // sorted by name: anthropic_send_email
        switch (format) {
        case Format::OpenAiChat:
            EXPECT_EQ(first.find("function")->find("name")->string, "anthropic_send_email");
            EXPECT_NE(first.find("function")->find("parameters")->find("properties")->find("to"), nullptr);
            break;
        case Format::OpenAiResponses:
            EXPECT_EQ(first.find("type")->string, "function");
            EXPECT_EQ(first.find("name")->string, "anthropic_send_email");
            break;
        case Format::Anthropic:
            EXPECT_NE(first.find("input_schema")->find("properties")->find("to"), nullptr);
            break;
        case Format::Gemini:
            EXPECT_EQ(first.find("parameters")->find("type")->string, "OBJECT");
            break;
        }
    }
    auto eager = toolregistry::detail::JsonParser(registry.schemas_json(R"({"include_deferred": false})")).parse();
    EXPECT_EQ(eager.items.size(), fixtures::kNames.size() - 2);
}

TEST(Registry, DeferredSummaries) {
    Registry registry = fixtures::make_registry();
    auto summaries = registry.deferred_summaries();
    ASSERT_EQ(summaries.size(), 2u);
    EXPECT_EQ(summaries[0].name, "anthropic_send_email");
    EXPECT_EQ(summaries[0].description, "Send an email to a recipient.");
    EXPECT_FALSE(summaries[0].namespace_name.has_value());
    EXPECT_EQ(summaries[1].name, "github-list_issues");
    EXPECT_EQ(summaries[1].description, "List the issues of a repository!");
    EXPECT_EQ(summaries[1].namespace_name, "github");
}

TEST(Discoverer, ExactNameInAnySpelling) {
    Registry registry = fixtures::make_registry();
    Discoverer discoverer = registry.discoverer();
    for (const char* query : {"github-list_issues", "GitHub/List-Issues", "GITHUB_LIST_ISSUES"}) {
        auto hits = discoverer.discover(query);
        ASSERT_EQ(hits.size(), 1u) << query;
        EXPECT_EQ(hits[0].name, "github-list_issues");
        EXPECT_EQ(hits[0].score, 1.0);
        EXPECT_EQ(hits[0].namespace_name, "github");
        EXPECT_TRUE(hits[0].deferred);
        ASSERT_TRUE(hits[0].schema.has_value());
        EXPECT_EQ(hits[0].schema->front(), '{');
    }
    auto anthropic = discoverer.discover("mcp_read_file", 10, Format::Anthropic);
    ASSERT_EQ(anthropic.size(), 1u);
    ASSERT_TRUE(anthropic[0].schema.has_value());
    EXPECT_NE(anthropic[0].schema->find("\"input_schema\""), std::string::npos);
}

TEST(Discoverer, QueryRanksAndCarriesSchemasOfDeferredTools) {
    Registry registry = fixtures::make_registry();
    Discoverer discoverer(registry);
    auto hits = discoverer.discover("send an email message");
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].name, "anthropic_send_email");
    EXPECT_EQ(hits[0].description, "Send an email to a recipient. Uses SMTP.");
    for (const Hit& hit : hits) {
        EXPECT_EQ(hit.schema.has_value(), hit.deferred) << hit.name;
        EXPECT_LE(hit.score, hits[0].score);
        EXPECT_GE(hit.score, 0.3 * hits[0].score);
    }
    auto top1 = discoverer.discover("weather forecast", 1);
    ASSERT_EQ(top1.size(), 1u);
    EXPECT_EQ(top1[0].name, "chat_weather");
    EXPECT_FALSE(top1[0].schema.has_value());

    // The typed answer is the raw answer, parsed.
    std::string raw = discoverer.discover_json("weather forecast", R"({"top_k": 1})");
    EXPECT_NE(raw.find("\"chat_weather\""), std::string::npos);

    // Mutations are seen at once; rebuild_index changes nothing.
    registry.set_enabled("github", false);
    auto after = discoverer.discover("github-list_issues");
    EXPECT_TRUE(after.empty() || after[0].name != "github-list_issues");
    registry.set_enabled("github", true);
    registry.set_metadata("chat_weather", R"({"search_hint": "umbrella"})");
    std::string before = discoverer.discover_json("umbrella");
    discoverer.rebuild_index();
    EXPECT_EQ(discoverer.discover_json("umbrella"), before);
    EXPECT_EQ(discoverer.discover("umbrella").at(0).name, "chat_weather");
    registry.unregister("chat_weather");
    EXPECT_TRUE(discoverer.discover("umbrella").empty());
}

TEST(Registry, DiscoverToolsThroughCall) {
    Registry registry = fixtures::make_registry();
    registry.enable_discovery();
    Discoverer discoverer = registry.discoverer();
    std::string via_call = registry.call("discover_tools", R"({"query": "translate text", "top_k": 3})");
    EXPECT_EQ(via_call, discoverer.discover_json("translate text", R"({"top_k": 3})"));
    auto hits = registry.discover_tools("translate text", 3);
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].name, "responses_translate");
    // Queries with quotes and control characters are escaped on the way in.
    EXPECT_NO_THROW((void)registry.discover_tools("say \"hi\"\n\ttranslate \\ text"));

    std::string schemas = registry.schemas_json();
    EXPECT_NE(schemas.find("- anthropic_send_email: Send an email to a recipient."), std::string::npos);
}

TEST(Discoverer, OutlivesItsRegistry) {
    std::optional<Discoverer> discoverer;
    {
        Registry registry = fixtures::make_registry();
        discoverer.emplace(registry, R"({"min_score_ratio": 0})");
    }
    auto hits = discoverer->discover("read the file contents");
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].name, "mcp_read_file");
    discoverer.reset();

    // And the other order.
    Registry registry = fixtures::make_registry();
    { Discoverer short_lived = registry.discoverer(); }
    EXPECT_EQ(registry.deferred_summaries().size(), 2u);
}

TEST(Moves, TransferOwnershipAndLeaveAnEmptyObject) {
    Registry a = fixtures::make_registry();
    tr_registry* handle = a.native_handle();
    Registry b(std::move(a));
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): checking the moved-from state on purpose
    EXPECT_TRUE(b);
    EXPECT_EQ(b.native_handle(), handle);
    Registry c;
    c = std::move(b);
    EXPECT_EQ(c.native_handle(), handle);
    EXPECT_EQ(c.deferred_summaries().size(), 2u);
    // A moved-from object throws instead of crashing.
    try {
        (void)b.deferred_summaries();  // NOLINT(bugprone-use-after-move)
        FAIL() << "expected an exception";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), toolregistry::Status::NullArgument);
    }

    Discoverer d1 = c.discoverer();
    Discoverer d2(std::move(d1));
    EXPECT_FALSE(d1);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(d2.discover("flat_add").at(0).name, "flat_add");
    Discoverer d3 = c.discoverer(R"({"min_score_ratio": 0})");
    d3 = std::move(d2);  // d3's old handle is freed here
    EXPECT_EQ(d3.discover("flat_add").at(0).score, 1.0);
}

TEST(Discoverer, Explain) {
    Registry registry = fixtures::make_registry();
    Discoverer discoverer = registry.discoverer();
    auto ranked = discoverer.explain("send an email", "anthropic_send_email");
    EXPECT_EQ(ranked.outcome, "ranked");
    EXPECT_EQ(ranked.rank, 1u);
    ASSERT_TRUE(ranked.score.has_value());
    EXPECT_DOUBLE_EQ(*ranked.score, discoverer.discover("send an email").at(0).score);
    EXPECT_FALSE(ranked.scored_tokens.empty());
    EXPECT_NE(ranked.json.find("\"fields\""), std::string::npos);

    auto unrelated = discoverer.explain("send an email", "flat_add");
    EXPECT_EQ(unrelated.outcome, "no_common_token");
    EXPECT_FALSE(unrelated.rank.has_value());
    EXPECT_FALSE(unrelated.reason.empty());

    EXPECT_NE(discoverer.explain_json("weather", "chat_weather").find("\"tool\""), std::string::npos);
}

TEST(Discoverer, ProfileOptionPassesThrough) {
    Registry registry = fixtures::make_registry();
    Discoverer enhanced = registry.discoverer(R"({"profile": "enhanced"})");
    auto hits = enhanced.discover("emailing recipients");  // stemming finds "email" and "recipient"
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].name, "anthropic_send_email");
    EXPECT_EQ(enhanced.explain("emailing recipients", "anthropic_send_email").outcome, "ranked");
    try {
        (void)registry.discoverer(R"({"profile": "psychic"})");
        FAIL() << "expected an exception";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), toolregistry::Status::InvalidArgument);
    }
}

TEST(DetailJson, ParsesEscapesNumbersAndKeepsRawText) {
    using toolregistry::detail::JsonParser;
    const std::string text = R"( {"s": "a\"b\\c\n\u00e9\ud83d\ude00", "n": [1.5, -2e-3, 0], "o": {"k": [true, null]}} )";
    auto doc = JsonParser(text).parse();
    EXPECT_EQ(doc.find("s")->string, "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80");
    EXPECT_EQ(doc.find("n")->items.at(0).number, 1.5);
    EXPECT_EQ(doc.find("n")->items.at(1).number, -2e-3);
    EXPECT_EQ(doc.find("o")->raw, R"({"k": [true, null]})");
    EXPECT_EQ(toolregistry::detail::json_quote("q\"\\\n\x01"), "\"q\\\"\\\\\\n\\u0001\"");
    for (const char* bad : {"[1,]", "{\"a\" 1}", "\"\\ud800\"", "[1.5.5]", "tru", "[] x", "\"\x01\""}) {
        try {
            (void)JsonParser(bad).parse();
            ADD_FAILURE() << "accepted " << bad;
        } catch (const toolregistry::Error& e) {
            EXPECT_EQ(e.status(), toolregistry::Status::Internal);
        }
    }
}

TEST(Discoverer, FiltersNamespaceSearchAndSelect) {
    Registry registry;
    registry.register_tools(fixtures::kShapes);
    Discoverer discoverer = registry.discoverer();
    toolregistry::DiscoverRequest request;
    request.namespaces = {"GitHub"};
    auto hits = discoverer.discover_with("list issues email", request);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].name, "github-list_issues");
    request = {};
    request.tags = {"network"};
    request.deferred = true;
    hits = discoverer.discover_with("email issues", request);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].name, "anthropic_send_email");
    // The namespace is searchable (enhanced, the default profile).
    hits = discoverer.discover("github issues");
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].name, "github-list_issues");
    hits = discoverer.discover_with("select:mcp_read_file,nope,flat_add", {});
    ASSERT_EQ(hits.size(), 2u);
    EXPECT_EQ(hits[0].name, "mcp_read_file");
    EXPECT_EQ(hits[1].name, "flat_add");
    EXPECT_EQ(hits[0].score, 1.0);
}
