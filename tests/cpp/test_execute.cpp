// Tool-call execution through the C++ wrapper: the conformance corpus byte for byte (sequential
// and with parallel 4), exceptions turned into error results, re-entrancy, the lifetime of the
// std::function objects the registry owns (destroyed exactly once in every path, never during
// their own call), fallback routing, tool status and disable reasons, schemas by name, and
// threads executing while others register and unregister.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "corpus.hpp"

using toolregistry::ExecuteOptions;
using toolregistry::Registry;
using toolregistry::Status;
using toolregistry::ToolError;
using toolregistry::detail::JsonParser;

namespace {

// An OpenAI chat tool_calls array with one call "c0".
std::string chat_call(std::string_view name, std::string_view args, std::string_view id = "c0") {
    return "[{\"id\":" + toolregistry::detail::json_quote(id) + ",\"type\":\"function\",\"function\":{\"name\":" +
           toolregistry::detail::json_quote(name) + ",\"arguments\":" + toolregistry::detail::json_quote(args) + "}}]";
}

// The content of the single result of one OpenAI chat call.
std::string run_one(Registry& registry, std::string_view name, std::string_view args) {
    auto doc = JsonParser(registry.execute(chat_call(name, args))).parse();
    if (doc.items.size() != 1) throw std::runtime_error("expected one message");
    return doc.items[0].find("content")->string;
}

// Counts live instances of itself, so a test sees exactly when the registry destroys a function
// (and a double destruction would drive the count negative).
struct LiveCount {
    std::atomic<int>* live;
    explicit LiveCount(std::atomic<int>* l) : live(l) { ++*live; }
    LiveCount(const LiveCount& o) : live(o.live) { ++*live; }
    LiveCount(LiveCount&& o) noexcept : live(o.live) { ++*live; }
    LiveCount& operator=(const LiveCount&) = delete;
    LiveCount& operator=(LiveCount&&) = delete;
    ~LiveCount() { --*live; }
};

// A host function holding a LiveCount.
toolregistry::ToolFunction counted(std::atomic<int>& live, std::string reply = "ok") {
    return [token = LiveCount(&live), reply](std::string_view) { return reply; };
}

const char* const kCityTool = R"({"name": "get_weather", "description": "Current weather for a city.",
  "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}})";

}  // namespace

TEST(Execute, ConformanceCorpusByteForByte) {
    Registry registry = corpus::registry(TOOLREGISTRY_CONFORMANCE_DIR);
    auto cases = corpus::cases(TOOLREGISTRY_CONFORMANCE_DIR);
    ASSERT_GE(cases.size(), 50u);
    for (const auto& c : cases) {
        std::string want = c.expected();
        EXPECT_EQ(registry.execute(c.calls(), c.options()), want) << c.name;
        // The same through typed options, with the calls on library threads.
        ExecuteOptions options;
        options.parallel = 4;
        options.include_assistant = c.options().find("\"include_assistant\":true") != std::string::npos;
        EXPECT_EQ(registry.execute(c.calls(), options), want) << c.name << " (parallel 4)";
    }
}

TEST(Execute, ReturnsAndExceptions) {
    Registry registry;
    EXPECT_EQ(registry.register_callable(kCityTool, [](std::string_view args) { return "sunny " + std::string(args); }),
              "get_weather");
    registry.register_callable(R"({"name": "tool_error"})", [](std::string_view) -> std::string {
        throw ToolError("upstream returned 503");
    });
    registry.register_callable(R"({"name": "runtime"})", [](std::string_view) -> std::string {
        throw std::runtime_error("kaboom");
    });
    registry.register_callable(R"({"name": "bad_alloc"})", [](std::string_view) -> std::string { throw std::bad_alloc(); });
    registry.register_callable(R"({"name": "not_an_exception"})", [](std::string_view) -> std::string { throw 42; });
    registry.register_callable(R"({"name": "nested_error"})", [&registry](std::string_view) -> std::string {
        registry.unregister("no_such_tool");  // throws toolregistry::Error
        return "unreachable";
    });
    registry.register_callable(R"({"name": "nul_byte"})", [](std::string_view) { return std::string("a\0b", 3); });
    registry.register_callable(R"({"name": "bad_utf8"})", [](std::string_view) { return std::string("caf\xc3"); });
    registry.register_callable(R"({"name": "named"})", [](std::string_view name, std::string_view args) {
        return std::string(name) + ":" + std::string(args);
    });

    EXPECT_EQ(run_one(registry, "get_weather", R"({"city": "Paris"})"), R"(sunny {"city":"Paris"})");
    EXPECT_EQ(run_one(registry, "tool_error", "{}"), "Error: upstream returned 503");
    EXPECT_EQ(run_one(registry, "runtime", "{}"), "Error: the host function of \"runtime\" panicked: kaboom");
    EXPECT_EQ(run_one(registry, "bad_alloc", "{}"),
              std::string("Error: the host function of \"bad_alloc\" panicked: ") + std::bad_alloc().what());
    EXPECT_EQ(run_one(registry, "not_an_exception", "{}"),
              "Error: the host function of \"not_an_exception\" panicked: unknown exception");
    std::string nested = run_one(registry, "nested_error", "{}");
    EXPECT_EQ(nested.rfind("Error: the host function of \"nested_error\" panicked: ", 0), 0u) << nested;
    EXPECT_NE(nested.find("no_such_tool"), std::string::npos) << nested;
    EXPECT_EQ(run_one(registry, "nul_byte", "{}"), "Error: the host function of \"nul_byte\" returned text with a NUL byte");
    EXPECT_EQ(run_one(registry, "bad_utf8", "{}").rfind("Error: the host function gave an unusable result", 0), 0u);
    EXPECT_EQ(run_one(registry, "named", R"({"x": [1, 2]})"), R"(named:{"x":[1,2]})");
    // The schema is checked before the function runs.
    EXPECT_EQ(run_one(registry, "get_weather", R"({"city": 5})"),
              "Error: invalid arguments for tool \"get_weather\": /city: 5 is not of type \"string\"");

    // Exceptions thrown on library threads are caught there too; results keep call order.
    std::string calls = "[";
    const char* names[] = {"runtime", "get_weather", "tool_error", "not_an_exception"};
    for (int i = 0; i < 4; ++i)
        calls += std::string(i ? "," : "") + "{\"type\":\"tool_use\",\"id\":\"u" + std::to_string(i) + "\",\"name\":\"" +
                 names[i] + "\",\"input\":{\"city\":\"Oslo\"}}";
    calls += "]";
    ExecuteOptions parallel;
    parallel.parallel = 4;
    EXPECT_EQ(registry.execute(calls, parallel),
              R"([{"role":"user","content":[)"
              R"({"type":"tool_result","tool_use_id":"u0","content":"Error: the host function of \"runtime\" panicked: kaboom","is_error":true},)"
              R"({"type":"tool_result","tool_use_id":"u1","content":"sunny {\"city\":\"Oslo\"}"},)"
              R"({"type":"tool_result","tool_use_id":"u2","content":"Error: upstream returned 503","is_error":true},)"
              R"({"type":"tool_result","tool_use_id":"u3","content":"Error: the host function of \"not_an_exception\" panicked: unknown exception","is_error":true}]}])");
}

TEST(Execute, ErrorsOfTheBatch) {
    Registry registry;
    registry.register_callable(R"({"name": "echo"})", [](std::string_view args) { return std::string(args); });
    try {
        (void)registry.execute("{\"role\": \"assistant\", \"tool_calls\": 7}");
        FAIL() << "no exception";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), Status::InvalidArgument);
    }
    EXPECT_THROW((void)registry.execute("[{"), toolregistry::Error);
    EXPECT_THROW((void)registry.execute(chat_call("echo", "{}"), R"({"parallel": 0})"), toolregistry::Error);
    ExecuteOptions forced;
    forced.api_format = toolregistry::ApiFormat::Gemini;
    EXPECT_EQ(forced.to_json(), R"({"api_format":"gemini","include_assistant":false,"parallel":1})");
    EXPECT_THROW((void)registry.execute(R"({"role": "assistant", "tool_calls": []})", forced), toolregistry::Error);
    EXPECT_EQ(registry.execute("[]"), "[]");
    // Empty functions and NUL bytes are refused before anything is registered.
    try {
        registry.register_callable(R"({"name": "empty"})", toolregistry::ToolFunction());
        FAIL() << "no exception";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), Status::NullArgument);
    }
    EXPECT_THROW(registry.register_callable(std::string_view("{\"name\": \"a\0\"}", 14), [](std::string_view) { return std::string(); }),
                 toolregistry::Error);
    EXPECT_EQ(registry.tools_status().size(), 1u);
}

TEST(Execute, FunctionsAreDestroyedExactlyOnce) {
    std::atomic<int> live{0};
    {
        Registry registry("{\"discovery\": {}}");
        // Unregister.
        registry.register_callable(R"({"name": "a"})", counted(live));
        EXPECT_EQ(live.load(), 1);
        registry.unregister("a");
        EXPECT_EQ(live.load(), 0);
        // Replace with a function, then with a plain definition.
        registry.register_callable(R"({"name": "t"})", counted(live, "first"));
        registry.register_callable(R"({"name": "t"})", counted(live, "second"));
        EXPECT_EQ(live.load(), 1);
        EXPECT_EQ(run_one(registry, "t", "{}"), "second");
        (void)registry.register_tools(R"({"name": "t"})");
        EXPECT_EQ(live.load(), 0);
        // Failed registrations: bad JSON, reserved names, two tools, a NUL byte.
        for (const char* bad : {"{\"name\": ", R"({"name": "discover_tools"})", R"({"name": "call_deferred"})",
                                R"([{"name": "x"}, {"name": "y"}])"}) {
            EXPECT_THROW(registry.register_callable(bad, counted(live)), toolregistry::Error) << bad;
            EXPECT_EQ(live.load(), 0) << bad;
        }
        EXPECT_THROW(registry.register_callable(std::string_view("{\0}", 3), counted(live)), toolregistry::Error);
        EXPECT_EQ(live.load(), 0);
        // The fallback: replaced, cleared.
        registry.set_fallback([token = LiveCount(&live)](std::string_view name, std::string_view) { return std::string(name); });
        registry.set_fallback([token = LiveCount(&live)](std::string_view, std::string_view) { return std::string("2"); });
        EXPECT_EQ(live.load(), 1);
        registry.clear_fallback();
        EXPECT_EQ(live.load(), 0);
        // Never during its own call: a function that unregisters its own tool is still alive
        // until it returns.
        registry.register_callable(R"({"name": "self_remover"})",
                                   [&registry, &live, token = LiveCount(&live)](std::string_view) {
                                       registry.unregister("self_remover");
                                       return "alive: " + std::to_string(live.load());
                                   });
        EXPECT_EQ(run_one(registry, "self_remover", "{}"), "alive: 1");
        EXPECT_EQ(live.load(), 0);
        // The registry's destructor frees what is left.
        registry.register_callable(R"({"name": "kept"})", counted(live));
        registry.set_fallback([token = LiveCount(&live)](std::string_view, std::string_view) { return std::string(); });
        EXPECT_EQ(live.load(), 2);
        // A moved-from registry holds nothing: registering on it fails and frees the function.
        Registry moved = std::move(registry);
        EXPECT_THROW(registry.register_callable(R"({"name": "z"})", counted(live)), toolregistry::Error);  // NOLINT(bugprone-use-after-move)
        EXPECT_EQ(live.load(), 2);
    }
    EXPECT_EQ(live.load(), 0);
    // The captured state is released with the function.
    auto state = std::make_shared<int>(7);
    std::weak_ptr<int> watch = state;
    {
        Registry registry;
        registry.register_callable(R"({"name": "s"})", [state](std::string_view) { return std::to_string(*state); });
        state.reset();
        EXPECT_FALSE(watch.expired());
        EXPECT_EQ(run_one(registry, "s", "{}"), "7");
    }
    EXPECT_TRUE(watch.expired());
}

TEST(Execute, FallbackRoutesByName) {
    Registry registry;
    (void)registry.register_tools(R"([{"name": "mcp_search", "parameters": {"type": "object",
        "properties": {"q": {"type": "string"}}, "required": ["q"]}}, {"name": "mcp_fetch"}])");
    registry.register_callable(R"({"name": "local"})", [](std::string_view) { return std::string("local"); });
    EXPECT_EQ(run_one(registry, "mcp_fetch", "{}"),
              "Error: tool \"mcp_fetch\" has no host function to run it (register it with one, or set a fallback)");
    std::atomic<int> routed{0};
    registry.set_fallback([&routed](std::string_view name, std::string_view args) {
        ++routed;
        return "routed " + std::string(name) + " " + std::string(args);
    });
    EXPECT_EQ(run_one(registry, "mcp_search", R"({"q": "x"})"), R"(routed mcp_search {"q":"x"})");
    EXPECT_EQ(run_one(registry, "mcp_fetch", "{}"), "routed mcp_fetch {}");
    EXPECT_EQ(run_one(registry, "local", "{}"), "local");
    EXPECT_EQ(run_one(registry, "mcp_search", "{}").rfind("Error: invalid arguments for tool \"mcp_search\"", 0), 0u);
    EXPECT_EQ(run_one(registry, "unknown_tool", "{}").rfind("Error: tool \"unknown_tool\" is not registered", 0), 0u);
    EXPECT_EQ(routed.load(), 2);
    for (const auto& t : registry.tools_status()) EXPECT_TRUE(t.callable) << t.name;
    registry.set_fallback(nullptr);
    for (const auto& t : registry.tools_status()) EXPECT_EQ(t.callable, t.name == "local") << t.name;
}

TEST(Execute, StatusDisableAndSchemasByName) {
    Registry registry("{\"discovery\": {}}");
    (void)registry.register_tools(R"([{"name": "zeta", "description": "Z.", "metadata": {"defer": true, "tags": ["slow"]}},
        {"name": "list_issues", "namespace": "github", "description": "List issues."}])");
    registry.register_callable(R"({"name": "alpha", "description": "A."})", [](std::string_view) { return std::string("a"); });
    registry.disable("alpha", "under maintenance");
    registry.disable("github");
    auto status = registry.tools_status();
    ASSERT_EQ(status.size(), 3u);
    EXPECT_EQ(status[0].name, "alpha");
    EXPECT_FALSE(status[0].enabled);
    EXPECT_EQ(status[0].reason, std::optional<std::string>("under maintenance"));
    EXPECT_TRUE(status[0].callable);
    EXPECT_EQ(status[1].name, "github-list_issues");
    EXPECT_EQ(status[1].namespace_name, std::optional<std::string>("github"));
    EXPECT_FALSE(status[1].enabled);
    EXPECT_EQ(status[1].reason, std::nullopt);
    EXPECT_EQ(status[2].name, "zeta");
    EXPECT_TRUE(status[2].enabled);
    EXPECT_TRUE(status[2].deferred);
    EXPECT_EQ(status[2].tags, std::vector<std::string>{"slow"});
    EXPECT_FALSE(status[2].callable);
    EXPECT_EQ(registry.tools_status_json().rfind(R"([{"name":"alpha","namespace":null,"enabled":false,"reason":"under maintenance",)", 0), 0u);
    EXPECT_EQ(run_one(registry, "alpha", "{}"), "Error: tool \"alpha\" is disabled: under maintenance");
    EXPECT_EQ(run_one(registry, "github-list_issues", "{}"), "Error: tool \"github-list_issues\" is disabled");
    registry.set_enabled("alpha", true);
    EXPECT_EQ(registry.tools_status()[0].reason, std::nullopt);
    EXPECT_EQ(run_one(registry, "alpha", "{}"), "a");
    EXPECT_THROW(registry.disable("nope", "x"), toolregistry::Error);

    // Schemas by name: that order, disabled tools and built-ins included.
    auto schemas = JsonParser(registry.schemas_json_for({"zeta", "github-list_issues", "discover_tools"},
                                                        toolregistry::ApiFormat::Anthropic)).parse();
    ASSERT_EQ(schemas.items.size(), 3u);
    EXPECT_EQ(schemas.items[0].find("name")->string, "zeta");
    EXPECT_EQ(schemas.items[1].find("name")->string, "github-list_issues");
    EXPECT_EQ(schemas.items[2].find("name")->string, "discover_tools");
    EXPECT_EQ(registry.schemas_json_for({}), "[]");
    try {
        (void)registry.schemas_json_for({"zeta", "missing_tool"});
        FAIL() << "no exception";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), Status::NotFound);
        EXPECT_NE(std::string(e.what()).find("missing_tool"), std::string::npos) << e.what();
    }
}

// A function that registers a tool and runs discover_tools and execute on its own registry.
static void reentrancy(const ExecuteOptions& options, int first, int count) {
    Registry registry("{\"discovery\": {}}");
    registry.register_callable(
        R"({"name": "installer", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}})",
        [&registry](std::string_view args) {
            auto n = static_cast<int>(JsonParser(args).parse().find("n")->number);
            std::string name = "late_" + std::to_string(n);
            registry.register_callable("{\"name\": \"" + name + "\", \"description\": \"Late tool added during a call.\","
                                       " \"metadata\": {\"defer\": true}}",
                                       [name](std::string_view a) { return name + " <- " + std::string(a); });
            std::string nested = registry.execute(chat_call(name, "{}", "n"));
            if (nested.find(name + " <- {}") == std::string::npos) throw ToolError("nested execute: " + nested);
            return registry.call("discover_tools", "{\"query\": \"" + name + "\"}");
        });
    std::string calls = "[";
    for (int i = 0; i < count; ++i)
        calls += std::string(i ? "," : "") + "{\"type\":\"function_call\",\"call_id\":\"k" + std::to_string(i) +
                 "\",\"name\":\"installer\",\"arguments\":\"{\\\"n\\\": " + std::to_string(first + i) + "}\"}";
    calls += "]";
    auto messages = JsonParser(registry.execute(calls, options)).parse();
    ASSERT_EQ(messages.items.size(), static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        std::string name = "late_" + std::to_string(first + i);
        const auto& m = messages.items[static_cast<std::size_t>(i)];
        EXPECT_EQ(m.find("call_id")->string, "k" + std::to_string(i));
        EXPECT_EQ(m.find("output")->string.rfind("[{\"name\":\"" + name + "\",", 0), 0u) << m.find("output")->string;
        // Found and callable afterwards.
        auto hits = registry.discover_tools(name);
        ASSERT_EQ(hits.size(), 1u);
        EXPECT_EQ(hits[0].name, name);
        EXPECT_EQ(run_one(registry, name, R"({"k": 1})"), name + R"( <- {"k":1})");
    }
    EXPECT_EQ(registry.discover_tools("late tool added during a call").size(), static_cast<std::size_t>(count));
}

TEST(Execute, ReentrantSequential) { reentrancy(ExecuteOptions{}, 1, 1); }

TEST(Execute, ReentrantParallel) {
    ExecuteOptions options;
    options.parallel = 4;
    reentrancy(options, 10, 4);
    reentrancy(options, 20, 7);
}

TEST(Execute, ThreadsExecuteWhileOthersRegister) {
    Registry registry;
    for (int k = 0; k < 3; ++k)
        registry.register_callable("{\"name\": \"stable_" + std::to_string(k) + "\"}",
                                   [](std::string_view name, std::string_view args) {
                                       return std::string(name) + " <- " + std::string(args);
                                   });
    std::atomic<int> live{0};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1000);
    auto keep_going = [&](long round) {
        auto now = std::chrono::steady_clock::now();
        return now < deadline || (round < 5 && now < deadline + std::chrono::seconds(120));
    };
    std::atomic<long> failures{0}, results{0}, mutations{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            ExecuteOptions options;
            options.parallel = 4;
            for (long round = 0; keep_going(round); ++round) {
                std::vector<std::string> names, seqs;
                std::string calls = "[";
                for (int i = 0; i < 5; ++i) {
                    names.push_back(i % 2 ? "churn" + std::to_string(i % 2) + "_" + std::to_string((round + i) % 3)
                                          : "stable_" + std::to_string((t + i) % 3));
                    seqs.push_back(std::to_string(t) + "-" + std::to_string(round) + "-" + std::to_string(i));
                    calls += std::string(i ? "," : "") + "{\"functionCall\":{\"id\":\"g" + seqs.back() + "\",\"name\":\"" +
                             names.back() + "\",\"args\":{\"seq\":\"" + seqs.back() + "\"}}}";
                }
                calls += "]";
                try {
                    auto doc = JsonParser(registry.execute(calls, options)).parse();
                    const auto& parts = doc.items.at(0).find("parts")->items;
                    if (parts.size() != names.size()) ++failures;
                    for (std::size_t i = 0; i < parts.size() && i < names.size(); ++i) {
                        const auto* response = parts[i].find("functionResponse");
                        const auto* output = response->find("response")->find("output");
                        std::string want = names[i] + " <- {\"seq\":\"" + seqs[i] + "\"}";
                        bool gone = !output && names[i].rfind("churn", 0) == 0 &&
                                    response->find("response")->find("error")->string.find("is not registered") != std::string::npos;
                        if (response->find("id")->string != "g" + seqs[i] || response->find("name")->string != names[i] ||
                            !(gone || (output && output->string == want)))
                            ++failures;
                        ++results;
                    }
                } catch (const std::exception&) {
                    ++failures;
                }
            }
        });
    }
    for (int w = 0; w < 2; ++w) {
        threads.emplace_back([&, w] {
            for (long round = 0; keep_going(round); ++round) {
                std::string name = "churn1_" + std::to_string((round + w) % 3);
                try {
                    registry.register_callable("{\"name\": \"" + name + "\"}",
                                               [token = LiveCount(&live)](std::string_view tool, std::string_view args) {
                                                   return std::string(tool) + " <- " + std::string(args);
                                               });
                    if (round % 2) registry.unregister(name);
                    ++mutations;
                } catch (const toolregistry::Error& e) {
                    // The other writer may have unregistered it first.
                    if (e.status() != Status::NotFound) ++failures;
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_GE(results.load(), 8 * 5 * 5);
    EXPECT_GE(mutations.load(), 2 * 5);
    for (int k = 0; k < 3; ++k) {
        try {
            registry.unregister("churn1_" + std::to_string(k));
        } catch (const toolregistry::Error&) {
        }
    }
    EXPECT_EQ(live.load(), 0);
}
