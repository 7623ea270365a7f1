// Several threads share one Registry and Discoverer through the wrapper: readers discover while
// writers register and unregister their own tools; afterwards only the stable tools remain and
// every answer equals a fresh discoverer's.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.hpp"

TEST(Threads, ConcurrentDiscoversAndMutations) {
    toolregistry::Registry registry = fixtures::make_registry();
    registry.enable_discovery();
    const toolregistry::Discoverer discoverer = registry.discoverer();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    std::atomic<long> reads{0}, writes{0}, failures{0};
    // Work until the deadline and at least 10 rounds each (under valgrind a thread can otherwise
    // get no turn at all), but give up a minute after the deadline.
    auto keep_going = [&](long round) {
        auto now = std::chrono::steady_clock::now();
        return now < deadline || (round < 10 && now < deadline + std::chrono::seconds(60));
    };

    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
        threads.emplace_back([&, t] {
            const char* queries[] = {"send an email", "weather forecast", "read a file", "translate text"};
            for (long i = 0; keep_going(i); ++i) {
                try {
                    if (i % 2 == 0) {
                        auto hits = discoverer.discover(fixtures::kNames[static_cast<std::size_t>(i + t) % fixtures::kNames.size()]);
                        if (hits.size() != 1 || hits[0].score != 1.0) ++failures;
                    } else {
                        auto hits = registry.discover_tools(queries[(i + t) % 4], 3);
                        if (hits.size() > 3) ++failures;
                    }
                    ++reads;
                } catch (const toolregistry::Error&) {
                    ++failures;
                }
            }
        });
    }
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&, t] {
            for (long i = 0; keep_going(i); ++i) {
                std::string name = "churn" + std::to_string(t) + "_" + std::to_string(i % 5);
                try {
                    registry.register_tools("{\"name\": \"" + name + "\", \"description\": \"Send weather email.\"}");
                    registry.set_metadata(name, R"({"tags": ["network"]})");
                    registry.unregister(name);
                    writes += 3;
                } catch (const toolregistry::Error&) {
                    ++failures;
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();

    EXPECT_EQ(failures.load(), 0);
    EXPECT_GE(reads.load(), 6 * 10);
    EXPECT_GE(writes.load(), 2 * 10 * 3);
    auto fresh = registry.discoverer();
    for (const char* query : {"send an email", "weather forecast", "read a file"})
        EXPECT_EQ(discoverer.discover_json(query), fresh.discover_json(query)) << query;
    EXPECT_EQ(registry.discover_tools("churn0_1").size(), 0u);
}
