package toolregistry

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The query of issue 42: two needs, the first crowded by the currency tools of intentTools.
const (
	twoNeedQuery = "convert 100 dollars to euros and then tell me the weather in Paris"
	currencyNeed = "convert 100 dollars to euros"
	weatherNeed  = "tell me the weather in Paris"
	oneNeedQuery = "convert dollars to euros"
	weatherTool  = "weather_forecast"
	intentsTopK  = 3
	oneNeedTopK  = 5
)

// intentTools is the catalog of tests/it/intents.rs: five currency tools that crowd a whole-query
// ranking of twoNeedQuery, one weather tool, and unrelated tools so the query's words are rare.
func intentTools() []byte {
	tools := []string{
		`{"name": "convert_currency", "description": "Convert an amount of money from one currency to another, such as dollars to euros."}`,
		`{"name": "currency_rates", "description": "Exchange rates between currencies: dollars, euros, pounds and yen."}`,
		`{"name": "money_exchange", "description": "Exchange money: convert dollars into euros or any currency."}`,
		`{"name": "forex_quote", "description": "Live forex quote to convert currency amounts, dollars and euros."}`,
		`{"name": "currency_history", "description": "Historical currency exchange rates for dollars, euros and more."}`,
		`{"name": "weather_forecast", "description": "The current weather and forecast for a city."}`,
	}
	for _, thing := range []string{"email", "file", "calendar", "invoice", "ticket", "photo", "song", "recipe",
		"contact", "note", "repository", "printer", "database", "playlist", "package", "meeting", "document", "spreadsheet"} {
		tools = append(tools, fmt.Sprintf(`{"name": "manage_%s", "description": "Create, list and delete a %s."}`, thing, thing))
	}
	return []byte("[" + strings.Join(tools, ",") + "]")
}

func intentsDiscoverer(t *testing.T, opts DiscoveryOptions) *Discoverer {
	t.Helper()
	r := newTestRegistry(t)
	if _, err := r.RegisterJSON(intentTools()); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// A query holding two needs gets a tool for each in the first places, and each hit says its need.
func TestIntentsTwoNeedsEachHitSaysItsNeed(t *testing.T) {
	for _, opts := range []DiscoveryOptions{{}, {Intents: Ptr(true)}} {
		hits, err := intentsDiscoverer(t, opts).Discover(twoNeedQuery, intentsTopK)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(hits, func(h Result) bool { return h.Name == weatherTool })
		if i < 0 {
			t.Fatalf("options %+v: %s not in the first %d: %v", opts, weatherTool, intentsTopK, names(hits))
		}
		if hits[i].Intent != weatherNeed {
			t.Fatalf("weather hit's intent %q, want %q", hits[i].Intent, weatherNeed)
		}
		if hits[0].Intent != currencyNeed {
			t.Fatalf("first hit %+v: intent %q, want %q", hits[0], hits[0].Intent, currencyNeed)
		}
	}
}

// A query that is one need: no hit carries an intent.
func TestIntentsOneNeedHasNone(t *testing.T) {
	hits, err := intentsDiscoverer(t, DiscoveryOptions{}).Discover(oneNeedQuery, oneNeedTopK)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Name != "convert_currency" {
		t.Fatalf("hits: %v", names(hits))
	}
	for _, h := range hits {
		if h.Intent != "" {
			t.Fatalf("%s has intent %q for a one-need query", h.Name, h.Intent)
		}
	}
}

// Intents: false ranks the two-need query as one: no intents, and the currency tools crowd the
// weather tool out of the first places.
func TestIntentsOffRanksTheQueryAsOneNeed(t *testing.T) {
	d := intentsDiscoverer(t, DiscoveryOptions{Intents: Ptr(false)})
	hits, err := d.Discover(twoNeedQuery, intentsTopK)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || slices.Contains(names(hits), weatherTool) {
		t.Fatalf("hits: %v", names(hits))
	}
	for _, h := range hits {
		if h.Intent != "" {
			t.Fatalf("%s has intent %q with intents off", h.Name, h.Intent)
		}
	}
	e, err := d.Explain(twoNeedQuery, weatherTool, intentsTopK)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Intents) != 0 || e.Tool.Intent != "" {
		t.Fatalf("explain with intents off: intents %+v, tool intent %q", e.Intents, e.Tool.Intent)
	}
}

// Explain names the query's needs, how each need's ranking placed the tool, and the tool's need.
func TestExplainIntents(t *testing.T) {
	d := intentsDiscoverer(t, DiscoveryOptions{})
	e, err := d.Explain(twoNeedQuery, weatherTool, intentsTopK)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, i := range e.Intents {
		texts = append(texts, i.Text)
	}
	if !slices.Equal(texts, []string{currencyNeed, weatherNeed}) {
		t.Fatalf("intents %+v", e.Intents)
	}
	if e.Tool.Intent != weatherNeed || e.Tool.Outcome != OutcomeRanked {
		t.Fatalf("tool %+v", e.Tool)
	}
	// The weather need's own ranking has the tool first; the currency need's does not hold it.
	if w := e.Intents[1]; w.Rank != 1 || w.RelativeScore != 1 {
		t.Fatalf("weather need %+v", w)
	}
	if c := e.Intents[0]; c.Rank != 0 || c.RelativeScore != 0 {
		t.Fatalf("currency need %+v", c)
	}
	one, err := d.Explain(oneNeedQuery, "convert_currency", oneNeedTopK)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Intents) != 0 || one.Tool.Intent != "" || one.Tool.Rank != 1 {
		t.Fatalf("one-need explain: intents %+v, tool %+v", one.Intents, one.Tool)
	}
}
