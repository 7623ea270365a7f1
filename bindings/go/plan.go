package toolregistry

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"unicode/utf8"
)

// The two-step tool loop. PrepareCalls reads the model's calls and answers a plan (plain JSON);
// the host runs the plan's host calls however it likes (goroutines, a worker pool, another
// process) and gives their results to FinishCalls, which answers the next turn's messages,
// byte for byte what Execute gives for the same outcomes. ExecuteContext is these two steps
// with the registry's Go functions run on goroutines.

// HostCall is one call of a plan that the host must run: Name is the registered tool name
// (call_deferred already resolved), Arguments the call's arguments, already checked against
// the tool's schema. ConcurrencySafe false means: run it alone, after the earlier host calls
// finished and before later ones start.
type HostCall struct {
	ID              string          `json:"id"`
	Name            string          `json:"name"`
	Arguments       json.RawMessage `json:"arguments"`
	ConcurrencySafe bool            `json:"concurrency_safe"`
}

// CallResult is the host's answer to one HostCall, for FinishCalls: content (the text the
// model sees), an error (the model sees "Error: " and the message), or unhandled (the host has
// no function for that name: the model gets the same "has no host function" error as Execute
// gives). Build one with ContentResult, ErrorResult or UnhandledResult.
type CallResult struct {
	ID      string
	Content string
	// Error, when not empty (or when Failed is set), makes this an error result.
	Error     string
	Failed    bool
	Unhandled bool
}

// ContentResult is a successful call's result.
func ContentResult(id, content string) CallResult { return CallResult{ID: id, Content: content} }

// ErrorResult is a failed call's result: the model sees "Error: " + message.
func ErrorResult(id, message string) CallResult {
	return CallResult{ID: id, Error: message, Failed: true}
}

// UnhandledResult says the host has no function for the call's tool.
func UnhandledResult(id string) CallResult { return CallResult{ID: id, Unhandled: true} }

// MarshalJSON writes the shape tr_registry_finish_calls reads.
func (c CallResult) MarshalJSON() ([]byte, error) {
	switch {
	case c.Unhandled:
		return json.Marshal(struct {
			ID        string `json:"id"`
			Unhandled bool   `json:"unhandled"`
		}{c.ID, true})
	case c.Failed || c.Error != "":
		return json.Marshal(struct {
			ID    string `json:"id"`
			Error string `json:"error"`
		}{c.ID, c.Error})
	default:
		return json.Marshal(struct {
			ID      string `json:"id"`
			Content string `json:"content"`
		}{c.ID, c.Content})
	}
}

// planCalls is the part of a plan that is the host's: each call's run, id, name, arguments and
// concurrency_safe (the rest is the library's).
type planCalls struct {
	Calls []struct {
		Run             string          `json:"run"`
		ID              string          `json:"id"`
		Name            string          `json:"name"`
		Arguments       json.RawMessage `json:"arguments"`
		ConcurrencySafe *bool           `json:"concurrency_safe"`
	} `json:"calls"`
}

// PlanHostCalls lists the calls of a plan from PrepareCalls that the host must run, in call
// order; the others were answered by the library.
func PlanHostCalls(plan json.RawMessage) ([]HostCall, error) {
	var p planCalls
	if err := json.Unmarshal(plan, &p); err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Message: "plan: " + err.Error()}
	}
	calls := make([]HostCall, 0, len(p.Calls))
	for _, c := range p.Calls {
		if c.Run != "host" {
			continue
		}
		calls = append(calls, HostCall{
			ID:              c.ID,
			Name:            c.Name,
			Arguments:       c.Arguments,
			ConcurrencySafe: c.ConcurrencySafe == nil || *c.ConcurrencySafe,
		})
	}
	return calls, nil
}

// PrepareCalls reads a batch of the model's tool calls as Execute does (any provider shape;
// opts.Parallel is ignored: the host decides how to run) and returns the plan: JSON to give
// back to FinishCalls unchanged, from any goroutine or process. PlanHostCalls lists the calls
// the host must run.
func (r *Registry) PrepareCalls(calls []byte, opts *ExecuteOptions) (json.RawMessage, error) {
	in, options, err := executeArgs(calls, opts)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = r.use(func(h registryHandle) (err error) {
		out, err = nativePrepareCalls(h, in, options)
		return err
	})
	return out, err
}

// FinishCalls takes the plan from PrepareCalls and exactly one result per host call, in any
// order, and returns the next turn's messages, byte for byte what Execute gives for the same
// outcomes. ErrInvalidArgument (nothing applied) for a malformed plan, a missing result, or a
// duplicated or unknown id. A host call whose tool was unregistered in between becomes the
// unknown-tool error result.
func (r *Registry) FinishCalls(plan json.RawMessage, results []CallResult) (json.RawMessage, error) {
	doc, err := resultsJSON(results)
	if err != nil {
		return nil, err
	}
	return r.FinishCallsJSON(plan, doc)
}

// FinishCallsJSON is FinishCalls with the results as the JSON array tr_registry_finish_calls
// reads: [{"id", "content"} | {"id", "error"} | {"id", "unhandled": true}].
func (r *Registry) FinishCallsJSON(plan json.RawMessage, results []byte) (json.RawMessage, error) {
	p, res, err := finishArgs(plan, results)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = r.use(func(h registryHandle) (err error) {
		out, err = nativeFinishCalls(h, p, res)
		return err
	})
	return out, err
}

// ExecuteContext is Execute for Go functions that may take their time: the registry's host
// functions (HostFunc, ContextFunc, fallbacks) run on goroutines, all at once except tools whose
// metadata says ConcurrencySafe false (those run alone), with ctx given to ContextFuncs. The
// messages are byte for byte what Execute gives for the same outcomes (opts.Parallel is
// ignored). When ctx is done before the results are in, it returns ctx.Err() at once and the
// batch is dropped: nothing is finished, functions still running see ctx done and their results
// are discarded.
func (r *Registry) ExecuteContext(ctx context.Context, calls []byte, opts *ExecuteOptions) (json.RawMessage, error) {
	return executeContext(ctx, r.hosts, func() (json.RawMessage, error) { return r.PrepareCalls(calls, opts) }, r.FinishCalls)
}

// executeContext is prepare, the plan's calls run by the functions of hosts, then finish; it
// returns ctx.Err() without finishing when ctx is done first.
func executeContext(ctx context.Context, hosts *hostCounter, prepare func() (json.RawMessage, error),
	finish func(json.RawMessage, []CallResult) (json.RawMessage, error)) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	plan, err := prepare()
	if err != nil {
		return nil, err
	}
	results, err := runPlan(ctx, hosts, plan)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return finish(plan, results)
}

// resultsJSON encodes results as the JSON array finish reads.
func resultsJSON(results []CallResult) ([]byte, error) {
	if results == nil {
		results = []CallResult{}
	}
	doc, err := json.Marshal(results)
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding call results: %w", err)
	}
	return doc, nil
}

func finishArgs(plan json.RawMessage, results []byte) (p, res []byte, err error) {
	if p, err = cJSON("plan", plan); err != nil {
		return nil, nil, err
	}
	if res, err = cJSON("results", results); err != nil {
		return nil, nil, err
	}
	return p, res, nil
}

// runPlan runs the plan's host calls with the functions of hosts and returns one result per
// host call, or ctx.Err() as soon as ctx is done. Consecutive concurrency-safe calls run
// together; an unsafe call waits for those before it and holds back those after it.
func runPlan(ctx context.Context, hosts *hostCounter, plan json.RawMessage) ([]CallResult, error) {
	calls, err := PlanHostCalls(plan)
	if err != nil {
		return nil, err
	}
	// Each goroutine writes its own slot; after a cancellation nobody reads them.
	results := make([]CallResult, len(calls))
	var wg sync.WaitGroup
	wait := func() error {
		done := make(chan struct{})
		go func() {
			wg.Wait()
			close(done)
		}()
		// Both may be ready at once (functions return as soon as they see ctx done) and select
		// then picks either: a cancellation seen after the last result still drops the batch.
		select {
		case <-done:
			return ctx.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for i, call := range calls {
		if !call.ConcurrencySafe {
			if err := wait(); err != nil {
				return nil, err
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wg.Add(1)
		go func(slot *CallResult, call HostCall) {
			defer wg.Done()
			// Stays the answer if the function calls runtime.Goexit (t.FailNow): on a goroutine of
			// its own that ends the goroutine, not the program.
			*slot = ErrorResult(call.ID, `the host function of "`+call.Name+`" exited without returning (runtime.Goexit)`)
			*slot = runHostCall(ctx, hosts, call)
		}(&results[i], call)
		if !call.ConcurrencySafe {
			if err := wait(); err != nil {
				return nil, err
			}
		}
	}
	if err := wait(); err != nil {
		return nil, err
	}
	return results, nil
}

// runHostCall runs one call with the function the registry holds for its tool, as the library
// would run it through Execute: the same error texts for a panic or a NUL byte.
func runHostCall(ctx context.Context, hosts *hostCounter, call HostCall) CallResult {
	f := hosts.lookup(call.Name)
	if f == nil {
		return UnhandledResult(call.ID)
	}
	out := f.run(ctx, call.Name, call.Arguments).checkNUL(call.Name)
	if out.failed {
		return ErrorResult(call.ID, out.failure)
	}
	if !utf8.ValidString(out.content) {
		return ErrorResult(call.ID, fmt.Sprintf(`the host function of "%s" returned text that is not UTF-8`, call.Name))
	}
	return ContentResult(call.ID, out.content)
}

// PrepareCalls is Registry.PrepareCalls on the conversation: in the conversation's format.
func (c *Conversation) PrepareCalls(calls []byte, opts *ExecuteOptions) (json.RawMessage, error) {
	in, options, err := executeArgs(calls, opts)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = c.use(func(h conversationHandle) (err error) {
		out, err = nativeConversationPrepareCalls(h, in, options)
		return err
	})
	return out, err
}

// FinishCalls is Registry.FinishCalls on the conversation; it also loads what the calls
// revealed (tools found by discover_tools or tool_search, deferred tools called), as Execute
// does.
func (c *Conversation) FinishCalls(plan json.RawMessage, results []CallResult) (json.RawMessage, error) {
	doc, err := resultsJSON(results)
	if err != nil {
		return nil, err
	}
	return c.FinishCallsJSON(plan, doc)
}

// FinishCallsJSON is FinishCalls with the results as JSON (see Registry.FinishCallsJSON).
func (c *Conversation) FinishCallsJSON(plan json.RawMessage, results []byte) (json.RawMessage, error) {
	p, res, err := finishArgs(plan, results)
	if err != nil {
		return nil, err
	}
	var out []byte
	err = c.use(func(h conversationHandle) (err error) {
		out, err = nativeConversationFinishCalls(h, p, res)
		return err
	})
	return out, err
}

// ExecuteContext is Registry.ExecuteContext on the conversation: the registry's Go functions
// run on goroutines, and what the calls revealed is loaded as Execute would. When ctx is done
// first it returns ctx.Err() and nothing is loaded.
func (c *Conversation) ExecuteContext(ctx context.Context, calls []byte, opts *ExecuteOptions) (json.RawMessage, error) {
	return executeContext(ctx, c.hosts, func() (json.RawMessage, error) { return c.PrepareCalls(calls, opts) }, c.FinishCalls)
}
