package exectool

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// TestExecEcho runs a builtin; TestExecWithAnEmptyEnvironment runs it
// again in a process with no environment at all (a service manager's
// `env -i`), where childEnv has nothing to inherit. (Its slice sized
// len(base)+len(over)-1 went negative there and the call panicked.)
func TestExecEcho(t *testing.T) {
	m, err := invoke(t, localEnv(t), `{"command":"echo ok; env | grep -c ."}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(m); !strings.HasPrefix(got, "ok\n") {
		t.Fatalf("text %q", got)
	}
}

func TestExecWithAnEmptyEnvironment(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestExecEcho$", "-test.count=1", "-test.v")
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestExecEcho") {
		t.Fatalf("%v\n%s", err, out)
	}
}
