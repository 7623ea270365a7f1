package toolregistry_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// A batch of 10 calls to a Go host function that returns at once, arguments checked against a
// 10-property schema: the cost per call of Execute through cgo, trampoline included.
//
//	go test -run '^$' -bench Execute -benchtime 2000x
func BenchmarkExecute10Calls(b *testing.B) {
	r, err := toolregistry.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
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
	b.ResetTimer()
	for range b.N {
		if _, err := r.Execute(batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10), "ns/call")
}
