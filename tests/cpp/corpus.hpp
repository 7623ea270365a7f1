// The tool-call conformance corpus (tests/conformance/execute/) through the C++ wrapper: the
// fixture's registry built with C++ host functions (echo returns, fail throws ToolError, panic
// throws std::runtime_error("kaboom")), the same hosts for a two-step plan run on std::async
// threads, and the cases sorted by "provider/case". Shared by test_execute.cpp,
// test_two_step.cpp and tests/cross/execute.cpp.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "toolregistry.hpp"

namespace corpus {

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The scripted host functions of tests/conformance/README.md, in C++'s idiom.
inline toolregistry::NamedToolFunction scripted_host(const std::string& kind) {
    if (kind == "echo")
        return [](std::string_view name, std::string_view args) {
            return std::string(name) + " <- " + std::string(args);
        };
    if (kind == "fail")
        return [](std::string_view, std::string_view) -> std::string {
            throw toolregistry::ToolError("upstream returned 503");
        };
    if (kind == "panic")
        return [](std::string_view, std::string_view) -> std::string { throw std::runtime_error("kaboom"); };
    throw std::runtime_error("unknown host kind " + kind);
}

/// The fixture's registry, built through the wrapper.
inline toolregistry::Registry registry(const std::filesystem::path& corpus_dir) {
    std::string text = read_file(corpus_dir / "fixture.json");
    auto fixture = toolregistry::detail::JsonParser(text).parse();
    toolregistry::Registry registry;
    for (const auto& entry : fixture.find("tools")->items) {
        std::string tool(entry.find("tool")->raw);
        const auto* host = entry.find("host");
        if (host->kind == toolregistry::detail::JsonValue::Kind::Null)
            (void)registry.register_tools(tool);
        else
            registry.register_callable(tool, scripted_host(host->string));
    }
    for (const auto& d : fixture.find("disable")->items) registry.disable(d.find("name")->string, d.find("reason")->string);
    registry.enable_discovery(fixture.find("discovery")->raw);
    return registry;
}

/// Tool name -> the fixture's host kind ("" for a tool registered without a host function).
inline std::map<std::string, std::string> host_kinds(const std::filesystem::path& corpus_dir) {
    std::string text = read_file(corpus_dir / "fixture.json");
    auto fixture = toolregistry::detail::JsonParser(text).parse();
    std::map<std::string, std::string> out;
    for (const auto& entry : fixture.find("tools")->items) {
        const auto* host = entry.find("host");
        out[entry.find("tool")->find("name")->string] =
            host->kind == toolregistry::detail::JsonValue::Kind::Null ? "" : host->string;
    }
    return out;
}

/// One host call of a plan run by the scripted host of its tool, caught as the wrapper's
/// trampoline catches (a tool without one is "unhandled").
inline toolregistry::CallResult run_host_call(const toolregistry::HostCall& call,
                                              const std::map<std::string, std::string>& kinds) {
    auto kind = kinds.find(call.name);
    if (kind == kinds.end() || kind->second.empty()) return toolregistry::CallResult::unhandled(call.id);
    try {
        return toolregistry::CallResult::content(call.id, scripted_host(kind->second)(call.name, call.arguments_json));
    } catch (const toolregistry::ToolError& e) {
        return toolregistry::CallResult::error(call.id, e.what());
    } catch (const std::exception& e) {
        return toolregistry::CallResult::error(call.id, "the host function of \"" + call.name + "\" panicked: " + e.what());
    }
}

/// A plan's host calls all at once on std::async threads; the results in reverse order (finish
/// matches them by id).
inline std::vector<toolregistry::CallResult> run_plan(const toolregistry::Plan& plan,
                                                      const std::map<std::string, std::string>& kinds) {
    std::vector<std::future<toolregistry::CallResult>> running;
    for (const auto& call : plan.calls) running.push_back(std::async(std::launch::async, run_host_call, call, kinds));
    std::vector<toolregistry::CallResult> results;
    for (auto it = running.rbegin(); it != running.rend(); ++it) results.push_back(it->get());
    return results;
}

struct Case {
    std::string name;  // "provider/case"
    std::filesystem::path dir;

    [[nodiscard]] std::string calls() const { return read_file(dir / "calls.json"); }
    /// options.json, or "" (the defaults) when the case has none.
    [[nodiscard]] std::string options() const {
        return std::filesystem::exists(dir / "options.json") ? read_file(dir / "options.json") : std::string();
    }
    /// expected.json without its final newline.
    [[nodiscard]] std::string expected() const {
        std::string text = read_file(dir / "expected.json");
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        return text;
    }
};

/// Every case, sorted by name.
inline std::vector<Case> cases(const std::filesystem::path& corpus_dir) {
    std::vector<Case> out;
    for (const auto& provider : std::filesystem::directory_iterator(corpus_dir)) {
        if (!provider.is_directory()) continue;
        for (const auto& c : std::filesystem::directory_iterator(provider.path()))
            if (c.is_directory())
                out.push_back({provider.path().filename().string() + "/" + c.path().filename().string(), c.path()});
    }
    std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
    return out;
}

}  // namespace corpus
