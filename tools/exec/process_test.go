package exectool

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway"
	"github.com/openclaw-go/openclaw/tools"
)

// gatewayEnv is an Env with the gateway's job runner and a started exec
// service, as inside `openclaw serve`.
func gatewayEnv(t *testing.T) (*tools.Env, *registry) {
	t.Helper()
	env, _ := gatewayEnvJobs(t)
	return env, env.Services[serviceName].(*registry)
}

// gatewayEnvJobs is gatewayEnv with the job runner's stop (gateway shutdown).
func gatewayEnvJobs(t *testing.T) (*tools.Env, func(time.Duration)) {
	t.Helper()
	env := localEnv(t)
	jobs, stop := gateway.NewJobRunner(t.Logf)
	t.Cleanup(func() { stop(5 * time.Second) })
	env.Jobs = jobs
	svc, err := newRegistry(env)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Stop(context.Background()) })
	env.Services = map[string]tools.Service{serviceName: svc}
	return env, stop
}

func procCall(t *testing.T, env *tools.Env, verb, params string) (map[string]any, error) {
	t.Helper()
	out, err := tools.Invoke(context.Background(), env, tools.Call{Tool: "process", Verb: verb, Args: json.RawMessage(params)})
	if err != nil {
		return nil, err
	}
	var m map[string]any
	json.Unmarshal(out, &m)
	return m, nil
}

// pollUntil polls (each poll waits up to 2 s for news) until the collected
// output contains want or the deadline passes.
func pollUntil(t *testing.T, env *tools.Env, id, want string) (string, map[string]any) {
	t.Helper()
	var all strings.Builder
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		m, err := procCall(t, env, "poll", `{"sessionId":"`+id+`","timeout":2000}`)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(text(m))
		if strings.Contains(all.String(), want) {
			return all.String(), m
		}
	}
	t.Fatalf("no %q in %q", want, all.String())
	return "", nil
}

func TestBackgroundSessionRoundTrip(t *testing.T) {
	env, _ := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"echo started; cat; echo after-eof","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	d := details(m)
	id, _ := d["sessionId"].(string)
	if d["status"] != "running" || id == "" || !strings.HasPrefix(text(m), "Command still running (session "+id) {
		t.Fatalf("%v", m)
	}
	pollUntil(t, env, id, "started")
	if m, err := procCall(t, env, "write", `{"sessionId":"`+id+`","data":"echoed\n","eof":true}`); err != nil ||
		text(m) != "Wrote 7 bytes to session "+id+" (stdin closed)." {
		t.Fatalf("%v %v", m, err)
	}
	out, last := pollUntil(t, env, id, "Process exited with code 0.")
	if !strings.Contains(out, "echoed") || !strings.Contains(out, "after-eof") || details(last)["status"] != "completed" {
		t.Fatalf("poll %q %v", out, last)
	}
	m, err = procCall(t, env, "log", `{"sessionId":"`+id+`","offset":1,"limit":1}`)
	if err != nil || text(m) != "echoed" {
		t.Fatalf("log %v %v", m, err)
	}
	m, _ = procCall(t, env, "list", `{}`)
	if !strings.Contains(text(m), id+" completed") {
		t.Fatalf("list %q", text(m))
	}
	// Another agent does not see it.
	other := *env
	other.Subject.AgentID = "other"
	if _, err := procCall(t, &other, "poll", `{"sessionId":"`+id+`"}`); err == nil || err.Error() != "No session found for "+id {
		t.Fatalf("other agent: %v", err)
	}
	if m, err := procCall(t, env, "clear", `{"sessionId":"`+id+`"}`); err != nil || text(m) != "Cleared session "+id+"." {
		t.Fatalf("clear %v %v", m, err)
	}
	if _, err := procCall(t, env, "poll", `{"sessionId":"`+id+`"}`); err == nil {
		t.Fatal("cleared session still polls")
	}
}

// After yieldMs the command continues; the caller's later cancel does not
// kill it (it is no longer the caller's).
func TestYieldThenCancelKeepsSession(t *testing.T) {
	env, _ := gatewayEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	m, err := invokeCtx(ctx, t, env, `{"command":"echo one; read x; echo got $x","yieldMs":50}`)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	id := details(m)["sessionId"].(string)
	pollUntil(t, env, id, "one")
	procCall(t, env, "send-keys", `{"sessionId":"`+id+`","literal":"abc","keys":["Enter"]}`)
	// stdin is a pipe here: Enter is CR, which read keeps; submit adds nothing for a pipe
	procCall(t, env, "write", `{"sessionId":"`+id+`","data":"\n"}`)
	out, _ := pollUntil(t, env, id, "Process exited")
	if !strings.Contains(out, "got abc") {
		t.Fatalf("%q", out)
	}
}

func TestPTYSessionKeys(t *testing.T) {
	env, _ := gatewayEnv(t)
	m, err := invoke(t, env, `{"command":"printf 'name? '; read x; echo hello-$x","background":true,"pty":true}`)
	if err != nil {
		t.Fatal(err)
	}
	id := details(m)["sessionId"].(string)
	pollUntil(t, env, id, "name?")
	if _, err := procCall(t, env, "send-keys", `{"sessionId":"`+id+`","literal":"bob"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := procCall(t, env, "submit", `{"sessionId":"`+id+`"}`); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, env, id, "hello-bob")
}

// kill and the gateway's shutdown (its job runner stopping) end whole
// process groups.
func TestKillAndStopEndGroups(t *testing.T) {
	env, stopJobs := gatewayEnvJobs(t)
	reg := env.Services[serviceName].(*registry)
	dir := env.Workspace
	var pids []string
	for i, name := range []string{"a", "b"} {
		pidf := filepath.Join(dir, name)
		pids = append(pids, pidf)
		m, err := invoke(t, env, `{"command":"sleep 60 & echo $! > `+pidf+`; echo up; wait","background":true}`)
		if err != nil {
			t.Fatal(err)
		}
		id := details(m)["sessionId"].(string)
		pollUntil(t, env, id, "up")
		if i == 0 {
			if m, err := procCall(t, env, "kill", `{"sessionId":"`+id+`"}`); err != nil || text(m) != "Killed session "+id+"." {
				t.Fatalf("kill %v %v", m, err)
			}
			if !gone(readPID(t, pidf)) {
				t.Fatal("kill left the group's child running")
			}
		}
	}
	stopJobs(5 * time.Second)
	if !gone(readPID(t, pids[1])) {
		t.Fatal("shutdown left a child running")
	}
	if err := reg.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := invoke(t, env, `{"command":"true","background":true}`); code(err) != tools.CodeUnreachable {
		t.Fatalf("exec after Stop: %v", err)
	}
}

func TestRetentionCaps(t *testing.T) {
	env, reg := gatewayEnv(t)
	var ids []string
	for i := 0; i < maxFinished+3; i++ {
		m, err := invoke(t, env, `{"command":"true","background":true}`)
		if err != nil {
			t.Fatal(err)
		}
		id := details(m)["sessionId"].(string)
		ids = append(ids, id)
		<-reg.get("main", id).p.done
	}
	reg.sweep(time.Now())
	if n := len(reg.list("main")); n != maxFinished {
		t.Fatalf("%d finished sessions kept, want %d", n, maxFinished)
	}
	if reg.get("main", ids[0]) != nil || reg.get("main", ids[len(ids)-1]) == nil {
		t.Fatal("evicted the wrong sessions")
	}
	reg.sweep(time.Now().Add(reg.ttl + time.Second))
	if n := len(reg.list("main")); n != 0 {
		t.Fatalf("%d sessions kept past the TTL", n)
	}
}

// A background session is a task on the job runner: cancelling the task by
// id ends the command's group, and the session records how it ended.
func TestBackgroundSessionIsATask(t *testing.T) {
	env, _ := gatewayEnv(t)
	pidf := filepath.Join(env.Workspace, "child")
	m, err := invoke(t, env, `{"command":"sleep 60 & echo $! > `+pidf+`; echo up; wait","background":true}`)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := details(m)["sessionId"].(string)
	task, _ := details(m)["taskId"].(string)
	if task == "" {
		t.Fatalf("no taskId in %v", details(m))
	}
	info, ok := env.Jobs.Get(task)
	if !ok || info.Kind != "exec" || info.Status != tools.JobRunning {
		t.Fatalf("task %+v %v", info, ok)
	}
	pollUntil(t, env, id, "up")
	if err := env.Jobs.Cancel(task); err != nil {
		t.Fatal(err)
	}
	end, err := tools.WaitJob(context.Background(), env.Jobs, task)
	if err != nil || end.Status != tools.JobCancelled {
		t.Fatalf("cancelled task: %+v %v", end, err)
	}
	if !gone(readPID(t, pidf)) {
		t.Fatal("cancelling the task left the group's child running")
	}
	_, last := pollUntil(t, env, id, "Process exited")
	if details(last)["status"] != "failed" {
		t.Fatalf("session after cancel: %v", last)
	}
}
