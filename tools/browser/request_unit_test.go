package browser

import (
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

func TestRequestRouteMatching(t *testing.T) {
	cases := []struct {
		method, path, pattern string
		args                  map[string]string
	}{
		{"GET", normalizeRoutePath("/"), "/", map[string]string{}},
		{"GET", normalizeRoutePath("snapshot/"), "/snapshot", map[string]string{}},
		{"DELETE", normalizeRoutePath("/tabs/AB%2FCD"), "/tabs/:targetId", map[string]string{"targetId": "AB/CD"}},
		{"DELETE", "/profiles/work", "/profiles/:name", map[string]string{"name": "work"}},
		{"POST", "/tabs/open", "/tabs/open", map[string]string{}},
	}
	for _, c := range cases {
		rt, args := matchRoute(c.method, c.path)
		if rt == nil || rt.pattern != c.pattern || !reflect.DeepEqual(args, c.args) {
			t.Errorf("%s %s: got %v %v, want %s %v", c.method, c.path, rt, args, c.pattern, c.args)
		}
	}
	for _, c := range [][2]string{{"GET", "/doctor"}, {"POST", "/"}, {"GET", "/tabs/open"}, {"DELETE", "/tabs/"}} {
		if rt, _ := matchRoute(c[0], normalizeRoutePath(c[1])); rt != nil {
			t.Errorf("%s %s matched %s %s", c[0], c[1], rt.method, rt.pattern)
		}
	}
}

func TestRequestQueryCoercion(t *testing.T) {
	props := gjson.Parse(`{"b":{"type":"boolean"},"i":{"type":"integer"},"s":{"type":"string"},"n":{"type":["number","null"]}}`)
	for _, c := range []struct {
		k, v string
		want any
	}{{"b", "true", true}, {"b", "0", false}, {"i", "12", 12}, {"s", "12", "12"}, {"n", "1.5", 1.5}} {
		got, err := coerceQuery(c.k, c.v, props.Get(c.k))
		if err != nil || got != c.want {
			t.Errorf("%s=%q: got %v (%v), want %v", c.k, c.v, got, err, c.want)
		}
	}
	if _, err := coerceQuery("i", "x", props.Get("i")); err == nil {
		t.Error("integer from \"x\": no error")
	}
}

func TestAriaNodes(t *testing.T) {
	got := ariaNodes("- RootWebArea \"T\" [ref=ax1]\n  - none [ref=ax2]\n    - button \"a \\\"b\\\"\" [ref=ax3]\nnot a node")
	want := []ariaNode{{"ax1", "RootWebArea", "T", 0}, {"ax2", "none", "", 1}, {"ax3", "button", `a "b"`, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
