// Answers one query over a catalog through the C++ wrapper and prints the hits as one JSON line
// [{"name", "score", "namespace", "deferred", "intent"?, "brought_in"?}].
// Usage: discover_cpp CATALOG.json QUERY TOP_K [PROFILE [USAGE]] (USAGE: tasks recorded before the
// query, one JSON array of tool names a line).
// With PROFILE "hybrid" the registry gets the fake embedder every language implements alike (dim
// 64; words split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit, 1.0 at hash % 64; all
// zeros -> [1, 0, ...]) and waits for the catalog's vectors first.
// Part of the cross-language comparison (scripts/cross_language.py).
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include "toolregistry.hpp"

static std::vector<std::vector<float>> fake_embed(const std::vector<std::string>& texts) {
    std::vector<std::vector<float>> out;
    for (const std::string& text : texts) {
        std::vector<float> v(64, 0.0f);
        std::uint32_t h = 0x811c9dc5u;
        bool in_word = false, any = false;
        for (std::size_t i = 0; i <= text.size(); ++i) {
            unsigned char c = i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
            if (c && c < 128 && std::isalnum(c)) {
                h = (h ^ static_cast<std::uint32_t>(std::tolower(c))) * 0x01000193u;
                in_word = true;
            } else if (in_word) {
                v[h % 64] += 1.0f;
                any = true;
                in_word = false;
                h = 0x811c9dc5u;
            }
        }
        if (!any) v[0] = 1.0f;
        out.push_back(std::move(v));
    }
    return out;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: discover_cpp CATALOG.json QUERY TOP_K [PROFILE [USAGE]]\n";
        return 2;
    }
    try {
        std::ifstream in(argv[1], std::ios::binary);
        std::stringstream catalog;
        catalog << in.rdbuf();
        toolregistry::Registry registry;
        (void)registry.register_tools(catalog.str());
        std::string profile = argc > 4 ? argv[4] : "reference";
        if (profile == "hybrid") {
            registry.set_embedder(64, fake_embed);
            if (!registry.wait_embeddings(std::chrono::minutes(2))) throw toolregistry::Error(toolregistry::Status::Internal, "embedding timed out");
        }
        // USAGE: tasks recorded before the query, one JSON array of tool names a line.
        std::stringstream tasks(argc > 5 ? argv[5] : "");
        for (std::string task; std::getline(tasks, task);)
            if (!task.empty()) (void)registry.record_usage_json(task);
        auto discoverer = registry.discoverer("{\"profile\": \"" + profile + "\"}");
        auto hits = discoverer.discover(argv[2], std::stoul(argv[3]));
        std::string out = "[";
        for (std::size_t i = 0; i < hits.size(); ++i) {
            char score[64];
            std::snprintf(score, sizeof score, "%.17g", hits[i].score);
            out += (i ? ",{" : "{");
            out += "\"name\":" + toolregistry::detail::json_quote(hits[i].name) + ",\"score\":" + score;
            out += ",\"namespace\":" + (hits[i].namespace_name ? toolregistry::detail::json_quote(*hits[i].namespace_name) : std::string("null"));
            out += std::string(",\"deferred\":") + (hits[i].deferred ? "true" : "false");
            if (hits[i].intent) out += ",\"intent\":" + toolregistry::detail::json_quote(*hits[i].intent);
            if (hits[i].brought_in) out += ",\"brought_in\":" + toolregistry::detail::json_quote(*hits[i].brought_in);
            out += "}";
        }
        std::cout << out << "]\n";
    } catch (const toolregistry::Error& e) {
        std::cerr << "discover_cpp: " << e.what() << " (status " << static_cast<int>(e.status()) << ")\n";
        return 1;
    }
    return 0;
}
