package toolregistry_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
	"github.com/toolregistry-rs/toolregistry-rs/bindings/go/internal/conformance"
)

const corpusDir = "../../tests/conformance/execute"

// newRegistry returns an empty registry closed when the test ends.
func newRegistry(t testing.TB) *toolregistry.Registry {
	t.Helper()
	r, err := toolregistry.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// chatCall is one OpenAI chat tool call with these arguments.
func chatCall(id, name, args string) map[string]any {
	return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
}

// chatBatch is an OpenAI chat assistant message with these calls.
func chatBatch(t testing.TB, calls ...map[string]any) []byte {
	t.Helper()
	doc, err := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": calls})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

type chatResult struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// execChat runs an OpenAI chat batch and decodes the tool messages.
func execChat(t testing.TB, r *toolregistry.Registry, opts *toolregistry.ExecuteOptions, calls ...map[string]any) []chatResult {
	t.Helper()
	out, err := r.Execute(chatBatch(t, calls...), opts)
	if err != nil {
		t.Fatal(err)
	}
	var results []chatResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(results) != len(calls) {
		t.Fatalf("%d results for %d calls: %s", len(results), len(calls), out)
	}
	return results
}

func echoTool(name string) toolregistry.Tool {
	return toolregistry.Tool{
		Name:        name,
		Description: "Echoes its arguments.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
	}
}

func echo(name string) toolregistry.HostFunc {
	return func(args json.RawMessage) (string, error) { return name + " <- " + string(args), nil }
}

// The corpus, built through this binding, answers every case with expected.json byte for byte;
// in parallel mode too, since results keep call order.
func TestConformanceCorpus(t *testing.T) {
	cases, err := conformance.Cases(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("the corpus has %d cases", len(cases))
	}
	reg, err := conformance.NewRegistry(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	counter := toolregistry.HostFuncCounter(reg)
	for _, parallel := range []int{0, 4} {
		for _, c := range cases {
			opts := c.Options
			if parallel > 0 {
				o := toolregistry.ExecuteOptions{Parallel: parallel}
				if c.Options != nil {
					o = *c.Options
					o.Parallel = parallel
				}
				opts = &o
			}
			got, err := reg.Execute(c.Calls, opts)
			if err != nil {
				t.Errorf("%s (parallel %d): %v", c.Name, parallel, err)
				continue
			}
			if string(got) != string(c.Expected) {
				t.Errorf("%s (parallel %d)\n want %s\n got  %s", c.Name, parallel, c.Expected, got)
			}
		}
	}
	if got := counter.Live(); got != 5 {
		t.Errorf("%d host functions live, want the fixture's 5", got)
	}
	reg.Close()
	if got := counter.Live(); got != 0 {
		t.Errorf("%d host functions live after Close", got)
	}
}

// How a host function's outcomes reach the model: its error text, a panic of any value, and
// results C cannot take as they are.
func TestHostFuncOutcomes(t *testing.T) {
	r := newRegistry(t)
	type stringer struct{ s string }
	hosts := map[string]toolregistry.HostFunc{
		"ok":          func(json.RawMessage) (string, error) { return "fine", nil },
		"empty":       func(json.RawMessage) (string, error) { return "", nil },
		"error":       func(json.RawMessage) (string, error) { return "partial", errors.New("quota exceeded") },
		"error_nul":   func(json.RawMessage) (string, error) { return "", errors.New("bad\x00byte") },
		"panic_error": func(json.RawMessage) (string, error) { panic(fmt.Errorf("wrapped: %w", errors.New("inner"))) },
		"panic_value": func(json.RawMessage) (string, error) { panic(stringer{"x"}) },
		"panic_nil_map": func(json.RawMessage) (string, error) {
			var m map[string]int
			m["boom"] = 1
			return "", nil
		},
		"nul_content":  func(json.RawMessage) (string, error) { return "a\x00b", nil },
		"bad_utf8":     func(json.RawMessage) (string, error) { return "\xff\xfe", nil },
		"unicode_text": func(json.RawMessage) (string, error) { return "héllo ✓ \"quoted\"\n", nil },
	}
	want := map[string]string{
		"ok":            "fine",
		"empty":         "",
		"error":         "Error: quota exceeded",
		"error_nul":     `Error: bad\x00byte`,
		"panic_error":   `Error: the host function of "panic_error" panicked: wrapped: inner`,
		"panic_value":   `Error: the host function of "panic_value" panicked: {x}`,
		"panic_nil_map": `Error: the host function of "panic_nil_map" panicked: assignment to entry in nil map`,
		"nul_content":   `Error: the host function of "nul_content" returned text with a NUL byte at offset 1`,
		"unicode_text":  "héllo ✓ \"quoted\"\n",
	}
	var calls []map[string]any
	var order []string
	for name, fn := range hosts {
		if err := r.RegisterFunc(echoTool(name), fn); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, chatCall("id_"+name, name, "{}"))
		order = append(order, name)
	}
	for _, parallel := range []int{1, 4} {
		results := execChat(t, r, &toolregistry.ExecuteOptions{Parallel: parallel}, calls...)
		for i, name := range order {
			got := results[i]
			if got.ToolCallID != "id_"+name {
				t.Fatalf("result %d answers %q, want id_%s", i, got.ToolCallID, name)
			}
			if name == "bad_utf8" {
				// The library refuses text that is not UTF-8 and tells the model so.
				if !strings.HasPrefix(got.Content, "Error: ") || !strings.Contains(got.Content, "UTF-8") {
					t.Errorf("bad_utf8: %q", got.Content)
				}
				continue
			}
			if got.Content != want[name] {
				t.Errorf("%s (parallel %d): %q, want %q", name, parallel, got.Content, want[name])
			}
		}
	}
}

// Execute's own failures: typed errors with a status, ErrClosed after Close.
func TestExecuteErrors(t *testing.T) {
	r := newRegistry(t)
	if err := r.RegisterFunc(echoTool("echo"), echo("echo")); err != nil {
		t.Fatal(err)
	}
	wantStatus := func(what string, err error, sentinel *toolregistry.Error) {
		t.Helper()
		var e *toolregistry.Error
		if !errors.Is(err, sentinel) || !errors.As(err, &e) || e.Message == "" {
			t.Errorf("%s: %v, want %v with a message", what, err, sentinel.Code)
		}
	}
	_, err := r.Execute([]byte(`{"role": "assistant", "tool_calls": [`), nil)
	wantStatus("truncated JSON", err, toolregistry.ErrInvalidJSON)
	_, err = r.Execute([]byte("[\x00]"), nil)
	wantStatus("NUL in calls", err, toolregistry.ErrInvalidJSON)
	_, err = r.Execute([]byte(`{"hello": "world"}`), nil)
	wantStatus("not a tool-call list", err, toolregistry.ErrInvalidArgument)
	calls := chatBatch(t, chatCall("c1", "echo", "{}"))
	_, err = r.Execute(calls, &toolregistry.ExecuteOptions{Parallel: 1000})
	wantStatus("parallel 1000", err, toolregistry.ErrInvalidArgument)
	_, err = r.Execute(calls, &toolregistry.ExecuteOptions{Parallel: -1})
	wantStatus("parallel -1", err, toolregistry.ErrInvalidArgument)
	_, err = r.Execute(calls, &toolregistry.ExecuteOptions{APIFormat: "smoke-signals"})
	wantStatus("unknown api_format", err, toolregistry.ErrInvalidArgument)
	_, err = r.RegisterFuncJSON([]byte(`{"name": "x"}`), nil)
	wantStatus("nil host function", err, toolregistry.ErrNullArgument)
	err = r.Disable("nope", "because")
	wantStatus("disable unknown", err, toolregistry.ErrNotFound)
	_, err = r.Schemas(toolregistry.SchemaOptions{Names: []string{"echo", "nope"}})
	wantStatus("schemas of an unknown name", err, toolregistry.ErrNotFound)
	if err == nil || !strings.Contains(err.Error(), `nope`) {
		t.Errorf("the not-found message names the tool: %v", err)
	}

	// A forced format reads the calls in that shape.
	out, err := r.Execute([]byte(`[{"type": "tool_use", "id": "t1", "name": "echo", "input": {"n": 1}}]`),
		&toolregistry.ExecuteOptions{APIFormat: toolregistry.Anthropic})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"echo <- {\"n\":1}"}]}]`; string(out) != want {
		t.Errorf("anthropic: %s", out)
	}

	r.Close()
	closed := map[string]error{}
	closed["Execute"] = func() error { _, err := r.Execute(calls, nil); return err }()
	closed["RegisterFunc"] = r.RegisterFunc(echoTool("x"), echo("x"))
	closed["RegisterFuncJSON"] = func() error { _, err := r.RegisterFuncJSON([]byte(`{"name": "x"}`), echo("x")); return err }()
	closed["SetFallback"] = r.SetFallback(func(string, json.RawMessage) (string, error) { return "", nil })
	closed["SetFallback(nil)"] = r.SetFallback(nil)
	closed["Disable"] = r.Disable("echo", "")
	closed["ToolsStatus"] = func() error { _, err := r.ToolsStatus(); return err }()
	for name, err := range closed {
		if !errors.Is(err, toolregistry.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// Disable records a reason the model and ToolsStatus see; SetEnabled(true) clears it. Schemas
// by name come in the order asked, disabled ones included.
func TestDisableStatusAndSchemasByName(t *testing.T) {
	r := newRegistry(t)
	if err := r.RegisterFunc(toolregistry.Tool{Name: "list", Namespace: "files", Description: "List files.",
		Metadata: toolregistry.Metadata{Tags: []string{"read_only"}}}, echo("files-list")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(toolregistry.Tool{Name: "mail", Description: "Send mail.",
		Metadata: toolregistry.Metadata{Defer: true}}); err != nil {
		t.Fatal(err)
	}
	if err := r.Disable("files", "disk offline"); err != nil {
		t.Fatal(err)
	}
	status, err := r.ToolsStatus()
	if err != nil {
		t.Fatal(err)
	}
	want := []toolregistry.ToolStatus{
		{Name: "files-list", Namespace: "files", Enabled: false, Reason: "disk offline", Tags: []string{"read_only"}, Callable: true},
		{Name: "mail", Deferred: true, Enabled: true, Tags: []string{}, Callable: false},
	}
	if fmt.Sprintf("%+v", status) != fmt.Sprintf("%+v", want) {
		t.Fatalf("status\n got  %+v\n want %+v", status, want)
	}
	res := execChat(t, r, nil, chatCall("c1", "files-list", "{}"))
	if res[0].Content != `Error: tool "files-list" is disabled: disk offline` {
		t.Errorf("disabled call: %q", res[0].Content)
	}

	// A fallback makes the definition-only tool callable.
	if err := r.SetFallback(func(name string, args json.RawMessage) (string, error) { return "routed " + name, nil }); err != nil {
		t.Fatal(err)
	}
	if status, _ = r.ToolsStatus(); !status[1].Callable {
		t.Errorf("mail with a fallback: %+v", status[1])
	}

	schemas, err := r.Schemas(toolregistry.SchemaOptions{Names: []string{"mail", "files-list"}, APIFormat: toolregistry.Anthropic})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaNames(t, schemas); fmt.Sprint(got) != "[mail files-list]" {
		t.Errorf("schemas by name: %v", got)
	}
	if schemas, err = r.Schemas(toolregistry.SchemaOptions{Names: []string{}}); err != nil || len(schemas) != 0 {
		t.Errorf("an empty name list selects nothing: %d schemas, %v", len(schemas), err)
	}

	if err := r.SetEnabled("files", true); err != nil {
		t.Fatal(err)
	}
	if status, _ = r.ToolsStatus(); !status[0].Enabled || status[0].Reason != "" {
		t.Errorf("enabled again: %+v", status[0])
	}
	res = execChat(t, r, nil, chatCall("c1", "files-list", "{}"), chatCall("c2", "mail", "{}"))
	if res[0].Content != "files-list <- {}" || res[1].Content != "routed mail" {
		t.Errorf("after enabling: %+v", res)
	}
	// An empty reason records none.
	if err := r.Disable("mail", ""); err != nil {
		t.Fatal(err)
	}
	if status, _ = r.ToolsStatus(); status[1].Enabled || status[1].Reason != "" {
		t.Errorf("disabled without a reason: %+v", status[1])
	}
}

func schemaNames(t testing.TB, schemas []json.RawMessage) []string {
	t.Helper()
	out := make([]string, len(schemas))
	for i, s := range schemas {
		var v struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(s, &v); err != nil {
			t.Fatal(err)
		}
		out[i] = v.Name
	}
	return out
}
