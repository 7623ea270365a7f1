// Runs the tool-call conformance corpus through the C++ wrapper and prints, for every case sorted
// by provider/case, one line: "<provider>/<case>\t<messages JSON exactly as returned>".
// Usage: execute_cpp CORPUS_DIR [--steps] (tests/conformance/execute); --steps runs each case
// through prepare_calls, the scripted hosts on std::async threads, and finish_calls instead.
// Part of the cross-language comparison (scripts/cross_language.py); the registry and the
// scripted hosts (ToolError, std::runtime_error) come from tests/cpp/corpus.hpp.
#include <exception>
#include <iostream>

#include "corpus.hpp"

int main(int argc, char** argv) {
    bool steps = argc == 3 && std::string(argv[2]) == "--steps";
    if (argc != 2 && !steps) {
        std::cerr << "usage: execute_cpp CORPUS_DIR [--steps]\n";
        return 2;
    }
    try {
        toolregistry::Registry registry = corpus::registry(argv[1]);
        auto cases = corpus::cases(argv[1]);
        if (cases.empty()) throw std::runtime_error("no cases");
        auto kinds = corpus::host_kinds(argv[1]);
        for (const auto& c : cases) {
            std::string messages;
            if (steps) {
                toolregistry::Plan plan = registry.prepare_calls(c.calls(), c.options());
                messages = registry.finish_calls(plan, corpus::run_plan(plan, kinds));
            } else {
                messages = registry.execute(c.calls(), c.options());
            }
            std::cout << c.name << '\t' << messages << '\n';
        }
    } catch (const toolregistry::Error& e) {
        std::cerr << "execute_cpp: " << e.what() << " (" << toolregistry::status_name(e.status()) << ")\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "execute_cpp: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
