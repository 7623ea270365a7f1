package toolregistry

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
)

// ConversationMode chooses how a conversation lays out its tool list; see ConversationOptions.
type ConversationMode string

// The conversation modes. The empty ConversationMode means ModeSummaries.
const (
	// ModeSummaries (the reference's behaviour): the enabled non-deferred tools, discover_tools
	// (and call_deferred) with the deferred tools listed in its description, then the loaded
	// deferred tools.
	ModeSummaries ConversationMode = "summaries"
	// ModeStable sends the same tools, but the built-ins' descriptions never change and the
	// deferred tools are listed in SystemText: a new deferred tool changes only SystemText, and
	// loading a tool only appends to Tools, so the provider's prompt cache survives.
	ModeStable ConversationMode = "stable"
	// ModeNative (Anthropic and OpenAI Responses only) sends the search tool and every enabled
	// tool, deferred ones marked "defer_loading": true, and answers searches in the provider's
	// own shape (tool_reference blocks; tool_search_output items).
	ModeNative ConversationMode = "native"
	// ModeAuto sends every enabled tool and no search tool while they total under
	// DeferThresholdTokens, else behaves as ModeStable.
	ModeAuto ConversationMode = "auto"
)

// SearchSide says who runs searches in ModeNative.
type SearchSide string

// The search sides. The empty SearchSide means SearchClient.
const (
	// SearchClient: the library is the search tool (discover_tools or a client tool_search).
	SearchClient SearchSide = "client"
	// SearchServer: the provider's hosted search tool is sent and the provider searches.
	SearchServer SearchSide = "server"
)

// ConversationOptions configures NewConversation. The zero value is an OpenAI chat conversation
// in ModeSummaries. It is marshalled to the options JSON of tr_conversation_new.
type ConversationOptions struct {
	// APIFormat of the tool list and of the calls Execute reads; "" means OpenAIChat.
	APIFormat APIFormat `json:"api_format,omitempty"`
	// Mode; "" means ModeSummaries.
	Mode ConversationMode `json:"mode,omitempty"`
	// Search; "" means SearchClient.
	Search SearchSide `json:"search,omitempty"`
	// Loaded restores a saved conversation: the names Loaded returned.
	Loaded []string `json:"loaded,omitempty"`
	// Strict renders schemas in OpenAI strict mode (OpenAI formats only).
	Strict bool `json:"strict,omitempty"`
	// DeferThresholdTokens is ModeAuto's threshold (UTF-8 bytes / 4); nil means 10000.
	DeferThresholdTokens *int `json:"defer_threshold_tokens,omitempty"`
	// SummaryMaxTokens caps the list of deferred tools (UTF-8 bytes / 4) wherever the mode
	// writes it, ending it with "- ... and N more"; nil means none in ModeSummaries (as the
	// reference) and 2000 in ModeStable and ModeAuto.
	SummaryMaxTokens *int `json:"summary_max_tokens,omitempty"`
	// Discovery gives the conversation's searches their own ranking options; nil uses the
	// registry's.
	Discovery *DiscoveryOptions `json:"discovery,omitempty"`
	// TopK, MaxTokens, Namespaces and Tags apply to every search: at most TopK hits (0: 10), an
	// answer of at most MaxTokens tokens (0: no budget), and the same filters as DiscoverRequest.
	TopK       int      `json:"top_k,omitempty"`
	MaxTokens  int      `json:"max_tokens,omitempty"`
	Namespaces []string `json:"namespaces,omitempty"`
	Tags       []string `json:"tags,omitempty"`
}

// ConversationTools is the next request's tool list, from Conversation.Tools.
type ConversationTools struct {
	// Tools is the exact JSON array to send as the request's tools, byte for byte as the library
	// wrote it.
	Tools json.RawMessage `json:"tools"`
	// SystemText is the text to add to the system prompt ("" when there is none).
	SystemText string `json:"system_text"`
	// Fingerprint is the SHA-256 (64 hex digits) of Tools and SystemText: it changes exactly when
	// those bytes change, that is when the provider's prompt cache breaks.
	Fingerprint string `json:"fingerprint"`
}

// Conversation keeps one agent conversation's tool list: the tools the model has found stay
// loaded and are sent on every later request, in the provider's shape and mode.
//
// Create one with NewConversation and Close it when done. It shares the registry's state and
// sees its changes, and stays usable after the Registry is closed. All methods are safe for
// concurrent use; the library runs calls on one conversation one at a time.
type Conversation struct {
	// mu guards handle, active and closing, as in Registry: the handle is freed by Close when no
	// call is in flight, else by the last call to end, so a host function run by Execute may
	// Close the conversation without a deadlock.
	mu      sync.Mutex
	handle  conversationHandle
	active  int
	closing bool
	cleanup runtime.Cleanup
	// hosts are the registry's Go functions, which ExecuteContext runs.
	hosts *hostCounter
}

// NewConversation starts a conversation over reg with typed options.
// ErrInvalidArgument for bad options, e.g. ModeNative with OpenAIChat or Gemini.
func NewConversation(reg *Registry, opts ConversationOptions) (*Conversation, error) {
	doc, err := json.Marshal(opts)
	if err != nil {
		return nil, fmt.Errorf("toolregistry: encoding conversation options: %w", err)
	}
	return NewConversationJSON(reg, doc)
}

// NewConversationJSON starts a conversation over reg with options given as JSON (the object
// tr_conversation_new documents; nil means the defaults).
func NewConversationJSON(reg *Registry, optionsJSON []byte) (*Conversation, error) {
	if reg == nil {
		return nil, &Error{Code: CodeNullArgument, Message: "NewConversation: registry is nil"}
	}
	var in []byte
	if optionsJSON != nil {
		var err error
		if in, err = cJSON("options", optionsJSON); err != nil {
			return nil, err
		}
	}
	var h conversationHandle
	if err := reg.use(func(rh registryHandle) (err error) {
		h, err = nativeConversationNew(rh, in)
		return err
	}); err != nil {
		return nil, err
	}
	c := &Conversation{handle: h, hosts: reg.hosts}
	c.cleanup = runtime.AddCleanup(c, cleanupConversation, h)
	return c, nil
}

// cleanupConversation frees a conversation the program forgot to Close.
func cleanupConversation(h conversationHandle) {
	nativeConversationFree(h)
	freedByCleanup.Add(1)
}

// Close frees the conversation. It is safe to call more than once and always returns nil;
// afterwards every method returns ErrClosed. Calls in flight finish first (the last of them
// frees the handle), so Close never waits. The registry is not affected.
func (c *Conversation) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	c.freeIfIdle()
	return nil
}

// freeIfIdle frees the handle of a closing conversation with no call in flight; c.mu is held.
func (c *Conversation) freeIfIdle() {
	if c.closing && c.active == 0 && c.handle != nil {
		c.cleanup.Stop()
		nativeConversationFree(c.handle)
		c.handle = nil
	}
}

// use runs f on the live handle, counted as a call in flight, or returns ErrClosed.
func (c *Conversation) use(f func(h conversationHandle) error) error {
	c.mu.Lock()
	if c.handle == nil || c.closing {
		c.mu.Unlock()
		return ErrClosed
	}
	h := c.handle
	c.active++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.active--
		c.freeIfIdle()
		c.mu.Unlock()
		// The cleanup must not run while C uses the handle.
		runtime.KeepAlive(c)
	}()
	return f(h)
}

// ToolsJSON returns the next request's tools exactly as the library wrote them:
// {"tools": [...], "system_text": "...", "fingerprint": "..."}.
func (c *Conversation) ToolsJSON() (json.RawMessage, error) {
	var out []byte
	err := c.use(func(h conversationHandle) (err error) {
		out, err = nativeConversationTools(h)
		return err
	})
	return out, err
}

// Tools returns the next request's tools: the exact tools array, the system prompt text and the
// fingerprint. It does no work proportional to the catalog when the registry has not changed.
func (c *Conversation) Tools() (ConversationTools, error) {
	var t ConversationTools
	out, err := c.ToolsJSON()
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(out, &t); err != nil {
		return t, fmt.Errorf("toolregistry: decoding conversation tools: %w", err)
	}
	return t, nil
}

// Execute runs the model's tool calls like Registry.Execute, in the conversation's format, and
// keeps what the model found: tools returned by discover_tools or a Responses tool_search_call,
// and deferred tools it called directly or through call_deferred, become loaded and are
// appended to later Tools. In ModeNative a search is answered with tool_reference blocks
// (Anthropic) or a tool_search_output item (Responses). opts may be nil; its APIFormat, if set,
// must be the conversation's. Calls run one after another.
func (c *Conversation) Execute(calls []byte, opts *ExecuteOptions) (json.RawMessage, error) {
	in, options, err := executeArgs(calls, opts)
	if err != nil {
		return nil, err
	}
	var out []byte
	if err := c.use(func(h conversationHandle) (err error) {
		out, err = nativeConversationExecute(h, in, options)
		return err
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// Reveal loads these registered tools as if the model had found them. All or none: an unknown
// name is ErrNotFound (the message names it) and loads nothing.
func (c *Conversation) Reveal(names ...string) error {
	if names == nil {
		names = []string{}
	}
	doc, err := json.Marshal(names)
	if err != nil {
		return fmt.Errorf("toolregistry: encoding names: %w", err)
	}
	in, err := cJSON("names", doc)
	if err != nil {
		return err
	}
	return c.use(func(h conversationHandle) error { return nativeConversationReveal(h, in) })
}

// LoadedJSON returns Loaded as the library's JSON array.
func (c *Conversation) LoadedJSON() (json.RawMessage, error) {
	var out []byte
	err := c.use(func(h conversationHandle) (err error) {
		out, err = nativeConversationLoaded(h)
		return err
	})
	return out, err
}

// Loaded returns the deferred tools loaded so far, in load order. Pass them as
// ConversationOptions.Loaded to restore the conversation. A loaded tool that is unregistered or
// disabled stays listed (it returns to the tool list when it comes back).
func (c *Conversation) Loaded() ([]string, error) {
	out, err := c.LoadedJSON()
	if err != nil {
		return nil, err
	}
	names := []string{}
	if err := json.Unmarshal(out, &names); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding loaded names: %w", err)
	}
	return names, nil
}
