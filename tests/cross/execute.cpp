// Runs the tool-call conformance corpus through the C++ wrapper and prints, for every case sorted
// by provider/case, one line: "<provider>/<case>\t<messages JSON exactly as returned>".
// Usage: execute_cpp CORPUS_DIR (tests/conformance/execute)
// Part of the cross-language comparison (scripts/cross_language.py); the registry and the
// scripted hosts (ToolError, std::runtime_error) come from tests/cpp/corpus.hpp.
#include <exception>
#include <iostream>

#include "corpus.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: execute_cpp CORPUS_DIR\n";
        return 2;
    }
    try {
        toolregistry::Registry registry = corpus::registry(argv[1]);
        auto cases = corpus::cases(argv[1]);
        if (cases.empty()) throw std::runtime_error("no cases");
        for (const auto& c : cases) std::cout << c.name << '\t' << registry.execute(c.calls(), c.options()) << '\n';
    } catch (const toolregistry::Error& e) {
        std::cerr << "execute_cpp: " << e.what() << " (" << toolregistry::status_name(e.status()) << ")\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "execute_cpp: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
