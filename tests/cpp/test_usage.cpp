// Usage through the C++ wrapper (issue 52): record_usage teaches the registry a habit, and a
// discover brings the partner in with its reason (Hit::brought_in); what does not count; bad input
// throws Error with its status and records nothing; enable_usage with a file and save_usage keep
// the counts across a restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include "toolregistry.hpp"

namespace {

using toolregistry::Error;
using toolregistry::Hit;
using toolregistry::Registry;
using toolregistry::Status;

constexpr const char* kQuery = "add an agenda item for tomorrow";
constexpr const char* kReason = "used with `add_agenda` in 12 of its 15 tasks";

// The catalog of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step.
std::string usage_tools() {
    std::string tools = R"([
      {"name": "add_agenda", "description": "Add an agenda item to the user's schedule."},
      {"name": "get_user_token", "description": "Get the user token by username and password."},
      {"name": "list_files", "description": "List the files of a folder."},
      {"name": "send_email", "description": "Send an email message."})";
    for (int i = 0; i < 8; ++i) {
        tools += ",{\"name\": \"agenda_tool_" + std::to_string(i) + "\", \"description\": \"Agenda item helper number " +
                 std::to_string(i) + ": works on an agenda item.\"}";
    }
    return tools + "]";
}

Registry usage_registry(std::string_view options_json = {}) {
    Registry registry(options_json);
    (void)registry.register_tools(usage_tools());
    return registry;
}

void login_habit(Registry& registry) {
    for (int i = 0; i < 12; ++i) EXPECT_EQ(registry.record_usage({"add_agenda", "get_user_token"}), 2u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(registry.record_usage({"add_agenda"}), 1u);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(registry.record_usage_json(R"(["list_files"])"), 1u);
}

std::vector<std::string> brought_in(const std::vector<Hit>& hits) {
    std::vector<std::string> out;
    for (const Hit& h : hits)
        if (h.brought_in) out.push_back(h.name + ": " + *h.brought_in);
    return out;
}

}  // namespace

TEST(Usage, RecordedHabitBringsThePartnerIn) {
    Registry registry = usage_registry();
    auto before = registry.discoverer().discover(kQuery, 10);
    EXPECT_TRUE(brought_in(before).empty());
    login_habit(registry);
    auto after = registry.discoverer().discover(kQuery, 10);
    EXPECT_EQ(brought_in(after), std::vector<std::string>{std::string("get_user_token: ") + kReason});
    ASSERT_FALSE(after.empty());
    EXPECT_EQ(after[0].name, "add_agenda");
    EXPECT_TRUE(brought_in(registry.discoverer(R"({"usage": false})").discover(kQuery, 10)).empty());
    auto status = registry.usage_status();
    EXPECT_EQ(status.tasks, 25u);
    EXPECT_EQ(status.tools, 3u);
    EXPECT_FALSE(status.recording);
    EXPECT_FALSE(status.path);
}

TEST(Usage, UnknownRepeatedAndEmptyNamesDoNotCount) {
    Registry registry = usage_registry();
    EXPECT_EQ(registry.record_usage({}), 0u);
    EXPECT_EQ(registry.record_usage({"no_such_tool", ""}), 0u);
    EXPECT_EQ(registry.record_usage({"add_agenda", "add_agenda", "nope"}), 1u);
    EXPECT_EQ(registry.usage_status().tasks, 1u);
}

TEST(Usage, BadInputThrowsAndRecordsNothing) {
    Registry registry = usage_registry();
    auto expect_status = [&](Status status, auto&& call) {
        try {
            call();
            ADD_FAILURE() << "did not throw " << toolregistry::status_name(status);
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), status) << e.what();
        }
    };
    expect_status(Status::InvalidJson, [&] { (void)registry.record_usage_json("[\"add_agenda\""); });
    expect_status(Status::InvalidArgument, [&] { (void)registry.record_usage_json("[1]"); });
    expect_status(Status::InvalidArgument, [&] { (void)registry.record_usage_json(R"({"tools": []})"); });
    expect_status(Status::InvalidUtf8, [&] { (void)registry.record_usage({"add_agenda", "\xff"}); });
    expect_status(Status::InvalidArgument, [&] { (void)registry.record_usage({std::string("a\0b", 3)}); });
    EXPECT_EQ(registry.usage_status().tasks, 0u);
}

TEST(Usage, TheFileKeepsTheCountsAcrossARestart) {
    const char* tmp = std::getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/tr-cpp-usage-XXXXXX";
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    std::string path = dir + "/usage.json";
    {
        Registry registry = usage_registry();
        registry.enable_usage(path);
        EXPECT_TRUE(registry.usage_status().recording);
        EXPECT_EQ(registry.usage_status().path, path);
        login_habit(registry);
        registry.save_usage();
    }
    Registry again = usage_registry("{\"usage\": {\"path\": \"" + path + "\"}}");
    EXPECT_EQ(again.usage_status().tasks, 25u);
    EXPECT_EQ(brought_in(again.discoverer().discover(kQuery, 10)),
              std::vector<std::string>{std::string("get_user_token: ") + kReason});
    std::remove(path.c_str());
    rmdir(dir.c_str());
}
