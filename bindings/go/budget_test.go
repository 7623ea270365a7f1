package toolregistry

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// budgetTools: eight deferred mail tools (so every hit carries its schema), each described in
// two sentences so that a hit cut to name + summary is told apart by its description.
func budgetTools() []Tool {
	verbs := []string{"Send", "Reply to", "Forward", "Draft", "Archive", "Search", "Label", "Schedule"}
	tools := make([]Tool, len(verbs))
	for i, v := range verbs {
		tools[i] = Tool{
			Name:        strings.ToLower(strings.ReplaceAll(v, " to", "")) + "_email",
			Description: v + " an email message. The mail account configured for the agent is used, and the answer says what the server did.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"to":{"type":"string","description":"Address of the recipient of the message"},` +
				`"subject":{"type":"string","description":"Subject line of the message"},` +
				`"body":{"type":"string","description":"Text of the message, plain or Markdown"},` +
				`"cc":{"type":"array","items":{"type":"string"},"description":"Addresses to copy"}},"required":["to"]}`),
			Metadata: Metadata{Defer: true},
		}
	}
	return tools
}

const budgetQuery = "email message"

// firstSentence is the one-line summary a cut hit carries (budgetTools' descriptions).
func firstSentence(description string) string {
	return description[:strings.Index(description, ". ")+1]
}

func budgetDiscoverer(t *testing.T) *Discoverer {
	t.Helper()
	r := newTestRegistry(t)
	if _, err := r.Register(budgetTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func decodeResults(t *testing.T, answer []byte) []Result {
	t.Helper()
	var hits []Result
	if err := json.Unmarshal(answer, &hits); err != nil {
		t.Fatalf("decoding %s: %v", answer, err)
	}
	return hits
}

// Every budget from 1 token to the whole answer: within budget (but for the top hit alone), the
// top hit always there, full hits first and cut ones after, a prefix of the unbudgeted answer.
func TestDiscoverMaxTokens(t *testing.T) {
	d := budgetDiscoverer(t)
	full, err := d.DiscoverJSON(budgetQuery, DiscoverRequest{})
	if err != nil {
		t.Fatal(err)
	}
	all := decodeResults(t, full)
	if len(all) < 4 {
		t.Fatalf("want at least 4 hits without a budget, got %v", names(all))
	}
	for _, h := range all {
		if h.Schema == nil {
			t.Fatalf("%s: a deferred hit carries its schema without a budget", h.Name)
		}
	}
	var sawMixed bool
	whole := (len(full) + 3) / 4
	for n := 1; n <= whole; n++ {
		answer, err := d.DiscoverJSON(budgetQuery, DiscoverRequest{MaxTokens: n})
		if err != nil {
			t.Fatalf("max_tokens %d: %v", n, err)
		}
		hits := decodeResults(t, answer)
		if len(hits) == 0 || hits[0].Name != all[0].Name {
			t.Fatalf("max_tokens %d: the top hit %s is missing: %v", n, all[0].Name, names(hits))
		}
		if len(answer) > 4*n && (len(hits) != 1 || hits[0].Schema != nil) {
			t.Fatalf("max_tokens %d: %d bytes over %d, more than the top hit cut: %s", n, len(answer), 4*n, answer)
		}
		if !reflect.DeepEqual(names(hits), names(all[:len(hits)])) {
			t.Fatalf("max_tokens %d: %v is not a prefix of %v", n, names(hits), names(all))
		}
		withSchema := 0
		for i, h := range hits {
			if h.Schema != nil {
				if i != withSchema {
					t.Fatalf("max_tokens %d: %s has a schema after a cut hit", n, h.Name)
				}
				withSchema++
				if h.Description != all[i].Description || string(h.Schema) != string(all[i].Schema) {
					t.Fatalf("max_tokens %d: full hit %s differs from the unbudgeted one", n, h.Name)
				}
			} else if h.Description != firstSentence(all[i].Description) {
				t.Fatalf("max_tokens %d: cut hit %s: description %q, want its first sentence", n, h.Name, h.Description)
			}
		}
		if withSchema > 0 && withSchema < len(hits) {
			sawMixed = true
		}
		if n == whole && string(answer) != string(full) {
			t.Fatalf("max_tokens %d (the whole answer): want the unbudgeted answer, got %s", n, answer)
		}
	}
	if !sawMixed {
		t.Error("no budget gave full hits followed by cut ones")
	}
}

// The top hit comes cut when its schema alone is over the budget; decoding a cut hit works
// through DiscoverWith too.
func TestDiscoverMaxTokensTopHitCut(t *testing.T) {
	d := budgetDiscoverer(t)
	all, err := d.DiscoverWith(budgetQuery, DiscoverRequest{})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := d.DiscoverWith(budgetQuery, DiscoverRequest{MaxTokens: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Name: all[0].Name, Description: firstSentence(all[0].Description), Score: all[0].Score, Deferred: true}
	if len(hits) != 1 || !reflect.DeepEqual(hits[0], want) {
		t.Fatalf("max_tokens 1: want only %+v, got %+v", want, hits)
	}
	// An exact-name match is the top hit too.
	hits, err = d.DiscoverWith("send_email", DiscoverRequest{MaxTokens: 10})
	if err != nil || len(hits) != 1 || hits[0].Name != "send_email" || hits[0].Schema != nil {
		t.Fatalf("exact match under 10 tokens: %+v, %v", hits, err)
	}
}

// A budget larger than the answer changes nothing, in the typed answer as in the JSON.
func TestDiscoverMaxTokensGenerous(t *testing.T) {
	d := budgetDiscoverer(t)
	for _, req := range []DiscoverRequest{{}, {TopK: 3}, {APIFormat: Anthropic}, {Strict: true}} {
		none, err := d.DiscoverWith(budgetQuery, req)
		if err != nil {
			t.Fatal(err)
		}
		noneJSON, _ := d.DiscoverJSON(budgetQuery, req)
		req.MaxTokens = 1_000_000
		big, err := d.DiscoverWith(budgetQuery, req)
		if err != nil {
			t.Fatal(err)
		}
		bigJSON, _ := d.DiscoverJSON(budgetQuery, req)
		if !reflect.DeepEqual(big, none) || string(bigJSON) != string(noneJSON) {
			t.Fatalf("%+v: a generous budget changed the answer:\n%s\n%s", req, bigJSON, noneJSON)
		}
	}
}

// The options reach the library as "max_tokens", and a negative budget is refused by it.
func TestDiscoverMaxTokensOptions(t *testing.T) {
	doc, _ := json.Marshal(DiscoverRequest{MaxTokens: 50})
	if string(doc) != `{"max_tokens":50}` {
		t.Fatalf("options JSON %s", doc)
	}
	doc, _ = json.Marshal(DiscoverRequest{})
	if string(doc) != `{}` {
		t.Fatalf("zero MaxTokens must be left out: %s", doc)
	}
	d := budgetDiscoverer(t)
	_, err := d.DiscoverWith(budgetQuery, DiscoverRequest{MaxTokens: -1})
	wantCode(t, err, ErrInvalidArgument)
	if !strings.Contains(err.Error(), "max_tokens") {
		t.Fatalf("max_tokens -1: the message should name the option: %v", err)
	}
}
