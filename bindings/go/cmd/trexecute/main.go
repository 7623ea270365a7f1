// Command trexecute runs the tool-call conformance corpus through the Go binding and prints, for
// every case sorted by name, one line: "<provider>/<case>", a tab, and the messages JSON exactly
// as Execute returned it. The cross-language check compares these lines with the other
// languages' byte for byte.
//
//	go run ./cmd/trexecute ../../tests/conformance/execute
//
// With --steps (after the directory) the calls run through the two-step loop instead:
// ExecuteContext, which is PrepareCalls, the host functions on goroutines, then FinishCalls; the
// lines must be the same.
//
// It builds the corpus registry with the scripted Go host functions (see internal/conformance).
// A case Execute refuses prints "ERROR: " and the error instead of messages, and the exit status
// is then 1.
package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/toolregistry-rs/toolregistry-rs/bindings/go/internal/conformance"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "trexecute:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	steps := len(args) == 2 && args[1] == "--steps"
	if len(args) != 1 && !steps {
		return fmt.Errorf("usage: trexecute CORPUS_DIR [--steps] (tests/conformance/execute)")
	}
	cases, err := conformance.Cases(args[0])
	if err != nil {
		return err
	}
	if len(cases) == 0 {
		return fmt.Errorf("%s: no cases", args[0])
	}
	reg, err := conformance.NewRegistry(args[0])
	if err != nil {
		return err
	}
	defer reg.Close()
	out := bufio.NewWriter(stdout)
	failed := 0
	for _, c := range cases {
		var messages []byte
		if steps {
			messages, err = reg.ExecuteContext(context.Background(), c.Calls, c.Options)
		} else {
			messages, err = reg.Execute(c.Calls, c.Options)
		}
		if err != nil {
			failed++
			fmt.Fprintf(out, "%s\tERROR: %v\n", c.Name, err)
			continue
		}
		fmt.Fprintf(out, "%s\t%s\n", c.Name, messages)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d cases failed", failed, len(cases))
	}
	return nil
}
