package exectool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// These pin process, output and session lines that a one-line mutation
// (gremlins, `make mutate`) could change with every other test still
// passing (issue 17, item 20).

// Small pieces of the output buffer: a tail that holds exactly max bytes
// dropped nothing; sanitize drops control bytes but keeps tab, newline,
// CR and ESC; sinceCapped sends only the new bytes and counts the skipped.
func TestOutputBufferPieces(t *testing.T) {
	tb := tailBuf{max: 5}
	tb.write([]byte("abc"))
	tb.write([]byte("de"))
	if got := string(tb.bytes()); got != "abcde" || tb.dropped {
		t.Errorf("tail %q dropped %v, want abcde false", got, tb.dropped)
	}
	one := tailBuf{max: 5}
	one.write([]byte("abcde")) // one chunk of exactly max bytes
	if got := string(one.bytes()); got != "abcde" || one.dropped {
		t.Errorf("one chunk of max bytes: %q dropped %v, want abcde false", got, one.dropped)
	}
	one.write([]byte("fghij")) // another: the first is lost
	if got := string(one.bytes()); got != "fghij" || !one.dropped {
		t.Errorf("second chunk of max bytes: %q dropped %v, want fghij true", got, one.dropped)
	}
	big := tailBuf{max: 5}
	big.write([]byte("0123456")) // bigger than max: its head is lost
	if got := string(big.bytes()); got != "23456" || !big.dropped {
		t.Errorf("chunk over max: %q dropped %v, want 23456 true", got, big.dropped)
	}
	for in, want := range map[string]string{
		"\x01": "", "\x7f": "", "a\x01b": "ab", "a\x7fb": "ab", "a\x00\x1fb": "ab",
		"a\tb\r\n\x1b[0m": "a\tb\r\n\x1b[0m", "plain text": "plain text",
		"a b\x01c": "a bc", "a b\xffc": "a b\uFFFDc", // spaces survive the slow path
	} {
		if got := sanitize([]byte(in)); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	o := newOutput(100, 100)
	o.write(0, []byte("0123456789"), 0)
	if c, skipped, total := o.sinceCapped(4, 100); c != "456789" || skipped != 0 || total != 10 {
		t.Errorf("sinceCapped(4, 100) = %q %d %d", c, skipped, total)
	}
	if c, skipped, total := o.sinceCapped(2, 3); c != "789" || skipped != 5 || total != 10 {
		t.Errorf("sinceCapped(2, 3) = %q %d %d", c, skipped, total)
	}
	if c, skipped, _ := o.sinceCapped(10, 3); c != "" || skipped != 0 {
		t.Errorf("sinceCapped(10, 3) = %q %d", c, skipped)
	}
}

// zombie tells an exited, unreaped child from a running process.
func TestZombieState(t *testing.T) {
	if zombie(os.Getpid()) {
		t.Fatal("this process reads as a zombie")
	}
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + itoa(p.Pid) + "/stat")
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("true never exited")
		}
	}
	if !zombie(p.Pid) {
		t.Error("an exited, unreaped child is not a zombie")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// procState reads the state after the last ')' (a command name may hold
// ") "), and 0 from a line cut short.
func TestProcState(t *testing.T) {
	for in, want := range map[string]byte{
		"42 (sleep) S 1 42": 'S', "42 (a) Z b) R 1": 'R', "7 (x) Z": 'Z', ") X": 'X',
		"42 (sleep) ": 0, "42 (sleep)": 0, "42 sleep S": 0, "": 0,
	} {
		if got := procState([]byte(in)); got != want {
			t.Errorf("procState(%q) = %q, want %q", in, got, want)
		}
	}
}

// killLive counts and kills the live pids only (zombies and gone pids are
// skipped); killTagged goes round until nothing tagged is alive, even while
// a tagged shell keeps forking.
func TestKillTaggedRounds(t *testing.T) {
	token := newToken()
	cmd := osexec.Command("sh", "-c", "while :; do sleep 60 & done")
	cmd.Env = append(os.Environ(), tokenEnv+"="+token)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	for deadline := time.Now().Add(30 * time.Second); len(tagged(token)) < 5; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the tagged shell started no children")
		}
	}
	killTagged(token)
	<-waited
	for _, pid := range tagged(token) {
		if !zombie(pid) {
			t.Errorf("tagged pid %d still alive after killTagged", pid)
		}
	}
	if n := killLive(tagged(token)); n != 0 {
		t.Errorf("killLive counted %d live processes after killTagged", n)
	}
	if n := killLive([]int{1 << 30}); n != 0 {
		t.Errorf("a pid that does not exist counted alive (%d)", n)
	}
	p := osexec.Command("sleep", "60")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if n := killLive([]int{p.Process.Pid}); n != 1 {
		t.Errorf("one live process counted %d", n)
	}
	if err := p.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("the live process was not killed: %v", err)
	}
}

// The first recorded reason for ending a group wins: markKilled("kill")
// before the job's own kill("cancel") leaves "kill"; a later mark changes
// nothing, and nothing is marked once the process has exited.
func TestMarkKilledFirstReasonWins(t *testing.T) {
	p, err := start(spec{command: "sleep 60", dir: t.TempDir(), env: os.Environ()}, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	p.markKilled("kill")
	p.markKilled("timeout")
	p.kill(context.Background(), "cancel")
	if st := p.state(); st.killedBy != "kill" {
		t.Errorf("killedBy %q, want the first reason, kill", st.killedBy)
	}
	q, err := start(spec{command: "true", dir: t.TempDir(), env: os.Environ()}, 1000, 1000)
	if err != nil {
		t.Fatal(err)
	}
	<-q.done
	q.markKilled("kill")
	if st := q.state(); st.killedBy != "" {
		t.Errorf("an exited process marked killed by %q", st.killedBy)
	}
}

// The process verbs carry the MCP annotations their effects call for.
func TestProcessVerbAnnotations(t *testing.T) {
	want := map[string][3]bool{ // readOnly, idempotent, destructive
		"list": {true, true, false}, "poll": {true, false, false}, "log": {true, true, false},
		"write": {false, false, true}, "send-keys": {false, false, true}, "submit": {false, false, true},
		"paste": {false, false, true}, "kill": {false, true, true}, "clear": {false, true, true},
		"remove": {false, true, true},
	}
	seen := 0
	for _, a := range tools.ToolActions("process") {
		w, ok := want[a.Verb]
		if !ok {
			t.Errorf("process %s: not in the table", a.Verb)
			continue
		}
		seen++
		if got := [3]bool{a.ReadOnly, a.Idempotent, a.Destructive}; got != w {
			t.Errorf("process %s: readOnly/idempotent/destructive %v, want %v", a.Verb, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d process verbs registered, want %d", seen, len(want))
	}
}

// process log shows every line, with no paging note, up to exactly
// logDefaultN lines; one more shows the last logDefaultN and says so.
func TestProcessLogDefaultWindowEdge(t *testing.T) {
	env, reg := gatewayEnv(t)
	for _, n := range []int{logDefaultN, logDefaultN + 1} {
		m, err := invoke(t, env, fmt.Sprintf(`{"command":"seq %d","background":true}`, n))
		if err != nil {
			t.Fatal(err)
		}
		id := details(m)["sessionId"].(string)
		<-reg.get(env.AgentID(), id).p.done
		m, err = procCall(t, env, "log", `{"sessionId":"`+id+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		paged := strings.Contains(text(m), "[showing last")
		if paged != (n > logDefaultN) || !strings.HasSuffix(strings.TrimSpace(strings.Split(text(m), "\n\n[")[0]), fmt.Sprint(n)) {
			t.Errorf("%d lines: paged=%v, text ends %q", n, paged, text(m)[max(0, len(text(m))-80):])
		}
	}
}

// The sweep keeps exactly maxFinished finished sessions; one more drops
// the one that ended first.
func TestSweepKeepsMaxFinished(t *testing.T) {
	env, reg := gatewayEnv(t)
	var ids []string
	run := func() {
		m, err := invoke(t, env, `{"command":"true","background":true}`)
		if err != nil {
			t.Fatal(err)
		}
		id := details(m)["sessionId"].(string)
		<-reg.get(env.AgentID(), id).p.done
		ids = append(ids, id)
	}
	for range maxFinished {
		run()
	}
	count := func() int { reg.mu.Lock(); defer reg.mu.Unlock(); return len(reg.sessions) }
	reg.sweep(time.Now())
	if n := count(); n != maxFinished {
		t.Fatalf("%d finished sessions kept, want all %d", n, maxFinished)
	}
	run()
	reg.sweep(time.Now())
	if n := count(); n != maxFinished {
		t.Errorf("%d finished sessions kept, want %d", n, maxFinished)
	}
	if reg.get(env.AgentID(), ids[0]) != nil {
		t.Error("the session that ended first was kept")
	}
}
