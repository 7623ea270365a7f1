// The conversation conformance corpus (tests/conformance/conversation/) through the C++ wrapper:
// one directory per case (options.json, calls.json, expected.json, loaded.json, tools.json
// optionally) over the registry
// of fixture.json, built by corpus::registry. Shared by test_conversation.cpp and
// tests/cross/conversation.cpp.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "toolregistry.hpp"

namespace conversation_corpus {

struct Case {
    std::string name;
    std::filesystem::path dir;

    /// Whether the case has this file.
    [[nodiscard]] bool has(const char* name_in_dir) const { return std::filesystem::exists(dir / name_in_dir); }

    /// A file of the case without its final newline.
    [[nodiscard]] std::string file(const char* name_in_dir) const {
        std::string text = corpus::read_file(dir / name_in_dir);
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        return text;
    }
};

/// Every case directory, sorted by name.
inline std::vector<Case> cases(const std::filesystem::path& corpus_dir) {
    std::vector<Case> out;
    for (const auto& entry : std::filesystem::directory_iterator(corpus_dir))
        if (entry.is_directory()) out.push_back({entry.path().filename().string(), entry.path()});
    std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
    return out;
}

struct Result {
    std::string messages;  // what execute returned
    std::string loaded;    // loaded_json() afterwards
    std::string tools;     // tools_json() afterwards
};

/// Runs one case as tests/it/conversation.rs does: a fresh fixture registry, a conversation with
/// the case's options, the Registry destroyed (the conversation outlives it), calls.json executed
/// with no execute options, then loaded and tools.
inline Result run(const std::filesystem::path& corpus_dir, const Case& c) {
    toolregistry::Conversation conversation = [&] {
        toolregistry::Registry registry = corpus::registry(corpus_dir);
        return toolregistry::Conversation(registry, c.file("options.json"));
    }();
    Result result;
    result.messages = conversation.execute(c.file("calls.json"));
    result.loaded = conversation.loaded_json();
    result.tools = conversation.tools_json();
    return result;
}

}  // namespace conversation_corpus
