package toolregistry

import (
	"encoding/json"
	"fmt"
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

// hostFunc is what a cgo.Handle given to the C side as user data points to: one of the two
// functions, and the counter of its registry.
type hostFunc struct {
	tool     HostFunc
	fallback FallbackFunc
	counter  *hostCounter
}

// hostCounter counts the host functions of one registry the C side holds: a handle is created
// for every registration attempt and deleted when the library frees the user data, which the
// C contract says happens exactly once. The tests read it to see every handle released.
//
// It is its own object, not a field of Registry, so that a handle in the global handle table
// never keeps the Registry reachable (its GC cleanup could then never run).
type hostCounter struct {
	created  atomic.Int64
	released atomic.Int64
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
func (h *hostFunc) run(name string, args json.RawMessage) (out hostOutcome) {
	defer func() {
		if p := recover(); p != nil {
			out = hostOutcome{failed: true, failure: `the host function of "` + name + `" panicked: ` + fmt.Sprint(p)}
		}
	}()
	return h.call(name, args)
}

// call runs the function and turns its error into a failure.
func (h *hostFunc) call(name string, args json.RawMessage) hostOutcome {
	var content string
	var err error
	if h.tool != nil {
		content, err = h.tool(args)
	} else {
		content, err = h.fallback(name, args)
	}
	if err != nil {
		return hostOutcome{failed: true, failure: err.Error()}
	}
	return hostOutcome{content: content}
}
