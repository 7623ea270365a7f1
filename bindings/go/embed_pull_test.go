package toolregistry_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// keywordVector is a toy embedding: one axis per topic.
func keywordVector(text string) []float32 {
	v := make([]float32, 4)
	switch {
	case strings.Contains(text, "weather"):
		v[0] = 1
	case strings.Contains(text, "email"):
		v[1] = 1
	case strings.Contains(text, "stock"):
		v[2] = 1
	default:
		v[3] = 1
	}
	return v
}

func pullRegistry(t *testing.T) *toolregistry.Registry {
	t.Helper()
	r := newRegistry(t)
	if err := r.SetPullEmbedder(4, toolregistry.WithIdentity("toy:4")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(
		toolregistry.Tool{Name: "get_weather", Description: "Current weather for a city."},
		toolregistry.Tool{Name: "send_email", Description: "Send an email to recipients."},
		toolregistry.Tool{Name: "stock_price", Description: "Latest stock price of a ticker."},
	); err != nil {
		t.Fatal(err)
	}
	return r
}

// takeAll takes jobs until n are in hand: the embedding thread queues them a moment after a change.
func takeAll(t *testing.T, r *toolregistry.Registry, n int) []toolregistry.EmbeddingJob {
	t.Helper()
	var jobs []toolregistry.EmbeddingJob
	deadline := time.Now().Add(10 * time.Second)
	for len(jobs) < n && time.Now().Before(deadline) {
		more, err := r.TakeEmbeddingJobs(0)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, more...)
		time.Sleep(time.Millisecond)
	}
	if len(jobs) != n {
		t.Fatalf("%d jobs, want %d: %+v", len(jobs), n, jobs)
	}
	return jobs
}

func toyEmbed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		out[i] = keywordVector(text)
	}
	return out, ctx.Err()
}

// EmbedPending embeds every waiting tool with an async-style function, and a discover with the
// query's own vector ranks by it.
func TestEmbedPendingAndQueryVector(t *testing.T) {
	r := pullRegistry(t)
	status, err := r.EmbeddingStatus()
	if err != nil {
		t.Fatal(err)
	}
	if status == nil || status.Pending != 3 || status.Ready != 0 {
		t.Fatalf("before: %+v", status)
	}
	n, err := r.EmbedPending(context.Background(), toyEmbed)
	if err != nil || n != 3 {
		t.Fatalf("EmbedPending: %d texts, %v", n, err)
	}
	if status, _ = r.EmbeddingStatus(); status.Ready != 3 || status.Pending != 0 || status.Embedder != "toy:4" {
		t.Fatalf("after: %+v", status)
	}
	if jobs, err := r.TakeEmbeddingJobs(0); err != nil || len(jobs) != 0 {
		t.Fatalf("jobs left: %v %v", jobs, err)
	}
	d, err := r.NewDiscoverer(toolregistry.DiscoveryOptions{Profile: toolregistry.ProfileHybrid})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// No word of the query is in any tool: only the vector can rank.
	hits, err := d.DiscoverWith("quarterly figures", toolregistry.DiscoverRequest{TopK: 3, QueryVector: keywordVector("stock")})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "stock_price" {
		t.Errorf("hits %v", hitNames(hits))
	}
	// Without a query vector a pull embedder ranks by words, without asking anyone.
	hits, err = d.DiscoverWith("send an email", toolregistry.DiscoverRequest{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "send_email" {
		t.Errorf("by words: %v", hitNames(hits))
	}
	// A query vector of the wrong length is refused.
	if _, err = d.DiscoverWith("x", toolregistry.DiscoverRequest{QueryVector: []float32{1, 0}}); !errors.Is(err, toolregistry.ErrInvalidArgument) {
		t.Errorf("a query vector of 2 numbers: %v", err)
	}
}

func hitNames(results []toolregistry.Result) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = r.Name
	}
	return out
}

// Vectors the library refuses are ErrInvalidArgument and apply nothing; a stale id is ignored;
// a function that panics marks its batch failed (found by words) and never escapes; a done ctx
// stops EmbedPending before it takes anything.
func TestEmbedPendingFailures(t *testing.T) {
	r := pullRegistry(t)
	jobs := takeAll(t, r, 3)
	good := func(j toolregistry.EmbeddingJob) toolregistry.EmbeddingResult {
		return toolregistry.EmbeddingResult{ID: j.ID, Vector: keywordVector(j.Text)}
	}
	for what, bad := range map[string][]float32{
		"wrong length": {1, 0},
		"all zeros":    {0, 0, 0, 0},
		"NaN":          {float32(math.NaN()), 0, 0, 1},
		"infinity":     {float32(math.Inf(1)), 0, 0, 1},
	} {
		err := r.PutEmbeddings([]toolregistry.EmbeddingResult{good(jobs[0]), {ID: jobs[1].ID, Vector: bad}})
		if !errors.Is(err, toolregistry.ErrInvalidArgument) {
			t.Errorf("%s: %v", what, err)
		}
	}
	if err := r.PutEmbeddings([]toolregistry.EmbeddingResult{{ID: 1 << 40, Vector: []float32{1, 0, 0, 0}}}); err != nil {
		t.Errorf("stale id: %v", err)
	}
	if status, _ := r.EmbeddingStatus(); status.Ready != 0 || status.Pending != 3 {
		t.Errorf("refused puts applied something: %+v", status)
	}
	// Nothing was applied, so every job is still open and takes its vector now.
	if err := r.PutEmbeddings([]toolregistry.EmbeddingResult{good(jobs[2]), good(jobs[0]), good(jobs[1])}); err != nil {
		t.Fatal(err)
	}
	if done, err := r.WaitEmbeddings(10 * time.Second); !done || err != nil {
		t.Fatalf("wait: %v %v", done, err)
	}
	if status, _ := r.EmbeddingStatus(); status.Ready != 3 {
		t.Errorf("after the good put: %+v", status)
	}

	// A changed tool waits again; a panicking function fails its batch.
	if _, err := r.Register(toolregistry.Tool{Name: "send_email", Description: "Send an email, now with attachments."}); err != nil {
		t.Fatal(err)
	}
	n, err := r.EmbedPending(context.Background(), func(context.Context, []string) ([][]float32, error) { panic("model crashed") })
	if err != nil || n != 0 {
		t.Fatalf("panicking embedder: %d, %v", n, err)
	}
	status, _ := r.EmbeddingStatus()
	if status.Ready != 2 || status.Failed != 1 || status.Pending != 0 {
		t.Errorf("status %+v", status)
	}
	found := false
	for _, w := range status.Warnings {
		found = found || strings.Contains(w, "panicked")
	}
	if !found {
		t.Errorf("no warning names the panic: %v", status.Warnings)
	}

	// A done ctx takes nothing and calls nothing: the changed tool keeps waiting.
	if _, err := r.Register(toolregistry.Tool{Name: "stock_price", Description: "Latest stock price, delayed."}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n, err = r.EmbedPending(ctx, func(context.Context, []string) ([][]float32, error) { t.Error("called"); return nil, nil })
	if !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("cancelled: %d, %v", n, err)
	}
	if status, _ = r.EmbeddingStatus(); status.Pending != 1 {
		t.Errorf("after a cancelled pump: %+v", status)
	}
	if n, err = r.EmbedPending(context.Background(), toyEmbed); n != 1 || err != nil {
		t.Errorf("then: %d, %v", n, err)
	}
}
