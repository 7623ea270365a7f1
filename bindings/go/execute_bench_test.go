package toolregistry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// tenCalls is a registry with one instant Go host function whose schema has 10 properties, and
// a batch of 10 calls of it.
func tenCalls(b *testing.B) (*toolregistry.Registry, []byte) {
	r, err := toolregistry.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	props := make([]string, 10)
	args := make([]string, 10)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d": {"type": "string"}`, i)
		args[i] = fmt.Sprintf(`\"p%d\": \"value %d\"`, i, i)
	}
	tool := toolregistry.Tool{Name: "fast", Description: "Returns at once.",
		Parameters: json.RawMessage(`{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`)}
	if err := r.RegisterFunc(tool, func(json.RawMessage) (string, error) { return "ok", nil }); err != nil {
		b.Fatal(err)
	}
	calls := make([]string, 10)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"id": "c%d", "type": "function", "function": {"name": "fast", "arguments": "{%s}"}}`, i, strings.Join(args, ", "))
	}
	batch := []byte(`[` + strings.Join(calls, ", ") + `]`)
	out, err := r.Execute(batch, nil)
	if err != nil || strings.Contains(string(out), "Error") {
		b.Fatalf("%v: %s", err, out)
	}
	return r, batch
}

// A batch of 10 calls to a Go host function that returns at once, arguments checked against a
// 10-property schema: the cost per call of Execute through cgo, trampoline included.
//
//	go test -run '^$' -bench Execute -benchtime 2000x
func BenchmarkExecute10Calls(b *testing.B) {
	r, batch := tenCalls(b)
	b.ResetTimer()
	for range b.N {
		if _, err := r.Execute(batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10), "ns/call")
}

// Eight calls whose ContextFuncs each wait 100 ms (a timer standing for an HTTP call):
// through ExecuteContext they run at once, so a batch takes about 100 ms, not 800.
//
//	go test -run '^$' -bench ExecuteContext8 -benchtime 20x
func BenchmarkExecuteContext8Calls100ms(b *testing.B) {
	r, err := toolregistry.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	tool := toolregistry.Tool{Name: "slow", Description: "Waits 100 ms.", Parameters: json.RawMessage(`{"type": "object"}`)}
	if err := r.RegisterContextFunc(tool, func(ctx context.Context, _ string, _ json.RawMessage) (string, error) {
		select {
		case <-time.After(100 * time.Millisecond):
			return "ok", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}); err != nil {
		b.Fatal(err)
	}
	calls := make([]string, 8)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"id": "c%d", "type": "function", "function": {"name": "slow", "arguments": "{}"}}`, i)
	}
	batch := []byte(`[` + strings.Join(calls, ", ") + `]`)
	ctx := context.Background()
	out, err := r.ExecuteContext(ctx, batch, nil)
	if err != nil || strings.Count(string(out), `"content":"ok"`) != 8 {
		b.Fatalf("%v: %s", err, out)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := r.ExecuteContext(ctx, batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/batch")
}

// The library's own cost of a batch of 10 instant calls, Execute against prepare + finish run
// by hand (no goroutines): the two-step loop's overhead.
//
//	go test -run '^$' -bench 'TwoStep|Execute10' -benchtime 2000x
func BenchmarkTwoStep10Calls(b *testing.B) {
	r, batch := tenCalls(b)
	b.ResetTimer()
	for range b.N {
		plan, err := r.PrepareCalls(batch, nil)
		if err != nil {
			b.Fatal(err)
		}
		hosts, err := toolregistry.PlanHostCalls(plan)
		if err != nil {
			b.Fatal(err)
		}
		results := make([]toolregistry.CallResult, len(hosts))
		for i, h := range hosts {
			results[i] = toolregistry.ContentResult(h.ID, "ok")
		}
		if _, err := r.FinishCalls(plan, results); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10), "ns/call")
}
