using System;
using System.Collections.Generic;

namespace ToolRegistry
{
    /// <summary>
    /// A tool registry: the tools an agent knows, their metadata and enabled state, and the search
    /// index behind discovery. Wraps a native <c>tr_registry</c>.
    /// </summary>
    /// <remarks>
    /// Thread-safe: every method may be called from many threads at once; discoveries run in parallel
    /// and mutations are serialized by the library. Dispose frees the native registry (a finalizer does
    /// it if you forget); Dispose is idempotent and waits for calls in flight on other threads; any
    /// later call throws <see cref="ObjectDisposedException"/>. Discoverers created from it stay usable.
    /// </remarks>
    public sealed partial class Registry : IDisposable
    {
        private readonly RegistryHandle handle;

        // The host functions the library holds, by name, for ExecuteAsync.
        private readonly HostIndex hosts = new HostIndex();

        /// <summary>Creates an empty registry with discovery off.</summary>
        public Registry() : this((DiscoveryOptions)null)
        {
        }

        /// <summary>
        /// Creates an empty registry; with <paramref name="discovery"/> the built-in discover_tools is
        /// enabled at once with these options (see <see cref="EnableDiscovery"/>).
        /// </summary>
        public Registry(DiscoveryOptions discovery)
        {
            string options = discovery == null ? null : new JsonObjectWriter().AddRaw("discovery", discovery.ToJson()).ToString();
            IntPtr err;
            var status = Native.tr_registry_new(Utf8.Encode(options, "options"), out handle, out err);
            Native.Check(status, err);
        }

        /// <summary>The native library's version, e.g. "0.1.0".</summary>
        public static string LibraryVersion
        {
            get { return Utf8.Copy(Native.tr_version()); }
        }

        private RegistryHandle Handle
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

        internal RegistryHandle NativeHandle
        {
            get { return Handle; }
        }

        /// <summary>
        /// Registers one tool or a JSON array of tools (all or nothing) and returns the registered names.
        /// </summary>
        /// <param name="toolsJson">
        /// A tool object or an array of them, in any accepted shape (flat, OpenAI chat, OpenAI responses,
        /// Anthropic, MCP), each with optional "namespace" and "metadata": {"defer", "tags", "search_hint"}.
        /// A name already registered is replaced in place.
        /// </param>
        /// <returns>The registered names, namespace-qualified ("github-list_issues").</returns>
        /// <exception cref="InvalidInputException">Malformed JSON or an invalid tool; nothing was registered.</exception>
        public IReadOnlyList<string> Register(string toolsJson)
        {
            var tools = Utf8.EncodeRequired(toolsJson, "toolsJson");
            IntPtr names, err;
            var status = Native.tr_registry_register(Handle, tools, out names, out err);
            Native.Check(status, err);
            return JsonReader.Deserialize<string[]>(Utf8.Take(names));
        }

        /// <summary>Removes a tool by its registered name.</summary>
        /// <exception cref="NotFoundException">No such tool.</exception>
        public void Unregister(string name)
        {
            var n = Utf8.EncodeRequired(name, "name");
            IntPtr err;
            var status = Native.tr_registry_unregister(Handle, n, out err);
            Native.Check(status, err);
        }

        /// <summary>Replaces the given metadata fields of a tool; fields passed as null keep their values.</summary>
        /// <exception cref="NotFoundException">No such tool.</exception>
        public void SetMetadata(string name, bool? defer = null, IEnumerable<string> tags = null, string searchHint = null)
        {
            var metadata = new JsonObjectWriter().Add("defer", defer).Add("tags", tags).Add("search_hint", searchHint);
            SetMetadataJson(name, metadata.ToString());
        }

        /// <summary>Replaces the metadata fields given as JSON: {"defer"?, "tags"?, "search_hint"?}.</summary>
        /// <exception cref="NotFoundException">No such tool.</exception>
        /// <exception cref="InvalidInputException">Malformed JSON or an unknown key.</exception>
        public void SetMetadataJson(string name, string metadataJson)
        {
            var n = Utf8.EncodeRequired(name, "name");
            var m = Utf8.EncodeRequired(metadataJson, "metadataJson");
            IntPtr err;
            var status = Native.tr_registry_set_metadata(Handle, n, m, out err);
            Native.Check(status, err);
        }

        /// <summary>
        /// Enables or disables a tool, or every tool of a namespace. Disabled tools are left out of
        /// schemas, summaries and discovery, and keep their position for when they come back.
        /// </summary>
        /// <exception cref="NotFoundException">Neither a tool nor a namespace.</exception>
        public void SetEnabled(string name, bool enabled)
        {
            var n = Utf8.EncodeRequired(name, "name");
            IntPtr err;
            var status = Native.tr_registry_set_enabled(Handle, n, enabled, out err);
            Native.Check(status, err);
        }

        /// <summary>
        /// The schemas of the enabled tools, sorted by name, as a JSON array; with
        /// <see cref="SchemaOptions.Strict"/>, the object <c>{"tools": [...], "warnings": [...]}</c>
        /// (see <see cref="GetStrictSchemas(SchemaOptions)"/>).
        /// </summary>
        /// <param name="options">Filters and API format; null for all tools as openai-chat.</param>
        public string GetSchemasJson(SchemaOptions options = null)
        {
            var o = options == null ? null : Utf8.Encode(options.ToJson(), "options");
            IntPtr json, err;
            var status = Native.tr_registry_get_schemas(Handle, o, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>One-line summaries of the enabled deferred tools, in registration order.</summary>
        public IReadOnlyList<DeferredSummary> DeferredSummaries()
        {
            return DeferredSummary.ParseList(DeferredSummariesJson());
        }

        /// <summary>The deferred summaries as raw JSON: [{"name", "description", "namespace"}].</summary>
        public string DeferredSummariesJson()
        {
            IntPtr json, err;
            var status = Native.tr_registry_deferred_summaries(Handle, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// Registers the built-in discover_tools (never deferred, never indexed itself) with these
        /// ranking options; calling it again replaces the options.
        /// </summary>
        /// <exception cref="InvalidInputException">An option out of range or an unknown field weight.</exception>
        public void EnableDiscovery(DiscoveryOptions options = null)
        {
            var o = options == null ? null : Utf8.Encode(options.ToJson(), "options");
            IntPtr err;
            var status = Native.tr_registry_enable_discovery(Handle, o, out err);
            Native.Check(status, err);
        }

        /// <summary>Runs a built-in tool as a model's tool call would, and returns its JSON result.</summary>
        /// <param name="toolName">"discover_tools".</param>
        /// <param name="argsJson">The call's arguments, e.g. {"query": "send mail", "top_k": 5}.</param>
        /// <exception cref="NotFoundException">Unknown built-in, or discovery not enabled.</exception>
        /// <exception cref="InvalidInputException">Bad arguments or an empty query.</exception>
        public string Call(string toolName, string argsJson)
        {
            var t = Utf8.EncodeRequired(toolName, "toolName");
            var a = Utf8.EncodeRequired(argsJson, "argsJson");
            IntPtr json, err;
            var status = Native.tr_registry_call(Handle, t, a, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// Runs the built-in discover_tools (see <see cref="EnableDiscovery"/>) and returns typed hits.
        /// </summary>
        /// <exception cref="NotFoundException">Discovery is not enabled.</exception>
        /// <exception cref="InvalidInputException">An empty query or <paramref name="topK"/> below 1.</exception>
        public IReadOnlyList<DiscoverResult> DiscoverTools(string query, int topK = 10, string apiFormat = null)
        {
            if (query == null)
            {
                throw new ArgumentNullException("query");
            }
            var args = new JsonObjectWriter().Add("query", query).Add("top_k", (int?)topK).Add("api_format", apiFormat);
            return DiscoverResult.ParseList(Call("discover_tools", args.ToString()));
        }

        /// <summary>
        /// Creates a standalone discoverer with its own ranking options. It follows this registry's
        /// changes by itself and outlives a Dispose of this registry.
        /// </summary>
        public Discoverer CreateDiscoverer(DiscoveryOptions options = null)
        {
            return new Discoverer(this, options);
        }

        /// <summary>Frees the native registry. Idempotent.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }
}
