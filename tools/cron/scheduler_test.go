package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

const minute = 60_000

func addEvery(h *harness, name string, everyMs int64, payload string) string {
	h.t.Helper()
	r := h.must("cron.add", fmt.Sprintf(`{"name":%q,"schedule":{"kind":"every","everyMs":%d},%s}`, name, everyMs, payload))
	return r.Get("id").String()
}

const systemEvent = `"sessionTarget":"main","wakeMode":"now","payload":{"kind":"systemEvent","text":"tick"}`
const agentTurn = `"sessionTarget":"isolated","wakeMode":"now","payload":{"kind":"agentTurn","message":"do it"}`

// An `every` job's first run is one interval after it was added (anchored
// at creation); each run is recorded, with its entry, and the next run is
// the next slot after the last run.
func TestEveryJobRunsAndRecords(t *testing.T) {
	h := newHarness(t, "")
	t0 := h.clk.now()
	id := addEvery(h, "e", minute, systemEvent)
	if got := h.job(id).Get("state.nextRunAtMs").Int(); got != t0+minute {
		t.Fatalf("first next run %d, want %d", got, t0+minute)
	}
	h.settle() // not due yet
	if h.job(id).Get("state.lastRunAtMs").Exists() {
		t.Fatal("ran before it was due")
	}
	for i := 1; i <= 3; i++ {
		h.clk.set(t0 + int64(i)*minute)
		h.settle()
		j := h.job(id)
		if j.Get("state.lastRunStatus").String() != StatusOK || j.Get("state.nextRunAtMs").Int() != t0+int64(i+1)*minute {
			t.Fatalf("after run %d: %s", i, j.Get("state").Raw)
		}
	}
	runs := h.must("cron.runs", `{"id":"`+id+`"}`)
	if runs.Get("total").Int() != 3 || runs.Get("entries.0.status").String() != "ok" || runs.Get("entries.0.summary").String() != "tick" ||
		runs.Get("entries.0.runAtMs").Int() != t0+3*minute || runs.Get("entries.2.runAtMs").Int() != t0+minute {
		t.Fatalf("runs (newest first): %s", runs.Raw)
	}
	// Each run queued its text for the main session.
	evs, err := h.s.PendingSystemEvents(context.Background(), "agent:main:main")
	if err != nil || len(evs) != 3 || evs[0].Text != "tick" || evs[0].ContextKey != "cron:"+id {
		t.Fatalf("queued events: %+v %v", evs, err)
	}
	if a := h.events.actions(); strings.Join(a, ",") != "added,started,finished,started,finished,started,finished" {
		t.Fatalf("cron events: %v", a)
	}
}

// A failing recurring job waits 30 s, 1 m, 5 m, 15 m, then 60 m after
// each consecutive error (when that is later than its natural next run);
// a success resets the count and the natural schedule returns.
func TestErrorBackoff(t *testing.T) {
	h := newHarness(t, "")
	id := addEvery(h, "fails", 10_000, agentTurn) // every 10 s: the backoff is always later
	want := []int64{30_000, 60_000, 300_000, 900_000, 3_600_000, 3_600_000}
	h.clk.set(h.job(id).Get("state.nextRunAtMs").Int())
	for i, w := range want {
		h.settle()
		j := h.job(id)
		if j.Get("state.lastRunStatus").String() != StatusError || j.Get("state.lastError").String() != noRuntimeError {
			t.Fatalf("run %d: %s", i+1, j.Get("state").Raw)
		}
		ended := j.Get("state.lastRunAtMs").Int() + j.Get("state.lastDurationMs").Int()
		if got := j.Get("state.nextRunAtMs").Int() - ended; got != w || j.Get("state.consecutiveErrors").Int() != int64(i+1) {
			t.Fatalf("after %d errors the next run is %d ms after the end, want %d: %s", i+1, got, w, j.Get("state").Raw)
		}
		h.clk.set(j.Get("state.nextRunAtMs").Int())
	}
	// Fixed: a main job now; the next success clears the count.
	h.must("cron.update", `{"id":"`+id+`","patch":{`+systemEvent+`}}`)
	h.clk.set(h.job(id).Get("state.nextRunAtMs").Int())
	h.settle()
	j := h.job(id)
	if j.Get("state.consecutiveErrors").Int() != 0 || j.Get("state.lastRunStatus").String() != StatusOK {
		t.Fatalf("after a success: %s", j.Get("state").Raw)
	}
	if got := j.Get("state.nextRunAtMs").Int() - j.Get("state.lastRunAtMs").Int(); got != 10_000 {
		t.Fatalf("natural schedule after success: next %d ms after the run", got)
	}
}

// An agentTurn run, with no agent runtime, is recorded as the failure it
// is, never as a success; its announce delivery is reported not delivered.
func TestAgentTurnFailsClearly(t *testing.T) {
	h := newHarness(t, "")
	id := addEvery(h, "agent", minute, agentTurn)
	if h.job(id).Get("delivery.mode").String() != DeliveryAnnounce {
		t.Fatalf("isolated job without delivery gets announce: %s", h.job(id).Raw)
	}
	h.clk.add(time.Minute)
	h.settle()
	e := h.must("cron.runs", `{"id":"`+id+`"}`).Get("entries.0")
	if e.Get("status").String() != StatusError || e.Get("error").String() != "no agent runtime configured" ||
		e.Get("deliveryStatus").String() != "not-delivered" || e.Get("sessionKey").String() != "agent:main:cron:"+id {
		t.Fatalf("entry: %s", e.Raw)
	}
}

// One-shots: after a success with deleteAfterRun the job is removed;
// kept (deleteAfterRun false) it is disabled; after an error it is
// disabled too, never retried.
func TestOneShotEndings(t *testing.T) {
	h := newHarness(t, "")
	at := cronexpr.ISOString(h.clk.now() + minute)
	add := func(extra string) string {
		return h.must("cron.add", `{"name":"once","schedule":{"kind":"at","at":"`+at+`"},`+extra+`}`).Get("id").String()
	}
	del := add(systemEvent)
	keep := add(systemEvent + `,"deleteAfterRun":false`)
	fail := add(agentTurn)
	if !h.job(del).Get("deleteAfterRun").Bool() {
		t.Fatal("at jobs default to deleteAfterRun")
	}
	h.clk.add(time.Minute)
	h.settle()
	if _, err := h.call("cron.get", `{"id":"`+del+`"}`); tools.AsError(err).Code != tools.CodeNotFound {
		t.Fatalf("deleted one-shot still there: %v", err)
	}
	for _, id := range []string{keep, fail} {
		j := h.job(id)
		if j.Get("enabled").Bool() || j.Get("state.nextRunAtMs").Exists() {
			t.Fatalf("one-shot after its run: %s", j.Raw)
		}
	}
	h.clk.add(time.Hour)
	h.settle()
	if n := h.must("cron.runs", `{"id":"`+fail+`"}`).Get("total").Int(); n != 1 {
		t.Fatalf("failed one-shot retried: %d runs", n)
	}
	// Its run is still in the history after the job went.
	if n := h.must("cron.runs", `{"id":"`+del+`"}`).Get("total").Int(); n != 1 {
		t.Fatalf("history of the deleted one-shot: %d runs", n)
	}
}

// Listing or reading a past-due job never moves its next run; a cron job
// never fires again within 2 s of its last end.
func TestReadsDoNotMoveNextRun(t *testing.T) {
	h := newHarness(t, "")
	id := h.must("cron.add", `{"name":"c","schedule":{"kind":"cron","expr":"* * * * * *","tz":"UTC"},`+systemEvent+`}`).Get("id").String()
	next := h.job(id).Get("state.nextRunAtMs").Int()
	h.clk.set(next + 10*minute) // long past due
	for range 3 {
		h.must("cron.list", `{}`)
		h.must("cron.status", `{}`)
		if got := h.job(id).Get("state.nextRunAtMs").Int(); got != next {
			t.Fatalf("a read moved the next run: %d -> %d", next, got)
		}
	}
	h.settle()
	j := h.job(id)
	ended := j.Get("state.lastRunAtMs").Int() + j.Get("state.lastDurationMs").Int()
	if j.Get("state.nextRunAtMs").Int() < ended+minRefireGapMs {
		t.Fatalf("a per-second cron job refires within 2 s: %s", j.Get("state").Raw)
	}
	if n := h.must("cron.runs", `{"id":"`+id+`"}`).Get("total").Int(); n != 1 {
		t.Fatalf("ten minutes of missed slots ran %d times, want once", n)
	}
}

// slowHook is a webhook receiver that holds each request until released,
// counting how many it holds at once.
type slowHook struct {
	srv            *httptest.Server
	mu             sync.Mutex
	inFlight, most int
	release        chan struct{}
	bodies         []string
	auth           []string
	status         atomic.Int32
	attempts       atomic.Int32
	hold           bool
}

func newSlowHook(t *testing.T, hold bool) *slowHook {
	h := &slowHook{release: make(chan struct{}), hold: hold}
	h.status.Store(200)
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.attempts.Add(1)
		b := make([]byte, 1<<16)
		n, _ := r.Body.Read(b)
		h.mu.Lock()
		h.inFlight++
		h.most = max(h.most, h.inFlight)
		h.bodies = append(h.bodies, string(b[:n]))
		h.auth = append(h.auth, r.Header.Get("Authorization"))
		h.mu.Unlock()
		if h.hold {
			<-h.release
		}
		h.mu.Lock()
		h.inFlight--
		h.mu.Unlock()
		w.WriteHeader(int(h.status.Load()))
	}))
	t.Cleanup(func() {
		if h.hold {
			close(h.release)
		}
		h.srv.Close()
	})
	return h
}

const allowLoopback = `"tools":{"web":{"fetch":{"ssrfPolicy":{"allowedHostnames":["127.0.0.1"]}}}}`

// maxConcurrentRuns bounds the runs in progress: 1 by default, as
// configured otherwise (each run here waits on its webhook).
func TestMaxConcurrentRuns(t *testing.T) {
	for _, limit := range []int{1, 2} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			cfg := `{` + allowLoopback + `}`
			if limit > 1 {
				cfg = fmt.Sprintf(`{"cron":{"maxConcurrentRuns":%d},%s}`, limit, allowLoopback)
			}
			h := newHarness(t, cfg)
			hook := newSlowHook(t, true)
			for i := range 4 {
				addEvery(h, fmt.Sprint("j", i), minute, systemEvent+`,"delivery":{"mode":"webhook","to":"`+hook.srv.URL+`/hook"}`)
			}
			h.clk.add(time.Minute)
			h.s.tick()
			// All four are marked running; the pool lets `limit` of them post.
			deadline := time.Now().Add(20 * time.Second)
			for {
				hook.mu.Lock()
				in := hook.inFlight
				hook.mu.Unlock()
				if in == limit || time.Now().After(deadline) {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			for range 4 {
				hook.release <- struct{}{}
			}
			h.idle()
			hook.mu.Lock()
			defer hook.mu.Unlock()
			if hook.most != limit || len(hook.bodies) != 4 {
				t.Fatalf("limit %d: at most %d runs at once, %d posted", limit, hook.most, len(hook.bodies))
			}
		})
	}
}

// Webhook delivery posts the finished run (with the bearer token when
// configured), retries a 5xx, and the SSRF guard refuses a loopback
// target unless it is allowed.
func TestWebhookDelivery(t *testing.T) {
	webhookRetryDelays = []time.Duration{time.Millisecond, time.Millisecond}
	t.Cleanup(func() { webhookRetryDelays = []time.Duration{time.Second, 3 * time.Second} })
	h := newHarness(t, `{"cron":{"webhookToken":"s3cret"},`+allowLoopback+`}`)
	hook := newSlowHook(t, false)
	id := addEvery(h, "hooked", minute, systemEvent+`,"delivery":{"mode":"webhook","to":"`+hook.srv.URL+`/x"}`)
	h.clk.add(time.Minute)
	h.settle()
	j := h.job(id)
	if j.Get("state.lastDeliveryStatus").String() != "delivered" || !j.Get("state.lastDelivered").Bool() {
		t.Fatalf("delivery: %s", j.Get("state").Raw)
	}
	body := gjson.Parse(hook.bodies[0])
	if body.Get("jobId").String() != id || body.Get("action").String() != "finished" || body.Get("summary").String() != "tick" ||
		hook.auth[0] != "Bearer s3cret" {
		t.Fatalf("posted %s with %q", hook.bodies[0], hook.auth[0])
	}
	// A 503 is retried twice, then the run records the failed delivery.
	hook.status.Store(503)
	before := hook.attempts.Load()
	h.clk.add(time.Minute)
	h.settle()
	if n := hook.attempts.Load() - before; n != 3 {
		t.Fatalf("attempts on 503: %d, want 3", n)
	}
	if e := h.job(id).Get("state"); e.Get("lastDeliveryStatus").String() != "not-delivered" || !strings.Contains(e.Get("lastDeliveryError").String(), "503") {
		t.Fatalf("failed delivery: %s", e.Raw)
	}
	// Without the allowance the guard refuses 127.0.0.1, and does not retry.
	g := newHarness(t, "")
	id = addEvery(g, "blocked", minute, systemEvent+`,"delivery":{"mode":"webhook","to":"`+hook.srv.URL+`/x"}`)
	before = hook.attempts.Load()
	g.clk.add(time.Minute)
	g.settle()
	st := g.job(id).Get("state")
	if hook.attempts.Load() != before || st.Get("lastDeliveryStatus").String() != "not-delivered" ||
		!strings.Contains(st.Get("lastDeliveryError").String(), "ssrfPolicy") {
		t.Fatalf("SSRF guard: %s", st.Raw)
	}
}

// cron.run: mode due on a job that is not due does nothing; a run while
// one is in progress is refused; force runs it at once, and leaves the
// next natural run where it was.
func TestManualRun(t *testing.T) {
	h := newHarness(t, `{`+allowLoopback+`}`)
	hook := newSlowHook(t, true)
	id := addEvery(h, "m", time.Hour.Milliseconds(), systemEvent+`,"delivery":{"mode":"webhook","to":"`+hook.srv.URL+`"}`)
	next := h.job(id).Get("state.nextRunAtMs").Int()
	r := h.must("cron.run", `{"id":"`+id+`","mode":"due"}`)
	if r.Get("ran").Bool() || r.Get("reason").String() != "not-due" {
		t.Fatalf("due: %s", r.Raw)
	}
	r = h.must("cron.run", `{"jobId":"`+id+`"}`)
	runID := r.Get("runId").String()
	if !r.Get("enqueued").Bool() || !strings.HasPrefix(runID, "manual:"+id+":") {
		t.Fatalf("force: %s", r.Raw)
	}
	if r := h.must("cron.run", `{"id":"`+id+`"}`); r.Get("reason").String() != "already-running" {
		t.Fatalf("while running: %s", r.Raw)
	}
	hook.release <- struct{}{}
	h.idle()
	e := h.must("cron.runs", `{"id":"`+id+`","runId":"`+runID+`","limit":1}`)
	if e.Get("entries.#").Int() != 1 || e.Get("entries.0.status").String() != "ok" || e.Get("entries.0.runId").String() != runID {
		t.Fatalf("runs by runId: %s", e.Raw)
	}
	if got := h.job(id).Get("state.nextRunAtMs").Int(); got != next {
		t.Fatalf("a manual run moved the natural slot: %d -> %d", next, got)
	}
}

// A gateway that stopped mid-run (killed) left a running row: the next
// start records the run as interrupted and the job's state says so, and
// does not run it again at once; a recurring job missed while down runs
// once; a one-shot that already ran is not fired again.
func TestStartupInterruptedAndCatchUp(t *testing.T) {
	dir := t.TempDir()
	h := openHarness(t, dir, "", 1_800_000_000_000)
	busy := addEvery(h, "busy", minute, systemEvent)
	missed := addEvery(h, "missed", minute, systemEvent)
	once := h.must("cron.add", `{"name":"once","schedule":{"kind":"at","at":"`+cronexpr.ISOString(h.clk.now()+minute)+`"},"deleteAfterRun":false,`+systemEvent+`}`).Get("id").String()
	h.clk.add(time.Minute)
	h.settle() // busy, missed and once all ran once
	// busy starts a run that never finishes: the gateway "dies".
	h.clk.add(time.Minute)
	h.s.mu.Lock()
	if err := h.s.markRunningLocked(h.s.byID[busy], "cron:"+busy+":x:1", h.clk.now()); err != nil {
		t.Fatal(err)
	}
	h.s.mu.Unlock()
	h.close()

	start := h.clk.now() + 10*minute // down for ten minutes
	h2 := openHarness(t, dir, "", start)
	j := h2.job(busy)
	if j.Get("state.runningAtMs").Exists() || j.Get("state.lastError").String() != interruptedError ||
		j.Get("state.nextRunAtMs").Int() < start+30_000 {
		t.Fatalf("interrupted job after restart: %s", j.Get("state").Raw)
	}
	e := h2.must("cron.runs", `{"id":"`+busy+`"}`).Get("entries.0")
	if e.Get("runId").String() != "cron:"+busy+":x:1" || !e.Get("interrupted").Bool() || e.Get("status").String() != StatusError {
		t.Fatalf("interrupted run entry: %s", e.Raw)
	}
	h2.settle() // the catch-up tick
	if n := h2.must("cron.runs", `{"id":"`+missed+`"}`).Get("total").Int(); n != 2 {
		t.Fatalf("missed job: %d runs, want 2 (one before, one catch-up)", n)
	}
	if n := h2.must("cron.runs", `{"id":"`+busy+`"}`).Get("total").Int(); n != 2 {
		t.Fatalf("interrupted job re-run at start: %d runs", n)
	}
	if n := h2.must("cron.runs", `{"id":"`+once+`"}`).Get("total").Int(); n != 1 {
		t.Fatalf("a one-shot that ran fired again: %d runs", n)
	}
}

// The by-id methods take id or jobId; cron.runs refuses path separators;
// a miss is CRON_JOB_NOT_FOUND.
func TestIDsAndMisses(t *testing.T) {
	h := newHarness(t, "")
	if _, err := h.call("cron.runs", `{"id":"../x"}`); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Fatalf("runs with a path: %v", err)
	}
	_, err := h.call("cron.get", `{"jobId":"nope"}`)
	te := tools.AsError(err)
	d, _ := json.Marshal(te.Details)
	if te.Code != tools.CodeNotFound || !strings.HasPrefix(te.Message, "cron job not found: nope.") || !strings.Contains(string(d), "CRON_JOB_NOT_FOUND") {
		t.Fatalf("miss: %+v", te)
	}
	if _, err := h.call("cron.remove", `{"id":"nope"}`); !strings.HasPrefix(tools.AsError(err).Message, "Automation not found: nope.") {
		t.Fatalf("remove miss: %v", err)
	}
	if _, err := h.call("cron.get", `{}`); tools.AsError(err).Code != tools.CodeInvalidParams {
		t.Fatalf("no id: %v", err)
	}
}

// wake queues its text for the main session; blank text is {ok:false}.
func TestWake(t *testing.T) {
	h := newHarness(t, "")
	if r := h.must("wake", `{"mode":"now","text":"  "}`); r.Raw != `{"ok":false}` {
		t.Fatalf("blank: %s", r.Raw)
	}
	if r := h.must("wake", `{"mode":"next-heartbeat","text":"hello"}`); r.Raw != `{"ok":true}` {
		t.Fatalf("wake: %s", r.Raw)
	}
	h.must("wake", `{"text":"ops","sessionKey":"agent:ops:main"}`)
	evs, _ := h.s.PendingSystemEvents(context.Background(), "")
	if len(evs) != 2 || evs[0].SessionKey != "agent:main:main" || evs[0].WakeMode != WakeNextHeartbeat ||
		evs[1].AgentID != "ops" || evs[1].WakeMode != WakeNow {
		t.Fatalf("events: %+v", evs)
	}
	if n, err := h.s.ConsumeSystemEvents(context.Background(), "agent:main:main", evs[0].Seq); n != 1 || err != nil {
		t.Fatalf("consume: %d %v", n, err)
	}
	if evs, _ := h.s.PendingSystemEvents(context.Background(), "agent:main:main"); len(evs) != 0 {
		t.Fatalf("consumed events still pending: %+v", evs)
	}
}

// Runs are kept per job up to cron.runLog.keepLines.
func TestRunHistoryPruned(t *testing.T) {
	h := newHarness(t, `{"cron":{"runLog":{"keepLines":3}}}`)
	id := addEvery(h, "p", minute, systemEvent)
	for range 5 {
		h.clk.add(time.Minute)
		h.settle()
	}
	r := h.must("cron.runs", `{"id":"`+id+`"}`)
	if r.Get("total").Int() != 3 {
		t.Fatalf("kept %d runs, want 3", r.Get("total").Int())
	}
	// and by age: a week later the next run prunes the old ones.
	h.clk.add(8 * 24 * time.Hour)
	h.settle()
	if n := h.must("cron.runs", `{"id":"`+id+`"}`).Get("total").Int(); n != 1 {
		t.Fatalf("after a week: %d runs", n)
	}
}

// cron get takes a unique id prefix (what a person copies from the list);
// a prefix of several jobs is refused naming them; a miss names the
// command that lists ids here (`openclaw cron list`), not the original's
// "List automations", which this CLI has no command for.
func TestGetByPrefix(t *testing.T) {
	h := newHarness(t, "")
	for _, id := range []string{"abc111", "abc222", "def333"} {
		j, err := newJobFrom("cron.add", obj{"name": id, "every": "1h", "text": "t"}, h.clk.now(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.s.repo.saveJobs(context.Background(), j); err != nil {
			t.Fatal(err)
		}
		h.s.byID[id] = j
	}
	for prefix, want := range map[string]string{"d": "def333", "abc2": "abc222", "abc111": "abc111"} {
		if got := h.must("cron.get", `{"id":"`+prefix+`"}`).Get("id").String(); got != want {
			t.Errorf("get %s: %s, want %s", prefix, got, want)
		}
	}
	_, err := h.call("cron.get", `{"id":"abc"}`)
	if te := tools.AsError(err); te.Code != tools.CodeInvalidParams || te.Message != `cron.get: id prefix "abc" matches 2 jobs (abc111, abc222); give more of the id` {
		t.Fatalf("ambiguous prefix: %+v", te)
	}
	_, err = h.call("cron.get", `{"id":"x"}`)
	msg := tools.AsError(err).Message
	if !strings.HasPrefix(msg, "cron job not found: x.") || !strings.Contains(msg, "`openclaw cron list --all`") || strings.Contains(msg, "List automations") {
		t.Fatalf("miss: %s", msg)
	}
}

// An announcing agent-turn job added where no channel is configured is
// added with a deliveryPreview that warns every run will fail, and the
// human view shows the warning; with a channel configured there is none.
func TestAddWarnsOfAnUndeliverableAnnounce(t *testing.T) {
	job := `{"name":"brief","every":"1h","message":"summarise"}`
	j := newHarness(t, `{}`).must("cron.add", job)
	if j.Get("deliveryPreview.label").String() != "no target" || j.Get("delivery.mode").String() != "announce" {
		t.Fatalf("no channel: %s", j.Raw)
	}
	var b bytes.Buffer
	if err := renderJob(&b, j); err != nil || !strings.Contains(b.String(), "warning: every run will fail: the job announces its reply but no channel is configured") {
		t.Fatalf("render: %q %v", b.String(), err)
	}
	if j := newHarness(t, `{"channels":{"telegram":{"botToken":"x"}}}`).must("cron.add", job); j.Get("deliveryPreview").Exists() {
		t.Fatalf("with a channel: %s", j.Raw)
	}
}

// A job records its creator's scopes beside it in the store: they survive
// a restart, an update (even by a caller holding more) leaves them as
// they were, and a row without them (stored before they were recorded)
// loads as unknown, which its turns resolve to the least.
func TestJobScopesAreStoredAndKept(t *testing.T) {
	dir := t.TempDir()
	h := openHarness(t, dir, "", 1_800_000_000_000)
	creator := *h.env
	creator.Subject = tools.Subject{Kind: tools.CallerOperator, Role: "operator", Scopes: []string{"operator.admin", "operator.read"}}
	out, err := tools.Invoke(context.Background(), &creator, tools.Call{Method: "cron.add", Args: json.RawMessage(`{"name":"j","every":"1h","text":"t"}`)})
	if err != nil {
		t.Fatal(err)
	}
	id := gjson.GetBytes(out, "id").String()
	if gjson.GetBytes(out, "scopes").Exists() {
		t.Fatalf("the scopes are in the job's wire shape: %s", out)
	}
	h.must("cron.update", `{"id":"`+id+`","patch":{"name":"k"}}`) // by the local user, who holds every scope
	h.close()
	h2 := openHarness(t, dir, "", 1_800_000_000_000)
	if got := h2.s.byID[id].scopes; !slices.Equal(got, []string{"operator.admin", "operator.read"}) {
		t.Fatalf("scopes after an update and a restart: %v", got)
	}
	if _, err := h2.store.DB().Exec(`UPDATE cron_jobs SET scopes = NULL WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	h2.close()
	h3 := openHarness(t, dir, "", 1_800_000_000_000)
	if got := h3.s.byID[id].scopes; got != nil {
		t.Fatalf("a row without scopes loads as %v", got)
	}
}
