// The two-step tool loop through the C++ wrapper: the conformance corpus with the host calls run
// by the test itself on std::async threads (prepare_calls, then the scripted hosts, then
// finish_calls) equals execute byte for byte; finish_calls' refusals; concurrency_safe in the plan;
// a conversation's pair loading what the calls found.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus.hpp"

using toolregistry::CallResult;
using toolregistry::HostCall;
using toolregistry::Plan;
using toolregistry::Registry;
using toolregistry::Status;

namespace {

std::string chat_calls(const std::vector<std::pair<std::string, std::string>>& calls) {
    std::string out = "[";
    for (std::size_t i = 0; i < calls.size(); ++i)
        out += std::string(i ? "," : "") + "{\"id\":\"c" + std::to_string(i) +
               "\",\"type\":\"function\",\"function\":{\"name\":" + toolregistry::detail::json_quote(calls[i].first) +
               ",\"arguments\":" + toolregistry::detail::json_quote(calls[i].second) + "}}";
    return out + "]";
}

}  // namespace

TEST(TwoStep, ConformanceCorpusEqualsExecute) {
    Registry registry = corpus::registry(TOOLREGISTRY_CONFORMANCE_DIR);
    auto kinds = corpus::host_kinds(TOOLREGISTRY_CONFORMANCE_DIR);
    auto cases = corpus::cases(TOOLREGISTRY_CONFORMANCE_DIR);
    ASSERT_GE(cases.size(), 50u);
    std::size_t host_calls = 0;
    for (const auto& c : cases) {
        Plan plan = registry.prepare_calls(c.calls(), c.options());
        host_calls += plan.calls.size();
        std::string got = registry.finish_calls(plan, corpus::run_plan(plan, kinds));
        EXPECT_EQ(got, c.expected()) << c.name;
        EXPECT_EQ(got, registry.execute(c.calls(), c.options())) << c.name;
    }
    EXPECT_GE(host_calls, 40u) << "the corpus must give the host calls to run";
}

TEST(TwoStep, FinishRefusesBadResults) {
    Registry registry;
    registry.register_tools(R"([{"name": "f"}, {"name": "g"}])");
    Plan plan = registry.prepare_calls(chat_calls({{"f", "{}"}, {"g", "{}"}, {"nope", "{}"}}));
    ASSERT_EQ(plan.calls.size(), 2u);
    EXPECT_EQ(plan.calls[0].id, "c0");
    EXPECT_EQ(plan.calls[1].name, "g");
    std::vector<std::vector<CallResult>> bad = {
        {CallResult::content("c0", "x")},                                                        // c1 missing
        {CallResult::content("c0", "x"), CallResult::content("c1", "y"), CallResult::error("c1", "z")},  // duplicate
        {CallResult::content("c0", "x"), CallResult::content("c1", "y"), CallResult::content("c9", "w")},  // unknown
    };
    for (const auto& results : bad) {
        try {
            (void)registry.finish_calls(plan, results);
            ADD_FAILURE() << "finish_calls accepted bad results";
        } catch (const toolregistry::Error& e) {
            EXPECT_EQ(e.status(), Status::InvalidArgument) << e.what();
        }
    }
    Plan broken = plan;
    broken.json = "{\"calls\": []}";
    EXPECT_THROW((void)registry.finish_calls(broken, {}), toolregistry::Error);
    std::string out = registry.finish_calls(plan, {CallResult::error("c1", "bad"), CallResult::unhandled("c0")});
    EXPECT_NE(out.find("has no host function"), std::string::npos) << out;
    EXPECT_NE(out.find("Error: bad"), std::string::npos) << out;
    EXPECT_NE(out.find("\"c2\""), std::string::npos) << out;  // the library's answer for "nope"
}

TEST(TwoStep, ConcurrencySafeAndConversation) {
    Registry registry(R"({"discovery": {"profile": "reference"}})");
    registry.register_tools(R"([{"name": "safe"}, {"name": "alone", "metadata": {"concurrency_safe": false}},
        {"name": "send_email", "description": "Send an email to a recipient.", "metadata": {"defer": true}}])");
    Plan plan = registry.prepare_calls(chat_calls({{"safe", "{}"}, {"alone", "{}"}}));
    ASSERT_EQ(plan.calls.size(), 2u);
    EXPECT_TRUE(plan.calls[0].concurrency_safe);
    EXPECT_FALSE(plan.calls[1].concurrency_safe);

    toolregistry::Conversation chat(registry);
    Plan found = chat.prepare_calls(chat_calls({{"discover_tools", R"({"query": "send email"})"}}));
    EXPECT_TRUE(found.calls.empty());  // answered by the library
    std::string messages = chat.finish_calls(found, {});
    EXPECT_NE(messages.find("send_email"), std::string::npos) << messages;
    EXPECT_EQ(chat.loaded(), std::vector<std::string>{"send_email"});
}
