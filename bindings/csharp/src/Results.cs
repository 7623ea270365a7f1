using System.Collections.Generic;
using System.Globalization;
using System.Runtime.Serialization;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection,
// which the compiler cannot see (CS0649 "never assigned").
#pragma warning disable 0649

namespace ToolRegistry
{
    /// <summary>One hit of a discovery: a tool that matches the query, best first.</summary>
    [DataContract]
    public sealed class DiscoverResult
    {
        [DataMember(Name = "name")]
        private string name;

        [DataMember(Name = "description")]
        private string description;

        [DataMember(Name = "score")]
        private double score;

        [DataMember(Name = "namespace")]
        private string @namespace;

        [DataMember(Name = "deferred")]
        private bool deferred;

        [DataMember(Name = "intent")]
        private string intent;

        [DataMember(Name = "brought_in")]
        private string broughtIn;

        [DataMember(Name = "warning")]
        private string warning;

        private string schemaJson;

        /// <summary>The registered name (namespace-qualified, e.g. "github-list_issues").</summary>
        public string Name { get { return name; } }

        /// <summary>
        /// The tool's full description, or only its first sentence when <see cref="DiscoverRequest.MaxTokens"/>
        /// cut this hit to name + summary.
        /// </summary>
        public string Description { get { return description; } }

        /// <summary>BM25F score; 1.0 for an exact-name match.</summary>
        public double Score { get { return score; } }

        /// <summary>The tool's namespace, or null.</summary>
        public string Namespace { get { return @namespace; } }

        /// <summary>Whether the tool is deferred (its schema is not sent up front).</summary>
        public bool Deferred { get { return deferred; } }

        /// <summary>
        /// The need of the query this tool answers, in the query's own words, when the query holds
        /// several ("convert 100 dollars to euros and then tell me the weather in Paris"); null for a
        /// query that is one need, and with <see cref="DiscoveryOptions.Intents"/> false.
        /// </summary>
        public string Intent { get { return intent; } }

        /// <summary>
        /// Why the tool is in the answer when the query did not rank it there: a hit it is used with
        /// brought it in ("used with `add_agenda` in 12 of its 15 tasks"; see
        /// <see cref="Registry.RecordUsage"/>); null otherwise.
        /// </summary>
        public string BroughtIn { get { return broughtIn; } }

        /// <summary>
        /// The tool's schema in the requested API format as raw JSON text, or null. Present for an exact
        /// match and for deferred tools, so the model can call a tool it has just found; null for a
        /// hit <see cref="DiscoverRequest.MaxTokens"/> cut to name + summary.
        /// </summary>
        public string SchemaJson { get { return schemaJson; } }

        /// <summary>
        /// Why <see cref="SchemaJson"/> is not strict, when <see cref="DiscoverRequest.Strict"/> asked for
        /// OpenAI strict mode and this tool's schema cannot have it; null otherwise.
        /// </summary>
        public string Warning { get { return warning; } }

        internal static List<DiscoverResult> ParseList(string json)
        {
            var results = new List<DiscoverResult>(JsonReader.Deserialize<DiscoverResult[]>(json));
            var schemas = JsonReader.RawMembers(json, "schema");
            for (int i = 0; i < results.Count; i++)
            {
                results[i].schemaJson = schemas[i];
            }
            return results;
        }

        /// <summary>"name (score)", for logs.</summary>
        public override string ToString()
        {
            return name + " (" + score.ToString("0.###", CultureInfo.InvariantCulture) + ")";
        }
    }

    /// <summary>A one-line summary of a deferred tool, for a system prompt.</summary>
    [DataContract]
    public sealed class DeferredSummary
    {
        [DataMember(Name = "name")]
        private string name;

        [DataMember(Name = "description")]
        private string description;

        [DataMember(Name = "namespace")]
        private string @namespace;

        /// <summary>The registered name.</summary>
        public string Name { get { return name; } }

        /// <summary>The first sentence of the tool's description.</summary>
        public string Description { get { return description; } }

        /// <summary>The tool's namespace, or null.</summary>
        public string Namespace { get { return @namespace; } }

        internal static List<DeferredSummary> ParseList(string json)
        {
            return new List<DeferredSummary>(JsonReader.Deserialize<DeferredSummary[]>(json));
        }

        /// <summary>"- name: description", the line the built-in discover_tools lists.</summary>
        public override string ToString()
        {
            return "- " + name + ": " + description;
        }
    }
}
