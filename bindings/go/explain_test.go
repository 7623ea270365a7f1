package toolregistry

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func explainFixture(t *testing.T, opts DiscoveryOptions) (*Registry, *Discoverer) {
	t.Helper()
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return r, d
}

// A ranked tool's explanation agrees with Discover, and its parts add up to its score.
func TestExplainRanked(t *testing.T) {
	_, d := explainFixture(t, DiscoveryOptions{Profile: ProfileReference})
	const query = "send an email"
	hits, err := d.Discover(query, 10)
	if err != nil || len(hits) == 0 {
		t.Fatalf("Discover: %+v, %v", hits, err)
	}
	e, err := d.Explain(query, "send_email", 10)
	if err != nil {
		t.Fatal(err)
	}
	if e.Query != query || e.Profile != ProfileReference || e.ExactMatch != "" || e.TopK != 10 {
		t.Fatalf("header: %+v", e)
	}
	if e.Tool.Name != "send_email" || e.Tool.Outcome != OutcomeRanked || !e.Tool.Indexed || e.Tool.Rank != 1 || e.Tool.Reason == "" {
		t.Fatalf("tool: %+v", e.Tool)
	}
	if e.ResultCount != len(hits) || !closeEnough(hits[0].Score, e.Tool.Score) || !closeEnough(hits[0].Score, e.BestScore) {
		t.Fatalf("disagrees with Discover: explain %+v, discover %+v", e, hits)
	}
	if !closeEnough(0.3*e.BestScore, e.ScoreFloor) {
		t.Fatalf("score floor %v, want 0.3 x %v", e.ScoreFloor, e.BestScore)
	}
	var kept []string
	for _, tok := range e.Tokens {
		if tok.Kept {
			kept = append(kept, tok.Token)
		}
	}
	if !slices.Equal(kept, e.ScoredTokens) || !slices.Equal(e.ScoredTokens, []string{"send", "an", "email"}) {
		t.Fatalf("tokens %+v, scored %v", e.Tokens, e.ScoredTokens)
	}
	total := 0.0
	for _, term := range e.Tool.Terms {
		fields := 0.0
		for _, f := range term.Fields {
			fields += f.Score
		}
		if !closeEnough(term.Score, fields) || !closeEnough(term.Score, term.IDF*term.TFNorm) || term.QueryWeight != 1 {
			t.Errorf("term %q does not add up: %+v", term.Token, term)
		}
		// The reference profile has no background model: the catalog's IDF as it is.
		if term.CatalogIDF != term.IDF || term.IDF <= 0 {
			t.Errorf("term %q: idf %v, catalog idf %v", term.Token, term.IDF, term.CatalogIDF)
		}
		total += term.Score
	}
	if !closeEnough(e.Tool.Score, total) {
		t.Fatalf("terms sum to %v, score is %v", total, e.Tool.Score)
	}
	if term := e.Tool.Terms[0]; term.Token != "send" || len(term.Fields) != 2 || term.Fields[0].Field != FieldName || term.Fields[0].Weight != 3 || term.Fields[1].Field != FieldDescription {
		t.Fatalf("first term: %+v", term)
	}
}

func TestExplainOutcomes(t *testing.T) {
	r, d := explainFixture(t, DiscoveryOptions{Profile: ProfileReference})
	cases := []struct {
		query, tool string
		topK        int
		want        Outcome
	}{
		{"send_email", "send_email", 10, OutcomeExactMatch},
		{"send_email", "read_file", 10, OutcomeOtherExactMatch},
		{"translate language", "read_file", 10, OutcomeNoCommonToken},
		{"file email currency issues", "read_file", 1, OutcomeBelowTopK},
	}
	for _, c := range cases {
		e, err := d.Explain(c.query, c.tool, c.topK)
		if err != nil {
			t.Fatalf("%q/%s: %v", c.query, c.tool, err)
		}
		if e.Tool.Outcome != c.want || e.Tool.Reason == "" {
			t.Errorf("%q/%s: outcome %q (%s), want %q", c.query, c.tool, e.Tool.Outcome, e.Tool.Reason, c.want)
		}
	}
	e, err := d.Explain("send_email", "send_email", 10)
	if err != nil || e.ExactMatch != "send_email" || e.Tool.Score != 1.0 {
		t.Fatalf("exact match: %+v, %v", e, err)
	}
	e, err = d.Explain("file email currency issues", "read_file", 1)
	if err != nil || e.Tool.Rank <= 1 || e.ResultCount != 1 {
		t.Fatalf("below top_k: %+v, %v", e, err)
	}

	// A word in most tools is filler: dropped, with the reason.
	r.Register(Tool{Name: "a_tool", Description: "Do a thing."}, Tool{Name: "b_tool", Description: "Do a thing."})
	e, err = d.Explain("a file", "read_file", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Tokens) != 2 || e.Tokens[0].Kept || !strings.Contains(e.Tokens[0].Reason, "filler") || !e.Tokens[1].Kept {
		t.Fatalf("filler token: %+v", e.Tokens)
	}

	if err := r.SetEnabled("read_file", false); err != nil {
		t.Fatal(err)
	}
	e, err = d.Explain("read a file", "read_file", 10)
	if err != nil || e.Tool.Outcome != OutcomeDisabled || e.Tool.Indexed {
		t.Fatalf("disabled: %+v, %v", e, err)
	}
}

// With the floor at 0.99 every hit but the best is explained as below it.
func TestExplainBelowScoreFloor(t *testing.T) {
	_, d := explainFixture(t, DiscoveryOptions{MinScoreRatio: Ptr(0.99), MaxDFRatio: Ptr(0.0)})
	e, err := d.Explain("email a file", "send_email", 10)
	if err != nil {
		t.Fatal(err)
	}
	if e.Tool.Outcome != OutcomeBelowScoreFloor || !(e.Tool.Score < e.ScoreFloor) || e.Tool.Rank < 2 {
		t.Fatalf("below floor: %+v", e)
	}
}

func TestExplainErrors(t *testing.T) {
	_, d := explainFixture(t, DiscoveryOptions{Profile: ProfileReference})
	_, err := d.Explain("email", "no_such_tool", 10)
	wantCode(t, err, ErrNotFound)
	_, err = d.Explain("  ", "send_email", 10)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Explain("email", "send_email", 0)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Explain("email", "send\x00email", 10)
	wantCode(t, err, ErrInvalidArgument)
	_, err = d.Explain("\xff", "send_email", 10)
	wantCode(t, err, ErrInvalidUTF8)
	d.Close()
	if _, err := d.Explain("email", "send_email", 10); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// The enhanced profile stems and drops function words; the reference profile does not.
func TestProfiles(t *testing.T) {
	r, reference := explainFixture(t, DiscoveryOptions{Profile: ProfileReference})
	enhanced, err := r.NewDiscoverer(DiscoveryOptions{Profile: ProfileEnhanced})
	if err != nil {
		t.Fatal(err)
	}
	defer enhanced.Close()
	if res, err := reference.Discover("emails sending", 5); err != nil || len(res) != 0 {
		t.Fatalf("reference profile does not stem: %v, %v", names(res), err)
	}
	if res, err := enhanced.Discover("emails sending", 5); err != nil || !slices.Equal(names(res), []string{"send_email"}) {
		t.Fatalf("enhanced profile stems: %v, %v", names(res), err)
	}
	e, err := enhanced.Explain("emails sending", "send_email", 5)
	if err != nil || e.Profile != ProfileEnhanced || e.Tool.Outcome != OutcomeRanked {
		t.Fatalf("enhanced explain: %+v, %v", e, err)
	}
	if err := r.EnableDiscovery(DiscoveryOptions{Profile: ProfileEnhanced}); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Call("discover_tools", map[string]any{"query": "emails sending"}); err != nil || !strings.Contains(string(out), "send_email") {
		t.Fatalf("discover_tools with the enhanced profile: %s, %v", out, err)
	}
	_, err = r.NewDiscoverer(DiscoveryOptions{Profile: "fancy"})
	wantCode(t, err, ErrInvalidArgument)
}
