package toolregistry

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	if v := Version(); v == "" || strings.Count(v, ".") != 2 {
		t.Fatalf("Version() = %q, want MAJOR.MINOR.PATCH", v)
	}
}

func TestRegisterReturnsQualifiedNames(t *testing.T) {
	r := newTestRegistry(t)
	got, err := r.Register(sampleTools()...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"read_file", "send_email", "github-list_issues", "convert_currency"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Register = %v, want %v", got, want)
	}
	// Registering a name again replaces it in place: still four tools, same order.
	if _, err := r.Register(Tool{Name: "read_file", Description: "Read a whole file."}); err != nil {
		t.Fatal(err)
	}
	schemas, err := r.Schemas(SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaNames(t, schemas); !reflect.DeepEqual(got, []string{"convert_currency", "github-list_issues", "read_file", "send_email"}) {
		t.Fatalf("schemas after replace = %v", got)
	}
	if !strings.Contains(string(schemas[2]), "Read a whole file.") {
		t.Fatalf("replacement not applied: %s", schemas[2])
	}
}

func TestRegisterIsAllOrNothing(t *testing.T) {
	r := newTestRegistry(t)
	_, err := r.Register(Tool{Name: "good_tool"}, Tool{Name: "bad name"})
	wantCode(t, err, ErrInvalidArgument)
	if !strings.Contains(err.Error(), "[1]") {
		t.Errorf("message should point at the second tool: %v", err)
	}
	schemas, err := r.Schemas(SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas) != 0 {
		t.Fatalf("a failed batch registered %d tools", len(schemas))
	}
}

func TestRegisterJSONAcceptsProviderShapes(t *testing.T) {
	r := newTestRegistry(t)
	got, err := r.RegisterJSON([]byte(`[
		{"type": "function", "function": {"name": "chat_tool", "description": "OpenAI chat shape."}},
		{"type": "function", "name": "responses_tool", "description": "OpenAI responses shape."},
		{"name": "anthropic_tool", "description": "Anthropic shape.", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}},
		{"name": "mcp_tool", "description": "MCP shape.", "inputSchema": {"type": "object", "properties": {}}, "namespace": "srv", "metadata": {"defer": true}}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"chat_tool", "responses_tool", "anthropic_tool", "srv-mcp_tool"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("RegisterJSON = %v, want %v", got, want)
	}
	one, err := r.RegisterJSON([]byte(`{"name": "single_tool"}`))
	if err != nil || !reflect.DeepEqual(one, []string{"single_tool"}) {
		t.Fatalf("single object: %v, %v", one, err)
	}
}

func TestRegisterJSONErrors(t *testing.T) {
	r := newTestRegistry(t)
	_, err := r.RegisterJSON([]byte(`{"name": `))
	wantCode(t, err, ErrInvalidJSON)
	_, err = r.RegisterJSON([]byte(`{"description": "no name"}`))
	wantCode(t, err, ErrInvalidArgument)
	_, err = r.RegisterJSON([]byte(`{"name": 42}`))
	wantCode(t, err, ErrInvalidArgument)
	_, err = r.RegisterJSON([]byte("{\"name\": \"a\"}\x00{\"name\": \"b\"}"))
	wantCode(t, err, ErrInvalidJSON)
	_, err = r.RegisterJSON([]byte("{\"name\": \"bad_\xff\"}"))
	wantCode(t, err, ErrInvalidUTF8)
	_, err = r.Register(Tool{Name: strings.Repeat("n", 2000)})
	wantCode(t, err, ErrTooLarge)
	_, err = r.Register(Tool{Name: "discover_tools"})
	if err == nil {
		t.Fatal("discover_tools is reserved, registering it must fail")
	}
	schemas, err := r.Schemas(SchemaOptions{})
	if err != nil || len(schemas) != 0 {
		t.Fatalf("failed registrations changed the registry: %d schemas, %v", len(schemas), err)
	}
}

func TestUnregister(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	if err := r.Unregister("github-list_issues"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, r.Unregister("github-list_issues"), ErrNotFound)
	wantCode(t, r.Unregister("no_such_tool"), ErrNotFound)
	wantCode(t, r.Unregister("bad\x00name"), ErrInvalidArgument)
	wantCode(t, r.Unregister("\xfe\xff"), ErrInvalidUTF8)
	schemas, err := r.Schemas(SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaNames(t, schemas); !reflect.DeepEqual(got, []string{"convert_currency", "read_file", "send_email"}) {
		t.Fatalf("after Unregister: %v", got)
	}
}

func TestSchemasOptions(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		opts SchemaOptions
		want []string
	}{
		{SchemaOptions{}, []string{"convert_currency", "github-list_issues", "read_file", "send_email"}},
		{SchemaOptions{ExcludeDeferred: true}, []string{"convert_currency", "read_file"}},
		{SchemaOptions{Tags: []string{"network"}}, []string{"github-list_issues", "send_email"}},
		{SchemaOptions{ExcludeTags: []string{"read_only"}}, []string{"convert_currency", "send_email"}},
		{SchemaOptions{APIFormat: Anthropic, ExcludeDeferred: true}, []string{"convert_currency", "read_file"}},
	}
	for _, c := range cases {
		schemas, err := r.Schemas(c.opts)
		if err != nil {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		if got := schemaNames(t, schemas); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %v, want %v", c.opts, got, c.want)
		}
	}
	formats := map[APIFormat]string{
		OpenAIChat:      `"function"`,
		OpenAIResponses: `"type":"function"`,
		Anthropic:       `"input_schema"`,
		Gemini:          `"parameters"`,
	}
	for format, marker := range formats {
		schemas, err := r.Schemas(SchemaOptions{APIFormat: format, Tags: []string{"file_system"}})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if len(schemas) != 1 || !strings.Contains(strings.ReplaceAll(string(schemas[0]), " ", ""), marker) {
			t.Errorf("%s: want one schema containing %s, got %s", format, marker, schemas)
		}
	}
	_, err := r.Schemas(SchemaOptions{APIFormat: "cobol"})
	wantCode(t, err, ErrInvalidArgument)
}

func TestDeferredSummaries(t *testing.T) {
	r := newTestRegistry(t)
	got, err := r.DeferredSummaries()
	if err != nil || len(got) != 0 {
		t.Fatalf("empty registry: %v, %v", got, err)
	}
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	got, err = r.DeferredSummaries()
	if err != nil {
		t.Fatal(err)
	}
	want := []Summary{
		{Name: "send_email", Description: "Send an email to a recipient."},
		{Name: "github-list_issues", Description: "List the issues of a repository!", Namespace: "github"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DeferredSummaries = %+v, want %+v", got, want)
	}
}

func TestSetMetadata(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	// Defer read_file: it joins the summaries; its tags are untouched.
	if err := r.SetMetadata("read_file", MetadataUpdate{Defer: Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	summaries, err := r.DeferredSummaries()
	if err != nil {
		t.Fatal(err)
	}
	if len(summaries) != 3 || summaries[0].Name != "read_file" {
		t.Fatalf("read_file should be deferred, first in registration order: %+v", summaries)
	}
	schemas, err := r.Schemas(SchemaOptions{Tags: []string{"file_system"}})
	if err != nil || len(schemas) != 1 {
		t.Fatalf("tags must survive a Defer-only update: %d schemas, %v", len(schemas), err)
	}
	// An empty, non-nil Tags clears them.
	if err := r.SetMetadata("read_file", MetadataUpdate{Tags: []string{}}); err != nil {
		t.Fatal(err)
	}
	schemas, err = r.Schemas(SchemaOptions{Tags: []string{"file_system"}})
	if err != nil || len(schemas) != 0 {
		t.Fatalf("tags should be cleared: %d schemas, %v", len(schemas), err)
	}
	// A search hint makes a tool findable by words it does not contain otherwise.
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if res, err := d.Discover("zebra", 5); err != nil || len(res) != 0 {
		t.Fatalf("before the hint: %v, %v", names(res), err)
	}
	if err := r.SetMetadata("convert_currency", MetadataUpdate{SearchHint: Ptr("zebra exchange")}); err != nil {
		t.Fatal(err)
	}
	if res, err := d.Discover("zebra", 5); err != nil || !reflect.DeepEqual(names(res), []string{"convert_currency"}) {
		t.Fatalf("after the hint: %v, %v", names(res), err)
	}
	wantCode(t, r.SetMetadata("no_such_tool", MetadataUpdate{Defer: Ptr(false)}), ErrNotFound)
}

func TestSetEnabled(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := r.SetEnabled("send_email", false); err != nil {
		t.Fatal(err)
	}
	if err := r.SetEnabled("github", false); err != nil { // a namespace
		t.Fatal(err)
	}
	schemas, err := r.Schemas(SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaNames(t, schemas); !reflect.DeepEqual(got, []string{"convert_currency", "read_file"}) {
		t.Fatalf("disabled tools still in schemas: %v", got)
	}
	if res, err := d.Discover("send email", 5); err != nil || len(res) != 0 {
		t.Fatalf("disabled tool discovered: %v, %v", names(res), err)
	}
	if s, err := r.DeferredSummaries(); err != nil || len(s) != 0 {
		t.Fatalf("disabled tools in summaries: %+v, %v", s, err)
	}
	if err := r.SetEnabled("github", true); err != nil {
		t.Fatal(err)
	}
	if err := r.SetEnabled("send_email", true); err != nil {
		t.Fatal(err)
	}
	if s, err := r.DeferredSummaries(); err != nil || len(s) != 2 || s[0].Name != "send_email" {
		t.Fatalf("re-enabled tools must keep their place: %+v, %v", s, err)
	}
	wantCode(t, r.SetEnabled("nothing_here", false), ErrNotFound)
}

func TestEnableDiscoveryAndCall(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	_, err := r.Call("discover_tools", map[string]any{"query": "email"})
	wantCode(t, err, ErrNotFound) // discovery not enabled yet
	if err := r.EnableDiscovery(DiscoveryOptions{}); err != nil {
		t.Fatal(err)
	}
	schemas, err := r.Schemas(SchemaOptions{ExcludeDeferred: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaNames(t, schemas); !reflect.DeepEqual(got, []string{"call_deferred", "convert_currency", "discover_tools", "read_file"}) {
		t.Fatalf("schemas with discovery: %v", got)
	}
	// The built-in's description lists the deferred tools.
	for _, s := range schemas {
		if strings.Contains(string(s), `"discover_tools"`) && !strings.Contains(string(s), "send_email") {
			t.Errorf("discover_tools description should list send_email: %s", s)
		}
	}
	for _, args := range []any{
		map[string]any{"query": "send an email", "top_k": 3},
		json.RawMessage(`{"query": "send an email", "top_k": 3}`),
		[]byte(`{"query": "send an email", "top_k": 3}`),
		struct {
			Query string `json:"query"`
			TopK  int    `json:"top_k"`
		}{"send an email", 3},
	} {
		out, err := r.Call("discover_tools", args)
		if err != nil {
			t.Fatalf("%T: %v", args, err)
		}
		var res []Result
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].Name != "send_email" || !res[0].Deferred || res[0].Schema == nil || res[0].Score <= 0 {
			t.Fatalf("%T: %+v", args, res)
		}
	}
	_, err = r.Call("discover_tools", map[string]any{"query": "   "})
	wantCode(t, err, ErrInvalidArgument)
	_, err = r.Call("discover_tools", map[string]any{"query": "x", "top_k": 0})
	wantCode(t, err, ErrInvalidArgument)
	_, err = r.Call("discover_tools", nil) // {} has no query
	wantCode(t, err, ErrInvalidArgument)
	_, err = r.Call("discover_tools", json.RawMessage(`{"query": `))
	wantCode(t, err, ErrInvalidJSON)
	_, err = r.Call("read_file", map[string]any{"path": "/etc"}) // registered tools run in the host
	wantCode(t, err, ErrInvalidArgument)
	_, err = r.Call("no_such_builtin", nil)
	wantCode(t, err, ErrNotFound)
	_, err = r.Call("discover_tools", map[string]any{"query": strings.Repeat("word ", 20000)})
	wantCode(t, err, ErrTooLarge)
	_, err = r.Call("discover_tools", func() {})
	if err == nil || errors.As(err, new(*Error)) {
		t.Fatalf("an unencodable argument is a Go encoding error, got %v", err)
	}
	wantCode(t, r.EnableDiscovery(DiscoveryOptions{MinScoreRatio: Ptr(1.5)}), ErrInvalidArgument)
	wantCode(t, r.EnableDiscovery(DiscoveryOptions{FieldWeights: map[Field]float64{"colour": 1}}), ErrInvalidArgument)
	// Unregistering the built-in turns discovery off again.
	if err := r.Unregister("discover_tools"); err != nil {
		t.Fatal(err)
	}
	_, err = r.Call("discover_tools", map[string]any{"query": "email"})
	wantCode(t, err, ErrNotFound)
}

func TestNewRegistryWithDiscovery(t *testing.T) {
	r := newTestRegistry(t, WithDiscovery(DiscoveryOptions{MinScoreRatio: Ptr(0.0)}))
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	out, err := r.Call("discover_tools", map[string]any{"query": "read_file"})
	if err != nil {
		t.Fatal(err)
	}
	var res []Result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Name != "read_file" || res[0].Score != 1.0 || res[0].Schema == nil {
		t.Fatalf("exact match: %+v", res)
	}
	_, err = NewRegistry(WithDiscovery(DiscoveryOptions{B: Ptr(2.0)}))
	wantCode(t, err, ErrInvalidArgument)
	_, err = NewRegistry(WithDiscovery(DiscoveryOptions{K1: Ptr(math.Inf(1))}))
	if err == nil { // encoding/json refuses +Inf before the engine sees it
		t.Fatal("K1 = +Inf must be refused")
	}
}

func TestDiscoverer(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	res, err := d.Discover("Send-Email", 5) // exact name, read case- and separator-insensitively
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Name != "send_email" || res[0].Score != 1.0 || res[0].Schema == nil {
		t.Fatalf("exact match: %+v", res)
	}
	res, err = d.Discover("read a file from disk", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Name != "read_file" || res[0].Deferred || res[0].Schema != nil {
		t.Fatalf("fuzzy hit on a core tool has no schema: %+v", res)
	}
	for i := 1; i < len(res); i++ {
		if res[i].Score > res[i-1].Score {
			t.Fatalf("not best first: %+v", res)
		}
	}
	res, err = d.Discover("repository issues", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].Name != "github-list_issues" || res[0].Namespace != "github" || !res[0].Deferred {
		t.Fatalf("namespaced deferred tool: %+v", res)
	}
	res, err = d.DiscoverFormat("github-list_issues", 1, Anthropic)
	if err != nil || len(res) != 1 || !strings.Contains(string(res[0].Schema), "input_schema") {
		t.Fatalf("anthropic schema: %+v, %v", res, err)
	}

	// The discoverer follows the registry.
	if _, err := r.Register(Tool{Name: "translate_text", Description: "Translate text into another language."}); err != nil {
		t.Fatal(err)
	}
	if res, err := d.Discover("translate", 3); err != nil || len(res) == 0 || res[0].Name != "translate_text" {
		t.Fatalf("new tool not found: %+v, %v", res, err)
	}

	before, err := d.Discover("file email currency", 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.RebuildIndex(); err != nil {
		t.Fatal(err)
	}
	after, err := d.Discover("file email currency", 10)
	if err != nil || !reflect.DeepEqual(before, after) {
		t.Fatalf("RebuildIndex changed the answer:\n%+v\n%+v (%v)", before, after, err)
	}

	_, err = d.Discover("", 5)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Discover("email", 0)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Discover("email", -1)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Discover("email\x00", 5)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Discover("\xff", 5)
	wantCode(t, err, ErrInvalidUTF8)
	_, err = d.Discover(strings.Repeat("a", 70000), 5)
	wantCode(t, err, ErrTooLarge)
	_, err = d.DiscoverFormat("email", 5, "yaml")
	wantCode(t, err, ErrInvalidArgument)

	_, err = r.NewDiscoverer(DiscoveryOptions{MaxDFRatio: Ptr(-0.1)})
	wantCode(t, err, ErrInvalidArgument)
}

func TestDiscovererOptionsDiffer(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	strict, err := r.NewDiscoverer(DiscoveryOptions{MinScoreRatio: Ptr(0.99)})
	if err != nil {
		t.Fatal(err)
	}
	defer strict.Close()
	loose, err := r.NewDiscoverer(DiscoveryOptions{MinScoreRatio: Ptr(0.0), MaxDFRatio: Ptr(0.0)})
	if err != nil {
		t.Fatal(err)
	}
	defer loose.Close()
	a, err := strict.Discover("a file or an email", 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loose.Discover("a file or an email", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) >= len(b) {
		t.Fatalf("min_score_ratio 0.99 should keep fewer hits than 0: %v vs %v", names(a), names(b))
	}
	// The reference profile: its BM25+ delta keeps a zero-weighted match in the answer.
	weighted, err := r.NewDiscoverer(DiscoveryOptions{Profile: ProfileReference, FieldWeights: map[Field]float64{FieldSearchHint: 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer weighted.Close()
	plain, err := r.NewDiscoverer(DiscoveryOptions{Profile: ProfileReference})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	// "mail message" occurs only in send_email's search hint: weighting the hint 0 lowers the
	// score (BM25+'s delta still counts the term as present).
	w, err := weighted.Discover("mail message", 5)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plain.Discover("mail message", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 1 || len(p) != 1 || w[0].Name != "send_email" || p[0].Name != "send_email" || !(w[0].Score < p[0].Score) {
		t.Fatalf("search_hint weight 0 should lower the score: %+v vs %+v", w, p)
	}
}

// Parameters given as nothing, a nil map or an empty RawMessage all mean the empty schema.
func TestToolWithoutParameters(t *testing.T) {
	r := newTestRegistry(t)
	var nilMap map[string]any
	if _, err := r.Register(
		Tool{Name: "no_params"},
		Tool{Name: "nil_map", Parameters: nilMap},
		Tool{Name: "empty_raw", Parameters: json.RawMessage(nil)},
	); err != nil {
		t.Fatal(err)
	}
	schemas, err := r.Schemas(SchemaOptions{APIFormat: OpenAIResponses})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schemas {
		var v struct {
			Parameters struct {
				Type       string         `json:"type"`
				Properties map[string]any `json:"properties"`
			} `json:"parameters"`
		}
		if err := json.Unmarshal(s, &v); err != nil {
			t.Fatal(err)
		}
		if v.Parameters.Type != "object" || v.Parameters.Properties == nil || len(v.Parameters.Properties) != 0 {
			t.Errorf("want the empty object schema: %s", s)
		}
	}
	_, err = r.Register(Tool{Name: "bad_params", Parameters: make(chan int)})
	if err == nil || errors.As(err, new(*Error)) {
		t.Fatalf("unencodable parameters are an encoding error: %v", err)
	}
}
