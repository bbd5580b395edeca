package cron

import (
	"slices"

	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// The job object on the wire and in the store (spec §1.2, the original's
// CronJobSchema). Field order follows the original's output.

// Job is one scheduled job.
type Job struct {
	ID             string    `json:"id"`
	AgentID        string    `json:"agentId,omitempty"`
	SessionKey     string    `json:"sessionKey,omitempty"`
	Name           string    `json:"name"`
	DisplayName    string    `json:"displayName,omitempty"`
	Description    string    `json:"description,omitempty"`
	Enabled        bool      `json:"enabled"`
	DeleteAfterRun *bool     `json:"deleteAfterRun,omitempty"`
	CreatedAtMs    int64     `json:"createdAtMs"`
	UpdatedAtMs    int64     `json:"updatedAtMs"`
	Schedule       Schedule  `json:"schedule"`
	SessionTarget  string    `json:"sessionTarget"`
	WakeMode       string    `json:"wakeMode"`
	Payload        Payload   `json:"payload"`
	Delivery       *Delivery `json:"delivery,omitempty"`
	State          State     `json:"state"`

	// scopes are those of whoever created the job (tools.Subject.
	// RunScopes), stored beside the job, not in its wire shape; its agent
	// turns hold them. nil: not recorded (a job stored before they were),
	// and its turns hold tools.LeastRunScopes.
	scopes []string
}

// Schedule kinds.
const (
	KindAt    = "at"
	KindEvery = "every"
	KindCron  = "cron"
)

// Schedule is {kind:"at", at} | {kind:"every", everyMs, anchorMs?} |
// {kind:"cron", expr, tz?, staggerMs?}.
type Schedule struct {
	Kind      string `json:"kind"`
	At        string `json:"at,omitempty"`
	EveryMs   int64  `json:"everyMs,omitempty"`
	AnchorMs  *int64 `json:"anchorMs,omitempty"`
	Expr      string `json:"expr,omitempty"`
	TZ        string `json:"tz,omitempty"`
	StaggerMs *int64 `json:"staggerMs,omitempty"`

	// compiled caches the parsed expression for Expr and TZ.
	compiled *compiledCron
}

type compiledCron struct {
	expr, tz  string
	s         *cronexpr.Schedule
	topOfHour bool
	at        string // for kind at: the parsed At
	atMs      int64
	atOK      bool
}

// Payload kinds and session targets.
const (
	PayloadSystemEvent = "systemEvent"
	PayloadAgentTurn   = "agentTurn"
	TargetMain         = "main"
	TargetIsolated     = "isolated"
	WakeNow            = "now"
	WakeNextHeartbeat  = "next-heartbeat"
)

// Payload is {kind:"systemEvent", text} | {kind:"agentTurn", message, …}.
type Payload struct {
	Kind                       string   `json:"kind"`
	Text                       string   `json:"text,omitempty"`
	Message                    string   `json:"message,omitempty"`
	Model                      string   `json:"model,omitempty"`
	Fallbacks                  []string `json:"fallbacks,omitempty"`
	Thinking                   string   `json:"thinking,omitempty"`
	TimeoutSeconds             *int64   `json:"timeoutSeconds,omitempty"`
	AllowUnsafeExternalContent *bool    `json:"allowUnsafeExternalContent,omitempty"`
	LightContext               *bool    `json:"lightContext,omitempty"`
	ToolsAllow                 []string `json:"toolsAllow,omitempty"`
}

// Delivery modes.
const (
	DeliveryAnnounce = "announce"
	DeliveryWebhook  = "webhook"
	DeliveryNone     = "none"
)

// Delivery says where a run's result goes.
type Delivery struct {
	Mode       string `json:"mode"`
	Channel    string `json:"channel,omitempty"`
	To         string `json:"to,omitempty"`
	ThreadID   any    `json:"threadId,omitempty"`
	AccountID  string `json:"accountId,omitempty"`
	BestEffort *bool  `json:"bestEffort,omitempty"`
}

// Run statuses.
const (
	StatusOK          = "ok"
	StatusError       = "error"
	StatusSkipped     = "skipped"
	StatusRunning     = "running"
	StatusInterrupted = "interrupted"
)

// State is the scheduler-owned part of a job (spec §1.6).
type State struct {
	NextRunAtMs        *int64 `json:"nextRunAtMs,omitempty"`
	RunningAtMs        *int64 `json:"runningAtMs,omitempty"`
	LastRunAtMs        *int64 `json:"lastRunAtMs,omitempty"`
	LastRunStatus      string `json:"lastRunStatus,omitempty"`
	LastStatus         string `json:"lastStatus,omitempty"` // deprecated alias of lastRunStatus
	LastError          string `json:"lastError,omitempty"`
	LastDurationMs     *int64 `json:"lastDurationMs,omitempty"`
	ConsecutiveErrors  *int   `json:"consecutiveErrors,omitempty"`
	LastDelivered      *bool  `json:"lastDelivered,omitempty"`
	LastDeliveryStatus string `json:"lastDeliveryStatus,omitempty"`
	LastDeliveryError  string `json:"lastDeliveryError,omitempty"`
	LastRunID          string `json:"lastRunId,omitempty"`
}

// RunEntry is one run in the history (the original's CronRunLogEntry):
// the cron.runs entries, the `finished` event and the webhook body.
type RunEntry struct {
	TS             int64  `json:"ts"`
	JobID          string `json:"jobId"`
	Action         string `json:"action"`
	Status         string `json:"status,omitempty"`
	Error          string `json:"error,omitempty"`
	Summary        string `json:"summary,omitempty"`
	Delivered      *bool  `json:"delivered,omitempty"`
	DeliveryStatus string `json:"deliveryStatus,omitempty"`
	DeliveryError  string `json:"deliveryError,omitempty"`
	SessionKey     string `json:"sessionKey,omitempty"`
	RunID          string `json:"runId,omitempty"`
	RunAtMs        int64  `json:"runAtMs,omitempty"`
	DurationMs     *int64 `json:"durationMs,omitempty"`
	NextRunAtMs    *int64 `json:"nextRunAtMs,omitempty"`
	JobName        string `json:"jobName,omitempty"`
	Manual         bool   `json:"manual,omitempty"`
	// Interrupted: the gateway stopped (or was killed) during the run.
	Interrupted bool `json:"interrupted,omitempty"`
}

func i64(v int64) *int64 { return &v }
func boolp(v bool) *bool { return &v }

// clone deep-copies a job (the scheduler hands copies to handlers).
func (j *Job) clone() *Job {
	c := *j
	c.scopes = slices.Clone(j.scopes)
	c.Schedule.AnchorMs = copyPtr(j.Schedule.AnchorMs)
	c.Schedule.StaggerMs = copyPtr(j.Schedule.StaggerMs)
	c.DeleteAfterRun = copyPtr(j.DeleteAfterRun)
	c.Payload.Fallbacks = append([]string(nil), j.Payload.Fallbacks...)
	c.Payload.ToolsAllow = append([]string(nil), j.Payload.ToolsAllow...)
	c.Payload.TimeoutSeconds = copyPtr(j.Payload.TimeoutSeconds)
	c.Payload.AllowUnsafeExternalContent = copyPtr(j.Payload.AllowUnsafeExternalContent)
	c.Payload.LightContext = copyPtr(j.Payload.LightContext)
	if j.Delivery != nil {
		d := *j.Delivery
		d.BestEffort = copyPtr(j.Delivery.BestEffort)
		c.Delivery = &d
	}
	s := j.State
	s.NextRunAtMs, s.RunningAtMs, s.LastRunAtMs = copyPtr(s.NextRunAtMs), copyPtr(s.RunningAtMs), copyPtr(s.LastRunAtMs)
	s.LastDurationMs, s.ConsecutiveErrors, s.LastDelivered = copyPtr(s.LastDurationMs), copyPtr(s.ConsecutiveErrors), copyPtr(s.LastDelivered)
	c.State = s
	return &c
}

func copyPtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// effectiveAgent is the agent a job runs for: its own, else "main".
func (j *Job) effectiveAgent() string {
	if j.AgentID != "" {
		return j.AgentID
	}
	return "main"
}
