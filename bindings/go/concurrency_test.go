package toolregistry

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"testing"
)

// Goroutines discover (through a Discoverer and through discover_tools) while others register,
// change and unregister tools. Every answer must be well-formed, and once the churn is undone the
// answers must equal those from before it.
func TestConcurrentDiscoverWhileRegistering(t *testing.T) {
	r := newTestRegistry(t, WithDiscovery(DiscoveryOptions{}))
	tools := sampleTools()
	for i := range 40 {
		tools = append(tools, Tool{
			Name:        fmt.Sprintf("stable_tool_%d", i),
			Description: fmt.Sprintf("Stable tool %d handles %s records.", i, []string{"invoice", "calendar", "photo", "weather"}[i%4]),
		})
	}
	if _, err := r.Register(tools...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	queries := []string{"send an email", "calendar records", "read a file", "weather photo", "convert currency"}
	baseline := map[string][]Result{}
	for _, q := range queries {
		if baseline[q], err = d.Discover(q, 10); err != nil {
			t.Fatal(err)
		}
	}

	const writers, readers, rounds = 2, 6, 200
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				name := fmt.Sprintf("churn_%d_%d", w, i)
				steps := []func() error{
					func() error {
						_, err := r.Register(Tool{Name: name, Description: "Temporary email and calendar helper.", Namespace: ""})
						return err
					},
					func() error { return r.SetMetadata(name, MetadataUpdate{Defer: Ptr(true), Tags: []string{"network"}}) },
					func() error { return r.SetEnabled(name, false) },
					func() error { return r.SetEnabled(name, true) },
					func() error { return r.Unregister(name) },
				}
				for _, step := range steps {
					if err := step(); err != nil {
						errs <- fmt.Errorf("writer %d %s: %w", w, name, err)
						return
					}
				}
			}
		}()
	}
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds * 2 {
				q := queries[(g+i)%len(queries)]
				var res []Result
				var err error
				switch g % 3 {
				case 0:
					res, err = d.Discover(q, 10)
				case 1:
					var out json.RawMessage
					if out, err = r.Call("discover_tools", map[string]any{"query": q, "top_k": 10}); err == nil {
						err = json.Unmarshal(out, &res)
					}
				default:
					if res, err = d.Discover("send_email", 3); err == nil && (len(res) != 1 || res[0].Score != 1.0) {
						err = fmt.Errorf("exact match changed under churn: %+v", res)
					}
					if err == nil {
						_, err = r.DeferredSummaries()
					}
				}
				if err == nil && len(res) == 0 {
					err = fmt.Errorf("no answer for %q", q)
				}
				for j := 1; err == nil && j < len(res); j++ {
					if res[j].Score > res[j-1].Score {
						err = fmt.Errorf("%q not best first: %+v", q, res)
					}
				}
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", g, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, q := range queries {
		got, err := d.Discover(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if msg := compareResults(baseline[q], got); msg != "" {
			t.Errorf("%q after churn: %s", q, msg)
		}
	}
}

// compareResults is "" when the two answers agree (names and order exactly, scores to 1e-9).
func compareResults(want, got []Result) string {
	if fmt.Sprint(names(want)) != fmt.Sprint(names(got)) {
		return fmt.Sprintf("names %v, want %v", names(got), names(want))
	}
	for i := range want {
		if !closeEnough(want[i].Score, got[i].Score) {
			return fmt.Sprintf("rank %d %s: score %v, want %v", i, want[i].Name, got[i].Score, want[i].Score)
		}
	}
	return ""
}

func closeEnough(want, got float64) bool {
	return math.Abs(want-got) <= 1e-9*math.Max(math.Abs(want), math.Abs(got))
}
