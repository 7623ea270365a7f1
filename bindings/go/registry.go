package toolregistry

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// freedByCleanup counts handles freed by the garbage collector's cleanup rather than Close, so
// the tests can see the safety net work.
var freedByCleanup atomic.Int64

// Registry holds tool definitions, their metadata and enabled state, and the search index.
//
// Create one with NewRegistry and Close it when done. All methods are safe for concurrent use.
type Registry struct {
	// mu guards handle, active and closing. Every call into C counts itself in active, and the
	// handle is freed once it is closing and no call is active: by Close when none is, else by
	// the last call to end. Nothing blocks on a call in flight, so a host function may use, or
	// Close, the registry that runs it. The engine does its own locking for the rest.
	mu      sync.Mutex
	handle  registryHandle
	active  int
	closing bool
	cleanup runtime.Cleanup
	// hosts counts the Go host functions the C side holds, for the tests.
	hosts *hostCounter
}

// Option configures NewRegistry.
type Option func(*registryOptions)

type registryOptions struct {
	Discovery *DiscoveryOptions `json:"discovery,omitempty"`
	Embedding *EmbeddingOptions `json:"embedding,omitempty"`
}

// WithDiscovery enables the built-in discover_tools at once, as EnableDiscovery would.
func WithDiscovery(opts DiscoveryOptions) Option {
	return func(o *registryOptions) { o.Discovery = &opts }
}

// NewRegistry creates an empty registry.
func NewRegistry(opts ...Option) (*Registry, error) {
	var o registryOptions
	for _, opt := range opts {
		opt(&o)
	}
	var options []byte
	if o.Discovery != nil || o.Embedding != nil {
		doc, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("toolregistry: encoding options: %w", err)
		}
		if options, err = cJSON("options", doc); err != nil {
			return nil, err
		}
	}
	h, err := nativeRegistryNew(options)
	if err != nil {
		return nil, err
	}
	r := &Registry{handle: h, hosts: &hostCounter{}}
	r.cleanup = runtime.AddCleanup(r, cleanupRegistry, h)
	return r, nil
}

// Close frees the registry and releases its host functions. It is safe to call more than once
// and always returns nil; afterwards every method returns ErrClosed. Calls in flight finish
// first: when there are any, the last of them to return frees the registry, so Close never
// waits and may be called from a host function too. Discoverers created from the registry keep
// working.
func (r *Registry) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closing = true
	r.freeIfIdle()
	return nil
}

// freeIfIdle frees the handle of a closing registry with no call in flight; r.mu is held.
func (r *Registry) freeIfIdle() {
	if r.closing && r.active == 0 && r.handle != nil {
		r.cleanup.Stop()
		nativeRegistryFree(r.handle)
		r.handle = nil
	}
}

// use runs f on the live handle, counted as a call in flight, or returns ErrClosed.
func (r *Registry) use(f func(h registryHandle) error) error {
	r.mu.Lock()
	if r.handle == nil || r.closing {
		r.mu.Unlock()
		return ErrClosed
	}
	h := r.handle
	r.active++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.active--
		r.freeIfIdle()
		r.mu.Unlock()
	}()
	return f(h)
}

// Register adds tools, all or none; a name already registered is replaced in place. It returns
// the registered names (namespace-qualified where a Namespace is set).
func (r *Registry) Register(tools ...Tool) ([]string, error) {
	doc, err := json.Marshal(tools)
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding tools: %w", err)
	}
	return r.RegisterJSON(doc)
}

// RegisterJSON registers one tool object or an array of them, in any shape the engine accepts:
// flat {"name", "description", "parameters"}, OpenAI chat {"type": "function", "function": {...}},
// OpenAI responses, Anthropic {"input_schema"} or MCP {"inputSchema"}, each with optional
// "namespace" and "metadata": {"defer", "tags", "search_hint"}. An array is all or nothing.
func (r *Registry) RegisterJSON(toolsJSON []byte) ([]string, error) {
	in, err := cJSON("tools", toolsJSON)
	if err != nil {
		return nil, err
	}
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeRegister(h, in)
		return err
	}); err != nil {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal(out, &names); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding registered names: %w", err)
	}
	return names, nil
}

// Unregister removes a tool by its registered name; ErrNotFound if there is none.
func (r *Registry) Unregister(name string) error {
	n, err := cText("name", name)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error { return nativeUnregister(h, n) })
}

// SetMetadata changes the fields of update that are set; ErrNotFound for an unknown tool.
func (r *Registry) SetMetadata(name string, update MetadataUpdate) error {
	n, err := cText("name", name)
	if err != nil {
		return err
	}
	doc, err := json.Marshal(update)
	if err != nil {
		return fmt.Errorf("toolregistry: encoding metadata: %w", err)
	}
	m, err := cJSON("metadata", doc)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error { return nativeSetMetadata(h, n, m) })
}

// SetEnabled shows or hides a tool, or every tool of a namespace. Hidden tools are left out of
// schemas, summaries and discovery and keep their place for when they return.
func (r *Registry) SetEnabled(name string, enabled bool) error {
	n, err := cText("name", name)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error { return nativeSetEnabled(h, n, enabled) })
}

// Schemas returns the schemas of the enabled tools sorted by name, each ready to send to the
// model in the requested format (discover_tools and call_deferred included when discovery is
// on); with opts.Names, those tools in that order. With opts.Strict it returns the tools of
// StrictSchemas' answer, where a tool that cannot be strict comes non-strict: call
// StrictSchemas to learn which.
func (r *Registry) Schemas(opts SchemaOptions) ([]json.RawMessage, error) {
	if opts.Strict {
		set, err := r.StrictSchemas(opts)
		if err != nil {
			return nil, err
		}
		return set.Tools, nil
	}
	out, err := r.schemasJSON(opts)
	if err != nil {
		return nil, err
	}
	var schemas []json.RawMessage
	if err := json.Unmarshal(out, &schemas); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding schemas: %w", err)
	}
	return schemas, nil
}

// schemasJSON is tr_registry_get_schemas' answer for opts.
func (r *Registry) schemasJSON(opts SchemaOptions) ([]byte, error) {
	doc, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding schema options: %w", err)
	}
	in, err := cJSON("options", doc)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = r.use(func(h registryHandle) (err error) {
		out, err = nativeSchemas(h, in)
		return err
	})
	return out, err
}

// DeferredSummaries lists the enabled deferred tools in registration order, one sentence each,
// for the system prompt.
func (r *Registry) DeferredSummaries() ([]Summary, error) {
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeDeferredSummaries(h)
		return err
	}); err != nil {
		return nil, err
	}
	var summaries []Summary
	if err := json.Unmarshal(out, &summaries); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding summaries: %w", err)
	}
	return summaries, nil
}

// EnableDiscovery registers the built-in discover_tools with these ranking options; calling it
// again replaces the options.
func (r *Registry) EnableDiscovery(opts DiscoveryOptions) error {
	in, err := discoveryOptionsJSON(opts)
	if err != nil {
		return err
	}
	return r.use(func(h registryHandle) error { return nativeEnableDiscovery(h, in) })
}

// Call runs a built-in tool as the model's tool call asked and returns its JSON answer. args is
// the arguments object: a json.RawMessage or []byte is sent as is, anything else is encoded with
// encoding/json, nil as {}. For discover_tools that is {"query", "top_k"?, "api_format"?} and the
// answer decodes into []Result.
func (r *Registry) Call(name string, args any) (json.RawMessage, error) {
	n, err := cText("tool name", name)
	if err != nil {
		return nil, err
	}
	var doc []byte
	switch a := args.(type) {
	case nil:
		doc = []byte("{}")
	case json.RawMessage:
		doc = a
	case []byte:
		doc = a
	default:
		if doc, err = json.Marshal(args); err != nil {
			return nil, fmt.Errorf("toolregistry: encoding arguments: %w", err)
		}
	}
	in, err := cJSON("arguments", doc)
	if err != nil {
		return nil, err
	}
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeCall(h, n, in)
		return err
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// NewDiscoverer creates a Discoverer on this registry with its own ranking options. It follows
// the registry's changes by itself and stays usable after the registry is closed.
func (r *Registry) NewDiscoverer(opts DiscoveryOptions) (*Discoverer, error) {
	in, err := discoveryOptionsJSON(opts)
	if err != nil {
		return nil, err
	}
	var h discovererHandle
	if err := r.use(func(rh registryHandle) (err error) {
		h, err = nativeDiscovererNew(rh, in)
		return err
	}); err != nil {
		return nil, err
	}
	d := &Discoverer{handle: h}
	d.cleanup = runtime.AddCleanup(d, cleanupDiscoverer, h)
	return d, nil
}

// cleanupRegistry frees a registry the program forgot to Close.
func cleanupRegistry(h registryHandle) {
	nativeRegistryFree(h)
	freedByCleanup.Add(1)
}

func discoveryOptionsJSON(opts DiscoveryOptions) ([]byte, error) {
	doc, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding discovery options: %w", err)
	}
	return cJSON("options", doc)
}
