package toolregistry

import (
	"encoding/json"
	"reflect"
	"testing"
)

// strictTools: one tool strict mode can take (an optional parameter becomes required and
// nullable) and one it cannot (a free-form object), both deferred so discover returns schemas.
func strictTools() []Tool {
	return []Tool{
		{
			Name:        "send_email",
			Description: "Send an email to a recipient.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"}},"required":["to"]}`),
			Metadata:    Metadata{Defer: true},
		},
		{
			Name:        "set_config",
			Description: "Store configuration settings.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"settings":{"type":"object"}}}`),
			Metadata:    Metadata{Defer: true},
		},
	}
}

const setConfigReason = `settings: an object without "properties" takes arbitrary keys`

// strictFunction is the part of an OpenAI schema strict mode touches, in either OpenAI format.
type strictFunction struct {
	Name       string `json:"name"`
	Strict     *bool  `json:"strict"`
	Parameters struct {
		Properties           map[string]struct{ Type any } `json:"properties"`
		Required             []string                      `json:"required"`
		AdditionalProperties *bool                         `json:"additionalProperties"`
	} `json:"parameters"`
}

func decodeFunction(t *testing.T, schema json.RawMessage, format APIFormat) strictFunction {
	t.Helper()
	var f strictFunction
	if format == OpenAIResponses {
		if err := json.Unmarshal(schema, &f); err != nil {
			t.Fatalf("%s: %v", schema, err)
		}
		return f
	}
	var chat struct {
		Function strictFunction `json:"function"`
	}
	if err := json.Unmarshal(schema, &chat); err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return chat.Function
}

// wantStrict checks send_email's schema in strict mode: closed, every property required, the
// optional one nullable, marked strict.
func wantStrict(t *testing.T, f strictFunction) {
	t.Helper()
	if f.Strict == nil || !*f.Strict {
		t.Errorf("%s: want \"strict\": true, got %v", f.Name, f.Strict)
	}
	if ap := f.Parameters.AdditionalProperties; ap == nil || *ap {
		t.Errorf("%s: want additionalProperties false, got %v", f.Name, ap)
	}
	if !reflect.DeepEqual(f.Parameters.Required, []string{"to", "body"}) {
		t.Errorf("%s: want every property required, got %v", f.Name, f.Parameters.Required)
	}
	if got := f.Parameters.Properties["body"].Type; !reflect.DeepEqual(got, []any{"string", "null"}) {
		t.Errorf("%s: want the optional body nullable, got %v", f.Name, got)
	}
}

func TestStrictSchemas(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(strictTools()...); err != nil {
		t.Fatal(err)
	}
	for _, format := range []APIFormat{"", OpenAIChat, OpenAIResponses} {
		set, err := r.StrictSchemas(SchemaOptions{APIFormat: format})
		if err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		if got := schemaNames(t, set.Tools); !reflect.DeepEqual(got, []string{"send_email", "set_config"}) {
			t.Fatalf("%q: the tool that cannot be strict is still listed: got %v", format, got)
		}
		wantStrict(t, decodeFunction(t, set.Tools[0], format))
		loose := decodeFunction(t, set.Tools[1], format)
		if (loose.Strict != nil && *loose.Strict) || loose.Parameters.AdditionalProperties != nil {
			t.Errorf("%q: set_config must come non-strict: %s", format, set.Tools[1])
		}
		want := []SchemaWarning{{Name: "set_config", Reason: setConfigReason}}
		if !reflect.DeepEqual(set.Warnings, want) {
			t.Errorf("%q: warnings %+v, want %+v", format, set.Warnings, want)
		}

		// Schemas with Strict gives the same tools; without it, nothing is strict.
		tools, err := r.Schemas(SchemaOptions{APIFormat: format, Strict: true})
		if err != nil || !reflect.DeepEqual(tools, set.Tools) {
			t.Errorf("%q: Schemas(Strict) = %s, %v; want StrictSchemas' tools", format, tools, err)
		}
		plain, err := r.Schemas(SchemaOptions{APIFormat: format})
		if err != nil {
			t.Fatal(err)
		}
		if f := decodeFunction(t, plain[0], format); f.Parameters.AdditionalProperties != nil || len(f.Parameters.Required) != 1 {
			t.Errorf("%q: not asked for, strict mode was applied: %s", format, plain[0])
		}
	}

	// A registry whose tools can all be strict answers an empty warning list, not null.
	if err := r.Unregister("set_config"); err != nil {
		t.Fatal(err)
	}
	set, err := r.StrictSchemas(SchemaOptions{})
	if err != nil || len(set.Tools) != 1 || set.Warnings == nil || len(set.Warnings) != 0 {
		t.Errorf("all strict: %+v, %v", set, err)
	}
}

// Strict schemas asked for by name: those tools in the order asked (a disabled one too), and
// the warnings in that order as well.
func TestStrictSchemasByName(t *testing.T) {
	r := newTestRegistry(t)
	tools := append(strictTools(), Tool{
		Name:        "store_blob",
		Description: "Store a value of any kind.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"data":{}}}`),
	})
	if _, err := r.Register(tools...); err != nil {
		t.Fatal(err)
	}
	if err := r.SetEnabled("send_email", false); err != nil {
		t.Fatal(err)
	}
	order := []string{"store_blob", "send_email", "set_config"}
	for _, format := range []APIFormat{"", OpenAIChat, OpenAIResponses} {
		set, err := r.StrictSchemas(SchemaOptions{APIFormat: format, Names: order})
		if err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		if got := schemaNames(t, set.Tools); !reflect.DeepEqual(got, order) {
			t.Fatalf("%q: want the tools in the order asked %v, got %v", format, order, got)
		}
		wantStrict(t, decodeFunction(t, set.Tools[1], format))
		for _, i := range []int{0, 2} {
			if f := decodeFunction(t, set.Tools[i], format); f.Strict != nil && *f.Strict {
				t.Errorf("%q: %s must come non-strict: %s", format, f.Name, set.Tools[i])
			}
		}
		var warned []string
		for _, w := range set.Warnings {
			warned = append(warned, w.Name)
		}
		if !reflect.DeepEqual(warned, []string{"store_blob", "set_config"}) || set.Warnings[1].Reason != setConfigReason {
			t.Errorf("%q: want warnings for store_blob then set_config, got %+v", format, set.Warnings)
		}
		tools, err := r.Schemas(SchemaOptions{APIFormat: format, Names: order, Strict: true})
		if err != nil || !reflect.DeepEqual(tools, set.Tools) {
			t.Errorf("%q: Schemas(Names, Strict) = %s, %v; want StrictSchemas' tools", format, tools, err)
		}
	}
	_, err := r.StrictSchemas(SchemaOptions{Names: []string{"send_email", "nope"}})
	wantCode(t, err, ErrNotFound)
}

// Only the OpenAI formats have a strict mode: the others refuse it, in both places.
func TestStrictRefusedOutsideOpenAI(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(strictTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, format := range []APIFormat{Anthropic, Gemini} {
		_, err := r.StrictSchemas(SchemaOptions{APIFormat: format})
		wantCode(t, err, ErrInvalidArgument)
		_, err = r.Schemas(SchemaOptions{APIFormat: format, Strict: true})
		wantCode(t, err, ErrInvalidArgument)
		_, err = d.DiscoverWith("send email", DiscoverRequest{APIFormat: format, Strict: true})
		wantCode(t, err, ErrInvalidArgument)
		// The same format without strict is fine.
		if _, err := d.DiscoverWith("send email", DiscoverRequest{APIFormat: format}); err != nil {
			t.Errorf("%s without strict: %v", format, err)
		}
	}
}

func TestDiscoverStrict(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(strictTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, format := range []APIFormat{OpenAIChat, OpenAIResponses} {
		hits, err := d.DiscoverWith("send_email", DiscoverRequest{APIFormat: format, Strict: true})
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: %+v, %v", format, hits, err)
		}
		wantStrict(t, decodeFunction(t, hits[0].Schema, format))
		if hits[0].Warning != "" {
			t.Errorf("%s: a strict hit has no warning, got %q", format, hits[0].Warning)
		}

		hits, err = d.DiscoverWith("set_config", DiscoverRequest{APIFormat: format, Strict: true})
		if err != nil || len(hits) != 1 {
			t.Fatalf("%s: %+v, %v", format, hits, err)
		}
		if hits[0].Warning != setConfigReason {
			t.Errorf("%s: warning %q, want %q", format, hits[0].Warning, setConfigReason)
		}
		if f := decodeFunction(t, hits[0].Schema, format); f.Parameters.AdditionalProperties != nil {
			t.Errorf("%s: set_config's schema must be non-strict: %s", format, hits[0].Schema)
		}
	}
	// Without strict: no warning, and the optional parameter stays optional.
	hits, err := d.DiscoverWith("set_config", DiscoverRequest{})
	if err != nil || len(hits) != 1 || hits[0].Warning != "" {
		t.Fatalf("not strict: %+v, %v", hits, err)
	}
	hits, err = d.DiscoverWith("send_email", DiscoverRequest{})
	if err != nil || len(hits) != 1 {
		t.Fatalf("not strict: %+v, %v", hits, err)
	}
	if f := decodeFunction(t, hits[0].Schema, OpenAIChat); f.Strict != nil || len(f.Parameters.Required) != 1 {
		t.Errorf("not asked for, strict mode was applied: %s", hits[0].Schema)
	}
}

// The options reach the library spelled as it reads them.
func TestStrictOptionsJSON(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{SchemaOptions{Strict: true}, `{"include_deferred":true,"strict":true}`},
		{SchemaOptions{}, `{"include_deferred":true}`},
		{DiscoverRequest{Strict: true}, `{"strict":true}`},
		{DiscoverRequest{}, `{}`},
	} {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%+v: %s, %v; want %s", c.v, got, err, c.want)
		}
	}
}
