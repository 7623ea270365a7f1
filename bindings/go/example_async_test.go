package toolregistry_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"time"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// Host functions that take their time (an HTTP call, say) run on goroutines, all at once, and
// honour the caller's ctx.
func ExampleRegistry_ExecuteContext() {
	reg, err := toolregistry.NewRegistry()
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	weather := toolregistry.Tool{Name: "get_weather", Description: "Weather for a city.",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}}}`)}
	err = reg.RegisterContextFunc(weather, func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		select {
		case <-time.After(100 * time.Millisecond): // the upstream call
			return "sunny, args " + string(args), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	reply := []byte(`{"role": "assistant", "tool_calls": [
	  {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
	  {"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	messages, err := reg.ExecuteContext(ctx, reply, nil) // both calls wait at once: ~100 ms
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(messages))
	// Output:
	// [{"role":"tool","tool_call_id":"a","content":"sunny, args {\"city\":\"Paris\"}"},{"role":"tool","tool_call_id":"b","content":"sunny, args {\"city\":\"Oslo\"}"}]
}
