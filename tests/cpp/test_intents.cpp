// Intents through the C++ wrapper (issue 42): a query holding two needs gets a tool for each, each
// hit names its need (Hit::intent), {"intents": false} ranks the query as one need, and explain
// lists the needs (Explanation::intents) and the tool's (Explanation::intent).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "toolregistry.hpp"

namespace {

using toolregistry::Discoverer;
using toolregistry::Hit;
using toolregistry::Registry;

constexpr const char* kTwoNeeds = "convert 100 dollars to euros and then tell me the weather in Paris";
constexpr const char* kCurrencyNeed = "convert 100 dollars to euros";
constexpr const char* kWeatherNeed = "tell me the weather in Paris";
constexpr const char* kOneNeed = "convert dollars to euros";

// The catalog of tests/it/intents.rs: five currency tools that crowd a whole-query ranking of
// kTwoNeeds, one weather tool, and unrelated tools so that the query's words are rare.
std::string intent_tools() {
    std::string tools = R"([
      {"name": "convert_currency", "description": "Convert an amount of money from one currency to another, such as dollars to euros."},
      {"name": "currency_rates", "description": "Exchange rates between currencies: dollars, euros, pounds and yen."},
      {"name": "money_exchange", "description": "Exchange money: convert dollars into euros or any currency."},
      {"name": "forex_quote", "description": "Live forex quote to convert currency amounts, dollars and euros."},
      {"name": "currency_history", "description": "Historical currency exchange rates for dollars, euros and more."},
      {"name": "weather_forecast", "description": "The current weather and forecast for a city."})";
    for (const char* thing : {"email", "file", "calendar", "invoice", "ticket", "photo", "song", "recipe", "contact",
                              "note", "repository", "printer", "database", "playlist", "package", "meeting",
                              "document", "spreadsheet"}) {
        tools += std::string(",{\"name\": \"manage_") + thing + "\", \"description\": \"Create, list and delete a " +
                 thing + ".\"}";
    }
    return tools + "]";
}

Registry intent_registry(std::string_view options_json = {}) {
    Registry registry(options_json);
    (void)registry.register_tools(intent_tools());
    return registry;
}

const Hit* find(const std::vector<Hit>& hits, std::string_view name) {
    auto it = std::find_if(hits.begin(), hits.end(), [&](const Hit& h) { return h.name == name; });
    return it == hits.end() ? nullptr : &*it;
}

bool no_intent(const std::vector<Hit>& hits) {
    return std::all_of(hits.begin(), hits.end(), [](const Hit& h) { return !h.intent; });
}

}  // namespace

TEST(Intents, TwoNeedQueryHitsEachNameTheirNeed) {
    Registry registry = intent_registry();
    for (const char* options : {"", R"({"intents": true})"}) {
        Discoverer discoverer = registry.discoverer(options);
        auto hits = discoverer.discover(kTwoNeeds, 3);
        const Hit* weather = find(hits, "weather_forecast");
        ASSERT_NE(weather, nullptr) << "options " << options;
        EXPECT_EQ(weather->intent, kWeatherNeed);
        ASSERT_FALSE(hits.empty());
        EXPECT_EQ(hits[0].intent, kCurrencyNeed) << hits[0].name;
    }
}

TEST(Intents, OneNeedQueryHitsNameNone) {
    Registry registry = intent_registry();
    auto hits = registry.discoverer().discover(kOneNeed, 5);
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits[0].name, "convert_currency");
    EXPECT_TRUE(no_intent(hits));
}

TEST(Intents, FalseRanksTheQueryAsOneNeed) {
    Registry registry = intent_registry();
    Discoverer off = registry.discoverer(R"({"intents": false})");
    auto hits = off.discover(kTwoNeeds, 3);
    ASSERT_FALSE(hits.empty());
    EXPECT_TRUE(no_intent(hits));
    // The currency tools crowd the first places of the whole query's ranking.
    EXPECT_EQ(find(hits, "weather_forecast"), nullptr);
    auto explained = off.explain(kTwoNeeds, "weather_forecast", 3);
    EXPECT_TRUE(explained.intents.empty());
    EXPECT_FALSE(explained.intent);

    // discover_tools takes the option too.
    Registry with_builtin = intent_registry(R"({"discovery": {"intents": false}})");
    EXPECT_TRUE(no_intent(with_builtin.discover_tools(kTwoNeeds, 3)));
    with_builtin.enable_discovery();
    auto builtin_hits = with_builtin.discover_tools(kTwoNeeds, 3);
    const Hit* weather = find(builtin_hits, "weather_forecast");
    ASSERT_NE(weather, nullptr);
    EXPECT_EQ(weather->intent, kWeatherNeed);
}

TEST(Intents, ExplainListsTheNeedsAndTheToolsNeed) {
    Registry registry = intent_registry();
    Discoverer discoverer = registry.discoverer();
    auto e = discoverer.explain(kTwoNeeds, "weather_forecast", 3);
    ASSERT_EQ(e.intents.size(), 2u);
    EXPECT_EQ(e.intents[0].text, kCurrencyNeed);
    EXPECT_EQ(e.intents[1].text, kWeatherNeed);
    EXPECT_EQ(e.intent, kWeatherNeed);
    EXPECT_EQ(e.outcome, "ranked");
    // The weather need's own ranking has the tool first; the currency need's does not hold it.
    EXPECT_EQ(e.intents[1].rank, 1u);
    EXPECT_EQ(e.intents[1].relative_score, 1.0);
    EXPECT_FALSE(e.intents[0].rank);
    EXPECT_FALSE(e.intents[0].relative_score);
    auto one = discoverer.explain(kOneNeed, "convert_currency", 5);
    EXPECT_TRUE(one.intents.empty());
    EXPECT_FALSE(one.intent);
}
