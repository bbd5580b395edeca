package channels

import (
	"strconv"
	"strings"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// binding is one bindings[] entry of the config (the original's shape).
type binding struct {
	AgentID string `json:"agentId"`
	Match   struct {
		Channel   string `json:"channel"`
		AccountID string `json:"accountId"`
		Peer      *struct {
			Kind string `json:"kind"`
			ID   any    `json:"id"`
		} `json:"peer"`
	} `json:"match"`
	Session *struct {
		DMScope string `json:"dmScope"`
	} `json:"session"`
}

// route picks the agent and session for a direct message: the most
// specific matching binding (exact peer, then peer wildcard, then the
// account, then the channel with any account), else the default agent;
// the session key follows session.dmScope (the binding's own first):
// main (agent:<id>:main, the default), per-peer
// (agent:<id>:direct:<peer>), per-channel-peer
// (agent:<id>:telegram:direct:<peer>) or per-account-channel-peer
// (agent:<id>:telegram:<account>:direct:<peer>).
func route(cfg *config.Config, a channels.Account, m channels.TelegramInbound) (agentID, key string) {
	var list []binding
	_ = cfg.Decode("bindings", &list)
	best, bestRank := -1, 0
	for i, b := range list {
		if b.AgentID == "" || !strings.EqualFold(b.Match.Channel, a.Channel) {
			continue
		}
		acct := strings.TrimSpace(b.Match.AccountID)
		switch {
		case acct == "" && a.ID != channels.DefaultAccountID(cfg, a.Channel):
			continue // no accountId: the channel's default account only
		case acct != "" && acct != "*" && acct != a.ID:
			continue
		}
		rank := 1 // channel
		if acct != "" && acct != "*" {
			rank = 2
		}
		if p := b.Match.Peer; p != nil {
			if k := strings.ToLower(p.Kind); k != "direct" && k != "dm" {
				continue
			}
			id := strings.TrimSpace(anyString(p.ID))
			switch id {
			case "*":
				rank = 3
			case m.SenderID, m.ChatID:
				rank = 4
			default:
				continue
			}
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	agentID = tools.DefaultAgentID(cfg)
	scope := ""
	_ = cfg.Decode("session.dmScope", &scope)
	if best >= 0 {
		agentID = strings.ToLower(list[best].AgentID)
		if s := list[best].Session; s != nil && s.DMScope != "" {
			scope = s.DMScope
		}
	}
	peer := m.SenderID
	switch scope {
	case "per-peer":
		return agentID, "agent:" + agentID + ":direct:" + peer
	case "per-channel-peer":
		return agentID, "agent:" + agentID + ":" + a.Channel + ":direct:" + peer
	case "per-account-channel-peer":
		return agentID, "agent:" + agentID + ":" + a.Channel + ":" + a.ID + ":direct:" + peer
	}
	return agentID, "agent:" + agentID + ":main"
}

func anyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatInt(int64(x), 10)
	}
	return ""
}
