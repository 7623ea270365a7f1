package toolregistry

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The habit of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step.
const (
	usageQuery  = "add an agenda item for tomorrow"
	usageReason = "used with `add_agenda` in 12 of its 15 tasks"
)

func usageTools() []byte {
	tools := []string{
		`{"name": "add_agenda", "description": "Add an agenda item to the user's schedule."}`,
		`{"name": "get_user_token", "description": "Get the user token by username and password."}`,
		`{"name": "list_files", "description": "List the files of a folder."}`,
		`{"name": "send_email", "description": "Send an email message."}`,
	}
	for i := 0; i < 8; i++ {
		tools = append(tools, fmt.Sprintf(`{"name": "agenda_tool_%d", "description": "Agenda item helper number %d: works on an agenda item."}`, i, i))
	}
	return []byte("[" + strings.Join(tools, ",") + "]")
}

func usageRegistry(t *testing.T) *Registry {
	t.Helper()
	r := newTestRegistry(t)
	if _, err := r.RegisterJSON(usageTools()); err != nil {
		t.Fatal(err)
	}
	return r
}

func recordHabit(t *testing.T, r *Registry) {
	t.Helper()
	for _, task := range []struct {
		names []string
		times int
	}{{[]string{"add_agenda", "get_user_token"}, 12}, {[]string{"add_agenda"}, 3}, {[]string{"list_files"}, 10}} {
		for i := 0; i < task.times; i++ {
			n, err := r.RecordUsage(task.names...)
			if err != nil || n != len(task.names) {
				t.Fatalf("RecordUsage(%v) = %d, %v", task.names, n, err)
			}
		}
	}
}

func broughtIn(t *testing.T, r *Registry, opts DiscoveryOptions) []string {
	t.Helper()
	d, err := r.NewDiscoverer(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	hits, err := d.Discover(usageQuery, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		if h.BroughtIn != "" {
			out = append(out, h.Name+": "+h.BroughtIn)
		}
	}
	return out
}

// A recorded habit brings the partner into the answer, saying why; Usage: false ranks as before.
func TestRecordUsageBringsThePartnerIn(t *testing.T) {
	r := usageRegistry(t)
	if got := broughtIn(t, r, DiscoveryOptions{}); got != nil {
		t.Fatalf("brought in before any usage: %v", got)
	}
	recordHabit(t, r)
	want := []string{"get_user_token: " + usageReason}
	if got := broughtIn(t, r, DiscoveryOptions{}); !slices.Equal(got, want) {
		t.Fatalf("brought in %v, want %v", got, want)
	}
	if got := broughtIn(t, r, DiscoveryOptions{Usage: Ptr(false)}); got != nil {
		t.Fatalf("Usage: false brought in %v", got)
	}
	s, err := r.UsageStatus()
	if err != nil {
		t.Fatal(err)
	}
	if s.Tasks != 25 || s.Tools != 3 || s.Recording || s.Path != "" || s.MemoryBytes <= 0 {
		t.Fatalf("status %+v", s)
	}
}

// Unknown, repeated and empty names do not count; malformed input is an *Error and records nothing.
func TestRecordUsageBadInput(t *testing.T) {
	r := usageRegistry(t)
	for _, c := range []struct {
		names []string
		want  int
	}{{nil, 0}, {[]string{"no_such_tool", ""}, 0}, {[]string{"add_agenda", "add_agenda", "nope"}, 1}} {
		if n, err := r.RecordUsage(c.names...); err != nil || n != c.want {
			t.Fatalf("RecordUsage(%q) = %d, %v; want %d", c.names, n, err, c.want)
		}
	}
	for _, c := range []struct {
		json string
		code Code
		says string
	}{
		{`["add_agenda"`, CodeInvalidJSON, "line 1"},
		{`["add_agenda", 7]`, CodeInvalidArgument, "usage[1]: expected a string, got a number"},
		{`{"tools": []}`, CodeInvalidArgument, "expected an array"},
		{"[\"a\x00\"]", CodeInvalidJSON, "NUL"},
		{"[\"\xff\"]", CodeInvalidUTF8, "names_json"},
	} {
		_, err := r.RecordUsageJSON([]byte(c.json))
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || !strings.Contains(e.Message, c.says) {
			t.Fatalf("RecordUsageJSON(%q): %v; want code %v saying %q", c.json, err, c.code, c.says)
		}
	}
	if s, _ := r.UsageStatus(); s.Tasks != 1 {
		t.Fatalf("tasks %d, want 1", s.Tasks)
	}
	if err := r.EnableUsage("a\x00b"); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("EnableUsage with a NUL: %v", err)
	}
}

// The usage file keeps the counts across a restart; after Close every method is ErrClosed.
func TestUsageFileAcrossARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage.json")
	r := usageRegistry(t)
	if err := r.EnableUsage(path); err != nil {
		t.Fatal(err)
	}
	recordHabit(t, r)
	if err := r.SaveUsage(); err != nil {
		t.Fatal(err)
	}
	if s, _ := r.UsageStatus(); !s.Recording || s.Path != path || s.Tasks != 25 {
		t.Fatalf("status %+v", s)
	}
	r.Close()
	if _, err := r.RecordUsage("add_agenda"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	again := usageRegistry(t)
	if err := again.EnableUsage(path); err != nil {
		t.Fatal(err)
	}
	want := []string{"get_user_token: " + usageReason}
	if got := broughtIn(t, again, DiscoveryOptions{}); !slices.Equal(got, want) {
		t.Fatalf("after a restart brought in %v, want %v", got, want)
	}
}

// Tasks recorded from many goroutines while others discover all count (go test -race).
func TestRecordUsageConcurrently(t *testing.T) {
	r := usageRegistry(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			task := []string{"add_agenda", "get_user_token"}
			if g%2 == 1 {
				task = []string{"list_files", "send_email"}
			}
			for i := 0; i < 100; i++ {
				if n, err := r.RecordUsage(task...); err != nil || n != 2 {
					t.Errorf("RecordUsage(%v) = %d, %v", task, n, err)
					return
				}
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		d, err := r.NewDiscoverer(DiscoveryOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		defer d.Close()
		for i := 0; i < 20; i++ {
			if _, err := d.Discover(usageQuery, 10); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	wg.Wait()
	if s, err := r.UsageStatus(); err != nil || s.Tasks != 400 {
		t.Fatalf("status %+v, %v; want 400 tasks", s, err)
	}
}
