package commands

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"github.com/openclaw-go/openclaw/protocol"
	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/cron/cronexpr"
)

// The original CLI's `cron add` and `cron edit` flags, turned into the
// cron.add job or the cron.update patch. Durations (--every 10m, --at 20m,
// --stagger 30s) become milliseconds here, as the original CLI does, so
// the params are the canonical ones whichever gateway receives them (the
// original's does not accept sloppy input); anything odd is left for the
// gateway to refuse, in its words.

func nowMs() int64 { return time.Now().UnixMilli() }

func cronCommonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "name", Usage: "job `NAME`"},
		&cli.StringFlag{Name: "description", Usage: "what the job is for"},
		&cli.StringFlag{Name: "agent", Usage: "agent `ID` the job runs for (default: the default agent)"},
		&cli.StringFlag{Name: "session", Usage: "main (a system event for the main session) or isolated (an agent turn); default from the payload"},
		&cli.StringFlag{Name: "session-key", Usage: "session `KEY` the job belongs to (main jobs queue their event there)"},
		&cli.StringFlag{Name: "wake", Usage: "now or next-heartbeat (default now)"},
		&cli.StringFlag{Name: "at", Usage: "one-shot at `TIME`: ISO-8601 (no offset: UTC, or wall time in --tz), epoch ms, or a duration from now (20m)"},
		&cli.StringFlag{Name: "every", Usage: "every `DURATION` (30s, 10m, 2h, 1d, 1h30m)"},
		&cli.StringFlag{Name: "cron", Usage: "cron `EXPR` (5 fields, or 6 with seconds first)"},
		&cli.StringFlag{Name: "tz", Usage: "IANA time `ZONE` for --cron or an offset-less --at (default: the gateway host's)"},
		&cli.StringFlag{Name: "stagger", Usage: "spread a --cron job's runs over `DURATION` (top-of-hour expressions default to 5m)"},
		&cli.BoolFlag{Name: "exact", Usage: "run a --cron job exactly on time (no stagger)"},
		&cli.StringFlag{Name: "system-event", Usage: "payload: `TEXT` queued for the main session"},
		&cli.StringFlag{Name: "message", Usage: "payload: `TEXT` for an isolated agent turn"},
		&cli.StringFlag{Name: "model", Usage: "agent turn model (provider/model or alias)"},
		&cli.StringFlag{Name: "thinking", Usage: "agent turn thinking level (off, minimal, low, medium, high, xhigh)"},
		&cli.StringFlag{Name: "timeout-seconds", Usage: "agent turn timeout in seconds (0: none)"},
		&cli.BoolFlag{Name: "light-context", Usage: "agent turn with a lightweight bootstrap context"},
		&cli.BoolFlag{Name: "announce", Usage: "deliver an isolated run's reply to --channel/--to (the default for isolated jobs)"},
		&cli.BoolFlag{Name: "deliver", Usage: "deprecated spelling of --announce"},
		&cli.BoolFlag{Name: "no-deliver", Usage: "do not deliver an isolated run's reply"},
		&cli.StringFlag{Name: "webhook", Usage: "POST each finished run to `URL` (http or https; the SSRF guard applies)"},
		&cli.StringFlag{Name: "channel", Usage: "delivery channel (last, or a channel id)"},
		&cli.StringFlag{Name: "to", Usage: "delivery destination (channel-specific)"},
		&cli.StringFlag{Name: "account", Usage: "delivery account `ID`"},
		&cli.BoolFlag{Name: "best-effort-deliver", Usage: "a failed delivery does not fail the run"},
		&cli.BoolFlag{Name: "delete-after-run", Usage: "delete the job after a successful run (the default for --at)"},
		&cli.BoolFlag{Name: "keep-after-run", Usage: "keep an --at job (disabled) after it ran"},
	}
}

func cronAddFlags() []cli.Flag {
	return append(cronCommonFlags(), &cli.BoolFlag{Name: "disabled", Usage: "create the job disabled"})
}

func cronEditFlags() []cli.Flag {
	return append(cronCommonFlags(),
		&cli.BoolFlag{Name: "enable", Usage: "enable the job"},
		&cli.BoolFlag{Name: "disable", Usage: "disable the job"},
		&cli.BoolFlag{Name: "clear-agent", Usage: "unset the agent (use the default)"},
		&cli.BoolFlag{Name: "clear-session-key", Usage: "unset the session key"},
		&cli.BoolFlag{Name: "clear-model", Usage: "remove the model override"},
		&cli.BoolFlag{Name: "clear-thinking", Usage: "remove the thinking override"},
		&cli.BoolFlag{Name: "clear-channel", Usage: "unset the delivery channel"},
		&cli.BoolFlag{Name: "clear-to", Usage: "unset the delivery destination"},
		&cli.BoolFlag{Name: "clear-account", Usage: "unset the delivery account"},
		&cli.BoolFlag{Name: "no-best-effort-deliver", Usage: "a failed delivery fails the run"},
		&cli.BoolFlag{Name: "no-light-context", Usage: "agent turn with the normal context"},
	)
}

func usagef(format string, args ...any) error { return tools.Errorf(tools.CodeUsage, format, args...) }

var (
	cronDurSingle = regexp.MustCompile(`^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$`)
	cronDurPart   = regexp.MustCompile(`(\d+(?:\.\d+)?)(ms|s|m|h|d)`)
	cronUnitMs    = map[string]float64{"ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3, "d": 86400e3}
	isoTime       = regexp.MustCompile(`^([+-]\d{6}|\d{4})-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$`)
)

// cronDuration reads 500ms, 30s, 5m, 2h, 1d, 1h30m (a bare number is ms),
// as the original CLI's parseDurationMs.
func cronDuration(flag, raw string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	bad := usagef("%s: Invalid duration: %q. Use values like 500ms, 30s, 5m, 2h, or 1h30m.", flag, raw)
	total := 0.0
	if m := cronDurSingle.FindStringSubmatch(s); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		unit := m[2]
		if unit == "" {
			unit = "ms"
		}
		total = v * cronUnitMs[unit]
	} else {
		consumed := 0
		for _, loc := range cronDurPart.FindAllStringSubmatchIndex(s, -1) {
			if loc[0] != consumed {
				return 0, bad
			}
			v, _ := strconv.ParseFloat(s[loc[2]:loc[3]], 64)
			total += v * cronUnitMs[s[loc[4]:loc[5]]]
			consumed = loc[1]
		}
		if consumed == 0 || consumed != len(s) {
			return 0, bad
		}
	}
	if math.Round(total) > 1<<53 {
		return 0, bad
	}
	return int64(math.Round(total)), nil
}

// cronAt is an --at value as the job's `at`: ISO and epoch ms as typed,
// a duration as now + that.
func cronAt(raw string, now int64) (string, error) {
	s := strings.TrimSpace(raw)
	if isoTime.MatchString(s) || (s != "" && strings.Trim(s, "0123456789") == "") {
		return s, nil
	}
	d, err := cronDuration("--at", strings.TrimPrefix(s, "+"))
	if err != nil || d <= 0 {
		return "", usagef("--at: %q is not a time (ISO-8601 or epoch ms) or a duration such as 20m", raw)
	}
	return time.UnixMilli(now + d).UTC().Format("2006-01-02T15:04:05.000Z"), nil
}

// atInThePast refuses an enabled one-shot whose time has passed: a usage
// mistake (exit 2), caught here because the gateway's refusal travels as
// a plain INVALID_REQUEST that the CLI cannot tell from a failure (exit
// 1). A time this side cannot place (a zone it does not know) is left to
// the gateway.
func atInThePast(sched map[string]any, now int64) error {
	at, _ := sched["at"].(string)
	if sched["kind"] != "at" || at == "" {
		return nil
	}
	ms, ok := int64(0), false
	if tz, _ := sched["tz"].(string); tz != "" && offsetless(at) {
		if loc, err := time.LoadLocation(tz); err == nil {
			ms, ok = cronexpr.ParseLocalTime(at, loc)
		}
	} else {
		ms, ok = cronexpr.ParseAbsoluteTime(at)
	}
	if !ok || ms > now {
		return nil
	}
	return usagef("--at %s is in the past (%d minutes ago; now %s): give a later time, or a duration such as 20m",
		at, (now-ms)/60000, time.UnixMilli(now).UTC().Format("2006-01-02T15:04:05Z"))
}

func offsetless(s string) bool {
	m := isoTime.FindStringSubmatch(strings.TrimSpace(s))
	return m != nil && m[2] == ""
}

// cronSchedule builds the schedule from --at, --every or --cron (+ --tz,
// --stagger, --exact); nil when none is given.
func cronSchedule(c *cli.Context, now int64) (map[string]any, error) {
	n := 0
	for _, f := range []string{"at", "every", "cron"} {
		if c.IsSet(f) {
			n++
		}
	}
	if n > 1 {
		return nil, usagef("Choose exactly one schedule: --at, --every, or --cron")
	}
	if c.IsSet("tz") && !c.IsSet("cron") && !(c.IsSet("at") && offsetless(c.String("at"))) && n > 0 {
		return nil, usagef("--tz applies to --cron or to an --at time without an offset")
	}
	if (c.IsSet("stagger") || c.Bool("exact")) && n > 0 && !c.IsSet("cron") {
		return nil, usagef("--stagger and --exact apply to --cron only")
	}
	if c.IsSet("stagger") && c.Bool("exact") {
		return nil, usagef("Choose --stagger or --exact, not both")
	}
	switch {
	case c.IsSet("at"):
		at, err := cronAt(c.String("at"), now)
		if err != nil {
			return nil, err
		}
		s := map[string]any{"kind": "at", "at": at}
		if c.IsSet("tz") {
			s["tz"] = c.String("tz")
		}
		return s, nil
	case c.IsSet("every"):
		ms, err := cronDuration("--every", c.String("every"))
		if err != nil {
			return nil, err
		}
		if ms <= 0 {
			return nil, usagef("--every must be longer than 0")
		}
		return map[string]any{"kind": "every", "everyMs": ms}, nil
	case c.IsSet("cron"):
		s := map[string]any{"kind": "cron", "expr": c.String("cron")}
		if c.IsSet("tz") {
			s["tz"] = c.String("tz")
		}
		if err := cronStagger(c, s); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, nil
}

func cronStagger(c *cli.Context, s map[string]any) error {
	if c.Bool("exact") {
		s["staggerMs"] = 0
	}
	if c.IsSet("stagger") {
		ms, err := cronDuration("--stagger", c.String("stagger"))
		if err != nil {
			return err
		}
		s["staggerMs"] = ms
	}
	return nil
}

func cronTimeout(c *cli.Context) (any, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(c.String("timeout-seconds")), 10, 64)
	if err != nil || v < 0 {
		return nil, usagef("--timeout-seconds must be a whole number of seconds (0: none)")
	}
	return v, nil
}

func deliveryModes(c *cli.Context) (int, error) {
	n := 0
	for _, on := range []bool{c.Bool("announce") || c.Bool("deliver"), c.Bool("no-deliver"), c.IsSet("webhook")} {
		if on {
			n++
		}
	}
	if n > 1 {
		return n, usagef("Choose at most one of --announce, --no-deliver, or --webhook")
	}
	if c.IsSet("webhook") && (c.IsSet("channel") || c.IsSet("to") || c.IsSet("account")) {
		return n, usagef("--webhook cannot be combined with --channel, --to or --account")
	}
	return n, nil
}

func checkWake(c *cli.Context) error {
	if w := c.String("wake"); c.IsSet("wake") && w != "now" && w != "next-heartbeat" {
		return usagef("--wake must be now or next-heartbeat")
	}
	return nil
}

// buildCronAdd is cron.add's params from add's flags.
func buildCronAdd(_ *runtime, c *cli.Context, now int64) (map[string]any, error) {
	if c.NArg() > 0 {
		return nil, usagef("unexpected argument %q: cron add takes flags (see `openclaw cron add --help`)", c.Args().First())
	}
	name := strings.TrimSpace(c.String("name"))
	if name == "" {
		return nil, usagef("Cron job name is required. Pass --name <name>.")
	}
	sched, err := cronSchedule(c, now)
	if err != nil {
		return nil, err
	}
	if sched == nil {
		return nil, usagef("Choose exactly one schedule: --at, --every, or --cron")
	}
	if !c.Bool("disabled") {
		if err := atInThePast(sched, now); err != nil {
			return nil, err
		}
	}
	sys, msg := strings.TrimSpace(c.String("system-event")), strings.TrimSpace(c.String("message"))
	if (sys == "") == (msg == "") {
		return nil, usagef("Choose exactly one payload: --system-event or --message")
	}
	if err := checkWake(c); err != nil {
		return nil, err
	}
	target := "main"
	if msg != "" {
		target = "isolated"
	}
	if c.IsSet("session") {
		target = strings.ToLower(strings.TrimSpace(c.String("session")))
		if target != "main" && target != "isolated" {
			return nil, usagef("--session must be main or isolated")
		}
	}
	if target == "main" && sys == "" {
		return nil, usagef("Main jobs require --system-event.")
	}
	if target == "isolated" && msg == "" {
		return nil, usagef("Isolated jobs require --message.")
	}
	modes, err := deliveryModes(c)
	if err != nil {
		return nil, err
	}
	if c.Bool("delete-after-run") && c.Bool("keep-after-run") {
		return nil, usagef("Choose --delete-after-run or --keep-after-run, not both")
	}
	payload := map[string]any{"kind": "systemEvent", "text": sys}
	if msg != "" {
		payload = map[string]any{"kind": "agentTurn", "message": msg}
		for _, f := range []string{"model", "thinking"} {
			if c.IsSet(f) {
				payload[f] = c.String(f)
			}
		}
		if c.IsSet("timeout-seconds") {
			if payload["timeoutSeconds"], err = cronTimeout(c); err != nil {
				return nil, err
			}
		}
		if c.Bool("light-context") {
			payload["lightContext"] = true
		}
	} else if c.IsSet("model") || c.IsSet("thinking") || c.IsSet("timeout-seconds") || c.Bool("light-context") {
		return nil, usagef("--model, --thinking, --timeout-seconds and --light-context apply to --message jobs")
	}
	wake := "now"
	if c.IsSet("wake") {
		wake = c.String("wake")
	}
	params := map[string]any{"name": name, "schedule": sched, "sessionTarget": target, "wakeMode": wake, "payload": payload,
		"enabled": !c.Bool("disabled")}
	for flag, param := range map[string]string{"description": "description", "session-key": "sessionKey", "agent": "agentId"} {
		if v := strings.TrimSpace(c.String(flag)); v != "" {
			params[param] = v
		}
	}
	if c.Bool("delete-after-run") {
		params["deleteAfterRun"] = true
	}
	if c.Bool("keep-after-run") {
		params["deleteAfterRun"] = false
	}
	chat := c.IsSet("channel") || c.IsSet("to") || c.IsSet("account")
	switch {
	case c.IsSet("webhook"):
		params["delivery"] = map[string]any{"mode": "webhook", "to": strings.TrimSpace(c.String("webhook"))}
	case target == "isolated":
		d := map[string]any{"mode": "announce"}
		if c.Bool("no-deliver") {
			d["mode"] = "none"
		}
		d["channel"] = "last"
		for flag, key := range map[string]string{"channel": "channel", "to": "to", "account": "accountId"} {
			if v := strings.TrimSpace(c.String(flag)); v != "" {
				d[key] = v
			}
		}
		if c.Bool("best-effort-deliver") {
			d["bestEffort"] = true
		}
		params["delivery"] = d
	case modes > 0 || chat:
		return nil, usagef("--announce, --no-deliver, --channel, --to and --account apply to isolated (--message) jobs")
	}
	return params, nil
}

// buildCronEdit is cron.update's {id, patch} from edit's flags. Flags
// that change part of the current schedule or payload (--tz alone, a
// model without --message) read the job first, as the original CLI does.
func buildCronEdit(r *runtime, c *cli.Context, now int64) (map[string]any, error) {
	if c.NArg() != 1 {
		return nil, usagef("cron edit takes the job id (see `openclaw cron edit --help`)")
	}
	id := c.Args().First()
	var current gjson.Result
	loaded := false
	existing := func() (gjson.Result, error) {
		if loaded {
			return current, nil
		}
		res, err := r.callScopes(c, "cron.get", []string{protocol.ScopeRead}, mustJSON(map[string]any{"id": id}), methodTimeout)
		if err != nil {
			return gjson.Result{}, err
		}
		current, loaded = gjson.ParseBytes(res), true
		return current, nil
	}
	patch := map[string]any{}
	if err := checkWake(c); err != nil {
		return nil, err
	}
	pairs := [][2]string{{"enable", "disable"}, {"delete-after-run", "keep-after-run"}, {"agent", "clear-agent"},
		{"session-key", "clear-session-key"}, {"model", "clear-model"}, {"thinking", "clear-thinking"},
		{"channel", "clear-channel"}, {"to", "clear-to"}, {"account", "clear-account"},
		{"best-effort-deliver", "no-best-effort-deliver"}, {"light-context", "no-light-context"}}
	for _, p := range pairs {
		if c.IsSet(p[0]) && c.IsSet(p[1]) {
			return nil, usagef("Choose --%s or --%s, not both", p[0], p[1])
		}
	}
	if c.IsSet("name") {
		patch["name"] = c.String("name")
	}
	if c.IsSet("description") {
		patch["description"] = c.String("description")
	}
	if c.Bool("enable") {
		patch["enabled"] = true
	}
	if c.Bool("disable") {
		patch["enabled"] = false
	}
	if c.Bool("delete-after-run") {
		patch["deleteAfterRun"] = true
	}
	if c.Bool("keep-after-run") {
		patch["deleteAfterRun"] = false
	}
	if c.IsSet("session") {
		s := strings.ToLower(strings.TrimSpace(c.String("session")))
		if s != "main" && s != "isolated" {
			return nil, usagef("--session must be main or isolated")
		}
		patch["sessionTarget"] = s
	}
	if c.IsSet("wake") {
		patch["wakeMode"] = c.String("wake")
	}
	if c.IsSet("agent") {
		patch["agentId"] = strings.TrimSpace(c.String("agent"))
	}
	if c.Bool("clear-agent") {
		patch["agentId"] = nil
	}
	if c.IsSet("session-key") {
		patch["sessionKey"] = strings.TrimSpace(c.String("session-key"))
	}
	if c.Bool("clear-session-key") {
		patch["sessionKey"] = nil
	}
	sched, err := cronSchedule(c, now)
	if err != nil {
		return nil, err
	}
	if sched == nil && (c.IsSet("tz") || c.IsSet("stagger") || c.Bool("exact")) {
		cur, err := existing()
		if err != nil {
			return nil, err
		}
		if cur.Get("schedule.kind").String() != "cron" {
			return nil, usagef("--tz, --stagger and --exact alone change a --cron schedule; this job's is %q", cur.Get("schedule.kind").String())
		}
		sched = map[string]any{}
		if err := json.Unmarshal([]byte(cur.Get("schedule").Raw), &sched); err != nil {
			return nil, err
		}
		if c.IsSet("tz") {
			sched["tz"] = c.String("tz")
		}
		delete(sched, "staggerMs")
		if err := cronStagger(c, sched); err != nil {
			return nil, err
		}
	} else if sched != nil && sched["kind"] == "cron" && !c.IsSet("tz") {
		if cur, err := existing(); err == nil && cur.Get("schedule.kind").String() == "cron" && cur.Get("schedule.tz").Exists() {
			sched["tz"] = cur.Get("schedule.tz").String() // a new expression keeps the job's zone
		}
	}
	if sched != nil {
		patch["schedule"] = sched
	}
	if err := editPayload(c, patch, existing); err != nil {
		return nil, err
	}
	if err := editDelivery(c, patch); err != nil {
		return nil, err
	}
	if len(patch) == 0 {
		return nil, usagef("cron edit: nothing to change (see `openclaw cron edit --help`)")
	}
	return map[string]any{"id": id, "patch": patch}, nil
}

func editPayload(c *cli.Context, patch map[string]any, existing func() (gjson.Result, error)) error {
	sys, msg := c.IsSet("system-event"), c.IsSet("message")
	if sys && msg {
		return usagef("Choose --system-event or --message, not both")
	}
	p := map[string]any{}
	switch {
	case sys:
		p["kind"], p["text"] = "systemEvent", c.String("system-event")
	case msg:
		p["kind"], p["message"] = "agentTurn", c.String("message")
	}
	for _, f := range []string{"model", "thinking"} {
		if c.IsSet(f) {
			p[f] = c.String(f)
		}
		if c.Bool("clear-" + f) {
			p[f] = nil
		}
	}
	if c.IsSet("timeout-seconds") {
		v, err := cronTimeout(c)
		if err != nil {
			return err
		}
		p["timeoutSeconds"] = v
	}
	if c.Bool("light-context") {
		p["lightContext"] = true
	}
	if c.Bool("no-light-context") {
		p["lightContext"] = false
	}
	if len(p) == 0 {
		return nil
	}
	if _, ok := p["kind"]; !ok {
		cur, err := existing()
		if err != nil {
			return err
		}
		p["kind"] = cur.Get("payload.kind").String()
	}
	patch["payload"] = p
	return nil
}

func editDelivery(c *cli.Context, patch map[string]any) error {
	if _, err := deliveryModes(c); err != nil {
		return err
	}
	d := map[string]any{}
	switch {
	case c.IsSet("webhook"):
		d["mode"], d["to"] = "webhook", strings.TrimSpace(c.String("webhook"))
	case c.Bool("announce") || c.Bool("deliver"):
		d["mode"] = "announce"
	case c.Bool("no-deliver"):
		d["mode"] = "none"
	}
	for flag, key := range map[string]string{"channel": "channel", "to": "to", "account": "accountId"} {
		if c.IsSet(flag) {
			d[key] = strings.TrimSpace(c.String(flag))
		}
		if c.Bool("clear-" + flag) {
			d[key] = nil
		}
	}
	if c.Bool("best-effort-deliver") {
		d["bestEffort"] = true
	}
	if c.Bool("no-best-effort-deliver") {
		d["bestEffort"] = false
	}
	if len(d) > 0 {
		patch["delivery"] = d
	}
	return nil
}
