package message

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
)

// The gateway's `send` (SendParams, gateway-protocol §5) and
// `message.action` (what the original CLI's `openclaw message <action>`
// calls) methods. Both run the message tool's action through the one door,
// as the caller, so the scopes, the tool policy and the cross-context rule
// are the tool's.

const sendSchema = `{"type":"object","properties":{
	"to":{"type":"string","minLength":1},"idempotencyKey":{"type":"string","minLength":1},
	"message":{"type":"string"},"mediaUrl":{"type":"string"},"mediaUrls":{"type":"array","items":{"type":"string"}},
	"buffer":{"type":"string"},"filename":{"type":"string"},"contentType":{"type":"string"},
	"asVoice":{"type":"boolean"},"gifPlayback":{"type":"boolean"},"forceDocument":{"type":"boolean"},"parseMode":{"type":"string"},
	"channel":{"type":"string"},"accountId":{"type":"string"},"agentId":{"type":"string"},
	"replyToId":{"type":"string"},"threadId":{"type":["string","number"]},"silent":{"type":"boolean"},"sessionKey":{"type":"string"}
},"required":["to","idempotencyKey"],"additionalProperties":true}`

const actionSchema = `{"type":"object","properties":{
	"channel":{"type":"string"},"action":{"type":"string","minLength":1},"params":{"type":"object"},
	"accountId":{"type":"string"},"sessionKey":{"type":"string"},"sessionId":{"type":"string"},"agentId":{"type":"string"},
	"idempotencyKey":{"type":"string"}
},"required":["action"],"additionalProperties":true}`

func init() {
	tools.Register(&tools.Action{
		Method: "send", Where: tools.Gateway, Scope: protocol.ScopeWrite, Hidden: true,
		Summary: "Send a message to a channel target (SendParams); the result carries the platform's message id",
		Schema:  sendSchema,
		Run:     runSend,
	})
	tools.Register(&tools.Action{
		Method: "message.action", Where: tools.Gateway, Scope: protocol.ScopeWrite, Hidden: true,
		Summary: "Run a message tool action on a channel ({channel, action, params}), as the original CLI's `message <action>` does",
		Schema:  actionSchema,
		Run:     runAction,
	})
}

func invokeAction(ctx context.Context, env *tools.Env, action string, p map[string]any) (map[string]any, error) {
	if tools.Lookup("message."+action) == nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Unknown message action %q (known: %s)", action, strings.Join(channels.Actions, ", "))
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	out, err := tools.Invoke(ctx, env, tools.Call{Tool: "message", Verb: action, Args: b})
	if err != nil {
		return nil, err
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, err
	}
	return res, nil
}

func runSend(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	j := gjson.ParseBytes(raw)
	p := map[string]any{"target": j.Get("to").String()}
	for from, to := range map[string]string{"message": "message", "buffer": "buffer", "filename": "filename",
		"contentType": "contentType", "channel": "channel", "accountId": "accountId", "replyToId": "replyTo", "threadId": "threadId",
		"sessionKey": "sessionKey"} {
		if v := j.Get(from); v.Exists() && v.String() != "" {
			p[to] = v.String()
		}
	}
	for _, k := range []string{"silent", "forceDocument"} {
		if v := j.Get(k); v.Exists() {
			p[k] = v.Bool()
		}
	}
	var urls []string
	if u := j.Get("mediaUrl").String(); u != "" {
		urls = append(urls, u)
	}
	for _, u := range j.Get("mediaUrls").Array() {
		if s := u.String(); s != "" && (len(urls) == 0 || s != urls[0]) {
			urls = append(urls, s)
		}
	}
	if len(urls) > 0 {
		p["media"] = urls
	}
	res, err := invokeAction(ctx, env, "send", p)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"runId": j.Get("idempotencyKey").String(), "messageId": res["messageId"], "channel": res["channel"]}
	for _, k := range []string{"chatId", "channelId", "messageIds", "to", "accountId"} {
		if v, ok := res[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

// actionAliases maps the original's param spellings onto ours.
var actionAliases = map[string]string{"to": "target", "message_id": "messageId",
	"mimeType": "contentType", "caption": "message", "text": "message"}

// mediaKeys are the original's spellings of attachments, merged into media.
var mediaKeys = map[string]bool{"media": true, "mediaUrl": true, "mediaUrls": true, "path": true, "filePath": true}

// arrayOf is v's elements, or v itself when it is not an array.
func arrayOf(v gjson.Result) []gjson.Result {
	if v.IsArray() {
		return v.Array()
	}
	return []gjson.Result{v}
}

func runAction(ctx context.Context, env *tools.Env, raw json.RawMessage) (any, error) {
	j := gjson.ParseBytes(raw)
	action := j.Get("action").String()
	a := tools.Lookup("message." + action)
	if a == nil {
		return nil, tools.Errorf(tools.CodeInvalidParams, "Unknown message action %q (known: %s)", action, strings.Join(channels.Actions, ", "))
	}
	allowed := gjson.Get(a.Schema, "properties")
	p := map[string]any{}
	var ignored []string
	var media []any
	j.Get("params").ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if mediaKeys[key] {
			for _, m := range arrayOf(v) {
				if s := m.String(); s != "" && !slices.Contains(media, any(s)) {
					media = append(media, s)
				}
			}
			return true
		}
		if al, ok := actionAliases[key]; ok {
			if _, set := p[al]; set || j.Get("params."+al).Exists() {
				return true
			}
			key = al
		}
		if !allowed.Get(gjson.Escape(key)).Exists() {
			// Only a param that asks for something is worth reporting
			// (the original CLI sends its false flags: json, verbose, pin).
			asks := v.Type == gjson.True || (v.Type == gjson.String && v.String() != "") || v.Type == gjson.Number ||
				(v.IsArray() && len(v.Array()) > 0) || (v.IsObject() && len(v.Map()) > 0)
			if asks && !strings.HasPrefix(key, "__") && key != "action" && key != "json" && key != "verbose" {
				ignored = append(ignored, key)
			}
			return true
		}
		val := v.Value()
		if key == "threadId" || key == "messageId" || key == "replyTo" {
			val = v.String()
		}
		p[key] = val
		return true
	})
	if len(media) > 0 && allowed.Get("media").Exists() {
		p["media"] = media
	}
	for _, k := range []string{"channel", "accountId", "sessionKey"} {
		if v := j.Get(k).String(); v != "" {
			if _, set := p[k]; !set && allowed.Get(k).Exists() {
				p[k] = v
			}
		}
	}
	res, err := invokeAction(ctx, env, action, p)
	if err != nil {
		return nil, err
	}
	if len(ignored) > 0 {
		res["ignoredParams"] = ignored
	}
	return res, nil
}
