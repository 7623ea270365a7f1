// Runs the conversation conformance corpus through the C++ wrapper and prints, for every case
// sorted by name, one line: "<case>\t<messages JSON exactly as returned>\t<loaded JSON>".
// Usage: conversation_cpp CORPUS_DIR (tests/conformance/conversation)
// Each case as in tests/it/conversation.rs: a fresh fixture registry (tests/cpp/corpus.hpp, echo
// hosts), a toolregistry::Conversation that outlives the Registry, calls.json executed, then
// loaded_json() (tests/cpp/conversation_corpus.hpp).
#include <exception>
#include <iostream>

#include "conversation_corpus.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: conversation_cpp CORPUS_DIR\n";
        return 2;
    }
    try {
        auto cases = conversation_corpus::cases(argv[1]);
        if (cases.empty()) throw std::runtime_error("no cases");
        for (const auto& c : cases) {
            auto result = conversation_corpus::run(argv[1], c);
            std::cout << c.name << '\t' << result.messages << '\t' << result.loaded << '\n';
        }
    } catch (const toolregistry::Error& e) {
        std::cerr << "conversation_cpp: " << e.what() << " (" << toolregistry::status_name(e.status()) << ")\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "conversation_cpp: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
