package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const corpus = "../../../../tests/conformance/execute"

// Every case prints one line with its expected messages, sorted by name.
// With --steps too: the same lines through the two-step loop.
func TestRun(t *testing.T) {
	for _, steps := range []bool{false, true} {
		args := []string{corpus}
		if steps {
			args = append(args, "--steps")
		}
		t.Run(strings.Join(args[1:], ""), func(t *testing.T) { testRun(t, args) })
	}
}

func testRun(t *testing.T, args []string) {
	var out bytes.Buffer
	if err := run(args, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 50 {
		t.Fatalf("%d lines", len(lines))
	}
	prev := ""
	for _, line := range lines {
		name, messages, ok := strings.Cut(line, "\t")
		if !ok || name <= prev {
			t.Fatalf("line out of order or without a tab: %q", line)
		}
		prev = name
		want, err := os.ReadFile(filepath.Join(corpus, name, "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		if messages != strings.TrimSuffix(string(want), "\n") {
			t.Errorf("%s: %s", name, messages)
		}
	}
}

func TestRunErrors(t *testing.T) {
	var out bytes.Buffer
	if err := run(nil, &out); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Fatalf("no argument: %v", err)
	}
	if err := run([]string{t.TempDir()}, &out); err == nil {
		t.Fatal("an empty directory must fail")
	}
}
