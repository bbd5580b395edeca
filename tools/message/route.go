package message

import (
	"context"
	"fmt"
	"strings"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/tools"
)

// route is the conversation a chat session is bound to.
type route struct {
	Channel, To, AccountID, ThreadID string
}

func (r *route) String() string {
	s := r.Channel + ":" + r.To
	if r.ThreadID != "" {
		s += " (thread " + r.ThreadID + ")"
	}
	return s
}

// SessionRouter is the one thing the message tool needs from whoever keeps
// sessions: the conversation a session delivers to (its last channel, peer
// and thread). A running service registered as "sessions" that has this
// method is asked for session keys that do not name their conversation
// (agent:<id>:main, agent:<id>:direct:<peer>); it uses only built-in types,
// so the sessions family implements it without importing this one.
type SessionRouter interface {
	DeliveryRoute(ctx context.Context, sessionKey string) (channel, to, accountID, threadID string, ok bool, err error)
}

// SessionRouterService is the service name SessionRouter is looked up under.
const SessionRouterService = "sessions"

// sessionRoute is the conversation the call is bound to, or nil: the
// caller's session (an agent turn), else the session the params name
// (which can only narrow what the call may do).
func sessionRoute(ctx context.Context, env *tools.Env, named string) (*route, error) {
	key := env.Subject.SessionKey
	if key == "" {
		key = strings.TrimSpace(named)
	}
	if key == "" {
		return nil, nil
	}
	if r := routeFromKey(key); r != nil {
		return r, nil
	}
	if sr, ok := env.Services[SessionRouterService].(SessionRouter); ok {
		ch, to, acct, thread, found, err := sr.DeliveryRoute(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("message: session %s route: %w", key, err)
		}
		if found && ch != "" && to != "" {
			return &route{Channel: ch, To: to, AccountID: acct, ThreadID: thread}, nil
		}
	}
	return nil, nil
}

// routeFromKey reads the conversation out of a session key that names it
// (spec §3.1): agent:<id>:<channel>[:<account>]:<direct|dm|group|channel|room>:<id>
// with an optional :topic:<n> (Telegram forum) or :thread:<id>.
func routeFromKey(key string) *route {
	parts := strings.Split(key, ":")
	if len(parts) < 5 || parts[0] != "agent" {
		return nil
	}
	rest := parts[2:]
	ch := strings.ToLower(rest[0])
	if !contains(channels.Known(), ch) {
		return nil
	}
	kinds := map[string]bool{"direct": true, "dm": true, "group": true, "channel": true, "room": true}
	r := &route{Channel: ch}
	i := 1
	if !kinds[rest[i]] {
		r.AccountID = rest[i]
		i++
	}
	if i+1 >= len(rest) || !kinds[rest[i]] {
		return nil
	}
	kind, id := rest[i], rest[i+1]
	tail := rest[i+2:]
	topic := ""
	for j := 0; j+1 < len(tail); j += 2 {
		switch tail[j] {
		case "topic":
			topic = tail[j+1]
		case "thread":
			r.ThreadID = tail[j+1]
		}
	}
	direct := kind == "direct" || kind == "dm"
	switch ch {
	case "telegram":
		r.To = id
		if topic != "" {
			r.To += ":topic:" + topic
		}
	default:
		if direct {
			r.To = "user:" + id
		} else {
			r.To = "channel:" + id
		}
	}
	return r
}

// sameConversation compares targets in the channel's own forms.
func sameConversation(channel, a, b string) bool {
	switch channel {
	case "telegram":
		ca, ta := channels.ParseTelegramTarget(a)
		cb, tb := channels.ParseTelegramTarget(b)
		return strings.EqualFold(ca, cb) && (ta == "" || tb == "" || ta == tb)
	case "discord":
		ka, ia := channels.ParseDiscordTarget(a)
		kb, ib := channels.ParseDiscordTarget(b)
		return ka == kb && ia == ib
	case "slack":
		ka, ia := channels.ParseSlackTarget(a)
		kb, ib := channels.ParseSlackTarget(b)
		return ka == kb && ia == ib
	}
	return a == b
}

// crossContext applies tools.message.crossContext (spec §4.5) to a
// mutation from a call bound to a chat: its own conversation always; another
// conversation on the same channel when allowWithinProvider (default false
// here, true in the original: a bound call sends only to its own chat unless
// the user widens it); another channel when allowAcrossProviders (default
// false, Classic).
func crossContext(cfg *config.Config, bound *route, channel, target string) error {
	if channel == bound.Channel && sameConversation(channel, target, bound.To) {
		return nil
	}
	within := cfg.Bool("tools.message.crossContext.allowWithinProvider", false)
	across := cfg.Bool("tools.message.crossContext.allowAcrossProviders", false)
	if channel == bound.Channel && within {
		return nil
	}
	if channel != bound.Channel && across {
		return nil
	}
	key := "tools.message.crossContext.allowWithinProvider"
	if channel != bound.Channel {
		key = "tools.message.crossContext.allowAcrossProviders"
	}
	return tools.Errorf(tools.CodeDenied, "Cross-context messaging denied: this session is bound to %s; %s:%s is another conversation (allowed only with %s: true)",
		bound, channel, target, key).WithDetails(map[string]any{"bound": bound.Channel + ":" + bound.To, "target": channel + ":" + target})
}
