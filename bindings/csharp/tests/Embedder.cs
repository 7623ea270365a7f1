using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace ToolRegistry.Tests
{
    /// <summary>
    /// The host-embedder contract with the fake embedder every binding's tests share: dim 64; split
    /// the text on non-alphanumeric ASCII, lowercase each word, FNV-1a 32-bit of its UTF-8 bytes, add
    /// 1.0 at hash % 64; an all-zero vector becomes [1, 0, ...]. "zzfs" shares its bucket with
    /// "sprocket" and no other word of the catalog, so only the vectors link it to beta_gadget.
    /// </summary>
    internal static partial class Program
    {
        private const int FakeDim = 64;
        private const string FakeQuery = "zzfs";
        private const string FakeCatalog = @"[{""name"": ""alpha_widget"", ""description"": ""Frobnicate the gizmo.""},
          {""name"": ""beta_gadget"", ""description"": ""Polish the sprocket.""},
          {""name"": ""gamma_thing"", ""description"": ""Paint the fence.""}]";

        internal static uint Fnv1a(byte[] data)
        {
            uint h = 0x811c9dc5;
            foreach (byte b in data)
            {
                h = unchecked((h ^ b) * 0x01000193);
            }
            return h;
        }

        internal static float[] FakeVector(string text)
        {
            var v = new float[FakeDim];
            bool any = false;
            var word = new System.Text.StringBuilder();
            foreach (char c in text + " ")
            {
                if (c < 128 && char.IsLetterOrDigit(c))
                {
                    word.Append(char.ToLowerInvariant(c));
                    continue;
                }
                if (word.Length > 0)
                {
                    v[Fnv1a(System.Text.Encoding.UTF8.GetBytes(word.ToString())) % FakeDim] += 1f;
                    any = true;
                    word.Clear();
                }
            }
            if (!any)
            {
                v[0] = 1f;
            }
            return v;
        }

        internal static float[][] FakeEmbed(IReadOnlyList<string> texts)
        {
            return texts.Select(FakeVector).ToArray();
        }

        private static Registry FakeCatalogRegistry()
        {
            var r = new Registry();
            r.Register(FakeCatalog);
            return r;
        }

        private static string Top(Registry r, string profile, string query)
        {
            using (var d = r.CreateDiscoverer(profile == null ? null : new DiscoveryOptions { Profile = profile }))
            {
                var hits = d.Discover(query);
                return hits.Count == 0 ? "" : hits[0].Name;
            }
        }

        /// <summary>
        /// The library lets go of an embedder once no call of it runs, possibly on its embedding
        /// thread a moment after the call that replaced or freed it returns: waits for the count.
        /// </summary>
        private static long ReleasedAtLeast(long want)
        {
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (Embedders.ReleasedCount < want && DateTime.UtcNow < deadline)
            {
                Thread.Sleep(10);
            }
            Thread.Sleep(50);
            return Embedders.ReleasedCount;
        }

        private static void EmbedderTests()
        {
            Test("embedder: the fake embedder", () =>
            {
                Seq(FakeVector("sprocket"), FakeVector(FakeQuery), "same bucket");
                Eq(0xe40c292cu, Fnv1a(new byte[] { (byte)'a' }), "FNV-1a of a");
                Eq(1f, FakeVector("--")[0], "empty text");
            });
            Test("embedder: hybrid finds by vector, on the right threads", EmbedderFindsByVector);
            Test("embedder: hybrid without an embedder is INVALID_ARGUMENT", () =>
            {
                using (var r = FakeCatalogRegistry())
                {
                    var e = Throws<InvalidInputException>(() => Top(r, DiscoveryProfile.Hybrid, FakeQuery), "hybrid without an embedder");
                    Eq(Status.InvalidArgument, e.Status, "status");
                    True(r.EmbeddingStatus() == null, "no status");
                    True(r.WaitEmbeddings(TimeSpan.Zero), "nothing to wait for");
                    True(r.ToolsStatus().All(t => t.Embedding == null), "no embedding state");
                }
            });
            Test("embedder: may call back into the registry", () =>
            {
                using (var r = FakeCatalogRegistry())
                {
                    int calls = 0;
                    r.SetEmbedder(FakeDim, texts =>
                    {
                        Interlocked.Increment(ref calls);
                        Eq(3, r.ToolsStatus().Count, "tools seen from the embedder");
                        return FakeEmbed(texts);
                    });
                    True(r.WaitEmbeddings(TimeSpan.FromSeconds(20)), "embedded");
                    Eq(3, r.EmbeddingStatus().Ready, "ready");
                    Eq("beta_gadget", Top(r, null, FakeQuery), "hybrid top hit");
                    True(calls >= 2, "called for the catalog and the query");
                }
            });
            var failing = new Dictionary<string, Func<IReadOnlyList<string>, float[][]>>
            {
                { "the fake throws", texts => { throw new InvalidOperationException("the fake throws"); } },
                { "vectors for", texts => new[] { FakeVector("x") } },
                { "expected 64", texts => texts.Select(t => new float[FakeDim - 1]).ToArray() },
                { "null", texts => null },
                { "", texts => texts.Select(t => Enumerable.Repeat(float.NaN, FakeDim).ToArray()).ToArray() },
            };
            foreach (var c in failing)
            {
                Test("embedder: a failing embedder fails its batch only (" + (c.Key == "" ? "NaN" : c.Key) + ")", () =>
                {
                    long releasedBefore = Embedders.ReleasedCount;
                    using (var r = FakeCatalogRegistry())
                    {
                        r.SetEmbedder(FakeDim, c.Value);
                        True(r.WaitEmbeddings(TimeSpan.FromSeconds(20)), "done");
                        var s = r.EmbeddingStatus();
                        Eq(0, s.Ready, "ready");
                        Eq(0, s.Pending, "pending");
                        Eq(3, s.Failed, "failed");
                        True(s.Warnings.Count > 0 && string.Join(" ", s.Warnings).Contains(c.Key), "warning: " + string.Join(" | ", s.Warnings));
                        True(r.ToolsStatus().All(t => t.Embedding == "failed"), "tools failed");
                        Eq("beta_gadget", Top(r, null, "polish sprocket"), "still found by words");
                    }
                    Eq(releasedBefore + 1, ReleasedAtLeast(releasedBefore + 1), "released once");
                });
            }
            Test("embedder: released once when replaced and when disposed", () =>
            {
                int live = Embedders.LiveCount;
                long released = Embedders.ReleasedCount;
                var r = FakeCatalogRegistry();
                r.SetEmbedder(FakeDim, FakeEmbed, "fake-a");
                r.SetEmbedder(FakeDim, FakeEmbed, "fake-b");
                True(r.WaitEmbeddings(TimeSpan.FromSeconds(20)), "embedded");
                Eq("fake-b", r.EmbeddingStatus().Embedder, "the second embedder");
                Eq(released + 1, ReleasedAtLeast(released + 1), "the first released");
                Eq(live + 1, Embedders.LiveCount, "the second kept");
                Throws<InvalidInputException>(() => r.SetEmbedder(0, FakeEmbed), "dim 0");
                Eq(released + 2, Embedders.ReleasedCount, "a failed call releases its embedder");
                Eq("fake-b", r.EmbeddingStatus().Embedder, "nothing changed");
                r.Dispose();
                Eq(released + 3, ReleasedAtLeast(released + 3), "released with the registry");
                Eq(live, Embedders.LiveCount, "none left");
                Eq(0L, Embedders.UnknownReleaseCount, "no double release");
                Throws<ArgumentNullException>(() => new Registry().SetEmbedder(FakeDim, null), "null fn");
            });
            Test("embedder: a missing model directory fails at load", () =>
            {
                Throws<ToolRegistryException>(() => new Registry(null, new EmbeddingOptions { ModelDir = "/nonexistent/model" }), "missing model");
            });
        }

        private static void EmbedderFindsByVector()
        {
            using (var r = FakeCatalogRegistry())
            {
                Eq("", Top(r, DiscoveryProfile.Enhanced, FakeQuery), "enhanced finds nothing by words");
                var threads = new List<int>();
                var batches = new List<IReadOnlyList<string>>();
                r.SetEmbedder(FakeDim, texts =>
                {
                    lock (threads)
                    {
                        threads.Add(Thread.CurrentThread.ManagedThreadId);
                        batches.Add(texts.ToList());
                    }
                    return FakeEmbed(texts);
                });
                True(r.WaitEmbeddings(TimeSpan.FromSeconds(20)), "embedded");
                int me = Thread.CurrentThread.ManagedThreadId;
                lock (threads)
                {
                    True(threads.Count > 0 && threads.All(t => t != me), "the catalog is embedded on the embedding thread");
                    threads.Clear();
                }
                var s = r.EmbeddingStatus();
                Eq("host:64", s.Embedder, "identity");
                Eq(64, s.Dim, "dim");
                Eq(3, s.Ready, "ready");
                Eq(0, s.Pending + s.Failed, "pending + failed");
                True(r.ToolsStatus().All(t => t.Embedding == "ready"), "tools ready");
                Eq("beta_gadget", Top(r, null, FakeQuery), "hybrid (the default) top hit");
                lock (threads)
                {
                    Seq(new[] { me }, threads, "the query is embedded on the discovering thread");
                    Seq(new[] { FakeQuery }, batches[batches.Count - 1], "the query's batch");
                }
                using (var d = r.CreateDiscoverer())
                {
                    var why = d.Explain(FakeQuery, "beta_gadget");
                    Eq("hybrid", why.Profile, "profile");
                    var h = why.Hybrid;
                    True(h != null && h.Embedded && h.LexicalScore == null && h.Cosine > 0.4 && h.FusedRank == 1, "explain: " + why.Json);
                }
                using (var d = r.CreateDiscoverer(new DiscoveryOptions { Profile = DiscoveryProfile.Enhanced }))
                {
                    True(d.Explain(FakeQuery, "beta_gadget").Hybrid == null, "no hybrid part in enhanced");
                }
            }
        }
    }
}
