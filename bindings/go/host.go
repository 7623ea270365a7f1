package toolregistry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// HostFunc runs the calls of one tool: it gets the call's arguments (compact JSON of an object,
// already checked against the tool's schema) and returns the text the model sees, or an error
// whose Error() text the model gets as an error result.
//
// It may run on any goroutine, and with ExecuteOptions.Parallel above 1 on several at once. It may
// call any method of the registry that runs it (register, discover, execute, even Close). A panic
// is recovered and becomes the error result `the host function of "NAME" panicked: VALUE`. It
// must not call runtime.Goexit (t.Fatal, t.FailNow): the Go runtime makes that fatal in a cgo
// callback.
type HostFunc func(args json.RawMessage) (string, error)

// FallbackFunc runs the calls of registered tools that have no HostFunc of their own, by name
// (a gateway routing to MCP servers, say). Same rules as HostFunc.
type FallbackFunc func(name string, args json.RawMessage) (string, error)

// ContextFunc runs the calls of a tool (or, as a fallback, of any tool) and honours ctx: it gets
// the tool's registered name and the call's arguments (compact JSON of an object, already checked
// against the tool's schema) and returns the text the model sees, or an error whose Error() text
// the model gets as an error result.
//
// ExecuteContext runs it on a goroutine of its own, concurrently with the batch's other calls
// (a tool whose metadata says ConcurrencySafe false runs alone), with the ctx given to
// ExecuteContext; Execute runs it with context.Background(). A panic is recovered and becomes
// the error result `the host function of "NAME" panicked: VALUE`. It may call any method of the
// registry that runs it.
type ContextFunc func(ctx context.Context, name string, args json.RawMessage) (string, error)

// hostFunc is what a cgo.Handle given to the C side as user data points to: one of the three
// functions, and the counter of its registry.
type hostFunc struct {
	tool     HostFunc
	fallback FallbackFunc
	withCtx  ContextFunc
	counter  *hostCounter
	// name is the registered name, "" for a fallback; released is set by trGoHostRelease. Both
	// are guarded by counter.mu.
	name     string
	released bool
}

// hostCounter counts the host functions of one registry the C side holds: a handle is created
// for every registration attempt and deleted when the library frees the user data, which the
// C contract says happens exactly once. The tests read it to see every handle released.
//
// It is its own object, not a field of Registry, so that a handle in the global handle table
// never keeps the Registry reachable (its GC cleanup could then never run).
//
// It also indexes the live functions by registered name, for ExecuteContext, which runs the
// calls of a plan itself: an entry is added once the library accepted the registration and
// removed when the library releases the function (unregistered, replaced, registry freed), so
// the index never names a function the library no longer holds.
type hostCounter struct {
	created  atomic.Int64
	released atomic.Int64

	mu       sync.Mutex
	byName   map[string]*hostFunc
	fallback *hostFunc
}

// index records f under name (or as the fallback when name is ""), unless the library has
// already released it (replaced by a concurrent registration).
func (c *hostCounter) index(f *hostFunc, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.released {
		return
	}
	if name == "" {
		c.fallback = f
		return
	}
	f.name = name
	if c.byName == nil {
		c.byName = make(map[string]*hostFunc)
	}
	c.byName[name] = f
}

// forget drops f from the index: the library released it.
func (c *hostCounter) forget(f *hostFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f.released = true
	if f.name != "" && c.byName[f.name] == f {
		delete(c.byName, f.name)
	}
	if c.fallback == f {
		c.fallback = nil
	}
}

// lookup is the function that runs calls of the tool registered as name: its own, else the
// fallback; nil when there is none.
func (c *hostCounter) lookup(name string) *hostFunc {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.byName[name]; f != nil {
		return f
	}
	return c.fallback
}

// live is the number of host functions not yet released.
func (c *hostCounter) live() int64 { return c.created.Load() - c.released.Load() }

// hostOutcome is what a host function gave: content, or a failure message for the model.
type hostOutcome struct {
	content string
	failure string
	failed  bool
}

// run calls the function and recovers a panic into a failure, so that nothing unwinds into C.
//
// It runs on the goroutine of the cgo callback, which the runtime locks to the calling thread:
// handing the call to another goroutine costs a thread switch per call (tried, it made
// BenchmarkExecute10Calls about ten times slower). The price is that
// runtime.Goexit (t.FailNow, t.Fatal) inside a host function is fatal, as in any cgo callback.
func (h *hostFunc) run(ctx context.Context, name string, args json.RawMessage) (out hostOutcome) {
	defer func() {
		if p := recover(); p != nil {
			out = hostOutcome{failed: true, failure: `the host function of "` + name + `" panicked: ` + fmt.Sprint(p)}
		}
	}()
	return h.call(ctx, name, args)
}

// call runs the function and turns its error into a failure.
func (h *hostFunc) call(ctx context.Context, name string, args json.RawMessage) hostOutcome {
	var content string
	var err error
	switch {
	case h.withCtx != nil:
		content, err = h.withCtx(ctx, name, args)
	case h.tool != nil:
		content, err = h.tool(args)
	default:
		content, err = h.fallback(name, args)
	}
	if err != nil {
		return hostOutcome{failed: true, failure: err.Error()}
	}
	return hostOutcome{content: content}
}

// checkNUL fails an outcome whose content holds a NUL byte: C would cut the text short there.
func (o hostOutcome) checkNUL(name string) hostOutcome {
	if !o.failed {
		if i := strings.IndexByte(o.content, 0); i >= 0 {
			return hostOutcome{failed: true, failure: fmt.Sprintf(`the host function of "%s" returned text with a NUL byte at offset %d`, name, i)}
		}
	}
	return o
}
