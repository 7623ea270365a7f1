package toolregistry

import (
	"encoding/json"
)

// Tool is a tool definition to register.
type Tool struct {
	// Name is required: non-empty, without whitespace or control characters. With a Namespace
	// the tool is registered as Namespace + "-" + Name.
	Name string
	// Description is what the model reads, and the main text discovery searches.
	Description string
	// Parameters is the JSON Schema of the arguments: a json.RawMessage, a map[string]any, or
	// any value encoding/json turns into an object. Nil means no parameters.
	Parameters any
	// Namespace groups tools (for example "github"); SetEnabled on it switches them all.
	Namespace string
	// Metadata controls deferral and adds search text.
	Metadata Metadata
}

// Metadata is what a tool carries besides its schema.
type Metadata struct {
	// Defer keeps the tool out of the core schemas: the model finds it through discover_tools.
	Defer bool
	// Tags are searched as words: the predefined read_only, destructive, network, file_system,
	// slow, privileged, or any other string.
	Tags []string
	// SearchHint is extra text for discovery only (synonyms, keywords); the model never sees it.
	SearchHint string
	// ConcurrencySafe false makes every call of the tool run alone, even when Execute runs the
	// others of its batch in parallel; nil means true.
	ConcurrencySafe *bool
}

// MetadataUpdate changes some metadata fields of a registered tool; nil fields keep their value.
type MetadataUpdate struct {
	Defer *bool
	// Tags replaces the tags when non-nil; an empty non-nil slice removes them all.
	Tags            []string
	SearchHint      *string
	ConcurrencySafe *bool
}

// Ptr returns a pointer to v, for the optional fields of MetadataUpdate and DiscoveryOptions.
func Ptr[T any](v T) *T { return &v }

type metadataJSON struct {
	Defer           *bool    `json:"defer,omitempty"`
	Tags            []string `json:"tags,omitempty"`
	SearchHint      *string  `json:"search_hint,omitempty"`
	ConcurrencySafe *bool    `json:"concurrency_safe,omitempty"`
}

type toolJSON struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Parameters  any           `json:"parameters,omitempty"`
	Namespace   string        `json:"namespace,omitempty"`
	Metadata    *metadataJSON `json:"metadata,omitempty"`
}

// MarshalJSON writes the flat registration shape: {"name", "description", "parameters",
// "namespace"?, "metadata"?}.
func (t Tool) MarshalJSON() ([]byte, error) {
	out := toolJSON{Name: t.Name, Description: t.Description, Namespace: t.Namespace}
	if t.Parameters != nil {
		params, err := json.Marshal(t.Parameters)
		if err != nil {
			return nil, err
		}
		// A nil map or an empty RawMessage means "no parameters", not a null schema.
		if s := string(params); s != "null" && s != "" {
			out.Parameters = json.RawMessage(params)
		}
	}
	m := t.Metadata
	if m.Defer || len(m.Tags) > 0 || m.SearchHint != "" || m.ConcurrencySafe != nil {
		out.Metadata = &metadataJSON{Tags: m.Tags, ConcurrencySafe: m.ConcurrencySafe}
		if m.Defer {
			out.Metadata.Defer = &m.Defer
		}
		if m.SearchHint != "" {
			out.Metadata.SearchHint = &m.SearchHint
		}
	}
	return json.Marshal(out)
}

// MarshalJSON writes only the fields that are set.
func (u MetadataUpdate) MarshalJSON() ([]byte, error) {
	fields := map[string]any{}
	if u.Defer != nil {
		fields["defer"] = *u.Defer
	}
	if u.Tags != nil {
		fields["tags"] = u.Tags
	}
	if u.SearchHint != nil {
		fields["search_hint"] = *u.SearchHint
	}
	if u.ConcurrencySafe != nil {
		fields["concurrency_safe"] = *u.ConcurrencySafe
	}
	return json.Marshal(fields)
}

// APIFormat is the provider format schemas are rendered in.
type APIFormat string

// The formats the engine renders. The empty APIFormat means the default, OpenAIChat.
const (
	OpenAIChat      APIFormat = "openai-chat"
	OpenAIResponses APIFormat = "openai-responses"
	Anthropic       APIFormat = "anthropic"
	Gemini          APIFormat = "gemini"
)

// SchemaOptions selects and formats the schemas Registry.Schemas returns. The zero value gives
// every enabled tool in the OpenAI chat format.
type SchemaOptions struct {
	// ExcludeDeferred leaves deferred tools out (the usual choice when discover_tools is on).
	ExcludeDeferred bool
	APIFormat       APIFormat
	// Tags keeps only tools with at least one of these tags; nil keeps all.
	Tags []string
	// ExcludeTags drops tools with any of these tags.
	ExcludeTags []string
	// Names, when non-nil, selects exactly these tools in this order, disabled ones included,
	// and ignores the filters above (APIFormat still applies). A name that is not registered
	// fails with ErrNotFound naming it.
	Names []string
	// Strict renders the schemas in OpenAI strict mode (OpenAIChat and OpenAIResponses only,
	// else ErrInvalidArgument): every object closed and listing all its properties as
	// required, optional ones nullable, the tool marked "strict": true. A tool that cannot be
	// made strict is returned non-strict; StrictSchemas says which and why.
	Strict bool
}

// MarshalJSON writes the engine's schema options, include_deferred spelled out.
func (o SchemaOptions) MarshalJSON() ([]byte, error) {
	var names *[]string
	if o.Names != nil {
		names = &o.Names
	}
	return json.Marshal(struct {
		IncludeDeferred bool      `json:"include_deferred"`
		APIFormat       APIFormat `json:"api_format,omitempty"`
		Tags            []string  `json:"tags,omitempty"`
		ExcludeTags     []string  `json:"exclude_tags,omitempty"`
		Names           *[]string `json:"names,omitempty"`
		Strict          bool      `json:"strict,omitempty"`
	}{!o.ExcludeDeferred, o.APIFormat, o.Tags, o.ExcludeTags, names, o.Strict})
}

// Field names a searched field of a tool, for DiscoveryOptions.FieldWeights.
type Field string

// The searched fields and their default weights.
const (
	FieldName        Field = "name"        // 3.0; "_" and "-" read as spaces
	FieldDescription Field = "description" // 2.0
	FieldSearchHint  Field = "search_hint" // 2.0
	FieldTags        Field = "tags"        // 1.5
	FieldParams      Field = "params"      // 1.0; top-level parameter names
	FieldParamDocs   Field = "param_docs"  // 1.0; parameter descriptions, ProfileEnhanced only
)

// Profile selects the ranking model and sets the defaults of the other DiscoveryOptions.
type Profile string

const (
	// ProfileReference ranks exactly like the Python reference toolregistry 0.19.0: ask for it
	// for exact parity with the reference (the golden vectors).
	ProfileReference Profile = "reference"
	// ProfileEnhanced (the default) adds identifier splitting, stemming, NFKC normalization,
	// parameter descriptions as a sixth field, drops English function words from queries,
	// discounts the IDF of words more common in general English than in the catalog, and
	// defaults Delta to 0. It finds the right tool more often on real catalogs.
	ProfileEnhanced Profile = "enhanced"
	// ProfileHybrid fuses ProfileEnhanced with the cosine similarity of the registry's embedder
	// (SetEmbedder, WithEmbedding); the default on a registry that has one, an
	// CodeInvalidArgument error on one that has none.
	ProfileHybrid Profile = "hybrid"
)

// DiscoveryOptions tunes ranking. The zero value means the defaults; nil pointers keep the
// default of their field (use Ptr to set one, including to 0).
type DiscoveryOptions struct {
	// Profile is the ranking model; "" means ProfileEnhanced, or ProfileHybrid on a registry
	// with an embedder (set ProfileReference for exact parity with the Python reference).
	Profile Profile `json:"profile,omitempty"`
	// FieldWeights overrides the weights of the named fields; the others keep their defaults.
	FieldWeights map[Field]float64 `json:"field_weights,omitempty"`
	// MinScoreRatio drops hits scoring below this fraction of the best (default 0.3; 0 disables).
	MinScoreRatio *float64 `json:"min_score_ratio,omitempty"`
	// MaxDFRatio drops query words found in at least this fraction of tools, and in at least
	// three of them (default 0.5; 0 disables).
	MaxDFRatio *float64 `json:"max_df_ratio,omitempty"`
	// K1, B and Delta are the BM25+ parameters (defaults 1.5, 0.75, and Delta 0 in
	// ProfileEnhanced, 1.0 in ProfileReference).
	K1    *float64 `json:"k1,omitempty"`
	B     *float64 `json:"b,omitempty"`
	Delta *float64 `json:"delta,omitempty"`
	// Intents, when false, ranks every query as one need. By default (nil or true) a query that
	// holds several needs ("convert 100 dollars to euros and then tell me the weather in Paris")
	// is searched whole and per need, so one need's near-duplicates do not take every place, and
	// each hit says its need in Result.Intent. ProfileReference never splits.
	Intents *bool `json:"intents,omitempty"`
	// Usage, when false, ranks as if no usage were recorded. By default (nil or true) the
	// answer's best hits bring in the tools they are used with (Result.BroughtIn) when the
	// recorded usage says so; ProfileReference never does.
	Usage *bool `json:"usage,omitempty"`
}

// DiscoverRequest is one discover call's options; see Discoverer.DiscoverWith. The filters
// choose which tools may answer before ranking and TopK; scores are as without them.
type DiscoverRequest struct {
	// TopK is the most results to return; 0 means 10.
	TopK int `json:"top_k,omitempty"`
	// APIFormat of the returned schemas; "" means OpenAI chat.
	APIFormat APIFormat `json:"api_format,omitempty"`
	// Namespaces keeps tools registered under one of these namespaces (ignoring ASCII case).
	Namespaces []string `json:"namespaces,omitempty"`
	// Tags keeps tools carrying at least one of these tags (ignoring ASCII case).
	Tags []string `json:"tags,omitempty"`
	// Deferred keeps only deferred tools (true) or only loaded ones (false); nil keeps both.
	Deferred *bool `json:"deferred,omitempty"`
	// Strict renders the returned schemas in OpenAI strict mode (OpenAIChat and
	// OpenAIResponses only, else ErrInvalidArgument); a hit whose schema cannot be strict
	// carries it non-strict, with Result.Warning saying why.
	Strict bool `json:"strict,omitempty"`
	// MaxTokens caps the answer at this many tokens, estimated as the UTF-8 bytes of its JSON
	// (what DiscoverJSON returns) / 4, rounded up; 0 means no cap. Hits keep their schemas
	// while they fit, then come cut to name + one-line summary (Result.Schema nil,
	// Result.Description the first sentence), then stop. The top hit is always returned, cut if
	// its schema alone is too big.
	MaxTokens int `json:"max_tokens,omitempty"`
	// QueryVector is the query's own vector (the embedder's dimension): ProfileHybrid ranks with
	// it instead of asking the embedder, the way to rank semantically with SetPullEmbedder.
	QueryVector []float32 `json:"query_vector,omitempty"`
}

// Summary is one line about a deferred tool, for a system prompt.
type Summary struct {
	Name string `json:"name"`
	// Description is the first sentence of the tool's description.
	Description string `json:"description"`
	// Namespace is "" for a tool without one.
	Namespace string `json:"namespace"`
}

// Result is one discovery hit.
type Result struct {
	Name string `json:"name"`
	// Description is the tool's description, or only its first sentence when
	// DiscoverRequest.MaxTokens cut the hit to name + summary.
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	// Namespace is "" for a tool without one.
	Namespace string `json:"namespace"`
	Deferred  bool   `json:"deferred"`
	// Intent is the need of the query this tool answers, in the query's own words, when the
	// query holds several (see DiscoveryOptions.Intents); "" for a query that is one need.
	Intent string `json:"intent,omitempty"`
	// BroughtIn says why the tool is in the answer when the query did not rank it there: a hit
	// it is used with brought it in ("used with `add_agenda` in 12 of its 15 tasks"; see
	// Registry.RecordUsage); "" otherwise.
	BroughtIn string `json:"brought_in,omitempty"`
	// Schema is the tool's schema in the requested format, present for an exact-name match and
	// for deferred tools (the model needs it to call them); nil otherwise, and nil for a hit
	// DiscoverRequest.MaxTokens cut to name + summary.
	Schema json.RawMessage `json:"schema,omitempty"`
	// Warning says why Schema is not strict when DiscoverRequest.Strict asked for strict mode
	// and the tool cannot have it; "" otherwise.
	Warning string `json:"warning,omitempty"`
}

// Explanation tells why a query ranks a tool where it does; see Discoverer.Explain.
type Explanation struct {
	Query   string  `json:"query"`
	Profile Profile `json:"profile"`
	// Hybrid is each side of the fusion when ranked with ProfileHybrid, else nil.
	Hybrid *HybridExplanation `json:"hybrid"`
	// Intents are the query's needs when it holds several (then Tool's score and rank are the
	// merged ones), in query order; empty for a query that is one need.
	Intents []IntentExplanation `json:"intents"`
	// ExactMatch is the tool the query names exactly (then it is the whole answer), or "".
	ExactMatch string `json:"exact_match"`
	// Tokens are the analyzed query tokens with the filter's verdicts.
	Tokens []QueryToken `json:"tokens"`
	// ScoredTokens are the tokens that were scored.
	ScoredTokens []string `json:"scored_tokens"`
	TopK         int      `json:"top_k"`
	// BestScore is the best score in the answer, 0 when it is empty.
	BestScore float64 `json:"best_score"`
	// ScoreFloor is MinScoreRatio times BestScore; 0 when the floor is off or nothing scored.
	ScoreFloor float64 `json:"score_floor"`
	// ResultCount is the number of tools in the answer.
	ResultCount int             `json:"result_count"`
	Tool        ToolExplanation `json:"tool"`
}

// QueryToken is one analyzed query token and whether the query filter kept it.
type QueryToken struct {
	Token string `json:"token"`
	// DF is the number of tools containing the token; DFRatio the fraction of all tools.
	DF      int     `json:"df"`
	DFRatio float64 `json:"df_ratio"`
	Kept    bool    `json:"kept"`
	// Reason says why a token was dropped (or rescued), "" otherwise.
	Reason string `json:"reason"`
}

// Outcome is where the explained tool ended up.
type Outcome string

// The outcomes of Explain.
const (
	OutcomeRanked          Outcome = "ranked"            // in the answer, at Rank
	OutcomeExactMatch      Outcome = "exact_match"       // the query is its name
	OutcomeOtherExactMatch Outcome = "other_exact_match" // the query is another tool's name
	OutcomeDisabled        Outcome = "disabled"          // disabled, so not indexed
	OutcomeNoQueryTokens   Outcome = "no_query_tokens"   // the filter left nothing to score
	OutcomeNoCommonToken   Outcome = "no_common_token"   // shares no scored token with the query
	OutcomeBelowTopK       Outcome = "below_top_k"       // scored, but ranked after top_k
	OutcomeBelowScoreFloor Outcome = "below_score_floor" // within top_k, under the score floor
)

// ToolExplanation is the explained tool's side of an Explanation.
type ToolExplanation struct {
	Name    string  `json:"name"`
	Outcome Outcome `json:"outcome"`
	// Reason is a sentence saying why.
	Reason  string `json:"reason"`
	Indexed bool   `json:"indexed"`
	// Score is the tool's score (1.0 for an exact match), 0 when it did not score.
	Score float64 `json:"score"`
	// Rank is its 1-based place in the full ranking (it may exceed TopK), 0 when it did not score.
	Rank int `json:"rank"`
	// Intent is the need of the query the tool answers (as Result.Intent), "" when the query is
	// one need or no need's ranking holds the tool.
	Intent string `json:"intent"`
	// Terms are the contributions of the scored tokens it contains, in query order.
	Terms []TermContribution `json:"terms"`
}

// IntentExplanation is one need of a query that holds several, and how that need's own ranking
// placed the explained tool.
type IntentExplanation struct {
	// Text is the need, as the query words it.
	Text string `json:"text"`
	// RelativeScore is the tool's score in the need's ranking over that ranking's best (1 for
	// its best tool); 0 when the need's ranking does not hold the tool.
	RelativeScore float64 `json:"relative_score"`
	// Rank is the tool's 1-based place in the need's ranking, 0 when it is not there.
	Rank int `json:"rank"`
}

// TermContribution is what one query token adds to the tool's score.
type TermContribution struct {
	Token string `json:"token"`
	DF    int    `json:"df"`
	// IDF is what the token is scored with: CatalogIDF, or less in the enhanced profile for a word
	// more common in general English than in the catalog (its background model's discount).
	IDF float64 `json:"idf"`
	// CatalogIDF is the token's inverse document frequency in the catalog alone.
	CatalogIDF float64 `json:"catalog_idf"`
	// WeightedTF is the sum of weight times term frequency over the tool's fields.
	WeightedTF float64 `json:"weighted_tf"`
	// TFNorm is the BM25+ normalized frequency, delta included.
	TFNorm float64 `json:"tf_norm"`
	// QueryWeight is 1 unless the token repeats in the query: in the enhanced profile each of its
	// n occurrences (one term each) weighs (k1+1)/(n+k1), together n·(k1+1)/(n+k1).
	QueryWeight float64 `json:"query_weight"`
	// Score is IDF times QueryWeight times TFNorm.
	Score  float64             `json:"score"`
	Fields []FieldContribution `json:"fields"`
}

// FieldContribution is one field's share of a token's contribution.
type FieldContribution struct {
	Field  Field   `json:"field"`
	TF     int     `json:"tf"`
	Weight float64 `json:"weight"`
	// Score is the token's score times this field's share of WeightedTF.
	Score float64 `json:"score"`
}
