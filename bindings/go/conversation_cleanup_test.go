package toolregistry

import (
	"runtime"
	"testing"
	"time"
)

// A conversation nobody closes is freed by the cleanup once unreachable, and a closed one is
// never freed twice.
func TestCleanupFreesForgottenConversation(t *testing.T) {
	r := newTestRegistry(t)
	before := freedByCleanup.Load()
	func() {
		if _, err := NewConversation(r, ConversationOptions{}); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for freedByCleanup.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("the cleanup did not free a forgotten conversation")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	closedBefore := freedByCleanup.Load()
	func() {
		c, err := NewConversation(r, ConversationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}()
	for range 5 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := freedByCleanup.Load() - closedBefore; got != 0 {
		t.Fatalf("cleanup ran for a closed conversation (%d)", got)
	}
}
