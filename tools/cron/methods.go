// Package cron is the gateway's scheduler (spec
// tools-automation-sessions-policy.md §1): durable jobs and their runs in
// the state database, next-run computation equal to the original's
// (cronexpr), the cron.* and wake gateway methods with the original's
// scopes and shapes, and the `cron` agent tool. The `openclaw cron …`
// commands are built from these methods (commands/cron_cmd.go).
package cron

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// idProps are the by-id params: id and jobId are interchangeable.
const idProps = `"id":{"type":"string","description":"job id"},"jobId":{"type":"string","description":"job id (alias of id)"}`

// addSchema is cron.add's params: the job, plus the sloppy spellings the
// normaliser turns into one (top-level message/text/model/…, legacy
// delivery hints, a flattened schedule, {job:…} or {data:…}). Nested
// objects are checked by the handler, which names the field it refuses.
const addSchema = `{"type":"object","properties":{
	"name":{"type":"string","description":"job name (inferred from the payload when blank)"},
	"displayName":{"type":"string"},"description":{"type":"string"},
	"enabled":{"type":["boolean","string"]},"deleteAfterRun":{"type":"boolean"},
	"agentId":{"type":["string","null"]},"sessionKey":{"type":["string","null"]},
	"schedule":{"type":"object","description":"{kind:at,at} | {kind:every,everyMs,anchorMs?} | {kind:cron,expr,tz?,staggerMs?}"},
	"sessionTarget":{"type":"string","description":"main (systemEvent) or isolated (agentTurn)"},
	"wakeMode":{"type":"string","description":"now or next-heartbeat"},
	"payload":{"type":"object","description":"{kind:systemEvent,text} | {kind:agentTurn,message,model?,thinking?,timeoutSeconds?}"},
	"delivery":{"type":["object","null"],"description":"{mode:announce|webhook|none, channel?, to?, bestEffort?}"},
	"job":{"type":"object"},"data":{"type":"object"},
	"message":{"type":"string"},"text":{"type":"string"},"model":{"type":"string"},"thinking":{"type":"string"},
	"timeoutSeconds":{"type":["number","string"]},"allowUnsafeExternalContent":{"type":"boolean"},
	"deliver":{"type":"boolean"},"channel":{"type":"string"},"to":{"type":"string"},"provider":{"type":"string"},
	"bestEffortDeliver":{"type":"boolean"},
	"at":{"type":["string","number"]},"atMs":{"type":["string","number"]},"every":{"type":["string","number"]},
	"everyMs":{"type":["string","number"]},"anchorMs":{"type":["string","number"]},"expr":{"type":"string"},
	"cron":{"type":"string"},"tz":{"type":"string"},"staggerMs":{"type":["string","number"]},
	"declarationKey":{},"owner":{},"pacing":{},"trigger":{},"failureAlert":{}
},"additionalProperties":false}`

func init() {
	reg := func(a *tools.Action) {
		a.Where = tools.Gateway
		tools.Register(a)
	}
	reg(&tools.Action{
		Method: "cron.status", Summary: "Show the scheduler's status", Scope: protocol.ScopeRead,
		Schema: `{"type":"object","additionalProperties":false}`,
		Run: func(ctx context.Context, env *tools.Env, _ json.RawMessage) (any, error) {
			s, err := service(env, "cron status")
			if err != nil {
				return nil, err
			}
			return s.status(), nil
		},
		Render: renderStatus,
	})
	reg(&tools.Action{
		Method: "cron.list", Summary: "List jobs (soonest next run first; disabled ones with --all)", Scope: protocol.ScopeRead,
		Schema: `{"type":"object","properties":{
			"includeDisabled":{"type":"boolean","description":"include disabled jobs"},
			"limit":{"type":"integer","minimum":1,"maximum":200},"offset":{"type":"integer","minimum":0},
			"query":{"type":"string"},"enabled":{"type":"string","enum":["all","enabled","disabled"]},
			"scheduleKind":{"type":"string","enum":["at","every","cron","on-exit","stream"]},
			"lastRunStatus":{"type":"string","enum":["ok","error","skipped"]},
			"sortBy":{"type":"string","enum":["nextRunAtMs","updatedAtMs","name"]},"sortDir":{"type":"string","enum":["asc","desc"]},
			"agentId":{"type":"string"},"sessionKey":{"type":"string"},"sessionAgentId":{"type":"string"},
			"compact":{"type":"boolean"},"includeDeliveryPreviews":{"type":"boolean"},"trigger":{"type":"string"}
		},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, f listFilter) (any, error) {
			s, err := service(env, "cron list")
			if err != nil {
				return nil, err
			}
			return s.list(f), nil
		}),
		Render: renderList,
	})
	reg(&tools.Action{
		Method: "cron.get", Summary: "Show one job", Scope: protocol.ScopeRead, Args: []string{"id"},
		Schema: `{"type":"object","properties":{` + idProps + `},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p idParams) (any, error) {
			s, err := service(env, "cron get")
			if err != nil {
				return nil, err
			}
			id, err := p.require("cron.get")
			if err != nil {
				return nil, err
			}
			return s.get(id)
		}),
		Render: renderJob,
	})
	reg(&tools.Action{
		Method: "cron.add", Summary: "Add a job", Scope: protocol.ScopeAdmin, Schema: addSchema,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := service(env, "cron add")
			if err != nil {
				return nil, err
			}
			m, err := decodeObject(params)
			if err != nil {
				return nil, inputError("cron.add", "%v", err)
			}
			j, err := s.add(ctx, "cron.add", m, env.Subject.RunScopes())
			if err != nil {
				return nil, err
			}
			res := addResult{Job: j}
			if why := undeliverable(j, s.settings().cfg); why != "" {
				res.DeliveryPreview = &preview{Label: noTarget, Detail: why}
			}
			return res, nil
		},
		Render: renderJob,
	})
	reg(&tools.Action{
		Method: "cron.update", Summary: "Change a job: {id, patch}", Scope: protocol.ScopeAdmin, Args: []string{"id"},
		Schema: `{"type":"object","properties":{` + idProps + `,"patch":{"type":"object","description":"the fields to change (null clears agentId, sessionKey, delivery)"}},"required":["patch"],"additionalProperties":false}`,
		Run: func(ctx context.Context, env *tools.Env, params json.RawMessage) (any, error) {
			s, err := service(env, "cron update")
			if err != nil {
				return nil, err
			}
			var p struct {
				idParams
				Patch json.RawMessage `json:"patch"`
			}
			if err := json.Unmarshal(params, &p); err != nil {
				return nil, inputError("cron.update", "%v", err)
			}
			id, err := p.require("cron.update")
			if err != nil {
				return nil, err
			}
			patch, err := decodeObject(p.Patch)
			if err != nil {
				return nil, inputError("cron.update", "patch: %v", err)
			}
			return s.update(ctx, "cron.update", id, patch)
		},
		Render: renderJob,
	})
	reg(&tools.Action{
		Method: "cron.remove", Summary: "Remove a job", Scope: protocol.ScopeAdmin, Args: []string{"id"},
		Schema: `{"type":"object","properties":{` + idProps + `},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p idParams) (any, error) {
			s, err := service(env, "cron remove")
			if err != nil {
				return nil, err
			}
			id, err := p.require("cron.remove")
			if err != nil {
				return nil, err
			}
			if err := s.remove(ctx, id); err != nil {
				return nil, err
			}
			return map[string]any{"ok": true, "removed": true, "id": id}, nil
		}),
		Render: renderRemoved,
	})
	reg(&tools.Action{
		Method: "cron.run", Summary: "Run a job now (queued; mode due runs it only when due)", Scope: protocol.ScopeAdmin, Args: []string{"id"},
		Schema: `{"type":"object","properties":{` + idProps + `,"mode":{"type":"string","enum":["force","due"],"description":"force (default) or due"},
			"expectedProcessInstanceId":{"type":"string"}},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p struct {
			idParams
			Mode     string `json:"mode"`
			Instance string `json:"expectedProcessInstanceId"`
		}) (any, error) {
			s, err := service(env, "cron run")
			if err != nil {
				return nil, err
			}
			id, err := p.require("cron.run")
			if err != nil {
				return nil, err
			}
			if p.Instance != "" && p.Instance != s.processID {
				return map[string]any{"ok": true, "ran": false, "reason": "stopped", "processInstanceId": s.processID}, nil
			}
			return s.runNow(id, p.Mode)
		}),
		Render: renderRun,
	})
	reg(&tools.Action{
		Method: "cron.runs", Summary: "Show a job's run history (newest first)", Scope: protocol.ScopeRead, Args: []string{"id"},
		Schema: `{"type":"object","properties":{
			"id":{"type":"string","pattern":"^[^/\\\\]+$","description":"job id"},"jobId":{"type":"string","pattern":"^[^/\\\\]+$","description":"job id (alias of id)"},
			"scope":{"type":"string","enum":["job","all"]},"agentId":{"type":"string"},"runId":{"type":"string"},
			"limit":{"type":"integer","minimum":1,"maximum":200,"description":"entries per page (default 50)"},"offset":{"type":"integer","minimum":0},
			"status":{"type":"string","enum":["all","ok","error","skipped"]},"statuses":{"type":"array","items":{"type":"string","enum":["ok","error","skipped"]}},
			"deliveryStatus":{"type":"string","enum":["delivered","not-delivered","unknown","not-requested"]},
			"deliveryStatuses":{"type":"array","items":{"type":"string","enum":["delivered","not-delivered","unknown","not-requested"]}},
			"query":{"type":"string"},"sortDir":{"type":"string","enum":["asc","desc"]}
		},"additionalProperties":false}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p runsParams) (any, error) {
			s, err := service(env, "cron runs")
			if err != nil {
				return nil, err
			}
			f := runFilter{runID: p.RunID, query: p.Query, asc: p.SortDir == "asc", limit: 50, offset: p.Offset,
				statuses: p.Statuses, deliveryStatuses: p.DeliveryStatuses}
			if p.Limit != nil {
				f.limit = *p.Limit
			}
			if p.Status != "" && p.Status != "all" {
				f.statuses = append(f.statuses, p.Status)
			}
			if p.DeliveryStatus != "" {
				f.deliveryStatuses = append(f.deliveryStatuses, p.DeliveryStatus)
			}
			if p.Scope != "all" {
				id, err := p.require("cron.runs")
				if err != nil {
					return nil, err
				}
				f.jobID = id
			}
			return s.runsPage(ctx, f)
		}),
		Render: renderRuns,
	})
	reg(&tools.Action{
		Method: "wake", Summary: "Queue a system event for the main session (now or at the next heartbeat)", Scope: protocol.ScopeWrite,
		Hidden: true, // the original's CLI spelling is `openclaw system event`; ours is `openclaw cron wake`
		Schema: `{"type":"object","properties":{"mode":{"type":"string","enum":["now","next-heartbeat"]},"text":{"type":"string"},
			"sessionKey":{"type":"string"},"agentId":{"type":"string"}}}`,
		Run: tools.Typed(func(ctx context.Context, env *tools.Env, p wakeParams) (any, error) {
			s, err := service(env, "wake")
			if err != nil {
				return nil, err
			}
			return s.wakeResult(ctx, p)
		}),
	})
}

// service is the running scheduler, brought up to date with the config
// the call was made under.
func service(env *tools.Env, what string) (*Service, error) {
	s, err := Key.From(env, what)
	if err != nil {
		return nil, err
	}
	s.configure(env.Config)
	return s, nil
}

type idParams struct {
	ID    string `json:"id"`
	JobID string `json:"jobId"`
}

// require is the job id from id or jobId.
func (p idParams) require(method string) (string, error) {
	id := strings.TrimSpace(p.ID)
	if id == "" {
		id = strings.TrimSpace(p.JobID)
	}
	if j := strings.TrimSpace(p.JobID); id != "" && j != "" && j != id {
		return "", inputError(method, "id and jobId name different jobs")
	}
	if id == "" {
		return "", inputError(method, "id (or jobId) required")
	}
	return id, nil
}

type runsParams struct {
	idParams
	Scope            string   `json:"scope"`
	RunID            string   `json:"runId"`
	Limit            *int     `json:"limit"`
	Offset           int      `json:"offset"`
	Status           string   `json:"status"`
	Statuses         []string `json:"statuses"`
	DeliveryStatus   string   `json:"deliveryStatus"`
	DeliveryStatuses []string `json:"deliveryStatuses"`
	Query            string   `json:"query"`
	SortDir          string   `json:"sortDir"`
}

type wakeParams struct {
	Mode       string `json:"mode"`
	Text       string `json:"text"`
	SessionKey string `json:"sessionKey"`
	AgentID    string `json:"agentId"`
}

// wakeResult is wake's answer: {ok:true} once queued, {ok:false} for
// blank text (the original's answer, not an error).
func (s *Service) wakeResult(ctx context.Context, p wakeParams) (any, error) {
	text := strings.TrimSpace(p.Text)
	if text == "" {
		return map[string]any{"ok": false}, nil
	}
	mode := p.Mode
	if mode == "" {
		mode = WakeNow
	}
	if err := s.wakeNow(ctx, text, mode, strings.TrimSpace(p.SessionKey), p.AgentID); err != nil {
		return nil, err
	}
	return map[string]any{"ok": true}, nil
}
