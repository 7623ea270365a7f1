// Command trdiscover answers one discovery query over a catalog through the Go binding and prints
// the hits as JSON, one line: [{"name", "score", "namespace", "deferred"}]. It exists so the
// answers of the Go binding can be compared side by side with the Rust CLI and the other
// bindings.
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

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

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
}

func run(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("trdiscover", flag.ContinueOnError)
	catalog := flags.String("catalog", "", "JSON file with the tools (required)")
	topK := flags.Int("top-k", 10, "number of hits")
	profile := flags.String("profile", "", `ranking profile: "reference" (default) or "enhanced"`)
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *catalog == "" || flags.NArg() == 0 {
		return fmt.Errorf("usage: trdiscover -catalog FILE [-top-k N] [-profile P] QUERY")
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
		hits[i] = hit{r.Name, r.Score, r.Namespace, r.Deferred}
	}
	return json.NewEncoder(stdout).Encode(hits)
}
