package heartbeat

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools/agentrun"
)

// Targets a heartbeat's reply may have besides a channel id.
const (
	TargetOwner = "owner"
	TargetLast  = "last"
	TargetNone  = "none"
)

// route is where a heartbeat of agentID in key delivers, checked without
// sending: nil with no reason for target none; nil with a reason when the
// target names nowhere (no owner, no last conversation, a channel with no
// recipient), which skips a heartbeat that has no events to look at.
func (s *Service) route(ctx context.Context, cfg *config.Config, hb settings, agentID, key string) (*agentrun.Delivery, string) {
	target := strings.ToLower(strings.TrimSpace(hb.Target))
	var d agentrun.Delivery
	switch target {
	case TargetNone:
		return nil, "" // the turn runs; its reply stays in the session
	case "", TargetOwner:
		ch, to, acct, ok := owner(cfg)
		if !ok {
			return nil, "no-route"
		}
		d = agentrun.Delivery{Channel: ch, To: to, AccountID: acct, AgentID: agentID}
	case TargetLast:
		// The session's last conversation: the message family resolves it
		// from the session key (and records the route again on success).
		d = agentrun.Delivery{SessionKey: key, AgentID: agentID, AccountID: hb.AccountID}
	default:
		d = agentrun.Delivery{Channel: target, To: strings.TrimSpace(hb.To), AccountID: hb.AccountID, AgentID: agentID}
		if d.To == "" {
			d.SessionKey = key // the session's last recipient on that channel
		}
	}
	if err := s.agent.CheckRoute(ctx, s.env(), d); err != nil {
		return nil, "no-route"
	}
	return &d, ""
}

// owner is the operator's direct chat: the first concrete
// commands.ownerAllowFrom entry (channel:id), else the first concrete
// allowFrom entry of a configured channel (or one of its accounts), in
// channel name order.
func owner(cfg *config.Config) (channel, to, account string, ok bool) {
	var owners []any
	_ = cfg.Decode("commands.ownerAllowFrom", &owners)
	for _, o := range owners {
		ch, id, found := strings.Cut(fmt.Sprint(o), ":")
		if found && ch != "" && concrete(id) {
			return strings.ToLower(ch), strings.TrimSpace(id), "", true
		}
	}
	var chans map[string]struct {
		AllowFrom []any `json:"allowFrom"`
		Accounts  map[string]struct {
			AllowFrom []any `json:"allowFrom"`
		} `json:"accounts"`
	}
	_ = cfg.Decode("channels", &chans)
	names := make([]string, 0, len(chans))
	for n := range chans {
		if n != "defaults" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if id, ok := firstConcrete(n, chans[n].AllowFrom); ok {
			return n, id, "", true
		}
		accts := make([]string, 0, len(chans[n].Accounts))
		for a := range chans[n].Accounts {
			accts = append(accts, a)
		}
		sort.Strings(accts)
		for _, a := range accts {
			if id, ok := firstConcrete(n, chans[n].Accounts[a].AllowFrom); ok {
				return n, id, a, true
			}
		}
	}
	return "", "", "", false
}

// firstConcrete is the first allowFrom entry naming one sender (not "*"),
// without a channel prefix.
func firstConcrete(channel string, list []any) (string, bool) {
	for _, e := range list {
		id := strings.TrimSpace(fmt.Sprint(e))
		if f, ok := e.(float64); ok {
			id = fmt.Sprintf("%.0f", f)
		}
		id = strings.TrimPrefix(id, channel+":")
		if concrete(id) {
			return id, true
		}
	}
	return "", false
}

func concrete(id string) bool {
	id = strings.TrimSpace(id)
	return id != "" && id != "*"
}
