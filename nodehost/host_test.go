package nodehost

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/approvalsfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
	"github.com/openclaw-go/openclaw/protocol"
	_ "github.com/openclaw-go/openclaw/tools/all" // the families, as cmd/openclaw links them
)

func TestConnectDeclaresAndPublishes(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	o.DisplayName = "build-box"
	h, _ := runHost(t, o)
	gw.waitFor("publications", func() bool {
		n := map[string]bool{}
		for _, r := range gw.requests {
			n[r.Method] = true
		}
		return n["node.event"] && n["node.skills.update"] && n["node.pluginTools.update"] && n["node.runnerInventory.update"]
	})
	gw.mu.Lock()
	connect := gjson.ParseBytes(gw.connects[0])
	gw.mu.Unlock()
	nf, _, err := LoadNodeFile(o.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"role": "node", "client.id": "node-host", "client.mode": "node", "client.platform": "linux", "client.deviceFamily": "Linux",
		"client.displayName": "build-box", "client.instanceId": nf.NodeID, "device.id": h.DeviceID(), "auth.token": "tok",
		"scopes": "[]", "minProtocol": "4", "maxProtocol": "4",
	} {
		if got := connect.Get(path); got.String() != want && got.Raw != want {
			t.Errorf("connect %s = %s, want %s", path, got.Raw, want)
		}
	}
	var cmds []string
	for _, c := range connect.Get("commands").Array() {
		cmds = append(cmds, c.String())
	}
	for _, want := range []string{"fs.listDir", "system.execApprovals.get", "system.execApprovals.set", "system.run", "system.run.prepare", "system.which"} {
		if !slices.Contains(cmds, want) {
			t.Errorf("commands %v lack %s", cmds, want)
		}
	}
	for _, never := range []string{"camera.snap", "camera.list", "screen.record", "location.get"} {
		if slices.Contains(cmds, never) {
			t.Errorf("a headless host declares %s", never)
		}
	}
	if !slices.Contains(toStrings(connect.Get("caps")), "system") {
		t.Errorf("caps %s lack system", connect.Get("caps").Raw)
	}
	if connect.Get("pathEnv").String() != os.Getenv("PATH") {
		t.Errorf("pathEnv %q", connect.Get("pathEnv").String())
	}

	stats := gjson.ParseBytes(gw.requestsOf("node.event")[0].Params)
	if stats.Get("event").String() != "node.host.stats" {
		t.Fatalf("first node.event is %s", stats.Raw)
	}
	p := gjson.Parse(stats.Get("payloadJSON").String())
	if p.Get("cpuCount").Int() < 1 || p.Get("memoryTotalBytes").Int() <= 0 || p.Get("memoryFreeBytes").Int() > p.Get("memoryTotalBytes").Int() ||
		p.Get("diskTotalBytes").Int() <= 0 {
		t.Errorf("node.host.stats payload %s", p.Raw)
	}
	if got := string(gw.requestsOf("node.skills.update")[0].Params); got != `{"skills":[]}` {
		t.Errorf("node.skills.update %s", got)
	}
	if got := string(gw.requestsOf("node.pluginTools.update")[0].Params); got != `{"tools":[]}` {
		t.Errorf("node.pluginTools.update %s", got)
	}
	inv := gjson.ParseBytes(gw.requestsOf("node.runnerInventory.update")[0].Params)
	if inv.Get("workerHost.enabled").Bool() || !inv.Get("workerHost.enabled").Exists() {
		t.Errorf("runner inventory %s", inv.Raw)
	}
	st, ok, err := ReadStatus(o.StateDir)
	if err != nil || !ok || !st.Connected || st.PID != os.Getpid() {
		t.Errorf("status file %+v %v %v", st, ok, err)
	}
}

func toStrings(r gjson.Result) []string {
	var out []string
	for _, v := range r.Array() {
		out = append(out, v.String())
	}
	return out
}

func TestStatsEveryInterval(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	o.StatsInterval = 200 * time.Millisecond
	runHost(t, o)
	gw.waitFor("three stats", func() bool {
		n := 0
		for _, r := range gw.requests {
			if r.Method == "node.event" && gjson.GetBytes(r.Params, "event").String() == "node.host.stats" {
				n++
			}
		}
		return n >= 3
	})
}

func TestInventoryRetriedUntilApprovedAndUnknownMethodDropped(t *testing.T) {
	gw := newTestGW(t, "tok")
	var approved atomic.Bool
	gw.answer = func(method string, _ json.RawMessage) (any, *protocol.ErrorShape) {
		switch method {
		case "node.pluginTools.update":
			return nil, protocol.NewError(protocol.ErrInvalidRequest, "unknown method: node.pluginTools.update", nil)
		case "node.runnerInventory.update":
			if !approved.Load() {
				return nil, protocol.NewError(protocol.ErrUnavailable, "node capability surface is awaiting operator approval", nil)
			}
		}
		return nil, nil
	}
	h, _ := runHost(t, hostOptions(t, gw))
	gw.waitFor("two tries", func() bool { return countMethod(gw.requests, "node.runnerInventory.update") >= 2 })
	approved.Store(true)
	gw.event("node.pair.resolved", map[string]any{"requestId": "r1", "nodeId": h.DeviceID(), "decision": "approved"})
	gw.waitFor("an accepted inventory", func() bool { return countMethod(gw.requests, "node.runnerInventory.update") >= 3 })
	// Once accepted nothing is pending; the unknown method was sent once
	// and is not retried.
	h.mu.Lock()
	p := h.pubs
	h.mu.Unlock()
	waitUntil(t, "publications settled", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, it := range p.items {
			if !it.done {
				return false
			}
		}
		return true
	})
	gw.mu.Lock()
	defer gw.mu.Unlock()
	if n := countMethod(gw.requests, "node.pluginTools.update"); n != 1 {
		t.Errorf("an unknown method was sent %d times", n)
	}
}

// waitUntil polls cond (state without a change signal), up to 30 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func countMethod(rs []gwRequest, m string) int {
	n := 0
	for _, r := range rs {
		if r.Method == m {
			n++
		}
	}
	return n
}

func TestInvokeSystemCommands(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	runHost(t, o)
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })

	which := gw.invoke("system.which", map[string]any{"bins": []string{"sh", "no-such-bin-xyz"}}, 10000).payload(t)
	bins, _ := which["bins"].(map[string]any)
	if sh, _ := bins["sh"].(string); !strings.HasSuffix(sh, "/sh") || len(bins) != 1 {
		t.Errorf("system.which: %v", which)
	}

	dir := t.TempDir()
	for _, d := range []string{"b", "a", ".hidden"} {
		os.Mkdir(filepath.Join(dir, d), 0o700)
	}
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o600)
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "link"))
	ls := gw.invoke("fs.listDir", map[string]any{"path": dir}, 10000)
	got := gjson.Parse(*ls.PayloadJSON)
	if names := toStrings(got.Get("entries.#.name")); strings.Join(names, ",") != "a,b,link,.hidden" ||
		got.Get("parent").String() != filepath.Dir(dir) || !got.Get("entries.3.hidden").Bool() || got.Get("path").String() != dir {
		t.Errorf("fs.listDir: %s", got.Raw)
	}
	if r := gw.invoke("fs.listDir", map[string]any{"path": "relative"}, 10000); r.OK || r.Error.Code != "INVALID_REQUEST" {
		t.Errorf("relative fs.listDir: %s", r.raw)
	}

	for _, cmd := range []string{"camera.snap", "screen.record", "location.get"} {
		r := gw.invoke(cmd, map[string]any{}, 10000)
		if r.OK || r.Error.Code != "INVALID_REQUEST" || r.Error.Message != `node command not allowed: the node (platform: linux) does not support "`+cmd+`"` {
			t.Errorf("%s: %s", cmd, r.raw)
		}
	}
	if r := gw.invoke("system.which", map[string]any{}, 10000); r.OK || r.Error.Code != "INVALID_REQUEST" || !strings.Contains(r.Error.Message, "bins") {
		t.Errorf("system.which without bins: %s", r.raw)
	}

	run := gw.invoke("system.run", map[string]any{"command": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, "runId": "r1", "sessionKey": "agent:main:main"}, 20000).payload(t)
	// stdout and stderr arrive interleaved in stdout (the exec family
	// captures one stream), in whichever order the pipes deliver them.
	if stdout, _ := run["stdout"].(string); run["exitCode"] != float64(3) || run["success"] != false || run["timedOut"] != false ||
		len(stdout) != len("out\nerr\n") || !strings.Contains(stdout, "out\n") || !strings.Contains(stdout, "err\n") || run["stderr"] != "" || run["error"] != nil {
		t.Errorf("system.run: %v", run)
	}
	gw.waitFor("exec.finished", func() bool { return hasEvent(gw.requests, "exec.finished", "r1") })
	ev := eventPayload(gw, "exec.finished", "r1")
	if ev.Get("sessionKey").String() != "agent:main:main" || ev.Get("host").String() != "node" || ev.Get("exitCode").Int() != 3 ||
		ev.Get("command").String() != `sh -c "echo out; echo err >&2; exit 3"` || !strings.Contains(ev.Get("output").String(), "out") ||
		!strings.Contains(ev.Get("output").String(), "err") {
		t.Errorf("exec.finished %s", ev.Raw)
	}

	cwd := t.TempDir()
	pwd := gw.invoke("system.run", map[string]any{"command": []string{"pwd"}, "cwd": cwd, "env": map[string]string{"GREETING": "hi"}}, 20000).payload(t)
	if strings.TrimSpace(pwd["stdout"].(string)) != cwd {
		t.Errorf("cwd: %v", pwd)
	}
	envOut := gw.invoke("system.run", map[string]any{"command": []string{"sh", "-c", "echo $GREETING"}, "env": map[string]string{"GREETING": "hi there"}}, 20000).payload(t)
	if envOut["stdout"] != "hi there\n" {
		t.Errorf("env: %v", envOut)
	}
	if r := gw.invoke("system.run", map[string]any{"command": []string{"true"}, "env": map[string]string{"LD_PRELOAD": "/x.so"}}, 20000); r.OK ||
		r.Error.Code != "INVALID_REQUEST" || !strings.HasPrefix(r.Error.Message, "SYSTEM_RUN_DENIED: environment override rejected") {
		t.Errorf("LD_PRELOAD: %s", r.raw)
	}
	slow := gw.invoke("system.run", map[string]any{"command": []string{"sleep", "30"}, "timeoutMs": 300}, 20000).payload(t)
	if slow["timedOut"] != true || slow["exitCode"] != float64(124) || slow["success"] != false {
		t.Errorf("timeout: %v", slow)
	}
	if r := gw.invoke("system.run", map[string]any{"command": []string{"echo", "a b"}, "rawCommand": "echo a b"}, 20000); r.OK ||
		r.Error.Message != "INVALID_REQUEST: rawCommand does not match command" {
		t.Errorf("rawCommand mismatch: %s", r.raw)
	}
	if r := gw.invoke("system.run", map[string]any{"command": []string{"echo", "a b"}, "rawCommand": `echo "a b"`}, 20000); !r.OK {
		t.Errorf("rawCommand match: %s", r.raw)
	}
	if r := gw.invoke("system.run", map[string]any{"command": []string{"true"}, "cwd": "/no/such/dir"}, 20000); r.OK || r.Error.Code != "SYSTEM_RUN_DENIED" {
		t.Errorf("missing cwd: %s", r.raw)
	}
}

func hasEvent(rs []gwRequest, event, runID string) bool {
	for _, r := range rs {
		if r.Method == "node.event" && gjson.GetBytes(r.Params, "event").String() == event &&
			gjson.Get(gjson.GetBytes(r.Params, "payloadJSON").String(), "runId").String() == runID {
			return true
		}
	}
	return false
}

func eventPayload(gw *testGW, event, runID string) gjson.Result {
	for _, r := range gw.requestsOf("node.event") {
		if gjson.GetBytes(r.Params, "event").String() == event {
			p := gjson.Parse(gjson.GetBytes(r.Params, "payloadJSON").String())
			if p.Get("runId").String() == runID {
				return p
			}
		}
	}
	return gjson.Result{}
}

func writeApprovals(t *testing.T, stateDir string, doc *policy.ExecApprovals) {
	t.Helper()
	if _, err := approvalsfile.Update(t.Context(), approvalsfile.Path(stateDir), func(s *approvalsfile.Snapshot) error {
		s.Doc = doc
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestSystemRunApprovals(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	runHost(t, o)
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	doc := policy.NewExecApprovals()
	doc.Defaults = policy.ExecApprovalAgent{Security: "allowlist", Ask: "off"}
	doc.Agent("main").Allowlist = []policy.AllowlistEntry{{Pattern: resolveExecutable("uname", "/")}}
	writeApprovals(t, o.StateDir, doc)

	if r := gw.invoke("system.run", map[string]any{"command": []string{"uname"}}, 20000); !r.OK {
		t.Errorf("allowlisted uname: %s", r.raw)
	}
	r := gw.invoke("system.run", map[string]any{"command": []string{"echo", "hi"}, "runId": "miss"}, 20000)
	if r.OK || r.Error.Code != "SYSTEM_RUN_DENIED" || r.Error.Message != "SYSTEM_RUN_DENIED: allowlist miss" {
		t.Errorf("allowlist miss: %s", r.raw)
	}
	gw.waitFor("exec.denied", func() bool { return hasEvent(gw.requests, "exec.denied", "miss") })
	if ev := eventPayload(gw, "exec.denied", "miss"); ev.Get("reason").String() != "allowlist-miss" || ev.Get("command").String() != "echo hi" {
		t.Errorf("exec.denied %s", ev.Raw)
	}

	doc.Defaults.Ask = "on-miss"
	writeApprovals(t, o.StateDir, doc)
	argv := []string{"echo", "approved run"}
	if r := gw.invoke("system.run", map[string]any{"command": argv}, 20000); r.OK || r.Error.Message != "SYSTEM_RUN_DENIED: approval required" {
		t.Errorf("ask on-miss: %s", r.raw)
	}
	// The gateway's part: prepare, ask an operator, run with the decision.
	prep := gw.invoke("system.run.prepare", map[string]any{"command": argv, "agentId": "main", "sessionKey": "agent:main:main"}, 20000)
	pp := gjson.Parse(*prep.PayloadJSON)
	echo := resolveExecutable("echo", "/")
	if pp.Get("plan.argv.0").String() != echo || pp.Get("plan.commandText").String() != echo+` "approved run"` ||
		pp.Get("execPolicy.security").String() != "allowlist" || pp.Get("execPolicy.ask").String() != "on-miss" ||
		pp.Get("plan.policySnapshot.allowlistRules.#").Int() != 1 || pp.Get("allowAlwaysCoverage.patterns.0.pattern").String() != echo ||
		pp.Get("plan.cwd").String() == "" || pp.Get("plan.mutableFileOperand.sha256").String() == "" {
		t.Fatalf("prepare: %s", pp.Raw)
	}
	plan := json.RawMessage(pp.Get("plan").Raw)
	approvedRun := func(decision string, extra map[string]any) invokeResult {
		params := map[string]any{"command": toStrings(pp.Get("plan.argv")), "rawCommand": pp.Get("plan.commandText").String(),
			"cwd": pp.Get("plan.cwd").String(), "agentId": "main", "sessionKey": "agent:main:main", "systemRunPlan": plan,
			"approved": true, "approvalDecision": decision, "runId": "ok-" + decision}
		for k, v := range extra {
			params[k] = v
		}
		return gw.invoke("system.run", params, 20000)
	}
	if out := approvedRun("allow-once", nil).payload(t); out["stdout"] != "approved run\n" {
		t.Errorf("allow-once: %v", out)
	}
	if after, _ := approvalsfile.Load(approvalsfile.Path(o.StateDir)); len(after.Agent("main").Allowlist) != 1 {
		t.Errorf("allow-once stored an entry: %+v", after.Agent("main").Allowlist)
	}
	if r := approvedRun("allow-once", map[string]any{"command": []string{echo, "something else"}, "rawCommand": nil}); r.OK ||
		r.Error.Message != "explicit approval requires matching systemRunPlan" {
		t.Errorf("a different command under the plan: %s", r.raw)
	}
	if r := approvedRun("allow-once", map[string]any{"systemRunPlan": nil}); r.OK {
		t.Errorf("approval without a plan ran: %s", r.raw)
	}
	if out := approvedRun("allow-always", nil).payload(t); out["stdout"] != "approved run\n" {
		t.Errorf("allow-always: %v", out)
	}
	after, _ := approvalsfile.Load(approvalsfile.Path(o.StateDir))
	al := after.Agent("main").Allowlist
	if len(al) != 2 || al[1].Pattern != echo || al[1].Source != "allow-always" {
		t.Fatalf("allow-always did not store the executable: %+v", al)
	}
	if r := gw.invoke("system.run", map[string]any{"command": []string{"echo", "later"}}, 20000); !r.OK {
		t.Errorf("echo after allow-always: %s", r.raw)
	}
	// A shell's inline script: allow-always stores each segment's program.
	shArgv := []string{"/bin/sh", "-lc", "printf 'a\\nb\\n' | wc -l"}
	sp := gjson.Parse(*gw.invoke("system.run.prepare", map[string]any{"command": shArgv}, 20000).PayloadJSON)
	if sp.Get("plan.argv.0").String() != "/bin/sh" || sp.Get("allowAlwaysCoverage.complete").Bool() {
		t.Errorf("prepare of a shell script: %s", sp.Raw)
	}
	sh := gw.invoke("system.run", map[string]any{"command": shArgv, "cwd": sp.Get("plan.cwd").String(), "systemRunPlan": json.RawMessage(sp.Get("plan").Raw),
		"approved": true, "approvalDecision": "allow-always"}, 20000).payload(t)
	if strings.TrimSpace(sh["stdout"].(string)) != "2" {
		t.Errorf("shell script: %v", sh)
	}
	after, _ = approvalsfile.Load(approvalsfile.Path(o.StateDir))
	stored := map[string]bool{}
	for _, e := range after.Agent("main").Allowlist {
		stored[e.Pattern] = true
	}
	if !stored[resolveExecutable("printf", "/")] || !stored[resolveExecutable("wc", "/")] {
		t.Errorf("the script's programs were not stored: %+v", after.Agent("main").Allowlist)
	}
	// The policy changed since the plan (ask tightened): refused.
	doc = after
	doc.Defaults.Ask = "always"
	writeApprovals(t, o.StateDir, doc)
	if r := approvedRun("allow-once", map[string]any{"runId": "stale"}); r.OK ||
		r.Error.Message != "SYSTEM_RUN_DENIED: exec approval policy changed; request approval again" {
		t.Errorf("stale plan: %s", r.raw)
	}
	doc.Defaults.Security = "deny"
	writeApprovals(t, o.StateDir, doc)
	if r := gw.invoke("system.run", map[string]any{"command": []string{"true"}}, 20000); r.OK || r.Error.Message != "SYSTEM_RUN_DISABLED: security=deny" {
		t.Errorf("deny: %s", r.raw)
	}
}

func TestApprovedRunRefusesSwappedExecutable(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	runHost(t, o)
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	bin := filepath.Join(t.TempDir(), "tool")
	os.WriteFile(bin, []byte("#!/bin/sh\necho original\n"), 0o700)
	prep := gjson.Parse(*gw.invoke("system.run.prepare", map[string]any{"command": []string{bin}}, 20000).PayloadJSON)
	os.WriteFile(bin, []byte("#!/bin/sh\necho swapped\n"), 0o700)
	r := gw.invoke("system.run", map[string]any{"command": []string{bin}, "cwd": prep.Get("plan.cwd").String(),
		"systemRunPlan": json.RawMessage(prep.Get("plan").Raw), "approved": true, "approvalDecision": "allow-once"}, 20000)
	if r.OK || !strings.Contains(r.Error.Message, "changed since it was approved") {
		t.Errorf("swapped executable: %s", r.raw)
	}
}

func TestExecApprovalsGetSet(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	runHost(t, o)
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	got := gw.invoke("system.execApprovals.get", nil, 10000).payload(t)
	if got["exists"] != false || got["path"] != approvalsfile.Path(o.StateDir) || !strings.HasPrefix(got["hash"].(string), "missing:") {
		t.Fatalf("get: %v", got)
	}
	file := map[string]any{"version": 1, "defaults": map[string]any{"security": "allowlist", "ask": "on-miss"}}
	set := gw.invoke("system.execApprovals.set", map[string]any{"file": file}, 10000).payload(t)
	if set["exists"] != true || gjson.Get(*gw.invoke("system.execApprovals.get", nil, 10000).PayloadJSON, "file.defaults.security").String() != "allowlist" {
		t.Fatalf("set: %v", set)
	}
	if r := gw.invoke("system.execApprovals.set", map[string]any{"file": file}, 10000); r.OK ||
		r.Error.Message != "INVALID_REQUEST: exec approvals base hash required; reload and retry" {
		t.Errorf("set without baseHash: %s", r.raw)
	}
	if r := gw.invoke("system.execApprovals.set", map[string]any{"file": file, "baseHash": "stale"}, 10000); r.OK ||
		r.Error.Message != "INVALID_REQUEST: exec approvals changed; reload and retry" {
		t.Errorf("stale baseHash: %s", r.raw)
	}
	bad := map[string]any{"version": 1, "defaults": map[string]any{"security": "sometimes"}}
	if r := gw.invoke("system.execApprovals.set", map[string]any{"file": bad, "baseHash": set["hash"]}, 10000); r.OK || r.Error.Code != "INVALID_REQUEST" {
		t.Errorf("invalid security stored: %s", r.raw)
	}
	if r := gw.invoke("system.execApprovals.set", map[string]any{"file": file, "baseHash": set["hash"]}, 10000); !r.OK {
		t.Errorf("set with the hash: %s", r.raw)
	}
	res := gw.invoke("system.execApprovals.get", map[string]any{"includeResolvedDefaults": true}, 10000).payload(t)
	if gjson.Get(mustJSONString(res), "resolvedDefaults.security").String() != "allowlist" {
		t.Errorf("resolvedDefaults: %v", res)
	}
}

func TestCancelEndsTheCommand(t *testing.T) {
	gw := newTestGW(t, "tok")
	h, _ := runHost(t, hostOptions(t, gw))
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	done := make(chan invokeResult, 1)
	go func() {
		done <- gw.invoke("system.run", map[string]any{"command": []string{"sleep", "60"}}, 120000)
	}()
	var id string
	gw.waitFor("the invocation", func() bool {
		for k := range gw.results {
			id = k
		}
		return id != ""
	})
	h.mu.Lock()
	h.mu.Unlock()
	waitUntil(t, "the command started", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.invokes[id] != nil
	})
	gw.event("node.invoke.cancel", map[string]any{"invokeId": id, "nodeId": "n"})
	select {
	case r := <-done:
		if r.OK {
			t.Errorf("cancelled run succeeded: %s", r.raw)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled command kept running")
	}
}

func TestReconnectAfterGatewayRestart(t *testing.T) {
	gw := newTestGW(t, "tok")
	runHost(t, hostOptions(t, gw))
	gw.waitFor("first stats", func() bool { return countMethod(gw.requests, "node.event") == 1 })
	gw.restart(300 * time.Millisecond)
	gw.waitFor("reconnected", func() bool { return len(gw.connects) >= 2 && len(gw.conns) == 1 })
	if r := gw.invoke("system.which", map[string]any{"bins": []string{"sh"}}, 10000); !r.OK {
		t.Errorf("after reconnect: %s", r.raw)
	}
	gw.waitFor("stats again", func() bool { return countMethod(gw.requests, "node.event") >= 2 })
}

func TestAuthRefusalStopsWithAClearMessage(t *testing.T) {
	gw := newTestGW(t, "right")
	o := hostOptions(t, gw)
	o.Token = "wrong"
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Run(t.Context()) }()
	select {
	case err := <-done:
		te := failure.AsError(err)
		if te.Code != failure.CodeAuth || !strings.Contains(te.Message, "refused the connection: unauthorized: gateway token mismatch") ||
			!strings.Contains(te.Message, "OPENCLAW_GATEWAY_TOKEN") {
			t.Errorf("refusal: %v (%s)", err, te.Code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the node host kept retrying a refused token")
	}
	if len(gw.connects) != 1 {
		t.Errorf("%d connects for a refused token", len(gw.connects))
	}
	st, _, _ := ReadStatus(o.StateDir)
	if st == nil || !strings.Contains(st.Stopped, "token mismatch") {
		t.Errorf("status after refusal: %+v", st)
	}
}

func TestPairingPendingIsWaitedFor(t *testing.T) {
	gw := newTestGW(t, "tok")
	gw.reject = protocol.NewError(protocol.ErrNotPaired, "device pairing required", map[string]any{
		"code": protocol.DetailPairingRequired, "requestId": "req-1", "recommendedNextStep": "wait_then_retry", "pauseReconnect": false})
	o := hostOptions(t, gw)
	runHost(t, o)
	gw.waitFor("two attempts", func() bool { return len(gw.connects) >= 2 })
	gw.mu.Lock()
	gw.reject = nil
	gw.mu.Unlock()
	gw.waitFor("connected after approval", func() bool { return len(gw.conns) == 1 })
	log := o.Log.(*testLog).String()
	if strings.Count(log, "openclaw devices approve req-1") != 1 {
		t.Errorf("the pairing hint should be logged once:\n%s", log)
	}
}

func TestPairingRefusedStops(t *testing.T) {
	gw := newTestGW(t, "tok")
	gw.reject = protocol.NewError(protocol.ErrNotPaired, "device pairing required", map[string]any{"code": protocol.DetailPairingRequired, "requestId": "req-2"})
	h, err := New(hostOptions(t, gw))
	if err != nil {
		t.Fatal(err)
	}
	err = h.Run(t.Context())
	if te := failure.AsError(err); te.Code != failure.CodeAuth || !strings.Contains(te.Message, "openclaw devices approve") {
		t.Errorf("pairing refusal: %v", err)
	}
}

func TestDeviceTokenKeptAndUsed(t *testing.T) {
	gw := newTestGW(t, "tok")
	gw.deviceToken = "dev-token-1"
	o := hostOptions(t, gw)
	_, stop := runHost(t, o)
	gw.waitFor("the first publication", func() bool { return countMethod(gw.requests, "node.event") == 1 })
	stop()
	nf, _, _ := LoadNodeFile(o.StateDir)
	if nf.DeviceToken == nil || nf.DeviceToken.Token != "dev-token-1" {
		t.Fatalf("device token not saved: %+v", nf.DeviceToken)
	}
	if info, _ := os.Stat(filepath.Join(o.StateDir, nodeFileName)); info.Mode().Perm() != 0o600 {
		t.Errorf("node.json mode %v", info.Mode())
	}
	o.Token = ""
	o.Host, o.Port = "", 0 // the saved gateway
	runHost(t, o)
	gw.waitFor("second connect", func() bool { return len(gw.conns) == 1 && len(gw.connects) == 2 })
	gw.mu.Lock()
	second := gjson.ParseBytes(gw.connects[1])
	gw.mu.Unlock()
	if second.Get("auth.deviceToken").String() != "dev-token-1" || second.Get("auth.token").Exists() {
		t.Errorf("second connect auth %s", second.Get("auth").Raw)
	}
}

func TestOneHostPerStateDir(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	runHost(t, o)
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	if !Running(o.StateDir) {
		t.Error("Running is false while a host runs")
	}
	h2, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := h2.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "another node host is running") {
		t.Errorf("second host: %v", err)
	}
}

func TestCommandsAllowlist(t *testing.T) {
	gw := newTestGW(t, "tok")
	o := hostOptions(t, gw)
	o.Commands = []string{"system.which"}
	h, _ := runHost(t, o)
	if _, cmds := h.Surface(); !slices.Equal(cmds, []string{"system.which"}) {
		t.Errorf("surface %v", cmds)
	}
	gw.waitFor("connected", func() bool { return len(gw.conns) == 1 })
	if r := gw.invoke("system.run", map[string]any{"command": []string{"true"}}, 10000); r.OK || !strings.Contains(r.Error.Message, "node command not allowed") {
		t.Errorf("undeclared system.run: %s", r.raw)
	}
	o2 := o
	o2.StateDir = t.TempDir()
	o2.Commands = []string{"camera.snap"}
	if _, err := New(o2); err == nil || !strings.Contains(err.Error(), `"camera.snap" is not a command this node host has`) {
		t.Errorf("unknown --commands entry: %v", err)
	}
}

func TestPlaintextRefusedForPublicHosts(t *testing.T) {
	o := Options{Host: "gateway.example.com", StateDir: t.TempDir(), Getenv: func(string) string { return "" }}
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "refusing plaintext ws://") {
		t.Errorf("public ws:// allowed: %v", err)
	}
	o.Getenv = func(k string) string {
		if k == "OPENCLAW_ALLOW_INSECURE_PRIVATE_WS" {
			return "1"
		}
		return ""
	}
	if _, err := New(o); err != nil {
		t.Errorf("with the override: %v", err)
	}
	for _, host := range []string{"127.0.0.1", "10.1.2.3", "box.local", "gw.tail1234.ts.net", "::1"} {
		if err := checkPlaintext(Options{Host: host}, func(string) string { return "" }); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	if err := checkPlaintext(Options{Host: "8.8.8.8", TLS: true}, func(string) string { return "" }); err != nil {
		t.Errorf("tls: %v", err)
	}
}

func TestGatewayURLAndSavedAddress(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "ws://127.0.0.1:18789"},
		{Options{Host: "gw", Port: 443, TLS: true, ContextPath: "openclaw-gw/"}, "wss://gw:443/openclaw-gw"},
		{Options{Host: "::1", Port: 1}, "ws://[::1]:1"},
	} {
		if got := c.o.GatewayURL(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.o, got, c.want)
		}
	}
	nf := &NodeFile{Gateway: &GatewayAddr{Host: "gw", Port: 9000, TLS: true, TLSFingerprint: "ab"}}
	o := Options{}
	fillGateway(&o, nf, config.Empty())
	if o.Host != "gw" || o.Port != 9000 || !o.TLS || o.TLSFingerprint != "ab" {
		t.Errorf("saved gateway not reused: %+v", o)
	}
	o = Options{NoTLS: true}
	fillGateway(&o, nf, config.Empty())
	if o.TLS {
		t.Error("--no-tls reused a saved TLS setting")
	}
	o = Options{Host: "other"}
	fillGateway(&o, nf, &config.Config{Doc: map[string]any{"gateway": map[string]any{"port": 19001}}})
	if o.Port != 9000 || o.TLS {
		t.Errorf("another host: %+v", o)
	}
}
