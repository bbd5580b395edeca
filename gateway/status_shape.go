package gateway

import (
	"sort"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// The original's `status` and `health` carry sessions, heartbeat and task
// summaries its CLI reads unguarded (`openclaw status` reads
// sessions.byAgent). They are filled here from what this gateway has: no
// session store yet (counts 0, no path), no heartbeat runner (every agent
// disabled) until status asks the families, the job runner's tasks.

// agentIDs lists the configured agents (agents.list, else agents.entries),
// or the implicit "main", as agents.list answers.
func agentIDs(cfg *config.Config) []string {
	var ids []string
	for _, a := range cfg.Agents().List {
		if a.ID != "" {
			ids = append(ids, a.ID)
		}
	}
	if len(ids) == 0 {
		var entries map[string]any
		_ = cfg.Decode("agents.entries", &entries)
		for id := range entries {
			ids = append(ids, id)
		}
		sort.Strings(ids)
	}
	if len(ids) == 0 {
		ids = []string{"main"}
	}
	return ids
}

// agentSessions is one agent's session summary: no store exists, so no
// path and no sessions.
func agentSessions() map[string]any {
	return map[string]any{"path": "", "count": 0, "recent": []any{}}
}

// heartbeatAgents is the summary without a heartbeat family (none
// enabled); status replaces it with the family's heartbeat.summary.
func heartbeatAgents(ids []string) []map[string]any {
	out := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		out = append(out, map[string]any{"agentId": id, "enabled": false, "every": "disabled", "everyMs": nil})
	}
	return out
}

// sessionsSummary is status.sessions in the original's shape.
func sessionsSummary(cfg *config.Config, ids []string) map[string]any {
	byAgent := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		row := agentSessions()
		row["agentId"] = id
		byAgent = append(byAgent, row)
	}
	var model any
	if m := providers.DefaultModel(cfg); m != "" {
		model = m
	}
	return map[string]any{
		"paths": []string{}, "count": 0, "recent": []any{}, "byAgent": byAgent,
		"defaults": map[string]any{"model": model, "contextTokens": nil},
	}
}

// taskStatus maps a job status onto the original's task statuses.
var taskStatus = map[string]string{
	tools.JobRunning: "running", tools.JobOK: "succeeded", tools.JobError: "failed",
	tools.JobCancelled: "cancelled", tools.JobInterrupted: "lost",
}

// tasksSummary counts the job runner's tasks as status.tasks does; every
// job here is started by a CLI/tool call, so byRuntime counts them as cli.
func tasksSummary(jobs []tools.JobInfo) map[string]any {
	byStatus := map[string]int{"queued": 0, "running": 0, "succeeded": 0, "failed": 0, "timed_out": 0, "cancelled": 0, "lost": 0}
	active, failures := 0, 0
	for _, j := range jobs {
		st := taskStatus[j.Status]
		if st == "" {
			st = "failed"
		}
		byStatus[st]++
		switch st {
		case "running":
			active++
		case "failed", "lost", "timed_out":
			failures++
		}
	}
	return map[string]any{
		"total": len(jobs), "active": active, "terminal": len(jobs) - active, "failures": failures,
		"byStatus":  byStatus,
		"byRuntime": map[string]int{"subagent": 0, "acp": 0, "cli": len(jobs), "cron": 0},
	}
}

// cliProjection is what the original CLI's `status` asks for with
// includeCliProjection: the agent rows and their names.
func cliProjection(cfg *config.Config, ids []string) map[string]any {
	names := map[string]string{}
	for _, a := range cfg.Agents().List {
		names[a.ID] = a.Name
	}
	rows := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		row := map[string]any{"id": id}
		if n := names[id]; n != "" {
			row["name"] = n
		}
		rows = append(rows, row)
	}
	return map[string]any{"agents": map[string]any{
		"defaultId": tools.DefaultAgentID(cfg), "ownership": "sole", "selectionRequired": false, "rows": rows,
	}}
}

// taskAudit is status.taskAudit: the one finding this gateway can make is
// a task lost to a gateway stop (interrupted); the CLI's text view reads
// taskAudit.errors unguarded.
func taskAudit(jobs []tools.JobInfo) map[string]any {
	lost := 0
	for _, j := range jobs {
		if j.Status == tools.JobInterrupted {
			lost++
		}
	}
	return map[string]any{
		"total": lost, "warnings": 0, "errors": lost,
		"byCode": map[string]int{"stale_queued": 0, "stale_running": 0, "lost": lost, "delivery_failed": 0,
			"missing_cleanup": 0, "inconsistent_timestamps": 0},
	}
}
