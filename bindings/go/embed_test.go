package toolregistry_test

import (
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"

	toolregistry "github.com/toolregistry-rs/toolregistry-rs/bindings/go"
)

// The host-embedder contract with the fake embedder every binding's tests share: dim 64; split
// the text on non-alphanumeric ASCII, lowercase each word, FNV-1a 32-bit of its UTF-8 bytes, add
// 1.0 at hash % 64; an all-zero vector becomes [1, 0, ...]. "zzfs" shares its bucket with
// "sprocket" and no other word of the catalog, so only the vectors link it to beta_gadget.

const fakeDim = 64

const fakeQuery = "zzfs"

func fakeVector(text string) []float32 {
	v := make([]float32, fakeDim)
	words := strings.FieldsFunc(text, func(c rune) bool {
		return c >= unicode.MaxASCII || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	})
	for _, w := range words {
		h := fnv.New32a()
		h.Write([]byte(strings.ToLower(w)))
		v[h.Sum32()%fakeDim] += 1
	}
	if len(words) == 0 {
		v[0] = 1
	}
	return v
}

func fakeEmbed(texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = fakeVector(t)
	}
	return out, nil
}

func embedCatalog(t *testing.T) *toolregistry.Registry {
	t.Helper()
	r := newRegistry(t)
	_, err := r.RegisterJSON([]byte(`[{"name": "alpha_widget", "description": "Frobnicate the gizmo."},
		{"name": "beta_gadget", "description": "Polish the sprocket."},
		{"name": "gamma_thing", "description": "Paint the fence."}]`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func waitEmbeddings(t *testing.T, r *toolregistry.Registry) *toolregistry.EmbeddingStatus {
	t.Helper()
	done, err := r.WaitEmbeddings(20 * time.Second)
	if err != nil || !done {
		t.Fatalf("WaitEmbeddings: %v %v", done, err)
	}
	s, err := r.EmbeddingStatus()
	if err != nil || s == nil {
		t.Fatalf("EmbeddingStatus: %v %v", s, err)
	}
	return s
}

func topName(t *testing.T, r *toolregistry.Registry, profile toolregistry.Profile, query string) string {
	t.Helper()
	d, err := r.NewDiscoverer(toolregistry.DiscoveryOptions{Profile: profile})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	hits, err := d.Discover(query, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Name
}

func TestFakeEmbedder(t *testing.T) {
	a, b := fakeVector("sprocket"), fakeVector(fakeQuery)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("sprocket and %s differ at %d", fakeQuery, i)
		}
	}
	if fakeVector("--")[0] != 1 {
		t.Fatal("an empty text is not [1, 0, ...]")
	}
}

func TestHybridFindsByVectorOnTheRightThreads(t *testing.T) {
	r := embedCatalog(t)
	if got := topName(t, r, toolregistry.ProfileEnhanced, fakeQuery); got != "" {
		t.Fatalf("enhanced found %q by words", got)
	}
	var mu sync.Mutex
	var tids []int
	var batches [][]string
	err := r.SetEmbedder(fakeDim, func(texts []string) ([][]float32, error) {
		mu.Lock()
		tids = append(tids, syscall.Gettid())
		batches = append(batches, texts)
		mu.Unlock()
		return fakeEmbed(texts)
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := syscall.Gettid()
	s := waitEmbeddings(t, r)
	if s.Dim != fakeDim || s.Ready != 3 || s.Pending != 0 || s.Failed != 0 || s.Embedder != "host:64" {
		t.Fatalf("status %+v", s)
	}
	mu.Lock()
	for _, tid := range tids {
		if tid == me {
			t.Fatal("the catalog was embedded on the caller's thread")
		}
	}
	tids = nil
	mu.Unlock()
	status, err := r.ToolsStatus()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range status {
		if st.Embedding != toolregistry.EmbeddingReady {
			t.Fatalf("%s: embedding %q", st.Name, st.Embedding)
		}
	}
	// No profile named: a registry with an embedder ranks with hybrid.
	if got := topName(t, r, "", fakeQuery); got != "beta_gadget" {
		t.Fatalf("hybrid top hit %q", got)
	}
	mu.Lock()
	if len(tids) != 1 || tids[0] != me || len(batches[len(batches)-1]) != 1 || batches[len(batches)-1][0] != fakeQuery {
		t.Fatalf("the query was not embedded once on the discovering thread: %v (me %d)", tids, me)
	}
	mu.Unlock()

	d, err := r.NewDiscoverer(toolregistry.DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	why, err := d.Explain(fakeQuery, "beta_gadget", 5)
	if err != nil {
		t.Fatal(err)
	}
	h := why.Hybrid
	if why.Profile != toolregistry.ProfileHybrid || h == nil || !h.Embedded || h.LexicalScore != nil ||
		h.Cosine == nil || *h.Cosine < 0.4 || h.FusedRank == nil || *h.FusedRank != 1 {
		t.Fatalf("explain: %+v %+v", why, h)
	}
}

func TestHybridWithoutEmbedderIsInvalid(t *testing.T) {
	r := embedCatalog(t)
	d, err := r.NewDiscoverer(toolregistry.DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = d.DiscoverWith(fakeQuery, toolregistry.DiscoverRequest{})
	if err != nil {
		t.Fatal(err)
	}
	d2, err := r.NewDiscoverer(toolregistry.DiscoveryOptions{Profile: toolregistry.ProfileHybrid})
	if err == nil {
		defer d2.Close()
		_, err = d2.Discover(fakeQuery, 5)
	}
	if !errors.Is(err, toolregistry.ErrInvalidArgument) {
		t.Fatalf("hybrid without an embedder: %v", err)
	}
	if s, err := r.EmbeddingStatus(); s != nil || err != nil {
		t.Fatalf("status without an embedder: %v %v", s, err)
	}
	if done, err := r.WaitEmbeddings(0); !done || err != nil {
		t.Fatalf("wait without an embedder: %v %v", done, err)
	}
}

func TestEmbedderMayCallBackIntoTheRegistry(t *testing.T) {
	r := embedCatalog(t)
	err := r.SetEmbedder(fakeDim, func(texts []string) ([][]float32, error) {
		if _, err := r.ToolsStatus(); err != nil {
			return nil, err
		}
		return fakeEmbed(texts)
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := waitEmbeddings(t, r); s.Ready != 3 || s.Failed != 0 {
		t.Fatalf("status %+v", s)
	}
	if got := topName(t, r, "", fakeQuery); got != "beta_gadget" {
		t.Fatalf("hybrid top hit %q", got)
	}
}

func TestFailingEmbedderFailsItsBatchOnly(t *testing.T) {
	cases := map[string]struct {
		fn   toolregistry.EmbedFunc
		want string
	}{
		"error":      {func([]string) ([][]float32, error) { return nil, fmt.Errorf("the fake refuses") }, "the fake refuses"},
		"panic":      {func([]string) ([][]float32, error) { panic("boom") }, "panicked: boom"},
		"too few":    {func([]string) ([][]float32, error) { return [][]float32{fakeVector("x")}, nil }, "vectors for"},
		"wrong dim":  {func(texts []string) ([][]float32, error) { return make([][]float32, len(texts)), nil }, "expected 64"},
		"all zeroes": {func(texts []string) ([][]float32, error) { v, _ := fakeEmbed(texts); clear(v[0]); return v, nil }, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := embedCatalog(t)
			counter := toolregistry.HostFuncCounter(r)
			if err := r.SetEmbedder(fakeDim, c.fn); err != nil {
				t.Fatal(err)
			}
			s := waitEmbeddings(t, r)
			if s.Ready != 0 || s.Pending != 0 || s.Failed != 3 || len(s.Warnings) == 0 ||
				!strings.Contains(strings.Join(s.Warnings, " "), c.want) {
				t.Fatalf("status %+v", s)
			}
			status, err := r.ToolsStatus()
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range status {
				if st.Embedding != toolregistry.EmbeddingFailed {
					t.Fatalf("%s: embedding %q", st.Name, st.Embedding)
				}
			}
			// Still found by words; the failed query falls back to them.
			if got := topName(t, r, "", "polish sprocket"); got != "beta_gadget" {
				t.Fatalf("lexical top hit %q", got)
			}
			r.Close()
			settledHandles(t, counter, 1, 0)
		})
	}
}

// settledHandles is wantHandles once the library has let go: it frees an embedder once no call
// of it runs, possibly on its embedding thread a moment after Close or SetEmbedder returns.
func settledHandles(t *testing.T, c toolregistry.HostCounter, created, live int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); c.Live() > live && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	wantHandles(t, c, created, live)
}

func TestEmbedderReleasedOnce(t *testing.T) {
	r := embedCatalog(t)
	c := toolregistry.HostFuncCounter(r)
	if err := r.SetEmbedder(fakeDim, fakeEmbed, toolregistry.WithIdentity("fake-a")); err != nil {
		t.Fatal(err)
	}
	if err := r.SetEmbedder(fakeDim, fakeEmbed, toolregistry.WithIdentity("fake-b")); err != nil {
		t.Fatal(err)
	}
	if s := waitEmbeddings(t, r); s.Embedder != "fake-b" {
		t.Fatalf("status %+v", s)
	}
	settledHandles(t, c, 2, 1)
	// A failed call releases its handle too.
	err := r.SetEmbedder(0, fakeEmbed)
	if !errors.Is(err, toolregistry.ErrInvalidArgument) {
		t.Fatalf("dim 0: %v", err)
	}
	wantHandles(t, c, 3, 1)
	if s := waitEmbeddings(t, r); s.Embedder != "fake-b" {
		t.Fatalf("a failed SetEmbedder changed the embedder: %+v", s)
	}
	r.Close()
	settledHandles(t, c, 3, 0)
	if err := r.SetEmbedder(fakeDim, fakeEmbed); !errors.Is(err, toolregistry.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	wantHandles(t, c, 3, 0)
}

func TestEmbeddingOptions(t *testing.T) {
	if _, err := toolregistry.NewRegistry(toolregistry.WithEmbedding(toolregistry.EmbeddingOptions{ModelDir: "/nonexistent/model"})); err == nil {
		t.Fatal("a missing model directory loaded")
	}
}
