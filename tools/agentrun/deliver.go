package agentrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/sessions"
)

// Delivery is where a run's reply is posted: an explicit channel and
// target, else the conversation SessionKey is bound to (a key naming its
// chat, else the session's last delivery target, which the message family
// asks the sessions service for). The post goes through the one door as
// the message tool's send, so the message family's rules (accounts,
// cross-context, the agent's tool policy) hold; this family never calls
// an adapter.
type Delivery struct {
	Channel    string // a channel id, or "" / "last": the session's
	To         string
	AccountID  string
	ThreadID   string
	ReplyTo    string
	SessionKey string
	AgentID    string
	Text       string
}

// Delivery statuses (the cron run log's words).
const (
	Delivered    = "delivered"
	NotDelivered = "not-delivered"
)

// silentReply reports a reply the original never posts: intentional
// silence and heartbeat acknowledgements.
func silentReply(text string) bool {
	t := strings.TrimSpace(text)
	return t == "" || t == "NO_REPLY" || t == "HEARTBEAT_OK" || t == AnnounceSkip
}

func (d Delivery) params(dryRun bool) map[string]any {
	p := map[string]any{"message": d.Text}
	ch := strings.TrimSpace(d.Channel)
	if strings.EqualFold(ch, "last") {
		ch = ""
	}
	if ch != "" {
		p["channel"] = ch
	}
	if d.To != "" {
		p["target"] = d.To
	} else if d.SessionKey != "" {
		p["sessionKey"] = d.SessionKey
	}
	for k, v := range map[string]string{"accountId": d.AccountID, "threadId": d.ThreadID, "replyTo": d.ReplyTo} {
		if v != "" {
			p[k] = v
		}
	}
	if dryRun {
		p["dryRun"] = true
	}
	return p
}

// deliverEnv is the env a delivery runs with: the gateway's services, the
// agent as the caller (its tool policy applies), no session (an explicit
// target is not a cross-context send from the session; an implicit one
// is the session's own conversation) and no connection.
func deliverEnv(base *tools.Env, agentID string) *tools.Env {
	env := *base
	if agentID == "" {
		agentID = tools.DefaultAgentID(env.Config)
	}
	env.Subject = tools.Subject{Kind: tools.CallerAgent, AgentID: agentID}
	env.ConnID, env.Sink = "", nil
	return &env
}

// deliverWith posts d (or, with dryRun, only resolves where it would go)
// and returns the message tool's result.
func deliverWith(ctx context.Context, base *tools.Env, d Delivery, dryRun bool) (map[string]any, error) {
	b, err := json.Marshal(d.params(dryRun))
	if err != nil {
		return nil, err
	}
	out, err := tools.Invoke(ctx, deliverEnv(base, d.AgentID), tools.Call{Tool: "message", Verb: "send", Args: b})
	if err != nil {
		return nil, fmt.Errorf("deliver: %w", err)
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("deliver: %w", err)
	}
	return res, nil
}

// fullEnv is the gateway's handler Env once attached, else the service's.
func (s *Service) fullEnv() *tools.Env {
	s.mu.Lock()
	full := s.full
	s.mu.Unlock()
	if full != nil {
		return full()
	}
	return s.env
}

// Deliver posts d's text through the message family and, when it went
// out, records the target as d.SessionKey's last delivery target. Other
// families (cron's announce) use it so every delivery takes one path.
func (s *Service) Deliver(ctx context.Context, d Delivery) (map[string]any, error) {
	return s.deliver(ctx, s.fullEnv(), d)
}

func (s *Service) deliver(ctx context.Context, base *tools.Env, d Delivery) (map[string]any, error) {
	res, err := deliverWith(ctx, base, d, false)
	if err != nil {
		return nil, err
	}
	if d.SessionKey != "" {
		ch, _ := res["channel"].(string)
		to, _ := res["to"].(string)
		if to == "" {
			to = d.To
		}
		acct, _ := res["accountId"].(string)
		if ch != "" && to != "" {
			if err := s.runner.Sessions.RecordRoute(ctx, d.SessionKey, ch, to, acct, d.ThreadID); err != nil {
				res["routeError"] = err.Error() // the message went out; only the record failed
			}
		}
	}
	return res, nil
}

// CheckRoute resolves d without posting: the error a delivery to it would
// fail with for want of a target, channel or account.
func (s *Service) CheckRoute(ctx context.Context, base *tools.Env, d Delivery) error {
	d.Text = "(route check)"
	_, err := deliverWith(ctx, base, d, true)
	return err
}

// deliverOutcome posts a finished run's reply per d and records how it
// went in out's meta; a failure never changes the run's own result.
func (s *Service) deliverOutcome(ctx context.Context, base *tools.Env, d Delivery, out *Outcome) {
	if out.Status != "ok" {
		out.Result.Meta.DeliveryStatus, out.Result.Meta.DeliveryError = NotDelivered, "the run did not complete: "+out.Error
		return
	}
	d.Text = replyOf(out)
	if silentReply(d.Text) {
		out.Result.Meta.DeliveryStatus, out.Result.Meta.DeliveryError = NotDelivered, "nothing to deliver (empty or silent reply)"
		return
	}
	res, err := s.deliver(ctx, base, d)
	if err != nil {
		out.Result.Meta.DeliveryStatus, out.Result.Meta.DeliveryError = NotDelivered, err.Error()
		return
	}
	out.Result.Meta.DeliveryStatus = Delivered
	out.Result.Meta.Delivery = res
}

// postIfBound posts a finished announce turn's reply to key's own
// conversation when key is bound to one (a chat its key names, or a last
// delivery target); an unbound session keeps the reply in its transcript
// only. It reports the delivery status ("" when unbound).
func (s *Service) postIfBound(ctx context.Context, base *tools.Env, key string, out *Outcome) string {
	d := Delivery{SessionKey: key, AgentID: sessions.AgentOf(key)}
	if s.CheckRoute(ctx, base, d) != nil {
		return ""
	}
	s.deliverOutcome(ctx, base, d, out)
	return out.Result.Meta.DeliveryStatus
}
