using System.Collections.Generic;
using System.Runtime.Serialization;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection,
// which the compiler cannot see (CS0649 "never assigned").
#pragma warning disable 0649

namespace ToolRegistry
{
    /// <summary>How <see cref="Registry.Execute(string, ExecuteOptions)"/> runs a batch; unset members keep the defaults.</summary>
    public sealed class ExecuteOptions
    {
        /// <summary>
        /// Force the provider shape (an <see cref="ToolRegistry.ApiFormat"/> constant) instead of
        /// detecting it from the calls.
        /// </summary>
        public string ApiFormat { get; set; }

        /// <summary>Also return the rebuilt assistant turn, before the results (default false).</summary>
        public bool? IncludeAssistant { get; set; }

        /// <summary>
        /// Run up to this many calls at once (1 to 64, default 1), on library threads; tools with
        /// metadata <c>"concurrency_safe": false</c> always run alone. Results keep call order.
        /// </summary>
        public int? Parallel { get; set; }

        /// <summary>The options as the JSON object the C ABI takes.</summary>
        public string ToJson()
        {
            return new JsonObjectWriter()
                .Add("api_format", ApiFormat)
                .Add("include_assistant", IncludeAssistant)
                .Add("parallel", Parallel)
                .ToString();
        }
    }

    /// <summary>One registered tool's state, from <see cref="Registry.ToolsStatus"/>.</summary>
    [DataContract]
    public sealed class ToolStatus
    {
        [DataMember(Name = "name")]
        private string name;

        [DataMember(Name = "namespace")]
        private string @namespace;

        [DataMember(Name = "enabled")]
        private bool enabled;

        [DataMember(Name = "reason")]
        private string reason;

        [DataMember(Name = "deferred")]
        private bool deferred;

        [DataMember(Name = "tags")]
        private string[] tags;

        [DataMember(Name = "callable")]
        private bool callable;

        [DataMember(Name = "embedding")]
        private string embedding;

        /// <summary>The registered name (namespace-qualified).</summary>
        public string Name { get { return name; } }

        /// <summary>The tool's namespace, or null.</summary>
        public string Namespace { get { return @namespace; } }

        /// <summary>Whether a model may call it (its namespace counts too).</summary>
        public bool Enabled { get { return enabled; } }

        /// <summary>Why it was disabled (<see cref="Registry.Disable"/>), or null.</summary>
        public string Reason { get { return reason; } }

        /// <summary>Whether the tool is deferred.</summary>
        public bool Deferred { get { return deferred; } }

        /// <summary>The tool's tags.</summary>
        public IReadOnlyList<string> Tags { get { return tags ?? new string[0]; } }

        /// <summary>Whether a call would reach a host function (the tool's own or the fallback).</summary>
        public bool Callable { get { return callable; } }

        /// <summary>
        /// The tool's vector when the registry has an embedder: "ready", "pending", "failed" or
        /// "none"; null without an embedder.
        /// </summary>
        public string Embedding { get { return embedding; } }

        internal static List<ToolStatus> ParseList(string json)
        {
            return new List<ToolStatus>(JsonReader.Deserialize<ToolStatus[]>(json));
        }

        /// <summary>"name (enabled|disabled: reason)", for logs.</summary>
        public override string ToString()
        {
            return name + (enabled ? " (enabled)" : reason == null ? " (disabled)" : " (disabled: " + reason + ")");
        }
    }
}
