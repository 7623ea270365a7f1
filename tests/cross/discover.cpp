// Answers one query over a catalog through the C++ wrapper and prints the hits as one JSON line
// [{"name", "score", "namespace", "deferred"}]. Usage: discover_cpp CATALOG.json QUERY TOP_K [PROFILE]
// Part of the cross-language comparison (scripts/cross_language.py).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include "toolregistry.hpp"

int main(int argc, char** argv) {
    if (argc < 4) {
        std::cerr << "usage: discover_cpp CATALOG.json QUERY TOP_K [PROFILE]\n";
        return 2;
    }
    try {
        std::ifstream in(argv[1], std::ios::binary);
        std::stringstream catalog;
        catalog << in.rdbuf();
        toolregistry::Registry registry;
        (void)registry.register_tools(catalog.str());
        std::string profile = argc > 4 ? argv[4] : "reference";
        auto discoverer = registry.discoverer("{\"profile\": \"" + profile + "\"}");
        auto hits = discoverer.discover(argv[2], std::stoul(argv[3]));
        std::string out = "[";
        for (std::size_t i = 0; i < hits.size(); ++i) {
            char score[64];
            std::snprintf(score, sizeof score, "%.17g", hits[i].score);
            out += (i ? ",{" : "{");
            out += "\"name\":" + toolregistry::detail::json_quote(hits[i].name) + ",\"score\":" + score;
            out += ",\"namespace\":" + (hits[i].namespace_name ? toolregistry::detail::json_quote(*hits[i].namespace_name) : std::string("null"));
            out += std::string(",\"deferred\":") + (hits[i].deferred ? "true" : "false") + "}";
        }
        std::cout << out << "]\n";
    } catch (const toolregistry::Error& e) {
        std::cerr << "discover_cpp: " << e.what() << " (status " << static_cast<int>(e.status()) << ")\n";
        return 1;
    }
    return 0;
}
