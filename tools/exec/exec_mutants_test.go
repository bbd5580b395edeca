package exectool

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// These tests pin exec lines that a one-line mutation (gremlins, `make
// mutate`) could change with every other test still passing (issue 17,
// item 20).

// The config's tools.exec.security applies (it is the tightest source
// here): deny refuses, and the command does not run.
func TestConfigSecurityApplies(t *testing.T) {
	env := localEnv(t)
	path := filepath.Join(env.StateDir, "openclaw.json")
	if err := os.WriteFile(path, []byte(`{"tools":{"exec":{"security":"deny"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	env.Config = cfg
	marker := filepath.Join(env.Workspace, "ran")
	b, _ := json.Marshal(map[string]any{"command": "touch " + marker})
	if _, err := invoke(t, env, string(b)); code(err) != tools.CodeDenied {
		t.Fatalf("tools.exec.security=deny: %v, want denied", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
}

// On the gateway a short foreground command runs to its end within the
// default yield (10 s): it is not backgrounded at once.
func TestGatewayForegroundWaitsForTheDefaultYield(t *testing.T) {
	env, _ := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"sleep 0.2; echo finished"}`)
	if err != nil {
		t.Fatal(err)
	}
	if d := details(m); d["status"] == "running" || !strings.Contains(text(m), "finished") {
		t.Fatalf("backgrounded before the yield: %v", m)
	}
}

// A PTY that starts is used once: no fallback warning, no second start.
func TestPTYStartsOnce(t *testing.T) {
	env := localEnv(t)
	f := filepath.Join(env.Workspace, "runs")
	b, _ := json.Marshal(map[string]any{"command": "echo run >> " + f + "; if [ -t 1 ]; then echo on-a-tty; fi", "pty": true})
	m, err := invoke(t, env, string(b))
	if err != nil {
		t.Fatal(err)
	}
	if out := text(m); strings.Contains(out, "PTY spawn failed") || !strings.Contains(out, "on-a-tty") {
		t.Fatalf("output %q", out)
	}
	if got, _ := os.ReadFile(f); string(got) != "run\n" {
		t.Fatalf("the command ran %q", got)
	}
}

// timeout 0 is no timeout (the command is not killed at once).
func TestTimeoutZeroMeansNone(t *testing.T) {
	env := localEnv(t)
	m, err := invoke(t, env, `{"command":"sleep 0.2; echo survived","timeout":0}`)
	if err != nil || !strings.Contains(text(m), "survived") {
		t.Fatalf("timeout 0: %v %v", m, err)
	}
}

// Live output events carry output: nothing new is no event.
func TestLiveOutputEventsAreNeverEmpty(t *testing.T) {
	env := localEnv(t)
	var mu sync.Mutex
	var data []string
	env.Sink = sinkFunc(func(name string, payload any) {
		if name == outputEventName {
			mu.Lock()
			data = append(data, payload.(map[string]any)["data"].(string))
			mu.Unlock()
		}
	})
	if _, err := invoke(t, env, `{"command":"sleep 0.1; echo one; sleep 0.1; echo two"}`); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(data, ""), "one\ntwo") {
		t.Errorf("live output %q", data)
	}
	for _, d := range data {
		if d == "" || strings.Contains(d, "output skipped") {
			t.Fatalf("an empty or skip-marked exec.output event for a few bytes: %q", data)
		}
	}
}

// In the CLI (no gateway) Ctrl-C ends the command: exec catches SIGINT and
// kills the group. The test catches SIGINT too, so a missed signal cannot
// end the test binary; it repeats the signal until exec answers, since exec
// starts listening just after the command starts.
func TestCLIInterruptEndsTheCommand(t *testing.T) {
	env := localEnv(t)
	mine := make(chan os.Signal, 16)
	signal.Notify(mine, os.Interrupt)
	defer signal.Stop(mine)

	pidf := filepath.Join(env.Workspace, "pid")
	b, _ := json.Marshal(map[string]any{"command": "echo $$ > " + pidf + "; exec sleep 60"})
	type answer struct {
		m   map[string]any
		err error
	}
	done := make(chan answer, 1)
	go func() {
		m, err := invokeCtx(context.Background(), t, env, string(b))
		done <- answer{m, err}
	}()
	for wait := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(pidf); strings.HasSuffix(string(b), "\n") {
			break
		}
		if time.Now().After(wait) {
			t.Fatal("the command never started")
		}
	}
	pid := readPID(t, pidf)
	deadline := time.After(10 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case a := <-done:
			if !gone(pid) {
				t.Fatalf("SIGINT answered (%v %v) but the command still runs", a.m, a.err)
			}
			return
		case <-tick.C:
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		case <-deadline:
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatal("exec ignored SIGINT for 10 s")
		}
	}
}

// A command that dies by a signal: the details name the signal, it is not
// a timeout, and the error keeps the output printed before it died. A
// command past the caller's deadline is a timeout.
func TestSignalledAndDeadlineResults(t *testing.T) {
	env := localEnv(t)
	_, err := invoke(t, env, `{"command":"echo partial-output; kill -KILL $$"}`)
	e := tools.AsError(err)
	if e == nil {
		t.Fatal("a SIGKILLed command succeeded")
	}
	d := e.Details.(map[string]any)
	if d["signal"] == nil || d["signal"] == "" || d["timedOut"] != false {
		t.Errorf("details %v, want a signal and timedOut false", d)
	}
	if !strings.Contains(e.Message, "partial-output") || !strings.Contains(e.Message, "signal") {
		t.Errorf("message %q, want the output and the signal", e.Message)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = invokeCtx(ctx, t, env, `{"command":"sleep 30"}`)
	if e := tools.AsError(err); e == nil || e.Details.(map[string]any)["timedOut"] != true {
		t.Errorf("past the caller's deadline: %v, want timedOut", err)
	}
}

// The original's output-cap env overrides apply (clamped); 0 or junk
// keeps the default.
func TestOutputCapEnv(t *testing.T) {
	for v, want := range map[string]int{"5000": 5000, "10": 1000, "0": aggregateCap, "lots": aggregateCap, "999999999": aggregateCap} {
		t.Setenv("OPENCLAW_BASH_MAX_OUTPUT_CHARS", v)
		if got := aggCap(); got != want {
			t.Errorf("OPENCLAW_BASH_MAX_OUTPUT_CHARS=%s: %d, want %d", v, got, want)
		}
	}
}

// Control keys cover the whole range: C-@ (NUL) through C-_ (0x1f), lower
// case letters as upper case; outside it is an error.
func TestControlKeyRange(t *testing.T) {
	for k, want := range map[string]byte{"C-@": 0, "C-a": 1, "C-A": 1, "c-z": 0x1a, "^Z": 0x1a, "C-_": 0x1f, "C-[": 0x1b, "^?": 0x7f} {
		b, err := keyBytes(k)
		if err != nil || len(b) != 1 || b[0] != want {
			t.Errorf("%s: %v %v, want %#x", k, b, err, want)
		}
	}
	for _, k := range []string{"C-`", "C-{", "C-1", "C-~"} {
		if b, err := keyBytes(k); err == nil {
			t.Errorf("%s: %v, want an error", k, b)
		}
	}
}

// Session names: the 400 word pairs come first, each once and without a
// round suffix; then "-2" names follow.
func TestSessionNamesPairsBeforeRounds(t *testing.T) {
	var ns names
	pairs := len(adjectives) * len(nouns)
	seen := map[string]bool{}
	for i := 0; i < pairs; i++ {
		n := ns.next()
		if strings.Count(n, "-") != 1 || seen[n] {
			t.Fatalf("name %d: %q (repeated %v), want a fresh adjective-noun", i, n, seen[n])
		}
		seen[n] = true
	}
	if n := ns.next(); !strings.HasSuffix(n, "-2") || !seen[strings.TrimSuffix(n, "-2")] {
		t.Fatalf("name %d: %q, want a pair with -2", pairs, n)
	}
}

// The child inherits the environment (minus what the call overrides) and
// sees exactly one OPENCLAW_SHELL, ours.
func TestChildEnvInheritsAndMarks(t *testing.T) {
	t.Setenv("MUTANT_PROBE", "inherited")
	t.Setenv("MUTANT_OVER", "parent")
	t.Setenv("OPENCLAW_SHELL", "outer")
	env := childEnv(map[string]string{"MUTANT_OVER": "call"})
	count := map[string][]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		count[k] = append(count[k], v)
	}
	for k, want := range map[string]string{"MUTANT_PROBE": "inherited", "MUTANT_OVER": "call", "OPENCLAW_SHELL": "exec"} {
		if got := count[k]; len(got) != 1 || got[0] != want {
			t.Errorf("%s = %v, want [%s]", k, got, want)
		}
	}
	if len(count["PATH"]) != 1 {
		t.Errorf("PATH = %v", count["PATH"])
	}
}

// $SHELL is used when set, except fish (not POSIX); unset means bash (or
// /bin/sh).
func TestShellChoice(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	if got := shell(); got != "/bin/sh" {
		t.Errorf("SHELL=/bin/sh: %q", got)
	}
	for _, v := range []string{"", "/usr/bin/fish"} {
		t.Setenv("SHELL", v)
		if got := shell(); got == "" || strings.Contains(got, "fish") {
			t.Errorf("SHELL=%q: %q, want bash or /bin/sh", v, got)
		}
	}
}

// Ending a session whose job the runner no longer knows still ends its
// process group.
func TestEndWithoutItsJobKillsTheGroup(t *testing.T) {
	env, reg := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"sleep 60","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	s := reg.get(env.AgentID(), details(m)["sessionId"].(string))
	s.taskID = "no-such-task"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	reg.end(ctx, s, "kill")
	select {
	case <-s.p.done:
	default:
		syscall.Kill(-s.p.pid, syscall.SIGKILL)
		t.Fatal("the group outlived end")
	}
}

// waitFile waits (bounded) until path exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}

// A child that stays in the group but clears its environment (so it
// carries no token) still ends with the command: the group kill reaches
// it.
func TestGroupChildWithoutTokenEnds(t *testing.T) {
	env := localEnv(t)
	pidf := filepath.Join(env.Workspace, "pid")
	// The shell ends once the child is sleep itself (no longer the forked
	// shell, which still carries the token).
	b, _ := json.Marshal(map[string]any{"command": "env -i sleep 313 & echo $! > " + pidf +
		`; until [ "$(cat /proc/$!/comm)" = sleep ]; do sleep 0.01; done`})
	if _, err := invoke(t, env, string(b)); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, pidf)
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatal("a tokenless child of the group outlived its command")
	}
}

// process kill sends SIGTERM to the whole group first (a member may clean
// up), not only to its leader.
func TestKillTermsTheWholeGroup(t *testing.T) {
	env, _ := gatewayEnv(t)
	dir := env.Workspace
	ready, termed := filepath.Join(dir, "ready"), filepath.Join(dir, "termed")
	leader := filepath.Join(dir, "leader")
	// The member (no token: env -i) traps TERM; the leader ignores it, so
	// only a group-wide SIGTERM reaches the trap before the SIGKILL. Both
	// say when their trap is set (a loaded machine ran the kill before the
	// leader's trap, and the leader's exit took the member with it).
	member := "trap 'echo t > " + termed + "; exit 0' TERM; echo r > " + ready + "; while :; do sleep 0.05; done"
	b, _ := json.Marshal(map[string]any{"command": "env -i /bin/sh -c \"" + member + "\" & trap '' TERM; echo l > " + leader + "; wait; wait", "background": true})
	m, err := invoke(t, env, string(b))
	if err != nil {
		t.Fatal(err)
	}
	id := details(m)["sessionId"].(string)
	waitFile(t, ready)
	waitFile(t, leader)
	if _, err := procCall(t, env, "kill", `{"sessionId":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(termed); err != nil {
		t.Error("the group member never got SIGTERM")
	}
}

// A finished pipe session is not writable; a running one is. A command
// that printed nothing reports its start as its last output.
func TestStdinAndLastOutputAfterExit(t *testing.T) {
	env, reg := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"read line; sleep 0.1","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	s := reg.get(env.AgentID(), details(m)["sessionId"].(string))
	if !s.p.writable() {
		t.Fatal("a running session's stdin is not writable")
	}
	if _, err := s.p.write(context.Background(), []byte("x\n"), true); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the command never ended")
	}
	if s.p.writable() {
		t.Error("an ended session's stdin is still writable")
	}
	if got := s.p.lastOutput(); !got.Equal(s.p.started) {
		t.Errorf("lastOutput %v, want the start %v (no output)", got, s.p.started)
	}
	// Its stdin never closed by a write: the exit closes it.
	m, err = invoke(t, env, `{"command":"sleep 0.1","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	s = reg.get(env.AgentID(), details(m)["sessionId"].(string))
	select {
	case <-s.p.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the command never ended")
	}
	if s.p.writable() {
		t.Error("an ended session's open stdin was not closed")
	}
}

// peek counts the unread bytes of both streams; lastOutput follows writes.
func TestPeekAndLastOutput(t *testing.T) {
	start := time.UnixMilli(1000)
	p := &proc{out: newOutput(100, 100), started: start}
	if ok, n := p.peek(); ok || n != 0 {
		t.Errorf("empty: %v %d", ok, n)
	}
	if got := p.lastOutput(); !got.Equal(start) {
		t.Errorf("lastOutput before output: %v", got)
	}
	p.out.write(0, []byte("abc"), 5000)
	p.out.write(1, []byte("de"), 6000)
	if ok, n := p.peek(); !ok || n != 5 {
		t.Errorf("after 3+2 bytes: %v %d", ok, n)
	}
	if got := p.lastOutput(); !got.Equal(time.UnixMilli(6000)) {
		t.Errorf("lastOutput %v, want 6000 ms", got)
	}
}

// Listing names: up to 80 bytes are kept whole, longer is middle-cut.
func TestNameCutsOnlyPast80(t *testing.T) {
	n80 := strings.Repeat("a", 80)
	if got := name(n80); got != n80 {
		t.Errorf("80 bytes cut: %q", got)
	}
	if got := name(n80 + "b"); len(got) >= 81+2 || !strings.Contains(got, "…") {
		t.Errorf("81 bytes: %q", got)
	}
}

// process list names the signal a session died of, and only then.
func TestListShowsExitSignal(t *testing.T) {
	env, reg := gatewayEnv(t)
	var ids []string
	for _, c := range []string{"kill -KILL $$", "true"} {
		b, _ := json.Marshal(map[string]any{"command": c, "background": true})
		m, err := invoke(t, env, string(b))
		if err != nil {
			t.Fatal(err)
		}
		id := details(m)["sessionId"].(string)
		ids = append(ids, id)
		s := reg.get(env.AgentID(), id)
		select {
		case <-s.p.done:
		case <-time.After(20 * time.Second):
			t.Fatal("never ended")
		}
	}
	m, err := procCall(t, env, "list", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, s := range details(m)["sessions"].([]any) {
		s := s.(map[string]any)
		got[s["sessionId"].(string)] = s["exitSignal"]
	}
	if got[ids[0]] == nil || got[ids[0]] == "" {
		t.Errorf("killed session: exitSignal %v", got[ids[0]])
	}
	if got[ids[1]] != nil {
		t.Errorf("clean exit: exitSignal %v", got[ids[1]])
	}
	// poll says the same.
	for i, id := range ids {
		m, err := procCall(t, env, "poll", `{"sessionId":"`+id+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		if sig, ok := details(m)["exitSignal"]; (i == 0) != (ok && sig != "") {
			t.Errorf("poll %s: exitSignal %v", id, details(m)["exitSignal"])
		}
	}
	// log counts lines, the trailing newline ending the last one.
	m, err = invoke(t, env, `{"command":"printf 'one\ntwo\n'","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	id := details(m)["sessionId"].(string)
	<-reg.get(env.AgentID(), id).p.done
	m, err = procCall(t, env, "log", `{"sessionId":"`+id+`"}`)
	if err != nil || text(m) != "one\ntwo" || details(m)["totalLines"] != float64(2) {
		t.Errorf("log: %v %v, want two lines", m, err)
	}
	m, err = procCall(t, env, "log", `{"sessionId":"`+id+`","offset":1,"limit":1}`)
	if err != nil || text(m) != "two" || details(m)["total"] != float64(1) {
		t.Errorf("log offset 1 limit 1: %v %v, want one line", m, err)
	}
}

// poll with a timeout waits for output; empty polls back off (5 s, 10 s,
// 30 s ...) and output resets the back-off.
func TestPollWaitsAndBacksOff(t *testing.T) {
	env, _ := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"sleep 0.3; echo late; read x; echo again; sleep 60","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	id := details(m)["sessionId"].(string)
	m, err = procCall(t, env, "poll", `{"sessionId":"`+id+`","timeout":10000}`)
	if err != nil || !strings.Contains(text(m), "late") {
		t.Fatalf("poll with a timeout did not wait for the output: %v %v", m, err)
	}
	if details(m)["waitingForInput"] != nil {
		t.Errorf("output just arrived, yet waitingForInput: %v", m)
	}
	var retries []any
	for i := 0; i < 3; i++ {
		m, err = procCall(t, env, "poll", `{"sessionId":"`+id+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		retries = append(retries, details(m)["retryInMs"])
	}
	if b, _ := json.Marshal(retries); string(b) != "[5000,10000,30000]" {
		t.Errorf("empty polls retry %s, want [5000,10000,30000]", b)
	}
	if _, err := procCall(t, env, "write", `{"sessionId":"`+id+`","data":"x\n"}`); err != nil {
		t.Fatal(err)
	}
	m, err = procCall(t, env, "poll", `{"sessionId":"`+id+`","timeout":10000}`)
	if err != nil || !strings.Contains(text(m), "again") || details(m)["retryInMs"] != float64(5000) {
		t.Errorf("poll after output: %v %v, want again and retry 5000", m, err)
	}
}

// The gateway records each running command (pid and token) for the next
// gateway, and drops it once it ends.
func TestRunningCommandsAreRecorded(t *testing.T) {
	env, reg := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"sleep 60","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	s := reg.get(env.AgentID(), details(m)["sessionId"].(string))
	recs, err := loadRecords(reg.recordsPath())
	if err != nil || len(recs) != 1 || recs[0].PID != s.p.pid || recs[0].Token != s.p.token {
		t.Fatalf("records %+v %v, want the running session", recs, err)
	}
}

// process list on a terminal shows the signal a session died of and its
// runtime.
func TestProcessListRendersSignalAndRuntime(t *testing.T) {
	res := gjson.Parse(`{"content":[{"type":"text","text":"x"}],"details":{"sessions":[
		{"sessionId":"sharp-glade","status":"failed","exitSignal":"SIGKILL","pid":12,"runtimeMs":65000,"command":"sleep 100"}]}}`)
	var b bytes.Buffer
	if err := tools.Lookup("process.list").Render(&b, res); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "failed (SIGKILL)") || !strings.Contains(out, "1m5s") {
		t.Errorf("rendered %q", out)
	}
}

// The registry takes tools.exec.cleanupMs from the config (clamped), and
// defaults to 30 minutes.
func TestRegistryTTLFromConfig(t *testing.T) {
	env, _ := gatewayEnv(t)
	svc, err := newRegistry(env)
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.(*registry).ttl; got != defaultTTL {
		t.Errorf("default ttl %v, want %v", got, defaultTTL)
	}
	path := filepath.Join(env.StateDir, "openclaw.json")
	os.WriteFile(path, []byte(`{"tools":{"exec":{"cleanupMs":120000}}}`), 0o600)
	cfg, err := config.Load(path, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	env.Config = cfg
	svc, _ = newRegistry(env)
	if got := svc.(*registry).ttl; got != 2*time.Minute {
		t.Errorf("cleanupMs 120000: ttl %v, want 2m", got)
	}
}

// endedSession is a finished background session with size bytes of output.
func endedSession(id string, ended time.Time, size int) *session {
	p := &proc{out: newOutput(maxRetainedOutput, 100), exited: true, ended: ended, done: make(chan struct{})}
	p.out.agg.b = make([]byte, size)
	return &session{id: id, p: p, backgrounded: true}
}

// sweep keeps a finished session up to exactly its TTL, and finished
// output up to exactly the retained cap; past either, the oldest goes.
func TestSweepBoundaries(t *testing.T) {
	end := time.UnixMilli(1_000_000)
	r := &registry{ttl: time.Minute, sessions: map[string]*session{"a": endedSession("a", end, 10)}}
	r.sweep(end.Add(time.Minute))
	if r.sessions["a"] == nil {
		t.Fatal("dropped at exactly its TTL")
	}
	r.sweep(end.Add(time.Minute + time.Millisecond))
	if r.sessions["a"] != nil {
		t.Fatal("kept past its TTL")
	}
	half := maxRetainedOutput / 2
	r.sessions = map[string]*session{"old": endedSession("old", end, half), "new": endedSession("new", end.Add(time.Second), maxRetainedOutput-half)}
	r.sweep(end.Add(2 * time.Second))
	if len(r.sessions) != 2 {
		t.Fatalf("exactly the cap: %d sessions kept, want 2", len(r.sessions))
	}
	r.sessions["new"] = endedSession("new", end.Add(time.Second), maxRetainedOutput-half+1)
	r.sweep(end.Add(2 * time.Second))
	if r.sessions["old"] != nil || r.sessions["new"] == nil {
		t.Fatalf("one byte past the cap: kept %v, want only new", r.sessions)
	}
}
