package toolregistry_test

import (
	"encoding/json"
	"fmt"
	"strings"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// A conversation in stable mode: the deferred tool is listed in the system text, and once the
// model has found it, it is appended to every later request's tools.
func ExampleNewConversation() {
	reg, _ := toolregistry.NewRegistry(toolregistry.WithDiscovery(toolregistry.DiscoveryOptions{Profile: toolregistry.ProfileReference}))
	defer reg.Close()
	echo := func(args json.RawMessage) (string, error) { return "sent " + string(args), nil }
	_ = reg.RegisterFunc(toolregistry.Tool{Name: "get_time", Description: "Current time."}, echo)
	_ = reg.RegisterFunc(toolregistry.Tool{Name: "send_email", Description: "Send an email.", Metadata: toolregistry.Metadata{Defer: true}}, echo)

	conv, err := toolregistry.NewConversation(reg, toolregistry.ConversationOptions{Mode: toolregistry.ModeStable})
	if err != nil {
		panic(err)
	}
	defer conv.Close()
	printTools := func() {
		t, _ := conv.Tools()
		var tools []struct{ Function struct{ Name string } }
		_ = json.Unmarshal(t.Tools, &tools)
		names := make([]string, len(tools))
		for i, tool := range tools {
			names[i] = tool.Function.Name
		}
		fmt.Println(strings.Join(names, " "))
	}
	printTools()

	// The model searches; the conversation loads what it found.
	reply := []byte(`{"role":"assistant","tool_calls":[{"id":"c1","type":"function",
		"function":{"name":"discover_tools","arguments":"{\"query\":\"send an email\"}"}}]}`)
	if _, err := conv.Execute(reply, nil); err != nil {
		panic(err)
	}
	printTools()
	loaded, _ := conv.Loaded()
	fmt.Println(loaded)
	// Output:
	// get_time discover_tools call_deferred
	// get_time discover_tools call_deferred send_email
	// [send_email]
}
