package toolregistry_test

import (
	"encoding/json"
	"fmt"
	"log"
	"strings"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// scriptedModel stands in for a chat-completions API (no network): it reads the conversation
// and answers the way a model would. First it looks for an email tool with discover_tools, then
// it calls the tool it found, then it answers in text.
func scriptedModel(messages []json.RawMessage) []byte {
	var last struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(messages[len(messages)-1], &last); err != nil {
		log.Fatal(err)
	}
	switch {
	case last.Role == "user":
		return []byte(`{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
			"function": {"name": "discover_tools", "arguments": "{\"query\": \"send an email\"}"}}]}`)
	case last.Role == "tool" && strings.HasPrefix(last.Content, "["):
		// The discover_tools answer: call the best hit with arguments that fit its schema.
		var hits []toolregistry.Result
		if err := json.Unmarshal([]byte(last.Content), &hits); err != nil || len(hits) == 0 {
			log.Fatalf("discover_tools answered %q", last.Content)
		}
		args, _ := json.Marshal(map[string]any{"to": []string{"ada@example.com"}, "subject": "Lunch?"})
		reply, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": hits[0].Name, "arguments": string(args)}},
		}})
		return reply
	default:
		return []byte(`{"role": "assistant", "content": "I have invited Ada to lunch."}`)
	}
}

// A complete tool-calling loop: the model finds a deferred tool with discover_tools, calls it,
// and the registry runs every call and writes the messages of the next turn.
func Example_agentLoop() {
	reg, err := toolregistry.NewRegistry()
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	emailTool := toolregistry.Tool{
		Name:        "send_email",
		Description: "Send an email to recipients.",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"to": {"type": "array", "items": {"type": "string"}},
			"subject": {"type": "string"}}, "required": ["to", "subject"]}`),
		Metadata: toolregistry.Metadata{Defer: true, SearchHint: "mail message"},
	}
	err = reg.RegisterFunc(emailTool, func(args json.RawMessage) (string, error) {
		var a struct {
			To      []string
			Subject string
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return "", err
		}
		return fmt.Sprintf("queued %q to %s", a.Subject, strings.Join(a.To, ", ")), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := reg.EnableDiscovery(toolregistry.DiscoveryOptions{}); err != nil {
		log.Fatal(err)
	}
	// The core tools go in the request; the deferred ones are only listed in the system prompt.
	core, _ := reg.Schemas(toolregistry.SchemaOptions{ExcludeDeferred: true})
	fmt.Println("tools in the request:", len(core), "(discover_tools, call_deferred)")
	summaries, _ := reg.DeferredSummaries()
	system, _ := json.Marshal(map[string]string{"role": "system", "content": fmt.Sprintf("Deferred tools: %s: %s", summaries[0].Name, summaries[0].Description)})
	messages := []json.RawMessage{system, json.RawMessage(`{"role": "user", "content": "Ask Ada to lunch."}`)}

	for turn := 1; ; turn++ {
		reply := scriptedModel(messages)
		messages = append(messages, reply)
		var assistant struct {
			Content   *string           `json:"content"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		}
		if err := json.Unmarshal(reply, &assistant); err != nil {
			log.Fatal(err)
		}
		if len(assistant.ToolCalls) == 0 {
			fmt.Printf("turn %d: the model answers %q\n", turn, *assistant.Content)
			break
		}
		results, err := reg.Execute(reply, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("turn %d: send back %s\n", turn, shorten(string(results)))
		var next []json.RawMessage
		if err := json.Unmarshal(results, &next); err != nil {
			log.Fatal(err)
		}
		messages = append(messages, next...)
	}
	// Output:
	// tools in the request: 2 (discover_tools, call_deferred)
	// turn 1: send back [{"role":"tool","tool_call_id":"call_1","content":"[{\"name\":\"send_email\",\"description\":\"Send an email to recipien...
	// turn 2: send back [{"role":"tool","tool_call_id":"call_2","content":"queued \"Lunch?\" to ada@example.com"}]
	// turn 3: the model answers "I have invited Ada to lunch."
}

// shorten keeps example output readable: long messages (discover_tools answers carry schemas)
// are cut after 120 bytes.
func shorten(s string) string {
	if len(s) <= 120 {
		return s
	}
	return s[:120] + "..."
}
