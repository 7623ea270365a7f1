package toolregistry

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// The pull embedder: the registry asks no callback for vectors; the host takes the texts that
// need one (TakeEmbeddingJobs), computes them however it likes (an HTTP embedding API, a GPU
// queue) and puts them back (PutEmbeddings). EmbedPending does both with an EmbedContextFunc.
// Queries bring their own vector: DiscoverRequest.QueryVector.

// EmbedContextFunc embeds a batch of texts for EmbedPending: one vector of the embedder's
// dimension per text, in order. It runs on the goroutine of EmbedPending, with its ctx.
type EmbedContextFunc func(ctx context.Context, texts []string) ([][]float32, error)

// EmbeddingJob is one text that needs a vector, from TakeEmbeddingJobs.
type EmbeddingJob struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
}

// EmbeddingResult is the host's answer to one EmbeddingJob: Vector (dim numbers, not all
// zero, finite), or Error when the host could not embed it (the tool is then found by words).
type EmbeddingResult struct {
	ID     int64
	Vector []float32
	Error  string
}

// MarshalJSON writes the shape tr_registry_put_embeddings reads.
func (e EmbeddingResult) MarshalJSON() ([]byte, error) {
	if e.Error != "" || e.Vector == nil {
		msg := e.Error
		if msg == "" {
			msg = "no vector"
		}
		return json.Marshal(struct {
			ID    int64  `json:"id"`
			Error string `json:"error"`
		}{e.ID, msg})
	}
	return json.Marshal(struct {
		ID     int64     `json:"id"`
		Vector []float32 `json:"vector"`
	}{e.ID, e.Vector})
}

// SetPullEmbedder makes the host the registry's embedder, pulled: tools wait for vectors that
// the host puts back with PutEmbeddings (or EmbedPending), and a ProfileHybrid discover ranks
// with DiscoverRequest.QueryVector, or by words without one. It replaces any embedder set
// before; WithIdentity and WithCachePath work as for SetEmbedder.
func (r *Registry) SetPullEmbedder(dim int, opts ...EmbedderOption) error {
	o := embedderOptions{Dim: dim}
	for _, opt := range opts {
		opt(&o)
	}
	doc, err := json.Marshal(struct {
		embedderOptions
		Pull bool `json:"pull"`
	}{o, true})
	if err != nil {
		return fmt.Errorf("toolregistry: encoding embedder options: %w", err)
	}
	options, err := cJSON("options", doc)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error { return nativeSetPullEmbedder(h, options) })
}

// TakeEmbeddingJobs returns up to max texts waiting for a vector (max 0 means 64); none when
// nothing waits.
func (r *Registry) TakeEmbeddingJobs(max int) ([]EmbeddingJob, error) {
	if max < 0 {
		return nil, &Error{Code: CodeInvalidArgument, Message: fmt.Sprintf("max: %d is negative", max)}
	}
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeTakeEmbeddingJobs(h, max)
		return err
	}); err != nil {
		return nil, err
	}
	var jobs []EmbeddingJob
	if err := json.Unmarshal(out, &jobs); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding embedding jobs: %w", err)
	}
	return jobs, nil
}

// PutEmbeddings hands vectors (or failures) back, all or none: a vector of the wrong length, or
// all zeros, is ErrInvalidArgument and nothing is applied. Ids that went stale (the tool
// changed or went) are ignored.
func (r *Registry) PutEmbeddings(results []EmbeddingResult) error {
	if results == nil {
		results = []EmbeddingResult{}
	}
	doc, err := json.Marshal(results)
	if err != nil {
		// NaN or an infinity: JSON has no spelling for them.
		return &Error{Code: CodeInvalidArgument, Message: "vector: " + err.Error()}
	}
	in, err := cJSON("results", doc)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error { return nativePutEmbeddings(h, in) })
}

// EmbedPending embeds every text waiting for a vector with fn, batch by batch (up to 64 texts),
// until no enabled tool waits (EmbeddingStatus().Pending is 0), and returns how many texts got a
// vector. The registry's embedding thread queues texts a moment after a change, so it polls
// every few milliseconds while tools wait and nothing is offered yet. A batch fn fails on (an
// error, a panic, a wrong number of vectors) is put back as failed (those tools are found by
// words) and the next goes on; a batch the library refuses (a vector of the wrong length, NaN,
// all zeros) returns that error. When ctx is done it returns ctx.Err(); a batch in hand is then
// put back first (vectors, or failed).
func (r *Registry) EmbedPending(ctx context.Context, fn EmbedContextFunc) (int, error) {
	if fn == nil {
		return 0, &Error{Code: CodeNullArgument, Message: "fn: nil EmbedContextFunc"}
	}
	embedded := 0
	for {
		if err := ctx.Err(); err != nil {
			return embedded, err
		}
		jobs, err := r.TakeEmbeddingJobs(0)
		if err != nil {
			return embedded, err
		}
		if len(jobs) == 0 {
			status, err := r.EmbeddingStatus()
			if err != nil || status == nil || status.Pending == 0 {
				return embedded, err
			}
			select {
			case <-ctx.Done():
				return embedded, ctx.Err()
			case <-time.After(2 * time.Millisecond):
			}
			continue
		}
		texts := make([]string, len(jobs))
		for i, j := range jobs {
			texts[i] = j.Text
		}
		vectors, embedErr := callEmbed(ctx, fn, texts)
		results := make([]EmbeddingResult, len(jobs))
		for i, j := range jobs {
			results[i] = EmbeddingResult{ID: j.ID}
			if embedErr != nil {
				results[i].Error = embedErr.Error()
			} else {
				results[i].Vector = vectors[i]
			}
		}
		if err := r.PutEmbeddings(results); err != nil {
			return embedded, err
		}
		if embedErr == nil {
			embedded += len(jobs)
		}
	}
}

// callEmbed runs fn, recovering a panic and checking the number of vectors.
func callEmbed(ctx context.Context, fn EmbedContextFunc, texts []string) (vectors [][]float32, err error) {
	defer func() {
		if p := recover(); p != nil {
			vectors, err = nil, fmt.Errorf("the embedder panicked: %v", p)
		}
	}()
	vectors, err = fn(ctx, texts)
	if err == nil && len(vectors) != len(texts) {
		err = fmt.Errorf("the embedder returned %d vectors for %d texts", len(vectors), len(texts))
	}
	return vectors, err
}
