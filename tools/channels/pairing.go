package channels

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/config"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/texttable"
	"github.com/openclaw-go/openclaw/tools"
)

// DM pairing from the CLI, the Control UI and MCP: the original's gateway
// methods channels.pairing.list and channels.pairing.approve, as
// `openclaw pairing list [CHANNEL]` and `openclaw pairing approve CHANNEL
// CODE [--notify]`. The approve method takes the original's requestId
// (the Control UI's) or the code (the CLI's).

// pairingChannels are the channels that receive DMs here.
var pairingChannels = []string{"telegram"}

// approvedMessage is what --notify sends the approved sender.
const approvedMessage = "✅ OpenClaw access approved. Send a message to start chatting."

type listParams struct {
	Channel   string `json:"channel"`
	AccountID string `json:"accountId"`
}

type approveParams struct {
	Channel               string `json:"channel"`
	AccountID             string `json:"accountId"`
	Code                  string `json:"code"`
	RequestID             string `json:"requestId"`
	Notify                bool   `json:"notify"`
	BootstrapCommandOwner bool   `json:"bootstrapCommandOwner"`
}

func init() {
	tools.Register(&tools.Action{
		Where:    tools.Gateway,
		Method:   "channels.pairing.list",
		Command:  []string{"pairing", "list"},
		Summary:  "List pending DM pairing requests (senders who asked for access with a code)",
		Examples: []string{"openclaw pairing list telegram", "openclaw pairing list --channel telegram --account work --json"},
		Schema: `{"type":"object","properties":{
			"channel":{"type":"string","minLength":1,"description":"channel id (telegram)"},
			"accountId":{"type":"string","minLength":1,"pattern":"\\S","description":"one account of the channel (default: all)"}},
			"additionalProperties":false}`,
		Args:     []string{"channel"},
		Flags:    map[string]string{"accountId": "account"},
		Scope:    protocol.ScopePairing,
		ReadOnly: true,
		Run:      tools.Typed(pairingList),
		Render:   renderList,
	})
	tools.Register(&tools.Action{
		Where:   tools.Gateway,
		Method:  "channels.pairing.approve",
		Command: []string{"pairing", "approve"},
		Summary: "Approve a pending DM pairing code: that sender may talk to the agent (--notify tells them)",
		Examples: []string{"openclaw pairing approve telegram ABCD2345", "openclaw pairing approve ABCD2345 --notify",
			"openclaw pairing approve telegram ABCD2345 --account work"},
		Schema: `{"type":"object","properties":{
			"channel":{"type":"string","minLength":1,"description":"channel id (telegram); may be left out when one channel takes pairing"},
			"code":{"type":"string","minLength":1,"description":"the 8-character pairing code the sender got"},
			"accountId":{"type":"string","minLength":1,"pattern":"\\S","description":"the account (default: the one the request belongs to)"},
			"requestId":{"type":"string","minLength":1,"description":"the request's id from channels.pairing.list (instead of code)"},
			"notify":{"type":"boolean","description":"tell the sender on the same channel"},
			"bootstrapCommandOwner":{"type":"boolean","description":"not supported here: answered commandOwnerBootstrap unavailable"}},
			"additionalProperties":false}`,
		Args:       []string{"channel", "code"},
		Flags:      map[string]string{"accountId": "account"},
		Scope:      protocol.ScopePairing,
		Idempotent: false,
		OpenWorld:  true,
		Run:        tools.Typed(pairingApprove),
		Render:     renderApprove,
	})
}

func knownPairingChannel(ch string) bool {
	for _, c := range pairingChannels {
		if c == ch {
			return true
		}
	}
	return false
}

// requestID is the original's id of a request: a hash of channel,
// account, sender and creation time.
func requestID(p pairingRequest) string {
	sum := sha256.Sum256([]byte(p.Channel + "\x00" + p.AccountID + "\x00" + p.SenderID + "\x00" + isoMs(p.CreatedMs)))
	return base64.RawURLEncoding.EncodeToString(sum[:])[:32]
}

func isoMs(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

func pairingRepo(env *tools.Env, what string) (repo, error) {
	st, err := env.NeedStore(what)
	if err != nil {
		return repo{}, err
	}
	return repo{db: st.DB()}, nil
}

func pairingList(ctx context.Context, env *tools.Env, p listParams) (any, error) {
	ch := strings.ToLower(strings.TrimSpace(p.Channel))
	if ch != "" && !knownPairingChannel(ch) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown pairing channel: %s (channels that take pairing here: %s)", p.Channel, strings.Join(pairingChannels, ", "))
	}
	r, err := pairingRepo(env, "pairing list")
	if err != nil {
		return nil, err
	}
	reqs, err := r.listPairing(ctx, ch, strings.TrimSpace(p.AccountID), time.Now())
	if err != nil {
		return nil, err
	}
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	accounts := []any{}
	for _, c := range pairingChannels {
		if ch != "" && c != ch {
			continue
		}
		for _, id := range channels.AccountIDs(cfg, c) {
			if p.AccountID == "" || p.AccountID == id {
				accounts = append(accounts, map[string]any{"channel": c, "channelLabel": labels[c], "accountId": id})
			}
		}
	}
	out := []any{}
	for _, q := range reqs {
		item := map[string]any{"requestId": requestID(q), "channel": q.Channel, "channelLabel": labels[q.Channel],
			"accountId": q.AccountID, "senderId": q.SenderID, "senderLabel": "telegramUserId", "code": q.Code,
			"createdAt": isoMs(q.CreatedMs), "lastSeenAt": isoMs(q.LastSeenMs),
			"expiresAt": isoMs(q.CreatedMs + pairingTTL.Milliseconds()), "notifySupported": true}
		var meta map[string]any
		if json.Unmarshal([]byte(q.Meta), &meta) == nil {
			delete(meta, "accountId")
			for k, v := range meta {
				if v == "" {
					delete(meta, k)
				}
			}
			if len(meta) > 0 {
				item["metadata"] = meta
			}
		}
		out = append(out, item)
	}
	res := map[string]any{"accounts": accounts, "requests": out, "commandOwnerConfigured": false,
		"limits": map[string]any{"pendingPerAccount": pairingMaxPending, "ttlMs": pairingTTL.Milliseconds()}}
	if ch != "" {
		res["channel"] = ch
	}
	return res, nil
}

func pairingApprove(ctx context.Context, env *tools.Env, p approveParams) (any, error) {
	ch := strings.ToLower(strings.TrimSpace(p.Channel))
	code := strings.ToUpper(strings.TrimSpace(p.Code))
	// `openclaw pairing approve CODE`: the one positional is the code
	// when it is no channel and one channel takes pairing.
	if code == "" && p.RequestID == "" && ch != "" && !knownPairingChannel(ch) && len(pairingChannels) == 1 {
		ch, code = pairingChannels[0], strings.ToUpper(strings.TrimSpace(p.Channel))
	}
	if ch == "" && len(pairingChannels) == 1 {
		ch = pairingChannels[0]
	}
	if !knownPairingChannel(ch) {
		return nil, tools.Errorf(tools.CodeInvalidParams, "unknown pairing channel: %s (channels that take pairing here: %s)", p.Channel, strings.Join(pairingChannels, ", "))
	}
	if code == "" && p.RequestID == "" {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Usage: openclaw pairing approve <channel> <code> (or: openclaw pairing approve --channel <channel> <code>)")
	}
	r, err := pairingRepo(env, "pairing approve")
	if err != nil {
		return nil, err
	}
	got, err := r.approve(ctx, ch, strings.TrimSpace(p.AccountID), func(q pairingRequest) bool {
		if p.RequestID != "" {
			return requestID(q) == p.RequestID
		}
		return q.Code == code
	}, time.Now())
	if err != nil {
		return nil, err
	}
	if got == nil {
		if p.RequestID != "" {
			return nil, tools.Errorf(tools.CodeInvalidParams, "pending DM access request no longer exists")
		}
		return nil, tools.Errorf(tools.CodeNotFound, "No pending pairing request found for code %q. Run `openclaw pairing list --channel %s` to list pending requests.", code, ch)
	}
	notification := "not-requested"
	if p.Notify {
		notification = "sent"
		if err := notifyApproved(ctx, env, got); err != nil {
			notification = "failed"
			env.Event("warning", map[string]any{"message": "Failed to notify requester: " + err.Error()})
		}
	}
	owner := "not-requested"
	if p.BootstrapCommandOwner {
		owner = "unavailable"
	}
	return map[string]any{"requestId": requestID(*got), "senderId": got.SenderID, "channel": got.Channel, "accountId": got.AccountID,
		"notification": notification, "commandOwnerBootstrap": owner}, nil
}

// notifyApproved tells the sender, in their DM with the bot (a Telegram
// DM's chat id is the user's id).
func notifyApproved(ctx context.Context, env *tools.Env, q *pairingRequest) error {
	cfg := env.Config
	if cfg == nil {
		cfg = config.Empty()
	}
	acct, err := channels.Resolve(cfg, q.Channel, q.AccountID)
	if err != nil {
		return err
	}
	ad, err := channels.Open(acct)
	if err != nil {
		return err
	}
	_, err = ad.Do(ctx, &channels.Request{Action: "send", Target: q.SenderID, Message: approvedMessage})
	return err
}

func renderList(w io.Writer, r gjson.Result) error {
	reqs := r.Get("requests").Array()
	if len(reqs) == 0 {
		ch := r.Get("channel").String()
		if ch != "" {
			ch += " "
		}
		_, err := fmt.Fprintf(w, "No pending %spairing requests.\n", ch)
		return err
	}
	rows := make([][]string, 0, len(reqs))
	for _, q := range reqs {
		rows = append(rows, []string{q.Get("code").String(), q.Get("channel").String() + "/" + q.Get("accountId").String(),
			q.Get("senderId").String(), q.Get("metadata").Raw, q.Get("createdAt").String()})
	}
	lines, err := texttable.Lines([]string{"Code", "Account", "Sender", "Meta", "Requested"}, rows)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Pairing requests (%d)\n%s\n", len(reqs), strings.Join(lines, "\n"))
	return err
}

func renderApprove(w io.Writer, r gjson.Result) error {
	_, err := fmt.Fprintf(w, "Approved %s sender %s.\n", r.Get("channel").String(), r.Get("senderId").String())
	if err == nil && r.Get("notification").String() == "failed" {
		_, err = fmt.Fprintln(w, "Failed to notify requester (see the gateway's log).")
	}
	return err
}
