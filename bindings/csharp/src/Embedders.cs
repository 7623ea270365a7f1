using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Runtime.Serialization;
using System.Text;
using System.Threading;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection.
#pragma warning disable 0649

namespace ToolRegistry
{
    /// <summary>
    /// The bridge between managed embedders and <c>tr_embed_fn</c>/<c>tr_free_fn</c>, built like
    /// <see cref="HostFunctions"/>: one static trampoline, each embedder a number (the
    /// <c>user_data</c>) in a static table that keeps the delegate alive until the library's
    /// <c>free_user_data</c> (exactly once per <see cref="Registry.SetEmbedder"/> call) removes it.
    /// Every exception is caught: nothing managed unwinds into native code.
    /// </summary>
    internal static class Embedders
    {
        private static readonly ConcurrentDictionary<long, Func<IReadOnlyList<string>, float[][]>> Live =
            new ConcurrentDictionary<long, Func<IReadOnlyList<string>, float[][]>>();

        private static long lastId;
        private static long released;
        private static long unknownReleases;

        private static readonly Native.EmbedFn EmbedDelegate = Embed;
        private static readonly Native.FreeFn ReleaseDelegate = Release;

        /// <summary>The <c>tr_embed_fn</c> every embedder uses.</summary>
        internal static readonly IntPtr EmbedPointer = Marshal.GetFunctionPointerForDelegate(EmbedDelegate);

        /// <summary>The <c>tr_free_fn</c> every embedder uses.</summary>
        internal static readonly IntPtr ReleasePointer = Marshal.GetFunctionPointerForDelegate(ReleaseDelegate);

        /// <summary>How many embedders the library still holds.</summary>
        internal static int LiveCount
        {
            get { return Live.Count; }
        }

        /// <summary>How many embedders the library has released so far.</summary>
        internal static long ReleasedCount
        {
            get { return Interlocked.Read(ref released); }
        }

        /// <summary>Releases of a number that was not live: always 0 unless the library is broken.</summary>
        internal static long UnknownReleaseCount
        {
            get { return Interlocked.Read(ref unknownReleases); }
        }

        internal static IntPtr Add(Func<IReadOnlyList<string>, float[][]> fn)
        {
            long id = Interlocked.Increment(ref lastId);
            Live[id] = fn;
            return new IntPtr(id);
        }

        internal static void Forget(IntPtr userData)
        {
            Func<IReadOnlyList<string>, float[][]> ignored;
            Live.TryRemove(userData.ToInt64(), out ignored);
        }

        [MonoPInvokeCallback(typeof(Native.EmbedFn))]
        private static int Embed(IntPtr userData, IntPtr texts, UIntPtr count, IntPtr vectors, UIntPtr dim, IntPtr error, UIntPtr errorCap)
        {
            try
            {
                Func<IReadOnlyList<string>, float[][]> fn;
                if (!Live.TryGetValue(userData.ToInt64(), out fn))
                {
                    return Fail(error, errorCap, "the embedder was already released");
                }
                int n = checked((int)count.ToUInt64());
                int d = checked((int)dim.ToUInt64());
                var batch = new string[n];
                for (int i = 0; i < n; i++)
                {
                    batch[i] = Utf8.Copy(Marshal.ReadIntPtr(texts, i * IntPtr.Size));
                }
                float[][] result;
                try
                {
                    result = fn(batch);
                }
                catch (Exception e)
                {
                    return Fail(error, errorCap, "the embedder threw " + e.GetType().Name + ": " + e.Message);
                }
                if (result == null || result.Length != n)
                {
                    return Fail(error, errorCap, "the embedder returned " + (result == null ? "null" : result.Length + " vectors") + " for " + n + " texts");
                }
                for (int i = 0; i < n; i++)
                {
                    if (result[i] == null || result[i].Length != d)
                    {
                        return Fail(error, errorCap, "the embedder returned a vector of " + (result[i] == null ? 0 : result[i].Length) + " numbers, expected " + d);
                    }
                }
                for (int i = 0; i < n; i++)
                {
                    Marshal.Copy(result[i], 0, vectors + i * d * sizeof(float), d);
                }
                return 0;
            }
            catch (Exception e)
            {
                try
                {
                    return Fail(error, errorCap, "the embedder failed: " + e.Message);
                }
                catch (Exception)
                {
                    return 1;
                }
            }
        }

        /// <summary>Writes a NUL-terminated message, cut to the buffer, and returns a failure code.</summary>
        private static int Fail(IntPtr error, UIntPtr errorCap, string message)
        {
            long cap = (long)errorCap.ToUInt64();
            if (error != IntPtr.Zero && cap > 0)
            {
                byte[] bytes = Encoding.UTF8.GetBytes((message ?? string.Empty).Replace('\0', '\uFFFD'));
                int len = (int)Math.Min(bytes.Length, cap - 1);
                Marshal.Copy(bytes, 0, error, len);
                Marshal.WriteByte(error, len, 0);
            }
            return 1;
        }

        [MonoPInvokeCallback(typeof(Native.FreeFn))]
        private static void Release(IntPtr userData)
        {
            try
            {
                Func<IReadOnlyList<string>, float[][]> ignored;
                if (Live.TryRemove(userData.ToInt64(), out ignored))
                {
                    Interlocked.Increment(ref released);
                }
                else
                {
                    Interlocked.Increment(ref unknownReleases);
                }
            }
            catch (Exception)
            {
                // Nothing may unwind into native code.
            }
        }
    }

    /// <summary>The built-in sentence encoder of a registry (<c>new Registry(discovery, embedding)</c>).</summary>
    public sealed class EmbeddingOptions
    {
        /// <summary>A sentence-transformers model directory (model.safetensors, tokenizer.json, config.json).</summary>
        public string ModelDir { get; set; }

        /// <summary>A file that keeps text-hash to vector across restarts, or null.</summary>
        public string CachePath { get; set; }

        /// <summary>Most threads that embed the catalog (1 to 256; null: all cores).</summary>
        public int? Threads { get; set; }

        /// <summary>The options as the JSON object the C ABI takes.</summary>
        public string ToJson()
        {
            return new JsonObjectWriter().Add("model_dir", ModelDir).Add("cache_path", CachePath).Add("threads", Threads).ToString();
        }
    }

    /// <summary>What a registry's embedder has done, from <see cref="Registry.EmbeddingStatus"/>.</summary>
    [DataContract]
    public sealed class EmbeddingStatus
    {
        [DataMember(Name = "embedder")] private string embedder;
        [DataMember(Name = "dim")] private int dim;
        [DataMember(Name = "ready")] private int ready;
        [DataMember(Name = "pending")] private int pending;
        [DataMember(Name = "failed")] private int failed;
        [DataMember(Name = "embedded")] private int embedded;
        [DataMember(Name = "warnings")] private string[] warnings;

        /// <summary>The embedder's identity ("host:DIM" unless set).</summary>
        public string Embedder { get { return embedder; } }

        /// <summary>The length of every vector.</summary>
        public int Dim { get { return dim; } }

        /// <summary>Enabled tools with their vector.</summary>
        public int Ready { get { return ready; } }

        /// <summary>Enabled tools waiting for theirs.</summary>
        public int Pending { get { return pending; } }

        /// <summary>Tools the embedder failed on: found by words until their text changes.</summary>
        public int Failed { get { return failed; } }

        /// <summary>Vectors computed since the embedder was set (the others came from the cache).</summary>
        public int Embedded { get { return embedded; } }

        /// <summary>The last warnings: a cache file ignored, a batch that failed.</summary>
        public IReadOnlyList<string> Warnings { get { return warnings ?? new string[0]; } }
    }

    /// <summary>Each side of a "hybrid" ranking for the explained tool (<see cref="Explanation.Hybrid"/>).</summary>
    [DataContract]
    public sealed class HybridExplanation
    {
        [DataMember(Name = "lexical_score")] private double? lexicalScore;
        [DataMember(Name = "lexical_rank")] private int? lexicalRank;
        [DataMember(Name = "cosine")] private double? cosine;
        [DataMember(Name = "semantic_rank")] private int? semanticRank;
        [DataMember(Name = "fused_score")] private double? fusedScore;
        [DataMember(Name = "fused_rank")] private int? fusedRank;
        [DataMember(Name = "phrase_score")] private double? phraseScore;
        [DataMember(Name = "embedded")] private bool embedded;
        [DataMember(Name = "note")] private string note;

        /// <summary>The enhanced (BM25F) score, or null when not among the lexical candidates.</summary>
        public double? LexicalScore { get { return lexicalScore; } }

        /// <summary>Rank among the lexical candidates (1-based), or null.</summary>
        public int? LexicalRank { get { return lexicalRank; } }

        /// <summary>The cosine similarity to the query, or null when not among the semantic candidates.</summary>
        public double? Cosine { get { return cosine; } }

        /// <summary>Rank among the semantic candidates (1-based), or null.</summary>
        public int? SemanticRank { get { return semanticRank; } }

        /// <summary>The fused score, or null.</summary>
        public double? FusedScore { get { return fusedScore; } }

        /// <summary>Rank after fusion (1-based), or null.</summary>
        public int? FusedRank { get { return fusedRank; } }

        /// <summary>What the query's phrases in the tool's text added to its words score, or null when none.</summary>
        public double? PhraseScore { get { return phraseScore; } }

        /// <summary>Whether the tool had its vector.</summary>
        public bool Embedded { get { return embedded; } }

        /// <summary>Why a side is missing, or null.</summary>
        public string Note { get { return note; } }
    }

    public sealed partial class Registry
    {
        /// <summary>
        /// Creates an empty registry with the built-in sentence encoder (and discovery, if not null);
        /// it then ranks with the "hybrid" profile unless discovery options name another.
        /// </summary>
        /// <exception cref="ToolRegistryException">A missing or corrupt model, or bad options.</exception>
        public Registry(DiscoveryOptions discovery, EmbeddingOptions embedding)
        {
            var w = new JsonObjectWriter();
            if (discovery != null)
            {
                w.AddRaw("discovery", discovery.ToJson());
            }
            if (embedding != null)
            {
                w.AddRaw("embedding", embedding.ToJson());
            }
            IntPtr err;
            var status = Native.tr_registry_new(Utf8.Encode(w.ToString(), "options"), out handle, out err);
            Native.Check(status, err);
        }

        /// <summary>
        /// Gives the registry a host embedder; it then ranks with "hybrid" unless discovery options
        /// name another profile. Replaces any embedder set before (released once no call of it runs);
        /// every enabled tool is embedded again in the background.
        /// </summary>
        /// <param name="dim">The length of every vector (1 to 8192).</param>
        /// <param name="fn">
        /// Embeds a batch of texts: one vector of <paramref name="dim"/> floats per text, in order.
        /// Called on the library's embedding thread for the catalog and on the discovering thread for
        /// a query; it may call this registry. An exception, null, or a wrong count or length fails
        /// that batch only: its tools stay findable by words and <see cref="EmbeddingStatus"/> counts
        /// them as failed. The registry keeps it alive until it is replaced or the registry disposed.
        /// </param>
        /// <param name="identity">Names the model for the vector cache (default "host:DIM").</param>
        /// <param name="cachePath">A file keeping the vectors across restarts, or null.</param>
        /// <exception cref="InvalidInputException">A bad dim; nothing changed.</exception>
        public void SetEmbedder(int dim, Func<IReadOnlyList<string>, float[][]> fn, string identity = null, string cachePath = null)
        {
            if (fn == null)
            {
                throw new ArgumentNullException("fn");
            }
            var options = Utf8.EncodeRequired(new JsonObjectWriter().Add("dim", dim).Add("identity", identity).Add("cache_path", cachePath).ToString(), "options");
            var h = Handle;
            IntPtr err;
            var status = Status.Ok;
            IntPtr userData = Embedders.Add(fn);
            bool called = false;
            try
            {
                status = Native.tr_registry_set_embedder(h, options, Embedders.EmbedPointer, userData, Embedders.ReleasePointer, out err);
                called = true;
            }
            finally
            {
                if (!called)
                {
                    Embedders.Forget(userData);
                }
            }
            Native.Check(status, err);
        }

        /// <summary>
        /// Waits up to <paramref name="timeout"/> for every enabled tool to have its vector (or to have
        /// failed); true when none is left waiting (at once without an embedder).
        /// </summary>
        public bool WaitEmbeddings(TimeSpan timeout)
        {
            bool done;
            IntPtr err;
            ulong ms = timeout <= TimeSpan.Zero ? 0UL : (ulong)Math.Ceiling(timeout.TotalMilliseconds);
            Native.Check(Native.tr_registry_wait_embeddings(Handle, ms, out done, out err), err);
            return done;
        }

        /// <summary>What the embedder has done, or null without one.</summary>
        public EmbeddingStatus EmbeddingStatus()
        {
            string json = EmbeddingStatusJson();
            return json == "null" ? null : JsonReader.Deserialize<EmbeddingStatus>(json);
        }

        /// <summary>The embedding status as the library's raw JSON (<c>null</c> without an embedder).</summary>
        public string EmbeddingStatusJson()
        {
            IntPtr json, err;
            Native.Check(Native.tr_registry_embedding_status(Handle, out json, out err), err);
            return Utf8.Take(json);
        }
    }
}
