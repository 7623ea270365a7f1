package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "tools.json")
	tools := `{"tools": [
		{"name": "convert_currency", "description": "Convert an amount between currencies.", "inputSchema": {"type": "object", "properties": {"amount": {"type": "number"}}}},
		{"name": "get_weather", "description": "Current weather for a city."}
	]}`
	if err := os.WriteFile(catalog, []byte(tools), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-catalog", catalog, "-top-k", "3", "convert", "currency"}, &out); err != nil {
		t.Fatal(err)
	}
	var hits []hit
	if err := json.Unmarshal(out.Bytes(), &hits); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(hits) != 1 || hits[0].Name != "convert_currency" || hits[0].Score <= 0 {
		t.Fatalf("hits: %s", out.String())
	}
	if err := run([]string{"-catalog", catalog}, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("a missing query must print usage: %v", err)
	}
	if err := run([]string{"-catalog", filepath.Join(dir, "missing.json"), "q"}, &out); err == nil {
		t.Fatal("a missing catalog must fail")
	}
}
