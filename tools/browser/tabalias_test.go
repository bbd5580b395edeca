package browser

import (
	"strings"
	"testing"

	"github.com/go-rod/rod/lib/proto"
)

// TestResolveTab: a label wins over a handle, a handle over a raw id, and
// a raw id over a prefix; prefixes ignore case and must be unique.
func TestResolveTab(t *testing.T) {
	ts := []*proto.TargetTargetInfo{{TargetID: "AB12"}, {TargetID: "AB34"}, {TargetID: "t2"}}
	a := &tabAliases{Next: 4, Tabs: map[string]*tabAlias{
		"AB12": {TabID: "t1", Label: "t2"}, "AB34": {TabID: "t2", Label: "mail"}, "t2": {TabID: "t3"},
	}}
	for ref, want := range map[string]string{"mail": "AB34", "t2": "AB12", "t1": "AB12", "t3": "t2", "ab3": "AB34", "AB12": "AB12"} {
		got, err := resolveTab(ts, a, ref)
		if err != nil || string(got.TargetID) != want {
			t.Errorf("resolveTab(%q) = %v, %v; want %s", ref, got, err, want)
		}
	}
	for _, ref := range []string{"ab", "zz"} {
		if got, err := resolveTab(ts, a, ref); err == nil {
			t.Errorf("resolveTab(%q) = %v, want an error", ref, got.TargetID)
		}
	}
	for in, ok := range map[string]bool{"mail": true, " a.b:c-d_9 ": true, "": false, "a b": false, "x/y": false, strings.Repeat("a", 64): true, strings.Repeat("a", 65): false} {
		if _, err := validLabel(in); (err == nil) != ok {
			t.Errorf("validLabel(%q): %v", in, err)
		}
	}
}
