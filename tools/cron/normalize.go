package cron

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// Input normalisation (spec §1.7, the original's src/cron/normalize.ts):
// models and people send sloppy jobs — fields at the top level, a job
// wrapped in {job:…} or {data:…}, kinds in any case, durations ("10m"),
// relative or offset-less times — and every front door (cron.add,
// cron.update, the agent tool) accepts them the same way. What is still
// wrong afterwards is refused with a message naming the field.

// obj is a decoded JSON object (numbers as json.Number).
type obj = map[string]any

func decodeObject(raw []byte) (obj, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m obj
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = obj{}
	}
	return m, nil
}

// inputError is an invalid-params error in the original's words:
// "invalid cron.add params: <what>".
func inputError(method, format string, args ...any) error {
	return tools.Errorf(tools.CodeInvalidParams, "invalid %s params: %s", method, fmt.Sprintf(format, args...))
}

// Keys each object may carry once normalised.
var (
	jobKeys = set("name", "displayName", "description", "enabled", "deleteAfterRun", "agentId", "sessionKey",
		"schedule", "sessionTarget", "wakeMode", "payload", "delivery")
	scheduleKeys = set("kind", "at", "everyMs", "anchorMs", "expr", "tz", "staggerMs")
	payloadKeys  = set("kind", "text", "message", "model", "fallbacks", "thinking", "timeoutSeconds",
		"allowUnsafeExternalContent", "lightContext", "toolsAllow")
	deliveryKeys = set("mode", "channel", "to", "threadId", "accountId", "bestEffort")
	// Later fields this gateway does not implement: refused by name rather
	// than stored and ignored.
	unsupportedKeys = set("declarationKey", "owner", "pacing", "trigger", "failureAlert", "scheduledToolPolicy", "state")
	thinkingLevels  = set("off", "minimal", "low", "medium", "high", "xhigh")
)

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

func objOf(v any) (obj, bool) { m, ok := v.(map[string]any); return m, ok }

// str returns a trimmed string member; blank counts as absent.
func str(m obj, k string) (string, bool) {
	s, ok := m[k].(string)
	if !ok {
		return "", false
	}
	s = strings.TrimSpace(s)
	return s, s != ""
}

// dropBlank deletes members that are blank strings (the original deletes
// them before validating).
func dropBlank(m obj) {
	for k, v := range m {
		if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
			delete(m, k)
		}
	}
}

func lowerEnum(m obj, k string, aliases map[string]string) {
	s, ok := m[k].(string)
	if !ok {
		return
	}
	s = strings.ToLower(strings.TrimSpace(s))
	if a, ok := aliases[s]; ok {
		s = a
	}
	m[k] = s
}

// unwrap takes a job out of {job:{…}} or {data:{…}}.
func unwrap(m obj) obj {
	for _, k := range []string{"job", "data"} {
		if inner, ok := objOf(m[k]); ok && len(inner) > 0 {
			out := obj{}
			for kk, v := range m {
				if kk != k {
					out[kk] = v
				}
			}
			for kk, v := range inner {
				out[kk] = v
			}
			return out
		}
	}
	return m
}

// number reads a JSON number or a numeric string.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && strings.TrimSpace(x) != ""
	}
	return 0, false
}

// durationMs reads milliseconds: a number, or a duration string ("10m").
func durationMs(v any) (int64, error) {
	if s, ok := v.(string); ok {
		if cronexpr.DigitsOnly(strings.TrimSpace(s)) {
			f, _ := number(s)
			return int64(f), nil
		}
		return cronexpr.ParseDuration(s)
	}
	f, ok := number(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("must be a number of milliseconds or a duration such as 10m")
	}
	return int64(math.Floor(f)), nil
}

// liftTopLevel moves job fields that arrived at the top level (weaker
// models flatten the job) to where they belong.
func liftTopLevel(m obj) {
	sched, _ := objOf(m["schedule"])
	if sched == nil {
		sched = obj{}
		for _, k := range []string{"at", "atMs", "everyMs", "every", "anchorMs", "expr", "cron", "tz", "staggerMs"} {
			if v, ok := m[k]; ok {
				if k == "cron" {
					k = "expr"
				}
				sched[k] = v
			}
		}
		if len(sched) > 0 {
			m["schedule"] = sched
		}
	}
	for _, k := range []string{"at", "atMs", "everyMs", "every", "anchorMs", "expr", "cron", "tz", "staggerMs"} {
		delete(m, k)
	}
	payload, hasPayload := objOf(m["payload"])
	if !hasPayload {
		if msg, ok := str(m, "message"); ok {
			payload = obj{"kind": PayloadAgentTurn, "message": msg}
		} else if text, ok := str(m, "text"); ok {
			payload = obj{"kind": PayloadSystemEvent, "text": text}
		}
	}
	if payload != nil {
		for _, k := range []string{"model", "thinking", "timeoutSeconds", "allowUnsafeExternalContent", "deliver", "channel", "to", "bestEffortDeliver", "provider"} {
			if v, ok := m[k]; ok {
				if _, has := payload[k]; !has {
					payload[k] = v
				}
			}
		}
		m["payload"] = payload
	}
	for _, k := range []string{"message", "text", "model", "thinking", "timeoutSeconds", "allowUnsafeExternalContent", "deliver", "channel", "to", "bestEffortDeliver", "provider"} {
		delete(m, k)
	}
}

// legacyDelivery turns the payload's delivery hints (deliver, channel, to,
// bestEffortDeliver, provider) into a delivery object, if there is none.
func legacyDelivery(m obj) {
	p, ok := objOf(m["payload"])
	if !ok {
		return
	}
	hint := obj{}
	for _, k := range []string{"deliver", "channel", "to", "bestEffortDeliver", "provider"} {
		if v, ok := p[k]; ok {
			hint[k] = v
			delete(p, k)
		}
	}
	if len(hint) == 0 || m["delivery"] != nil {
		return
	}
	d := obj{"mode": DeliveryAnnounce}
	if b, ok := hint["deliver"].(bool); ok && !b {
		d["mode"] = DeliveryNone
	}
	if s, ok := str(hint, "channel"); ok {
		d["channel"] = s
	} else if s, ok := str(hint, "provider"); ok {
		d["channel"] = s
	}
	if s, ok := str(hint, "to"); ok {
		d["to"] = s
	}
	if b, ok := hint["bestEffortDeliver"].(bool); ok {
		d["bestEffort"] = b
	}
	m["delivery"] = d
}

// normaliseShapes lower-cases the enums, infers missing kinds and fixes
// the spellings the original accepts.
func normaliseShapes(m obj) {
	dropBlank(m)
	if s, ok := m["enabled"].(string); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			m["enabled"] = true
		case "false":
			m["enabled"] = false
		}
	}
	lowerEnum(m, "sessionTarget", nil)
	lowerEnum(m, "wakeMode", nil)
	if s, ok := m["agentId"].(string); ok {
		m["agentId"] = normalizeAgentID(s)
	}
	if s, ok := m["sessionKey"].(string); ok {
		m["sessionKey"] = strings.TrimSpace(s)
	}
	if sched, ok := objOf(m["schedule"]); ok {
		dropBlank(sched)
		lowerEnum(sched, "kind", nil)
		if _, ok := sched["kind"]; !ok {
			switch {
			case sched["at"] != nil || sched["atMs"] != nil:
				sched["kind"] = KindAt
			case sched["everyMs"] != nil || sched["every"] != nil:
				sched["kind"] = KindEvery
			case sched["expr"] != nil || sched["cron"] != nil:
				sched["kind"] = KindCron
			}
		}
		if v, ok := sched["cron"]; ok && sched["expr"] == nil {
			sched["expr"] = v
		}
		delete(sched, "cron")
		if v, ok := sched["every"]; ok && sched["everyMs"] == nil {
			sched["everyMs"] = v
		}
		delete(sched, "every")
		if v, ok := sched["atMs"]; ok && sched["at"] == nil {
			if f, ok := number(v); ok {
				sched["at"] = cronexpr.ISOString(int64(f))
			}
		}
		delete(sched, "atMs")
	}
	if p, ok := objOf(m["payload"]); ok {
		dropBlank(p)
		lowerEnum(p, "kind", map[string]string{"agentturn": PayloadAgentTurn, "systemevent": PayloadSystemEvent})
		if _, ok := p["kind"]; !ok {
			switch {
			case p["message"] != nil:
				p["kind"] = PayloadAgentTurn
			case p["text"] != nil:
				p["kind"] = PayloadSystemEvent
			case p["model"] != nil || p["thinking"] != nil || p["timeoutSeconds"] != nil || p["allowUnsafeExternalContent"] != nil:
				p["kind"] = PayloadAgentTurn
			}
		}
		if k, _ := p["kind"].(string); k == "agentturn" {
			p["kind"] = PayloadAgentTurn
		} else if k == "systemevent" {
			p["kind"] = PayloadSystemEvent
		}
		lowerEnum(p, "thinking", nil)
	}
	legacyDelivery(m)
	if d, ok := objOf(m["delivery"]); ok {
		dropBlank(d)
		lowerEnum(d, "mode", map[string]string{"deliver": DeliveryAnnounce})
		lowerEnum(d, "channel", nil)
	}
}

// unknownKeys names the members not in allowed, sorted.
func unknownKeys(m obj, allowed map[string]bool) []string {
	var out []string
	for k := range m {
		if !allowed[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func checkKeys(method, where string, m obj, allowed map[string]bool) error {
	for _, k := range unknownKeys(m, allowed) {
		if where == "" && unsupportedKeys[k] {
			return inputError(method, "%s is not supported by this gateway", k)
		}
		if where == "" {
			return inputError(method, "at root: unexpected property '%s'", k)
		}
		return inputError(method, "%s: unexpected property '%s'", where, k)
	}
	return nil
}

// newJobFrom builds a job from cron.add params (or the tool's job).
func newJobFrom(method string, raw obj, now int64, id string) (*Job, error) {
	m := unwrap(raw)
	liftTopLevel(m)
	normaliseShapes(m)
	if err := checkKeys(method, "", m, jobKeys); err != nil {
		return nil, err
	}
	j := &Job{ID: id, Enabled: true, CreatedAtMs: now, UpdatedAtMs: now, WakeMode: WakeNow}
	if err := applyJobFields(method, j, m, now, true); err != nil {
		return nil, err
	}
	if j.Name == "" {
		j.Name = inferName(j)
	}
	if j.SessionTarget == "" {
		j.SessionTarget = TargetMain
		if j.Payload.Kind == PayloadAgentTurn {
			j.SessionTarget = TargetIsolated
		}
	}
	if j.Schedule.Kind == KindAt && j.DeleteAfterRun == nil {
		j.DeleteAfterRun = boolp(true)
	}
	if j.Schedule.Kind == KindEvery && j.Schedule.AnchorMs == nil {
		j.Schedule.AnchorMs = i64(now)
	}
	if j.Schedule.Kind == KindCron && j.Schedule.StaggerMs == nil && TopOfHour(j.Schedule.Expr) {
		j.Schedule.StaggerMs = i64(DefaultStaggerMs)
	}
	if j.Payload.Kind == PayloadAgentTurn && j.SessionTarget == TargetIsolated && j.Delivery == nil {
		j.Delivery = &Delivery{Mode: DeliveryAnnounce}
	}
	if err := validateJob(method, j, now, true); err != nil {
		return nil, err
	}
	return j, nil
}

// applyJobFields copies the normalised members of m onto j (create: the
// whole job; update: a patch, where null clears agentId, sessionKey,
// displayName and delivery).
func applyJobFields(method string, j *Job, m obj, now int64, create bool) error {
	for k, v := range m {
		var err error
		switch k {
		case "name", "description", "displayName", "sessionKey", "agentId", "sessionTarget", "wakeMode":
			err = setString(j, k, v, create)
		case "enabled":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("must be a boolean")
			}
			j.Enabled = b
		case "deleteAfterRun":
			switch b := v.(type) {
			case bool:
				j.DeleteAfterRun = &b
			case nil:
				j.DeleteAfterRun = nil
			default:
				err = fmt.Errorf("must be a boolean")
			}
		case "schedule":
			var s Schedule
			sm, ok := objOf(v)
			if !ok {
				err = fmt.Errorf("must be an object")
				break
			}
			if s, err = parseSchedule(method, sm, now); err == nil {
				j.Schedule = s
			}
		case "payload":
			pm, ok := objOf(v)
			if !ok {
				err = fmt.Errorf("must be an object")
				break
			}
			err = applyPayload(method, j, pm, create)
		case "delivery":
			if v == nil {
				j.Delivery = nil
				break
			}
			dm, ok := objOf(v)
			if !ok {
				err = fmt.Errorf("must be an object")
				break
			}
			err = applyDelivery(method, j, dm, create)
		}
		if err != nil {
			if te := tools.AsError(err); te.Code == tools.CodeInvalidParams {
				return err
			}
			return inputError(method, "%s: %v", k, err)
		}
	}
	return nil
}

func setString(j *Job, k string, v any, create bool) error {
	var s string
	switch x := v.(type) {
	case string:
		s = strings.TrimSpace(x)
	case nil:
		if create || (k != "agentId" && k != "sessionKey" && k != "displayName" && k != "description") {
			return fmt.Errorf("must be a string")
		}
	default:
		return fmt.Errorf("must be a string")
	}
	switch k {
	case "name":
		j.Name = s
	case "description":
		j.Description = s
	case "displayName":
		j.DisplayName = s
	case "sessionKey":
		j.SessionKey = s
	case "agentId":
		j.AgentID = s
	case "sessionTarget":
		if s != TargetMain && s != TargetIsolated {
			return fmt.Errorf(`must be "main" or "isolated"`)
		}
		j.SessionTarget = s
	case "wakeMode":
		if s != WakeNow && s != WakeNextHeartbeat {
			return fmt.Errorf(`must be "now" or "next-heartbeat"`)
		}
		j.WakeMode = s
	}
	return nil
}

// parseSchedule reads a normalised schedule object.
func parseSchedule(method string, m obj, now int64) (Schedule, error) {
	if err := checkKeys(method, "schedule", m, scheduleKeys); err != nil {
		return Schedule{}, err
	}
	kind, _ := m["kind"].(string)
	s := Schedule{Kind: kind}
	tz, hasTZ := str(m, "tz")
	if v, ok := m["tz"]; ok && !hasTZ {
		if _, isStr := v.(string); !isStr {
			return s, inputError(method, "schedule.tz: must be a string")
		}
	}
	if hasTZ {
		if _, err := cronexpr.LoadZone(tz); err != nil {
			return s, inputError(method, "schedule.tz: %v", err)
		}
	}
	switch kind {
	case KindAt:
		raw, ok := m["at"].(string)
		if !ok || strings.TrimSpace(raw) == "" {
			if f, isNum := number(m["at"]); isNum && m["at"] != nil {
				raw, ok = strconv.FormatInt(int64(f), 10), true
			} else {
				return s, inputError(method, "schedule.at: required: an ISO-8601 time, epoch milliseconds or a duration such as 20m")
			}
		}
		ms, err := resolveAt(strings.TrimSpace(raw), tz, now)
		if err != nil {
			return s, inputError(method, "schedule.at: %v", err)
		}
		s.At = cronexpr.ISOString(ms)
		for _, k := range []string{"everyMs", "anchorMs", "expr", "staggerMs"} {
			if m[k] != nil {
				return s, inputError(method, "schedule.%s: not allowed with kind \"at\"", k)
			}
		}
	case KindEvery:
		v, ok := m["everyMs"]
		if !ok {
			return s, inputError(method, "schedule.everyMs: required for kind \"every\"")
		}
		ms, err := durationMs(v)
		if err != nil {
			return s, inputError(method, "schedule.everyMs: %v", err)
		}
		if ms < 1 {
			return s, inputError(method, "schedule.everyMs: must be at least 1 ms")
		}
		s.EveryMs = ms
		if v, ok := m["anchorMs"]; ok && v != nil {
			f, ok := number(v)
			if !ok || f < 0 {
				if at, isAt := v.(string); isAt {
					if ms, ok := cronexpr.ParseAbsoluteTime(at); ok {
						s.AnchorMs = i64(ms)
						break
					}
				}
				return s, inputError(method, "schedule.anchorMs: must be a non-negative epoch-ms time")
			}
			s.AnchorMs = i64(int64(f))
		}
		for _, k := range []string{"at", "expr", "tz", "staggerMs"} {
			if m[k] != nil {
				return s, inputError(method, "schedule.%s: not allowed with kind \"every\"", k)
			}
		}
	case KindCron:
		expr, ok := str(m, "expr")
		if !ok {
			return s, inputError(method, "schedule.expr: required for kind \"cron\"")
		}
		if _, err := compileCron(expr, tz); err != nil {
			return s, inputError(method, "%v", err)
		}
		s.Expr, s.TZ = expr, tz
		if v, ok := m["staggerMs"]; ok && v != nil {
			ms, err := durationMs(v)
			if err != nil || ms < 0 {
				return s, inputError(method, "schedule.staggerMs: must be a non-negative number of milliseconds or a duration")
			}
			s.StaggerMs = i64(ms)
		}
		for _, k := range []string{"at", "everyMs", "anchorMs"} {
			if m[k] != nil {
				return s, inputError(method, "schedule.%s: not allowed with kind \"cron\"", k)
			}
		}
	case "":
		return s, inputError(method, `schedule.kind: required: "at", "every" or "cron"`)
	default:
		return s, inputError(method, `schedule.kind: must be "at", "every" or "cron", not %q`, kind)
	}
	return s, nil
}

// resolveAt reads an `at` time: an absolute time (offset-less means UTC,
// or wall time in tz when one is given), epoch milliseconds, or a
// duration from now ("20m", "+1h").
func resolveAt(raw, tz string, now int64) (int64, error) {
	if tz != "" && cronexpr.IsOffsetless(raw) {
		loc, err := cronexpr.LoadZone(tz)
		if err != nil {
			return 0, err
		}
		if ms, ok := cronexpr.ParseLocalTime(raw, loc); ok {
			return ms, nil
		}
		return 0, fmt.Errorf("%s does not exist in %s (a daylight-saving gap)", raw, tz)
	}
	if ms, ok := cronexpr.ParseAbsoluteTime(raw); ok {
		return ms, nil
	}
	if d, err := cronexpr.ParseDuration(strings.TrimPrefix(raw, "+")); err == nil && d > 0 {
		return now + d, nil
	}
	return 0, fmt.Errorf("invalid time %q: use an ISO-8601 time (2030-02-01T16:00:00Z), epoch milliseconds or a duration such as 20m", raw)
}

func applyPayload(method string, j *Job, m obj, create bool) error {
	if err := checkKeys(method, "payload", m, payloadKeys); err != nil {
		return err
	}
	kind, _ := m["kind"].(string)
	switch kind {
	case PayloadSystemEvent, PayloadAgentTurn:
	case "":
		if create || j.Payload.Kind == "" {
			return inputError(method, `payload.kind: required: "systemEvent" or "agentTurn"`)
		}
		kind = j.Payload.Kind
	default:
		return inputError(method, `payload.kind: must be "systemEvent" or "agentTurn", not %q`, kind)
	}
	p := Payload{Kind: kind}
	if !create && j.Payload.Kind == kind {
		p = j.Payload // a patch of the same kind merges
	}
	for k, v := range m {
		if k == "kind" {
			continue
		}
		if kind == PayloadSystemEvent && k != "text" && k != "toolsAllow" {
			return inputError(method, "payload.%s: not allowed with kind \"systemEvent\"", k)
		}
		if kind == PayloadAgentTurn && k == "text" {
			return inputError(method, "payload.text: not allowed with kind \"agentTurn\" (use message)")
		}
		var err error
		switch k {
		case "text", "message", "model", "thinking":
			var s string
			switch x := v.(type) {
			case string:
				s = strings.TrimSpace(x)
			case nil:
			default:
				err = fmt.Errorf("must be a string")
			}
			switch k {
			case "text":
				p.Text = s
			case "message":
				p.Message = s
			case "model":
				p.Model = s
			case "thinking":
				if s != "" && !thinkingLevels[s] {
					err = fmt.Errorf("must be one of off, minimal, low, medium, high, xhigh")
				}
				p.Thinking = s
			}
		case "timeoutSeconds":
			if v == nil {
				p.TimeoutSeconds = nil
				break
			}
			f, ok := number(v)
			if !ok || f < 0 {
				err = fmt.Errorf("must be a non-negative integer")
				break
			}
			p.TimeoutSeconds = i64(int64(math.Floor(f)))
		case "allowUnsafeExternalContent", "lightContext":
			var bp *bool
			switch b := v.(type) {
			case bool:
				bp = &b
			case nil:
			default:
				err = fmt.Errorf("must be a boolean")
			}
			if k == "lightContext" {
				p.LightContext = bp
			} else {
				p.AllowUnsafeExternalContent = bp
			}
		case "fallbacks", "toolsAllow":
			var list []string
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					s, ok := e.(string)
					if !ok {
						err = fmt.Errorf("must be a list of strings")
						break
					}
					if s = strings.TrimSpace(s); s != "" {
						list = append(list, s)
					}
				}
			case nil:
			default:
				err = fmt.Errorf("must be a list of strings")
			}
			if k == "fallbacks" {
				p.Fallbacks = list
			} else {
				p.ToolsAllow = list
			}
		}
		if err != nil {
			return inputError(method, "payload.%s: %v", k, err)
		}
	}
	j.Payload = p
	return nil
}

func applyDelivery(method string, j *Job, m obj, create bool) error {
	if err := checkKeys(method, "delivery", m, deliveryKeys); err != nil {
		return err
	}
	d := Delivery{}
	if !create && j.Delivery != nil {
		d = *j.Delivery // a patch merges
	}
	for k, v := range m {
		var s string
		switch x := v.(type) {
		case string:
			s = strings.TrimSpace(x)
		case nil:
		case bool:
			if k != "bestEffort" {
				return inputError(method, "delivery.%s: must be a string", k)
			}
		case json.Number:
			if k != "threadId" {
				return inputError(method, "delivery.%s: must be a string", k)
			}
		default:
			return inputError(method, "delivery.%s: must be a string", k)
		}
		switch k {
		case "mode":
			if s != DeliveryAnnounce && s != DeliveryWebhook && s != DeliveryNone {
				return inputError(method, `delivery.mode: must be "announce", "webhook" or "none"`)
			}
			d.Mode = s
		case "channel":
			d.Channel = s
		case "to":
			d.To = s
		case "accountId":
			d.AccountID = s
		case "threadId":
			d.ThreadID = v
			if s != "" {
				d.ThreadID = s
			}
		case "bestEffort":
			if v == nil {
				d.BestEffort = nil
			} else if b, ok := v.(bool); ok {
				d.BestEffort = &b
			} else {
				return inputError(method, "delivery.bestEffort: must be a boolean")
			}
		}
	}
	if d.Mode == "" {
		d.Mode = DeliveryAnnounce
	}
	j.Delivery = &d
	return nil
}

// validWebhookURL: an http(s) URL with a host and no credentials.
func validWebhookURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// validateJob checks what the fields cannot check alone.
func validateJob(method string, j *Job, now int64, scheduleChanged bool) error {
	if j.Name == "" {
		return inputError(method, "name: required")
	}
	if utf8.RuneCountInString(j.Name) > 200 {
		return inputError(method, "name: at most 200 characters")
	}
	switch j.Payload.Kind {
	case PayloadSystemEvent:
		if j.Payload.Text == "" {
			return inputError(method, "payload.text: required for kind \"systemEvent\"")
		}
	case PayloadAgentTurn:
		if j.Payload.Message == "" {
			return inputError(method, "payload.message: required for kind \"agentTurn\"")
		}
	default:
		return inputError(method, "payload: required")
	}
	if j.SessionTarget == TargetMain && j.Payload.Kind != PayloadSystemEvent {
		return inputError(method, `main cron jobs require payload.kind="systemEvent"`)
	}
	if j.SessionTarget == TargetIsolated && j.Payload.Kind != PayloadAgentTurn {
		return inputError(method, `isolated cron jobs require payload.kind="agentTurn"`)
	}
	if j.Schedule.Kind == "" {
		return inputError(method, "schedule: required")
	}
	if d := j.Delivery; d != nil {
		if d.Mode == DeliveryWebhook && !validWebhookURL(d.To) {
			return inputError(method, `delivery.mode="webhook" requires delivery.to to be a valid http(s) URL`)
		}
		if d.Mode == DeliveryAnnounce && j.SessionTarget == TargetMain && (d.Channel != "" || d.To != "") {
			return inputError(method, "delivery.channel and delivery.to require an isolated agentTurn job")
		}
	}
	if j.Schedule.Kind == KindAt && scheduleChanged && j.Enabled {
		at, _ := cronexpr.ParseAbsoluteTime(j.Schedule.At)
		if at <= now {
			ago := (now - at) / 60000
			return tools.Errorf(tools.CodeInvalidParams, "schedule.at is in the past: %s (%d minutes ago). Current time: %s",
				j.Schedule.At, ago, cronexpr.ISOString(now))
		}
	}
	return nil
}

// inferName names a job from its payload's first line, else its schedule.
func inferName(j *Job) string {
	text := j.Payload.Text
	if j.Payload.Kind == PayloadAgentTurn {
		text = j.Payload.Message
	}
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return truncate(line, 60)
		}
	}
	switch j.Schedule.Kind {
	case KindCron:
		return "Cron: " + truncate(j.Schedule.Expr, 52)
	case KindEvery:
		return fmt.Sprintf("Every: %dms", j.Schedule.EveryMs)
	case KindAt:
		return "One-shot"
	}
	return "Automation"
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// applyPatch applies a cron.update patch to a copy of j.
func applyPatch(method string, j *Job, rawPatch obj, now int64) (*Job, bool, error) {
	m := unwrap(rawPatch)
	liftTopLevel(m)
	normaliseShapes(m)
	if err := checkKeys(method, "", m, jobKeys); err != nil {
		return nil, false, err
	}
	next := j.clone()
	if err := applyJobFields(method, next, m, now, false); err != nil {
		return nil, false, err
	}
	_, schedChanged := m["schedule"]
	_, enabledChanged := m["enabled"]
	if schedChanged && next.Schedule.Kind == KindEvery && next.Schedule.AnchorMs == nil {
		next.Schedule.AnchorMs = i64(now)
	}
	if schedChanged && next.Schedule.Kind == KindCron && next.Schedule.StaggerMs == nil && TopOfHour(next.Schedule.Expr) {
		next.Schedule.StaggerMs = i64(DefaultStaggerMs)
	}
	if _, ok := m["sessionTarget"]; ok && next.Payload.Kind == PayloadAgentTurn && next.SessionTarget == TargetIsolated && next.Delivery == nil {
		next.Delivery = &Delivery{Mode: DeliveryAnnounce}
	}
	if err := validateJob(method, next, now, schedChanged || (enabledChanged && next.Enabled && !j.Enabled)); err != nil {
		return nil, false, err
	}
	next.UpdatedAtMs = now
	return next, schedChanged || enabledChanged, nil
}

// normalizeAgentID lower-cases an agent id and keeps [a-z0-9_-] (other
// runs become "-"), at most 64 characters, as the original's
// normalizeAgentId; blank stays blank.
func normalizeAgentID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-'
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}
