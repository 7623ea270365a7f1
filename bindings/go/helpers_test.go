package toolregistry

import (
	"encoding/json"
	"errors"
	"testing"
)

// newTestRegistry returns a registry that is closed when the test ends.
func newTestRegistry(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	r, err := NewRegistry(opts...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// sampleTools: two core tools, two deferred ones (one namespaced), with tags and a hint.
func sampleTools() []Tool {
	return []Tool{
		{
			Name:        "read_file",
			Description: "Read a file from disk. Returns its text.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			Metadata:    Metadata{Tags: []string{"read_only", "file_system"}},
		},
		{
			Name:        "send_email",
			Description: "Send an email to a recipient. Uses SMTP.",
			Parameters: map[string]any{
				"type":       "object",
				"properties": map[string]any{"to": map[string]any{"type": "string"}, "body": map[string]any{"type": "string"}},
			},
			Metadata: Metadata{Defer: true, Tags: []string{"network"}, SearchHint: "mail message smtp"},
		},
		{
			Name:        "list_issues",
			Namespace:   "github",
			Description: "List the issues of a repository!",
			Metadata:    Metadata{Defer: true, Tags: []string{"network", "read_only"}},
		},
		{
			Name:        "convert_currency",
			Description: "Convert an amount between currencies",
		},
	}
}

func names(results []Result) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = r.Name
	}
	return out
}

func schemaNames(t testing.TB, schemas []json.RawMessage) []string {
	t.Helper()
	out := make([]string, len(schemas))
	for i, s := range schemas {
		var v struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(s, &v); err != nil {
			t.Fatalf("schema %d: %v", i, err)
		}
		out[i] = v.Name
		if out[i] == "" {
			out[i] = v.Function.Name
		}
	}
	return out
}

// wantCode fails unless err is an *Error with the given code, matching its sentinel and carrying
// a one-line message.
func wantCode(t testing.TB, err error, sentinel *Error) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %v, got nil", sentinel)
	}
	if !errors.Is(err, sentinel) {
		t.Fatalf("want %v, got %v", sentinel, err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != sentinel.Code || e.Message == "" {
		t.Fatalf("want *Error with code %v and a message, got %#v", sentinel.Code, err)
	}
}
