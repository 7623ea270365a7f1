package toolregistry_test

import (
	"errors"
	"fmt"
	"log"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// Register tools, keep the rarely used ones deferred, and let the model find them.
func Example() {
	reg, err := toolregistry.NewRegistry()
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()

	_, err = reg.Register(
		toolregistry.Tool{Name: "read_file", Description: "Read a file from disk."},
		toolregistry.Tool{
			Name:        "send_email",
			Description: "Send an email to a recipient. Uses SMTP.",
			Parameters:  map[string]any{"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}}},
			Metadata:    toolregistry.Metadata{Defer: true, SearchHint: "mail message"},
		},
	)
	if err != nil {
		log.Fatal(err)
	}

	summaries, _ := reg.DeferredSummaries()
	for _, s := range summaries {
		fmt.Printf("deferred: %s: %s\n", s.Name, s.Description)
	}

	finder, err := reg.NewDiscoverer(toolregistry.DiscoveryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer finder.Close()
	hits, err := finder.Discover("mail someone a message", 5)
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("%s %.3f schema=%v\n", h.Name, h.Score, h.Schema != nil)
	}

	err = reg.Unregister("no_such_tool")
	fmt.Println(errors.Is(err, toolregistry.ErrNotFound))
	// Output:
	// deferred: send_email: Send an email to a recipient.
	// send_email 1.499 schema=true
	// true
}

// Errors from the engine carry a status code and a one-line message.
func ExampleError() {
	reg, _ := toolregistry.NewRegistry()
	defer reg.Close()
	_, err := reg.RegisterJSON([]byte(`{"description": "a tool without a name"}`))
	var e *toolregistry.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, errors.Is(err, toolregistry.ErrInvalidArgument))
	}
	// Output:
	// TR_STATUS_INVALID_ARGUMENT true
}
