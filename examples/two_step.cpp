// The two-step tool loop from C++17: prepare, run the calls on the host's own executor, finish.
//
// The library never calls into the host here: prepare_calls reads the model's reply and answers
// which calls the host runs (validated arguments, the registered name, whether the call may run
// beside others); the host runs them however it likes (std::async here; a thread pool, an event
// loop or another process elsewhere) and hands the outcomes to finish_calls, which writes the
// next turn's messages exactly as execute() would. Nothing is kept in the library in between.
//
// Build against an installed toolregistry, in CMake:
//   find_package(toolregistry CONFIG REQUIRED)
//   target_link_libraries(app PRIVATE toolregistry::cpp)
#include <chrono>
#include <condition_variable>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "toolregistry.hpp"

using toolregistry::CallResult;
using toolregistry::HostCall;

namespace {

// The host's tools: slow network calls in real life; here they wait 100 ms.
std::string get_weather(const std::string& args) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return "light rain, 11 C for " + args;
}

std::string get_time(const std::string& args) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return "14:05 for " + args;
}

// Runs alone (the registry marks it "concurrency_safe": false).
std::string write_log(const std::string& args) { return "logged " + args; }

// Counts the calls in flight, so the output shows which ones overlapped. The first `overlap`
// calls of a concurrent run wait (up to 5 s) until all of them have started: proof for the test
// that they ran at once, not a sleep that a loaded machine could outlast.
struct InFlight {
    std::mutex m;
    std::condition_variable cv;
    int now = 0, max = 0, started = 0;

    void enter(int overlap) {
        std::unique_lock<std::mutex> lock(m);
        now++;
        started++;
        if (now > max) max = now;
        cv.notify_all();
        cv.wait_for(lock, std::chrono::seconds(5), [&] { return started >= overlap; });
    }
    void leave() {
        std::lock_guard<std::mutex> lock(m);
        now--;
    }
};

CallResult run(const HostCall& call, InFlight& flight, int overlap) {
    static const std::map<std::string, std::string (*)(const std::string&)> tools = {
        {"get_weather", get_weather}, {"get_time", get_time}, {"write_log", write_log}};
    auto tool = tools.find(call.name);
    if (tool == tools.end()) return CallResult::unhandled(call.id);
    flight.enter(overlap);
    try {
        CallResult r = CallResult::content(call.id, tool->second(call.arguments_json));
        flight.leave();
        return r;
    } catch (const std::exception& e) {  // never across into the library: an error result
        flight.leave();
        return CallResult::error(call.id, e.what());
    }
}

// Runs the plan's calls: consecutive concurrency-safe calls at once on std::async threads, each
// unsafe call alone, results in any order (finish_calls matches them by id).
std::vector<CallResult> run_all(const std::vector<HostCall>& calls, InFlight& flight) {
    std::vector<CallResult> results;
    std::size_t i = 0;
    while (i < calls.size()) {
        if (!calls[i].concurrency_safe) {
            results.push_back(run(calls[i], flight, 1));
            std::cout << "[host] " << calls[i].name << " ran alone\n";
            i++;
            continue;
        }
        std::size_t end = i;
        while (end < calls.size() && calls[end].concurrency_safe) end++;
        int overlap = static_cast<int>(end - i);
        {
            std::lock_guard<std::mutex> lock(flight.m);
            flight.started = 0;
            flight.max = 0;
        }
        std::vector<std::future<CallResult>> running;
        for (std::size_t k = i; k < end; ++k)
            running.push_back(std::async(std::launch::async, run, std::cref(calls[k]), std::ref(flight), overlap));
        for (auto& f : running) results.push_back(f.get());
        std::cout << "[host] " << overlap << " calls, at most " << flight.max << " at once\n";
        i = end;
    }
    return results;
}

}  // namespace

int main() try {
    toolregistry::Registry registry(R"({"discovery": {}})");
    // Definitions only: the host runs the calls itself, so no host functions are registered.
    registry.register_tools(R"([
      {"name": "get_weather", "description": "Current weather for a city.",
       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
      {"name": "get_time", "description": "Local time in a city.",
       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
      {"name": "write_log", "description": "Append a line to the audit log.",
       "parameters": {"type": "object", "properties": {"line": {"type": "string"}}, "required": ["line"]},
       "metadata": {"concurrency_safe": false}}
    ])");

    // A recorded OpenAI chat reply: three calls that may overlap, one that must run alone, and
    // two the library answers itself (an unknown tool, a bad argument).
    const char* reply = R"({"role": "assistant", "content": null, "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}},
      {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{\"city\":\"Oslo\"}"}},
      {"id": "call_3", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}},
      {"id": "call_4", "type": "function", "function": {"name": "write_log", "arguments": "{\"line\":\"asked twice\"}"}},
      {"id": "call_5", "type": "function", "function": {"name": "get_wether", "arguments": "{}"}},
      {"id": "call_6", "type": "function", "function": {"name": "get_time", "arguments": "{\"city\":7}"}}
    ]})";

    toolregistry::Plan plan = registry.prepare_calls(reply);
    for (const HostCall& call : plan.calls)
        std::cout << "host call: " << call.id << ' ' << call.name << call.arguments_json
                  << (call.concurrency_safe ? "" : " (alone)") << '\n';

    InFlight flight;
    std::vector<CallResult> results = run_all(plan.calls, flight);
    std::string messages = registry.finish_calls(plan, results);
    std::cout << "send back: " << messages << '\n';

    // The same reply through execute() gives the same bytes when the host functions are the
    // registry's own: the two steps are what execute() does.
    toolregistry::Registry same(R"({"discovery": {}})");
    for (const char* name : {"get_weather", "get_time"}) {
        std::string tool = std::string(R"({"name": ")") + name + R"(", "description": "x",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})";
        auto fn = name == std::string("get_weather") ? get_weather : get_time;
        same.register_callable(tool, [fn](std::string_view args) { return fn(std::string(args)); });
    }
    same.register_callable(R"({"name": "write_log", "description": "x",
        "parameters": {"type": "object", "properties": {"line": {"type": "string"}}, "required": ["line"]},
        "metadata": {"concurrency_safe": false}})",
                           [](std::string_view args) { return write_log(std::string(args)); });
    std::cout << "execute gives the same: " << (same.execute(reply) == messages ? "yes" : "NO") << '\n';
    return 0;
} catch (const toolregistry::Error& e) {
    std::cerr << toolregistry::status_name(e.status()) << ": " << e.what() << '\n';
    return 1;
}
