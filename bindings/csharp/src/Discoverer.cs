using System;
using System.Collections.Generic;

namespace ToolRegistry
{
    /// <summary>
    /// Ranking options bound to a registry's live state: finds tools by exact name or by a
    /// natural-language query. Wraps a native <c>tr_discoverer</c>; create with
    /// <see cref="Registry.CreateDiscoverer"/>.
    /// </summary>
    /// <remarks>
    /// Thread-safe: discoveries from many threads run in parallel. It follows every change to its
    /// registry and keeps the registry's state alive, so it stays usable after the Registry object is
    /// disposed. Dispose is idempotent and waits for calls in flight; later calls throw
    /// <see cref="ObjectDisposedException"/>.
    /// </remarks>
    public sealed partial class Discoverer : IDisposable
    {
        private readonly DiscovererHandle handle;

        internal Discoverer(Registry registry, DiscoveryOptions options)
        {
            var o = options == null ? null : Utf8.Encode(options.ToJson(), "options");
            IntPtr err;
            var status = Native.tr_discoverer_new(registry.NativeHandle, o, out handle, out err);
            Native.Check(status, err);
        }

        private DiscovererHandle Handle
        {
            get
            {
                if (handle.IsClosed)
                {
                    throw new ObjectDisposedException(GetType().FullName);
                }
                return handle;
            }
        }

        /// <summary>
        /// Finds tools for <paramref name="query"/>, best first. A query equal to an enabled tool's name
        /// returns that tool alone with score 1.0 and its schema.
        /// </summary>
        /// <param name="query">A tool name or natural-language text; not empty.</param>
        /// <param name="topK">At most this many hits (at least 1).</param>
        /// <param name="apiFormat">Format of returned schemas, an <see cref="ApiFormat"/> constant; null for openai-chat.</param>
        /// <exception cref="InvalidInputException">Empty query, topK below 1, unknown format, query over 64 KiB.</exception>
        public IReadOnlyList<DiscoverResult> Discover(string query, int topK = 10, string apiFormat = null)
        {
            return DiscoverResult.ParseList(DiscoverJson(query, topK, apiFormat));
        }

        /// <summary>
        /// Like <see cref="Discover(string, int, string)"/> with filters: <see cref="DiscoverRequest.Namespaces"/>,
        /// <see cref="DiscoverRequest.Tags"/> and <see cref="DiscoverRequest.Deferred"/> choose which tools
        /// may answer before ranking and TopK. A query "select:a,b,c" returns those tools by exact name,
        /// in that order, with their schemas.
        /// </summary>
        public IReadOnlyList<DiscoverResult> Discover(string query, DiscoverRequest request)
        {
            return DiscoverResult.ParseList(DiscoverJson(query, request));
        }

        /// <summary>
        /// Like <see cref="Discover(string, DiscoverRequest)"/>, as raw JSON: [{"name", "description",
        /// "score", "namespace", "deferred", "schema"?, "warning"?}]. Its size is what
        /// <see cref="DiscoverRequest.MaxTokens"/> counts.
        /// </summary>
        public string DiscoverJson(string query, DiscoverRequest request)
        {
            var q = Utf8.EncodeRequired(query, "query");
            var r = request ?? new DiscoverRequest();
            var o = Utf8.Encode(new JsonObjectWriter()
                .Add("top_k", r.TopK)
                .Add("api_format", r.ApiFormat)
                .Add("namespaces", r.Namespaces)
                .Add("tags", r.Tags)
                .Add("deferred", r.Deferred)
                .Add("strict", r.Strict)
                .Add("max_tokens", r.MaxTokens)
                .AddRaw("query_vector", VectorJson(r.QueryVector))
                .ToString(), "options");
            IntPtr json, err;
            var status = Native.tr_discoverer_discover(Handle, q, o, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>Like <see cref="Discover(string, int, string)"/>, as raw JSON: [{"name", "description", "score", "namespace", "deferred", "schema"?, "warning"?}].</summary>
        public string DiscoverJson(string query, int topK = 10, string apiFormat = null)
        {
            var q = Utf8.EncodeRequired(query, "query");
            var o = Utf8.Encode(new JsonObjectWriter().Add("top_k", (int?)topK).Add("api_format", apiFormat).ToString(), "options");
            IntPtr json, err;
            var status = Native.tr_discoverer_discover(Handle, q, o, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// Explains how <paramref name="query"/> ranks the tool <paramref name="toolName"/>: the query
        /// tokens the filter kept or dropped, the tool's score per token and field, its rank, or why it
        /// is not in the answer. Runs the same analysis and scoring as <see cref="Discover(string, int, string)"/>.
        /// </summary>
        /// <exception cref="NotFoundException">No tool named <paramref name="toolName"/> is registered.</exception>
        /// <exception cref="InvalidInputException">Empty query or topK below 1.</exception>
        public Explanation Explain(string query, string toolName, int topK = 10)
        {
            return Explanation.Parse(ExplainJson(query, toolName, topK));
        }

        /// <summary>Like <see cref="Explain"/>, as the library's raw JSON.</summary>
        public string ExplainJson(string query, string toolName, int topK = 10)
        {
            var q = Utf8.EncodeRequired(query, "query");
            var t = Utf8.EncodeRequired(toolName, "toolName");
            var o = Utf8.Encode(new JsonObjectWriter().Add("top_k", (int?)topK).ToString(), "options");
            IntPtr json, err;
            var status = Native.tr_discoverer_explain(Handle, q, t, o, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// Rebuilds the search index from the registry. Never required (the index follows changes
        /// incrementally); safe at any time and changes no answer.
        /// </summary>
        public void RebuildIndex()
        {
            IntPtr err;
            var status = Native.tr_discoverer_rebuild_index(Handle, out err);
            Native.Check(status, err);
        }

        /// <summary>Frees the native discoverer. Idempotent.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        private static string VectorJson(float[] vector)
        {
            if (vector == null)
            {
                return null;
            }
            var sb = new System.Text.StringBuilder();
            Registry.AppendVector(sb, vector, "QueryVector");
            return sb.ToString();
        }
    }
}
