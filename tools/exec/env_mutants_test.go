package exectool

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// More overrides than the inherited environment has variables all reach
// the child. (childEnv sized its slice len(base)+len(over)+1; with the
// sum turned into a difference the size went negative and the call
// panicked — a mutant that survived every test.)
func TestExecMoreOverridesThanInherited(t *testing.T) {
	env := localEnv(t)
	n := len(os.Environ()) + 2
	over := make(map[string]string, n)
	for i := range n {
		over[fmt.Sprintf("OC_MANY_%d", i)] = strconv.Itoa(i)
	}
	b, _ := json.Marshal(map[string]any{"command": "env | grep -c '^OC_MANY_'; printenv OC_MANY_1", "env": over})
	m, err := invoke(t, env, string(b))
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(n) + "\n1"; text(m) != want {
		t.Fatalf("text %q, want %q", text(m), want)
	}
}
