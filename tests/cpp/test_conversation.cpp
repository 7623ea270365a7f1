// toolregistry::Conversation: the conversation corpus byte for byte, a conversation outliving its
// Registry (host functions kept alive until it goes), use after move, reveal all-or-nothing, bad
// options, stable mode's append-only tools, and one conversation used from several threads while
// tools are registered.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "conversation_corpus.hpp"
#include "toolregistry.hpp"

namespace {

using toolregistry::Conversation;
using toolregistry::Error;
using toolregistry::Registry;
using toolregistry::Status;

const std::filesystem::path kCorpus = TOOLREGISTRY_CONVERSATION_DIR;
const char* const kNative = R"({"api_format": "anthropic", "mode": "native"})";

std::vector<std::string> tool_names(const std::string& tools_json) {
    auto doc = toolregistry::detail::JsonParser(tools_json).parse();
    std::vector<std::string> names;
    for (const auto& tool : doc.items) {
        const auto* function = tool.find("function");  // OpenAI chat nests the definition
        const auto* name = (function ? *function : tool).find("name");
        names.push_back(name ? name->string : tool.find("type")->string);
    }
    return names;
}

TEST(Conversation, CorpusByteForByte) {
    auto cases = conversation_corpus::cases(kCorpus);
    ASSERT_GE(cases.size(), 8u);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        auto result = conversation_corpus::run(kCorpus, c);
        EXPECT_EQ(result.messages, c.file("expected.json"));
        EXPECT_EQ(result.loaded, c.file("loaded.json"));
        if (c.has("tools.json")) {
            EXPECT_EQ(result.tools, c.file("tools.json"));
        }
    }
}

TEST(Conversation, OutlivesItsRegistryAndKeepsItsHostsAlive) {
    auto token = std::make_shared<int>(0);
    std::optional<Conversation> conversation;
    std::string before;
    {
        Registry registry(R"({"discovery": {}})");
        registry.register_callable(
            R"({"name": "get_weather", "description": "Weather for a city.", "metadata": {"defer": true},
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}})",
            [token](std::string_view args) { return "rain " + std::string(args); });
        conversation.emplace(registry, kNative);
        before = conversation->tools_json();
    }
    EXPECT_EQ(token.use_count(), 2) << "the host function must live as long as the conversation";
    EXPECT_EQ(conversation->tools_json(), before);
    EXPECT_EQ(tool_names(conversation->tools().tools_json), (std::vector<std::string>{"discover_tools", "get_weather"}));
    EXPECT_EQ(conversation->execute(
                  R"([{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Oslo"}}])"),
              R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"rain {\"city\":\"Oslo\"}"}]}])");
    EXPECT_EQ(conversation->loaded(), std::vector<std::string>{"get_weather"});
    conversation.reset();
    EXPECT_EQ(token.use_count(), 1) << "the host function must be freed with the conversation";
}

TEST(Conversation, UseAfterMoveThrows) {
    Registry registry = corpus::registry(kCorpus);
    Conversation a = registry.conversation(kNative);
    Conversation b = std::move(a);
    EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): that is the test
    EXPECT_TRUE(static_cast<bool>(b));
    for (auto call : std::vector<std::function<void()>>{
             [&] { (void)a.tools(); }, [&] { (void)a.loaded(); }, [&] { a.reveal("[]"); },
             [&] { (void)a.execute(R"([{"type": "tool_use", "id": "t", "name": "get_time", "input": {}}])"); }}) {
        try {
            call();
            ADD_FAILURE() << "a moved-from conversation must throw";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::NullArgument);
        }
    }
    EXPECT_NO_THROW((void)b.tools());
    a = std::move(b);
    EXPECT_NO_THROW((void)a.tools());
}

TEST(Conversation, RevealOfAnUnknownNameIsNotFoundAndLoadsNothing) {
    Registry registry = corpus::registry(kCorpus);
    Conversation conversation(registry, R"({"mode": "stable"})");
    std::string before = conversation.tools_json();
    try {
        conversation.reveal(std::vector<std::string>{"send_email", "no_such_tool"});
        ADD_FAILURE() << "reveal of an unknown name must throw";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::NotFound);
        EXPECT_NE(std::string(e.what()).find("no_such_tool"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(conversation.loaded().empty());
    EXPECT_EQ(conversation.tools_json(), before);
    EXPECT_THROW(conversation.reveal("[\"send_email\""), Error);
    EXPECT_THROW(conversation.reveal(std::string_view("[\"a\0\"]", 6)), Error);
    EXPECT_TRUE(conversation.loaded().empty());
}

TEST(Conversation, BadOptionsThrow) {
    Registry registry = corpus::registry(kCorpus);
    auto status_of = [&](std::string_view options) {
        try {
            Conversation c(registry, options);
            return Status::Ok;
        } catch (const Error& e) {
            return e.status();
        }
    };
    EXPECT_EQ(status_of(R"({"mode": "native"})"), Status::InvalidArgument);  // openai-chat has no native mode
    EXPECT_EQ(status_of(R"({"mode": )"), Status::InvalidJson);
    EXPECT_EQ(status_of(R"({"loaded": "get_weather"})"), Status::InvalidArgument);  // not a list
    EXPECT_EQ(status_of(kNative), Status::Ok);
    Conversation c(registry, kNative);
    // Another provider's calls, and another api_format than the conversation's.
    EXPECT_THROW((void)c.execute(R"([{"id": "1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}])"),
                 Error);
    toolregistry::ExecuteOptions gemini;
    gemini.api_format = toolregistry::ApiFormat::Gemini;
    EXPECT_THROW((void)c.execute(R"([{"type": "tool_use", "id": "t", "name": "get_time", "input": {}}])", gemini), Error);
}

TEST(Conversation, StableModeAppendsLoadedToolsAndRestores) {
    Registry registry = corpus::registry(kCorpus);
    Conversation conversation(registry, R"({"mode": "stable"})");
    auto t0 = conversation.tools();
    EXPECT_EQ(conversation.tools().fingerprint, t0.fingerprint);
    EXPECT_EQ(t0.fingerprint.size(), 64u);
    EXPECT_NE(t0.system_text.find("send_email"), std::string::npos) << t0.system_text;
    conversation.reveal(std::vector<std::string>{"get_weather"});
    auto t1 = conversation.tools();
    EXPECT_NE(t1.fingerprint, t0.fingerprint);
    EXPECT_EQ(t1.system_text, t0.system_text);
    ASSERT_GT(t1.tools_json.size(), t0.tools_json.size());
    EXPECT_EQ(t1.tools_json.compare(0, t0.tools_json.size() - 1, t0.tools_json, 0, t0.tools_json.size() - 1), 0)
        << "loading must only append:\n" << t0.tools_json << "\n" << t1.tools_json;
    EXPECT_EQ(tool_names(t1.tools_json).back(), "get_weather");
    Conversation restored(registry, R"({"mode": "stable", "loaded": )" + conversation.loaded_json() + "}");
    EXPECT_EQ(restored.tools_json(), conversation.tools_json());
}

TEST(Conversation, ToolsAndExecuteFromSeveralThreadsWhileRegistering) {
    Registry registry = corpus::registry(kCorpus);
    Conversation conversation(registry, kNative);
    const std::size_t base = tool_names(conversation.tools().tools_json).size();
    const std::string calls =
        R"([{"type": "tool_use", "id": "toolu_1", "name": "discover_tools", "input": {"query": "get_weather"}},)"
        R"( {"type": "tool_use", "id": "toolu_2", "name": "get_time", "input": {}}])";
    const std::string expected =
        R"([{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"tool_reference","tool_name":"get_weather"}]},)"
        R"({"type":"tool_result","tool_use_id":"toolu_2","content":"get_time <- {}"}]}])";
    constexpr int kThreads = 4;
    constexpr int kRounds = 40;
    constexpr int kExtra = 50;
    std::atomic<int> failures{0};
    std::atomic<int> registered{0};
    std::thread registrar([&] {
        for (int i = 0; i < kExtra; ++i, ++registered)
            (void)registry.register_tools(R"({"name": "extra_)" + std::to_string(i) +
                                          R"(", "description": "Extra tool.", "metadata": {"defer": true}})");
    });
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t)
        workers.emplace_back([&, t] {
            std::size_t seen = base;
            // At least kRounds, and on until the registrar is done, so the two overlap.
            for (int round = 0; round < kRounds || registered < kExtra; ++round) {
                if ((round + t) % 2) {
                    if (conversation.execute(calls) != expected) ++failures;
                    continue;
                }
                auto answer = conversation.tools();
                auto names = tool_names(answer.tools_json);
                std::size_t extra = names.size() - base;
                // One consistent snapshot: native mode lists tools in registration order.
                if (names.size() < seen || answer.fingerprint.size() != 64 ||
                    (extra > 0 && names.back() != "extra_" + std::to_string(extra - 1)))
                    ++failures;
                seen = names.size();
            }
        });
    for (auto& w : workers) w.join();
    registrar.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(tool_names(conversation.tools().tools_json).size(), base + kExtra);
    EXPECT_EQ(conversation.loaded(), std::vector<std::string>{"get_weather"});
}

}  // namespace
