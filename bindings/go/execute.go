package toolregistry

import (
	"encoding/json"
	"fmt"
)

// ExecuteOptions tunes Execute. The zero value (or a nil *ExecuteOptions) detects the provider
// shape and runs the calls one after another on the calling goroutine.
type ExecuteOptions struct {
	// APIFormat reads the calls and writes the messages in this provider's shape instead of
	// detecting it from the calls.
	APIFormat APIFormat `json:"api_format,omitempty"`
	// IncludeAssistant also returns the assistant turn, rebuilt in the same shape, before the
	// results.
	IncludeAssistant bool `json:"include_assistant,omitempty"`
	// Parallel runs up to this many calls at once (1..64) on threads the library starts, so host
	// functions then run on several goroutines at once; 0 or 1 runs them one after another.
	// Tools whose metadata says ConcurrencySafe false always run alone. Results keep call order.
	Parallel int `json:"parallel,omitempty"`
}

// ToolStatus is one registered tool's state, from ToolsStatus.
type ToolStatus struct {
	Name string `json:"name"`
	// Namespace is "" for a tool without one.
	Namespace string `json:"namespace"`
	// Enabled counts the namespace too: a tool of a disabled namespace is not enabled.
	Enabled bool `json:"enabled"`
	// Reason is why the tool is disabled, as given to Disable; "" when enabled or none was given.
	Reason   string   `json:"reason"`
	Deferred bool     `json:"deferred"`
	Tags     []string `json:"tags"`
	// Callable is true when a call would reach a host function: its own or the fallback.
	Callable bool `json:"callable"`
	// Embedding is the state of the tool's vector when the registry has an embedder, else "".
	Embedding EmbeddingState `json:"embedding,omitempty"`
}

// RegisterFunc registers one tool with the Go function that runs its calls (see HostFunc). A
// tool of the same name is replaced, with its function. Register a tool without a function
// (for the fallback, or for a definition only) with Register.
func (r *Registry) RegisterFunc(tool Tool, fn HostFunc) error {
	doc, err := json.Marshal(tool)
	if err != nil {
		return fmt.Errorf("toolregistry: encoding tool: %w", err)
	}
	_, err = r.RegisterFuncJSON(doc, fn)
	return err
}

// RegisterFuncJSON is RegisterFunc for one tool given as JSON, in any shape RegisterJSON takes.
// It returns the registered name (namespace-qualified when the tool has a namespace).
func (r *Registry) RegisterFuncJSON(toolJSON []byte, fn HostFunc) (string, error) {
	if fn == nil {
		return "", &Error{Code: CodeNullArgument, Message: "RegisterFunc: fn is nil (use Register for a tool without a host function)"}
	}
	return r.registerHost(toolJSON, &hostFunc{tool: fn, counter: r.hosts})
}

// RegisterContextFunc registers one tool with a ContextFunc that runs its calls: ExecuteContext
// runs it on its own goroutine with the caller's ctx, Execute with context.Background(). A tool
// of the same name is replaced, with its function.
func (r *Registry) RegisterContextFunc(tool Tool, fn ContextFunc) error {
	doc, err := json.Marshal(tool)
	if err != nil {
		return fmt.Errorf("toolregistry: encoding tool: %w", err)
	}
	_, err = r.RegisterContextFuncJSON(doc, fn)
	return err
}

// RegisterContextFuncJSON is RegisterContextFunc for one tool given as JSON, in any shape
// RegisterJSON takes. It returns the registered name.
func (r *Registry) RegisterContextFuncJSON(toolJSON []byte, fn ContextFunc) (string, error) {
	if fn == nil {
		return "", &Error{Code: CodeNullArgument, Message: "RegisterContextFunc: fn is nil (use Register for a tool without a host function)"}
	}
	return r.registerHost(toolJSON, &hostFunc{withCtx: fn, counter: r.hosts})
}

// registerHost registers one tool with f, and indexes f under the registered name for
// ExecuteContext once the library holds it.
func (r *Registry) registerHost(toolJSON []byte, f *hostFunc) (string, error) {
	in, err := cJSON("tool", toolJSON)
	if err != nil {
		return "", err
	}
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeRegisterCallable(h, in, f)
		return err
	}); err != nil {
		return "", err
	}
	var names []string
	if err := json.Unmarshal(out, &names); err != nil || len(names) != 1 {
		return "", fmt.Errorf("toolregistry: decoding registered name %q: %v", out, err)
	}
	r.hosts.index(f, names[0])
	return names[0], nil
}

// SetFallback sets the function that runs calls of registered tools without a HostFunc of their
// own; nil removes it. The previous fallback is released once none of its calls is running.
func (r *Registry) SetFallback(fn FallbackFunc) error {
	if fn == nil {
		return r.setFallback(nil)
	}
	return r.setFallback(&hostFunc{fallback: fn, counter: r.hosts})
}

// SetFallbackContext is SetFallback with a ContextFunc, which gets the tool's name and, from
// ExecuteContext, the caller's ctx; nil removes the fallback.
func (r *Registry) SetFallbackContext(fn ContextFunc) error {
	if fn == nil {
		return r.setFallback(nil)
	}
	return r.setFallback(&hostFunc{withCtx: fn, counter: r.hosts})
}

func (r *Registry) setFallback(f *hostFunc) error {
	if err := r.use(func(h registryHandle) error { return nativeSetFallback(h, f) }); err != nil {
		return err
	}
	if f != nil {
		r.hosts.index(f, "")
	}
	return nil
}

// Execute runs a batch of the model's tool calls and returns the messages of the next turn, a
// JSON array to append after the assistant turn, in the same provider's shape.
//
// calls is what the provider returned, in any of these shapes: OpenAI chat (an assistant
// message with "tool_calls", or that array), OpenAI Responses (the response, its "output", or
// "function_call" items), Anthropic (an assistant message or its "content" with "tool_use"
// blocks), Gemini (a Content, its "parts" with "functionCall", or a whole response). The answer
// holds one result per call, in call order: OpenAI chat {"role":"tool","tool_call_id","content"}
// per call; Responses {"type":"function_call_output","call_id","output"} per call; Anthropic one
// user message of "tool_result" blocks ("is_error": true on failures); Gemini one user Content of
// "functionResponse" parts ({"output"} or {"error"}).
//
// One bad call never fails the batch: bad or schema-breaking arguments, an unknown or disabled
// tool, a tool without a host function, a host function's error or panic each become an error
// result for the model ("Error: ..."). discover_tools and call_deferred run in the library.
// Execute itself fails (with an *Error) only when calls is no provider's tool-call list or the
// options are invalid.
func (r *Registry) Execute(calls []byte, opts *ExecuteOptions) (json.RawMessage, error) {
	in, options, err := executeArgs(calls, opts)
	if err != nil {
		return nil, err
	}
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeExecute(h, in, options)
		return err
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// Disable hides a tool, or every tool of a namespace, like SetEnabled(name, false), and records
// why: a model that calls it gets `tool "NAME" is disabled: REASON`, and ToolsStatus shows it.
// An empty reason records none. SetEnabled(name, true) enables it again and clears the reason.
func (r *Registry) Disable(name, reason string) error {
	n, err := cText("name", name)
	if err != nil {
		return err
	}
	var why []byte
	if reason != "" {
		if why, err = cText("reason", reason); err != nil {
			return err
		}
	}
	return r.use(func(h registryHandle) error { return nativeDisable(h, n, why) })
}

// ToolsStatus returns the state of every registered tool, disabled ones included, sorted by
// name.
func (r *Registry) ToolsStatus() ([]ToolStatus, error) {
	var out []byte
	if err := r.use(func(h registryHandle) (err error) {
		out, err = nativeToolsStatus(h)
		return err
	}); err != nil {
		return nil, err
	}
	var status []ToolStatus
	if err := json.Unmarshal(out, &status); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding tools status: %w", err)
	}
	return status, nil
}

// executeArgs encodes a call list and its options as the C strings Registry.Execute and
// Conversation.Execute pass on; options is nil when opts is.
func executeArgs(calls []byte, opts *ExecuteOptions) (in, options []byte, err error) {
	if in, err = cJSON("calls", calls); err != nil {
		return nil, nil, err
	}
	if opts == nil {
		return in, nil, nil
	}
	doc, err := json.Marshal(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("toolregistry: encoding execute options: %w", err)
	}
	if options, err = cJSON("options", doc); err != nil {
		return nil, nil, err
	}
	return in, options, nil
}
