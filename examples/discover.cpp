// toolregistry from C++17: the same flow as discover.c with the header-only wrapper.
//
// Build against an installed toolregistry, in CMake:
//   find_package(toolregistry CONFIG REQUIRED)
//   target_link_libraries(app PRIVATE toolregistry::cpp)
// or: c++ -std=c++17 discover.cpp $(pkg-config --cflags --libs toolregistry) -o discover
#include <iostream>

#include "toolregistry.hpp"

int main(int argc, char** argv) try {
    const char* query = argc > 1 ? argv[1] : "email a colleague";
    toolregistry::Registry registry;
    registry.register_tools(R"([
      {"name": "read_file", "description": "Read a file from disk.",
       "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
      {"name": "send_email", "description": "Send an email. Supports attachments.",
       "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
       "metadata": {"defer": true, "tags": ["network"]}},
      {"name": "convert_currency", "description": "Convert an amount between currencies.",
       "metadata": {"defer": true}}
    ])");

    for (const auto& summary : registry.deferred_summaries())
        std::cout << "deferred: " << summary.name << ": " << summary.description << '\n';

    auto discoverer = registry.discoverer();
    for (const auto& hit : discoverer.discover(query, 3)) {
        std::cout << "hit:      " << hit.name << "  score " << hit.score;
        if (hit.schema) std::cout << "  schema " << *hit.schema;
        std::cout << '\n';
    }
    return 0;
} catch (const toolregistry::Error& e) {
    std::cerr << toolregistry::status_name(e.status()) << ": " << e.what() << '\n';
    return 1;
}
