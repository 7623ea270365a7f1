package toolregistry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// goldenDir is ../shared/golden beside the repository (../../../shared/golden from this package),
// or TOOLREGISTRY_GOLDEN_DIR.
func goldenDir() string {
	if dir := os.Getenv("TOOLREGISTRY_GOLDEN_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "..", "shared", "golden")
}

type goldenTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Namespace   string          `json:"namespace"`
	Defer       bool            `json:"defer"`
	Tags        []string        `json:"tags"`
	SearchHint  string          `json:"search_hint"`
}

type goldenMetadata struct {
	Defer      *bool    `json:"defer"`
	Tags       []string `json:"tags"`
	SearchHint *string  `json:"search_hint"`
}

type goldenHit struct {
	Name      string  `json:"name"`
	Score     float64 `json:"score"`
	Namespace *string `json:"namespace"`
	Deferred  bool    `json:"deferred"`
	HasSchema bool    `json:"has_schema"`
}

type goldenStep struct {
	Op       string         `json:"op"`
	Tool     goldenTool     `json:"tool"`
	Name     string         `json:"name"`
	Metadata goldenMetadata `json:"metadata"`
	Query    string         `json:"query"`
	TopK     int            `json:"top_k"`
	Expect   *[]goldenHit   `json:"expect"`
}

// The recorded answers of the Python reference, every scenario file replayed through this
// binding: each discover step is asked both through discover_tools (Registry.Call) and through a
// Discoverer, and both must match.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goldenDir(), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, p := range paths {
		files[filepath.Base(p)] = true
	}
	for _, required := range []string{"seed_examples.json", "cjk.json", "dynamics.json", "bfcl_defaults.json"} {
		if !files[required] {
			t.Fatalf("golden vectors missing in %s (set TOOLREGISTRY_GOLDEN_DIR): no %s", goldenDir(), required)
		}
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checked := replayGolden(t, data)
			if checked == 0 {
				t.Fatal("no discover steps checked")
			}
			t.Logf("%d discover answers checked", checked)
		})
	}
}

func replayGolden(t *testing.T, data []byte) int {
	t.Helper()
	var doc struct {
		Steps []json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	r := newTestRegistry(t)
	var d *Discoverer
	defer func() {
		if d != nil {
			d.Close()
		}
	}()
	checked, failures := 0, 0
	for i, raw := range doc.Steps {
		var step goldenStep
		if err := json.Unmarshal(raw, &step); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var err error
		switch step.Op {
		case "register":
			gt := step.Tool
			_, err = r.Register(Tool{
				Name:        gt.Name,
				Description: gt.Description,
				Parameters:  gt.Parameters,
				Namespace:   gt.Namespace,
				Metadata:    Metadata{Defer: gt.Defer, Tags: gt.Tags, SearchHint: gt.SearchHint},
			})
		case "unregister":
			err = r.Unregister(step.Name)
		case "disable", "enable":
			err = r.SetEnabled(step.Name, step.Op == "enable")
		case "set_metadata":
			m := step.Metadata
			err = r.SetMetadata(step.Name, MetadataUpdate{Defer: m.Defer, Tags: m.Tags, SearchHint: m.SearchHint})
		case "enable_discovery":
			var opts DiscoveryOptions // the step's option keys are DiscoveryOptions' JSON names
			if err = json.Unmarshal(raw, &opts); err != nil {
				break
			}
			// The golden vectors are the reference's answers; the default profile is enhanced.
			opts.Profile = ProfileReference
			if err = r.EnableDiscovery(opts); err != nil {
				break
			}
			if d != nil {
				d.Close()
			}
			d, err = r.NewDiscoverer(opts)
		case "discover":
			checked++
			if msg := checkGoldenDiscover(r, d, step); msg != "" {
				failures++
				if failures <= 10 {
					t.Errorf("step %d query %q: %s", i, step.Query, msg)
				}
			}
		default:
			t.Fatalf("step %d: unknown op %q", i, step.Op)
		}
		if err != nil {
			t.Fatalf("step %d %s: %v", i, step.Op, err)
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d discover answers differ", failures, checked)
	}
	return checked
}

// checkGoldenDiscover asks both ways and returns "" when both match the recorded answer.
func checkGoldenDiscover(r *Registry, d *Discoverer, step goldenStep) string {
	var viaCall []Result
	out, callErr := r.Call("discover_tools", map[string]any{"query": step.Query, "top_k": step.TopK})
	if callErr == nil {
		if err := json.Unmarshal(out, &viaCall); err != nil {
			return err.Error()
		}
	}
	viaDiscoverer, discErr := d.Discover(step.Query, step.TopK)
	for _, got := range []struct {
		how string
		res []Result
		err error
	}{{"discover_tools", viaCall, callErr}, {"Discoverer", viaDiscoverer, discErr}} {
		if step.Expect == nil {
			if !errors.Is(got.err, ErrInvalidArgument) {
				return fmt.Sprintf("%s: want ErrInvalidArgument, got %v", got.how, got.err)
			}
			continue
		}
		if got.err != nil {
			return fmt.Sprintf("%s: %v", got.how, got.err)
		}
		if msg := compareGolden(*step.Expect, got.res); msg != "" {
			return got.how + ": " + msg
		}
	}
	return ""
}

func compareGolden(want []goldenHit, got []Result) string {
	wantNames := make([]string, len(want))
	for i, h := range want {
		wantNames[i] = h.Name
	}
	if fmt.Sprint(wantNames) != fmt.Sprint(names(got)) {
		return fmt.Sprintf("names %v, want %v", names(got), wantNames)
	}
	for i, w := range want {
		g := got[i]
		if !closeEnough(w.Score, g.Score) {
			return fmt.Sprintf("rank %d %s: score %.17g, want %.17g", i, w.Name, g.Score, w.Score)
		}
		ns := ""
		if w.Namespace != nil {
			ns = *w.Namespace
		}
		if g.Namespace != ns || g.Deferred != w.Deferred {
			return fmt.Sprintf("rank %d %s: namespace %q deferred %v, want %q %v", i, w.Name, g.Namespace, g.Deferred, ns, w.Deferred)
		}
		if (g.Schema != nil) != w.HasSchema {
			return fmt.Sprintf("rank %d %s: schema present %v, want %v", i, w.Name, g.Schema != nil, w.HasSchema)
		}
	}
	return ""
}
