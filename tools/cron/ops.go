package cron

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/store"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// The operations behind the cron.* methods and the tool. Reading never
// moves a next-run time: only a change of schedule or enabled, a run, or
// start-up recomputes one.

func dbPath(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return store.Path(stateDir)
}

// notFound is the original's miss: INVALID_REQUEST on the wire with
// details {code:"CRON_JOB_NOT_FOUND", jobId}, and the message's prefix
// ("cron job not found: <id>.") the original CLI matches on; the rest
// names what lists the ids here (the original's "List automations" names
// a command this CLI does not have).
func notFound(prefix, id string) error {
	return tools.Errorf(tools.CodeNotFound, "%s: %s. See the current job ids with `openclaw cron list --all` (the cron tool: action list) and retry with one.", prefix, id).
		WithDetails(map[string]any{"code": "CRON_JOB_NOT_FOUND", "jobId": id})
}

// status is cron.status.
func (s *Service) status() statusResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next any
	if n, ok := s.nextWakeLocked(); ok && s.enabled {
		next = n
	}
	return statusResult{Enabled: s.enabled, StorePath: s.dbPath, Storage: "sqlite", SQLitePath: s.dbPath,
		Jobs: len(s.byID), NextWakeAtMs: next}
}

// statusResult is cron.status, in the original's field order.
type statusResult struct {
	Enabled      bool   `json:"enabled"`
	StorePath    string `json:"storePath"`
	Storage      string `json:"storage"`
	SQLitePath   string `json:"sqlitePath"`
	Jobs         int    `json:"jobs"`
	NextWakeAtMs any    `json:"nextWakeAtMs"`
}

// listFilter is cron.list's params.
type listFilter struct {
	IncludeDisabled bool   `json:"includeDisabled"`
	Limit           *int   `json:"limit"`
	Offset          int    `json:"offset"`
	Query           string `json:"query"`
	Enabled         string `json:"enabled"`
	ScheduleKind    string `json:"scheduleKind"`
	LastRunStatus   string `json:"lastRunStatus"`
	SortBy          string `json:"sortBy"`
	SortDir         string `json:"sortDir"`
	AgentID         string `json:"agentId"`
	SessionKey      string `json:"sessionKey"`
}

// listItem is a job as cron.list shows it: with the agent it runs for.
type listItem struct {
	*Job
	EffectiveAgentID string `json:"effectiveAgentId"`
}

// list is cron.list: the canonical page the original CLI requires (jobs,
// total, offset, limit, hasMore, nextOffset, snapshotRevision), sorted by
// next run (soonest first; none last), disabled jobs only when asked.
func (s *Service) list(f listFilter) map[string]any {
	s.mu.Lock()
	var jobs []*Job
	for _, j := range s.byID {
		if !s.keep(j, f) {
			continue
		}
		jobs = append(jobs, j.clone())
	}
	rev := s.rev
	s.mu.Unlock()
	sortJobs(jobs, f.SortBy, f.SortDir == "desc")
	total := len(jobs)
	limit := total
	if f.Limit != nil {
		limit = *f.Limit
	}
	limit = max(limit, 1)
	offset := min(max(f.Offset, 0), total)
	end := min(offset+limit, total)
	page := make([]listItem, 0, end-offset)
	for _, j := range jobs[offset:end] {
		agent := j.AgentID
		if agent == "" {
			agent = s.settings().defaultAgent
		}
		page = append(page, listItem{Job: j, EffectiveAgentID: agent})
	}
	var nextOffset any
	if end < total {
		nextOffset = end
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%+v", s.processID, rev, f))
	return map[string]any{"jobs": page, "total": total, "offset": offset, "limit": limit, "hasMore": end < total,
		"nextOffset": nextOffset, "snapshotRevision": "sha256:" + base64.RawURLEncoding.EncodeToString(sum[:])}
}

func (s *Service) keep(j *Job, f listFilter) bool {
	switch f.Enabled {
	case "enabled":
		if !j.Enabled {
			return false
		}
	case "disabled":
		if j.Enabled {
			return false
		}
	case "all":
	default:
		if !j.Enabled && !f.IncludeDisabled {
			return false
		}
	}
	if f.ScheduleKind != "" && j.Schedule.Kind != f.ScheduleKind {
		return false
	}
	if f.LastRunStatus != "" && j.State.LastRunStatus != f.LastRunStatus {
		return false
	}
	if f.AgentID != "" {
		agent := j.AgentID
		if agent == "" {
			agent = s.settings().defaultAgent
		}
		if agent != normalizeAgentID(f.AgentID) {
			return false
		}
	}
	if f.SessionKey != "" && j.SessionKey != f.SessionKey {
		return false
	}
	if q := strings.ToLower(strings.TrimSpace(f.Query)); q != "" {
		hay := strings.ToLower(j.ID + "\n" + j.Name + "\n" + j.DisplayName + "\n" + j.Description)
		if !strings.Contains(hay, q) {
			return false
		}
	}
	return true
}

func sortJobs(jobs []*Job, by string, desc bool) {
	less := func(a, b *Job) bool {
		switch by {
		case "name":
			if a.Name != b.Name {
				return a.Name < b.Name
			}
		case "updatedAtMs":
			if a.UpdatedAtMs != b.UpdatedAtMs {
				return a.UpdatedAtMs < b.UpdatedAtMs
			}
		default:
			an, bn := a.State.NextRunAtMs, b.State.NextRunAtMs
			switch {
			case an != nil && bn != nil && *an != *bn:
				return *an < *bn
			case an != nil && bn == nil:
				return true
			case an == nil && bn != nil:
				return false
			}
		}
		return a.ID < b.ID
	}
	sort.Slice(jobs, func(i, k int) bool {
		if desc {
			return less(jobs[k], jobs[i])
		}
		return less(jobs[i], jobs[k])
	})
}

// get is cron.get: the job with this id, else the one job whose id
// starts with it (as `cron list` shows ids, a prefix is what a person
// copies); a prefix of several is refused with their ids.
func (s *Service) get(id string) (*Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.byID[id]; j != nil {
		return j.clone(), nil
	}
	var matches []string
	for full := range s.byID {
		if strings.HasPrefix(full, id) {
			matches = append(matches, full)
		}
	}
	switch len(matches) {
	case 0:
		return nil, notFound("cron job not found", id)
	case 1:
		return s.byID[matches[0]].clone(), nil
	}
	sort.Strings(matches)
	shown := matches
	if len(shown) > 5 {
		shown = append(shown[:5:5], "…")
	}
	return nil, tools.Errorf(tools.CodeInvalidParams, "cron.get: id prefix %q matches %d jobs (%s); give more of the id",
		id, len(matches), strings.Join(shown, ", ")).WithDetails(map[string]any{"jobIds": matches})
}

// add is cron.add: the job normalised, validated, given its first next
// run, and stored with scopes, what its creator holds (its turns hold no
// more).
func (s *Service) add(ctx context.Context, method string, params obj, scopes []string) (*Job, error) {
	now := s.now()
	j, err := newJobFrom(method, params, now, uuid.NewString())
	if err != nil {
		return nil, err
	}
	j.scopes = slices.Clone(scopes)
	if j.scopes == nil {
		j.scopes = []string{}
	}
	if n, ok := jobNext(j, now); ok {
		j.State.NextRunAtMs = i64(n)
	}
	s.mu.Lock()
	if err := s.repo.saveJobs(ctx, j); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.byID[j.ID] = j
	s.rev++
	out := j.clone()
	s.mu.Unlock()
	s.publish(map[string]any{"jobId": j.ID, "action": "added", "job": out})
	s.poke()
	return out, nil
}

// preview is the original's deliveryPreview {label, detail} of a job.
type preview struct {
	Label  string `json:"label"`
	Detail string `json:"detail"`
}

// addResult is cron.add's answer: the job, and a deliveryPreview when its
// delivery cannot work as configured (undeliverable).
type addResult struct {
	*Job
	DeliveryPreview *preview `json:"deliveryPreview,omitempty"`
}

// noTarget is the deliveryPreview label of an undeliverable announce.
const noTarget = "no target"

// undeliverable says why an agent-turn job that is to announce its reply
// (its run failing when the post fails) can never post it: no channel is
// configured, so every run would fail for want of a target. The job is
// still added, as the original's gateway adds it (its CLI announces by
// default, and refusing would break that client's plain `cron add
// --message`); the answer warns with the fix. "" when delivery can work,
// or is not asked for, a webhook, or best effort.
func undeliverable(j *Job, cfg *config.Config) string {
	d := j.Delivery
	if j.SessionTarget != TargetIsolated || d == nil || d.Mode != DeliveryAnnounce || (d.BestEffort != nil && *d.BestEffort) {
		return ""
	}
	if cfg == nil {
		cfg = config.Empty()
	}
	if len(channels.Configured(cfg)) > 0 {
		return ""
	}
	return "every run will fail: the job announces its reply but no channel is configured; " +
		"run `openclaw cron edit " + j.ID + " --no-deliver` (or --best-effort-deliver), or configure a channel (channels.<id>)"
}

// update is cron.update {id, patch}. The job keeps the scopes recorded
// when it was added: an update neither widens nor re-records them (a job
// stored before they were recorded is added again to get its creator's).
func (s *Service) update(ctx context.Context, method, id string, patch obj) (*Job, error) {
	now := s.now()
	s.mu.Lock()
	cur := s.byID[id]
	if cur == nil {
		s.mu.Unlock()
		return nil, notFound("cron job not found", id)
	}
	next, recompute, err := applyPatch(method, cur, patch, now)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	_, busy := s.running[id]
	switch {
	case !next.Enabled:
		next.State.NextRunAtMs = nil
		if !busy {
			next.State.RunningAtMs = nil
		}
	case recompute || next.State.NextRunAtMs == nil:
		next.State.NextRunAtMs = nil
		if n, ok := jobNext(next, now); ok {
			next.State.NextRunAtMs = i64(n)
		}
	}
	if err := s.repo.saveJobs(ctx, next); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.byID[id] = next
	s.rev++
	out := next.clone()
	s.mu.Unlock()
	s.publish(map[string]any{"jobId": id, "action": "updated", "job": out})
	s.poke()
	return out, nil
}

// remove is cron.remove.
func (s *Service) remove(ctx context.Context, id string) error {
	s.mu.Lock()
	if s.byID[id] == nil {
		s.mu.Unlock()
		return notFound("Automation not found", id)
	}
	if err := s.repo.removeJob(ctx, id); err != nil {
		s.mu.Unlock()
		return err
	}
	delete(s.byID, id)
	s.rev++
	s.mu.Unlock()
	s.publish(map[string]any{"jobId": id, "action": "removed"})
	s.poke()
	return nil
}

// runNow is cron.run: it queues the run and answers at once with its id
// (poll cron.runs {id, runId}); mode "due" runs only a job that is due.
func (s *Service) runNow(id, mode string) (map[string]any, error) {
	now := s.now()
	s.mu.Lock()
	j := s.byID[id]
	if j == nil {
		s.mu.Unlock()
		return nil, notFound("cron job not found", id)
	}
	if _, busy := s.running[id]; busy {
		s.mu.Unlock()
		return map[string]any{"ok": true, "ran": false, "reason": "already-running", "processInstanceId": s.processID}, nil
	}
	if mode == "due" && (!j.Enabled || j.State.NextRunAtMs == nil || *j.State.NextRunAtMs > now) {
		s.mu.Unlock()
		return map[string]any{"ok": true, "ran": false, "reason": "not-due", "processInstanceId": s.processID}, nil
	}
	s.manualSeq++
	runID := fmt.Sprintf("manual:%s:%d:%d", id, now, s.manualSeq)
	if err := s.markRunningLocked(j, runID, now); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	job := j.clone()
	s.mu.Unlock()
	s.launch(job, runID, true)
	return map[string]any{"ok": true, "enqueued": true, "runId": runID, "processInstanceId": s.processID}, nil
}

// runsPage is cron.runs: the job's history, newest first unless
// sortDir is asc.
func (s *Service) runsPage(ctx context.Context, f runFilter) (map[string]any, error) {
	entries, total, err := s.repo.listRuns(ctx, f)
	if err != nil {
		return nil, err
	}
	end := f.offset + len(entries)
	var nextOffset any
	if end < total {
		nextOffset = end
	}
	return map[string]any{"entries": entries, "total": total, "offset": f.offset, "limit": f.limit,
		"hasMore": end < total, "nextOffset": nextOffset}, nil
}

// wakeNow is wake: the text queued as a system event for the main session
// (or the session named), which its next turn sees; "now" also asks for
// an immediate heartbeat (SetWaker), "next-heartbeat" leaves it queued.
func (s *Service) wakeNow(ctx context.Context, text, mode, sessionKey, agentID string) error {
	agent := normalizeAgentID(agentID)
	if agent == "" {
		agent = tools.AgentFromSessionKey(sessionKey)
	}
	if agent == "" {
		agent = s.settings().defaultAgent
	}
	if sessionKey == "" {
		sessionKey = mainSessionKey(agent)
	}
	// The stored form of the key, as the turn that reads it names it.
	sessionKey = sessions.Canonical(sessionKey, agent)
	err := s.repo.enqueue(ctx, SystemEvent{SessionKey: sessionKey, AgentID: agent, Text: text, ContextKey: "wake",
		WakeMode: mode, CreatedAtMs: s.now()})
	if err == nil && mode == WakeNow {
		s.requestHeartbeat(agent, sessionKey, "wake")
	}
	return err
}

// PendingSystemEvents lists the system events queued for a session ("" for
// all), oldest first: what its next turn is to see.
func (s *Service) PendingSystemEvents(ctx context.Context, sessionKey string) ([]SystemEvent, error) {
	return s.repo.pendingEvents(ctx, sessionKey)
}

// ConsumeSystemEvents marks a session's events up to seq as seen.
func (s *Service) ConsumeSystemEvents(ctx context.Context, sessionKey string, upTo int64) (int, error) {
	return s.repo.consumeEvents(ctx, sessionKey, upTo, s.now())
}

// encodeJob is a job as the wire shows it.
func encodeJob(j *Job) (json.RawMessage, error) { return json.Marshal(j) }
