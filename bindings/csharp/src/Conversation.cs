using System;
using System.Collections.Generic;
using System.Runtime.Serialization;
using System.Text;
using Microsoft.Win32.SafeHandles;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection,
// which the compiler cannot see (CS0649 "never assigned").
#pragma warning disable 0649

namespace ToolRegistry
{
    /// <summary>How a conversation lays out its tool list (<see cref="ConversationOptions.Mode"/>).</summary>
    public static class ConversationMode
    {
        /// <summary>
        /// The default (the reference's behaviour): the enabled non-deferred tools, discover_tools
        /// (and call_deferred) with the deferred tools listed in its description, then the loaded
        /// deferred tools.
        /// </summary>
        public const string Summaries = "summaries";
        /// <summary>
        /// The same tools, but the built-ins' descriptions never change and the deferred tools are
        /// listed in <see cref="ConversationTools.SystemText"/>: a new deferred tool changes only that
        /// text, loading a tool only appends to the tools, so the provider's prompt cache survives.
        /// </summary>
        public const string Stable = "stable";
        /// <summary>
        /// Anthropic and OpenAI Responses only: the search tool and every enabled tool, deferred ones
        /// marked <c>"defer_loading": true</c>; searches are answered in the provider's own shape
        /// (<c>tool_reference</c> blocks, <c>tool_search_output</c> items).
        /// </summary>
        public const string Native = "native";
        /// <summary>Every enabled tool and no search tool while they total under the threshold, else as <see cref="Stable"/>.</summary>
        public const string Auto = "auto";
    }

    /// <summary>Who runs searches in <see cref="ConversationMode.Native"/> (<see cref="ConversationOptions.Search"/>).</summary>
    public static class ConversationSearch
    {
        /// <summary>The default: the library is the search tool.</summary>
        public const string Client = "client";
        /// <summary>The provider's hosted search tool is sent and the provider searches.</summary>
        public const string Server = "server";
    }

    /// <summary>Options of a conversation (<see cref="Registry.StartConversation(ConversationOptions)"/>); unset members keep the defaults.</summary>
    public sealed class ConversationOptions
    {
        /// <summary>An <see cref="ToolRegistry.ApiFormat"/> constant (null: openai-chat).</summary>
        public string ApiFormat { get; set; }

        /// <summary>A <see cref="ConversationMode"/> constant (null: summaries).</summary>
        public string Mode { get; set; }

        /// <summary>A <see cref="ConversationSearch"/> constant (null: client).</summary>
        public string Search { get; set; }

        /// <summary>Restores a saved conversation: the names <see cref="Conversation.Loaded"/> returned.</summary>
        public IList<string> Loaded { get; set; }

        /// <summary>Schemas in OpenAI strict mode (OpenAI formats only).</summary>
        public bool? Strict { get; set; }

        /// <summary>The auto mode's threshold in tokens (UTF-8 bytes / 4; null: 10000).</summary>
        public int? DeferThresholdTokens { get; set; }

        /// <summary>Caps the list of deferred tools (UTF-8 bytes / 4) wherever the mode writes it,
        /// ending it with "- ... and N more" (null: none in summaries mode, as the reference; 2000
        /// in stable and auto).</summary>
        public int? SummaryMaxTokens { get; set; }

        /// <summary>Ranking options of the conversation's searches (null: the registry's).</summary>
        public DiscoveryOptions Discovery { get; set; }

        /// <summary>At most this many hits per search (null: 10).</summary>
        public int? TopK { get; set; }

        /// <summary>A token budget for each search's answer (null: none).</summary>
        public int? MaxTokens { get; set; }

        /// <summary>Searches find only tools of these namespaces (null: any).</summary>
        public IList<string> Namespaces { get; set; }

        /// <summary>Searches find only tools with one of these tags (null: any).</summary>
        public IList<string> Tags { get; set; }

        /// <summary>The options as the JSON object the C ABI takes.</summary>
        public string ToJson()
        {
            return new JsonObjectWriter()
                .Add("api_format", ApiFormat)
                .Add("mode", Mode)
                .Add("search", Search)
                .Add("loaded", Loaded)
                .Add("strict", Strict)
                .Add("defer_threshold_tokens", DeferThresholdTokens)
                .Add("summary_max_tokens", SummaryMaxTokens)
                .AddRaw("discovery", Discovery == null ? null : Discovery.ToJson())
                .Add("top_k", TopK)
                .Add("max_tokens", MaxTokens)
                .Add("namespaces", Namespaces)
                .Add("tags", Tags)
                .ToString();
        }
    }

    /// <summary>The next request's tool list, from <see cref="Conversation.Tools"/>.</summary>
    [DataContract]
    public sealed class ConversationTools
    {
        [DataMember(Name = "system_text")]
        private string systemText;

        [DataMember(Name = "fingerprint")]
        private string fingerprint;

        private string toolsJson;

        /// <summary>The exact JSON array to send as the request's tools, as the library wrote it.</summary>
        public string ToolsJson { get { return toolsJson; } }

        /// <summary>The text to add to the system prompt ("" when there is none).</summary>
        public string SystemText { get { return systemText ?? ""; } }

        /// <summary>
        /// The SHA-256 (64 hex digits) of the tools and the system text: it changes exactly when those
        /// bytes change, that is when the provider's prompt cache breaks.
        /// </summary>
        public string Fingerprint { get { return fingerprint; } }

        internal static ConversationTools Parse(string json)
        {
            var t = JsonReader.Deserialize<ConversationTools>(json);
            // The serializer cannot keep a value as text: cut the array out of the answer as written.
            t.toolsJson = JsonReader.RawMembers("[" + json + "]", "tools")[0];
            return t;
        }
    }

    /// <summary>Owns a <c>tr_conversation*</c>; freed once, by Dispose or by the finalizer.</summary>
    /// <remarks>
    /// The native conversation keeps the registry state alive, so it may be released before or
    /// after its registry. As for the other handles, P/Invoke holds a reference for each call, so
    /// the handle is freed only once no call on it is running.
    /// </remarks>
    internal sealed class ConversationHandle : SafeHandleZeroOrMinusOneIsInvalid
    {
        private ConversationHandle() : base(true)
        {
        }

        protected override bool ReleaseHandle()
        {
            Native.tr_conversation_free(handle);
            return true;
        }
    }

    /// <summary>
    /// One agent conversation's tool list: the tools the model found stay loaded and are sent on
    /// every later request, in the provider's shape and the conversation's mode. Wraps a native
    /// <c>tr_conversation</c>; create with <see cref="Registry.StartConversation(ConversationOptions)"/>.
    /// </summary>
    /// <remarks>
    /// Thread-safe: any method may be called from several threads (the library runs calls on one
    /// conversation one at a time). It sees every change to its registry and keeps the registry's
    /// state (and host functions) alive, so it stays usable after the Registry object is disposed.
    /// Dispose is idempotent and never waits: a call in flight finishes first (a host function may
    /// dispose the conversation running it); later calls throw <see cref="ObjectDisposedException"/>.
    /// </remarks>
    public sealed partial class Conversation : IDisposable
    {
        private readonly ConversationHandle handle;

        // The registry's host functions, which ExecuteAsync runs.
        private readonly HostIndex hosts;

        internal Conversation(Registry registry, string optionsJson)
        {
            hosts = registry.Hosts;
            var o = Utf8.Encode(optionsJson, "optionsJson");
            IntPtr err;
            var status = Native.tr_conversation_new(registry.NativeHandle, o, out handle, out err);
            Native.Check(status, err);
        }

        private ConversationHandle Handle
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
        /// The next request's tools as the library's JSON:
        /// <c>{"tools": [...], "system_text": "...", "fingerprint": "..."}</c>.
        /// </summary>
        public string ToolsJson()
        {
            IntPtr json, err;
            var status = Native.tr_conversation_tools(Handle, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// The next request's tools: the exact tools array, the system prompt text and the
        /// fingerprint. No work proportional to the catalog when the registry has not changed.
        /// </summary>
        public ConversationTools Tools()
        {
            return ConversationTools.Parse(ToolsJson());
        }

        /// <summary>
        /// Runs the model's tool calls like <see cref="Registry.Execute(string, string)"/>, in the
        /// conversation's format, and keeps what the model found: tools returned by discover_tools or
        /// a Responses <c>tool_search_call</c>, and deferred tools it called directly or through
        /// call_deferred, become loaded and are appended to later <see cref="Tools"/>. In native mode a
        /// search is answered with <c>tool_reference</c> blocks (Anthropic) or a
        /// <c>tool_search_output</c> item (Responses). Calls run one after another.
        /// </summary>
        /// <param name="callsJson">What the provider returned (any shape <see cref="Registry.Execute(string, string)"/> reads).</param>
        /// <param name="optionsJson">Null or execute options; an <c>api_format</c>, if given, must be the conversation's.</param>
        /// <returns>The messages to append after the assistant turn, as JSON text.</returns>
        /// <exception cref="InvalidInputException">No provider's call list, another provider's, or bad options.</exception>
        public string Execute(string callsJson, string optionsJson = null)
        {
            var calls = Utf8.EncodeRequired(callsJson, "callsJson");
            var options = Utf8.Encode(optionsJson, "optionsJson");
            IntPtr messages, err;
            var status = Native.tr_conversation_execute(Handle, calls, options, out messages, out err);
            Native.Check(status, err);
            return Utf8.Take(messages);
        }

        /// <summary>Runs the model's tool calls with typed options (see <see cref="Execute(string, string)"/>).</summary>
        public string Execute(string callsJson, ExecuteOptions options)
        {
            return Execute(callsJson, options == null ? null : options.ToJson());
        }

        /// <summary>
        /// Loads these registered tools as if the model had found them. All or none: an unknown name
        /// throws <see cref="NotFoundException"/> (the message names it) and loads nothing.
        /// </summary>
        public void Reveal(params string[] names)
        {
            Reveal((IEnumerable<string>)names);
        }

        /// <summary>Like <see cref="Reveal(string[])"/>, for any sequence of names.</summary>
        /// <exception cref="NotFoundException">A name that is not registered; nothing was loaded.</exception>
        public void Reveal(IEnumerable<string> names)
        {
            if (names == null)
            {
                throw new ArgumentNullException("names");
            }
            var sb = new StringBuilder("[");
            foreach (var name in names)
            {
                if (name == null)
                {
                    throw new ArgumentException("names contains null");
                }
                if (sb.Length > 1)
                {
                    sb.Append(',');
                }
                JsonObjectWriter.WriteString(sb, name);
            }
            var json = Utf8.Encode(sb.Append(']').ToString(), "names");
            IntPtr err;
            var status = Native.tr_conversation_reveal(Handle, json, out err);
            Native.Check(status, err);
        }

        /// <summary>
        /// The deferred tools loaded so far, in load order: pass them as
        /// <see cref="ConversationOptions.Loaded"/> to restore the conversation. A loaded tool that is
        /// unregistered or disabled stays listed (it comes back to the tools when it does).
        /// </summary>
        public IReadOnlyList<string> Loaded()
        {
            return JsonReader.Deserialize<string[]>(LoadedJson());
        }

        /// <summary>Like <see cref="Loaded"/>, as the library's JSON array.</summary>
        public string LoadedJson()
        {
            IntPtr json, err;
            var status = Native.tr_conversation_loaded(Handle, out json, out err);
            Native.Check(status, err);
            return Utf8.Take(json);
        }

        /// <summary>Frees the native conversation (once no call on it is running). Idempotent; the registry is not affected.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }
    }

    public sealed partial class Registry
    {
        /// <summary>
        /// Starts a conversation over this registry with options as JSON (null: the defaults; see
        /// <c>tr_conversation_new</c> in toolregistry.h).
        /// </summary>
        /// <exception cref="InvalidInputException">Bad options, e.g. native mode with openai-chat or gemini.</exception>
        public Conversation StartConversation(string optionsJson = null)
        {
            return new Conversation(this, optionsJson);
        }

        /// <summary>Starts a conversation over this registry with typed options.</summary>
        /// <exception cref="InvalidInputException">Bad options, e.g. native mode with openai-chat or gemini.</exception>
        public Conversation StartConversation(ConversationOptions options)
        {
            return new Conversation(this, options == null ? null : options.ToJson());
        }
    }
}
