package toolregistry

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
)

// Discoverer finds tools of a registry by exact name or natural-language query, with its own
// ranking options. It sees every change to the registry at once, and keeps the registry's tools
// alive after Registry.Close. All methods are safe for concurrent use; searches run in parallel.
type Discoverer struct {
	mu      sync.RWMutex // as in Registry: shared for calls, exclusive for Close
	handle  discovererHandle
	cleanup runtime.Cleanup
}

// Close frees the discoverer. It waits for calls in flight, is safe to call more than once, and
// always returns nil.
func (d *Discoverer) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.handle != nil {
		d.cleanup.Stop()
		nativeDiscovererFree(d.handle)
		d.handle = nil
	}
	return nil
}

func (d *Discoverer) use(f func(h discovererHandle) error) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.handle == nil {
		return ErrClosed
	}
	err := f(d.handle)
	runtime.KeepAlive(d)
	return err
}

// cleanupDiscoverer frees a discoverer the program forgot to Close.
func cleanupDiscoverer(h discovererHandle) {
	nativeDiscovererFree(h)
	freedByCleanup.Add(1)
}

// Discover returns up to topK tools for query, best first. A query equal to a tool's name
// (ignoring case, with "-" and "/" read as "_") returns that tool alone with score 1.0 and its
// schema. An empty query or topK < 1 is ErrInvalidArgument. Schemas come in the OpenAI chat
// format; see DiscoverFormat.
func (d *Discoverer) Discover(query string, topK int) ([]Result, error) {
	return d.DiscoverFormat(query, topK, "")
}

// DiscoverFormat is Discover with the result schemas rendered in format.
func (d *Discoverer) DiscoverFormat(query string, topK int, format APIFormat) ([]Result, error) {
	return decodeResultsOf(d.discoverJSON(query, topK, format))
}

// DiscoverWith is Discover with every per-call option: filters that choose the tools before
// ranking (Namespaces, Tags, Deferred), TopK (0: 10), the schema format, strict mode and a token
// budget (MaxTokens). A query "select:a,b,c" returns those tools by exact name, in that order,
// with their schemas.
func (d *Discoverer) DiscoverWith(query string, req DiscoverRequest) ([]Result, error) {
	return decodeResultsOf(d.DiscoverJSON(query, req))
}

// decodeResults decodes a discover answer, passing on the call's error.
func decodeResultsOf(out []byte, err error) ([]Result, error) {
	if err != nil {
		return nil, err
	}
	var results []Result
	if err := json.Unmarshal(out, &results); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding results: %w", err)
	}
	return results, nil
}

// DiscoverJSON is DiscoverWith's answer as the library's JSON text, undecoded:
// [{"name", "description", "score", "namespace", "deferred", "intent"?, "schema"?, "warning"?}]. Its size
// is what DiscoverRequest.MaxTokens counts (bytes / 4, rounded up).
func (d *Discoverer) DiscoverJSON(query string, req DiscoverRequest) ([]byte, error) {
	q, err := cText("query", query)
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding discover options: %w", err)
	}
	opts, err := cJSON("options", doc)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = d.use(func(h discovererHandle) (err error) {
		out, err = nativeDiscover(h, q, opts)
		return err
	})
	return out, err
}

func (d *Discoverer) discoverJSON(query string, topK int, format APIFormat) ([]byte, error) {
	q, err := cText("query", query)
	if err != nil {
		return nil, err
	}
	opts, err := discoverOptionsJSON(topK, format)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = d.use(func(h discovererHandle) (err error) {
		out, err = nativeDiscover(h, q, opts)
		return err
	})
	return out, err
}

// Explain tells how query ranks the tool toolName among the first topK hits, or why it is not
// among them: the analyzed query tokens with the filter's verdicts, and the tool's score taken
// apart per token and per field. It runs the same analysis and scoring as Discover, so the two
// always agree. ErrNotFound when no tool of that name is registered.
func (d *Discoverer) Explain(query, toolName string, topK int) (*Explanation, error) {
	q, err := cText("query", query)
	if err != nil {
		return nil, err
	}
	n, err := cText("tool name", toolName)
	if err != nil {
		return nil, err
	}
	opts, err := discoverOptionsJSON(topK, "")
	if err != nil {
		return nil, err
	}
	var out []byte
	if err := d.use(func(h discovererHandle) (err error) {
		out, err = nativeExplain(h, q, n, opts)
		return err
	}); err != nil {
		return nil, err
	}
	var e Explanation
	if err := json.Unmarshal(out, &e); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding explanation: %w", err)
	}
	return &e, nil
}

func discoverOptionsJSON(topK int, format APIFormat) ([]byte, error) {
	doc, err := json.Marshal(struct {
		TopK      int       `json:"top_k"`
		APIFormat APIFormat `json:"api_format,omitempty"`
	}{topK, format})
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding discover options: %w", err)
	}
	return cJSON("options", doc)
}

// RebuildIndex rebuilds the search index from the registry. It is never needed (the index is
// kept up to date incrementally) and changes no answer.
func (d *Discoverer) RebuildIndex() error {
	return d.use(nativeRebuildIndex)
}
