package tools

import (
	"context"
	"strings"
	"testing"
)

type orderSvc struct{}

func (orderSvc) Start(context.Context) error { return nil }
func (orderSvc) Stop(context.Context) error  { return nil }

func specs(deps map[string][]string) []ServiceSpec {
	var out []ServiceSpec
	for n, d := range deps {
		out = append(out, ServiceSpec{Name: n, Requires: d, New: func(*Env) (Service, error) { return orderSvc{}, nil }})
	}
	return out
}

func names(ss []ServiceSpec) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return strings.Join(n, ",")
}

// Dependencies come first; otherwise name order, whatever the input order.
func TestServiceOrder(t *testing.T) {
	for _, tc := range []struct {
		deps map[string][]string
		want string
	}{
		{map[string][]string{"a": nil, "b": nil, "c": nil}, "a,b,c"},
		{map[string][]string{"a": {"c"}, "b": nil, "c": nil}, "b,c,a"},
		{map[string][]string{"nodes": {"store", "conns"}, "cron": {"nodes"}, "store": nil, "conns": nil, "zed": nil}, "conns,store,nodes,cron,zed"},
		{map[string][]string{"a": {"b", "b"}, "b": nil}, "b,a"},
	} {
		for i := 0; i < 5; i++ { // map order varies the input
			got, err := ServiceOrder(specs(tc.deps))
			if err != nil || names(got) != tc.want {
				t.Fatalf("%v: got %s, %v; want %s", tc.deps, names(got), err, tc.want)
			}
		}
	}
}

func TestServiceOrderErrors(t *testing.T) {
	_, err := ServiceOrder(specs(map[string][]string{"cron": {"nodes"}, "x": nil}))
	if err == nil || err.Error() != "services: cron requires nodes, which is not registered" {
		t.Errorf("missing: %v", err)
	}
	_, err = ServiceOrder(specs(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": nil, "e": {"a"}}))
	if err == nil || err.Error() != "services: dependency cycle: a -> b -> c -> a" {
		t.Errorf("cycle: %v", err)
	}
	_, err = ServiceOrder(specs(map[string][]string{"a": {"a"}}))
	if err == nil || err.Error() != "services: dependency cycle: a -> a" {
		t.Errorf("self cycle: %v", err)
	}
}

type typedSvc struct{ orderSvc }

func TestServiceKey(t *testing.T) {
	key := NewServiceKey[*typedSvc]("typed")
	want := &typedSvc{}
	env := &Env{Services: map[string]Service{"typed": want, "other": orderSvc{}}}
	got, err := key.From(env, "typed.call")
	if err != nil || got != want {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := key.From(&Env{}, "typed.call"); AsError(err).ExitCode() != 5 {
		t.Errorf("outside the gateway: %v", err)
	}
	if _, err := ServiceOf[*typedSvc](env, "other", "x"); err == nil || !strings.Contains(err.Error(), "service other is a tools.orderSvc") {
		t.Errorf("wrong type: %v", err)
	}
	spec := key.Spec(func(*Env) (*typedSvc, error) { return want, nil })
	if s, err := spec.New(nil); spec.Name != "typed" || s != want || err != nil {
		t.Errorf("spec: %+v %v %v", spec, s, err)
	}
}
