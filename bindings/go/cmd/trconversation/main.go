// Command trconversation runs the conversation conformance corpus through the Go binding and
// prints, for every case sorted by name, one line: the case name, a tab, the messages JSON
// exactly as Conversation.Execute returned it, a tab, and the loaded tools exactly as
// Conversation.LoadedJSON returned them. The cross-language check compares these lines with the
// other languages' byte for byte.
//
//	go run ./cmd/trconversation ../../tests/conformance/conversation
//
// With --steps (after the directory) the calls run through Conversation.ExecuteContext (the
// two-step loop) instead; the lines must be the same.
//
// Each case gets a fresh fixture registry (see internal/conformance), a conversation with the
// case's options, and the registry closed before the calls run (the conversation outlives it).
// A case that fails prints "ERROR: " and the error instead, and the exit status is then 1.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
	"github.com/toolregistry-rs/toolregistry-rs/bindings/go/internal/conformance"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "trconversation:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	steps := len(args) == 2 && args[1] == "--steps"
	if len(args) != 1 && !steps {
		return fmt.Errorf("usage: trconversation CORPUS_DIR [--steps] (tests/conformance/conversation)")
	}
	cases, err := conformance.ConversationCases(args[0])
	if err != nil {
		return err
	}
	if len(cases) == 0 {
		return fmt.Errorf("%s: no cases", args[0])
	}
	out := bufio.NewWriter(stdout)
	failed := 0
	for _, c := range cases {
		var res conformance.ConversationResult
		if steps {
			res, err = conformance.RunConversationWith(args[0], c, func(conv *toolregistry.Conversation, calls []byte) (json.RawMessage, error) {
				return conv.ExecuteContext(context.Background(), calls, nil)
			})
		} else {
			res, err = conformance.RunConversation(args[0], c)
		}
		if err != nil {
			failed++
			fmt.Fprintf(out, "%s\tERROR: %v\n", c.Name, err)
			continue
		}
		fmt.Fprintf(out, "%s\t%s\t%s\n", c.Name, res.Messages, res.Loaded)
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d cases failed", failed, len(cases))
	}
	return nil
}
