package agentrun

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/agent/providers"
	"github.com/openclaw-go/openclaw/atomicfile"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/agents"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Sub-agent limits (spec §3.7, the original's defaults).
const (
	defaultMaxSpawnDepth      = 1
	defaultMaxChildren        = 5
	defaultMaxConcurrentSubs  = 8
	attachMaxFiles            = 50
	attachMaxFileBytes        = 1 << 20
	attachMaxTotalBytes       = 5 << 20
	attachmentsDir            = ".openclaw/attachments"
	attachmentsManifest       = ".manifest.json"
	subagentAnnounceHeadlineA = "A subagent task"
)

// spawnRejected are the delivery params sessions_spawn refuses by name.
var spawnRejected = []string{"target", "transport", "channel", "to", "threadId", "thread_id", "replyTo", "reply_to"}

func init() {
	tools.Register(&tools.Action{
		Tool: "sessions_spawn", Where: tools.Gateway, Scope: protocol.ScopeWrite, OpenWorld: true,
		Summary: "Start a sub-agent on a task; it announces its result back to this session",
		Description: "Spawn a sub-agent run in a new session (agent:<id>:subagent:<uuid>) for task. Returns accepted at once; " +
			"when the child ends, its Status and Result are announced back to this session as a new turn. " +
			"agentId must be allowed by subagents.allowAgents; attachments (name, content, encoding utf8|base64) are " +
			"written for the child when tools.sessions_spawn.attachments.enabled.",
		Schema: `{"type":"object","properties":{
			"task":{"type":"string","description":"the child's assignment"},
			"label":{"type":"string","description":"short title; also a sessions_send target"},
			"agentId":{"type":"string","description":"spawn under another agent (subagents.allowAgents)"},
			"model":{"type":"string","description":"provider/model for the child"},
			"thinking":{"type":"string","description":"the child's thinking level"},
			"cwd":{"type":"string","description":"the child's working directory (default: the workspace)"},
			"runTimeoutSeconds":{"type":"integer","minimum":0,"description":"abort the child after N seconds (0: agents.defaults.subagents.runTimeoutSeconds)"},
			"timeoutSeconds":{"type":"integer","minimum":0,"description":"legacy alias of runTimeoutSeconds"},
			"cleanup":{"type":"string","enum":["delete","keep"],"description":"delete the child session after the announce, or keep it (default)"},
			"runtime":{"type":"string","enum":["subagent","acp"]},
			"attachments":{"type":"array","maxItems":50,"items":{"type":"object","properties":{
				"name":{"type":"string"},"content":{"type":"string"},"encoding":{"type":"string","enum":["utf8","base64"]},"mimeType":{"type":"string"}
			},"required":["name","content"]},"description":"inline files for the child"}
		},"required":["task"],"additionalProperties":true}`,
		Run:    sessionsSpawn,
		Render: renderJSONDetails,
	})
}

type attachment struct {
	Name     string `json:"name"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
	MimeType string `json:"mimeType"`
}

type spawnParams struct {
	Task              string       `json:"task"`
	Label             string       `json:"label"`
	AgentID           string       `json:"agentId"`
	Model             string       `json:"model"`
	Thinking          string       `json:"thinking"`
	Cwd               string       `json:"cwd"`
	RunTimeoutSeconds *int         `json:"runTimeoutSeconds"`
	TimeoutSeconds    *int         `json:"timeoutSeconds"`
	Cleanup           string       `json:"cleanup"`
	Runtime           string       `json:"runtime"`
	Attachments       []attachment `json:"attachments"`
}

func sessionsSpawn(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	var all map[string]json.RawMessage
	_ = json.Unmarshal(raw, &all)
	for _, k := range spawnRejected {
		if _, ok := all[k]; ok {
			return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn does not support %q. Use \"message\" or \"sessions_send\" for channel delivery.", k)
		}
	}
	var p spawnParams
	if err := decodeLoose(raw, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Task) == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: task is required")
	}
	if p.Runtime == "acp" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: runtime acp is not supported by this build; use runtime subagent")
	}
	// What this build cannot do is refused, not ignored: no sandbox for
	// children, no thread-bound or persistent (mode session) children.
	var unsupported struct {
		Sandbox  string `json:"sandbox"`
		Thread   bool   `json:"thread"`
		Mode     string `json:"mode"`
		StreamTo string `json:"streamTo"`
	}
	_ = json.Unmarshal(raw, &unsupported)
	switch {
	case unsupported.Sandbox == "require":
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: sandbox require: this build runs sub-agents unsandboxed")
	case unsupported.Thread || unsupported.Mode == "session":
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: thread-bound and mode session children are not supported; use mode run")
	case unsupported.StreamTo != "":
		return nil, tools.Errorf(tools.CodeInvalidParams, "streamTo is only supported for runtime=acp; got runtime=subagent")
	}
	s, err := Key.From(env, "sessions_spawn")
	if err != nil {
		return nil, err
	}
	jobs, err := env.NeedJobs("sessions_spawn")
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	forbidden := func(format string, a ...any) (any, error) {
		return tools.JSONResult(map[string]any{"status": "forbidden", "error": fmt.Sprintf(format, a...)})
	}
	c := sessions.CallerOf(env)
	requester := c.SessionKey()
	if requester == "" {
		requester = sessions.MainKey(c.Agent())
	}
	reqAgent := sessions.AgentOf(requester)
	depth := sessions.SpawnDepth(requester)
	maxDepth := max(cfg.Int("agents.defaults.subagents.maxSpawnDepth", defaultMaxSpawnDepth), 1)
	if depth >= maxDepth {
		return forbidden("sessions_spawn is not allowed at this depth (current depth: %d, max: %d)", depth, maxDepth)
	}
	childAgent := reqAgent
	if p.AgentID != "" {
		childAgent = sessions.NormalizeAgentID(p.AgentID)
		allowed, _ := agents.AllowedAgents(cfg, reqAgent)
		if !slices.Contains(allowed, childAgent) {
			return forbidden("agentId is not allowed for sessions_spawn (allowed: %s)", strings.Join(allowed, ", "))
		}
	}
	model := strings.TrimSpace(p.Model)
	if model != "" {
		_, _, ref, err := providers.Resolve(cfg, model)
		if err != nil {
			return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: model %s: %v", model, err)
		}
		model = ref.String()
	}
	maxChildren := cfg.Int("agents.defaults.subagents.maxChildrenPerAgent", defaultMaxChildren)
	maxConc := cfg.Int("agents.defaults.subagents.maxConcurrent", defaultMaxConcurrentSubs)
	s.mu.Lock()
	running := 0
	for _, n := range s.children {
		running += n
	}
	if s.children[requester] >= maxChildren || running >= maxConc {
		n := s.children[requester]
		s.mu.Unlock()
		return forbidden("sessions_spawn: too many sub-agents running (%d for this session, max %d; %d in all, max %d)", n, maxChildren, running, maxConc)
	}
	s.children[requester]++
	s.mu.Unlock()
	started := false
	defer func() {
		if !started {
			s.mu.Lock()
			s.children[requester]--
			s.mu.Unlock()
		}
	}()

	id := uuid.NewString()
	childKey := sessions.SubagentKey(childAgent, id)
	if depth > 0 && childAgent == reqAgent {
		childKey = requester + ":subagent:" + id
	}
	workspace := agentEnv(env, childAgent, childKey, p.Cwd, nil).Workspace
	task := p.Task
	var receipt map[string]any
	if len(p.Attachments) > 0 {
		if !cfg.Bool("tools.sessions_spawn.attachments.enabled", false) {
			return forbidden("attachments are disabled: set tools.sessions_spawn.attachments.enabled=true")
		}
		receipt, err = writeAttachments(cfg, workspace, id, p.Attachments)
		if err != nil {
			return nil, err
		}
		task += fmt.Sprintf("\n\nAttachments (%d file(s)) are in %s (relative to your working directory); %s lists them.",
			receipt["count"], receipt["relDir"], attachmentsManifest)
	}
	timeout := 0
	switch {
	case p.RunTimeoutSeconds != nil:
		timeout = *p.RunTimeoutSeconds
	case p.TimeoutSeconds != nil:
		timeout = *p.TimeoutSeconds
	}
	if timeout == 0 {
		timeout = cfg.Int("agents.defaults.subagents.runTimeoutSeconds", 0)
	}
	label := strings.TrimSpace(p.Label)
	extra := fmt.Sprintf("You are a sub-agent spawned by session %s for one task. Do the task, then answer with its result: "+
		"your final answer is announced back to the requester. You cannot talk to the user directly.", requester)
	req := Request{Message: task, AgentID: childAgent, SessionKey: childKey, Model: model, ExtraSystemPrompt: extra,
		Timeout: time.Duration(timeout) * time.Second, Cwd: p.Cwd, Scopes: env.Subject.RunScopes(), Init: func(e *sessions.Entry) {
			e.SpawnedBy, e.ParentSessionKey, e.Label, e.ModelOverride, e.ThinkingLevel = requester, requester, label, model, p.Thinking
		}}
	base := *env
	cleanup := p.Cleanup
	after := func(actx context.Context, out *Outcome) {
		s.mu.Lock()
		s.children[requester]--
		if s.children[requester] <= 0 {
			delete(s.children, requester)
		}
		s.mu.Unlock()
		s.announce(actx, jobs, &base, requester, childKey, label, p.Task, out, cleanup == "delete")
	}
	info, err := s.start(jobs, env, req, after)
	if err != nil {
		return nil, err
	}
	started = true
	res := map[string]any{"status": "accepted", "runId": info.ID, "childSessionKey": childKey}
	if receipt != nil {
		res["attachments"] = receipt
	}
	return tools.JSONResult(res)
}

// writeAttachments materialises a spawn's files under the child's
// workspace, .openclaw/attachments/<id>/ (dirs 0700, files 0600), with a
// .manifest.json receipt, within the limits (tools.sessions_spawn.
// attachments.{maxFiles, maxFileBytes, maxTotalBytes}).
func writeAttachments(cfg *config.Config, workspace, id string, in []attachment) (map[string]any, error) {
	maxFiles := cfg.Int("tools.sessions_spawn.attachments.maxFiles", attachMaxFiles)
	maxFile := cfg.Int("tools.sessions_spawn.attachments.maxFileBytes", attachMaxFileBytes)
	maxTotal := cfg.Int("tools.sessions_spawn.attachments.maxTotalBytes", attachMaxTotalBytes)
	if len(in) > maxFiles {
		return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: %d attachments, more than maxFiles %d", len(in), maxFiles)
	}
	type file struct {
		Name     string `json:"name"`
		Bytes    int    `json:"bytes"`
		Sha256   string `json:"sha256"`
		MimeType string `json:"mimeType,omitempty"`
	}
	var files []file
	var data [][]byte
	total := 0
	seen := map[string]bool{}
	for _, a := range in {
		name := strings.TrimSpace(a.Name)
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) || name == attachmentsManifest {
			return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: attachment name %q is not a plain file name", a.Name)
		}
		if seen[name] {
			return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: attachment %q given twice", name)
		}
		seen[name] = true
		var b []byte
		switch a.Encoding {
		case "", "utf8":
			b = []byte(a.Content)
		case "base64":
			var err error
			if b, err = base64.StdEncoding.DecodeString(a.Content); err != nil {
				return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: attachment %q is not valid base64: %v", name, err)
			}
		}
		if len(b) > maxFile {
			return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: attachment %q is %d bytes, more than maxFileBytes %d", name, len(b), maxFile)
		}
		if total += len(b); total > maxTotal {
			return nil, tools.Errorf(tools.CodeInvalidParams, "sessions_spawn: attachments total more than maxTotalBytes %d", maxTotal)
		}
		sum := sha256.Sum256(b)
		files = append(files, file{Name: name, Bytes: len(b), Sha256: hex.EncodeToString(sum[:]), MimeType: a.MimeType})
		data = append(data, b)
	}
	rel := filepath.ToSlash(filepath.Join(attachmentsDir, id))
	dir := filepath.Join(workspace, filepath.FromSlash(rel))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sessions_spawn: attachments dir: %w", err)
	}
	for i, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f.Name), data[i], 0o600); err != nil {
			return nil, fmt.Errorf("sessions_spawn: attachment %s: %w", f.Name, err)
		}
	}
	receipt := map[string]any{"count": len(files), "totalBytes": total, "files": files, "relDir": rel}
	b, _ := json.MarshalIndent(receipt, "", "  ")
	if err := atomicfile.WriteFile(filepath.Join(dir, attachmentsManifest), b, 0o600); err != nil {
		return nil, fmt.Errorf("sessions_spawn: attachments manifest: %w", err)
	}
	return receipt, nil
}

// announce posts a finished child's result to the requester session as a
// new turn there (spec §3.7): Status from the run's outcome, Result its
// last answer (else its last tool result), Notes its stats. The requester
// replies ANNOUNCE_SKIP to stay silent. With cleanup the child session is
// deleted afterwards.
func (s *Service) announce(ctx context.Context, jobs tools.Jobs, base *tools.Env, requester, childKey, label, task string, out *Outcome, cleanup bool) {
	title := label
	if title == "" {
		title = task
		if r := []rune(title); len(r) > 80 {
			title = string(r[:79]) + "…"
		}
	}
	status := "completed successfully"
	switch {
	case out.Status == "timeout":
		status = "timed out"
	case out.Summary == "aborted":
		status = "aborted"
	case out.Status != "ok":
		status = "failed: " + out.Error
	}
	result := replyOf(out)
	if result == "" {
		if msgs, err := s.runner.Sessions.History(ctx, childKey, 20, true); err == nil {
			for i := len(msgs) - 1; i >= 0; i-- {
				if msgs[i].Role == "toolResult" {
					result = msgs[i].Text()
					break
				}
			}
		}
	}
	if result == "" {
		result = "(no output)"
	}
	u := out.Result.Meta.AgentMeta.Usage
	msg := fmt.Sprintf("%s %q just ended.\nStatus: %s\nResult:\n%s\nNotes: runtime %.1fs • tokens %d in / %d out • sessionKey %s • sessionId %s\n\n"+
		"Tell the user what came of it, briefly, or reply exactly %s to stay silent.",
		subagentAnnounceHeadlineA, title, status, result, float64(out.Result.Meta.DurationMs)/1000, u.InputTokens, u.OutputTokens,
		childKey, out.Result.Meta.AgentMeta.SessionID, AnnounceSkip)
	// The requester's reply goes to its chat when it is bound to one.
	after := func(actx context.Context, o *Outcome) {
		s.postIfBound(actx, base, requester, o)
		if cleanup {
			_, _ = s.runner.Sessions.Delete(actx, childKey)
		}
	}
	// The announce turn acts for the spawn's caller: it holds that caller's
	// scopes, as the child did.
	_, _ = s.start(jobs, base, Request{Message: msg, AgentID: sessions.AgentOf(requester), SessionKey: requester,
		Scopes: base.Subject.RunScopes()}, after)
}
