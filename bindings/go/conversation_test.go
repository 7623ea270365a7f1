package toolregistry_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
	"github.com/toolregistry-rs/toolregistry-rs/bindings/go/internal/conformance"
)

const conversationCorpus = "../../tests/conformance/conversation"

// The conversation corpus, byte for byte: each case's registry is built through the binding, the
// conversation started with typed options outlives the registry's Close, and the messages and
// the loaded tools match expected.json and loaded.json (and the tools answer tools.json, where the
// case has one).
func TestConversationCorpus(t *testing.T) {
	cases, err := conformance.ConversationCases(conversationCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 8 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := conformance.RunConversation(conversationCorpus, c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Messages, c.Expected) {
				t.Errorf("messages\n got  %s\n want %s", got.Messages, c.Expected)
			}
			if !bytes.Equal(got.Loaded, c.Loaded) {
				t.Errorf("loaded\n got  %s\n want %s", got.Loaded, c.Loaded)
			}
			if c.Tools != nil && !bytes.Equal(got.Tools, c.Tools) {
				t.Errorf("tools\n got  %s\n want %s", got.Tools, c.Tools)
			}
		})
	}
}

// conversationRegistry: one core tool and two deferred ones, each with an echo host function.
func conversationRegistry(t testing.TB) *toolregistry.Registry {
	t.Helper()
	r := newRegistry(t)
	for _, tool := range []toolregistry.Tool{
		{Name: "get_time", Description: "Current time."},
		{Name: "send_email", Description: "Send an email to recipients.", Metadata: toolregistry.Metadata{Defer: true}},
		{Name: "get_weather", Description: "Current weather for a city.", Metadata: toolregistry.Metadata{Defer: true}},
	} {
		name := tool.Name
		if err := r.RegisterFunc(tool, func(args json.RawMessage) (string, error) {
			return name + " <- " + string(args), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.EnableDiscovery(toolregistry.DiscoveryOptions{Profile: toolregistry.ProfileReference}); err != nil {
		t.Fatal(err)
	}
	return r
}

func newConversation(t testing.TB, r *toolregistry.Registry, opts toolregistry.ConversationOptions) *toolregistry.Conversation {
	t.Helper()
	c, err := toolregistry.NewConversation(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// toolNames lists the names in a tools array of any provider shape.
func toolNames(t testing.TB, tools json.RawMessage) []string {
	t.Helper()
	var list []struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(tools, &list); err != nil {
		t.Fatalf("tools %s: %v", tools, err)
	}
	var out []string
	for _, v := range list {
		if v.Name == "" {
			v.Name = v.Function.Name
		}
		out = append(out, v.Name)
	}
	return out
}

func TestConversationOptionsJSON(t *testing.T) {
	zero, err := json.Marshal(toolregistry.ConversationOptions{})
	if err != nil || string(zero) != "{}" {
		t.Fatalf("zero options: %s, %v", zero, err)
	}
	doc, err := json.Marshal(toolregistry.ConversationOptions{
		APIFormat: toolregistry.Anthropic, Mode: toolregistry.ModeAuto, Search: toolregistry.SearchServer,
		Loaded: []string{"a"}, DeferThresholdTokens: toolregistry.Ptr(0), SummaryMaxTokens: toolregistry.Ptr(0),
		TopK: 3, MaxTokens: 500,
		Discovery:  &toolregistry.DiscoveryOptions{Profile: toolregistry.ProfileReference},
		Namespaces: []string{"gh"}, Tags: []string{"net"},
	})
	want := `{"api_format":"anthropic","mode":"auto","search":"server","loaded":["a"],"defer_threshold_tokens":0,` +
		`"summary_max_tokens":0,"discovery":{"profile":"reference"},"top_k":3,"max_tokens":500,"namespaces":["gh"],"tags":["net"]}`
	if err != nil || string(doc) != want {
		t.Fatalf("options JSON\n got  %s\n want %s", doc, want)
	}
}

func TestConversationTools(t *testing.T) {
	r := conversationRegistry(t)
	c := newConversation(t, r, toolregistry.ConversationOptions{Mode: toolregistry.ModeStable})
	raw, err := c.ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	tools, err := c.Tools()
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(t, tools.Tools); strings.Join(got, ",") != "get_time,discover_tools,call_deferred" {
		t.Fatalf("stable tools: %v", got)
	}
	if !strings.Contains(tools.SystemText, "send_email") || !strings.Contains(tools.SystemText, "get_weather") {
		t.Fatalf("system text lists no deferred tools: %q", tools.SystemText)
	}
	// A budget of 0 tokens leaves only the count of the deferred tools.
	cut, err := newConversation(t, r, toolregistry.ConversationOptions{
		Mode: toolregistry.ModeStable, SummaryMaxTokens: toolregistry.Ptr(0),
	}).Tools()
	if err != nil || !strings.HasSuffix(cut.SystemText, "\n- ... and 2 more (call discover_tools to find them)") ||
		strings.Contains(cut.SystemText, "send_email") {
		t.Fatalf("summary_max_tokens 0: %q, %v", cut.SystemText, err)
	}
	// Tools is the exact bytes of the library's answer, and the fingerprint is the SHA-256 of
	// {"tools":<tools>,"system_text":<system_text>} as written there.
	if !bytes.Contains(raw, append([]byte(`{"tools":`), tools.Tools...)) {
		t.Fatalf("Tools is not the library's bytes:\n%s\n%s", raw, tools.Tools)
	}
	i := bytes.Index(raw, []byte(`,"fingerprint":`))
	if i < 0 {
		t.Fatalf("no fingerprint in %s", raw)
	}
	sum := sha256.Sum256(append(append([]byte{}, raw[:i]...), '}'))
	if tools.Fingerprint != hex.EncodeToString(sum[:]) {
		t.Fatalf("fingerprint %s is not the SHA-256 of %s}", tools.Fingerprint, raw[:i])
	}

	// Loading a tool only appends to the list, and changes the fingerprint.
	if err := c.Reveal("get_weather"); err != nil {
		t.Fatal(err)
	}
	after, err := c.Tools()
	if err != nil {
		t.Fatal(err)
	}
	prefix := tools.Tools[:len(tools.Tools)-1]
	if !bytes.HasPrefix(after.Tools, prefix) || after.Fingerprint == tools.Fingerprint || after.SystemText != tools.SystemText {
		t.Fatalf("after Reveal:\n%s\nbefore:\n%s", after.Tools, tools.Tools)
	}
	if got := toolNames(t, after.Tools); got[len(got)-1] != "get_weather" {
		t.Fatalf("loaded tool not appended: %v", got)
	}
	again, err := c.Tools()
	if err != nil || again.Fingerprint != after.Fingerprint || !bytes.Equal(again.Tools, after.Tools) {
		t.Fatalf("Tools changed without a change: %v", err)
	}
}

func TestConversationLoadedRestores(t *testing.T) {
	r := conversationRegistry(t)
	c := newConversation(t, r, toolregistry.ConversationOptions{
		APIFormat: toolregistry.OpenAIResponses, Mode: toolregistry.ModeNative,
		Loaded: []string{"send_email"},
	})
	loaded, err := c.Loaded()
	if err != nil || strings.Join(loaded, ",") != "send_email" {
		t.Fatalf("Loaded: %v, %v", loaded, err)
	}
	// Raw options work as well, and bad ones are refused with the library's code.
	raw, err := toolregistry.NewConversationJSON(r, []byte(`{"api_format":"anthropic","mode":"native"}`))
	if err != nil {
		t.Fatal(err)
	}
	raw.Close()
	def, err := toolregistry.NewConversationJSON(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	def.Close()
	_, err = toolregistry.NewConversation(r, toolregistry.ConversationOptions{Mode: toolregistry.ModeNative, APIFormat: toolregistry.Gemini})
	wantErrorCode(t, err, toolregistry.ErrInvalidArgument)
	_, err = toolregistry.NewConversationJSON(r, []byte(`{"mode": 1`))
	wantErrorCode(t, err, toolregistry.ErrInvalidJSON)
	_, err = toolregistry.NewConversationJSON(r, []byte(`{"colour": "red"}`))
	wantErrorCode(t, err, toolregistry.ErrInvalidArgument)
	_, err = toolregistry.NewConversation(nil, toolregistry.ConversationOptions{})
	wantErrorCode(t, err, toolregistry.ErrNullArgument)
}

// Reveal of an unknown name is NOT_FOUND, names it, and loads nothing (not even the known ones).
func TestConversationRevealUnknown(t *testing.T) {
	r := conversationRegistry(t)
	c := newConversation(t, r, toolregistry.ConversationOptions{Mode: toolregistry.ModeStable})
	before, err := c.ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	err = c.Reveal("get_weather", "no_such_tool")
	wantErrorCode(t, err, toolregistry.ErrNotFound)
	if !strings.Contains(err.Error(), "no_such_tool") {
		t.Fatalf("message does not name the tool: %v", err)
	}
	loaded, err := c.Loaded()
	if err != nil || len(loaded) != 0 {
		t.Fatalf("Loaded after a failed Reveal: %v, %v", loaded, err)
	}
	after, err := c.ToolsJSON()
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("tools changed after a failed Reveal:\n%s\n%s", before, after)
	}
	if err := c.Reveal(); err != nil {
		t.Fatalf("Reveal of nothing: %v", err)
	}
	_, err = c.Execute([]byte(`{"not": "calls"}`), nil)
	wantErrorCode(t, err, toolregistry.ErrInvalidArgument)
	_, err = c.Execute([]byte(`[]`), &toolregistry.ExecuteOptions{APIFormat: toolregistry.Gemini})
	wantErrorCode(t, err, toolregistry.ErrInvalidArgument)
}

// The conversation outlives its registry's Close: it keeps the tools and their host functions,
// and releases the host functions once it is closed too.
func TestConversationOutlivesRegistry(t *testing.T) {
	r := conversationRegistry(t)
	counter := toolregistry.HostFuncCounter(r)
	c, err := toolregistry.NewConversation(r, toolregistry.ConversationOptions{APIFormat: toolregistry.Anthropic, Mode: toolregistry.ModeNative})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := toolregistry.NewConversation(r, toolregistry.ConversationOptions{}); !errors.Is(err, toolregistry.ErrClosed) {
		t.Fatalf("NewConversation on a closed registry: %v", err)
	}
	calls := []byte(`{"role":"assistant","content":[` +
		`{"type":"tool_use","id":"t1","name":"discover_tools","input":{"query":"get_weather"}},` +
		`{"type":"tool_use","id":"t2","name":"send_email","input":{}}]}`)
	messages, err := c.Execute(calls, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"tool_reference","tool_name":"get_weather"}]},` +
		`{"type":"tool_result","tool_use_id":"t2","content":"send_email <- {}"}]}]`
	if string(messages) != want {
		t.Fatalf("messages after Registry.Close:\n got  %s\n want %s", messages, want)
	}
	if loaded, err := c.Loaded(); err != nil || strings.Join(loaded, ",") != "get_weather,send_email" {
		t.Fatalf("Loaded: %v, %v", loaded, err)
	}
	if live := counter.Live(); live != 3 {
		t.Fatalf("%d host functions live while the conversation is, want 3", live)
	}
	c.Close()
	if live := counter.Live(); live != 0 {
		t.Fatalf("%d host functions live after both Close", live)
	}
}

func TestConversationUseAfterClose(t *testing.T) {
	r := conversationRegistry(t)
	c, err := toolregistry.NewConversation(r, toolregistry.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	var zero toolregistry.Conversation
	for _, conv := range []*toolregistry.Conversation{c, &zero} {
		calls := map[string]func() error{
			"Tools":      func() error { _, err := conv.Tools(); return err },
			"ToolsJSON":  func() error { _, err := conv.ToolsJSON(); return err },
			"Execute":    func() error { _, err := conv.Execute([]byte(`[]`), nil); return err },
			"Reveal":     func() error { return conv.Reveal("send_email") },
			"Loaded":     func() error { _, err := conv.Loaded(); return err },
			"LoadedJSON": func() error { _, err := conv.LoadedJSON(); return err },
		}
		for name, call := range calls {
			if err := call(); !errors.Is(err, toolregistry.ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", name, err)
			}
		}
	}
	// The registry is not affected.
	if _, err := r.ToolsStatus(); err != nil {
		t.Fatal(err)
	}
}

// Several goroutines read Tools from one conversation while others execute calls that load
// tools and reveal tools. Every answer is a consistent {tools, system_text, fingerprint}, the
// list only grows, and all loads land.
func TestConversationConcurrent(t *testing.T) {
	r := conversationRegistry(t)
	for i := range 20 {
		name := fmt.Sprintf("extra_%d", i)
		if err := r.RegisterFunc(toolregistry.Tool{Name: name, Description: "Extra tool.", Metadata: toolregistry.Metadata{Defer: true}},
			func(json.RawMessage) (string, error) { return "ok", nil }); err != nil {
			t.Fatal(err)
		}
	}
	c := newConversation(t, r, toolregistry.ConversationOptions{Mode: toolregistry.ModeStable})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for range 100 {
				raw, err := c.ToolsJSON()
				if err != nil {
					errs <- err
					return
				}
				i := bytes.Index(raw, []byte(`,"fingerprint":`))
				var tools toolregistry.ConversationTools
				if err := json.Unmarshal(raw, &tools); err != nil || i < 0 {
					errs <- fmt.Errorf("goroutine %d: %s: %v", g, raw, err)
					return
				}
				sum := sha256.Sum256(append(append([]byte{}, raw[:i]...), '}'))
				if hex.EncodeToString(sum[:]) != tools.Fingerprint {
					errs <- fmt.Errorf("goroutine %d: fingerprint does not match %s", g, raw)
					return
				}
				n := len(toolNames(t, tools.Tools))
				if n < last {
					errs <- fmt.Errorf("goroutine %d: tool list shrank from %d to %d", g, last, n)
					return
				}
				last = n
			}
		}()
	}
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < 20; i += 2 {
				name := fmt.Sprintf("extra_%d", i)
				var err error
				if i%4 < 2 {
					calls := fmt.Sprintf(`{"role":"assistant","tool_calls":[{"id":"c%d","type":"function","function":{"name":%q,"arguments":"{}"}}]}`, i, name)
					var messages json.RawMessage
					messages, err = c.Execute([]byte(calls), nil)
					if err == nil && !strings.Contains(string(messages), `"content":"ok"`) {
						err = fmt.Errorf("call of %s: %s", name, messages)
					}
				} else {
					err = c.Reveal(name)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	loaded, err := c.Loaded()
	if err != nil || len(loaded) != 20 {
		t.Fatalf("Loaded: %d %v, %v", len(loaded), loaded, err)
	}
	tools, err := c.Tools()
	if err != nil || len(toolNames(t, tools.Tools)) != 23 {
		t.Fatalf("final tools: %v, %v", toolNames(t, tools.Tools), err)
	}
}

// Close while other goroutines use the conversation: each call completes or reports ErrClosed.
func TestConversationCloseDuringCalls(t *testing.T) {
	r := conversationRegistry(t)
	for round := range 10 {
		c, err := toolregistry.NewConversation(r, toolregistry.ConversationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		start := make(chan struct{})
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range 30 {
					var err error
					switch (g + i) % 3 {
					case 0:
						_, err = c.Tools()
					case 1:
						_, err = c.Execute([]byte(`[{"id":"c","type":"function","function":{"name":"get_time","arguments":"{}"}}]`), nil)
					default:
						err = c.Reveal("send_email")
					}
					if err != nil && !errors.Is(err, toolregistry.ErrClosed) {
						errs <- fmt.Errorf("round %d: %w", round, err)
						return
					}
				}
			}()
		}
		close(start)
		c.Close()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

// A host function may close the conversation that runs it: Close does not wait for the call.
func TestConversationClosedFromHostFunction(t *testing.T) {
	r := newRegistry(t)
	var c *toolregistry.Conversation
	if err := r.RegisterFunc(toolregistry.Tool{Name: "hang_up", Description: "Ends the conversation."},
		func(json.RawMessage) (string, error) { return "bye", c.Close() }); err != nil {
		t.Fatal(err)
	}
	c = newConversation(t, r, toolregistry.ConversationOptions{})
	messages, err := c.Execute([]byte(`[{"id":"c","type":"function","function":{"name":"hang_up","arguments":"{}"}}]`), nil)
	if err != nil || !strings.Contains(string(messages), `"content":"bye"`) {
		t.Fatalf("%s, %v", messages, err)
	}
	if _, err := c.Tools(); !errors.Is(err, toolregistry.ErrClosed) {
		t.Fatalf("Tools after the host function closed it: %v", err)
	}
}

// wantErrorCode fails unless err is an *Error with sentinel's code and a message.
func wantErrorCode(t testing.TB, err error, sentinel *toolregistry.Error) {
	t.Helper()
	var e *toolregistry.Error
	if !errors.Is(err, sentinel) || !errors.As(err, &e) || e.Message == "" {
		t.Fatalf("want %v with a message, got %#v", sentinel, err)
	}
}
