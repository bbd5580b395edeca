package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/failure"
	"github.com/openclaw-go/openclaw/policy"
)

// Tool-call loop detection inside the door (tools.loopDetection, off by
// default). It applies to the callers whose turns can run away by
// themselves, agent and mcp (Subject.LoopGuarded), however they reach the
// door: in this process or relayed by the gateway. The history lives in the
// gateway's memory, in the loopDetection service, or, in a process without
// that service (an agent loop or `openclaw mcp serve` on its own), in one
// history per process. It is keyed by session, else by agent. A warning is
// added to the result the model reads (the original only logs it); a
// critical verdict blocks the call with an error whose message is the
// CRITICAL text.

// LoopServiceName is the gateway service holding the call histories.
const LoopServiceName = "loopDetection"

type loopService struct{ tracker *policy.LoopTracker }

func (*loopService) Start(context.Context) error { return nil }
func (*loopService) Stop(context.Context) error  { return nil }

func init() {
	RegisterService(ServiceSpec{Name: LoopServiceName, New: func(*Env) (Service, error) {
		return &loopService{tracker: policy.NewLoopTracker()}, nil
	}})
}

// loopCheck is one call under loop detection.
type loopCheck struct {
	verdict policy.LoopVerdict
	ticket  *policy.LoopTicket
}

// loopGuard records the call and returns the verdict, or nil when loop
// detection does not apply to this call.
func loopGuard(env *Env, a *Action, params json.RawMessage) *loopCheck {
	if a.Tool == "" || !env.Subject.LoopGuarded() {
		return nil
	}
	key := "agent:" + env.AgentID()
	if env.Subject.SessionKey != "" {
		key = "session:" + env.Subject.SessionKey
	}
	tracker := processLoops()
	if svc, _ := env.Services[LoopServiceName].(*loopService); svc != nil {
		tracker = svc.tracker
	}
	s := loopSettings(env)
	if !s.Enabled {
		return nil
	}
	v, t := tracker.Before(key, s, a.Tool, policy.ArgsHash(a.ID(), params), policy.IsKnownPoll(a.Tool, a.Verb))
	return &loopCheck{verdict: v, ticket: t}
}

// processLoops is the history of a process that runs no loopDetection
// service (bounded by the tracker's session cap).
var processLoops = sync.OnceValue(policy.NewLoopTracker)

// loopSettings is tools.loopDetection with the calling agent's override,
// read from the typed sections decoded once per config load.
func loopSettings(env *Env) policy.LoopSettings {
	if env.Config == nil {
		return policy.LoopSettings{}
	}
	var agent *policy.LoopConfig
	for _, x := range env.Config.Agents().List {
		if x.ID == env.AgentID() && x.Tools != nil {
			agent = x.Tools.LoopDetection
		}
	}
	return policy.MergeLoop(env.Config.Tools().LoopDetection, agent).Settings()
}

// blocked is the error a critical verdict returns instead of running.
func (c *loopCheck) blocked() error {
	if c == nil || c.verdict.Level != policy.LoopCritical {
		return nil
	}
	return failure.Errorf(CodeDenied, "%s", c.verdict.Message).WithDetails(map[string]any{
		"status": "blocked", "deniedReason": "tool-loop", "level": c.verdict.Level,
		"detector": c.verdict.Detector, "count": c.verdict.Count,
	})
}

// done records the outcome, then adds a warning to the encoded result:
// "warnings":[text] on a result object and, when it has content blocks,
// one more text block, so the model reads it. The outcome is hashed first:
// the warning itself is not progress.
func (c *loopCheck) done(out json.RawMessage, err error) json.RawMessage {
	if c == nil {
		return out
	}
	if err != nil {
		c.ticket.Done(policy.ResultHash(nil, AsError(err).Message))
		return out
	}
	c.ticket.Done(policy.ResultHash(out, ""))
	if c.verdict.Level != policy.LoopWarning {
		return out
	}
	return withWarning(out, c.verdict.Message)
}

// withWarning splices a warning into an encoded JSON object result.
func withWarning(out json.RawMessage, msg string) json.RawMessage {
	t := bytes.TrimSpace(out)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return out
	}
	m, _ := json.Marshal(msg)
	block, _ := json.Marshal(TextBlock(msg))
	res := append([]byte(nil), t...)
	if c := gjson.GetBytes(res, "content"); c.IsArray() && c.Index > 0 {
		end := c.Index + len(c.Raw) - 1 // the closing ]
		ins := block
		if len(c.Array()) > 0 {
			ins = append([]byte{','}, block...)
		}
		res = append(res[:end], append(ins, res[end:]...)...)
	}
	body := bytes.TrimSpace(res[1 : len(res)-1])
	field := append([]byte(`"warnings":[`), append(m, ']')...)
	if len(body) > 0 {
		field = append([]byte{','}, field...)
	}
	return append(append(res[:len(res)-1:len(res)-1], field...), '}')
}
