package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const corpus = "../../../../tests/conformance/conversation"

// Every case prints one line with its expected messages and loaded tools, sorted by name.
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
	dirs, _ := filepath.Glob(filepath.Join(corpus, "*", "calls.json"))
	if len(lines) != len(dirs) || len(lines) == 0 {
		t.Fatalf("%d lines for %d cases", len(lines), len(dirs))
	}
	prev := ""
	for _, line := range lines {
		fields := strings.Split(line, "\t")
		if len(fields) != 3 || fields[0] <= prev {
			t.Fatalf("line out of order or not three fields: %q", line)
		}
		prev = fields[0]
		for i, file := range []string{"expected.json", "loaded.json"} {
			want, err := os.ReadFile(filepath.Join(corpus, fields[0], file))
			if err != nil {
				t.Fatal(err)
			}
			if fields[i+1] != strings.TrimSuffix(string(want), "\n") {
				t.Errorf("%s %s: %s", fields[0], file, fields[i+1])
			}
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
