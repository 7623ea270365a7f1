// Package conformance runs the tool-call conformance corpus (tests/conformance/execute) and the
// conversation corpus (tests/conformance/conversation, see conversation.go) through
// the Go binding: it builds the fixture's registry with Go host functions and reads the cases.
// The binding's tests compare each case's messages with expected.json byte for byte, and
// cmd/trexecute prints them for the cross-language check.
package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// Case is one provider/case directory of the corpus.
type Case struct {
	// Name is "<provider>/<case>".
	Name  string
	Calls []byte
	// Options is nil when the case has no options.json (the defaults).
	Options *toolregistry.ExecuteOptions
	// Expected is expected.json without its final newline.
	Expected []byte
}

type fixture struct {
	Discovery toolregistry.DiscoveryOptions `json:"discovery"`
	Tools     []struct {
		Tool json.RawMessage `json:"tool"`
		Host *string         `json:"host"`
	} `json:"tools"`
	Disable []struct {
		Name   string `json:"name"`
		Reason string `json:"reason"`
	} `json:"disable"`
}

// Host is the scripted host function of the given kind for the tool registered as name:
// "echo" answers `NAME <- ARGS`, "fail" returns the error `upstream returned 503`, "panic"
// panics with "kaboom" (the binding turns that into an error result).
func Host(kind, name string) (toolregistry.HostFunc, error) {
	switch kind {
	case "echo":
		return func(args json.RawMessage) (string, error) { return name + " <- " + string(args), nil }, nil
	case "fail":
		return func(json.RawMessage) (string, error) { return "", errors.New("upstream returned 503") }, nil
	case "panic":
		return func(json.RawMessage) (string, error) { panic("kaboom") }, nil
	}
	return nil, fmt.Errorf("unknown host kind %q", kind)
}

// NewRegistry builds the registry of dir/fixture.json through the binding: each tool registered
// with its scripted Go host function (or without one for a null host), the disabled tools
// disabled with their reasons, discovery enabled with the fixture's options.
func NewRegistry(dir string) (*toolregistry.Registry, error) {
	var f fixture
	if err := readJSON(filepath.Join(dir, "fixture.json"), &f); err != nil {
		return nil, err
	}
	reg, err := toolregistry.NewRegistry()
	if err != nil {
		return nil, err
	}
	if err := populate(reg, &f); err != nil {
		reg.Close()
		return nil, err
	}
	return reg, nil
}

func populate(reg *toolregistry.Registry, f *fixture) error {
	for i, entry := range f.Tools {
		if entry.Host == nil {
			if _, err := reg.RegisterJSON(entry.Tool); err != nil {
				return fmt.Errorf("fixture tools[%d]: %w", i, err)
			}
			continue
		}
		var def struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(entry.Tool, &def); err != nil {
			return fmt.Errorf("fixture tools[%d]: %w", i, err)
		}
		host, err := Host(*entry.Host, def.Name)
		if err != nil {
			return fmt.Errorf("fixture tools[%d]: %w", i, err)
		}
		name, err := reg.RegisterFuncJSON(entry.Tool, host)
		if err != nil {
			return fmt.Errorf("fixture tools[%d]: %w", i, err)
		}
		if name != def.Name {
			return fmt.Errorf("fixture tools[%d]: registered as %q, not %q", i, name, def.Name)
		}
	}
	for _, d := range f.Disable {
		if err := reg.Disable(d.Name, d.Reason); err != nil {
			return err
		}
	}
	return reg.EnableDiscovery(f.Discovery)
}

// Cases reads every case under dir, sorted by name.
func Cases(dir string) ([]Case, error) {
	providers, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, p := range providers {
		if !p.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(dir, p.Name()))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			c, err := readCase(filepath.Join(dir, p.Name(), e.Name()), p.Name()+"/"+e.Name())
			if err != nil {
				return nil, err
			}
			cases = append(cases, c)
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

func readCase(path, name string) (Case, error) {
	c := Case{Name: name}
	var err error
	if c.Calls, err = os.ReadFile(filepath.Join(path, "calls.json")); err != nil {
		return c, err
	}
	expected, err := os.ReadFile(filepath.Join(path, "expected.json"))
	if err != nil {
		return c, err
	}
	c.Expected = bytes.TrimSuffix(bytes.TrimSuffix(expected, []byte("\n")), []byte("\r"))
	optionsPath := filepath.Join(path, "options.json")
	if _, err := os.Stat(optionsPath); err == nil {
		c.Options = &toolregistry.ExecuteOptions{}
		if err := readJSON(optionsPath, c.Options); err != nil {
			return c, err
		}
	}
	return c, nil
}

// readJSON decodes a file strictly: a key this package does not know is an error, so a corpus
// that grows a new option is not silently run with the defaults.
func readJSON(path string, v any) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
