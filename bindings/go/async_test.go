package toolregistry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
	"github.com/toolregistry-rs/toolregistry-rs/bindings/go/internal/conformance"
)

// runPlanByHand runs a plan's host calls the way a host with its own executor would: with the
// corpus's scripted hosts, one after another, then FinishCalls.
func runPlanByHand(t *testing.T, reg *toolregistry.Registry, plan json.RawMessage, hosts map[string]string) json.RawMessage {
	t.Helper()
	calls, err := toolregistry.PlanHostCalls(plan)
	if err != nil {
		t.Fatal(err)
	}
	var results []toolregistry.CallResult
	for _, c := range calls {
		switch hosts[c.Name] {
		case "echo":
			results = append(results, toolregistry.ContentResult(c.ID, c.Name+" <- "+string(c.Arguments)))
		case "fail":
			results = append(results, toolregistry.ErrorResult(c.ID, "upstream returned 503"))
		case "panic":
			results = append(results, toolregistry.ErrorResult(c.ID, `the host function of "`+c.Name+`" panicked: kaboom`))
		default:
			results = append(results, toolregistry.UnhandledResult(c.ID))
		}
	}
	out, err := reg.FinishCalls(plan, results)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fixtureHosts maps each fixture tool to its scripted host kind ("" for none).
func fixtureHosts(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile(corpusDir + "/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tools []struct {
			Tool struct {
				Name string `json:"name"`
			} `json:"tool"`
			Host *string `json:"host"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(doc, &f); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]string{}
	for _, tool := range f.Tools {
		if tool.Host != nil {
			hosts[tool.Tool.Name] = *tool.Host
		}
	}
	return hosts
}

// Every case of the execute corpus, with its options: Execute, ExecuteContext and prepare + the
// host's own runner + finish give the same bytes, and those are expected.json.
func TestTwoStepCorpus(t *testing.T) {
	cases, err := conformance.Cases(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("the corpus has %d cases", len(cases))
	}
	reg, err := conformance.NewRegistry(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	hosts := fixtureHosts(t)
	ctx := context.Background()
	for _, c := range cases {
		executed, err := reg.Execute(c.Calls, c.Options)
		if err != nil {
			t.Errorf("%s: execute: %v", c.Name, err)
			continue
		}
		viaContext, err := reg.ExecuteContext(ctx, c.Calls, c.Options)
		if err != nil {
			t.Errorf("%s: ExecuteContext: %v", c.Name, err)
			continue
		}
		plan, err := reg.PrepareCalls(c.Calls, c.Options)
		if err != nil {
			t.Errorf("%s: prepare: %v", c.Name, err)
			continue
		}
		byHand := runPlanByHand(t, reg, plan, hosts)
		for what, got := range map[string][]byte{"execute": executed, "ExecuteContext": viaContext, "prepare+finish": byHand} {
			if !bytes.Equal(got, c.Expected) {
				t.Errorf("%s (%s)\n want %s\n got  %s", c.Name, what, c.Expected, got)
			}
		}
	}
}

// The conversation corpus through ExecuteContext: the same messages, loaded tools and tools.
func TestConversationCorpusContext(t *testing.T) {
	cases, err := conformance.ConversationCases(conversationCorpus)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := conformance.RunConversationWith(conversationCorpus, c, func(conv *toolregistry.Conversation, calls []byte) (json.RawMessage, error) {
			return conv.ExecuteContext(context.Background(), calls, nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Messages, c.Expected) {
			t.Errorf("%s messages\n got  %s\n want %s", c.Name, got.Messages, c.Expected)
		}
		if !bytes.Equal(got.Loaded, c.Loaded) {
			t.Errorf("%s loaded\n got  %s\n want %s", c.Name, got.Loaded, c.Loaded)
		}
		if c.Tools != nil && !bytes.Equal(got.Tools, c.Tools) {
			t.Errorf("%s tools\n got  %s\n want %s", c.Name, got.Tools, c.Tools)
		}
	}
}

// chatCalls is an OpenAI chat batch of n calls of tool (ids c0..), with empty arguments.
func chatCalls(t testing.TB, tool string, n int) []byte {
	t.Helper()
	calls := make([]map[string]any, n)
	for i := range calls {
		calls[i] = chatCall(fmt.Sprintf("c%d", i), tool, "{}")
	}
	return chatBatch(t, calls...)
}

// decodeChat decodes tool messages.
func decodeChat(t testing.TB, out []byte) []chatResult {
	t.Helper()
	var results []chatResult
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return results
}

// Eight calls are all in their function at once: each waits until the eight have arrived (a
// barrier, not a clock), which only ends if they run concurrently.
func TestExecuteContextRunsCallsConcurrently(t *testing.T) {
	r := newRegistry(t)
	var arrived sync.WaitGroup
	arrived.Add(8)
	allIn := make(chan struct{})
	go func() { arrived.Wait(); close(allIn) }()
	var inside, peak atomic.Int32
	err := r.RegisterContextFunc(echoTool("slow"), func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		n := inside.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer inside.Add(-1)
		arrived.Done()
		select {
		case <-allIn:
			return "ok", nil
		case <-time.After(10 * time.Second):
			return "", errors.New("the other calls never came")
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.ExecuteContext(context.Background(), chatCalls(t, "slow", 8), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range decodeChat(t, out) {
		if res.Content != "ok" || res.ToolCallID != fmt.Sprintf("c%d", i) {
			t.Errorf("result %d: %+v", i, res)
		}
	}
	if peak.Load() != 8 {
		t.Errorf("at most %d calls ran at once, want 8", peak.Load())
	}
}

// A tool whose metadata says ConcurrencySafe false runs alone: the calls before it have
// finished when it starts, and those after it start once it finished.
func TestExecuteContextUnsafeRunsAlone(t *testing.T) {
	r := newRegistry(t)
	var inside atomic.Int32
	var mu sync.Mutex
	var events []string
	record := func(e string) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	safe := func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		inside.Add(1)
		defer inside.Add(-1)
		time.Sleep(20 * time.Millisecond)
		return "safe", nil
	}
	unsafeRan := 0
	unsafeFn := func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		record(fmt.Sprintf("unsafe with %d others", inside.Load()))
		unsafeRan++
		time.Sleep(20 * time.Millisecond)
		record("unsafe done")
		return "alone", nil
	}
	no := false
	if err := r.RegisterContextFunc(echoTool("safe"), safe); err != nil {
		t.Fatal(err)
	}
	tool := echoTool("unsafe")
	tool.Metadata.ConcurrencySafe = &no
	if err := r.RegisterContextFunc(tool, unsafeFn); err != nil {
		t.Fatal(err)
	}
	batch := chatBatch(t, chatCall("a", "safe", "{}"), chatCall("b", "safe", "{}"), chatCall("c", "unsafe", "{}"),
		chatCall("d", "safe", "{}"), chatCall("e", "unsafe", "{}"), chatCall("f", "safe", "{}"))
	plan, err := r.PrepareCalls(batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := toolregistry.PlanHostCalls(plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 6 || calls[2].ConcurrencySafe || !calls[3].ConcurrencySafe {
		t.Fatalf("plan host calls: %+v", calls)
	}
	out, err := r.ExecuteContext(context.Background(), batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"safe", "safe", "alone", "safe", "alone", "safe"}
	for i, res := range decodeChat(t, out) {
		if res.Content != want[i] {
			t.Errorf("result %d: %q, want %q", i, res.Content, want[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if unsafeRan != 2 || len(events) != 4 {
		t.Fatalf("events %v", events)
	}
	for _, e := range events {
		if strings.HasPrefix(e, "unsafe with") && e != "unsafe with 0 others" {
			t.Errorf("the unsafe tool did not run alone: %v", events)
		}
	}
}

// Errors, panics and text C cannot take fail that call only, with the texts Execute gives; a
// tool without a function gets the library's "has no host function" result; the fallback runs
// the calls of tools without a function of their own.
func TestExecuteContextOutcomesMatchExecute(t *testing.T) {
	r := newRegistry(t)
	fns := map[string]toolregistry.ContextFunc{
		"ok": func(context.Context, string, json.RawMessage) (string, error) { return "fine", nil },
		"error": func(context.Context, string, json.RawMessage) (string, error) {
			return "partial", errors.New("quota exceeded")
		},
		"panic":       func(context.Context, string, json.RawMessage) (string, error) { panic("kaboom") },
		"nul_content": func(context.Context, string, json.RawMessage) (string, error) { return "a\x00b", nil },
		"echo_name": func(_ context.Context, name string, args json.RawMessage) (string, error) {
			return name + " " + string(args), nil
		},
	}
	var calls []map[string]any
	for name, fn := range fns {
		if err := r.RegisterContextFunc(echoTool(name), fn); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, chatCall("id_"+name, name, `{"n": 1}`))
	}
	if err := r.RegisterFunc(echoTool("sync"), echo("sync")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(echoTool("bare")); err != nil {
		t.Fatal(err)
	}
	calls = append(calls, chatCall("id_sync", "sync", `{}`), chatCall("id_bare", "bare", `{}`), chatCall("id_unknown", "nope", `{}`))
	batch := chatBatch(t, calls...)
	check := func(what string) {
		t.Helper()
		sync, err := r.Execute(batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		async, err := r.ExecuteContext(context.Background(), batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(sync, async) {
			t.Errorf("%s:\n Execute        %s\n ExecuteContext %s", what, sync, async)
		}
	}
	check("no fallback")
	got := map[string]string{}
	out, _ := r.ExecuteContext(context.Background(), batch, nil)
	for _, res := range decodeChat(t, out) {
		got[res.ToolCallID] = res.Content
	}
	want := map[string]string{
		"id_ok":          "fine",
		"id_error":       "Error: quota exceeded",
		"id_panic":       `Error: the host function of "panic" panicked: kaboom`,
		"id_nul_content": `Error: the host function of "nul_content" returned text with a NUL byte at offset 1`,
		"id_echo_name":   `echo_name {"n":1}`,
		"id_sync":        `sync <- {}`,
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
	// runtime.Goexit (t.SkipNow here) inside a function run by ExecuteContext ends its goroutine
	// only: that call fails, the batch goes on.
	if err := r.RegisterContextFunc(echoTool("goexit"), func(context.Context, string, json.RawMessage) (string, error) {
		runtime.Goexit()
		return "unreachable", nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err := r.ExecuteContext(context.Background(), chatBatch(t, chatCall("g", "goexit", "{}"), chatCall("o", "ok", "{}")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res := decodeChat(t, out); res[0].Content != `Error: the host function of "goexit" exited without returning (runtime.Goexit)` || res[1].Content != "fine" {
		t.Errorf("Goexit: %+v", res)
	}
	if err := r.Unregister("goexit"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got["id_bare"], "has no host function") {
		t.Errorf("bare: %q", got["id_bare"])
	}
	if err := r.SetFallbackContext(func(_ context.Context, name string, _ json.RawMessage) (string, error) {
		return "fallback ran " + name, nil
	}); err != nil {
		t.Fatal(err)
	}
	check("context fallback")
	out, _ = r.ExecuteContext(context.Background(), batch, nil)
	for _, res := range decodeChat(t, out) {
		if res.ToolCallID == "id_bare" && res.Content != "fallback ran bare" {
			t.Errorf("bare with a fallback: %q", res.Content)
		}
	}
	if err := r.SetFallback(nil); err != nil {
		t.Fatal(err)
	}
	// A tool replaced by a definition without a function loses its function in both paths.
	if _, err := r.Register(echoTool("ok")); err != nil {
		t.Fatal(err)
	}
	check("replaced, and the fallback removed")
	out, _ = r.ExecuteContext(context.Background(), batch, nil)
	for _, res := range decodeChat(t, out) {
		if (res.ToolCallID == "id_ok" || res.ToolCallID == "id_bare") && !strings.Contains(res.Content, "has no host function") {
			t.Errorf("%s: %q", res.ToolCallID, res.Content)
		}
	}
}

// Cancelling ctx returns context.Canceled at once; the functions see their ctx done, and
// nothing is finished: a discover_tools of the same batch loads nothing into the conversation.
func TestExecuteContextCancellation(t *testing.T) {
	r := newRegistry(t)
	if err := r.EnableDiscovery(toolregistry.DiscoveryOptions{}); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 8)
	sawCancel := make(chan error, 8)
	tool := echoTool("wait_forever")
	if err := r.RegisterContextFunc(tool, func(ctx context.Context, _ string, _ json.RawMessage) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		sawCancel <- ctx.Err()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	deferred := toolregistry.Tool{Name: "send_email", Description: "Send an email to recipients.", Metadata: toolregistry.Metadata{Defer: true}}
	if err := r.RegisterFunc(deferred, echo("send_email")); err != nil {
		t.Fatal(err)
	}
	conv, err := toolregistry.NewConversation(r, toolregistry.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer conv.Close()
	batch := chatBatch(t, chatCall("d", "discover_tools", `{"query": "send an email"}`),
		chatCall("w1", "wait_forever", "{}"), chatCall("w2", "wait_forever", "{}"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		<-started
		cancel()
	}()
	out, err := conv.ExecuteContext(ctx, batch, nil)
	if !errors.Is(err, context.Canceled) || out != nil {
		t.Fatalf("got %s, %v; want context.Canceled", out, err)
	}
	for range 2 {
		if got := <-sawCancel; !errors.Is(got, context.Canceled) {
			t.Errorf("a function saw %v", got)
		}
	}
	loaded, err := conv.Loaded()
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded) != 0 {
		t.Errorf("a cancelled batch loaded %v", loaded)
	}
	// The same batch, allowed to finish, does load what discover_tools found.
	if err := r.RegisterContextFunc(tool, func(context.Context, string, json.RawMessage) (string, error) { return "done", nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := conv.ExecuteContext(context.Background(), batch, nil); err != nil {
		t.Fatal(err)
	}
	if loaded, _ = conv.Loaded(); len(loaded) != 1 || loaded[0] != "send_email" {
		t.Errorf("loaded %v after a finished batch", loaded)
	}
	// A deadline works the same way, and a ctx already done runs nothing.
	ran := atomic.Int32{}
	if err := r.RegisterContextFunc(tool, func(ctx context.Context, _ string, _ json.RawMessage) (string, error) {
		ran.Add(1)
		<-ctx.Done()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	deadline, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	if _, err := r.ExecuteContext(deadline, chatCalls(t, "wait_forever", 2), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("deadline: %v", err)
	}
	before := ran.Load()
	if _, err := r.ExecuteContext(ctx, chatCalls(t, "wait_forever", 2), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a done ctx: %v", err)
	}
	if ran.Load() != before {
		t.Errorf("a done ctx ran %d calls", ran.Load()-before)
	}
}

// A function may call back into the registry that runs it: discover, execute (both kinds),
// register; nothing is locked while it runs.
func TestExecuteContextFunctionCallsBackIntoRegistry(t *testing.T) {
	r := newRegistry(t)
	if err := r.RegisterFunc(echoTool("inner"), echo("inner")); err != nil {
		t.Fatal(err)
	}
	// No t.Fatal in a host function (it runs on another goroutine): the batches are built here.
	innerAsync := chatBatch(t, chatCall("i", "inner", `{"n": 2}`))
	innerSync := chatBatch(t, chatCall("j", "inner", `{"n": 3}`))
	err := r.RegisterContextFunc(echoTool("outer"), func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		out, err := r.ExecuteContext(ctx, innerAsync, nil)
		if err != nil {
			return "", err
		}
		sync, err := r.Execute(innerSync, nil)
		if err != nil {
			return "", err
		}
		if _, err := r.Register(echoTool("added_" + string(args[len(args)-2]))); err != nil {
			return "", err
		}
		var a, b []chatResult
		if err := errors.Join(json.Unmarshal(out, &a), json.Unmarshal(sync, &b)); err != nil || len(a) != 1 || len(b) != 1 {
			return "", fmt.Errorf("inner answers %s, %s: %v", out, sync, err)
		}
		return a[0].Content + " | " + b[0].Content, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.ExecuteContext(context.Background(), chatBatch(t, chatCall("o1", "outer", `{"n": 1}`), chatCall("o2", "outer", `{"n": 5}`)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range decodeChat(t, out) {
		if res.Content != `inner <- {"n":2} | inner <- {"n":3}` {
			t.Errorf("%s: %q", res.ToolCallID, res.Content)
		}
	}
	status, err := r.ToolsStatus()
	if err != nil {
		t.Fatal(err)
	}
	if len(status) != 4 {
		t.Errorf("%d tools after the callbacks registered two: %+v", len(status), status)
	}
}

// Bad input to finish is ErrInvalidArgument, and nothing is applied: the same plan finishes
// fine afterwards.
func TestFinishCallsRejectsBadInput(t *testing.T) {
	r := newRegistry(t)
	if err := r.RegisterFunc(echoTool("a"), echo("a")); err != nil {
		t.Fatal(err)
	}
	plan, err := r.PrepareCalls(chatBatch(t, chatCall("x", "a", "{}"), chatCall("y", "a", "{}")), nil)
	if err != nil {
		t.Fatal(err)
	}
	ok := toolregistry.ContentResult
	cases := map[string]func() (json.RawMessage, error){
		"missing result": func() (json.RawMessage, error) { return r.FinishCalls(plan, []toolregistry.CallResult{ok("x", "1")}) },
		"duplicate id": func() (json.RawMessage, error) {
			return r.FinishCalls(plan, []toolregistry.CallResult{ok("x", "1"), ok("x", "2"), ok("y", "3")})
		},
		"unknown id": func() (json.RawMessage, error) {
			return r.FinishCalls(plan, []toolregistry.CallResult{ok("x", "1"), ok("y", "2"), ok("z", "3")})
		},
		"malformed plan": func() (json.RawMessage, error) {
			return r.FinishCalls(json.RawMessage(`{"toolregistry_plan": 1, "calls": 7}`), []toolregistry.CallResult{ok("x", "1"), ok("y", "2")})
		},
		"plan not JSON": func() (json.RawMessage, error) {
			return r.FinishCalls(json.RawMessage(`{"calls": [`), nil)
		},
		"result of no shape": func() (json.RawMessage, error) {
			return r.FinishCallsJSON(plan, []byte(`[{"id": "x", "content": "1"}, {"id": "y", "output": "2"}]`))
		},
		"results not an array": func() (json.RawMessage, error) { return r.FinishCallsJSON(plan, []byte(`{"id": "x"}`)) },
	}
	for name, finish := range cases {
		out, err := finish()
		if out != nil {
			t.Errorf("%s: answered %s", name, out)
		}
		var e *toolregistry.Error
		if !errors.As(err, &e) || (e.Code != toolregistry.CodeInvalidArgument && !(name == "plan not JSON" && e.Code == toolregistry.CodeInvalidJSON)) || e.Message == "" {
			t.Errorf("%s: %v, want INVALID_ARGUMENT with a message", name, err)
		}
	}
	out, err := r.FinishCalls(plan, []toolregistry.CallResult{ok("y", "2"), ok("x", "1")})
	if err != nil {
		t.Fatal(err)
	}
	results := decodeChat(t, out)
	if len(results) != 2 || results[0].Content != "1" || results[1].Content != "2" {
		t.Errorf("results in plan order: %s", out)
	}
	// A tool unregistered between prepare and finish: the unknown-tool result, and the index
	// forgets its function, so ExecuteContext hands it back unhandled.
	if err := r.Unregister("a"); err != nil {
		t.Fatal(err)
	}
	out, err = r.FinishCalls(plan, []toolregistry.CallResult{ok("x", "1"), ok("y", "2")})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range decodeChat(t, out) {
		if !strings.HasPrefix(res.Content, "Error: ") || !strings.Contains(res.Content, `"a"`) {
			t.Errorf("unregistered tool: %q", res.Content)
		}
	}
}

// A function registered with RegisterContextFunc also runs through Execute, with a ctx that is
// never done; ExecuteContext finds functions by their namespace-qualified name.
func TestExecuteRunsContextFuncs(t *testing.T) {
	r := newRegistry(t)
	if err := r.RegisterContextFunc(echoTool("c"), func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		if ctx.Done() != nil && ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "ran " + name, nil
	}); err != nil {
		t.Fatal(err)
	}
	results := execChat(t, r, nil, chatCall("1", "c", "{}"))
	if results[0].Content != "ran c" {
		t.Errorf("%q", results[0].Content)
	}
	// ExecuteContext finds a function by the registered (namespace-qualified) name.
	tool := echoTool("list")
	tool.Namespace = "gh"
	if err := r.RegisterContextFunc(tool, func(_ context.Context, name string, _ json.RawMessage) (string, error) {
		return "ran " + name, nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err := r.ExecuteContext(context.Background(), chatBatch(t, chatCall("2", "gh-list", "{}")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeChat(t, out)[0].Content; got != "ran gh-list" {
		t.Errorf("namespaced: %q", got)
	}
}
