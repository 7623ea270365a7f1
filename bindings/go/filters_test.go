package toolregistry

import (
	"reflect"
	"testing"
)

// The discover filters, namespace search and select: queries through the Go binding.
func TestDiscoverWithFiltersAndSelect(t *testing.T) {
	r := newTestRegistry(t)
	if _, err := r.Register(sampleTools()...); err != nil {
		t.Fatal(err)
	}
	d, err := r.NewDiscoverer(DiscoveryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	got, err := d.DiscoverWith("list issues network", DiscoverRequest{Namespaces: []string{"GitHub"}})
	if err != nil || !reflect.DeepEqual(names(got), []string{"github-list_issues"}) {
		t.Fatalf("namespaces: %v, %v", names(got), err)
	}
	got, err = d.DiscoverWith("network", DiscoverRequest{Tags: []string{"network"}, TopK: 1})
	if err != nil || len(got) != 1 {
		t.Fatalf("tags: %v, %v", names(got), err)
	}
	no := false
	got, err = d.DiscoverWith("network", DiscoverRequest{Deferred: &no})
	if err != nil || len(got) != 0 {
		t.Fatalf("deferred false: %v, %v", names(got), err)
	}
	// The namespace is searchable (enhanced, the default).
	got, err = d.DiscoverWith("github issues", DiscoverRequest{})
	if err != nil || len(got) == 0 || got[0].Name != "github-list_issues" {
		t.Fatalf("namespace search: %v, %v", names(got), err)
	}
	got, err = d.DiscoverWith("select:send_email,nope,GitHub-List_Issues", DiscoverRequest{})
	if err != nil || !reflect.DeepEqual(names(got), []string{"send_email", "github-list_issues"}) {
		t.Fatalf("select: %v, %v", names(got), err)
	}
	for _, h := range got {
		if h.Score != 1.0 || h.Schema == nil {
			t.Fatalf("select hit %+v", h)
		}
	}
}
