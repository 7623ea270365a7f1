using System.Collections.Generic;
using System.Runtime.Serialization;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection,
// which the compiler cannot see (CS0649 "never assigned").
#pragma warning disable 0649

namespace ToolRegistry
{
    /// <summary>A tool OpenAI strict mode could not apply to (its schema is sent non-strict), and why.</summary>
    [DataContract]
    public sealed class SchemaWarning
    {
        [DataMember(Name = "name")]
        private string name;

        [DataMember(Name = "reason")]
        private string reason;

        /// <summary>The tool's registered name.</summary>
        public string Name { get { return name; } }

        /// <summary>
        /// What in the schema is in the way, e.g. <c>settings: an object without "properties" takes arbitrary keys</c>.
        /// </summary>
        public string Reason { get { return reason; } }

        /// <summary>"name: reason", for logs.</summary>
        public override string ToString()
        {
            return name + ": " + reason;
        }
    }

    /// <summary>
    /// The schemas in OpenAI strict mode, from <see cref="Registry.GetStrictSchemas(SchemaOptions)"/>: every
    /// selected tool, strict where it can be, and the tools that could not be made strict.
    /// </summary>
    [DataContract]
    public sealed class StrictSchemas
    {
        [DataMember(Name = "warnings")]
        private SchemaWarning[] warnings;

        private string json;
        private List<string> toolsJson;

        /// <summary>
        /// Each tool's schema as raw JSON, in the order of <see cref="Registry.GetSchemasJson(SchemaOptions)"/>:
        /// strict ones carry "strict": true, those named in <see cref="Warnings"/> are non-strict.
        /// </summary>
        public IReadOnlyList<string> ToolsJson { get { return toolsJson; } }

        /// <summary>The tools whose schemas cannot be strict without changing their meaning, in tool order.</summary>
        public IReadOnlyList<SchemaWarning> Warnings { get { return warnings; } }

        /// <summary>The library's answer as written: <c>{"tools": [...], "warnings": [{"name", "reason"}]}</c>.</summary>
        public string Json { get { return json; } }

        internal static StrictSchemas Parse(string json)
        {
            var s = JsonReader.Deserialize<StrictSchemas>(json);
            // The serializer cannot keep a value as text: cut the tools out of the answer as written.
            s.toolsJson = JsonReader.RawElements(JsonReader.RawMembers("[" + json + "]", "tools")[0]);
            s.json = json;
            return s;
        }
    }

    public sealed partial class Registry
    {
        /// <summary>
        /// The schemas <see cref="GetSchemasJson(SchemaOptions)"/> selects, in OpenAI strict mode
        /// (<see cref="SchemaOptions.Strict"/> is implied): every schema that can be strict is, the
        /// others are sent non-strict and named in <see cref="StrictSchemas.Warnings"/>, never left out.
        /// </summary>
        /// <param name="options">Filters and API format (openai-chat or openai-responses); null for all tools as openai-chat.</param>
        /// <exception cref="InvalidInputException">Another format (anthropic or gemini has no strict mode).</exception>
        public StrictSchemas GetStrictSchemas(SchemaOptions options = null)
        {
            var o = options ?? new SchemaOptions();
            return StrictSchemas.Parse(GetSchemasJson(new SchemaOptions
            {
                IncludeDeferred = o.IncludeDeferred,
                ApiFormat = o.ApiFormat,
                Tags = o.Tags,
                ExcludeTags = o.ExcludeTags,
                Names = o.Names,
                Strict = true,
            }));
        }
    }
}
