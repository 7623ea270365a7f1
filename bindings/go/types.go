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
}

// MetadataUpdate changes some metadata fields of a registered tool; nil fields keep their value.
type MetadataUpdate struct {
	Defer *bool
	// Tags replaces the tags when non-nil; an empty non-nil slice removes them all.
	Tags       []string
	SearchHint *string
}

// Ptr returns a pointer to v, for the optional fields of MetadataUpdate and DiscoveryOptions.
func Ptr[T any](v T) *T { return &v }

type metadataJSON struct {
	Defer      *bool    `json:"defer,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	SearchHint *string  `json:"search_hint,omitempty"`
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
	out := toolJSON{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Namespace: t.Namespace}
	if raw, ok := t.Parameters.(json.RawMessage); ok && len(raw) == 0 {
		out.Parameters = nil
	}
	m := t.Metadata
	if m.Defer || len(m.Tags) > 0 || m.SearchHint != "" {
		out.Metadata = &metadataJSON{Tags: m.Tags}
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
}

func (o SchemaOptions) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		IncludeDeferred bool      `json:"include_deferred"`
		APIFormat       APIFormat `json:"api_format,omitempty"`
		Tags            []string  `json:"tags,omitempty"`
		ExcludeTags     []string  `json:"exclude_tags,omitempty"`
	}{!o.ExcludeDeferred, o.APIFormat, o.Tags, o.ExcludeTags})
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
)

// DiscoveryOptions tunes ranking. The zero value means the defaults; nil pointers keep the
// default of their field (use Ptr to set one, including to 0).
type DiscoveryOptions struct {
	// FieldWeights overrides the weights of the named fields; the others keep their defaults.
	FieldWeights map[Field]float64 `json:"field_weights,omitempty"`
	// MinScoreRatio drops hits scoring below this fraction of the best (default 0.3; 0 disables).
	MinScoreRatio *float64 `json:"min_score_ratio,omitempty"`
	// MaxDFRatio drops query words found in at least this fraction of tools, and in at least
	// three of them (default 0.5; 0 disables).
	MaxDFRatio *float64 `json:"max_df_ratio,omitempty"`
	// K1, B and Delta are the BM25+ parameters (defaults 1.5, 0.75, 1.0).
	K1    *float64 `json:"k1,omitempty"`
	B     *float64 `json:"b,omitempty"`
	Delta *float64 `json:"delta,omitempty"`
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
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
	// Namespace is "" for a tool without one.
	Namespace string `json:"namespace"`
	Deferred  bool   `json:"deferred"`
	// Schema is the tool's schema in the requested format, present for an exact-name match and
	// for deferred tools (the model needs it to call them); nil otherwise.
	Schema json.RawMessage `json:"schema,omitempty"`
}
