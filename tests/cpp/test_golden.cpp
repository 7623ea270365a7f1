// Golden scenarios through the C++ wrapper: typed hits from Discoverer::discover and from
// Registry::discover_tools must match the reference's recorded answers. The golden files are read
// with the wrapper's own small JSON parser (their tool objects are copied as raw JSON text).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"

using toolregistry::detail::JsonParser;
using toolregistry::detail::JsonValue;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// A golden tool in the registration shape: defer/tags/search_hint move under "metadata".
std::string tool_json(const JsonValue& tool) {
    std::string out = "{";
    std::string metadata;
    for (std::size_t i = 0; i < tool.keys.size(); ++i) {
        const std::string& key = tool.keys[i];
        std::string member = toolregistry::detail::json_quote(key) + ":" + std::string(tool.items[i].raw);
        std::string& target = (key == "defer" || key == "tags" || key == "search_hint") ? metadata : out;
        if (target.size() > 1 || (&target == &metadata && !metadata.empty())) target += ",";
        target += member;
    }
    if (!metadata.empty()) out += ",\"metadata\":{" + metadata + "}";
    return out + "}";
}

std::string options_json(const JsonValue& step) {
    // The golden vectors are the reference's answers; the default profile is enhanced.
    std::string out = "{\"profile\":\"reference\"";
    for (const char* key : {"field_weights", "min_score_ratio", "max_df_ratio"}) {
        if (const JsonValue* v = step.find(key)) {
            if (out.size() > 1) out += ",";
            out += toolregistry::detail::json_quote(key) + ":" + std::string(v->raw);
        }
    }
    return out + "}";
}

void compare(const std::vector<toolregistry::Hit>& got, const JsonValue& expect, const std::string& where) {
    ASSERT_EQ(got.size(), expect.items.size()) << where;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const JsonValue& e = expect.items[i];
        ASSERT_EQ(got[i].name, e.find("name")->string) << where << " rank " << i;
        double es = e.find("score")->number;
        EXPECT_LE(std::fabs(got[i].score - es), 1e-9 * std::fmax(std::fabs(es), std::fabs(got[i].score)))
            << where << " " << got[i].name;
        const JsonValue* ns = e.find("namespace");
        EXPECT_EQ(got[i].namespace_name,
                  ns->kind == JsonValue::Kind::Null ? std::nullopt : std::optional<std::string>(ns->string))
            << where;
        EXPECT_EQ(got[i].deferred, e.find("deferred")->boolean) << where;
        EXPECT_EQ(got[i].schema.has_value(), e.find("has_schema")->boolean) << where;
    }
}

class Golden : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(Golden, Replays) {
    const std::string path = std::string(TOOLREGISTRY_GOLDEN_DIR) + "/" + GetParam();
    const std::string text = read_file(path);
    ASSERT_FALSE(text.empty()) << "cannot read " << path;
    const JsonValue doc = JsonParser(text).parse();
    const JsonValue* steps = doc.find("steps");
    ASSERT_NE(steps, nullptr);

    toolregistry::Registry registry;
    std::optional<toolregistry::Discoverer> discoverer;
    std::size_t discovers = 0;
    for (std::size_t i = 0; i < steps->items.size(); ++i) {
        const JsonValue& step = steps->items[i];
        const std::string& op = step.find("op")->string;
        const std::string where = path + " step " + std::to_string(i);
        if (op == "register") {
            registry.register_tools(tool_json(*step.find("tool")));
        } else if (op == "unregister") {
            registry.unregister(step.find("name")->string);
        } else if (op == "disable" || op == "enable") {
            registry.set_enabled(step.find("name")->string, op == "enable");
        } else if (op == "set_metadata") {
            registry.set_metadata(step.find("name")->string, step.find("metadata")->raw);
        } else if (op == "enable_discovery") {
            registry.enable_discovery(options_json(step));
            discoverer.emplace(registry, options_json(step));
        } else if (op == "discover") {
            ASSERT_TRUE(discoverer.has_value()) << where;
            const std::string& query = step.find("query")->string;
            auto top_k = static_cast<std::size_t>(step.find("top_k")->number);
            ++discovers;
            if (const JsonValue* expect = step.find("expect")) {
                compare(discoverer->discover(query, top_k), *expect, where + " discoverer \"" + query + "\"");
                compare(registry.discover_tools(query, top_k), *expect, where + " discover_tools \"" + query + "\"");
            } else {
                try {
                    (void)discoverer->discover(query, top_k);
                    ADD_FAILURE() << where << ": expected an error for \"" << query << "\"";
                } catch (const toolregistry::Error& e) {
                    EXPECT_EQ(e.status(), toolregistry::Status::InvalidArgument) << where;
                }
            }
        } else {
            FAIL() << where << ": unknown op " << op;
        }
    }
    EXPECT_GT(discovers, 0u);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Golden, ::testing::Values("seed_examples.json", "cjk.json", "dynamics.json"));
