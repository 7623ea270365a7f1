package toolregistry

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// EmbedFunc embeds a batch of texts: one vector of the embedder's dimension per text, in order
// (the library normalizes them to unit length). An embedding API, an ONNX model, anything.
//
// The library calls it on its own embedding thread for the catalog (batches of up to 64) and on
// the goroutine of a discover that ranks with ProfileHybrid for the query, possibly at the same
// time. It may call any method of the registry. An error, a panic (recovered), a wrong number
// of vectors or a vector of the wrong length fails that batch only: its tools stay findable by
// words and EmbeddingStatus counts them as failed, with a warning. Like a HostFunc it must not
// call runtime.Goexit (t.Fatal, t.FailNow).
type EmbedFunc func(texts []string) ([][]float32, error)

// EmbedderOption configures SetEmbedder.
type EmbedderOption func(*embedderOptions)

type embedderOptions struct {
	Dim       int    `json:"dim"`
	Identity  string `json:"identity,omitempty"`
	CachePath string `json:"cache_path,omitempty"`
}

// WithIdentity names the embedder's model for the vector cache (default "host:<dim>"): vectors
// cached under another identity are never used.
func WithIdentity(identity string) EmbedderOption {
	return func(o *embedderOptions) { o.Identity = identity }
}

// WithCachePath keeps text-hash -> vector in this file across restarts, so a registry started
// again with the same catalog embeds nothing; a corrupt or foreign file is ignored and rewritten.
func WithCachePath(path string) EmbedderOption {
	return func(o *embedderOptions) { o.CachePath = path }
}

// EmbeddingOptions loads the built-in sentence encoder (WithEmbedding).
type EmbeddingOptions struct {
	// ModelDir is a sentence-transformers model directory (model.safetensors, tokenizer.json,
	// config.json).
	ModelDir string `json:"model_dir"`
	// CachePath, if set, keeps the vectors across restarts.
	CachePath string `json:"cache_path,omitempty"`
	// Threads caps the threads that embed the catalog (0: all cores).
	Threads int `json:"threads,omitempty"`
}

// WithEmbedding loads the built-in local encoder; the registry then ranks with ProfileHybrid
// unless the discovery options name another profile. A missing or corrupt model is an error of
// NewRegistry.
func WithEmbedding(opts EmbeddingOptions) Option {
	return func(o *registryOptions) { o.Embedding = &opts }
}

// EmbeddingStatus is what the registry's embedder has done, from Registry.EmbeddingStatus.
type EmbeddingStatus struct {
	// Embedder is the embedder's identity.
	Embedder string `json:"embedder"`
	Dim      int    `json:"dim"`
	// Ready counts enabled tools with their vector, Pending those waiting for it.
	Ready   int `json:"ready"`
	Pending int `json:"pending"`
	// Failed counts tools the embedder failed on: found by words until their text changes.
	Failed int `json:"failed"`
	// Embedded counts vectors computed since the embedder was set (the others came from the cache).
	Embedded int `json:"embedded"`
	// Warnings are the last ones: a cache file ignored, a batch that failed.
	Warnings []string `json:"warnings"`
}

// EmbeddingState is a tool's vector in ToolStatus.Embedding.
type EmbeddingState string

// The states of a tool's vector; "" when the registry has no embedder.
const (
	EmbeddingReady   EmbeddingState = "ready"
	EmbeddingPending EmbeddingState = "pending"
	EmbeddingFailed  EmbeddingState = "failed"
	EmbeddingNone    EmbeddingState = "none"
)

// HybridExplanation is each side of a ProfileHybrid ranking for the explained tool; the pointers
// are nil where the tool was not among that side's candidates.
type HybridExplanation struct {
	LexicalScore *float64 `json:"lexical_score"`
	LexicalRank  *int     `json:"lexical_rank"`
	Cosine       *float64 `json:"cosine"`
	SemanticRank *int     `json:"semantic_rank"`
	FusedScore   *float64 `json:"fused_score"`
	FusedRank    *int     `json:"fused_rank"`
	// PhraseScore is what the query's phrases in the tool's text added to its words score.
	PhraseScore *float64 `json:"phrase_score"`
	// Embedded says whether the tool had its vector.
	Embedded bool `json:"embedded"`
	// Note says why a side is missing, "" otherwise.
	Note string `json:"note"`
}

// embedder is what the cgo handle given to C as an embedder's user data points to.
type embedder struct {
	fn      EmbedFunc
	dim     int
	counter *hostCounter
}

// run calls the function, checks the answer's shape and recovers a panic, so that nothing
// unwinds into C; the vectors go into out (len(texts)*dim).
func (e *embedder) run(texts []string, out []float32) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the embedder panicked: %v", p)
		}
	}()
	vectors, err := e.fn(texts)
	if err != nil {
		return err
	}
	if len(vectors) != len(texts) {
		return fmt.Errorf("the embedder returned %d vectors for %d texts", len(vectors), len(texts))
	}
	for i, v := range vectors {
		if len(v) != e.dim {
			return fmt.Errorf("the embedder returned a vector of %d numbers, expected %d", len(v), e.dim)
		}
		copy(out[i*e.dim:], v)
	}
	return nil
}

// SetEmbedder gives the registry a host embedder of vectors of dim numbers; the registry then
// ranks with ProfileHybrid unless the discovery options name another profile. It replaces any
// embedder set before (released once no call of it runs), and every enabled tool is embedded
// again in the background: discovers never wait for it (see WaitEmbeddings).
func (r *Registry) SetEmbedder(dim int, fn EmbedFunc, opts ...EmbedderOption) error {
	if fn == nil {
		return &Error{Code: CodeNullArgument, Message: "fn: nil EmbedFunc"}
	}
	o := embedderOptions{Dim: dim}
	for _, opt := range opts {
		opt(&o)
	}
	doc, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("toolregistry: encoding embedder options: %w", err)
	}
	options, err := cJSON("options", doc)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error {
		return nativeSetEmbedder(h, options, &embedder{fn: fn, dim: dim, counter: r.hosts})
	})
}

// WaitEmbeddings waits up to timeout for every enabled tool to have its vector (or to have
// failed) and reports whether none is left waiting; true at once without an embedder.
// Discovers never need it: a tool not embedded yet is found by words.
func (r *Registry) WaitEmbeddings(timeout time.Duration) (bool, error) {
	ms := uint64(0)
	if timeout > 0 {
		ms = uint64(math.Ceil(float64(timeout) / float64(time.Millisecond)))
	}
	var done bool
	err := r.use(func(h registryHandle) (err error) {
		done, err = nativeWaitEmbeddings(h, ms)
		return err
	})
	return done, err
}

// EmbeddingStatus is what the registry's embedder has done; nil without an embedder.
func (r *Registry) EmbeddingStatus() (*EmbeddingStatus, error) {
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeEmbeddingStatus(h)
		return err
	}); err != nil {
		return nil, err
	}
	var status *EmbeddingStatus
	if err := json.Unmarshal(out, &status); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding embedding status: %w", err)
	}
	return status, nil
}
