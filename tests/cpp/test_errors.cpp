// Each C status surfaces as toolregistry::Error with that status() and the library's message,
// and a failed call leaves the registry unchanged.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "fixtures.hpp"

using toolregistry::Error;
using toolregistry::Registry;
using toolregistry::Status;

namespace {

// Runs `f`, which must throw Error with `status`; returns the message.
std::string expect_error(Status status, const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), status) << e.what();
        std::string message = e.what();
        EXPECT_FALSE(message.empty());
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        return message;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw something else: " << e.what();
        return {};
    }
    ADD_FAILURE() << "did not throw; expected " << toolregistry::status_name(status);
    return {};
}

class Errors : public ::testing::Test {
protected:
    Registry registry = fixtures::make_registry();
    toolregistry::Discoverer discoverer = registry.discoverer();
    std::string schemas_before = registry.schemas_json();

    void TearDown() override { EXPECT_EQ(registry.schemas_json(), schemas_before) << "a failed call changed state"; }
};

}  // namespace

TEST_F(Errors, NullArgumentFromAMovedFromHandle) {
    Registry moved = std::move(registry);
    registry = std::move(moved);  // TearDown still needs it
    Registry empty = Registry();
    Registry sink = std::move(empty);
    expect_error(Status::NullArgument, [&] { (void)empty.schemas_json(); });  // NOLINT(bugprone-use-after-move)
    expect_error(Status::NullArgument, [&] { empty.unregister("flat_add"); });  // NOLINT(bugprone-use-after-move)
    toolregistry::Discoverer gone = std::move(discoverer);
    expect_error(Status::NullArgument, [&] { (void)discoverer.discover("file"); });  // NOLINT(bugprone-use-after-move)
    expect_error(Status::NullArgument, [&] { toolregistry::Discoverer d(empty); });  // NOLINT(bugprone-use-after-move)
}

TEST_F(Errors, InvalidUtf8) {
    expect_error(Status::InvalidUtf8, [&] { registry.register_tools("{\"name\": \"bad\xff\"}"); });
    expect_error(Status::InvalidUtf8, [&] { (void)discoverer.discover("file \xfe"); });
    expect_error(Status::InvalidUtf8, [&] { (void)registry.discover_tools("file \xfe"); });
}

TEST_F(Errors, InvalidJson) {
    expect_error(Status::InvalidJson, [&] { registry.register_tools("{\"name\": "); });
    expect_error(Status::InvalidJson, [&] { registry.set_metadata("flat_add", "{defer}"); });
    expect_error(Status::InvalidJson, [&] { (void)discoverer.discover_json("file", "{"); });
}

TEST_F(Errors, InvalidArgument) {
    std::string message = expect_error(Status::InvalidArgument, [&] { registry.register_tools(R"({"description": "x"})"); });
    EXPECT_NE(message.find("name"), std::string::npos) << message;
    expect_error(Status::InvalidArgument, [&] { registry.register_tools(R"([{"name": "ok_tool"}, {"name": "a b"}])"); });
    expect_error(Status::InvalidArgument, [&] { (void)discoverer.discover(""); });
    expect_error(Status::InvalidArgument, [&] { (void)discoverer.discover("   "); });
    expect_error(Status::InvalidArgument, [&] { (void)discoverer.discover("file", 0); });
    expect_error(Status::InvalidArgument, [&] { (void)registry.discoverer(R"({"max_df_ratio": 2})"); });
    expect_error(Status::InvalidArgument, [&] { Registry bad(R"({"unknown": true})"); });
    expect_error(Status::InvalidArgument, [&] { (void)registry.schemas_json(R"({"api_format": "morse"})"); });
    expect_error(Status::InvalidArgument, [&] { (void)discoverer.explain("", "flat_add"); });
    // The wrapper refuses an embedded NUL itself (the C ABI would silently truncate).
    message = expect_error(Status::InvalidArgument, [&] { registry.unregister(std::string("flat_add\0x", 10)); });
    EXPECT_NE(message.find("NUL"), std::string::npos) << message;
}

TEST_F(Errors, NotFound) {
    std::string message = expect_error(Status::NotFound, [&] { registry.unregister("no_such_tool"); });
    EXPECT_NE(message.find("no_such_tool"), std::string::npos) << message;
    expect_error(Status::NotFound, [&] { registry.set_enabled("no_such_tool", false); });
    expect_error(Status::NotFound, [&] { registry.set_metadata("no_such_tool", "{}"); });
    expect_error(Status::NotFound, [&] { (void)registry.call("no_such_builtin", "{}"); });
    expect_error(Status::NotFound, [&] { (void)registry.discover_tools("file"); });  // discovery not enabled
    expect_error(Status::NotFound, [&] { (void)discoverer.explain("file", "no_such_tool"); });
}

TEST_F(Errors, TooLarge) {
    expect_error(Status::TooLarge, [&] { registry.register_tools(std::string(65u << 20, ' ')); });
    expect_error(Status::TooLarge, [&] { (void)discoverer.discover(std::string(TR_MAX_QUERY_BYTES + 1, 'q')); });
    expect_error(Status::TooLarge, [&] {
        registry.register_tools("{\"name\": \"" + std::string(TR_MAX_NAME_BYTES + 1, 'n') + "\"}");
    });
}

// INTERNAL and PANIC cannot be provoked through the public C functions; the mapping is the same
// code path, so check the status conversion and Error itself.
TEST(ErrorType, CarriesEveryStatus) {
    for (int s = 1; s <= 8; ++s) {
        auto status = toolregistry::detail::to_status(static_cast<tr_status>(s));
        EXPECT_EQ(static_cast<int>(status), s);
        Error e(status, "message");
        EXPECT_EQ(e.status(), status);
        EXPECT_STREQ(e.what(), "message");
        EXPECT_EQ(toolregistry::status_name(status).substr(0, 10), "TR_STATUS_");
    }
    try {
        toolregistry::detail::check(static_cast<tr_status>(TR_STATUS_PANIC), nullptr);
        FAIL();
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "TR_STATUS_PANIC");
    }
    EXPECT_NO_THROW(toolregistry::detail::check(TR_STATUS_OK, nullptr));
}
