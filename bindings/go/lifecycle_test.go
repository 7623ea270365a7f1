package toolregistry

import (
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	r, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	registryCalls := map[string]func() error{
		"Register":          func() error { _, err := r.Register(Tool{Name: "x"}); return err },
		"RegisterJSON":      func() error { _, err := r.RegisterJSON([]byte(`{"name": "x"}`)); return err },
		"Unregister":        func() error { return r.Unregister("read_file") },
		"SetMetadata":       func() error { return r.SetMetadata("read_file", MetadataUpdate{Defer: Ptr(true)}) },
		"SetEnabled":        func() error { return r.SetEnabled("read_file", false) },
		"Schemas":           func() error { _, err := r.Schemas(SchemaOptions{}); return err },
		"DeferredSummaries": func() error { _, err := r.DeferredSummaries(); return err },
		"EnableDiscovery":   func() error { return r.EnableDiscovery(DiscoveryOptions{}) },
		"Call":              func() error { _, err := r.Call("discover_tools", map[string]any{"query": "x"}); return err },
		"NewDiscoverer":     func() error { _, err := r.NewDiscoverer(DiscoveryOptions{}); return err },
	}
	for name, call := range registryCalls {
		if err := call(); !errors.Is(err, ErrClosed) {
			t.Errorf("Registry.%s after Close: %v, want ErrClosed", name, err)
		}
	}

	// The discoverer outlives its registry: it still sees the tools.
	res, err := d.Discover("send an email", 3)
	if err != nil || len(res) == 0 || res[0].Name != "send_email" {
		t.Fatalf("discoverer after Registry.Close: %+v, %v", res, err)
	}
	if err := d.RebuildIndex(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := d.Discover("email", 3); !errors.Is(err, ErrClosed) {
		t.Errorf("Discover after Close: %v", err)
	}
	if _, err := d.DiscoverFormat("email", 3, Gemini); !errors.Is(err, ErrClosed) {
		t.Errorf("DiscoverFormat after Close: %v", err)
	}
	if err := d.RebuildIndex(); !errors.Is(err, ErrClosed) {
		t.Errorf("RebuildIndex after Close: %v", err)
	}
	var zero Registry
	if _, err := zero.Schemas(SchemaOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("zero Registry: %v", err)
	}
}

func TestDiscovererClosedBeforeRegistry(t *testing.T) {
	r := newTestRegistry(t)
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	if s, err := r.DeferredSummaries(); err != nil || len(s) != 2 {
		t.Fatalf("registry after Discoverer.Close: %+v, %v", s, err)
	}
}

// A handle nobody closes is freed by the cleanup once unreachable.
func TestCleanupFreesForgottenHandles(t *testing.T) {
	before := freedByCleanup.Load()
	func() {
		r, err := NewRegistry()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.NewDiscoverer(DiscoveryOptions{}); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for freedByCleanup.Load()-before < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("cleanups freed %d of 2 handles", freedByCleanup.Load()-before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	// Close stops the cleanup, so a closed handle is never freed twice.
	closedBefore := freedByCleanup.Load()
	func() {
		r, err := NewRegistry()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
	}()
	for range 5 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := freedByCleanup.Load() - closedBefore; got != 0 {
		t.Fatalf("cleanup ran for a closed registry (%d)", got)
	}
}

// Close while other goroutines are calling: each call either completes or reports ErrClosed.
func TestCloseDuringCalls(t *testing.T) {
	for round := range 20 {
		r, err := NewRegistry(WithDiscovery(DiscoveryOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Register(sampleTools()...); err != nil {
			t.Fatal(err)
		}
		d, err := r.NewDiscoverer(DiscoveryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 64)
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range 50 {
					var err error
					switch (g + i) % 3 {
					case 0:
						_, err = r.Call("discover_tools", map[string]any{"query": "email"})
					case 1:
						_, err = d.Discover("file", 3)
					default:
						_, err = r.Register(Tool{Name: "temp_tool", Description: "Temporary."})
					}
					if err != nil && !errors.Is(err, ErrClosed) {
						errs <- err
						return
					}
				}
			}()
		}
		close(start)
		if round%2 == 0 {
			r.Close()
			d.Close()
		} else {
			d.Close()
			r.Close()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}
