// Host embedders through the C++ wrapper, with the fake embedder every binding's tests share
// (dim 64; words split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit, 1.0 at hash % 64;
// all zeros -> [1, 0, ...]): the thread of each call, hybrid finding a tool by its vector only,
// re-entrancy, exceptions and wrong shapes failing their batch only, and the std::function
// destroyed exactly once (replaced, registry destroyed, failed call).
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "toolregistry.hpp"

using toolregistry::Error;
using toolregistry::Registry;
using toolregistry::Status;

namespace {

constexpr std::size_t kDim = 64;
constexpr const char* kQuery = "zzfs";  // the fake vector of "sprocket", no word in common
constexpr const char* kCatalog =
    "[{\"name\": \"alpha_widget\", \"description\": \"Frobnicate the gizmo.\"},"
    " {\"name\": \"beta_gadget\", \"description\": \"Polish the sprocket.\"},"
    " {\"name\": \"gamma_thing\", \"description\": \"Paint the fence.\"}]";

std::uint32_t fnv1a(const std::string& s) {
    std::uint32_t h = 0x811c9dc5u;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x01000193u;
    }
    return h;
}

std::vector<float> fake_vector(const std::string& text) {
    std::vector<float> v(kDim, 0.0f);
    std::string word;
    bool any = false;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        unsigned char c = i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
        if (c && c < 128 && std::isalnum(c)) {
            word += static_cast<char>(std::tolower(c));
            continue;
        }
        if (!word.empty()) {
            v[fnv1a(word) % kDim] += 1.0f;
            any = true;
            word.clear();
        }
    }
    if (!any) v[0] = 1.0f;
    return v;
}

std::vector<std::vector<float>> fake_embed(const std::vector<std::string>& texts) {
    std::vector<std::vector<float>> out;
    for (const auto& t : texts) out.push_back(fake_vector(t));
    return out;
}

Registry catalog() {
    Registry r;
    r.register_tools(kCatalog);
    return r;
}

std::string top(const Registry& r, std::string_view options, std::string_view query) {
    auto hits = r.discoverer(options).discover(query);
    return hits.empty() ? "" : hits.front().name;
}

// Counts its destruction: a stand-in for what an embedder captures.
struct Tracker {
    std::atomic<int>* destroyed;
    ~Tracker() { ++*destroyed; }
};

// The library lets go of an embedder once no call of it runs, possibly on its embedding thread a
// moment after the call that replaced or freed it returns: waits for the count.
int settled(const std::atomic<int>& count, int want) {
    for (int i = 0; i < 1000 && count.load() < want; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return count.load();
}

}  // namespace

TEST(Embedder, FakeEmbedder) {
    EXPECT_EQ(fake_vector("sprocket"), fake_vector(kQuery));
    EXPECT_EQ(fnv1a("a"), 0xe40c292cu);
    EXPECT_EQ(fake_vector("--")[0], 1.0f);
}

TEST(Embedder, HybridFindsByVectorOnTheRightThreads) {
    Registry r = catalog();
    EXPECT_EQ(top(r, "{\"profile\": \"enhanced\"}", kQuery), "");
    std::mutex mu;
    std::vector<std::thread::id> threads;
    std::vector<std::string> last;
    r.set_embedder(kDim, [&](const std::vector<std::string>& texts) {
        std::lock_guard<std::mutex> lock(mu);
        threads.push_back(std::this_thread::get_id());
        last = texts;
        return fake_embed(texts);
    });
    ASSERT_TRUE(r.wait_embeddings(std::chrono::seconds(20)));
    {
        std::lock_guard<std::mutex> lock(mu);
        ASSERT_FALSE(threads.empty());
        for (auto id : threads) EXPECT_NE(id, std::this_thread::get_id()) << "catalog embedded on the caller";
        threads.clear();
    }
    auto s = r.embedding_status();
    ASSERT_TRUE(s);
    EXPECT_EQ(s->embedder, "host:64");
    EXPECT_EQ(s->dim, kDim);
    EXPECT_EQ(s->ready, 3u);
    EXPECT_EQ(s->pending + s->failed, 0u);
    for (const auto& t : r.tools_status()) EXPECT_EQ(t.embedding.value_or(""), "ready") << t.name;
    EXPECT_EQ(top(r, "", kQuery), "beta_gadget");
    {
        std::lock_guard<std::mutex> lock(mu);
        ASSERT_EQ(threads.size(), 1u);
        EXPECT_EQ(threads[0], std::this_thread::get_id()) << "the query is embedded on the discovering thread";
        EXPECT_EQ(last, std::vector<std::string>{kQuery});
    }
    auto why = r.discoverer().explain(kQuery, "beta_gadget");
    EXPECT_EQ(why.profile, "hybrid");
    ASSERT_TRUE(why.hybrid);
    EXPECT_TRUE(why.hybrid->embedded);
    EXPECT_FALSE(why.hybrid->lexical_score);
    ASSERT_TRUE(why.hybrid->cosine);
    EXPECT_GT(*why.hybrid->cosine, 0.4);
    EXPECT_EQ(why.hybrid->fused_rank.value_or(0), 1u);
    EXPECT_FALSE(r.discoverer("{\"profile\": \"enhanced\"}").explain(kQuery, "beta_gadget").hybrid);
}

TEST(Embedder, HybridWithoutEmbedderIsInvalid) {
    Registry r = catalog();
    try {
        (void)top(r, "{\"profile\": \"hybrid\"}", kQuery);
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), Status::InvalidArgument) << e.what();
    }
    EXPECT_FALSE(r.embedding_status());
    EXPECT_TRUE(r.wait_embeddings(std::chrono::milliseconds(0)));
    for (const auto& t : r.tools_status()) EXPECT_FALSE(t.embedding);
}

TEST(Embedder, MayCallBackIntoTheRegistry) {
    Registry r = catalog();
    Registry* self = &r;
    r.set_embedder(kDim, [self](const std::vector<std::string>& texts) {
        if (self->tools_status().size() != 3) throw std::runtime_error("wrong tool count");
        return fake_embed(texts);
    });
    ASSERT_TRUE(r.wait_embeddings(std::chrono::seconds(20)));
    EXPECT_EQ(r.embedding_status()->ready, 3u);
    EXPECT_EQ(top(r, "", kQuery), "beta_gadget");
}

TEST(Embedder, FailuresFailTheirBatchOnly) {
    struct Case {
        const char* want;
        toolregistry::EmbedFunction fn;
    };
    std::vector<Case> cases = {
        {"the fake throws",
         [](const std::vector<std::string>&) -> std::vector<std::vector<float>> {
             throw std::runtime_error("the fake throws");
         }},
        {"unknown exception", [](const std::vector<std::string>&) -> std::vector<std::vector<float>> { throw 42; }},
        {"vectors for", [](const std::vector<std::string>&) { return fake_embed({"x"}); }},
        {"expected 64",
         [](const std::vector<std::string>& t) {
             return std::vector<std::vector<float>>(t.size(), std::vector<float>(kDim + 1, 1.0f));
         }},
        {"",
         [](const std::vector<std::string>& t) {
             return std::vector<std::vector<float>>(t.size(), std::vector<float>(kDim, 0.0f));
         }},
    };
    for (auto& c : cases) {
        Registry r = catalog();
        r.set_embedder(kDim, c.fn);
        ASSERT_TRUE(r.wait_embeddings(std::chrono::seconds(20)));
        auto s = r.embedding_status();
        ASSERT_TRUE(s);
        EXPECT_EQ(s->ready, 0u) << c.want;
        EXPECT_EQ(s->pending, 0u) << c.want;
        EXPECT_EQ(s->failed, 3u) << c.want;
        std::string all;
        for (const auto& w : s->warnings) all += w + " | ";
        EXPECT_NE(all.find(c.want), std::string::npos) << all;
        for (const auto& t : r.tools_status()) EXPECT_EQ(t.embedding.value_or(""), "failed");
        EXPECT_EQ(top(r, "", "polish sprocket"), "beta_gadget") << c.want;
    }
}

TEST(Embedder, DestroyedExactlyOnce) {
    std::atomic<int> first{0}, second{0}, refused{0};
    {
        Registry r = catalog();
        auto a = std::make_shared<Tracker>(Tracker{&first});
        auto b = std::make_shared<Tracker>(Tracker{&second});
        // make_shared copied a temporary Tracker: count from here.
        first = 0;
        second = 0;
        r.set_embedder(kDim, [a](const std::vector<std::string>& t) { return fake_embed(t); }, "fake-a");
        a.reset();
        r.set_embedder(kDim, [b](const std::vector<std::string>& t) { return fake_embed(t); }, "fake-b");
        b.reset();
        ASSERT_TRUE(r.wait_embeddings(std::chrono::seconds(20)));
        EXPECT_EQ(settled(first, 1), 1);
        EXPECT_EQ(second.load(), 0);
        EXPECT_EQ(r.embedding_status()->embedder, "fake-b");
        auto c = std::make_shared<Tracker>(Tracker{&refused});
        refused = 0;
        EXPECT_THROW(r.set_embedder(0, [c](const std::vector<std::string>& t) { return fake_embed(t); }), Error);
        c.reset();
        EXPECT_EQ(refused.load(), 1) << "a failed call destroys its function";
        EXPECT_EQ(r.embedding_status()->embedder, "fake-b");
        try {
            r.set_embedder(kDim, nullptr);
            ADD_FAILURE() << "an empty function was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), Status::NullArgument);
        }
    }
    EXPECT_EQ(settled(second, 1), 1);
    EXPECT_EQ(first.load(), 1);
}

// The pull model: no callback; the texts are taken and their vectors put back (a bad one refused
// whole), then hybrid ranks a query by the vector the host gives with it.
TEST(Embedder, PulledByTheHost) {
    Registry r = catalog();
    r.set_pull_embedder(kDim);
    std::size_t answered = 0;
    for (int spins = 0; answered < 3 && spins < 20000; ++spins) {
        std::string jobs = r.take_embedding_jobs_json();
        auto doc = toolregistry::detail::JsonParser(jobs).parse();
        if (doc.items.empty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
        }
        std::string good = "[", bad = "[";
        for (std::size_t i = 0; i < doc.items.size(); ++i) {
            const auto& job = doc.items[i];
            std::string id = std::to_string(static_cast<long long>(job.find("id")->number));
            std::string vector;
            for (float x : fake_vector(job.find("text")->string)) vector += (vector.empty() ? "" : ",") + std::to_string(x);
            good += (i ? "," : "") + std::string("{\"id\":") + id + ",\"vector\":[" + vector + "]}";
            bad += (i ? "," : "") + std::string("{\"id\":") + id + ",\"vector\":[1,2]}";
        }
        try {
            r.put_embeddings_json(bad + "]");
            ADD_FAILURE() << "a vector of the wrong length was accepted";
        } catch (const toolregistry::Error& e) {
            EXPECT_EQ(e.status(), toolregistry::Status::InvalidArgument) << e.what();
        }
        r.put_embeddings_json(good + "]");
        answered += doc.items.size();
    }
    ASSERT_EQ(answered, 3u);
    ASSERT_TRUE(r.wait_embeddings(std::chrono::seconds(20)));
    EXPECT_EQ(top(r, "", kQuery), "") << "no query vector: words only";
    Registry plain;
    try {
        (void)plain.take_embedding_jobs_json();
        ADD_FAILURE() << "a registry without a pulled embedder handed out jobs";
    } catch (const toolregistry::Error& e) {
        EXPECT_EQ(e.status(), toolregistry::Status::InvalidArgument) << e.what();
    }
}
