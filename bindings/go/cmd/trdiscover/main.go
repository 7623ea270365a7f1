// Command trdiscover answers one discovery query over a catalog through the Go binding and prints
// the hits as JSON, one line: [{"name", "score", "namespace", "deferred", "intent"?,
// "brought_in"?}]. It exists so the answers of the Go binding can be compared side by side with the
// Rust CLI and the other bindings. -usage records tasks first (one JSON array of names a line), so
// hits may be brought in by the tools they are used with.
//
//	go run ./cmd/trdiscover -catalog ../../data/bfcl/catalog.json -top-k 5 "convert currency"
//
// The catalog is a JSON array of tools in any shape the engine accepts, or an MCP tools/list
// result ({"tools": [...]}).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// fakeEmbed is the fake embedder every language of the cross-language check implements alike:
// dim 64; words split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit, 1.0 at hash % 64;
// all zeros -> [1, 0, ...].
func fakeEmbed(texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, 64)
		h, inWord, any := uint32(2166136261), false, false
		for j := 0; j <= len(text); j++ {
			c := byte(0)
			if j < len(text) {
				c = text[j]
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				h = (h ^ uint32(c)) * 16777619
				inWord = true
			} else if inWord {
				v[h%64]++
				any, inWord, h = true, false, 2166136261
			}
		}
		if !any {
			v[0] = 1
		}
		out[i] = v
	}
	return out, nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "trdiscover:", err)
		os.Exit(1)
	}
}

type hit struct {
	Name      string  `json:"name"`
	Score     float64 `json:"score"`
	Namespace string  `json:"namespace,omitempty"`
	Deferred  bool    `json:"deferred"`
	Intent    string  `json:"intent,omitempty"`
	BroughtIn string  `json:"brought_in,omitempty"`
}

func run(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("trdiscover", flag.ContinueOnError)
	catalog := flags.String("catalog", "", "JSON file with the tools (required)")
	topK := flags.Int("top-k", 10, "number of hits")
	profile := flags.String("profile", "", `ranking profile: "reference" (default), "enhanced" or "hybrid" (with the fake embedder)`)
	usage := flags.String("usage", "", "tasks to record before the query: one JSON array of tool names a line")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *catalog == "" || flags.NArg() == 0 {
		return fmt.Errorf("usage: trdiscover -catalog FILE [-top-k N] [-profile P] [-usage TASKS] QUERY")
	}
	query := strings.Join(flags.Args(), " ")
	doc, err := os.ReadFile(*catalog)
	if err != nil {
		return err
	}
	if trimmed := bytes.TrimSpace(doc); len(trimmed) > 0 && trimmed[0] == '{' {
		var listing struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(trimmed, &listing); err == nil && listing.Tools != nil {
			doc = listing.Tools
		}
	}

	reg, err := toolregistry.NewRegistry()
	if err != nil {
		return err
	}
	defer reg.Close()
	if _, err := reg.RegisterJSON(doc); err != nil {
		return fmt.Errorf("%s: %w", *catalog, err)
	}
	if *profile == string(toolregistry.ProfileHybrid) {
		if err := reg.SetEmbedder(64, fakeEmbed); err != nil {
			return err
		}
		if done, err := reg.WaitEmbeddings(2 * time.Minute); err != nil || !done {
			return fmt.Errorf("embedding the catalog: done %v, %v", done, err)
		}
	}
	for _, task := range strings.Split(*usage, "\n") {
		if strings.TrimSpace(task) == "" {
			continue
		}
		if _, err := reg.RecordUsageJSON([]byte(task)); err != nil {
			return fmt.Errorf("usage %s: %w", task, err)
		}
	}
	finder, err := reg.NewDiscoverer(toolregistry.DiscoveryOptions{Profile: toolregistry.Profile(*profile)})
	if err != nil {
		return err
	}
	defer finder.Close()
	results, err := finder.Discover(query, *topK)
	if err != nil {
		return err
	}
	hits := make([]hit, len(results))
	for i, r := range results {
		hits[i] = hit{r.Name, r.Score, r.Namespace, r.Deferred, r.Intent, r.BroughtIn}
	}
	return json.NewEncoder(stdout).Encode(hits)
}
