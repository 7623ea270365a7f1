using System.Collections.Generic;

namespace ToolRegistry
{
    /// <summary>The provider formats a tool schema can be rendered in.</summary>
    public static class ApiFormat
    {
        /// <summary>OpenAI chat completions: {"type": "function", "function": {...}} (the default).</summary>
        public const string OpenAIChat = "openai-chat";
        /// <summary>OpenAI responses: {"type": "function", "name", ...}.</summary>
        public const string OpenAIResponses = "openai-responses";
        /// <summary>Anthropic: {"name", "description", "input_schema"}.</summary>
        public const string Anthropic = "anthropic";
        /// <summary>Gemini function declarations.</summary>
        public const string Gemini = "gemini";
    }

    /// <summary>The ranking profiles (<see cref="DiscoveryOptions.Profile"/>).</summary>
    public static class DiscoveryProfile
    {
        /// <summary>The reference engine's ranking, bit for bit: ask for it for exact parity with the Python reference.</summary>
        public const string Reference = "reference";
        /// <summary>The default: identifier splitting, stemming, NFKC, parameter descriptions, query stopwords, delta 0.</summary>
        public const string Enhanced = "enhanced";
        /// <summary>Enhanced fused with the registry's embedder (the default on a registry that has one; invalid without).</summary>
        public const string Hybrid = "hybrid";
    }

    /// <summary>Ranking options for discovery; unset members keep the library's defaults.</summary>
    public sealed class DiscoveryOptions
    {
        /// <summary>
        /// A <see cref="DiscoveryProfile"/> constant; it sets the defaults of the other options
        /// (null: enhanced; set <see cref="DiscoveryProfile.Reference"/> for exact reference parity).
        /// </summary>
        public string Profile { get; set; }

        /// <summary>
        /// Per-field weights, keys "name" (3.0), "description" (2.0), "search_hint" (2.0), "tags" (1.5),
        /// "params" (1.0), and "param_docs" in the enhanced profile; fields left out keep their default; an unknown
        /// key is refused.
        /// </summary>
        public IDictionary<string, double> FieldWeights { get; set; }

        /// <summary>Drop hits below this fraction of the best score (default 0.3; 0 disables).</summary>
        public double? MinScoreRatio { get; set; }

        /// <summary>Drop query tokens found in at least this fraction of the tools (default 0.5; 0 disables).</summary>
        public double? MaxDfRatio { get; set; }

        /// <summary>BM25 term-frequency saturation (default 1.5).</summary>
        public double? K1 { get; set; }

        /// <summary>BM25 length normalisation in [0, 1] (default 0.75).</summary>
        public double? B { get; set; }

        /// <summary>BM25+ lower bound per matched term (default 0 in the enhanced profile, 1.0 in the reference).</summary>
        public double? Delta { get; set; }

        /// <summary>
        /// False ranks every query as one need. By default (null or true) a query that holds several
        /// needs is searched whole and per need, so that one need's near-duplicates do not take every
        /// place, and each hit names its need (<see cref="DiscoverResult.Intent"/>). The reference
        /// profile never splits.
        /// </summary>
        public bool? Intents { get; set; }

        /// <summary>
        /// False ranks as if no usage were recorded. By default (null or true) the answer's best hits
        /// bring in the tools they are used with when the recorded usage says so
        /// (<see cref="DiscoverResult.BroughtIn"/>); the reference profile never does.
        /// </summary>
        public bool? Usage { get; set; }

        /// <summary>The options as the JSON object the C ABI takes.</summary>
        public string ToJson()
        {
            return new JsonObjectWriter()
                .Add("profile", Profile)
                .Add("field_weights", FieldWeights)
                .Add("min_score_ratio", MinScoreRatio)
                .Add("max_df_ratio", MaxDfRatio)
                .Add("k1", K1)
                .Add("b", B)
                .Add("delta", Delta)
                .Add("intents", Intents)
                .Add("usage", Usage)
                .ToString();
        }
    }

    /// <summary>
    /// One discover call's options (<see cref="Discoverer.Discover(string, DiscoverRequest)"/>). The
    /// filters choose which tools may answer before ranking and TopK; scores are as without them.
    /// </summary>
    public sealed class DiscoverRequest
    {
        /// <summary>At most this many hits (at least 1; null: 10).</summary>
        public int? TopK { get; set; }

        /// <summary>Format of returned schemas, an <see cref="ToolRegistry.ApiFormat"/> constant; null for openai-chat.</summary>
        public string ApiFormat { get; set; }

        /// <summary>Only tools registered under one of these namespaces (ignoring ASCII case); null: any.</summary>
        public IList<string> Namespaces { get; set; }

        /// <summary>Only tools carrying at least one of these tags (ignoring ASCII case); null: any.</summary>
        public IList<string> Tags { get; set; }

        /// <summary>Only deferred (true) or only loaded (false) tools; null: both.</summary>
        public bool? Deferred { get; set; }

        /// <summary>
        /// Render the returned schemas in OpenAI strict mode (openai-chat and openai-responses only;
        /// another format is an <see cref="InvalidInputException"/>). A hit whose schema cannot be
        /// strict carries it non-strict, with <see cref="DiscoverResult.Warning"/> saying why.
        /// </summary>
        public bool? Strict { get; set; }

        /// <summary>
        /// Most tokens the answer may take (at least 1; null: no cap), estimated as the UTF-8 bytes
        /// of its JSON (<see cref="Discoverer.DiscoverJson(string, DiscoverRequest)"/>) / 4, rounded
        /// up. Hits keep their schemas while they fit, then come cut to name + one-line summary
        /// (<see cref="DiscoverResult.SchemaJson"/> null, <see cref="DiscoverResult.Description"/>
        /// the first sentence), then stop. The top hit is always returned, cut if its schema alone
        /// is too big.
        /// </summary>
        public int? MaxTokens { get; set; }

        /// <summary>
        /// The query's own vector (the embedder's dimension): "hybrid" ranks with it instead of asking
        /// the embedder; the way to rank semantically with <see cref="Registry.SetPullEmbedder"/>. Null: none.
        /// </summary>
        public float[] QueryVector { get; set; }
    }

    /// <summary>Which schemas <see cref="Registry.GetSchemasJson(SchemaOptions)"/> returns, and in which format.</summary>
    public sealed class SchemaOptions
    {
        /// <summary>Include deferred tools (default true).</summary>
        public bool? IncludeDeferred { get; set; }

        /// <summary>One of the <see cref="ToolRegistry.ApiFormat"/> constants (default openai-chat).</summary>
        public string ApiFormat { get; set; }

        /// <summary>Keep only tools with any of these tags.</summary>
        public IEnumerable<string> Tags { get; set; }

        /// <summary>Leave out tools with any of these tags.</summary>
        public IEnumerable<string> ExcludeTags { get; set; }

        /// <summary>
        /// Exactly these tools, in this order, disabled ones included; the other filters are then
        /// ignored. A name that is not registered is a <see cref="NotFoundException"/>.
        /// </summary>
        public IEnumerable<string> Names { get; set; }

        /// <summary>
        /// OpenAI strict mode (openai-chat and openai-responses only; another format is an
        /// <see cref="InvalidInputException"/>): every object closed and listing all its properties
        /// as required, optional ones nullable, the tool marked "strict": true. The answer is then
        /// <c>{"tools": [...], "warnings": [{"name", "reason"}]}</c>, which
        /// <see cref="Registry.GetStrictSchemas(SchemaOptions)"/> reads for you.
        /// </summary>
        public bool? Strict { get; set; }

        /// <summary>The options as the JSON object the C ABI takes.</summary>
        public string ToJson()
        {
            return new JsonObjectWriter()
                .Add("include_deferred", IncludeDeferred)
                .Add("api_format", ApiFormat)
                .Add("tags", Tags)
                .Add("exclude_tags", ExcludeTags)
                .Add("names", Names)
                .Add("strict", Strict)
                .ToString();
        }
    }
}
