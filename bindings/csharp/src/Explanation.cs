using System.Collections.Generic;
using System.Runtime.Serialization;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection,
// which the compiler cannot see (CS0649 "never assigned").
#pragma warning disable 0649

namespace ToolRegistry
{
    /// <summary>Where a tool ended up for a query (see <see cref="ToolExplanation.Outcome"/>).</summary>
    public enum ExplainOutcome
    {
        /// <summary>An outcome this version of the binding does not know; read <see cref="ToolExplanation.OutcomeName"/>.</summary>
        Unknown = 0,
        /// <summary>In the answer, at <see cref="ToolExplanation.Rank"/>.</summary>
        Ranked,
        /// <summary>The query is this tool's exact name: it is the whole answer, score 1.0.</summary>
        ExactMatch,
        /// <summary>The query is another tool's exact name, so that tool alone is the answer.</summary>
        OtherExactMatch,
        /// <summary>The tool or its namespace is disabled, so it is not indexed.</summary>
        Disabled,
        /// <summary>The query filter left no token to score; the answer is empty.</summary>
        NoQueryTokens,
        /// <summary>The tool shares no scored token with the query.</summary>
        NoCommonToken,
        /// <summary>It scored, but more than top_k tools ranked above it.</summary>
        BelowTopK,
        /// <summary>Within top_k, but below min_score_ratio times the best score.</summary>
        BelowScoreFloor,
    }

    /// <summary>
    /// How a query ranks one tool: the analyzed query tokens with the filter's verdicts and the tool's
    /// score taken apart per token and field. From <see cref="Discoverer.Explain"/>.
    /// </summary>
    [DataContract]
    public sealed class Explanation
    {
        [DataMember(Name = "query")] private string query;
        [DataMember(Name = "profile")] private string profile;
        [DataMember(Name = "exact_match")] private string exactMatch;
        [DataMember(Name = "tokens")] private QueryTokenVerdict[] tokens;
        [DataMember(Name = "scored_tokens")] private string[] scoredTokens;
        [DataMember(Name = "top_k")] private int topK;
        [DataMember(Name = "best_score")] private double? bestScore;
        [DataMember(Name = "score_floor")] private double? scoreFloor;
        [DataMember(Name = "result_count")] private int resultCount;
        [DataMember(Name = "tool")] private ToolExplanation tool;
        [DataMember(Name = "hybrid")] private HybridExplanation hybrid;
        [DataMember(Name = "intents")] private IntentExplanation[] intents;
        private string json;

        /// <summary>The query as given.</summary>
        public string Query { get { return query; } }

        /// <summary>The ranking profile of the discoverer ("reference", "enhanced" or "hybrid").</summary>
        public string Profile { get { return profile; } }

        /// <summary>The tool the query names exactly, or null (then no ranking happens).</summary>
        public string ExactMatch { get { return exactMatch; } }

        /// <summary>The analyzed query tokens, in query order, with the filter's verdicts.</summary>
        public IReadOnlyList<QueryTokenVerdict> Tokens { get { return tokens ?? new QueryTokenVerdict[0]; } }

        /// <summary>The tokens that were scored.</summary>
        public IReadOnlyList<string> ScoredTokens { get { return scoredTokens ?? new string[0]; } }

        /// <summary>top_k of the request.</summary>
        public int TopK { get { return topK; } }

        /// <summary>The best score in the answer, or null when nothing scored.</summary>
        public double? BestScore { get { return bestScore; } }

        /// <summary>min_score_ratio times the best score, or null when the floor is off or nothing scored.</summary>
        public double? ScoreFloor { get { return scoreFloor; } }

        /// <summary>Number of tools in the answer.</summary>
        public int ResultCount { get { return resultCount; } }

        /// <summary>Each side of the fusion when ranked with "hybrid", else null.</summary>
        public HybridExplanation Hybrid { get { return hybrid; } }

        /// <summary>
        /// The query's needs, in query order, when it holds several (then the tool's score and rank
        /// are the merged ones); empty for a query that is one need.
        /// </summary>
        public IReadOnlyList<IntentExplanation> Intents { get { return intents ?? new IntentExplanation[0]; } }

        /// <summary>The named tool's part.</summary>
        public ToolExplanation Tool { get { return tool; } }

        /// <summary>The whole explanation as the library's raw JSON.</summary>
        public string Json { get { return json; } }

        internal static Explanation Parse(string json)
        {
            var e = JsonReader.Deserialize<Explanation>(json);
            e.json = json;
            return e;
        }
    }

    /// <summary>One analyzed query token and whether the query filter kept it.</summary>
    [DataContract]
    public sealed class QueryTokenVerdict
    {
        [DataMember(Name = "token")] private string token;
        [DataMember(Name = "df")] private int df;
        [DataMember(Name = "df_ratio")] private double dfRatio;
        [DataMember(Name = "kept")] private bool kept;
        [DataMember(Name = "reason")] private string reason;

        /// <summary>The token.</summary>
        public string Token { get { return token; } }

        /// <summary>How many indexed tools contain it.</summary>
        public int DocumentFrequency { get { return df; } }

        /// <summary>That count as a fraction of the indexed tools.</summary>
        public double DocumentFrequencyRatio { get { return dfRatio; } }

        /// <summary>Whether it was scored.</summary>
        public bool Kept { get { return kept; } }

        /// <summary>Why it was dropped (or rescued), or null.</summary>
        public string Reason { get { return reason; } }
    }

    /// <summary>The named tool's outcome, score and per-token contributions.</summary>
    [DataContract]
    public sealed class ToolExplanation
    {
        [DataMember(Name = "name")] private string name;
        [DataMember(Name = "outcome")] private string outcome;
        [DataMember(Name = "reason")] private string reason;
        [DataMember(Name = "indexed")] private bool indexed;
        [DataMember(Name = "score")] private double? score;
        [DataMember(Name = "rank")] private int? rank;
        [DataMember(Name = "intent")] private string intent;
        [DataMember(Name = "terms")] private TermContribution[] terms;

        /// <summary>The tool.</summary>
        public string Name { get { return name; } }

        /// <summary>Where it ended up.</summary>
        public ExplainOutcome Outcome
        {
            get
            {
                switch (outcome)
                {
                    case "ranked": return ExplainOutcome.Ranked;
                    case "exact_match": return ExplainOutcome.ExactMatch;
                    case "other_exact_match": return ExplainOutcome.OtherExactMatch;
                    case "disabled": return ExplainOutcome.Disabled;
                    case "no_query_tokens": return ExplainOutcome.NoQueryTokens;
                    case "no_common_token": return ExplainOutcome.NoCommonToken;
                    case "below_top_k": return ExplainOutcome.BelowTopK;
                    case "below_score_floor": return ExplainOutcome.BelowScoreFloor;
                    default: return ExplainOutcome.Unknown;
                }
            }
        }

        /// <summary>The outcome as the library spells it ("below_top_k").</summary>
        public string OutcomeName { get { return outcome; } }

        /// <summary>A sentence saying why.</summary>
        public string Reason { get { return reason; } }

        /// <summary>Whether the tool is in the index (it is when enabled).</summary>
        public bool Indexed { get { return indexed; } }

        /// <summary>Its score (1.0 for an exact match), or null when it did not score.</summary>
        public double? Score { get { return score; } }

        /// <summary>Its 1-based position in the full ranking (may exceed top_k), or null.</summary>
        public int? Rank { get { return rank; } }

        /// <summary>
        /// The need of the query it answers (as <see cref="DiscoverResult.Intent"/>), or null when the
        /// query is one need or no need's ranking holds it.
        /// </summary>
        public string Intent { get { return intent; } }

        /// <summary>What each scored token it contains adds, in query order.</summary>
        public IReadOnlyList<TermContribution> Terms { get { return terms ?? new TermContribution[0]; } }
    }

    /// <summary>One need of a query that holds several, and how that need's own ranking placed the tool.</summary>
    [DataContract]
    public sealed class IntentExplanation
    {
        [DataMember(Name = "text")] private string text;
        [DataMember(Name = "relative_score")] private double? relativeScore;
        [DataMember(Name = "rank")] private int? rank;

        /// <summary>The need, as the query words it.</summary>
        public string Text { get { return text; } }

        /// <summary>The tool's score in the need's ranking over that ranking's best (1 for its best tool), or null when the need's ranking does not hold it.</summary>
        public double? RelativeScore { get { return relativeScore; } }

        /// <summary>The tool's 1-based place in the need's ranking, or null when it is not there.</summary>
        public int? Rank { get { return rank; } }
    }

    /// <summary>What one query token adds to a tool's score.</summary>
    [DataContract]
    public sealed class TermContribution
    {
        [DataMember(Name = "token")] private string token;
        [DataMember(Name = "df")] private int df;
        [DataMember(Name = "idf")] private double idf;
        [DataMember(Name = "catalog_idf")] private double catalogIdf;
        [DataMember(Name = "weighted_tf")] private double weightedTf;
        [DataMember(Name = "tf_norm")] private double tfNorm;
        [DataMember(Name = "query_weight")] private double queryWeight;
        [DataMember(Name = "score")] private double score;
        [DataMember(Name = "fields")] private FieldContribution[] fields;

        /// <summary>The token.</summary>
        public string Token { get { return token; } }

        /// <summary>How many indexed tools contain it.</summary>
        public int DocumentFrequency { get { return df; } }

        /// <summary>The inverse document frequency it is scored with: CatalogIdf, or less in the
        /// enhanced profile for a word more common in general English than in the catalog (its
        /// background model's discount).</summary>
        public double Idf { get { return idf; } }

        /// <summary>Its inverse document frequency in the catalog alone.</summary>
        public double CatalogIdf { get { return catalogIdf; } }

        /// <summary>Sum of weight times occurrences over the tool's fields.</summary>
        public double WeightedTf { get { return weightedTf; } }

        /// <summary>The BM25(+) normalized frequency, delta included.</summary>
        public double TfNorm { get { return tfNorm; } }

        /// <summary>1 unless the token repeats in the query: in the enhanced profile each of its n
        /// occurrences (one term each) weighs (k1+1)/(n+k1), together n·(k1+1)/(n+k1).</summary>
        public double QueryWeight { get { return queryWeight; } }

        /// <summary>Idf times QueryWeight times TfNorm: what this token adds to the score.</summary>
        public double Score { get { return score; } }

        /// <summary>The fields the token occurs in.</summary>
        public IReadOnlyList<FieldContribution> Fields { get { return fields ?? new FieldContribution[0]; } }
    }

    /// <summary>One field's share of a token's contribution.</summary>
    [DataContract]
    public sealed class FieldContribution
    {
        [DataMember(Name = "field")] private string field;
        [DataMember(Name = "tf")] private int tf;
        [DataMember(Name = "weight")] private double weight;
        [DataMember(Name = "score")] private double score;

        /// <summary>Field name: name, description, search_hint, tags, params (param_docs in the enhanced profile).</summary>
        public string Field { get { return field; } }

        /// <summary>Occurrences of the token in this field.</summary>
        public int Tf { get { return tf; } }

        /// <summary>The field's weight.</summary>
        public double Weight { get { return weight; } }

        /// <summary>The token's score times this field's share of the weighted term frequency.</summary>
        public double Score { get { return score; } }
    }
}
