package toolregistry_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// wantHandles checks a registry's host-function handles: how many were ever handed to C, and
// how many the library still holds.
func wantHandles(t testing.TB, c toolregistry.HostCounter, created, live int64) {
	t.Helper()
	if c.Created() != created || c.Live() != live {
		t.Fatalf("handles: created %d, live %d; want created %d, live %d", c.Created(), c.Live(), created, live)
	}
}

// Every handle given to C is released exactly once: on replace, unregister, failed
// registration, fallback replace and removal, and Close; never while its call is running.
func TestHandlesReleasedExactlyOnce(t *testing.T) {
	r := newRegistry(t)
	if err := r.EnableDiscovery(toolregistry.DiscoveryOptions{}); err != nil {
		t.Fatal(err)
	}
	c := toolregistry.HostFuncCounter(r)
	wantHandles(t, c, 0, 0)

	if err := r.RegisterFunc(echoTool("a"), echo("a")); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, 1, 1)
	if err := r.RegisterFunc(echoTool("a"), func(json.RawMessage) (string, error) { return "second", nil }); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, 2, 1)
	if res := execChat(t, r, nil, chatCall("c1", "a", "{}")); res[0].Content != "second" {
		t.Fatalf("the replacement runs: %q", res[0].Content)
	}

	// Failed registrations: the library releases the handle before returning.
	failures := map[string][]byte{
		"bad name":       []byte(`{"name": "bad name"}`),
		"reserved name":  []byte(`{"name": "discover_tools"}`),
		"two tools":      []byte(`[{"name": "x"}, {"name": "y"}]`),
		"invalid JSON":   []byte(`{"name": `),
		"bad parameters": []byte(`{"name": "x", "parameters": 5}`),
	}
	created := int64(2)
	for what, doc := range failures {
		if _, err := r.RegisterFuncJSON(doc, echo("x")); err == nil {
			t.Fatalf("%s: registered", what)
		}
		created++
		wantHandles(t, c, created, 1)
	}
	// Refused in Go before any handle exists.
	if _, err := r.RegisterFuncJSON([]byte("{\"name\": \"x\x00\"}"), echo("x")); !errors.Is(err, toolregistry.ErrInvalidJSON) {
		t.Fatalf("NUL in the tool: %v", err)
	}
	wantHandles(t, c, created, 1)

	if err := r.Unregister("a"); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, created, 0)

	fallback := func(answer string) toolregistry.FallbackFunc {
		return func(name string, _ json.RawMessage) (string, error) { return answer + " " + name, nil }
	}
	if _, err := r.Register(toolregistry.Tool{Name: "remote"}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetFallback(fallback("first")); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, created+1, 1)
	if err := r.SetFallback(fallback("second")); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, created+2, 1)
	if res := execChat(t, r, nil, chatCall("c1", "remote", "{}")); res[0].Content != "second remote" {
		t.Fatalf("the new fallback runs: %q", res[0].Content)
	}
	if err := r.SetFallback(nil); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, created+2, 0)
	if res := execChat(t, r, nil, chatCall("c1", "remote", "{}")); !strings.HasPrefix(res[0].Content, "Error: ") {
		t.Fatalf("without a fallback: %q", res[0].Content)
	}
	if err := r.SetFallback(nil); err != nil {
		t.Fatal("removing no fallback:", err)
	}

	// Close releases what is left: a tool's function and the fallback.
	if err := r.RegisterFunc(echoTool("b"), echo("b")); err != nil {
		t.Fatal(err)
	}
	if err := r.SetFallback(fallback("last")); err != nil {
		t.Fatal(err)
	}
	wantHandles(t, c, created+4, 2)
	r.Close()
	wantHandles(t, c, created+4, 0)
	if c.Released() != c.Created() {
		t.Fatalf("released %d of %d", c.Released(), c.Created())
	}
}

// A function that unregisters or replaces its own tool keeps its handle until its call ends.
func TestHandleOutlivesItsRunningCall(t *testing.T) {
	r := newRegistry(t)
	c := toolregistry.HostFuncCounter(r)
	var liveDuringCall int64
	err := r.RegisterFunc(echoTool("self"), func(json.RawMessage) (string, error) {
		if err := r.Unregister("self"); err != nil {
			return "", err
		}
		liveDuringCall = c.Live()
		return "still here", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := execChat(t, r, nil, chatCall("c1", "self", "{}"))
	if res[0].Content != "still here" || liveDuringCall != 1 {
		t.Fatalf("%q, %d live during the call", res[0].Content, liveDuringCall)
	}
	wantHandles(t, c, 1, 0)

	err = r.RegisterFunc(echoTool("swap"), func(json.RawMessage) (string, error) {
		err := r.RegisterFunc(echoTool("swap"), func(json.RawMessage) (string, error) { return "new", nil })
		liveDuringCall = c.Live()
		return "old", err
	})
	if err != nil {
		t.Fatal(err)
	}
	res = execChat(t, r, nil, chatCall("c1", "swap", "{}"), chatCall("c2", "swap", "{}"))
	if res[0].Content != "old" || res[1].Content != "new" || liveDuringCall != 2 {
		t.Fatalf("%+v, %d live during the call", res, liveDuringCall)
	}
	wantHandles(t, c, 3, 1)

	// Close from inside a host function: the registry is freed when Execute returns.
	err = r.RegisterFunc(echoTool("closer"), func(json.RawMessage) (string, error) {
		r.Close()
		_, err := r.ToolsStatus()
		return fmt.Sprint(errors.Is(err, toolregistry.ErrClosed)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res = execChat(t, r, nil, chatCall("c1", "closer", "{}")); res[0].Content != "true" {
		t.Fatalf("closed inside a call: %q", res[0].Content)
	}
	wantHandles(t, c, 4, 0)
}

// A registry nobody closes is collected with its host functions released.
func TestCleanupReleasesHostFuncs(t *testing.T) {
	var c toolregistry.HostCounter
	func() {
		r, err := toolregistry.NewRegistry()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.RegisterFunc(echoTool("a"), echo("a")); err != nil {
			t.Fatal(err)
		}
		if err := r.SetFallback(func(string, json.RawMessage) (string, error) { return "", nil }); err != nil {
			t.Fatal(err)
		}
		c = toolregistry.HostFuncCounter(r)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for c.Live() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d host functions still live", c.Live())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	wantHandles(t, c, 2, 0)
}

// withTimeout fails the test instead of hanging when f deadlocks.
func withTimeout(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("no answer after %v: deadlock?", d)
	}
}

// Host functions that register a tool and run discover_tools and Execute on the registry that
// runs them, sequentially and in parallel: no deadlock, and the new tools are there after.
func TestReentrantHostFuncs(t *testing.T) {
	for _, parallel := range []int{1, 4} {
		t.Run(fmt.Sprintf("parallel=%d", parallel), func(t *testing.T) {
			r := newRegistry(t)
			if err := r.EnableDiscovery(toolregistry.DiscoveryOptions{}); err != nil {
				t.Fatal(err)
			}
			installer := toolregistry.Tool{
				Name:        "installer",
				Description: "Installs a gadget.",
				Parameters:  json.RawMessage(`{"type":"object","properties":{"gadget":{"type":"string"}},"required":["gadget"]}`),
			}
			err := r.RegisterFunc(installer, func(args json.RawMessage) (string, error) {
				var a struct{ Gadget string }
				if err := json.Unmarshal(args, &a); err != nil {
					return "", err
				}
				tool := toolregistry.Tool{Name: a.Gadget, Description: "Polishes " + a.Gadget + " gadgets.",
					Metadata: toolregistry.Metadata{Defer: true}}
				if err := r.RegisterFunc(tool, echo(a.Gadget)); err != nil {
					return "", err
				}
				hits, err := r.Call("discover_tools", map[string]any{"query": a.Gadget})
				if err != nil {
					return "", err
				}
				var found []toolregistry.Result
				if err := json.Unmarshal(hits, &found); err != nil || len(found) == 0 {
					return "", fmt.Errorf("discover %s: %s", a.Gadget, hits)
				}
				out, err := r.Execute(chatBatch(t, chatCall("inner", a.Gadget, "{}")), &toolregistry.ExecuteOptions{Parallel: parallel})
				var inner []chatResult
				if err == nil {
					err = json.Unmarshal(out, &inner)
				}
				if err != nil || len(inner) != 1 {
					return "", fmt.Errorf("inner execute: %v: %s", err, out)
				}
				return found[0].Name + " | " + inner[0].Content, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var calls []map[string]any
			for i := range 6 {
				calls = append(calls, chatCall(fmt.Sprint("c", i), "installer", fmt.Sprintf(`{"gadget": "gadget_%d"}`, i)))
			}
			var res []chatResult
			withTimeout(t, 60*time.Second, func() {
				res = execChat(t, r, &toolregistry.ExecuteOptions{Parallel: parallel}, calls...)
			})
			for i, got := range res {
				name := fmt.Sprint("gadget_", i)
				if want := name + " | " + name + " <- {}"; got.Content != want {
					t.Errorf("call %d: %q, want %q", i, got.Content, want)
				}
			}
			for i := range 6 {
				hits, err := r.Call("discover_tools", map[string]any{"query": fmt.Sprint("gadget_", i)})
				if err != nil || !strings.Contains(string(hits), fmt.Sprintf(`"name":"gadget_%d"`, i)) {
					t.Errorf("gadget_%d not found afterwards: %s %v", i, hits, err)
				}
			}
		})
	}
}

// With Parallel N the library runs host functions on several goroutines at once (two calls
// meet inside their functions); a tool that is not concurrency safe always runs alone.
func TestParallelCallbacks(t *testing.T) {
	r := newRegistry(t)
	var arrived atomic.Int32
	err := r.RegisterFunc(echoTool("meet"), func(json.RawMessage) (string, error) {
		arrived.Add(1)
		deadline := time.Now().Add(20 * time.Second)
		for arrived.Load() < 2 {
			if time.Now().After(deadline) {
				return "", errors.New("alone")
			}
			time.Sleep(time.Millisecond)
		}
		return "met", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := execChat(t, r, &toolregistry.ExecuteOptions{Parallel: 2}, chatCall("c1", "meet", "{}"), chatCall("c2", "meet", "{}"))
	if res[0].Content != "met" || res[1].Content != "met" {
		t.Fatalf("parallel calls did not overlap: %+v", res)
	}

	var inFlight, exclusiveRunning atomic.Int32
	var mu sync.Mutex
	var violations []string
	note := func(format string, args ...any) {
		mu.Lock()
		violations = append(violations, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	shared := func(name string) toolregistry.HostFunc {
		return func(args json.RawMessage) (string, error) {
			inFlight.Add(1)
			defer inFlight.Add(-1)
			if exclusiveRunning.Load() != 0 {
				note("%s ran beside the exclusive tool", name)
			}
			time.Sleep(2 * time.Millisecond)
			return name + " <- " + string(args), nil
		}
	}
	exclusive := echoTool("exclusive")
	exclusive.Metadata.ConcurrencySafe = toolregistry.Ptr(false)
	err = r.RegisterFunc(exclusive, func(args json.RawMessage) (string, error) {
		exclusiveRunning.Add(1)
		defer exclusiveRunning.Add(-1)
		if n := inFlight.Load(); n != 0 {
			note("exclusive ran beside %d calls", n)
		}
		time.Sleep(2 * time.Millisecond)
		return "exclusive <- " + string(args), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterFunc(echoTool("shared"), shared("shared")); err != nil {
		t.Fatal(err)
	}
	var calls []map[string]any
	for i := range 16 {
		name := "shared"
		if i%5 == 2 {
			name = "exclusive"
		}
		calls = append(calls, chatCall(fmt.Sprint("c", i), name, fmt.Sprintf(`{"n":%d}`, i)))
	}
	res = execChat(t, r, &toolregistry.ExecuteOptions{Parallel: 4}, calls...)
	for i, got := range res {
		name := calls[i]["function"].(map[string]any)["name"]
		if want := fmt.Sprintf(`%s <- {"n":%d}`, name, i); got.Content != want || got.ToolCallID != fmt.Sprint("c", i) {
			t.Errorf("result %d: %+v, want %q", i, got, want)
		}
	}
	for _, v := range violations {
		t.Error(v)
	}
}

// 8 goroutines execute batches in parallel mode while 2 register and unregister tools (and
// swap the fallback): no crash, every result belongs to its call, every handle released.
func TestExecuteStress(t *testing.T) {
	r := newRegistry(t)
	c := toolregistry.HostFuncCounter(r)
	const stable = 4
	for i := range stable {
		name := fmt.Sprint("echo_", i)
		if err := r.RegisterFunc(echoTool(name), echo(name)); err != nil {
			t.Fatal(err)
		}
	}
	const executors, mutators, rounds, batch = 8, 2, 25, 6
	var wg sync.WaitGroup
	errs := make(chan error, executors+mutators)
	stop := make(chan struct{})
	var mutatorsWG sync.WaitGroup
	for m := range mutators {
		mutatorsWG.Add(1)
		go func() {
			defer mutatorsWG.Done()
			name := fmt.Sprint("churn_", m)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				steps := []func() error{
					func() error { return r.RegisterFunc(echoTool(name), echo(name)) },
					func() error {
						return r.SetFallback(func(n string, _ json.RawMessage) (string, error) { return "fallback " + n, nil })
					},
					func() error { return r.Unregister(name) },
				}
				if err := steps[i%len(steps)](); err != nil {
					errs <- fmt.Errorf("mutator %d: %w", m, err)
					return
				}
			}
		}()
	}
	for g := range executors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				var calls []map[string]any
				for k := range batch {
					calls = append(calls, chatCall(fmt.Sprintf("e%d_%d_%d", g, i, k), fmt.Sprint("echo_", k%stable),
						fmt.Sprintf(`{"n":%d}`, (g*rounds+i)*batch+k)))
				}
				churn := fmt.Sprint("churn_", g%mutators)
				calls = append(calls, chatCall(fmt.Sprintf("e%d_%d_churn", g, i), churn, "{}"))
				out, err := r.Execute(chatBatch(t, calls...), &toolregistry.ExecuteOptions{Parallel: 4})
				if err != nil {
					errs <- err
					return
				}
				var res []chatResult
				if err := json.Unmarshal(out, &res); err != nil || len(res) != len(calls) {
					errs <- fmt.Errorf("executor %d: %v: %s", g, err, out)
					return
				}
				for k := range batch {
					want := fmt.Sprintf(`echo_%d <- {"n":%d}`, k%stable, (g*rounds+i)*batch+k)
					if res[k].Content != want || res[k].ToolCallID != calls[k]["id"] {
						errs <- fmt.Errorf("executor %d: result %d is %+v, want %q for %s", g, k, res[k], want, calls[k]["id"])
						return
					}
				}
				last := res[batch].Content
				if last != churn+" <- {}" && last != "fallback "+churn && !strings.HasPrefix(last, "Error: ") {
					errs <- fmt.Errorf("executor %d: churn call answered %q", g, last)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	mutatorsWG.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	r.Close()
	if c.Live() != 0 || c.Released() != c.Created() {
		t.Fatalf("after Close: created %d, released %d", c.Created(), c.Released())
	}
}
