package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// ConversationCase is one case of the conversation corpus (tests/conformance/conversation): a
// conversation started with Options, the model's Calls executed once, then the messages must be
// Expected and the conversation's loaded tools Loaded, both byte for byte.
type ConversationCase struct {
	Name    string
	Options toolregistry.ConversationOptions
	Calls   []byte
	// Expected and Loaded are expected.json and loaded.json without their final newline.
	Expected []byte
	Loaded   []byte
	// Tools is tools.json without its final newline (the tools answer after the calls), or nil
	// when the case has none.
	Tools []byte
}

// ConversationResult is what a case produced through the binding.
type ConversationResult struct {
	Messages []byte
	Loaded   []byte
	Tools    []byte
}

// ConversationCases reads every case directory under dir, sorted by name.
func ConversationCases(dir string) ([]ConversationCase, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cases []ConversationCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		c := ConversationCase{Name: e.Name()}
		// Typed options, read strictly: the corpus exercises ConversationOptions' marshalling.
		if err := readJSON(filepath.Join(path, "options.json"), &c.Options); err != nil {
			return nil, err
		}
		if c.Calls, err = os.ReadFile(filepath.Join(path, "calls.json")); err != nil {
			return nil, err
		}
		if c.Expected, err = readTrimmed(filepath.Join(path, "expected.json")); err != nil {
			return nil, err
		}
		if c.Loaded, err = readTrimmed(filepath.Join(path, "loaded.json")); err != nil {
			return nil, err
		}
		if _, statErr := os.Stat(filepath.Join(path, "tools.json")); statErr == nil {
			if c.Tools, err = readTrimmed(filepath.Join(path, "tools.json")); err != nil {
				return nil, err
			}
		}
		cases = append(cases, c)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

func readTrimmed(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	return bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r")), err
}

// RunConversation runs one case as tests/conversation.rs does: a fresh fixture registry from
// dir/fixture.json, a conversation on it, the registry closed (the conversation outlives it),
// the calls executed, then the loaded tools and the tools answer read.
func RunConversation(dir string, c ConversationCase) (ConversationResult, error) {
	return RunConversationWith(dir, c, func(conv *toolregistry.Conversation, calls []byte) (json.RawMessage, error) {
		return conv.Execute(calls, nil)
	})
}

// RunConversationWith is RunConversation with the calls run by execute (ExecuteContext, say).
func RunConversationWith(dir string, c ConversationCase, execute func(*toolregistry.Conversation, []byte) (json.RawMessage, error)) (ConversationResult, error) {
	var res ConversationResult
	reg, err := NewRegistry(dir)
	if err != nil {
		return res, err
	}
	conv, err := toolregistry.NewConversation(reg, c.Options)
	reg.Close()
	if err != nil {
		return res, fmt.Errorf("%s: %w", c.Name, err)
	}
	defer conv.Close()
	if res.Messages, err = execute(conv, c.Calls); err != nil {
		return res, fmt.Errorf("%s: execute: %w", c.Name, err)
	}
	loaded, err := conv.LoadedJSON()
	if err != nil {
		return res, fmt.Errorf("%s: loaded: %w", c.Name, err)
	}
	res.Loaded = []byte(loaded)
	tools, err := conv.ToolsJSON()
	if err != nil {
		return res, fmt.Errorf("%s: tools: %w", c.Name, err)
	}
	res.Tools = []byte(tools)
	return res, nil
}
